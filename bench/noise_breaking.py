"""Real-history noise check of the offline checks (issue 13): how many alarms on merged commits are real.

Each commit listed in `noise-breaking-commits.json` (real non-merge commits that change a definition's
parameters or remove a name: see `noise_select.py`) is reviewed against its parent as a user would review
that PR, `prscope review --commits SHA^..SHA --offline --format json`, with the clone's work tree checked
out at the head recorded for the repository, never at the reviewed commit: the review must read every
file at the reviewed revision. One review at a time, 60 s each; a timeout or a crash is counted.

Every finding of the rules below was checked by hand against the code at SHA; `noise-breaking-verdicts.json`
holds the verdicts keyed by (repo, commit, rule, path, the flagged line's text at SHA), so a rerun after the
checks change lists only the findings nobody has judged yet ("unchecked"). A verdict is "true" (a real
break at SHA, with the later fix commit when one was found) or "false" (with the class of code and why).

    .venv/bin/python bench/noise_breaking.py --source-dir /tmp/noise13/repos [--repo flask] [--save R.json]
    .venv/bin/python bench/noise_breaking.py --load R.json          # re-tally saved reviews, no review run
    .venv/bin/python bench/noise_breaking.py --select --source-dir /tmp/noise13/repos   # re-pick commits

Goals (issue 20, on each set): at least 95% of findings real; at most 1 commit in 300 with a false alarm
(issue 13's were 90% and 1 in 200). Baseline (issue 13, before its fixes): 784 commits of 14 projects,
64 findings, 19 real (30%). A second set (`--plan noise20-commits.json --verdicts noise20-verdicts.json`)
holds 300 commits of 12 repositories no other set uses, mined before any tuning (issue 20).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import noise_select

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
COMMITS = HERE / "noise-breaking-commits.json"
VERDICTS = HERE / "noise-breaking-verdicts.json"
RULES = (
    "breaking-call",
    "dangling-reference",
    "syntax-error",
    "async-mismatch",
    "property-mismatch",
    "override-mismatch",
)
TIMEOUT_S = 60
GOAL_REAL_SHARE = 0.95
GOAL_FALSE_PER_300 = 1.0
BASELINE = "issue 13 baseline: 784 commits, 64 findings, 19 real (29.7%)"
Key = tuple[str, str, str, str, str]


@dataclass
class Review:
    repo: str
    commit: str
    seconds: float
    findings: list[dict[str, Any]] = field(default_factory=list)
    crash: str | None = None
    timeout: bool = False
    unjudged: dict[str, int] = field(default_factory=dict)  # findings of other rules, counted only
    incomplete: list[str] = field(default_factory=list)  # checks stopped early (time budget), as reported


def verdict_key(repo: str, commit: str, rule: str, path: str, text: str) -> Key:
    return (repo, commit, rule, path, " ".join(text.split()))


def load_verdicts(path: Path = VERDICTS) -> dict[Key, dict[str, Any]]:
    if not path.exists():
        return {}
    rows = json.loads(path.read_text())
    return {verdict_key(v["repo"], v["commit"], v["rule"], v["path"], v["text"]): v for v in rows}


def line_at(repo: Path, commit: str, path: str, line: int) -> str:
    """The flagged line's text at the reviewed commit ('' when the file or line is not there)."""
    done = subprocess.run(["git", "show", f"{commit}:{path}"], cwd=repo, capture_output=True, check=False)
    lines = done.stdout.decode("utf-8", "replace").splitlines()
    return lines[line - 1].strip() if done.returncode == 0 and 0 < line <= len(lines) else ""


def check_out(repo: Path, head: str, reviewed: set[str]) -> None:
    if head in reviewed:
        raise SystemExit(f"{repo.name}: the recorded head {head[:12]} is a reviewed commit")
    noise_select.git_out(repo, "checkout", "-q", "--detach", "-f", head)


def review(repo: Path, commit: str) -> Review:
    command = [str(ROOT / ".venv" / "bin" / "prscope"), "review", "--commits", f"{commit}^..{commit}"]
    command += ["--offline", "--format", "json"]
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command, cwd=repo, capture_output=True, text=True, timeout=TIMEOUT_S, check=False
        )
    except subprocess.TimeoutExpired:
        return Review(repo.name, commit, time.perf_counter() - started, crash="timeout", timeout=True)
    seconds = time.perf_counter() - started
    if done.returncode not in (0, 1):
        tail = (done.stderr.strip().splitlines() or ["no stderr"])[-1]
        return Review(repo.name, commit, seconds, crash=f"exit {done.returncode}: {tail}")
    try:
        report = json.loads(done.stdout)
        findings = report["findings"]
    except (ValueError, KeyError) as error:
        return Review(repo.name, commit, seconds, crash=f"bad JSON report: {error}")
    kept = [_slim(repo, commit, f) for f in findings if f.get("rule") in RULES]
    unjudged = Counter(str(f.get("rule")) for f in findings if f.get("rule") not in RULES)
    stopped = [str(e) for e in report.get("errors", []) if "stopped" in str(e)]
    return Review(repo.name, commit, seconds, kept, unjudged=dict(unjudged), incomplete=stopped)


