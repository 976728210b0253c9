"""Noise of `async-mismatch`, `property-mismatch` and `override-mismatch` on real, already-merged history.

Each picked commit is reviewed against its parent exactly as a user would review that PR (a worktree at
the commit, `prscope review --base <parent> --offline --format json`). Every finding of the three rules
is listed for the hand check; the verdicts live in `bench/rules-noise-verdicts.json` (commit, path, line,
rule -> "false alarm" or "real", with the reason), and the script prints the counts per verdict.

Per repository it picks the most recent non-merge commits that change Python files, plus the most
recent commits whose patch shows what the rules look at (a `def` turned `async def` or back, a
`@property` added or removed, a method signature changed in two files): plain history alone would
rarely give the rules anything to judge.

    .venv/bin/python bench/noise_rules.py --repo /tmp/i14/repos/trio --recent 15 --relevant 15
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_breaking as bb  # the shared benchmark machinery, imported, not copied
import mine_rules

HERE = Path(__file__).resolve().parent
RULES = ("async-mismatch", "property-mismatch", "override-mismatch")
VERDICTS = HERE / "rules-noise-verdicts.json"


def pick(repo: Path, recent: int, relevant: int) -> list[str]:
    """Recent Python commits plus recent ones the rules have something to judge in (no duplicates)."""
    rows = bb.git(repo, "log", "--no-merges", "--format=%H", "-n", str(recent * 4), "--", "*.py").split()
    chosen = [sha for sha in rows if _reviewable(repo, sha)][:recent]
    found = 0
    for candidate in mine_rules.candidates(repo, {"async", "property", "override"}):
        if found >= relevant:
            break
        if candidate.commit not in chosen and candidate.parent and _reviewable(repo, candidate.commit):
            chosen.append(candidate.commit)
            found += 1
    return chosen


def _reviewable(repo: Path, sha: str) -> bool:
    parents = bb.git(repo, "rev-list", "--parents", "-n", "1", sha).split()
    return len(parents) == 2


def review(repo: Path, work: Path, sha: str) -> bb.Outcome:
    parent = bb.git(repo, "rev-parse", f"{sha}^")
    tree = work / f"{repo.name}-{sha[:12]}"
    if not (tree / ".git").exists():
        bb.git(repo, "worktree", "prune")
        bb.git(repo, "worktree", "add", "--detach", "-f", str(tree), sha)
    group = bb.Group(repo.name, sha, parent, "")
    return bb.run_review(tree, group, "cli")


def load_verdicts() -> dict[tuple[str, str, int, str], dict[str, str]]:
    if not VERDICTS.exists():
        return {}
    return {
        (v["commit"][:12], v["path"], int(v["line"]), v["rule"]): v for v in json.loads(VERDICTS.read_text())
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repo", type=Path, action="append", required=True, help="full clone (repeatable)")
    parser.add_argument("--recent", type=int, default=15)
    parser.add_argument("--relevant", type=int, default=15)
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-rules-noise"))
    parser.add_argument("--out", type=Path, help="write every reviewed commit and finding here (JSON)")
    args = parser.parse_args(argv)
    args.work.mkdir(parents=True, exist_ok=True)
    verdicts = load_verdicts()
    reviewed: list[dict[str, Any]] = []
    counts: Counter[str] = Counter()
    for repo in args.repo:
        for sha in pick(repo, args.recent, args.relevant):
            outcome = review(repo, args.work, sha)
            findings = [f for f in outcome.findings if f.get("rule") in RULES]
            reviewed.append({"repo": repo.name, "commit": sha, "seconds": round(outcome.seconds, 2),
                             "crash": outcome.crash, "findings": findings})  # fmt: skip
            counts["commits"] += 1
            counts["crashes"] += outcome.crash is not None
            for finding in findings:
                key = (sha[:12], str(finding["path"]), int(finding["line"]), str(finding["rule"]))
                verdict = verdicts.get(key, {}).get("verdict", "unchecked")
                counts[f"{finding['rule']}: {verdict}"] += 1
                where = f"{finding['path']}:{finding['line']}"
                print(f"{repo.name} {sha[:12]} {finding['rule']} {where} [{verdict}] {finding['title']}")
    if args.out:
        args.out.write_text(json.dumps(reviewed, indent=1))
    print(f"\ncommits reviewed: {counts.pop('commits', 0)}, crashes: {counts.pop('crashes', 0)}")
    for key in sorted(counts):
        print(f"  {key}: {counts[key]}")
    if not counts:
        print("  no finding of the three rules")
    return 0


if __name__ == "__main__":
    sys.exit(main())
