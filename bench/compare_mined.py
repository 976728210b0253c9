"""Compare a re-mined stale-reference set with a reference set (the dev set): which cases and ground-truth
sites come back, which are missing, which are new.

A case matches when (commit, def_file, kind, symbol) agree; sites are compared as sets of (path, line).

    python bench/compare_mined.py MINED.json [--reference /work/shared/bench/breaking-dev.json]
        [--repo flask] [--since-commit SHA] [--verbose]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

DEV = Path("/work/shared/bench/breaking-dev.json")
Key = tuple[str, str, str, str]


def key(case: dict[str, Any]) -> Key:
    return (case["commit"], case["def_file"], case["kind"], case["symbol"])


def sites(case: dict[str, Any], what: str = "ground_truth") -> set[tuple[str, int]]:
    return {(path, int(line)) for path, line in case[what]}


def compare(mined: list[dict[str, Any]], reference: list[dict[str, Any]], verbose: bool) -> None:
    ours = {key(c): c for c in mined}
    theirs = {key(c): c for c in reference}
    tally: Counter[str] = Counter()
    for k, case in theirs.items():
        mine = ours.get(k)
        truth = sites(case)
        tally["reference sites"] += len(truth)
        if mine is None:
            tally["cases missing"] += 1
            tally["sites in missing cases"] += len(truth)
            if verbose:
                print(f"MISSING CASE {case['id']} {case['symbol']} ({case['reason']}) {sorted(truth)}")
            continue
        found = sites(mine)
        tally["sites reproduced"] += len(truth & found)
        tally["sites not reproduced"] += len(truth - found)
        tally["sites added"] += len(found - truth)
        tally["cases exact" if found == truth else "cases differing"] += 1
        tally["reason agrees" if mine["reason"] == case["reason"] else "reason differs"] += 1
        if verbose and (found != truth or mine["reason"] != case["reason"]):
            print(f"DIFF {case['id']} {case['symbol']} reason {case['reason']!r} vs {mine['reason']!r}")
            for site in sorted(truth - found):
                neutral = " (neutral in ours)" if site in sites(mine, "neutral") else ""
                print(f"   only reference: {site}{neutral}")
            for site in sorted(found - truth):
                neutral = " (neutral in reference)" if site in sites(case, "neutral") else ""
                print(f"   only ours:      {site}{neutral}")
    for k, case in ours.items():
        if k not in theirs:
            tally["cases added"] += 1
            tally["sites in added cases"] += len(sites(case))
            if verbose:
                print(f"ADDED CASE {case['id']} {case['symbol']} ({case['reason']}) {sorted(sites(case))}")
    _compare_neutral(mined, reference, tally, verbose)
    print(f"reference cases: {len(theirs)}, mined cases: {len(ours)}")
    for name in (
        "cases exact", "cases differing", "cases missing", "cases added", "reason agrees", "reason differs",
        "reference sites", "sites reproduced", "sites not reproduced", "sites in missing cases",
        "sites added", "sites in added cases",
        "neutral (reference)", "neutral reproduced", "neutral not reproduced", "neutral added",
    ):  # fmt: skip
        print(f"  {name:<24}{tally[name]:>6}")


def _stale_prs(cases: list[dict[str, Any]]) -> dict[tuple[str, str], dict[str, set[tuple[str, int]]]]:
    groups: dict[tuple[str, str], dict[str, set[tuple[str, int]]]] = {}
    for case in cases:
        group = groups.setdefault((case["commit"], case["def_file"]), {"truth": set(), "neutral": set()})
        group["truth"] |= sites(case)
        group["neutral"] |= sites(case, "neutral")
    return groups


def _compare_neutral(
    mined: list[dict[str, Any]], reference: list[dict[str, Any]], tally: Counter[str], verbose: bool
) -> None:
    """Neutral sites per stale PR (union over its cases), for stale PRs both sets have."""
    ours, theirs = _stale_prs(mined), _stale_prs(reference)
    for pr, group in theirs.items():
        if pr not in ours:
            continue
        neutral = group["neutral"] - group["truth"]
        mine = ours[pr]["neutral"] | ours[pr]["truth"]
        tally["neutral (reference)"] += len(neutral)
        tally["neutral reproduced"] += len(neutral & mine)
        tally["neutral not reproduced"] += len(neutral - mine)
        added = ours[pr]["neutral"] - group["neutral"] - group["truth"]
        tally["neutral added"] += len(added)
        if verbose and neutral - mine:
            print(f"NEUTRAL {pr[0][:10]} {pr[1]}: only reference {sorted(neutral - mine)[:12]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mined", type=Path)
    parser.add_argument("--reference", type=Path, default=DEV)
    parser.add_argument("--repo", help="only reference cases of this repository (short name)")
    parser.add_argument(
        "--commits", type=Path, help="only reference cases whose commit is listed in this file"
    )
    parser.add_argument("--verbose", action="store_true")
    args = parser.parse_args(argv)
    mined = json.loads(args.mined.read_text())
    reference = json.loads(args.reference.read_text())
    if args.repo:
        reference = [c for c in reference if c["repo"].split("/")[-1] == args.repo]
    if args.commits:
        wanted = set(args.commits.read_text().split())
        reference = [c for c in reference if c["commit"] in wanted]
    compare(mined, reference, args.verbose)
    return 0


if __name__ == "__main__":
    sys.exit(main())
