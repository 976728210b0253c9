"""Every tool bounds its output on a large repository and says how to get the rest."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from prscope.analysis.changeset import DiffSpec, load_changeset
from prscope.analysis.tools.base import (
    DEFAULT_MAX_OUTPUT_CHARS,
    ToolCall,
    ToolContext,
    ToolExecutor,
    ToolResult,
)
from prscope.analysis.tools.registry import default_registry, make_tool_context

from tests.gitrepo import GitRepo

MODULES = 1000
BIG_LINES = 6000


@pytest.fixture(scope="module")
def big_ctx(tmp_path_factory: pytest.TempPathFactory) -> ToolContext:
    repo = GitRepo(tmp_path_factory.mktemp("big") / "repo")
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/core.py", 'def target(value: int) -> int:\n    """Doubles."""\n    return value * 2\n')
    repo.commit("base")
    repo.checkout("-b", "feature")
    for n in range(MODULES):
        repo.write(
            f"pkg/m{n:04}.py",
            "from pkg.core import target\n\n\ndef run():\n    return target(1) + target(2)\n",
        )
    repo.write(
        "pkg/big.py", "".join(f"VALUE_{n} = target_like_{n}  # filler text\n" for n in range(BIG_LINES))
    )
    repo.commit("feature")
    ctx = make_tool_context(repo.root)
    ctx.extras["changeset"] = load_changeset(repo.root, DiffSpec(base="main"), env={})
    return ctx


def call(ctx: ToolContext, tool: str, /, **arguments: Any) -> ToolResult:
    return asyncio.run(ToolExecutor(default_registry(), ctx).execute(ToolCall("t", tool, arguments)))


@pytest.mark.parametrize(
    ("tool", "arguments", "how_to_continue"),
    [
        ("read_file", {"path": "pkg/big.py"}, "call read_file with start_line="),
        ("list_directory", {"path": "pkg", "max_entries": 1000}, "call list_directory with offset="),
        ("find_files", {"pattern": "*.py", "max_results": 2000}, "call find_files with offset="),
        ("search_text", {"pattern": "target", "max_results": 500}, "call search_text with offset="),
        ("find_symbol", {"name": "run", "max_results": 200}, "call find_symbol with offset="),
        ("find_usages", {"symbol": "pkg.core.target", "max_results": 2000}, "call find_usages with offset="),
        ("get_signature", {"name": "run"}, "find_symbol lists them all"),
        ("list_changed_files", {"max_results": 2000}, "call list_changed_files with offset="),
        ("get_file_diff", {"path": "pkg/big.py"}, "read_file pkg/big.py with start_line="),
        ("git_history", {"path": "pkg/big.py", "start_line": 1, "end_line": BIG_LINES}, "narrower"),
        ("git_history", {"path": "pkg/big.py", "mode": "blame"}, "call again with start_line="),
    ],
)
def test_output_is_bounded_and_says_how_to_get_the_rest(
    big_ctx: ToolContext, tool: str, arguments: dict[str, Any], how_to_continue: str
) -> None:
    result = call(big_ctx, tool, **arguments)
    assert not result.is_error, result.content[:300]
    assert len(result.content) <= DEFAULT_MAX_OUTPUT_CHARS
    assert how_to_continue in result.content.splitlines()[-1], result.content[-400:]


def test_a_page_that_starts_inside_a_file_repeats_its_heading(big_ctx: ToolContext) -> None:
    first = call(big_ctx, "find_usages", symbol="pkg.core.target", max_results=3).content.splitlines()
    assert first[1:5] == [
        "pkg/m0000.py  (3)",
        "  1:22 import  from pkg.core import target",
        "  5:12 call  return target(1) + target(2)",
        "  5:24 call  return target(1) + target(2)",
    ]
    assert first[-1].startswith("[showing references 1-3 of 3000; call find_usages with offset=3")
    second = call(big_ctx, "find_usages", symbol="pkg.core.target", offset=2, max_results=2).content
    assert second.splitlines()[1:4] == [
        "pkg/m0000.py  (3)",
        "  5:24 call  return target(1) + target(2)",
        "pkg/m0001.py  (3)",
    ]
