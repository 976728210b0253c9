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
    .venv/bin/python bench/bench_rules.py --cases bench/rules-new.json --source-dir /tmp/mine20/repos \
        --save /tmp/new.json --verbose                         # the issue-20 set (bench/README_rules_new.md)

`--handcheck` (repeatable; default every bench/rules-*handcheck.json) gives the hand check's verdicts on
alarms: an entry without a `verdict`, or with `"verdict": "real"`, is a real break the mined ground truth
missed; `"verdict": "false alarm"` is a false alarm whose reason is printed; the site verdicts the miner's
`assemble` step reads (`break`, `not a break`, `neutral`) are ignored here. `--prscope EXE` reviews with
another build (a later commit's .venv/bin/prscope: `bench/rescore_rules_new.py` does that), or with a
command line standing in for it (`--prscope "python bench/jedi_review.py --mode jedi"`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import bench_breaking as bb  # the shared benchmark machinery, imported, not copied

HERE = Path(__file__).resolve().parent
RULES = ("async-mismatch", "property-mismatch", "override-mismatch")
HANDCHECK = HERE / "rules-handcheck.json"
HANDCHECKS = sorted(HERE.glob("rules-*handcheck.json"))
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
    missing = _missing_blobs(clone, group.parent)
    if not missing:
        bb.git(clone, "worktree", "add", "--detach", "-f", str(tree), group.parent)
    else:
        # A snapshot without its largest files (snapshots leave out files of 4 MiB and more): check out
        # everything else, the missing ones stay in the index (skip-worktree), out of the diff.
        bb.git(clone, "worktree", "add", "--detach", "-f", "--no-checkout", str(tree), group.parent)
        bb.git(tree, "sparse-checkout", "set", "--no-cone", "/*", *(f"!/{path}" for path in missing))
        bb.git(tree, "checkout", "-q", "--detach", group.parent)
    bb.git(tree, "checkout", group.commit, "--", *group.def_files)
    if not missing:
        bb.git(tree, "commit", "-q", "--allow-empty", "--no-verify", "-m", "stale PR")
    else:  # `git commit` refuses a tree naming a blob it does not have
        stale_tree = bb.git(tree, "write-tree", "--missing-ok")
        stale = bb.git(tree, "commit-tree", stale_tree, "-p", group.parent, "-m", "stale PR")
        bb.git(tree, "update-ref", "HEAD", stale)
    return tree


def _missing_blobs(clone: Path, rev: str) -> list[str]:
    """Paths of the tree at `rev` whose blobs the clone does not have."""
    listing = bb.git(clone, "ls-tree", "-r", rev)
    blobs = {}
    for row in listing.splitlines():
        meta, _, path = row.partition("\t")
        parts = meta.split()
        if len(parts) == 3 and parts[1] == "blob":
            blobs[parts[2]] = path
    done = subprocess.run(
        ["git", "cat-file", "--batch-check"],
        cwd=clone,
        input="\n".join(blobs) + "\n",
        capture_output=True,
        text=True,
        check=False,
    )
    return sorted(blobs[line.split()[0]] for line in done.stdout.splitlines() if line.endswith(" missing"))


AlarmKey = tuple[str, str, int, str]


def load_handcheck(paths: list[Path] | None = None) -> dict[AlarmKey, str]:
    """(commit prefix, path, line, rule) -> why the alarm is a real break (alarms checked by hand)."""
    return load_alarm_verdicts(paths)[0]


def load_alarm_verdicts(paths: list[Path] | None = None) -> tuple[dict[AlarmKey, str], dict[AlarmKey, str]]:
    """(real, false): the hand check's reasons for alarms that are real breaks and for false alarms."""
    real: dict[AlarmKey, str] = {}
    false: dict[AlarmKey, str] = {}
    for path in paths if paths is not None else HANDCHECKS:
        if not path.exists():
            continue
        for entry in json.loads(path.read_text()):
            if "commit" not in entry:
                continue  # a verdict on a whole case (the miner's), not on an alarm
            key = (entry["commit"][:10], entry["path"], int(entry["line"]), entry["rule"])
            verdict = entry.get("verdict", "real")
            if verdict == "real":
                real[key] = entry["why"]
            elif verdict == "false alarm":
                false[key] = entry["why"]
    return real, false


@dataclass
class Scored:
    outcome: bb.Outcome
    real: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    """Alarms outside the mined sites that the hand check found to be real breaks."""
    on_neutral: list[dict[str, Any]] = field(default_factory=list)
    """Alarms on neutral sites: they count neither way, and are listed for the hand check."""
    false_why: dict[int, str] = field(default_factory=dict)
    """id(false alarm) -> the hand check's reason (absent: not checked yet)."""
    status: str = ""
    """The report's `status` and `status_reason` (a `partial` review may have lost findings)."""
    unstable: list[str] = field(default_factory=list)
    """Findings (`rule path:line`) some of the `--hash-seeds` runs gave and others did not."""


def score(
    outcome: bb.Outcome, handcheck: dict[AlarmKey, str], false_alarms: dict[AlarmKey, str] | None = None
) -> Scored:
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
        key = (group.commit[:10], str(finding.get("path")), int(finding.get("line", 0)), group.kind)
        why = handcheck.get(key)
        if why is not None:
            scored.real.append((finding, why))
        else:
            outcome.false_positives.append(finding)
            if false_alarms and key in false_alarms:
                scored.false_why[id(finding)] = false_alarms[key]
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
    handcheck, false_alarms = load_alarm_verdicts(args.handcheck)
    if args.prscope:
        bb.use_prscope(args.prscope)
    args.work.mkdir(parents=True, exist_ok=True)
    clones = {
        short: bb.ensure_clone(args.work, args.source_dir, short) for short in {g.short for g in groups}
    }
    trees = {group.key: materialise(clones[group.short], args.work, group) for group in groups}

    seeds: list[str | None] = list(args.hash_seeds.split(",")) if args.hash_seeds else [None]

    def one(group: RuleGroup) -> Scored:
        runs = [review_with_status(trees[group.key], group, seed) for seed in seeds]
        outcome, status = runs[0]
        scored = score(outcome, handcheck, false_alarms)
        scored.status = status
        scored.unstable = _unstable([run[0] for run in runs])
        return scored

    with ThreadPoolExecutor(max_workers=max(1, min(args.jobs, 2))) as pool:
        results = list(pool.map(one, groups))
    print_sets(results, [p.name for p in paths], args.verbose)
    if args.save:
        save_scored(args.save, results)
    return 0


def _unstable(outcomes: list[bb.Outcome]) -> list[str]:
    """Findings not every run gave: the answer then follows Python's hash seed (set or dict order)."""
    seen = [{f"{f.get('rule')} {f.get('path')}:{f.get('line')}" for f in o.findings} for o in outcomes]
    return sorted(set().union(*seen) - set.intersection(*seen)) if seen else []


def review_with_status(tree: Path, group: RuleGroup, hash_seed: str | None = None) -> tuple[bb.Outcome, str]:
    """bench_breaking.run_review, keeping the report's status: `complete`, `offline`, or `partial: why`
    (a check out of its time budget on a loaded machine loses findings without crashing). `hash_seed`
    sets PYTHONHASHSEED for the review."""
    command = [*bb.review_command("cli"), "--base", group.parent, "--offline", "--format", "json"]
    env = {**os.environ, "PYTHONHASHSEED": hash_seed} if hash_seed is not None else None
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=tree, capture_output=True, text=True, timeout=bb.TIMEOUT_S, env=env
        )
    except subprocess.TimeoutExpired:
        crash = f"timeout after {bb.TIMEOUT_S}s"
        return bb.Outcome(group, time.perf_counter() - started, [], crash=crash), ""
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        tail = (done.stderr.strip().splitlines() or ["no stderr"])[-1]
        return bb.Outcome(group, seconds, [], crash=f"exit {done.returncode}: {tail}"), ""
    try:
        report = json.loads(done.stdout)
        findings = report["findings"]
        if not isinstance(findings, list):
            raise TypeError("findings is not a list")
    except (ValueError, KeyError, TypeError) as error:
        return bb.Outcome(group, seconds, [], crash=f"bad JSON report: {error}"), ""
    status = str(report.get("status", ""))
    if status == "partial":
        status += f": {report.get('status_reason', '')}"
    return bb.Outcome(group, seconds, findings), status


def save_scored(path: Path, results: list[Scored]) -> None:
    """Per stale PR: seconds, crash, found and missed sites (with the case's receiver and shape when the
    case records them), false alarms (with the hand check's reason), real alarms and alarms on neutral
    sites. `rescore_rules_new.py` compares two of these files."""
    rows = []
    for scored in results:
        outcome = scored.outcome
        group = outcome.group
        assert isinstance(group, RuleGroup)
        about = {(s["path"], s["line"]): s for case in group.cases for s in case.get("sites", [])}

        def site(p: str, n: int, about: dict[tuple[str, int], dict[str, Any]] = about) -> dict[str, Any]:
            info = about.get((p, n), {})
            return {"path": p, "line": n, "receiver": info.get("receiver"), "shape": info.get("shape")}

        truth = group.sites("ground_truth")
        rows.append(
            {
                "key": group.key,
                "repo": group.repo,
                "commit": group.commit,
                "kind": group.kind,
                "def_files": group.def_files,
                "cases": [c["id"] for c in group.cases],
                "seconds": round(outcome.seconds, 2),
                "crash": outcome.crash,
                "status": scored.status,
                "unstable": scored.unstable,
                "found": [site(p, n) for p, n, _k in truth if (p, n) in outcome.matched],
                "missed": [site(p, n) for p, n, _k in truth if (p, n) not in outcome.matched],
                "false_alarms": [
                    {**_brief(f), "verdict": scored.false_why.get(id(f), "")} for f in outcome.false_positives
                ],
                "real": [{**_brief(f), "verdict": why} for f, why in scored.real],
                "on_neutral": [_brief(f) for f in scored.on_neutral],
            }
        )
    path.write_text(json.dumps(rows, indent=1) + "\n")


def _brief(finding: dict[str, Any]) -> dict[str, Any]:
    return {k: finding.get(k) for k in ("rule", "path", "line", "title")}


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
    partial = [s for s in results if s.status.startswith("partial")]
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
    print(f"partial reviews (findings may be missing): {len(partial)}")
    for scored in partial:
        print(f"  PARTIAL {scored.outcome.group.key}: {scored.status}")
    unstable = [s for s in results if s.unstable]
    print(f"reviews whose findings changed with the hash seed: {len(unstable)}")
    for scored in unstable:
        print(f"  UNSTABLE {scored.outcome.group.key}: {', '.join(scored.unstable)}")
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
        why = scored.false_why.get(id(finding), "NOT HAND-CHECKED")
        print(f"  FP   {finding.get('path')}:{finding.get('line')}  {finding.get('title')}  [{why}]")
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
    parser.add_argument("--handcheck", type=Path, action="append", help="alarm verdicts (repeatable)")
    parser.add_argument("--save", type=Path, help="write every stale PR's outcome here as JSON")
    parser.add_argument(
        "--prscope", help="the prscope command: an executable or a command line (default: .venv/bin/prscope)"
    )
    parser.add_argument("--jobs", type=int, default=1, help="reviews at once (at most 2)")
    parser.add_argument(
        "--hash-seeds",
        help="review each stale PR once per PYTHONHASHSEED in this comma list (`1,2`): findings that differ "
        "are listed as unstable (scored: the first seed's run)",
    )
    args = parser.parse_args(argv)
    return run_speed(args) if args.speed_dev else run_sets(args)


if __name__ == "__main__":
    sys.exit(main())
