"""Benchmark: prscope's find_usages against jedi (default and with its 30-file limit lifted) and git grep.

Each measurement runs in a fresh subprocess, so "cold" means nothing cached in the process (the OS page
cache is warm, as it is for an editor or CI after checkout). Prints one row per symbol:

  prscope cold / warm seconds, reference lines, peak RSS
  jedi (default limits) reference lines, seconds
  jedi (limits lifted) reference lines, seconds
  git grep -w matching lines, seconds (the floor: text matches, including strings and comments)
  agreement: % of jedi-unlimited reference lines prscope also reports, and prscope lines jedi lacks

Usage: .venv/bin/python bench/bench_usages.py [--quick] [--no-jedi-unlimited] [--sympy PATH] [--other PATH]
jedi unlimited takes 16-120 s per symbol on sympy; --quick runs one symbol per project.
jedi is not a prscope dependency; for this comparison: `.venv/bin/pip install 'jedi>=0.19.1,<0.21'`.
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]

SYMPY_SYMBOLS = [
    "sympy.core.symbol.Symbol",
    "sympy.core.sympify.sympify",
    "sympy.core.symbol.Dummy",
    "sympy.simplify.simplify.nsimplify",
]
OTHER_SYMBOLS = {
    "mypy": ["mypy.nodes.TypeInfo", "mypy.types.get_proper_type"],
    "flask": ["flask.app.Flask", "flask.helpers.url_for"],
}


def _definition_position(repo: Path, qualname: str) -> tuple[str, int, int]:
    """(path, 1-based line, 0-based column of the name) of the symbol's definition."""
    from prscope.analysis.intel import CodeIndex

    definitions = CodeIndex(repo).find_definitions(qualname)
    if not definitions:
        raise SystemExit(f"no definition of {qualname} in {repo}")
    definition = definitions[0]
    text = (repo / definition.path).read_text(encoding="utf-8", errors="replace").splitlines()
    line_text = text[definition.line - 1]
    keyword = "class " if definition.kind == "class" else "def "
    column = line_text.index(keyword + definition.name) + len(keyword)
    return definition.path, definition.line, column


def worker_prscope(repo: Path, qualname: str) -> dict[str, Any]:
    from prscope.analysis.intel import CodeIndex

    start = time.perf_counter()
    cpu = time.process_time()
    index = CodeIndex(repo)
    result = index.find_usages(qualname, include_definitions=True)
    cold = time.perf_counter() - start
    cold_cpu = time.process_time() - cpu
    warm_times = []
    for _ in range(3):
        start = time.perf_counter()
        index.find_usages(qualname, include_definitions=True)
        warm_times.append(time.perf_counter() - start)
    lines = sorted({(r.path, r.line) for r in result.references})
    exact = {(r.path, r.line) for r in result.references if r.confidence == "exact"}
    return {
        "cold": cold,
        "cold_cpu": cold_cpu,
        "warm": min(warm_times),
        "lines": lines,
        "exact_lines": len(exact),
        "references": len(result.references),
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "candidates": result.candidate_files,
    }


def worker_jedi(repo: Path, qualname: str, unlimited: bool) -> dict[str, Any]:
    import jedi
    import jedi.inference.references as references

    if unlimited:
        # jedi stops after parsing 30 files that mention the name (and opening 2,000): lift both.
        references._PARSED_FILE_LIMIT = 10**9
        references._OPENED_FILE_LIMIT = 10**9
    path, line, column = _definition_position(repo, qualname)
    start = time.perf_counter()
    project = jedi.Project(repo)
    script = jedi.Script(path=repo / path, project=project)
    names = script.get_references(line, column)
    elapsed = time.perf_counter() - start
    lines = set()
    for name in names:
        if name.module_path is None:
            continue
        try:
            relative = Path(name.module_path).resolve().relative_to(repo.resolve()).as_posix()
        except ValueError:
            continue
        lines.add((relative, name.line))
    return {
        "time": elapsed,
        "lines": sorted(lines),
        "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
    }


def worker_grep(repo: Path, qualname: str) -> dict[str, Any]:
    word = qualname.rsplit(".", 1)[-1]
    start = time.perf_counter()
    output = subprocess.run(
        ["git", "grep", "-n", "-w", "-I", "-e", word, "--", "*.py"],
        cwd=repo,
        capture_output=True,
        text=True,
        errors="replace",
        check=False,
    ).stdout
    elapsed = time.perf_counter() - start
    return {"time": elapsed, "count": len(output.splitlines())}


def run_worker(kind: str, repo: Path, qualname: str, timeout: float) -> dict[str, Any]:
    command = [sys.executable, __file__, "--worker", kind, "--repo", str(repo), "--target", qualname]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout, cwd=ROOT, check=False)
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f}s"}
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-1:] or ["failed"]
        return {"error": tail[0]}
    parsed: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return parsed