def _slim(repo: Path, commit: str, finding: dict[str, Any]) -> dict[str, Any]:
    path, line = str(finding.get("path")), int(finding.get("line") or 0)
    return {
        "rule": finding["rule"],
        "path": path,
        "line": line,
        "text": line_at(repo, commit, path, line),
        "title": finding.get("title", ""),
        "message": finding.get("message", ""),
    }


def run_reviews(
    plan_path: Path, source_dir: Path, only: set[str] | None, save: Path | None, at_reviewed: bool
) -> list[Review]:
    plan = json.loads(plan_path.read_text())
    reviews: list[Review] = []
    for name, entry in plan.items():
        if only and name not in only:
            continue
        repo = source_dir / name
        commits = [row["commit"] for row in entry["commits"]]
        check_out(repo, entry["head"], set(commits))
        for number, commit in enumerate(commits, 1):
            if at_reviewed:  # the diagnostic run: what the checks find when the checkout is the commit
                noise_select.git_out(repo, "checkout", "-q", "--detach", "-f", commit)
            result = review(repo, commit)
            reviews.append(result)
            if save:  # after each review, so an interrupted run keeps what it did
                save.write_text(json.dumps([asdict(r) for r in reviews], indent=1))
            status = result.crash or f"{len(result.findings)} findings"
            where = f"[{name} {number}/{len(commits)}] {commit[:12]}"
            print(f"{where} {result.seconds:.1f}s {status}", flush=True)
        noise_select.git_out(repo, "checkout", "-q", "--detach", "-f", entry["head"])
    return reviews


def select_commits(
    plan_path: Path, source_dir: Path, names: list[str], count: int, scan: int, max_files: int
) -> None:
    plan: dict[str, Any] = json.loads(plan_path.read_text()) if plan_path.exists() else {}
    for name in names:
        repo = source_dir / name
        origin = _origin(noise_select.git_out(repo, "config", "--get", "remote.origin.url").strip())
        head = noise_select.git_out(repo, "rev-parse", "origin/HEAD").strip()
        picked = noise_select.select(repo, head, count, scan, max_files)
        plan[name] = {"origin": origin, "head": head, "commits": picked}
        print(f"{name}: {len(picked)} commits picked", flush=True)
        plan_path.write_text(json.dumps(plan, indent=1) + "\n")  # after each, so a stop keeps what is done


def _origin(url: str) -> str:
    """`github:owner/name` for a clone of a fetched mirror (/work/.mirror/owner+name/repo) or a GitHub URL."""
    if ".mirror/" in url:
        return "github:" + url.split(".mirror/")[1].split("/")[0].replace("+", "/", 1)
    if "github.com" in url:
        return "github:" + url.split("github.com")[1].strip(":/").removesuffix(".git")
    return url


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))] if ordered else 0.0


def report(reviews: list[Review], show: str, verdicts_path: Path = VERDICTS) -> None:
    verdicts = load_verdicts(verdicts_path)
    per_repo: Counter[str] = Counter(r.repo for r in reviews)
    per_rule: dict[str, Counter[str]] = defaultdict(Counter)
    noisy_commits: set[str] = set()
    false_classes: Counter[str] = Counter()
    for item in reviews:
        for finding in item.findings:
            key = verdict_key(item.repo, item.commit, finding["rule"], finding["path"], finding["text"])
            verdict = verdicts.get(key, {}).get("verdict", "unchecked")
            per_rule[finding["rule"]][verdict] += 1
            if verdict == "false":
                noisy_commits.add(item.commit)
                false_classes[verdicts[key].get("class", "unnamed")] += 1
            if show == "all" or verdict == show:
                _print_finding(item, finding, verdicts.get(key))
    _print_tallies(reviews, per_repo, per_rule, len(noisy_commits))
    if false_classes:
        print("false alarms by class of code (see bench/README_noise.md):")
        for name, count in false_classes.most_common():
            print(f"  {name:<44}{count:>4}")
    _print_health(reviews)


def _print_finding(item: Review, finding: dict[str, Any], verdict: dict[str, Any] | None) -> None:
    label = verdict["verdict"] if verdict else "unchecked"
    print(f"[{label}] {item.repo} {item.commit[:12]} {finding['rule']} {finding['path']}:{finding['line']}")
    print(f"    line: {finding['text']}")
    print(f"    {finding['title']}")
    if verdict:
        print(f"    why: {verdict.get('why', '')}")


