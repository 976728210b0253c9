"""Re-score any prscope commit on the issue-20 set (`bench/rules-new.json`) exactly as the "before" figures
were made, and compare with them site by site.

    .venv/bin/python bench/rescore_rules_new.py --source-dir /tmp/mine20/repos             # this worktree
    .venv/bin/python bench/rescore_rules_new.py --rev main --source-dir /tmp/mine20/repos  # any commit

With `--rev`, the commit is checked out in a temporary git worktree of this repository and set up there
with `bash scripts/setup` (its own .venv), and its `prscope` is the one reviewed with; without it, this
worktree's `.venv/bin/prscope`. The scoring is `bench_rules.py --cases bench/rules-new.json` (every stale
PR through the real `prscope review` CLI, alarms judged by bench/rules-*handcheck.json), saved with
`--save`, then compared with `bench/rules-new-before.json` (main before the shared inference): recall and
precision per rule before and after, the sites found now that were missed before (with the shape the
miss was classified under in bench/README_rules_new.md), the sites missed now that were found before, and
every false alarm not in the before run. `--existing` also re-scores the project's own sets
(rules-history.json, rules-handbuilt.json; their clones in --old-source-dir).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from collections import defaultdict
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_rules  # the scorer, imported: one way of scoring

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CASES = HERE / "rules-new.json"
BEFORE = HERE / "rules-new-before.json"
MISSES = HERE / "rules-new-misses.json"
"""Each missed site of the before run with its shape class (1..7 or other) and the reason."""


def prepare(rev: str, into: Path) -> Path:
    """A worktree of this repository at `rev`, set up; returns its prscope executable."""
    subprocess.run(["git", "worktree", "add", "--detach", str(into), rev], cwd=ROOT, check=True)
    subprocess.run(["bash", "scripts/setup"], cwd=into, check=True, stdout=subprocess.DEVNULL)
    executable = into / ".venv" / "bin" / "prscope"
    if not executable.exists():
        raise SystemExit(f"no prscope executable after setup at {executable}")
    return executable


def site_key(row: dict[str, Any], site: dict[str, Any]) -> tuple[str, str, str, int]:
    return (row["key"], row["kind"], site["path"], int(site["line"]))


def alarm_key(row: dict[str, Any], alarm: dict[str, Any]) -> tuple[str, str, str, int]:
    return (row["key"], row["kind"], str(alarm["path"]), int(alarm["line"]))


def tallies(rows: list[dict[str, Any]]) -> dict[str, tuple[int, int, int]]:
    """rule -> (sites, found, false alarms)."""
    found: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])
    for row in rows:
        entry = found[row["kind"]]
        entry[0] += len(row["found"]) + len(row["missed"])
        entry[1] += len(row["found"])
        entry[2] += len(row["false_alarms"])
    return {rule: (a, b, c) for rule, (a, b, c) in found.items()}


def compare(before: list[dict[str, Any]], after: list[dict[str, Any]]) -> None:
    shapes: dict[tuple[str, int, str], str] = {}
    if MISSES.exists():
        for miss in json.loads(MISSES.read_text()):
            shapes[(miss["path"], int(miss["line"]), miss["rule"])] = f"({miss['class']}) {miss['why']}"
    old, new = tallies(before), tallies(after)
    print(f"\n{'rule':<20}{'sites':>7}{'recall before':>15}{'after':>8}{'precision before':>18}{'after':>8}")
    for rule in sorted(set(old) | set(new)):
        s0, f0, p0 = old.get(rule, (0, 0, 0))
        s1, f1, p1 = new.get(rule, (0, 0, 0))
        recall0, recall1 = f0 / s0 if s0 else 0.0, f1 / s1 if s1 else 0.0
        precision0 = f0 / (f0 + p0) if f0 + p0 else 1.0
        precision1 = f1 / (f1 + p1) if f1 + p1 else 1.0
        print(f"{rule:<20}{s1:>7}{recall0:>15.3f}{recall1:>8.3f}{precision0:>18.3f}{precision1:>8.3f}")
    found_before = {site_key(r, s) for r in before for s in r["found"]}
    missed_before = {site_key(r, s) for r in before for s in r["missed"]}
    alarms_before = {alarm_key(r, a) for r in before for a in r["false_alarms"]}
    now_found, now_missed, now_alarms = [], [], []
    for row in after:
        for site in row["found"]:
            if site_key(row, site) in missed_before:
                now_found.append((row, site))
        for site in row["missed"]:
            if site_key(row, site) in found_before:
                now_missed.append((row, site))
        for alarm in row["false_alarms"]:
            if alarm_key(row, alarm) not in alarms_before:
                now_alarms.append((row, alarm))
    print(f"\nfound now, missed before: {len(now_found)}")
    for row, site in now_found:
        shape = shapes.get((site["path"], int(site["line"]), row["kind"]), "")
        print(f"  {row['kind']:<18} {site['path']}:{site['line']}  {shape}")
    print(f"\nmissed now, found before: {len(now_missed)}")
    for row, site in now_missed:
        print(f"  {row['kind']:<18} {site['path']}:{site['line']}  ({row['key']})")
    print(f"\nfalse alarms not in the before run: {len(now_alarms)} (hand-check each, record the verdict)")
    for row, alarm in now_alarms:
        where = f"{alarm['path']}:{alarm['line']}"
        print(f"  {row['kind']:<18} {where}  {alarm['title']}  ({row['commit'][:10]})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rev", help="the prscope commit to score (default: this worktree as it is)")
    parser.add_argument("--source-dir", type=Path, required=True, help="clones of the set's repositories")
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-rules-new-wt"))
    parser.add_argument("--save", type=Path, default=Path("/tmp/rules-new-after.json"))
    parser.add_argument("--before", type=Path, default=BEFORE)
    parser.add_argument("--jobs", type=int, default=1, help="reviews at once (at most 2)")
    parser.add_argument("--existing", action="store_true", help="also re-score rules-history/handbuilt")
    parser.add_argument("--old-source-dir", type=Path, help="clones for --existing (default: --source-dir)")
    parser.add_argument("--repo", help="only this repository's stale PRs (short name; a quick check)")
    parser.add_argument("--hash-seeds", help="bench_rules.py's --hash-seeds (`1,2`: each PR under both)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="prscope-rescore-") as scratch:
        common = ["--jobs", str(args.jobs)]
        common += ["--hash-seeds", args.hash_seeds] if args.hash_seeds else []
        only = ["--repo", args.repo] if args.repo else []
        if args.rev:
            tree = Path(scratch) / "prscope"
            common += ["--prscope", str(prepare(args.rev, tree))]
        try:
            bench_rules.main(
                [
                    "--cases", str(CASES), "--source-dir", str(args.source_dir), "--work", str(args.work),
                    "--save", str(args.save), "--verbose", *common, *only,
                ]
            )  # fmt: skip
            if args.existing:
                old_source = args.old_source_dir or args.source_dir
                bench_rules.main(
                    ["--source-dir", str(old_source), "--work", str(args.work) + "-existing", *common]
                )
        finally:
            if args.rev:
                subprocess.run(["git", "worktree", "remove", "--force", str(tree)], cwd=ROOT, check=False)
    if args.before.exists():
        before = json.loads(args.before.read_text())
        if args.repo:
            before = [row for row in before if row["repo"].split("/")[-1] == args.repo]
        compare(before, json.loads(args.save.read_text()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
