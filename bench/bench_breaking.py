"""Score `prscope review` on the stale-reference benchmark (breaking-call, dangling-reference).

Each case group (same commit and def_file) becomes a stale PR in a git worktree: every file at the
parent commit except def_file, which is taken from the commit. `prscope review --base <parent> --offline
--format json` runs on it as a subprocess, and its findings are scored as the benchmark README says:
a ground-truth site is found when a breaking-call or dangling-reference finding is on the same path
within 2 lines; a finding matching no ground-truth and no neutral site is a false positive.

    .venv/bin/python bench/bench_breaking.py [--limit N] [--repo flask|mypy] [--jobs 1] [--verbose]
    .venv/bin/python bench/bench_breaking.py --cases bench/breaking-new.json --source-dir /tmp/repos13

Needs full-history clones of the benchmark repositories; by default private clones are made under
--work from the read-only ones in --source-dir (default /tmp: /tmp/flask, /tmp/mypy), found by the
repository's name or its owner's (httpie/cli -> /tmp/repos13/cli or /tmp/repos13/httpie).

Alarms near no site are false alarms unless the hand check (--handcheck, default every
bench/breaking-*-handcheck.json) records them as real breaks the mined ground truth missed: those are
counted apart ("real") and left out of precision. Alarms with no recorded verdict are listed as
unchecked.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import shlex
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
HANDCHECKS = sorted((ROOT / "bench").glob("breaking-*-handcheck.json"))
DEFAULT_CASES = Path("/work/shared/bench/breaking-dev.json")
RULES = ("breaking-call", "dangling-reference")
LINE_TOLERANCE = 2
TIMEOUT_S = 60
GIT_ENV = {
    "GIT_AUTHOR_NAME": "bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}
BASELINE = {
    "overall": (0.49, 0.96),
    "breaking-call": (0.68, 0.98),
    "dangling-reference": (0.32, 0.92),
}


@dataclass
class Group:
    """One stale PR: the cases sharing (commit, def_file)."""

    repo: str
    commit: str
    parent: str
    def_file: str
    cases: list[dict[str, Any]] = field(default_factory=list)

    @property
    def short(self) -> str:
        return self.repo.split("/")[-1]

    @property
    def key(self) -> str:
        digest = hashlib.sha1(self.def_file.encode()).hexdigest()[:8]
        return f"{self.short}-{self.commit[:10]}-{digest}"

    def sites(self, what: str) -> list[tuple[str, int, str]]:
        """(path, line, kind) for ground_truth or neutral, deduplicated."""
        seen: dict[tuple[str, int], str] = {}
        for case in self.cases:
            for path, line in case[what]:
                seen.setdefault((path, line), case["kind"])
        return [(path, line, kind) for (path, line), kind in seen.items()]


@dataclass
class Outcome:
    group: Group
    seconds: float
    findings: list[dict[str, Any]]
    crash: str | None = None
    matched: set[tuple[str, int]] = field(default_factory=set)
    false_positives: list[dict[str, Any]] = field(default_factory=list)
    real: list[tuple[dict[str, Any], str]] = field(default_factory=list)
    """Alarms near no site that the hand check found to be real breaks, with the reason."""
    verdicts: dict[int, str] = field(default_factory=dict)
    """id(false positive) -> the hand check's reason it is a false alarm (absent: not checked yet)."""
    cpu_seconds: float = 0.0
    """User + system time of the review process (exact with --jobs 1; shared between jobs otherwise)."""


Verdicts = dict[tuple[str, str, int, str], tuple[str, str]]


def load_handchecks(paths: list[Path]) -> Verdicts:
    """(commit prefix, path, line, rule) -> (verdict, one-line reason). Verdicts on alarms: 'real' or
    'false alarm'; on ground-truth sites (rule = the case's kind): 'not a break'."""
    verdicts: Verdicts = {}
    for path in paths:
        for entry in json.loads(path.read_text()):
            key = (entry["commit"][:10], entry["path"], int(entry["line"]), entry["rule"])
            verdicts[key] = (entry["verdict"], entry["why"])
    return verdicts


