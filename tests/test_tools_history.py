"""git_history: log of a file, log -L of a line range, blame, on a real repository with history."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from prscope.analysis.tools.base import ToolCall, ToolContext, ToolExecutor, ToolResult
from prscope.analysis.tools.registry import default_registry, make_tool_context

from tests.gitrepo import GitRepo


def call(ctx: ToolContext, tool: str, /, **arguments: Any) -> ToolResult:
    return asyncio.run(ToolExecutor(default_registry(), ctx).execute(ToolCall("t", tool, arguments)))


@pytest.fixture
def repo(git_repo: GitRepo) -> GitRepo:
    git_repo.write("calc.py", "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n")
    git_repo.commit("Add calculator")
    git_repo.write("calc.py", "def add(a, b):\n    return b + a\n\n\ndef sub(a, b):\n    return a - b\n")
    git_repo.commit("Swap operands in add")
    git_repo.write("calc.py", "def add(a, b):\n    return b + a\n\n\ndef sub(a, b):\n    return -(b - a)\n")
    git_repo.commit("Rewrite sub")
    git_repo.write("other.py", "X = 1\n")
    git_repo.commit("Unrelated")
    return git_repo


@pytest.fixture
def ctx(repo: GitRepo) -> ToolContext:
    return make_tool_context(repo.root)


def test_log_of_a_file(ctx: ToolContext) -> None:
    content = call(ctx, "git_history", path="calc.py").content
    subjects = [line.strip() for line in content.splitlines() if line.startswith("    ")]
    assert subjects == ["Rewrite sub", "Swap operands in add", "Add calculator"]
    assert "Unrelated" not in content
    assert "Test Author" in content


def test_log_of_a_line_range_follows_only_those_lines(ctx: ToolContext) -> None:
    content = call(ctx, "git_history", path="calc.py", start_line=1, end_line=2).content
    assert content.startswith("history of calc.py lines 1-2 as of HEAD (newest first)")
    assert "Swap operands in add" in content and "Add calculator" in content
    assert "Rewrite sub" not in content
    assert "+    return b + a" in content


def test_max_commits(ctx: ToolContext) -> None:
    content = call(ctx, "git_history", path="calc.py", max_commits=1).content
    assert "Rewrite sub" in content and "Swap operands" not in content


def test_blame_of_a_range(ctx: ToolContext, repo: GitRepo) -> None:
    content = call(ctx, "git_history", path="calc.py", mode="blame", start_line=2, end_line=6).content
    lines = content.splitlines()
    assert lines[0] == "blame of calc.py lines 2-6 as of HEAD"
    assert len(lines) == 6
    swap = repo.git("rev-parse", "HEAD~2")[:10]
    rewrite = repo.git("rev-parse", "HEAD~1")[:10]
    assert lines[1].startswith(swap) and lines[1].endswith("    2|     return b + a")
    assert lines[5].startswith(rewrite) and lines[5].endswith("    6|     return -(b - a)")


def test_blame_at_an_older_revision(ctx: ToolContext) -> None:
    content = call(ctx, "git_history", path="calc.py", mode="blame", rev="HEAD~3").content
    assert "as of HEAD~3" in content and "return a + b" in content


def test_history_of_a_deleted_file(ctx: ToolContext, repo: GitRepo) -> None:
    repo.delete("other.py")
    repo.commit("Remove other")
    content = call(ctx, "git_history", path="other.py").content
    assert "Remove other" in content and "Unrelated" in content


def test_errors(ctx: ToolContext) -> None:
    bad_rev = call(ctx, "git_history", path="calc.py", rev="no-such-branch")
    assert bad_rev.is_error and "unknown revision 'no-such-branch'" in bad_rev.content
    option = call(ctx, "git_history", path="calc.py", rev="--output=/tmp/x")
    assert option.is_error and "invalid revision" in option.content
    order = call(ctx, "git_history", path="calc.py", start_line=5, end_line=2)
    assert order.is_error and "end_line is before start_line" in order.content
    past = call(ctx, "git_history", path="calc.py", start_line=50, end_line=60)
    assert past.is_error and "git log failed" in past.content
    never = call(ctx, "git_history", path="never.py")
    assert not never.is_error and never.content == "no commits touch never.py (as of HEAD)"


def test_directories(ctx: ToolContext, repo: GitRepo) -> None:
    repo.write("lib/a.py", "A = 1\n")
    repo.commit("Add lib")
    content = call(ctx, "git_history", path="lib").content
    assert "Add lib" in content and "Rewrite sub" not in content
    assert "blame needs a file" in call(ctx, "git_history", path="lib", mode="blame").content
    assert "line range needs a file" in call(ctx, "git_history", path="lib", start_line=1).content
