"""The tool framework: validation, timeouts, concurrency and error results, on the real tool set."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

import pytest
from prscope.analysis.tools.base import (
    SyncTool,
    Tool,
    ToolArgs,
    ToolCall,
    ToolContext,
    ToolError,
    ToolExecutor,
    ToolRegistry,
    bound_output,
)
from prscope.analysis.tools.registry import child_context, default_registry, make_tool_context
from pydantic import Field

from tests.gitrepo import GitRepo


class SleepArgs(ToolArgs):
    seconds: float = Field(description="How long to sleep.")


class SleepTool(SyncTool[SleepArgs]):
    """Blocking work in a worker thread, as the file and git tools do; records when each call ran."""

    name = "sleep"
    description = "Sleep."
    args_model = SleepArgs
    timeout_s = 0.5

    def __init__(self) -> None:
        self.intervals: list[tuple[float, float]] = []

    def run_sync(self, args: SleepArgs, ctx: ToolContext) -> str:
        started = time.monotonic()
        time.sleep(args.seconds)
        self.intervals.append((started, time.monotonic()))
        return f"slept {args.seconds}"


class CrashTool(Tool[SleepArgs]):
    name = "crash"
    description = "Always fails with a bug."
    args_model = SleepArgs

    async def run(self, args: SleepArgs, ctx: ToolContext) -> str:
        raise KeyError("boom")


class RefuseTool(Tool[SleepArgs]):
    name = "refuse"
    description = "Always refuses."
    args_model = SleepArgs

    async def run(self, args: SleepArgs, ctx: ToolContext) -> str:
        raise ToolError("refused: for the test")


@pytest.fixture
def sleep_tool() -> SleepTool:
    return SleepTool()


@pytest.fixture
def executor(tmp_path: Path, sleep_tool: SleepTool) -> ToolExecutor:
    return ToolExecutor(ToolRegistry([sleep_tool, CrashTool(), RefuseTool()]), ToolContext(tmp_path))


async def test_four_slow_calls_run_concurrently(executor: ToolExecutor, sleep_tool: SleepTool) -> None:
    calls = [ToolCall(f"c{i}", "sleep", {"seconds": 0.3}) for i in range(4)]
    results = await executor.execute_all(calls)
    assert [r.content for r in results] == ["slept 0.3"] * 4
    assert [r.call_id for r in results] == ["c0", "c1", "c2", "c3"]
    # Overlap, not wall time (a loaded machine stretches both): every call began before any had ended.
    latest_start = max(start for start, _ in sleep_tool.intervals)
    earliest_end = min(end for _, end in sleep_tool.intervals)
    assert latest_start < earliest_end, "the four calls ran one after another"


async def test_timeout_is_an_error_result(executor: ToolExecutor) -> None:
    started = time.monotonic()
    result = await executor.execute(ToolCall("t", "sleep", {"seconds": 1.0}))
    assert time.monotonic() - started < 0.9
    assert result.is_error
    assert "timed out after 0.5 s" in result.content


async def test_unknown_tool_lists_available_tools(executor: ToolExecutor) -> None:
    result = await executor.execute(ToolCall("u", "rm_rf", {}))
    assert result.is_error
    assert "unknown tool 'rm_rf'" in result.content
    assert "sleep" in result.content


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({}, "seconds: Field required"),
        ({"seconds": "soon"}, "seconds: Input should be a valid number"),
        ({"seconds": 0, "verbose": True}, "verbose: Extra inputs are not permitted"),
    ],
)
async def test_bad_arguments_are_error_results(
    executor: ToolExecutor, arguments: dict[str, Any], expected: str
) -> None:
    result = await executor.execute(ToolCall("b", "sleep", arguments))
    assert result.is_error
    assert expected in result.content


async def test_tool_bug_and_refusal_are_error_results(executor: ToolExecutor) -> None:
    crash, refuse = await executor.execute_all(
        [ToolCall("1", "crash", {"seconds": 0}), ToolCall("2", "refuse", {"seconds": 0})]
    )
    assert crash.is_error and "crash failed: KeyError" in crash.content
    assert refuse.is_error and refuse.content == "Error: refused: for the test"


def test_every_tool_has_a_schema_with_described_fields() -> None:
    registry = default_registry()
    assert sorted(registry.names()) == sorted(
        [
            "find_symbol",
            "find_usages",
            "read_file",
            "list_directory",
            "find_files",
            "search_text",
            "list_changed_files",
            "get_file_diff",
            "get_signature",
            "git_history",
        ]
    )
    for spec in registry.specs():
        assert spec.description, spec.name
        schema = spec.input_schema
        assert schema["type"] == "object"
        assert schema.get("additionalProperties") is False, spec.name
        for field_name, field_schema in schema["properties"].items():
            assert field_schema.get("description"), f"{spec.name}.{field_name} has no description"


def test_schemas_are_valid_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    for spec in default_registry().specs():
        jsonschema.Draft202012Validator.check_schema(spec.input_schema)


def test_bound_output_says_how_to_get_more() -> None:
    text = "\n".join(f"line {i}" for i in range(1000))
    bounded = bound_output(text, 200, "ask for lines 30 on")
    assert 150 < len(bounded) <= 200  # the note fits inside the limit, not on top of it
    assert bounded.endswith("more lines not shown; ask for lines 30 on]")
    assert bound_output("short", 200, "x") == "short"


async def test_real_tools_run_concurrently_through_the_executor(git_repo: GitRepo) -> None:
    for i in range(5):
        git_repo.write(f"pkg/m{i}.py", f"def f{i}():\n    return {i}\n")
    git_repo.commit("init")
    ctx = make_tool_context(git_repo.root)
    executor = ToolExecutor(default_registry(), ctx)
    calls = [ToolCall(str(i), "read_file", {"path": f"pkg/m{i}.py"}) for i in range(5)]
    calls.append(ToolCall("s", "search_text", {"pattern": r"return \d"}))
    results = await executor.execute_all(calls)
    assert not any(r.is_error for r in results)
    assert "2| " + "    return 3" in results[3].content
    assert "5 matches in 5 files" in results[5].content


def test_make_tool_context_finds_the_top_level_and_child_shares_it(git_repo: GitRepo) -> None:
    git_repo.write("a/b/c.txt", "x\n")
    git_repo.commit()
    ctx = make_tool_context(git_repo.root / "a" / "b", allow_secret_files=True)
    assert ctx.repo_root == git_repo.root.resolve()
    child = child_context(ctx, agent_id="sub1", depth=1)
    assert child.repo_root == ctx.repo_root and child.allow_secret_files
    assert child.extras["sandbox"] is ctx.extras["sandbox"]


def test_make_tool_context_outside_a_repository(tmp_path: Path) -> None:
    from prscope.analysis.errors import RepositoryError

    with pytest.raises(RepositoryError, match="not inside a git work tree"):
        make_tool_context(tmp_path)


def test_timeout_does_not_block_the_event_loop(executor: ToolExecutor) -> None:
    async def both() -> tuple[float, str]:
        started = time.monotonic()
        slow = asyncio.create_task(executor.execute(ToolCall("s", "sleep", {"seconds": 0.3})))
        await asyncio.sleep(0.05)
        ticked = time.monotonic() - started
        return ticked, (await slow).content

    ticked, content = asyncio.run(both())
    assert ticked < 0.2 and content == "slept 0.3"


async def test_a_subset_registry_offers_and_runs_only_its_tools(tmp_path: Path) -> None:
    full = default_registry()
    subset = full.subset(["read_file", "find_usages"])
    assert subset.names() == ["read_file", "find_usages"]
    assert [spec.name for spec in subset.specs()] == ["read_file", "find_usages"]
    assert full.without(["git_history"]).names() == [n for n in full.names() if n != "git_history"]
    with pytest.raises(KeyError, match="unknown tools: rm_rf"):
        full.subset(["read_file", "rm_rf"])
    result = await ToolExecutor(subset, ToolContext(tmp_path)).execute(ToolCall("x", "search_text", {}))
    assert result.is_error
    assert result.content == "Error: unknown tool 'search_text'. Available tools: read_file, find_usages."
