"""search_text on real repositories: regex, literal text, scopes, paging, errors, and the fallback."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from prscope.analysis.tools import search
from prscope.analysis.tools.base import ToolCall, ToolContext, ToolExecutor, ToolResult
from prscope.analysis.tools.registry import default_registry, make_tool_context

from tests.gitrepo import GitRepo


def call(ctx: ToolContext, tool: str, /, **arguments: Any) -> ToolResult:
    return asyncio.run(ToolExecutor(default_registry(), ctx).execute(ToolCall("t", tool, arguments)))


@pytest.fixture
def repo(git_repo: GitRepo) -> GitRepo:
    git_repo.write(".gitignore", "build/\n")
    git_repo.write(
        "src/app.py", "def handle_request(req):\n    return process(req)\n\n\ndef process(x):\n    return x\n"
    )
    git_repo.write("src/util.py", "from src.app import process\n\nVALUE = process(1)  # PROCESS all\n")
    git_repo.write("docs/guide.md", "Call process(x) to process.\nA line with a.b literal dots\n")
    git_repo.write("data/blob.bin", b"process\x00\x01\x02")
    git_repo.write("many/numbers.txt", "".join(f"item {i}\n" for i in range(300)))
    git_repo.commit("init")
    git_repo.write("src/new.py", "process(2)\n")
    git_repo.write("build/gen.py", "process(3)\n")
    return git_repo


@pytest.fixture
def ctx(repo: GitRepo) -> ToolContext:
    return make_tool_context(repo.root)


def test_matches_grouped_by_file_with_line_numbers(ctx: ToolContext) -> None:
    result = call(ctx, "search_text", pattern=r"process\(", glob="*.py")
    assert not result.is_error
    assert result.content.splitlines() == [
        "4 matches in 3 files for pattern 'process\\\\('",
        "src/app.py",
        "  2:     return process(req)",
        "  5: def process(x):",
        "src/new.py",
        "  1: process(2)",
        "src/util.py",
        "  3: VALUE = process(1)  # PROCESS all",
    ]


def test_untracked_included_ignored_and_binary_skipped(ctx: ToolContext) -> None:
    content = call(ctx, "search_text", pattern="process").content
    assert "src/new.py" in content
    assert "build/gen.py" not in content
    assert "data/blob.bin" not in content


def test_perl_syntax_case_and_fixed_strings(ctx: ToolContext) -> None:
    assert "1 match in 1 file" in call(ctx, "search_text", pattern=r"def \w+_request\(").content
    insensitive = call(ctx, "search_text", pattern="PROCESS all", case_sensitive=False).content
    assert "src/util.py" in insensitive
    literal = call(ctx, "search_text", pattern="a.b", fixed_string=True).content
    assert "docs/guide.md" in literal and "1 match in 1 file" in literal


def test_path_scopes_the_search(ctx: ToolContext) -> None:
    content = call(ctx, "search_text", pattern="process", path="docs").content
    assert content.splitlines()[1] == "docs/guide.md"
    assert "src/" not in content
    one_file = call(ctx, "search_text", pattern="process", path="src/util.py").content
    assert one_file.startswith("2 matches in 1 file ")


def test_context_lines(ctx: ToolContext) -> None:
    content = call(ctx, "search_text", pattern="^def process", context_lines=1).content
    assert "  4- \n  5: def process(x):\n  6-     return x\n  --" in content


def test_paging_with_offset(ctx: ToolContext) -> None:
    first = call(ctx, "search_text", pattern=r"^item \d+$", max_results=100).content
    assert first.startswith("300 matches in 1 file ")
    assert "  100: item 99" in first and "  101: item 100" not in first
    assert first.endswith(
        "[showing matches 1-100 of 300; call search_text with offset=100 for more, or narrow the pattern, "
        "path or glob]"
    )
    second = call(ctx, "search_text", pattern=r"^item \d+$", max_results=100, offset=100).content
    assert "  101: item 100" in second


def test_invalid_regex_is_a_clear_error(ctx: ToolContext) -> None:
    result = call(ctx, "search_text", pattern="process(")
    assert result.is_error
    assert result.content.startswith("Error: invalid regular expression 'process(': missing ), unterminated")


def test_no_matches(ctx: ToolContext) -> None:
    result = call(ctx, "search_text", pattern="nothing_like_this")
    assert not result.is_error and result.content == "0 matches in 0 files for pattern 'nothing_like_this'"


def test_huge_result_is_capped(repo: GitRepo, ctx: ToolContext) -> None:
    repo.write("big.txt", "x\n" * 5000)
    content = call(ctx, "search_text", pattern="x").content
    assert content.startswith("more than 2000 matches")
    assert len(content) < 12_000


def test_python_fallback_gives_the_same_answer(ctx: ToolContext, monkeypatch: pytest.MonkeyPatch) -> None:
    expected = call(ctx, "search_text", pattern=r"process\(", glob="*.py").content

    def no_pcre(root: Path, scope: str, args: Any, timeout_s: float) -> Any:
        raise search._PcreUnavailable("fatal: cannot use Perl-compatible regexes (USE_LIBPCRE)")

    monkeypatch.setattr(search, "_git_grep", no_pcre)
    assert call(ctx, "search_text", pattern=r"process\(", glob="*.py").content == expected
    assert call(ctx, "search_text", pattern="process", path="docs").content.splitlines()[1] == "docs/guide.md"