def _print_tallies(
    reviews: list[Review], per_repo: Counter[str], per_rule: dict[str, Counter[str]], noisy: int
) -> None:
    print(f"\ncommits reviewed: {len(reviews)}  ({BASELINE})")
    for name in sorted(per_repo):
        print(f"  {name:<12}{per_repo[name]:>5}")
    totals: Counter[str] = Counter()
    print(f"\n{'rule':<20}{'findings':>9}{'true':>6}{'false':>7}{'unchecked':>11}")
    for rule in RULES:
        counts = per_rule.get(rule, Counter())
        totals.update(counts)
        row = f"{sum(counts.values()):>9}{counts['true']:>6}{counts['false']:>7}{counts['unchecked']:>11}"
        print(f"{rule:<20}{row}")
    judged = totals["true"] + totals["false"]
    share = totals["true"] / judged if judged else 1.0
    per_200 = 200 * noisy / len(reviews) if reviews else 0.0
    all_row = f"{sum(totals.values()):>9}{totals['true']:>6}{totals['false']:>7}{totals['unchecked']:>11}"
    print(f"{'all':<20}{all_row}")
    print(f"\nshare of judged findings that are real: {share:.1%} (goal >= {GOAL_REAL_SHARE:.0%})")
    goal = f"goal <= {GOAL_FALSE_PER_300:g}"
    per_300 = 300 * noisy / len(reviews) if reviews else 0.0
    print(
        f"commits with a false alarm: {noisy}, {per_200:.2f} per 200 commits, {per_300:.2f} per 300 ({goal})"
    )


def _print_health(reviews: list[Review]) -> None:
    unjudged: Counter[str] = Counter()
    for item in reviews:
        unjudged.update(item.unjudged)
    if unjudged:
        listed = ", ".join(f"{rule} {count}" for rule, count in sorted(unjudged.items()))
        print(f"findings of other rules (counted, not judged): {listed}")
    timeouts = [r for r in reviews if r.timeout]
    crashes = [r for r in reviews if r.crash and not r.timeout]
    seconds = [r.seconds for r in reviews if not r.timeout]
    print(f"crashes: {len(crashes)}, timeouts ({TIMEOUT_S} s): {len(timeouts)}")
    partial = [r for r in reviews if r.incomplete]
    print(f"reviews with a check stopped early (partial, results depend on load): {len(partial)}")
    for item in partial:
        print(f"  {item.repo} {item.commit[:12]} {item.seconds:.1f}s: {item.incomplete[0][:100]}")
    for item in crashes + timeouts:
        print(f"  {item.repo} {item.commit[:12]}: {item.crash}")
    if seconds:
        print(
            f"seconds per review (timeouts left out): median {statistics.median(seconds):.2f}, "
            f"p95 {percentile(seconds, 0.95):.2f}, max {max(seconds):.2f}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--source-dir", type=Path, default=Path("/tmp/noise13/repos"), help="clones by name")
    parser.add_argument("--repo", action="append", help="only this repository (repeatable)")
    parser.add_argument("--save", type=Path, help="write the reviews and their findings here (JSON)")
    parser.add_argument("--load", type=Path, help="re-tally reviews saved by --save instead of reviewing")
    parser.add_argument("--show", choices=("unchecked", "false", "true", "all", "none"), default="unchecked")
    parser.add_argument(
        "--checkout",
        choices=("head", "reviewed"),
        default="head",
        help="work tree during each review: the recorded head, or the reviewed commit (a diagnostic)",
    )
    parser.add_argument("--plan", type=Path, default=COMMITS, help="the commits (default: the 605)")
    parser.add_argument(
        "--verdicts", type=Path, default=VERDICTS, help="the verdicts of that plan's findings"
    )
    parser.add_argument("--select", action="store_true", help="pick the commits again (rewrites the plan)")
    parser.add_argument("--count", type=int, default=55, help="--select: commits per repository")
    parser.add_argument("--scan", type=int, default=3000, help="--select: newest commits looked at")
    parser.add_argument("--max-files", type=int, default=50, help="--select: skip bigger commits")
    args = parser.parse_args(argv)
    if args.select:
        select_commits(args.plan, args.source_dir, args.repo or [], args.count, args.scan, args.max_files)
        return 0
    if args.load:
        reviews = [Review(**row) for row in json.loads(args.load.read_text())]
        reviews = [r for r in reviews if not args.repo or r.repo in args.repo]
    else:
        only = set(args.repo) if args.repo else None
        reviews = run_reviews(args.plan, args.source_dir, only, args.save, args.checkout == "reviewed")
    report(reviews, args.show, args.verdicts)
    return 0


if __name__ == "__main__":
    sys.exit(main())