def agreement(prscope: dict[str, Any], jedi_run: dict[str, Any]) -> tuple[str, str]:
    if "lines" not in prscope or "lines" not in jedi_run:
        return "-", "-"
    ours = {tuple(item) for item in prscope["lines"]}
    theirs = {tuple(item) for item in jedi_run["lines"]}
    if not theirs:
        return "-", str(len(ours))
    found = len(theirs & ours) / len(theirs) * 100
    return f"{found:.1f}%", str(len(ours - theirs))


def measure(
    repo: Path, qualname: str, args: argparse.Namespace, previous: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    row: dict[str, Any] = {"repo": repo.name, "symbol": qualname}
    row["prscope"] = run_worker("prscope", repo, qualname, 300)
    row["grep"] = run_worker("grep", repo, qualname, 60)
    earlier = previous.get(qualname)
    if earlier is not None:
        row["jedi"], row["jedi_unlimited"] = earlier["jedi"], earlier["jedi_unlimited"]
        return row
    row["jedi"] = run_worker("jedi", repo, qualname, 600)
    row["jedi_unlimited"] = (
        run_worker("jedi-unlimited", repo, qualname, args.jedi_timeout) if not args.no_jedi_unlimited else {}
    )
    return row


def _fmt_time(run: dict[str, Any], key: str = "time") -> str:
    if "error" in run:
        return str(run["error"])[:24]
    return f"{run[key]:.2f}s" if key in run else "-"


def _fmt_count(run: dict[str, Any]) -> str:
    if "lines" in run:
        return str(len(run["lines"]))
    return str(run.get("count", "-"))


def print_table(rows: list[dict[str, Any]]) -> None:
    header = (
        f"{'symbol':36} | {'prscope cold':>12} {'(cpu)':>7} {'warm':>7} {'lines':>6} {'RSS MB':>6} | "
        f"{'jedi':>6} {'time':>7} | {'jedi∞':>6} {'time':>8} | {'grep -w':>7} {'time':>6} | "
        f"{'agree':>6} {'extra':>5}"
    )
    print(header)
    print("-" * len(header))
    for row in rows:
        ours, jedi_run, unlimited, grep = row["prscope"], row["jedi"], row["jedi_unlimited"], row["grep"]
        found, extra = agreement(ours, unlimited)
        rss = f"{ours['rss_mb']:.0f}" if "rss_mb" in ours else "-"
        unlimited_count = _fmt_count(unlimited) if unlimited else "-"
        unlimited_time = _fmt_time(unlimited) if unlimited else "-"
        print(
            f"{row['symbol'][-36:]:36} | {_fmt_time(ours, 'cold'):>12} {_fmt_time(ours, 'cold_cpu'):>7} "
            f"{_fmt_time(ours, 'warm'):>7} "
            f"{_fmt_count(ours):>6} {rss:>6} | {_fmt_count(jedi_run):>6} {_fmt_time(jedi_run):>7} | "
            f"{unlimited_count:>6} {unlimited_time:>8} | "
            f"{_fmt_count(grep):>7} {_fmt_time(grep):>6} | {found:>6} {extra:>5}"
        )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--quick", action="store_true", help="one symbol per project")
    parser.add_argument("--no-jedi-unlimited", action="store_true", help="skip the slow unlimited jedi runs")
    parser.add_argument("--jedi-timeout", type=float, default=600.0)
    parser.add_argument("--sympy", type=Path, default=Path("/tmp/sympy"))
    parser.add_argument("--skip-sympy", action="store_true", help="measure only the other project")
    parser.add_argument("--other", type=Path, default=Path("/tmp/mypy"))
    parser.add_argument("--json", type=Path, help="also write the raw measurements here")
    parser.add_argument(
        "--reuse-jedi",
        type=Path,
        help="take the jedi figures from an earlier --json file (they take minutes)",
    )
    parser.add_argument("--worker", help=argparse.SUPPRESS)
    parser.add_argument("--repo", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--target", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.worker:
        sys.path.insert(0, str(ROOT))
        workers = {
            "prscope": lambda: worker_prscope(args.repo, args.target),
            "jedi": lambda: worker_jedi(args.repo, args.target, unlimited=False),
            "jedi-unlimited": lambda: worker_jedi(args.repo, args.target, unlimited=True),
            "grep": lambda: worker_grep(args.repo, args.target),
        }
        print(json.dumps(workers[args.worker]()))
        return 0

    plan: list[tuple[Path, str]] = []
    sympy_symbols = SYMPY_SYMBOLS[:1] if args.quick else SYMPY_SYMBOLS
    if not args.skip_sympy:
        plan += [(args.sympy, symbol) for symbol in sympy_symbols]
    other = OTHER_SYMBOLS.get(args.other.name, [])
    plan += [(args.other, symbol) for symbol in (other[:1] if args.quick else other)]
    previous: dict[str, dict[str, Any]] = {}
    if args.reuse_jedi:
        previous = {row["symbol"]: row for row in json.loads(args.reuse_jedi.read_text())}
    rows = []
    for repo, symbol in plan:
        print(f"measuring {symbol} in {repo} ...", file=sys.stderr, flush=True)
        rows.append(measure(repo, symbol, args, previous))
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
