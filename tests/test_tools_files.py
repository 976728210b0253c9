"""read_file, list_directory and find_files on real repositories."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from prscope.analysis.tools.base import ToolCall, ToolContext, ToolExecutor, ToolResult
from prscope.analysis.tools.files import glob_to_regex
from prscope.analysis.tools.registry import default_registry, make_tool_context

from tests.gitrepo import GitRepo


def call(ctx: ToolContext, tool: str, /, **arguments: Any) -> ToolResult:
    return asyncio.run(ToolExecutor(default_registry(), ctx).execute(ToolCall("t", tool, arguments)))


@pytest.fixture
def repo(git_repo: GitRepo) -> GitRepo:
    git_repo.write(".gitignore", "build/\n*.log\n")
    git_repo.write("src/pkg/__init__.py", "")
    git_repo.write("src/pkg/core.py", "".join(f"line {i}\n" for i in range(1, 2001)))
    git_repo.write("src/pkg/util.py", "def helper():\n    return 1\n")
    git_repo.write("src/pkg/sub/deep.py", "X = 1\n")
    git_repo.write("tests/test_core.py", "def test_x():\n    pass\n")
    git_repo.write("docs/logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(200))
    git_repo.write("docs/latin1.txt", "caf\xe9 cr\xe8me\n".encode("latin-1"))
    git_repo.write("docs/empty.txt", "")
    git_repo.write("docs/wide.txt", "x" * 5000 + "\nshort\n")
    git_repo.commit("init")
    git_repo.write("src/pkg/new_untracked.py", "NEW = True\n")
    git_repo.write("build/out.py", "IGNORED = True\n")
    git_repo.write("debug.log", "ignored\n")
    return git_repo


@pytest.fixture
def ctx(repo: GitRepo) -> ToolContext:
    return make_tool_context(repo.root)


def test_read_file_line_range_with_numbers(ctx: ToolContext) -> None:
    result = call(ctx, "read_file", path="src/pkg/core.py", start_line=10, end_line=12)
    assert result.content == ("src/pkg/core.py (lines 10-12 of 2000)\n10| line 10\n11| line 11\n12| line 12")


def test_read_file_pages_a_long_file_and_says_where_to_continue(ctx: ToolContext) -> None:
    first = call(ctx, "read_file", path="src/pkg/core.py").content
    assert first.startswith("src/pkg/core.py (lines 1-400 of 2000)")
    assert first.endswith("call read_file with start_line=401 to continue (1600 lines left in range)]")
    second = call(ctx, "read_file", path="src/pkg/core.py", start_line=401).content
    assert "401| line 401" in second


def test_read_file_stays_within_the_character_budget(ctx: ToolContext, repo: GitRepo) -> None:
    repo.write("wide_lines.txt", "".join(f"{i} {'y' * 200}\n" for i in range(300)))
    result = call(ctx, "read_file", path="wide_lines.txt").content
    assert len(result) < 12_000
    assert "[cut at line" in result and "call read_file with start_line=" in result


def test_read_file_refuses_binary(ctx: ToolContext) -> None:
    result = call(ctx, "read_file", path="docs/logo.png")
    assert result.is_error
    assert result.content == "Error: docs/logo.png is a binary file (216 B); it is not shown"


def test_read_file_decodes_non_utf8_with_replacement(ctx: ToolContext) -> None:
    result = call(ctx, "read_file", path="docs/latin1.txt")
    assert not result.is_error
    assert "not valid UTF-8" in result.content
    assert "1| caf\ufffd cr\ufffdme" in result.content


def test_read_file_edge_cases(ctx: ToolContext) -> None:
    assert call(ctx, "read_file", path="docs/empty.txt").content == "docs/empty.txt: (empty file)"
    wide = call(ctx, "read_file", path="docs/wide.txt").content
    assert "[line cut: 4000 more characters]" in wide and "2| short" in wide
    assert (
        call(ctx, "read_file", path="src/pkg").content == "Error: src/pkg is a directory; use list_directory"
    )
    past = call(ctx, "read_file", path="src/pkg/util.py", start_line=9)
    assert past.is_error and "past the end of src/pkg/util.py (2 lines)" in past.content
    missing = call(ctx, "read_file", path="src/nope.py")
    assert missing.content == "Error: no such file or directory: src/nope.py"
    backwards = call(ctx, "read_file", path="src/pkg/util.py", start_line=2, end_line=1)
    assert backwards.is_error and "before start_line" in backwards.content


def test_read_file_reads_untracked_files(ctx: ToolContext) -> None:
    assert "1| NEW = True" in call(ctx, "read_file", path="src/pkg/new_untracked.py").content


def test_list_directory_root(ctx: ToolContext) -> None:
    result = call(ctx, "list_directory").content
    lines = result.splitlines()
    assert lines[0] == "/ (3 directories, 1 file)"
    assert "  src/  (5 files)" in lines
    assert "  docs/  (4 files)" in lines
    assert "build" not in result and "debug.log" not in result
    assert any(line.startswith("  .gitignore  ") for line in lines)


def test_list_directory_subdirectory_with_sizes_and_untracked(ctx: ToolContext) -> None:
    result = call(ctx, "list_directory", path="src/pkg").content
    assert result.splitlines() == [
        "src/pkg/ (1 directory, 4 files)",
        "  sub/  (1 file)",
        "  __init__.py  0 B",
        "  core.py  18.5 KB",
        "  new_untracked.py  11 B",
        "  util.py  27 B",
    ]


def test_list_directory_pages(ctx: ToolContext) -> None:
    first = call(ctx, "list_directory", path="src/pkg", max_entries=2).content
    assert first.endswith(
        "[showing entries 1-2 of 5; call list_directory with offset=2 for more, or list a subdirectory]"
    )
    rest = call(ctx, "list_directory", path="src/pkg", max_entries=2, offset=4).content
    assert rest.splitlines()[1:] == ["  util.py  27 B"]


def test_list_directory_errors(ctx: ToolContext) -> None:
    assert "is a file" in call(ctx, "list_directory", path="src/pkg/util.py").content
    assert "no such file or directory" in call(ctx, "list_directory", path="nope").content


def test_find_files_by_name_at_any_depth(ctx: ToolContext) -> None:
    result = call(ctx, "find_files", pattern="*.py").content
    assert result.splitlines() == [
        "6 files match '*.py'",
        "src/pkg/__init__.py",
        "src/pkg/core.py",
        "src/pkg/new_untracked.py",
        "src/pkg/sub/deep.py",
        "src/pkg/util.py",
        "tests/test_core.py",
    ]


def test_find_files_path_globs(ctx: ToolContext) -> None:
    assert call(ctx, "find_files", pattern="src/**/*.py").content.startswith("5 files match")
    assert call(ctx, "find_files", pattern="src/*/*.py").content.startswith("4 files match")
    under = call(ctx, "find_files", pattern="sub/*.py", path="src/pkg").content
    assert under.splitlines() == ["1 file matches 'sub/*.py' under src/pkg", "src/pkg/sub/deep.py"]
    ranged = call(ctx, "find_files", pattern="test_[a-c]*.py").content
    assert ranged.splitlines()[1:] == ["tests/test_core.py"]
    assert call(ctx, "find_files", pattern="*.rs").content == "no files match '*.rs'"


def test_find_files_pages(ctx: ToolContext) -> None:
    result = call(ctx, "find_files", pattern="*.py", max_results=2).content
    assert result.splitlines()[1:3] == ["src/pkg/__init__.py", "src/pkg/core.py"]
    assert "call find_files with offset=2 for more" in result


@pytest.mark.parametrize(
    ("pattern", "path", "matches"),
    [
        ("*.py", "a.py", True),
        ("*.py", "a/b.py", False),
        ("**/*.py", "a/b/c.py", True),
        ("**/*.py", "c.py", True),
        ("a/**", "a/b/c", True),
        ("?.py", "ab.py", False),
        ("[!a]*.py", "b.py", True),
        ("[!a]*.py", "a.py", False),
        ("a+b.py", "a+b.py", True),
    ],
)
def test_glob_semantics(pattern: str, path: str, matches: bool) -> None:
    assert bool(glob_to_regex(pattern).match(path)) is matches


def test_read_file_counts_lines_as_git_does(ctx: ToolContext, repo: GitRepo) -> None:
    repo.write("ff.py", "a = 1\n\x0c\nb = 2\r\nc = 3\u2028still line 4\n")
    content = call(ctx, "read_file", path="ff.py").content
    assert content.splitlines()[0] == "ff.py (lines 1-4 of 4)"
    assert "3| b = 2" in content.splitlines()
    assert "4| c = 3\u2028still line 4" in content
    found = call(ctx, "search_text", pattern="still line", context_lines=1).content
    assert "  4: c = 3" in found and "  3- b = 2" in found


def test_read_file_large_file_is_streamed(ctx: ToolContext, repo: GitRepo) -> None:
    repo.write("big.txt", "".join(f"row {i}\n" for i in range(1, 200_001)))
    content = call(ctx, "read_file", path="big.txt", start_line=150_000, end_line=150_001).content
    assert content == "big.txt (lines 150000-150001 of 200000)\n150000| row 150000\n150001| row 150001"


def test_symlinked_directory_inside_the_repository_lists_its_target(ctx: ToolContext, repo: GitRepo) -> None:
    (repo.root / "alias").symlink_to("src/pkg", target_is_directory=True)
    listing = call(ctx, "list_directory", path="alias").content
    assert listing.splitlines()[0] == "alias/ (1 directory, 4 files)"
    assert "  util.py  27 B" in listing
    assert call(ctx, "find_files", pattern="deep.py", path="alias").content.splitlines()[1:] == [
        "src/pkg/sub/deep.py"
    ]
    assert "src/pkg/util.py" in call(ctx, "search_text", pattern="def helper", path="alias").content
