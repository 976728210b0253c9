"""The tool framework: typed tools, a registry, and an executor that never lets a tool stop the loop.

A tool declares a pydantic argument model; the JSON schema the model sees is generated from it. The
executor validates arguments, applies the tool's timeout, runs independent calls concurrently and turns
every failure (unknown tool, bad arguments, timeout, crash) into an error result the model can read.
"""

from __future__ import annotations

import asyncio
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar, Generic, TypeVar

from pydantic import BaseModel, ConfigDict, ValidationError

ArgsT = TypeVar("ArgsT", bound=BaseModel)

DEFAULT_MAX_OUTPUT_CHARS = 12_000


@dataclass
class ToolContext:
    """What a tool may see of the review it serves.

    `extras` carries front-end or agent specific objects (the change set, the subagent executor, the
    event sink) without this module depending on them. `allow_secret_files` lets the tools read files
    that look like credential stores (`.env`, keys...), which they refuse by default.
    """

    repo_root: Path
    agent_id: str = "main"
    depth: int = 0
    extras: dict[str, Any] = field(default_factory=dict)
    allow_secret_files: bool = False


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: dict[str, Any]


@dataclass(frozen=True)
class ToolResult:
    call_id: str
    name: str
    content: str
    is_error: bool = False
    duration_s: float = 0.0


@dataclass(frozen=True)
class ToolSpec:
    """What the model is shown of a tool."""

    name: str
    description: str
    input_schema: dict[str, Any]


UNPARSED_ARGUMENTS = "__prscope_unparsed_arguments__"
"""The key a model client puts a tool call's arguments under when they were not a JSON object (small
local models write broken JSON): the executor then tells the model so, rather than "missing field"."""


class ToolArgs(BaseModel):
    """A base for argument models: unknown arguments are an error the model reads, not silently dropped."""

    model_config = ConfigDict(extra="forbid")


class ToolError(Exception):
    """Raised by a tool for a failure the model should read (refused path, no such file...)."""


class Tool(ABC, Generic[ArgsT]):
    name: ClassVar[str]
    description: ClassVar[str]
    args_model: ClassVar[type[BaseModel]]
    timeout_s: ClassVar[float] = 30.0
    max_output_chars: ClassVar[int] = DEFAULT_MAX_OUTPUT_CHARS
    repeatable: ClassVar[bool] = False
    """Whether the same call may answer differently later (waiting on subagents). The repository is
    read-only during a review, so for every other tool an identical call is a loop, not a question."""

    @abstractmethod
    async def run(self, args: ArgsT, ctx: ToolContext) -> str:
        """Return the text the model gets; raise ToolError for a readable failure."""

    def spec(self) -> ToolSpec:
        schema = self.args_model.model_json_schema()
        schema.pop("title", None)
        return ToolSpec(self.name, self.description, schema)


class SyncTool(Tool[ArgsT]):
    """A tool whose work is blocking (files, git, parsing): it runs in a worker thread."""

    @abstractmethod
    def run_sync(self, args: ArgsT, ctx: ToolContext) -> str: ...

    async def run(self, args: ArgsT, ctx: ToolContext) -> str:
        return await asyncio.to_thread(self.run_sync, args, ctx)


def bound_output(text: str, limit: int, how_to_get_more: str) -> str:
    """Cut `text` on a line boundary so that it and the note saying how to get the rest fit in `limit`."""
    if len(text) <= limit:
        return text
    room = max(limit - len(how_to_get_more) - 60, limit // 2)  # 60: the note's own words and count
    cut = text.rfind("\n", 0, room)
    if cut <= 0:
        cut = room
    shown = text[:cut]
    hidden_lines = text.count("\n", cut) + 1
    return f"{shown}\n[output truncated: {hidden_lines} more lines not shown; {how_to_get_more}]"


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool[Any]] = ()) -> None:
        self._tools: dict[str, Tool[Any]] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool[Any]) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is already registered")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool[Any] | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def __contains__(self, name: object) -> bool:
        return name in self._tools

    def __len__(self) -> int:
        return len(self._tools)

    def subset(self, names: Iterable[str]) -> ToolRegistry:
        """A registry with only `names`; unknown names are an error, not silently skipped."""
        wanted = list(names)
        unknown = [n for n in wanted if n not in self._tools]
        if unknown:
            raise KeyError(f"unknown tools: {', '.join(unknown)}")
        return ToolRegistry(self._tools[n] for n in wanted)

    def without(self, names: Iterable[str]) -> ToolRegistry:
        dropped = set(names)
        return ToolRegistry(t for n, t in self._tools.items() if n not in dropped)

    def specs(self) -> list[ToolSpec]:
        return [tool.spec() for tool in self._tools.values()]


def _describe_validation_error(err: ValidationError) -> str:
    parts = []
    for problem in err.errors():
        where = ".".join(str(p) for p in problem["loc"]) or "(arguments)"
        parts.append(f"{where}: {problem['msg']}")
    return "; ".join(parts)


class ToolExecutor:
    """Runs tool calls for one agent; every outcome is a ToolResult, never an exception."""

    def __init__(self, registry: ToolRegistry, ctx: ToolContext) -> None:
        self.registry = registry
        self.ctx = ctx

    async def execute(self, call: ToolCall) -> ToolResult:
        started = time.monotonic()
        content, is_error = await self._run(call)
        return ToolResult(call.id, call.name, content, is_error, time.monotonic() - started)

    async def execute_all(self, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Run independent calls concurrently; results come back in the order of `calls`."""
        return list(await asyncio.gather(*(self.execute(call) for call in calls)))

    async def _run(self, call: ToolCall) -> tuple[str, bool]:
        tool = self.registry.get(call.name)
        if UNPARSED_ARGUMENTS in call.arguments:
            raw = str(call.arguments[UNPARSED_ARGUMENTS])
            snippet = raw if len(raw) <= 200 else raw[:199] + "…"
            return (
                f"Error: the arguments of {call.name} are not a JSON object: {snippet!r}. "
                "Call it again with one JSON object of its parameters.",
                True,
            )
        if tool is None:
            available = ", ".join(self.registry.names())
            return f"Error: unknown tool {call.name!r}. Available tools: {available}.", True
        try:
            args = tool.args_model.model_validate(call.arguments)
        except ValidationError as err:
            return f"Error: invalid arguments for {call.name}: {_describe_validation_error(err)}", True
        try:
            output = await asyncio.wait_for(tool.run(args, self.ctx), timeout=tool.timeout_s)
        except TimeoutError:
            return f"Error: {call.name} timed out after {tool.timeout_s:g} s; narrow the request.", True
        except ToolError as err:
            return f"Error: {err}", True
        except asyncio.CancelledError:
            raise
        except Exception as err:  # a tool bug must not end the conversation; the model reads it
            return f"Error: {call.name} failed: {type(err).__name__}: {err}", True
        return bound_output(output, tool.max_output_chars, "ask for a narrower range or query"), False
