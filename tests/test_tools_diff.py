"""list_changed_files and get_file_diff over a ChangeSet loaded from a real repository."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from prscope.analysis.changeset import ChangeSet, DiffSpec, load_changeset
from prscope.analysis.tools.base import ToolCall, ToolContext, ToolExecutor, ToolResult
from prscope.analysis.tools.registry import default_registry, make_tool_context

from tests.gitrepo import GitRepo


def call(ctx: ToolContext, tool: str, /, **arguments: Any) -> ToolResult:
    return asyncio.run(ToolExecutor(default_registry(), ctx).execute(ToolCall("t", tool, arguments)))


@pytest.fixture
def changeset(git_repo: GitRepo) -> Iterator[ChangeSet]:
    git_repo.write("src/app.py", "".join(f"line {i}\n" for i in range(1, 41)))
    git_repo.write("src/old_name.py", "def moved():\n    return 1\n" * 5)
    git_repo.write("src/gone.py", "X = 1\n")
    git_repo.write("logo.png", b"\x89PNG\x00\x00binary")
    git_repo.write(".env", "KEY=old\n")
    git_repo.commit("base")
    git_repo.git("checkout", "-q", "-b", "feature")
    text = "".join(f"line {i}\n" for i in range(1, 41)).replace("line 3\n", "line three\n")
    git_repo.write("src/app.py", text.replace("line 35\n", "line 35\ninserted\n"))
    git_repo.git("mv", "src/old_name.py", "src/new_name.py")
    git_repo.delete("src/gone.py")
    git_repo.write("src/added.py", "NEW = 1\n")
    git_repo.write("logo.png", b"\x89PNG\x00\x00changed")
    git_repo.write(".env", "KEY=sk-live-SECRETVALUE\n")
    git_repo.commit("feature")
    with load_changeset(git_repo.root, DiffSpec(mode="branch", base="main")) as cs:
        yield cs


@pytest.fixture
def ctx(changeset: ChangeSet) -> ToolContext:
    return make_tool_context(changeset.repo_root, changeset=changeset)


def test_list_changed_files(ctx: ToolContext, changeset: ChangeSet) -> None:
    result = call(ctx, "list_changed_files")
    assert not result.is_error
    lines = result.content.splitlines()
    assert lines[0].startswith("branch change, base main (")
    assert lines[0].endswith("6 files changed, +4 -3")
    assert "M  src/app.py  (+2 -1)" in lines
    assert "R  src/new_name.py  (from src/old_name.py, +0 -0)" in lines
    assert "D  src/gone.py  (+0 -1)" in lines
    assert "A  src/added.py  (+1 -0)" in lines
    assert "M  logo.png  (binary)" in lines
    assert "M  .env  (+1 -1)" in lines
    assert "SECRETVALUE" not in result.content


def test_list_changed_files_pages(ctx: ToolContext) -> None:
    content = call(ctx, "list_changed_files", max_results=2).content
    assert len(content.splitlines()) == 4
    assert "call list_changed_files with offset=2 for more" in content


def test_get_file_diff_shows_old_and_new_line_numbers(ctx: ToolContext) -> None:
    result = call(ctx, "get_file_diff", path="src/app.py")
    assert not result.is_error
    lines = result.content.splitlines()
    assert lines[0] == ("src/app.py: modified (+2 -1); 2 hunks; columns: old line, new line, +/-/space, text")
    assert "    3       -line 3" in lines
    assert "          3 +line three" in lines
    assert "    4     4  line 4" in lines
    assert "         36 +inserted" in lines
    assert "@@ -33,6 +33,7 @@ line 32" in lines


def test_get_file_diff_pages_by_hunk(ctx: ToolContext) -> None:
    content = call(ctx, "get_file_diff", path="src/app.py", max_hunks=1).content
    assert "+inserted" not in content
    assert content.endswith(
        "[showing hunks 1-1 of 2; call get_file_diff with offset=1 for more, or read_file the new side for "
        "a line range]"
    )
    assert "+inserted" in call(ctx, "get_file_diff", path="src/app.py", offset=1).content


def test_get_file_diff_special_files(ctx: ToolContext) -> None:
    assert call(ctx, "get_file_diff", path="logo.png").content == (
        "logo.png: modified\n(binary file: no text diff)"
    )
    gone = call(ctx, "get_file_diff", path="src/gone.py").content
    assert gone.startswith("src/gone.py: deleted") and "-X = 1" in gone
    renamed = call(ctx, "get_file_diff", path="src/old_name.py").content
    assert renamed.startswith("src/new_name.py: renamed (from src/old_name.py")


def test_get_file_diff_refusals(ctx: ToolContext, changeset: ChangeSet) -> None:
    secret = call(ctx, "get_file_diff", path=".env")
    assert secret.is_error and "looks like a secrets file" in secret.content
    assert "SECRETVALUE" not in secret.content
    unchanged = call(ctx, "get_file_diff", path="README.md")
    assert unchanged.content == (
        "Error: README.md is not changed in this pull request; list_changed_files lists them"
    )
    allowed = make_tool_context(changeset.repo_root, changeset=changeset, allow_secret_files=True)
    assert "+KEY=sk-live-SECRETVALUE" in call(allowed, "get_file_diff", path=".env").content


def test_without_a_changeset_the_tools_say_how_to_get_one(git_repo: GitRepo) -> None:
    git_repo.commit("empty")
    ctx = make_tool_context(git_repo.root)
    for name, arguments in (("list_changed_files", {}), ("get_file_diff", {"path": "x.py"})):
        result = call(ctx, name, **arguments)
        assert result.is_error
        assert "no pull-request change set is loaded" in result.content
        assert "--base REF" in result.content
