"""Noise of `async-mismatch`, `property-mismatch` and `override-mismatch` on real, already-merged history.

Each picked commit is reviewed against its parent exactly as a user would review that PR (a worktree at
the commit, `prscope review --base <parent> --offline --format json`). Every finding of the three rules
is listed for the hand check; the verdicts live in `bench/rules-noise-verdicts.json` (commit, path, line,
rule -> "false alarm" or "real", with the reason), and the script prints the counts per verdict.

Per repository it picks the most recent non-merge commits that change Python files, plus recent
commits whose definitions change the way the rules are about (a `def` turned `async def` or back, a
method turned property or back, a method signature changed): a third of those per rule where the
history has them. Plain history alone would rarely give the rules anything to judge.

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
    """Recent Python commits, plus recent commits whose definitions really change the way each rule is
    about (a third of `relevant` per rule where history has them; the rest from any rule)."""
    rows = bb.git(repo, "log", "--no-merges", "--format=%H", "-n", str(recent * 4), "--", "*.py").split()
    chosen = [sha for sha in rows if _reviewable(repo, sha)][:recent]
    quota = {"property": relevant // 3, "async": relevant // 3}
    spare: list[str] = []
    total = len(chosen) + relevant
    for candidate in mine_rules.candidates(repo, {"async", "property", "override"}):
        if len(chosen) >= total or (not any(quota.values()) and len(chosen) + len(spare) >= total):
            break
        if candidate.commit in chosen or not _reviewable(repo, candidate.commit):
            continue
        kinds = _changes(repo, candidate)
        wanted = [kind for kind in kinds if quota.get(kind, 0) > 0]
        if wanted:
            quota[wanted[0]] -= 1
            chosen.append(candidate.commit)
        elif kinds:
            spare.append(candidate.commit)
    return chosen + spare[: total - len(chosen)]


def _changes(repo: Path, candidate: mine_rules.Candidate) -> list[str]:
    """Which rules' changes the commit really makes (definitions compared, not just the patch text)."""
    commit = mine_rules.load_commit(repo, candidate)
    if commit is None:
        return []
    kinds: list[str] = []
    for path in commit.modified():
        if mine_rules._flips(commit, path, mine_rules._property_flip):
            kinds.append("property")
        if mine_rules._flips(commit, path, mine_rules._async_flip):
            kinds.append("async")
        if mine_rules._flips(
            commit, path, lambda old, new: bool(new.cls) and mine_rules._params_changed(old, new)
        ):
            kinds.append("override")
    return kinds


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
    parser.add_argument("--prscope", help="the prscope command: an executable or a command line")
    args = parser.parse_args(argv)
    if args.prscope:
        bb.use_prscope(args.prscope)
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
