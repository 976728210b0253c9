"""Score `prscope review` on the mined `async-mismatch`, `property-mismatch` and `override-mismatch` sets,
and measure what the three rules cost on the stale-reference dev set.

Scoring (bench/README_rules.md): each group of cases sharing a commit, a rule and the files taken from the
commit (`def_files`) is one stale PR, materialised as a git worktree and reviewed with `prscope review
--base <parent> --offline --format json`. A ground-truth site is found when a finding *of the case's
rule* is on the same path within 2 lines; a finding of that rule near no ground-truth and no neutral site
is a false alarm, unless the hand check (`bench/rules-handcheck.json`) records it as a real break the
mined ground truth missed. The machinery (clones, worktrees, the review subprocess, tallies) is
bench_breaking.py's.

    .venv/bin/python bench/bench_rules.py                      # both mined sets
    .venv/bin/python bench/bench_rules.py --rule async-mismatch --verbose
    .venv/bin/python bench/bench_rules.py --speed-dev          # dev set, with and without the rules
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_breaking as bb  # the shared benchmark machinery, imported, not copied

HERE = Path(__file__).resolve().parent
RULES = ("async-mismatch", "property-mismatch", "override-mismatch")
HANDCHECK = HERE / "rules-handcheck.json"
CASE_SETS = (HERE / "rules-history.json", HERE / "rules-handbuilt.json")
"""The mined sets; the other rules-*.json files are verdicts (hand check, noise run), not cases."""
TARGETS = (0.9, 0.97)
DISABLE_RULES = "[rules]\n" + "".join(f'"{rule}" = false\n' for rule in RULES)


@dataclass
class RuleGroup(bb.Group):
    """One stale PR: every def_file taken from the commit, the rest at its parent."""

    kind: str = ""
    def_files: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        digest = hashlib.sha1("\0".join(self.def_files).encode()).hexdigest()[:8]
        return f"{self.short}-{self.commit[:10]}-{self.kind.split('-')[0]}-{digest}"


def load_rule_groups(paths: list[Path], rule: str | None, repo: str | None) -> list[RuleGroup]:
    groups: dict[tuple[str, str, tuple[str, ...]], RuleGroup] = {}
    for path in paths:
        for case in json.loads(path.read_text()):
            if (rule and case["kind"] != rule) or (repo and case["repo"].split("/")[-1] != repo):
                continue
            def_files = tuple(case.get("def_files") or [case["def_file"]])
            key = (case["commit"], case["kind"], def_files)
            if key not in groups:
                groups[key] = RuleGroup(
                    case["repo"], case["commit"], case["parent"], case["def_file"],
                    kind=case["kind"], def_files=list(def_files),
                )  # fmt: skip
            groups[key].cases.append(case)
    return list(groups.values())


def materialise(clone: Path, work: Path, group: RuleGroup) -> Path:
    """A worktree whose HEAD is the stale PR (reused when it already exists)."""
    tree = work / group.key
    if (tree / ".git").exists():
        subject = bb.git(tree, "log", "-1", "--format=%s")
        parent = bb.git(tree, "rev-parse", "HEAD~1", check=False)
        if subject == "stale PR" and parent == group.parent and not bb.git(tree, "status", "--porcelain"):
            return tree
        bb.git(clone, "worktree", "remove", "--force", str(tree), check=False)
    bb.git(clone, "worktree", "prune")
    bb.git(clone, "worktree", "add", "--detach", "-f", str(tree), group.parent)
    bb.git(tree, "checkout", group.commit, "--", *group.def_files)
    bb.git(tree, "commit", "-q", "--allow-empty", "--no-verify", "-m", "stale PR")
    return tree


def load_handcheck() -> dict[tuple[str, str, int, str], str]:
    """(commit prefix, path, line, rule) -> why the alarm is a real break (alarms checked by hand)."""
    if not HANDCHECK.exists():
        return {}
    entries = json.loads(HANDCHECK.read_text())
    return {(e["commit"][:10], e["path"], int(e["line"]), e["rule"]): e["why"] for e in entries}


@dataclass
class Scored:
    outcome: bb.Outcome
    real: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    """Alarms outside the mined sites that the hand check found to be real breaks."""
    on_neutral: list[dict[str, Any]] = field(default_factory=list)
    """Alarms on neutral sites: they count neither way, and are listed for the hand check."""


def score(outcome: bb.Outcome, handcheck: dict[tuple[str, str, int, str], str]) -> Scored:
    group = outcome.group
    assert isinstance(group, RuleGroup)
    scored = Scored(outcome)
    if outcome.crash:
        return scored
    truth, neutral = group.sites("ground_truth"), group.sites("neutral")
    relevant = [f for f in outcome.findings if f.get("rule") == group.kind]
    for path, line, _kind in truth:
        if any(bb.near((path, line), f) for f in relevant):
            outcome.matched.add((path, line))
    for finding in relevant:
        if any(bb.near((p, n), finding) for p, n, _k in truth):
            continue
        if any(bb.near((p, n), finding) for p, n, _k in neutral):
            scored.on_neutral.append(finding)
            continue
        why = handcheck.get(
            (group.commit[:10], str(finding.get("path")), int(finding.get("line", 0)), group.kind)
        )
        if why is not None:
            scored.real.append((finding, why))
        else:
            outcome.false_positives.append(finding)
    return scored


def _fresh_clone(args: argparse.Namespace, short: str) -> Path:
    """The private clone, brought up to date with the source clone (a rebuilt hand-made history)."""
    clone = bb.ensure_clone(args.work, args.source_dir, short)
    bb.git(clone, "fetch", "-q", str(args.source_dir / short), "+refs/heads/*:refs/remotes/origin/*")
    return clone


def run_sets(args: argparse.Namespace) -> int:
    paths = args.cases or list(CASE_SETS)
    groups = load_rule_groups(paths, args.rule, args.repo)
    if args.limit:
        groups = groups[: args.limit]
    handcheck = load_handcheck()
    args.work.mkdir(parents=True, exist_ok=True)
    clones = {
        short: bb.ensure_clone(args.work, args.source_dir, short) for short in {g.short for g in groups}
    }
    results: list[Scored] = []
    for group in groups:
        tree = materialise(clones[group.short], args.work, group)
        results.append(score(bb.run_review(tree, group, "cli"), handcheck))
    print_sets(results, [p.name for p in paths], args.verbose)
    return 0


def print_sets(results: list[Scored], names: list[str], verbose: bool) -> None:
    tallies: dict[str, bb.Tally] = defaultdict(bb.Tally)
    real: dict[str, int] = defaultdict(int)
    neutral: dict[str, int] = defaultdict(int)
    for scored in results:
        outcome = scored.outcome
        group = outcome.group
        assert isinstance(group, RuleGroup)
        for key in (group.kind, f"{group.kind} / {group.short}"):
            for path, line, _kind in group.sites("ground_truth"):
                tallies[key].sites += 1
                tallies[key].matched += (path, line) in outcome.matched
            tallies[key].false_positives += len(outcome.false_positives)
            real[key] += len(scored.real)
            neutral[key] += len(scored.on_neutral)
    crashes = [s.outcome for s in results if s.outcome.crash]
    seconds = [s.outcome.seconds for s in results]
    print(f"\nsets: {', '.join(names)}; stale PRs: {len(results)}; targets: recall >= {TARGETS[0]}, "
          f"precision >= {TARGETS[1]} (after the hand check)")  # fmt: skip
    print(
        f"{'scope':<30}{'PRs':>5}{'sites':>7}{'found':>7}{'FP':>5}{'real':>6}{'neutral':>8}{'recall':>9}"
        f"{'precision':>11}"
    )
    prs: dict[str, int] = defaultdict(int)
    for scored in results:
        group = scored.outcome.group
        assert isinstance(group, RuleGroup)
        prs[group.kind] += 1
        prs[f"{group.kind} / {group.short}"] += 1
    for key in sorted(tallies, key=lambda k: (k.split(" / ")[0], " / " in k, k)):
        item = tallies[key]
        label = key if " / " not in key else "  " + key.split(" / ")[1]
        print(
            f"{label:<30}{prs[key]:>5}{item.sites:>7}{item.matched:>7}{item.false_positives:>5}{real[key]:>6}"
            f"{neutral[key]:>8}{item.recall:>9.3f}{item.precision:>11.3f}"
        )
    print(
        f"seconds per stale PR: median {statistics.median(seconds) if seconds else 0:.2f}, "
        f"p95 {bb.percentile(seconds, 0.95):.2f}, max {max(seconds, default=0):.2f}; crashes: {len(crashes)}"
    )
    for outcome in crashes:
        print(f"  CRASH {outcome.group.key}: {outcome.crash}")
    if verbose:
        for scored in results:
            _details(scored)


def _details(scored: Scored) -> None:
    outcome = scored.outcome
    group = outcome.group
    misses = [s for s in group.sites("ground_truth") if (s[0], s[1]) not in outcome.matched]
    if not misses and not outcome.false_positives and not scored.real and not scored.on_neutral:
        return
    symbols = ", ".join(sorted({c["symbol"] for c in group.cases}))
    print(f"\n== {group.key} ({group.commit}) {symbols}")
    for path, line, kind in misses:
        print(f"  MISS {kind:<18} {path}:{line}")
    for finding in outcome.false_positives:
        print(f"  FP   {finding.get('path')}:{finding.get('line')}  {finding.get('title')}")
    for finding, why in scored.real:
        print(f"  REAL {finding.get('path')}:{finding.get('line')}  {why}")
    for finding in scored.on_neutral:
        print(f"  NEUT {finding.get('path')}:{finding.get('line')}  {finding.get('title')}")


def run_speed(args: argparse.Namespace) -> int:
    """The dev set's stale PRs, each reviewed with the three rules on and off, alternating the order."""
    groups = bb.load_groups(bb.DEFAULT_CASES, None, args.limit)
    args.work.mkdir(parents=True, exist_ok=True)
    clones = {
        short: bb.ensure_clone(args.work, args.source_dir, short) for short in {g.short for g in groups}
    }
    with tempfile.TemporaryDirectory() as scratch:
        off_config = Path(scratch) / "rules-off.toml"
        off_config.write_text(DISABLE_RULES)
        command = bb.review_command("cli")
        seconds: dict[str, list[float]] = {"on": [], "off": []}
        findings: list[tuple[str, dict[str, Any]]] = []
        for index, group in enumerate(groups):
            tree = bb.materialise(clones[group.short], args.work, group)
            order = ("on", "off") if index % 2 == 0 else ("off", "on")
            for mode in order:
                extra = [] if mode == "on" else ["--config", str(off_config)]
                bb.review_command = lambda _mode, extra=extra: [*command, *extra]  # type: ignore[misc]
                outcome = bb.run_review(tree, group, "cli")
                seconds[mode].append(outcome.seconds)
                if mode == "on":
                    findings += [(group.key, f) for f in outcome.findings if f.get("rule") in RULES]
    on, off = statistics.median(seconds["on"]), statistics.median(seconds["off"])
    print(f"\ndev set ({len(groups)} stale PRs, prscope review CLI, one job)")
    print(f"{'':<22}{'median s':>10}{'p95 s':>8}{'max s':>8}")
    for mode, label in (("off", "without the 3 rules"), ("on", "with the 3 rules")):
        values = seconds[mode]
        median, p95 = statistics.median(values), bb.percentile(values, 0.95)
        print(f"{label:<22}{median:>10.2f}{p95:>8.2f}{max(values):>8.2f}")
    print(f"median overhead: {100 * (on - off) / off:+.1f}% (budget: +20%)")
    print(f"findings of the 3 rules on the dev set: {len(findings)}")
    for key, finding in findings:
        where = f"{finding.get('path')}:{finding.get('line')}"
        print(f"  {key} {finding.get('rule')} {where}  {finding.get('title')}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=Path, action="append", help="case file (repeatable; default: both)")
    parser.add_argument("--rule", choices=RULES)
    parser.add_argument("--repo", help="only cases of this repository (short name)")
    parser.add_argument("--limit", type=int)
    parser.add_argument("--verbose", action="store_true", help="list every miss, false alarm and real alarm")
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-rules-wt"))
    parser.add_argument("--source-dir", type=Path, default=Path("/tmp"))
    parser.add_argument("--speed-dev", action="store_true", help="dev-set timing with and without the rules")
    args = parser.parse_args(argv)
    return run_speed(args) if args.speed_dev else run_sets(args)


if __name__ == "__main__":
    sys.exit(main())