def drop_not_breaks(groups: list[Group], verdicts: Verdicts) -> list[tuple[str, int, str]]:
    """Ground-truth sites the hand check found not to be broken (the mined truth is name matching: a
    removed override whose base class still has the method, a local shadowing an import) move to
    neutral, so a finding there counts neither way. Returns (path, line, why) of each."""
    dropped = []
    for group in groups:
        for case in group.cases:
            kept = []
            for path, line in case["ground_truth"]:
                verdict, why = verdicts.get((group.commit[:10], path, int(line), case["kind"]), ("", ""))
                if verdict == "not a break":
                    case["neutral"] = [*case["neutral"], [path, line]]
                    dropped.append((path, int(line), why))
                else:
                    kept.append([path, line])
            case["ground_truth"] = kept
    return dropped


def load_groups(cases_path: Path, repo_filter: str | None, limit: int | None) -> list[Group]:
    cases = json.loads(cases_path.read_text())
    groups: dict[tuple[str, str], Group] = {}
    for case in cases:
        if repo_filter and case["repo"].split("/")[-1] != repo_filter:
            continue
        key = (case["commit"], case["def_file"])
        if key not in groups:
            groups[key] = Group(case["repo"], case["commit"], case["parent"], case["def_file"])
        groups[key].cases.append(case)
    result = list(groups.values())
    return result[:limit] if limit else result


def git(cwd: Path, *args: str, check: bool = True) -> str:
    env = {**os.environ, **GIT_ENV}
    done = subprocess.run(["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False)
    if check and done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {cwd}: {done.stderr.strip()}")
    return done.stdout.strip()


def ensure_clone(work: Path, source_dir: Path, short: str, owner: str = "") -> Path:
    clone = work / "clones" / short
    if not (clone / ".git").exists():
        source = source_dir / short
        if not (source / ".git").exists() and owner and (source_dir / owner / ".git").exists():
            source = source_dir / owner
        if not (source / ".git").exists():
            raise SystemExit(f"no clone of {short} at {source}; pass --source-dir")
        clone.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "clone", "-q", str(source), str(clone)], check=True)
    return clone


def materialise(clone: Path, work: Path, group: Group) -> Path:
    """A worktree whose HEAD is the stale PR (reused when it already exists)."""
    tree = work / group.key
    if (tree / ".git").exists():
        subject = git(tree, "log", "-1", "--format=%s")
        parent = git(tree, "rev-parse", "HEAD~1", check=False)
        if subject == "stale PR" and parent == group.parent and not git(tree, "status", "--porcelain"):
            return tree
        git(clone, "worktree", "remove", "--force", str(tree), check=False)
    git(clone, "worktree", "prune")
    git(clone, "worktree", "add", "--detach", "-f", str(tree), group.parent)
    git(tree, "checkout", group.commit, "--", group.def_file)
    git(tree, "commit", "-q", "--allow-empty", "--no-verify", "-m", "stale PR")
    return tree


def review_command(mode: str) -> list[str]:
    if mode == "cli":
        return [str(ROOT / ".venv" / "bin" / "prscope"), "review"]
    return [sys.executable, str(Path(__file__).resolve()), "--run-checks-only"]


def use_prscope(command_line: str) -> None:
    """Review with another prscope command: an executable (a later commit's .venv/bin/prscope) or a
    command line standing in for it (`python bench/jedi_review.py --mode jedi`); paths made absolute
    (not resolved: a venv's python is a link), since reviews run inside the stale PR's worktree."""
    command = shlex.split(command_line)
    command = [str(Path(part).absolute()) if Path(part).exists() else part for part in command]

    def command_for(_mode: str) -> list[str]:
        return [*command, "review"]

    global review_command
    review_command = command_for


