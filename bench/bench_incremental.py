"""Model tokens of a re-review after a one-line push, incremental against full (issue 12's figure).

A real pull request is made from a public repository's history (default: flask, the 12 commits before
a fixed one, reviewed as one branch), reviewed with a model, then a one-line change is pushed to one of
its files and the branch is reviewed again: once as prscope does by default (incremental: only the new
hunk goes to the model) and once with --no-cache (the baseline: a full review of the same branch).

The model is the project's loopback fake of the Anthropic Messages API, through the real SDK. It bills
what a real API would bill: input tokens are the request's size (4 characters a token), output tokens
its reply's. It reviews like a careful model: it reads every changed file it is shown (read_file,
eight per turn), then answers with one finding per file, each checked by a verification subagent. So
a smaller diff costs fewer tokens for the reasons a real model's would (fewer files to open, a shorter
prompt). The floor is the system prompt and tool definitions every request carries (about 5k tokens).

    .venv/bin/python bench/bench_incremental.py --source /tmp/flask [--commits 12]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prscope.analysis.changeset import DiffSpec
from prscope.analysis.review import ReviewRequest, ReviewResult, run_review

from tests.fakeapi import FakeModelServer, FakeTurn, RecordedRequest, ToolUse
from tests.test_subagents_harness import is_subagent, reply

KEY = "sk-ant-bench-key-not-real"
CHARS_PER_TOKEN = 4
READS_PER_TURN = 8
FILE_HEADER = re.compile(r"^### (\S+) \(", re.MULTILINE)


def _reviewer(request: RecordedRequest) -> FakeTurn:
    size = len(json.dumps(request.body)) // CHARS_PER_TOKEN
    if is_subagent(request):  # a verification subagent: it confirms
        text = reply("checked the code", "CONFIRMED confidence: 0.8. The finding holds.")
        return FakeTurn(text=text, input_tokens=size, output_tokens=len(text) // CHARS_PER_TOKEN)
    files = FILE_HEADER.findall(request.first_user_text)
    turns = sum(1 for m in request.messages if m.get("role") == "assistant")
    batch = files[turns * READS_PER_TURN : (turns + 1) * READS_PER_TURN]
    if batch:
        calls = [ToolUse("read_file", {"path": path}) for path in batch]
        return FakeTurn(tool_uses=calls, input_tokens=size, output_tokens=40 * len(calls))
    findings = [
        {
            "rule": "maintainability",
            "severity": "note",
            "path": p,
            "line": 1,
            "title": f"look at {p}",
            "message": "scripted",
            "confidence": 0.6,
        }
        for p in files
    ]
    text = (
        "<findings>\n" + "\n".join(json.dumps(f) for f in findings) + "\n</findings>\n<summary>ok</summary>"
    )
    return FakeTurn(text=text, input_tokens=size, output_tokens=len(text) // CHARS_PER_TOKEN)


def _git(repo: Path, *args: str) -> str:
    env = {
        "GIT_AUTHOR_NAME": "b",
        "GIT_AUTHOR_EMAIL": "b@x",
        "GIT_COMMITTER_NAME": "b",
        "GIT_COMMITTER_EMAIL": "b@x",
        "PATH": "/usr/bin:/bin",
    }
    done = subprocess.run(
        ["git", "-C", str(repo), *args], capture_output=True, text=True, env=env, check=True
    )
    return done.stdout.strip()


def _make_pr(source: Path, work: Path, commits: int, tip: str) -> tuple[Path, str]:
    repo = work / "repo"
    subprocess.run(["git", "clone", "-q", str(source), str(repo)], check=True)
    head = _git(repo, "rev-parse", tip)
    base = _git(repo, "rev-parse", f"{head}~{commits}")
    _git(repo, "checkout", "-q", "-B", "main", base)
    _git(repo, "checkout", "-q", "-B", "feature", head)
    _git(repo, "config", "core.hooksPath", "/dev/null")
    return repo, base


async def _review(repo: Path, server: FakeModelServer, use_cache: bool) -> ReviewResult:
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url, "PATH": "/usr/bin:/bin"}
    request = ReviewRequest(repo_path=repo, spec=DiffSpec(base="main"), env=env, use_cache=use_cache)
    return await run_review(request)


def _push_one_line(repo: Path, base: str) -> str:
    changed = [p for p in _git(repo, "diff", "--name-only", base, "HEAD").splitlines() if p.endswith(".py")]
    target = repo / changed[0]
    lines = target.read_text(encoding="utf-8").splitlines(keepends=True)
    middle = len(lines) // 2
    lines.insert(middle, "# a one-line follow-up push\n")
    target.write_text("".join(lines), encoding="utf-8")
    _git(repo, "commit", "-qam", "one-line push")
    return changed[0]


def _tokens(result: ReviewResult) -> int:
    return result.report.usage.total_tokens


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--source", type=Path, default=Path("/tmp/flask"), help="a full clone to take history from"
    )
    parser.add_argument("--tip", default="HEAD~40", help="the pull request's head commit in the source")
    parser.add_argument("--commits", type=int, default=12, help="how many commits the pull request holds")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer(responder=_reviewer) as server:
        repo, base = _make_pr(args.source, Path(tmp), args.commits, args.tip)
        stat = _git(repo, "diff", "--shortstat", base, "HEAD")
        full = await _review(repo, server, use_cache=True)
        again = await _review(repo, server, use_cache=True)
        path = _push_one_line(repo, base)
        incremental = await _review(repo, server, use_cache=True)
        baseline = await _review(repo, server, use_cache=False)
    reuse = incremental.report.reuse
    print(f"pull request: {args.source.name} {args.tip}, {args.commits} commits ({stat})")
    print(f"push: one line in {path}")
    print(f"{'review':<44} {'requests':>8} {'tokens':>9}  status")
    for label, result in (
        ("first review (full)", full),
        ("same change again (cache)", again),
        ("after the push: incremental (default)", incremental),
        ("after the push: full (--no-cache, baseline)", baseline),
    ):
        print(f"{label:<44} {result.report.usage.requests:>8} {_tokens(result):>9}  {result.report.status}")
    ratio = _tokens(incremental) / max(1, _tokens(baseline))
    print(f"incremental / full after the push: {ratio:.1%} (goal: under 10%)")
    if reuse is not None:
        print(
            f"incremental: {reuse.fresh_hunks} new hunk(s), {reuse.known_hunks} reviewed before, "
            f"{reuse.carried_over} finding(s) carried over, {reuse.dropped} dropped"
        )
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
