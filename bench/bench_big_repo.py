"""Review speed on a big repository (issue 20): several prscope builds side by side on the same commits.

Real non-merge commits that change a definition's parameters or remove a name in a non-test Python file
(`noise_select.select`, the noise check's rules) are reviewed as a user reviews a PR,
`prscope review --commits SHA^..SHA --offline --format json`, with the clone's work tree checked out at
a head that is none of the reviewed commits (as `noise_breaking.py` does). Every build named on the
command line reviews every commit; the builds take turns per commit (and the order alternates from one
commit to the next), so a burst of load on the shared machine falls on all of them alike. One review at
a time.

Per review: wall seconds, CPU seconds of the child (user + sys, from `getrusage(RUSAGE_CHILDREN)`
deltas), the 1-minute load average when it started, status (complete / partial: a check stopped on its
time budget), findings (rule, path, line). Printed: median / p95 / max of wall and CPU seconds per build,
side by side, partial reviews, the load average, and the commits where the builds' findings differ.

    # 30 commits of sympy, main 3c97f6b (a detached worktree with its own .venv) against this branch
    .venv/bin/python bench/bench_big_repo.py --repo /tmp/speed20/sympy \\
        --build before=/tmp/speed20/before/.venv/bin/prscope --build after=.venv/bin/prscope \\
        --save /tmp/speed20/sympy-run.json
    # 50 commits of the noise check's plan (spread over its repositories), private clones under --work
    .venv/bin/python bench/bench_big_repo.py --plan bench/noise-breaking-commits.json --take 50 \\
        --source-dir /tmp/noise20/repos --work /tmp/speed20/noise --build ... --save R.json
    .venv/bin/python bench/bench_big_repo.py --load R.json          # print saved figures again

Wall seconds move with the load of the shared machine; CPU seconds much less (they still grow a little
under load: caches, frequency), so they are the fairer comparison of two builds.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import noise_select

TIMEOUT_S = 120
TARGET = {"median": 3.0, "max": 8.0}  # issue 20, a repository of sympy's size (seconds, wall)


@dataclass
class Run:
    build: str
    repo: str
    commit: str
    wall: float
    cpu: float
    load: float
    status: str  # complete | partial | timeout | crash
    findings: list[list[Any]] = field(default_factory=list)  # [rule, path, line]
    detail: str = ""


def review(prscope: str, repo: Path, commit: str, build: str) -> Run:
    command = [prscope, "review", "--commits", f"{commit}^..{commit}", "--offline", "--format", "json"]
    command.append("--no-progress")
    load = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    try:
        done = subprocess.run(command, cwd=repo, capture_output=True, text=True, timeout=TIMEOUT_S)
    except subprocess.TimeoutExpired:
        wall = time.perf_counter() - started
        return Run(build, repo.name, commit, wall, _cpu_since(before), load, "timeout")
    wall = time.perf_counter() - started
    cpu = _cpu_since(before)
    if done.returncode not in (0, 1):
        tail = (done.stderr.strip().splitlines() or ["no stderr"])[-1]
        return Run(
            build, repo.name, commit, wall, cpu, load, "crash", detail=f"exit {done.returncode}: {tail}"
        )
    try:
        report = json.loads(done.stdout)
        found = [[f.get("rule"), f.get("path"), f.get("line")] for f in report["findings"]]
    except (ValueError, KeyError) as error:
        return Run(build, repo.name, commit, wall, cpu, load, "crash", detail=f"bad JSON report: {error}")
    status = "partial" if report.get("status") == "partial" else "complete"
    detail = str(report.get("status_reason", "")) if status == "partial" else ""
    return Run(build, repo.name, commit, wall, cpu, load, status, sorted(found), detail)


def _cpu_since(before: resource.struct_rusage) -> float:
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def plan_for_repo(repo: Path, head: str | None, count: int, scan: int, max_files: int) -> dict[str, Any]:
    head = head or noise_select.git_out(repo, "rev-parse", "HEAD").strip()
    picked = noise_select.select(repo, head, count, scan, max_files)
    return {repo.name: {"path": str(repo), "head": head, "commits": picked}}


def plan_from_file(plan_file: Path, source_dir: Path, work: Path, take: int | None) -> dict[str, Any]:
    """The commits of a noise-check plan, `take` of them spread evenly, in private clones under `work`."""
    plan: dict[str, Any] = json.loads(plan_file.read_text())
    rows = [(name, row) for name, entry in plan.items() for row in entry["commits"]]
    if take and take < len(rows):
        step = len(rows) / take
        rows = [rows[int(i * step)] for i in range(take)]
    chosen: dict[str, Any] = {}
    for name, row in rows:
        if name not in chosen:
            clone = work / name
            if not clone.exists():  # a private clone: the shared one may be checked out by someone else
                work.mkdir(parents=True, exist_ok=True)
                subprocess.run(["git", "clone", "-q", str(source_dir / name), str(clone)], check=True)
            chosen[name] = {"path": str(clone), "head": plan[name]["head"], "commits": []}
        chosen[name]["commits"].append(row)
    return chosen


def run_all(plan: dict[str, Any], builds: list[tuple[str, str]], save: Path | None) -> list[Run]:
    runs: list[Run] = []
    total = sum(len(entry["commits"]) for entry in plan.values())
    number = 0
    for name, entry in plan.items():
        repo = Path(entry["path"])
        commits = [row["commit"] for row in entry["commits"]]
        if entry["head"] in commits:
            raise SystemExit(f"{name}: the head {entry['head'][:12]} is a reviewed commit")
        noise_select.git_out(repo, "checkout", "-q", "--detach", "-f", entry["head"])
        for commit in commits:
            number += 1
            order = builds if number % 2 else builds[::-1]
            line = []
            for build, prscope in order:
                run = review(prscope, repo, commit, build)
                runs.append(run)
                line.append(
                    f"{build} {run.wall:5.2f}s wall {run.cpu:5.2f}s cpu {run.status} {len(run.findings)}"
                )
            print(
                f"[{number}/{total}] {name} {commit[:12]} load {runs[-1].load:.2f}: " + " | ".join(line),
                flush=True,
            )
            if save:
                save.write_text(json.dumps({"plan": plan, "runs": [asdict(r) for r in runs]}, indent=1))
    return runs


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))] if ordered else 0.0


def summary(runs: list[Run]) -> None:
    builds = list(dict.fromkeys(r.build for r in runs))
    by_build = {b: [r for r in runs if r.build == b] for b in builds}
    width = max(12, *(len(b) + 2 for b in builds))
    print(f"\n{'':<26}" + "".join(f"{b:>{width}}" for b in builds))
    rows = [
        ("reviews", lambda rs: f"{len(rs)}"),
        ("wall median s", lambda rs: f"{statistics.median([r.wall for r in rs]):.2f}"),
        ("wall p95 s", lambda rs: f"{percentile([r.wall for r in rs], 0.95):.2f}"),
        ("wall max s", lambda rs: f"{max(r.wall for r in rs):.2f}"),
        ("cpu median s", lambda rs: f"{statistics.median([r.cpu for r in rs]):.2f}"),
        ("cpu p95 s", lambda rs: f"{percentile([r.cpu for r in rs], 0.95):.2f}"),
        ("cpu max s", lambda rs: f"{max(r.cpu for r in rs):.2f}"),
        ("cpu total s", lambda rs: f"{sum(r.cpu for r in rs):.1f}"),
        ("partial", lambda rs: f"{sum(r.status == 'partial' for r in rs)}"),
        (
            "timeouts / crashes",
            lambda rs: f"{sum(r.status == 'timeout' for r in rs)} / {sum(r.status == 'crash' for r in rs)}",
        ),
        ("findings", lambda rs: f"{sum(len(r.findings) for r in rs)}"),
        ("load avg median", lambda rs: f"{statistics.median([r.load for r in rs]):.2f}"),
        ("load avg max", lambda rs: f"{max(r.load for r in rs):.2f}"),
    ]
    for label, cell in rows:
        print(f"{label:<26}" + "".join(f"{cell(by_build[b]):>{width}}" for b in builds))
    print(
        f"(target on a repository of sympy's size: wall median <= {TARGET['median']:g} s, "
        f"max <= {TARGET['max']:g} s, no partial review)"
    )
    for run in runs:
        if run.status != "complete":
            print(f"  {run.build} {run.repo} {run.commit[:12]} {run.status}: {run.detail[:140]}")
    findings: dict[tuple[str, str], dict[str, list[list[Any]]]] = {}
    for run in runs:
        findings.setdefault((run.repo, run.commit), {})[run.build] = run.findings
    differ = [(key, per) for key, per in findings.items() if len({json.dumps(f) for f in per.values()}) > 1]
    print(f"commits where the builds' findings differ: {len(differ)}")
    for (repo, commit), per in differ:
        counts = ", ".join(f"{b} {len(f)}" for b, f in per.items())
        print(f"  {repo} {commit[:12]}: {counts}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--build",
        action="append",
        default=[],
        metavar="NAME=PRSCOPE",
        help="a build to time: a name and its prscope command (repeatable)",
    )
    parser.add_argument("--repo", type=Path, help="select commits of this clone (noise_select's rules)")
    parser.add_argument("--head", help="--repo: the commit the work tree is checked out at (default HEAD)")
    parser.add_argument("--count", type=int, default=30, help="--repo: commits to select")
    parser.add_argument("--scan", type=int, default=3000, help="--repo: newest commits looked at")
    parser.add_argument("--max-files", type=int, default=50, help="--repo: skip commits changing more files")
    parser.add_argument("--plan", type=Path, help="commits of a noise-check plan file instead of --repo")
    parser.add_argument("--take", type=int, help="--plan: this many commits, spread evenly")
    parser.add_argument("--source-dir", type=Path, default=Path("/tmp/noise20/repos"), help="--plan: clones")
    parser.add_argument(
        "--work", type=Path, default=Path("/tmp/speed20/noise"), help="--plan: private clones"
    )
    parser.add_argument("--save", type=Path, help="write the plan and every review here (JSON)")
    parser.add_argument("--load", type=Path, help="print the figures of a saved run, no review")
    parser.add_argument("--reuse-plan", type=Path, help="review the plan saved in this run file again")
    args = parser.parse_args(argv)
    if args.load:
        saved = json.loads(args.load.read_text())
        summary([Run(**row) for row in saved["runs"]])
        return 0
    builds = [tuple(item.split("=", 1)) for item in args.build]
    if not builds or any(len(b) != 2 for b in builds):
        parser.error("give at least one --build NAME=PATH_TO_PRSCOPE")
    if args.reuse_plan:
        plan = json.loads(args.reuse_plan.read_text())["plan"]
    elif args.plan:
        plan = plan_from_file(args.plan, args.source_dir, args.work, args.take)
    elif args.repo:
        plan = plan_for_repo(args.repo.resolve(), args.head, args.count, args.scan, args.max_files)
    else:
        parser.error("give --repo, --plan or --reuse-plan")
    count = sum(len(e["commits"]) for e in plan.values())
    print(f"{count} commits, builds: {', '.join(b for b, _ in builds)}, load {os.getloadavg()}", flush=True)
    runs = run_all(plan, [(b, p) for b, p in builds], args.save)
    summary(runs)
    return 0


if __name__ == "__main__":
    sys.exit(main())
