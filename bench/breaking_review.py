"""Help the hand check of a stale-reference run: print every missed site and every false alarm with its code.

Reads the outcomes that `bench/bench_breaking.py --save FILE` writes and the case file, and shows for
each site the code at the stale PR (the parent's line; def_file lines at the commit), what the original
commit turned that line into, and the case it belongs to. An alarm on a line the commit also changed is
marked FIXED-BY-COMMIT: such a line is usually a real break the mined ground truth missed.

    python bench/breaking_review.py alarms OUT.json --cases bench/breaking-new.json --source-dir /tmp/repos13
    python bench/breaking_review.py misses OUT.json --cases bench/breaking-new.json --source-dir /tmp/repos13
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

CONTEXT = 2


def source(repo: Path, rev: str, path: str) -> list[str]:
    done = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=repo, capture_output=True, text=True, errors="replace"
    )
    return done.stdout.splitlines() if done.returncode == 0 else []


def fate(repo: Path, parent: str, commit: str, path: str, line: int) -> str:
    """What the commit did to old line `line` of `path`: '' (untouched) or the hunk's new side."""
    done = subprocess.run(
        ["git", "diff", "-U0", "--no-renames", parent, commit, "--", path],
        cwd=repo,
        capture_output=True,
        text=True,
        errors="replace",
    )
    hunk_start, hunk_len = 0, 0
    added: list[str] = []
    result = ""
    for row in [*done.stdout.splitlines(), "@@ -0,0 +0,0 @@"]:
        if row.startswith("@@ "):
            if hunk_start <= line < hunk_start + hunk_len:
                result = " | ".join(a.strip() for a in added) or "(deleted)"
            old = row.split()[1][1:].split(",")
            hunk_start, hunk_len, added = int(old[0]), int(old[1]) if len(old) > 1 else 1, []
        elif row.startswith("+") and not row.startswith("+++"):
            added.append(row[1:])
    return result


def repo_dir(source_dir: Path, repo: str) -> Path:
    owner, short = repo.split("/")
    return source_dir / short if (source_dir / short).exists() else source_dir / owner


def show_site(repo: Path, outcome: dict[str, Any], case: dict[str, Any], path: str, line: int) -> None:
    at_commit = path == outcome["def_file"]
    rev = case["commit"] if at_commit else case["parent"]
    lines = source(repo, rev, path)
    for number in range(max(1, line - CONTEXT), min(len(lines), line + CONTEXT) + 1):
        mark = ">>" if number == line else "  "
        print(f"      {mark}{number:>6} {lines[number - 1]}")
    if not at_commit:
        after = fate(repo, case["parent"], case["commit"], path, line)
        if after:
            print(f"      FIXED-BY-COMMIT -> {after[:200]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("what", choices=("alarms", "misses"))
    parser.add_argument("outcomes", type=Path)
    parser.add_argument("--cases", type=Path, required=True)
    parser.add_argument("--source-dir", type=Path, default=Path("/tmp"))
    parser.add_argument("--unchecked", action="store_true", help="alarms without a hand-check verdict only")
    args = parser.parse_args(argv)
    cases = {c["id"]: c for c in json.loads(args.cases.read_text())}
    for outcome in json.loads(args.outcomes.read_text()):
        group = [cases[i] for i in outcome["cases"]]
        case = group[0]
        repo = repo_dir(args.source_dir, case["repo"])
        symbols = ", ".join(f"{c['symbol']} ({c['kind']}: {c['reason']})" for c in group)
        if args.what == "alarms":
            alarms = [a for a in outcome["false_alarms"] if not (args.unchecked and a["verdict"])]
            if alarms:
                print(f"\n== {outcome['key']} {case['commit']} {outcome['def_file']}: {symbols}")
            for alarm in alarms:
                print(f"  FP {alarm['rule']} {alarm['path']}:{alarm['line']}  {alarm['title']}")
                if alarm["verdict"]:
                    print(f"      verdict: {alarm['verdict']}")
                show_site(repo, outcome, case, alarm["path"], int(alarm["line"]))
        else:
            for path, line, kind in outcome["missed"]:
                owner = next(c for c in group if [path, line] in c["ground_truth"])
                where = f"{owner['symbol']} ({owner['reason']}) def {owner['def_file']}"
                print(f"\nMISS {owner['id']} {kind} {where}")
                print(f"  {path}:{line}")
                show_site(repo, outcome, case, path, line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