def run_review(tree: Path, group: Group, mode: str) -> Outcome:
    command = [*review_command(mode), "--base", group.parent, "--offline", "--format", "json"]
    started = time.perf_counter()
    cpu_before = _children_cpu()
    try:
        done = subprocess.run(
            command, cwd=tree, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        return Outcome(group, time.perf_counter() - started, [], crash=f"timeout after {TIMEOUT_S}s")
    seconds = time.perf_counter() - started
    cpu = _children_cpu() - cpu_before
    if done.returncode not in (0, 1):
        tail = (done.stderr.strip().splitlines() or ["no stderr"])[-1]
        return Outcome(group, seconds, [], crash=f"exit {done.returncode}: {tail}", cpu_seconds=cpu)
    try:
        report = json.loads(done.stdout)
        findings = report["findings"]
        if not isinstance(findings, list):
            raise TypeError("findings is not a list")
    except (ValueError, KeyError, TypeError) as error:
        return Outcome(group, seconds, [], crash=f"bad JSON report: {error}", cpu_seconds=cpu)
    return Outcome(group, seconds, findings, cpu_seconds=cpu)


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def near(site: tuple[str, int], finding: dict[str, Any]) -> bool:
    """Same path, and the site within LINE_TOLERANCE lines of the finding's range (a multi-line import
    of several removed names is one finding spanning their lines)."""
    first = int(finding.get("line", -99))
    last = max(first, int(finding.get("end_line") or first))
    return finding.get("path") == site[0] and first - LINE_TOLERANCE <= site[1] <= last + LINE_TOLERANCE


def score(outcome: Outcome, verdicts: Verdicts | None = None) -> None:
    if outcome.crash:
        return
    truth = outcome.group.sites("ground_truth")
    neutral = outcome.group.sites("neutral")
    relevant = [f for f in outcome.findings if f.get("rule") in RULES]
    for path, line, _kind in truth:
        if any(near((path, line), f) for f in relevant):
            outcome.matched.add((path, line))
    for finding in relevant:
        hits_truth = any(near((p, n), finding) for p, n, _k in truth)
        hits_neutral = any(near((p, n), finding) for p, n, _k in neutral)
        if hits_truth or hits_neutral:
            continue
        key = (
            outcome.group.commit[:10],
            str(finding.get("path")),
            int(finding.get("line", 0)),
            str(finding.get("rule")),
        )
        verdict, why = (verdicts or {}).get(key, ("", ""))
        if verdict == "real":
            outcome.real.append((finding, why))
        else:
            outcome.false_positives.append(finding)
            if verdict:
                outcome.verdicts[id(finding)] = why


@dataclass
class Tally:
    sites: int = 0
    matched: int = 0
    false_positives: int = 0
    real: int = 0
    unchecked: int = 0

    @property
    def recall(self) -> float:
        return self.matched / self.sites if self.sites else 0.0

    @property
    def precision(self) -> float:
        denominator = self.matched + self.false_positives
        return self.matched / denominator if denominator else 1.0


def tally(outcomes: Iterable[Outcome]) -> dict[str, Tally]:
    tallies: dict[str, Tally] = defaultdict(Tally)
    for outcome in outcomes:
        repo = outcome.group.short
        for path, line, kind in outcome.group.sites("ground_truth"):
            hit = (path, line) in outcome.matched
            for key in ("overall", f"repo:{repo}", kind):
                tallies[key].sites += 1
                tallies[key].matched += hit
        for finding in outcome.false_positives:
            for key in ("overall", f"repo:{repo}", str(finding.get("rule"))):
                tallies[key].false_positives += 1
                tallies[key].unchecked += id(finding) not in outcome.verdicts
        for finding, _why in outcome.real:
            for key in ("overall", f"repo:{repo}", str(finding.get("rule"))):
                tallies[key].real += 1
    return tallies


def percentile(values: list[float], fraction: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    index = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[index]


def print_report(outcomes: list[Outcome], mode: str, verbose: bool) -> None:
    tallies = tally(outcomes)
    crashes = [o for o in outcomes if o.crash]
    seconds = [o.seconds for o in outcomes]
    runner = "prscope review (CLI)" if mode == "cli" else "run_checks fallback"
    print(f"\nstale PRs: {len(outcomes)}  runner: {runner}")
    print(
        f"{'scope':<24}{'sites':>7}{'found':>7}{'FP':>6}{'real':>6}{'unchk':>6}{'recall':>9}{'precision':>11}"
        "   baseline R / P"
    )
    order = ["overall", *sorted(k for k in tallies if k.startswith("repo:")), *RULES]
    for key in order:
        if key not in tallies:
            continue
        item = tallies[key]
        base = BASELINE.get(key)
        base_text = f"{base[0]:.2f} / {base[1]:.2f}" if base else "-"
        print(
            f"{key:<24}{item.sites:>7}{item.matched:>7}{item.false_positives:>6}{item.real:>6}{item.unchecked:>6}"
            f"{item.recall:>9.3f}{item.precision:>11.3f}   {base_text}"
        )
    print(
        f"seconds per case: median {statistics.median(seconds) if seconds else 0:.2f}, "
        f"p95 {percentile(seconds, 0.95):.2f}, max {max(seconds, default=0):.2f}; crashes: {len(crashes)}"
    )
    cpu = [o.cpu_seconds for o in outcomes]
    print(
        f"CPU seconds per case: median {statistics.median(cpu) if cpu else 0:.2f}, "
        f"p95 {percentile(cpu, 0.95):.2f}, max {max(cpu, default=0):.2f}"
    )
    for outcome in crashes:
        print(f"  CRASH {outcome.group.key} ({outcome.group.def_file}): {outcome.crash}")
    if verbose:
        for outcome in outcomes:
            _print_details(outcome)


def _print_details(outcome: Outcome) -> None:
    misses = [s for s in outcome.group.sites("ground_truth") if (s[0], s[1]) not in outcome.matched]
    if not misses and not outcome.false_positives and not outcome.real:
        return
    symbols = ", ".join(sorted({f"{c['symbol']} ({c['reason']})" for c in outcome.group.cases}))
    print(f"\n== {outcome.group.key} {outcome.group.def_file}: {symbols}")
    for path, line, kind in misses:
        print(f"  MISS {kind:<19} {path}:{line}")
    for finding in outcome.false_positives:
        where = f"{finding.get('path')}:{finding.get('line')}"
        why = outcome.verdicts.get(id(finding), "NOT HAND-CHECKED")
        print(f"  FP   {finding.get('rule'):<19} {where}  {finding.get('title')}  [{why}]")
    for finding, why in outcome.real:
        where = f"{finding.get('path')}:{finding.get('line')}"
        print(f"  REAL {finding.get('rule'):<19} {where}  {finding.get('title')}  [{why}]")


def run_checks_only(argv: list[str]) -> int:
    """Fallback runner used when the review CLI is unavailable: changeset -> run_checks -> JSON."""
    sys.path.insert(0, str(ROOT))
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--offline", action="store_true")
    parser.add_argument("--format", default="json")
    args = parser.parse_args(argv)
    from prscope.analysis.changeset import DiffSpec, load_changeset
    from prscope.analysis.checks import run_checks

    repo = Path.cwd()
    cs = load_changeset(repo, DiffSpec(mode="branch", base=args.base))
    index = _index_for(repo, cs)
    run = run_checks(cs, index)
    payload = {
        "findings": [f.model_dump(mode="json") for f in run.findings],
        "errors": run.errors,
        "timings": run.timings,
    }
    print(json.dumps(payload))
    return 1 if run.findings else 0


def _index_for(repo: Path, cs: Any) -> Any:
    try:
        from prscope.analysis.intel import CodeIndex

        return CodeIndex(repo)
    except ImportError:
        from prscope.analysis.intel.files import RepoFiles

        files = RepoFiles(repo)

        class FilesIndex:
            def python_files(self) -> list[str]:
                return files.python_files()

            def source(self, path: str) -> str | None:
                found = files.read(path)
                return found.text if found is not None else None

            def module_name(self, path: str) -> str | None:
                return files.module_name(path)

        return FilesIndex()


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--run-checks-only":
        return run_checks_only(argv[1:])
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--cases", type=Path, default=DEFAULT_CASES)
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--repo", default=None, help="only cases of this repository (short name)")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--verbose", action="store_true", help="print misses and false positives")
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-wt"))
    parser.add_argument("--source-dir", type=Path, default=Path("/tmp"))
    parser.add_argument("--runner", choices=("auto", "cli", "checks"), default="auto")
    parser.add_argument("--only", default=None, help="run only groups whose key contains this text")
    parser.add_argument("--handcheck", type=Path, action="append", help="hand-check verdicts (repeatable)")
    parser.add_argument("--save", type=Path, help="write every stale PR's outcome here as JSON")
    parser.add_argument("--prscope", help="the prscope command: an executable or a command line (CLI runner)")
    args = parser.parse_args(argv)
    if args.prscope:
        use_prscope(args.prscope)
    verdicts = load_handchecks(args.handcheck or HANDCHECKS)

    groups = load_groups(args.cases, args.repo, args.limit)
    if args.only:
        groups = [g for g in groups if args.only in g.key or args.only in g.def_file]
    dropped = drop_not_breaks(groups, verdicts)
    mode = args.runner
    if mode == "auto":
        mode = "cli" if (ROOT / "analysis" / "review_cli.py").exists() else "checks"
    args.work.mkdir(parents=True, exist_ok=True)
    owners = {g.short: g.repo.split("/")[0] for g in groups}
    clones = {
        short: ensure_clone(args.work, args.source_dir, short, owner) for short, owner in owners.items()
    }
    trees = {g.key: materialise(clones[g.short], args.work, g) for g in groups}

    def one(group: Group) -> Outcome:
        outcome = run_review(trees[group.key], group, mode)
        score(outcome, verdicts)
        return outcome

    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        outcomes = list(pool.map(one, groups))
    print_report(outcomes, mode, args.verbose)
    if dropped:
        print(f"ground-truth sites the hand check found not to be breaks (scored as neutral): {len(dropped)}")
        for path, line, why in dropped if args.verbose else []:
            print(f"  NOT A BREAK {path}:{line}  [{why}]")
    if args.save:
        save_outcomes(args.save, outcomes)
    return 0


def save_outcomes(path: Path, outcomes: list[Outcome]) -> None:
    """Per stale PR: seconds, crash, missed sites, false alarms (with verdicts) and real alarms."""
    rows = []
    for outcome in outcomes:
        group = outcome.group
        rows.append(
            {
                "key": group.key,
                "repo": group.repo,
                "commit": group.commit,
                "def_file": group.def_file,
                "cases": [c["id"] for c in group.cases],
                "seconds": round(outcome.seconds, 2),
                "cpu_seconds": round(outcome.cpu_seconds, 2),
                "crash": outcome.crash,
                "missed": [
                    [p, n, k] for p, n, k in group.sites("ground_truth") if (p, n) not in outcome.matched
                ],
                "false_alarms": [
                    {**_brief(f), "verdict": outcome.verdicts.get(id(f), "")} for f in outcome.false_positives
                ],
                "real": [{**_brief(f), "verdict": why} for f, why in outcome.real],
            }
        )
    path.write_text(json.dumps(rows, indent=1) + "\n")


def _brief(finding: dict[str, Any]) -> dict[str, Any]:
    return {k: finding.get(k) for k in ("rule", "path", "line", "title")}


if __name__ == "__main__":
    sys.exit(main())
