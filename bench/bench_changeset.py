"""ChangeSet load, render and budget time for a 1,000-file / 50,000-changed-line change.

Baseline: `git diff -M` on the same two commits (the raw patch, no parsing). Prints both side by side.

    .venv/bin/python bench/bench_changeset.py [--files 1000] [--repo PATH --commits A..B]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from prscope.analysis.changeset import (
    DiffSpec,
    load_changeset,
    render_for_model,
    render_summary,
    select_for_budget,
)

BLOCKS_PER_FILE = 5
LINES_PER_BLOCK = 5
FILE_LINES = 130
GIT_ENV = {
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.com",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.com",
}


def git(repo: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", *args], cwd=repo, env={**os.environ, **GIT_ENV}, capture_output=True, text=True, check=True
    )
    return result.stdout.strip()


def module_text(index: int, edited: bool) -> str:
    """A Python module of functions; the edited version rewrites 5 blocks of 5 lines."""
    lines = []
    for number in range(FILE_LINES):
        block, offset = divmod(number, 26)
        if offset == 0:
            lines.append(f"def function_{index}_{block}(value):")
        elif edited and 10 <= offset < 10 + LINES_PER_BLOCK:
            lines.append(f"    value = value * {number} + {index}  # edited")
        else:
            lines.append(f"    value = value + {number}")
    return "\n".join(lines) + "\n"


def build_repository(root: Path, files: int) -> tuple[str, str]:
    git(root, "init", "-q", "-b", "main")
    for index in range(files):
        path = root / f"pkg{index % 20}" / f"module_{index}.py"
        path.parent.mkdir(exist_ok=True)
        path.write_text(module_text(index, edited=False))
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "base")
    base = git(root, "rev-parse", "HEAD")
    for index in range(files):
        (root / f"pkg{index % 20}" / f"module_{index}.py").write_text(module_text(index, edited=True))
    git(root, "commit", "-q", "-a", "-m", "change")
    return base, git(root, "rev-parse", "HEAD")


def timed(action: Callable[[], object], repeat: int) -> tuple[float, object]:
    times = []
    result: object = None
    for _ in range(repeat):
        result = None  # free the previous result outside the timed region
        started = time.perf_counter()
        result = action()
        times.append(time.perf_counter() - started)
    return statistics.median(times), result


def cold_load_seconds(repo: Path, commits: str) -> float:
    """First load in a fresh interpreter (imports excluded, first git calls and page cache included)."""
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from prscope.analysis.changeset import DiffSpec, load_changeset\n"
        "started = time.perf_counter()\n"
        f"load_changeset(Path({str(repo)!r}), DiffSpec(mode='commits', commits={commits!r}))\n"
        "print(time.perf_counter() - started)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--repo", type=Path, help="measure an existing repository instead")
    parser.add_argument("--commits", help="A..B range in --repo")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="prscope-bench-") as tmp:
        if args.repo:
            repo, commits = args.repo, args.commits or "HEAD~50..HEAD"
            base, head = commits.split("..")
        else:
            repo = Path(tmp)
            started = time.perf_counter()
            base, head = build_repository(repo, args.files)
            print(f"generated {args.files} files in {time.perf_counter() - started:.1f}s")
            commits = f"{base}..{head}"
        report(repo, base, head, commits, args.repeat)
    return 0


def report(repo: Path, base: str, head: str, commits: str, repeat: int) -> None:
    baseline, _ = timed(lambda: git(repo, "diff", "-M", base, head), repeat)
    cold = cold_load_seconds(repo, commits)
    spec = DiffSpec(mode="commits", commits=commits)
    warm, _ = timed(lambda: load_changeset(repo, spec), repeat)

    def review_path() -> tuple[float, float, int, int, int]:
        """What a review does: budget the change, then render what was chosen (fresh ChangeSet)."""
        cs = load_changeset(repo, spec)
        started = time.perf_counter()
        selection = select_for_budget(cs, 100_000)
        budget_done = time.perf_counter()
        prompt = render_for_model(cs, selection.included)
        rendered = time.perf_counter()
        return (
            budget_done - started,
            rendered - budget_done,
            len(selection.included),
            len(selection.omitted),
            len(prompt),
        )

    budget_time, selected_render, kept, omitted, prompt_chars = review_path()
    cs = load_changeset(repo, spec)
    full_render, rendered = timed(lambda: render_for_model(cs), 1)
    full_again, _ = timed(lambda: render_for_model(cs), repeat)
    summary_time, _ = timed(lambda: render_summary(cs), repeat)
    hunks = sum(len(change.hunks) for change in cs.files)
    load1, _, _ = os.getloadavg()
    print(f"machine: {os.cpu_count()} cpus, load average {load1:.2f} while measuring")
    print(
        f"change: {len(cs.files)} files, {hunks} hunks, +{cs.additions} -{cs.deletions} "
        f"({cs.additions + cs.deletions} changed lines)"
    )
    rows = [
        ("baseline: git diff -M (raw patch, no parsing)", baseline),
        ("load_changeset, cold (first call, fresh process)", cold),
        ("load_changeset, warm (median)", warm),
        ("select_for_budget(100k tokens)", budget_time),
        (f"render_for_model of the {kept} selected files", selected_render),
        ("render_for_model of all files (parses every source)", full_render),
        ("render_for_model of all files, again (median)", full_again),
        ("render_summary (median)", summary_time),
        ("total review path: cold load + budget + render", cold + budget_time + selected_render),
        ("total worst case: cold load + budget + render all", cold + budget_time + full_render),
    ]
    for label, seconds in rows:
        print(f"  {label:<56} {seconds * 1000:8.1f} ms  {seconds / baseline:6.1f}x baseline")
    assert isinstance(rendered, str)
    print(
        f"full render {len(rendered):,} chars (~{len(rendered) // 4:,} tokens); the 100k-token selection "
        f"kept {kept} files ({prompt_chars:,} chars) and listed {omitted} entries as omitted"
    )


if __name__ == "__main__":
    sys.exit(main())
