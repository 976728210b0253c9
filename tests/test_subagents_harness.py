"""Shared harness of the subagent tests: a root conversation with subagents, through the real `anthropic`
SDK against the loopback fake API, on a real git repository. Scripts are routed by request content so that
concurrent subagents each get their own turns."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from prscope.analysis.agent.events import AgentEvent, AgentStatus, EventRecorder
from prscope.analysis.agent.runner import Conversation, ConversationRunner, RunConfig, RunOutcome
from prscope.analysis.agent.subagents import EXTRAS_KEY, SubagentLimits, SubagentManager, subagent_tools
from prscope.analysis.models.anthropic_client import AnthropicClient
from prscope.analysis.models.base import ModelClient
from prscope.analysis.models.openai_client import OpenAICompatibleClient
from prscope.analysis.tools.base import ToolRegistry
from prscope.analysis.tools.registry import all_tools, make_tool_context

from tests.fakeapi import FakeModelServer, FakeTurn, Fault, RecordedRequest, text_turn, tool_turn
from tests.gitrepo import GitRepo

SUBAGENT_MARK = "You are a focused investigator"
MAIN_SYSTEM = "You are the main reviewer of this test. Delegate with run_subagent when told."
MAIN_KEY = "main"

Step = FakeTurn | Fault | Callable[[RecordedRequest], "FakeTurn | Fault"]


def is_subagent(request: RecordedRequest) -> bool:
    return SUBAGENT_MARK in request.system_text


def assistant_turns(request: RecordedRequest) -> int:
    return sum(1 for message in request.messages if message.get("role") == "assistant")


def task(key: str, words: str = "find every caller of load_config and check its arguments") -> str:
    """A valid task (>= 30 chars) carrying a routing key the harness recognises."""
    return f"[[{key}]] {words}; return path:line for each."


def reply(summary: str, answer: str = "", findings: Sequence[dict[str, Any]] = ()) -> str:
    lines = "\n".join(json.dumps(f) for f in findings)
    return f"<findings>\n{lines}\n</findings>\n<summary>{summary}</summary>\n<answer>{answer}</answer>"


@dataclass
class Router:
    """Answers each request with the turn of its agent's script that matches how far its conversation is.

    Keys: "main" for the root conversation; for a subagent, the `[[key]]` in its first user message. A
    script step is a FakeTurn, a Fault, or a function of the request; past the end, the last step repeats.
    """

    scripts: dict[str, list[Step]]
    seen: dict[str, list[RecordedRequest]] = field(default_factory=dict)
    arrivals: list[tuple[str, int, float]] = field(default_factory=list)
    """(key, turn index, monotonic time) of every request, in arrival order."""

    def key_of(self, request: RecordedRequest) -> str:
        if not is_subagent(request):
            return MAIN_KEY
        first = request.first_user_text
        for key in self.scripts:
            if f"[[{key}]]" in first:
                return key
        raise AssertionError(f"no script for subagent request: {first[:200]!r}")

    def __call__(self, request: RecordedRequest) -> FakeTurn | Fault:
        key = self.key_of(request)
        self.seen.setdefault(key, []).append(request)
        turn = assistant_turns(request)
        self.arrivals.append((key, turn, time.monotonic()))
        script = self.scripts[key]
        step = script[min(turn, len(script) - 1)]
        return step(request) if callable(step) else step

    def requests_of(self, key: str) -> list[RecordedRequest]:
        return list(self.seen.get(key, []))


def client_for(
    server: FakeModelServer,
    *,
    context_window: int = 200_000,
    model: str = "claude-test",
    api: str = "anthropic",
) -> ModelClient:
    if api == "openai":
        return OpenAICompatibleClient(
            model=model,
            api_key="sk-openai-test-key-000",
            base_url=server.openai_base_url,
            max_retries=0,
            context_window=context_window,
        )
    return AnthropicClient(
        api_key="sk-ant-test-key-000",
        model=model,
        base_url=server.base_url,
        max_retries=0,
        context_window=context_window,
    )


async def close_client(client: object) -> None:
    close = getattr(client, "close", None)
    if close is not None:
        await close()


def sample_repo(root: Path) -> GitRepo:
    repo = GitRepo(root)
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/config.py", "def load_config(path, strict=False):\n    return {'path': path}\n")
    repo.write("pkg/app.py", "from pkg.config import load_config\n\nCONFIG = load_config('app.toml')\n")
    repo.commit("initial")
    return repo


@dataclass
class ParentRun:
    outcome: RunOutcome | None
    manager: SubagentManager
    events: EventRecorder
    elapsed_s: float

    def statuses(self, agent_id: str) -> list[str]:
        """The agent's state transitions (refreshes of the same state with new counters left out)."""
        states: list[str] = []
        for event in self.status_events(agent_id):
            if not states or states[-1] != event.status:
                states.append(event.status)
        return states

    def status_events(self, agent_id: str) -> list[AgentStatus]:
        return [e for e in self.events.events if isinstance(e, AgentStatus) and e.agent_id == agent_id]


async def run_parent(
    server: FakeModelServer,
    repo_root: Path,
    *,
    limits: SubagentLimits | None = None,
    cancel: asyncio.Event | None = None,
    context_window: int = 200_000,
    subagent_client: ModelClient | None = None,
    api: str = "anthropic",
    extra_sink: Callable[[AgentEvent], None] | None = None,
    user_text: str = "Review the change (test main conversation).",
) -> ParentRun:
    """The root conversation with the real tools plus the subagent tools, as run_agent_review sets it up."""
    recorder = EventRecorder()

    def sink(event: AgentEvent) -> None:
        recorder(event)
        if extra_sink is not None:
            extra_sink(event)

    cancel = cancel or asyncio.Event()
    client = client_for(server, context_window=context_window, api=api)
    manager = SubagentManager(limits=limits, events=sink, cancel=cancel, subagent_client=subagent_client)
    context = make_tool_context(repo_root)
    context.extras[EXTRAS_KEY] = manager
    tools = manager.tools_for_depth(ToolRegistry([*all_tools(), *subagent_tools()]), 0)
    manager.register_root(agent_id="main", label="review", client=client, tools=tools, tool_context=context)
    config = RunConfig(
        system_prompt=MAIN_SYSTEM,
        tools=tools,
        tool_context=context,
        before_finish=manager.before_finish_hook("main"),
    )
    loop = asyncio.get_running_loop()
    started = loop.time()
    outcome: RunOutcome | None = None
    try:
        outcome = await ConversationRunner(client).run(
            config, Conversation.start(user_text), manager.sink, cancel
        )
    finally:
        await manager.shutdown()
        await close_client(client)
        await close_client(subagent_client)
    return ParentRun(outcome, manager, recorder, loop.time() - started)


__all__ = [
    "MAIN_KEY",
    "FakeModelServer",
    "FakeTurn",
    "Fault",
    "ParentRun",
    "Router",
    "Step",
    "client_for",
    "close_client",
    "reply",
    "run_parent",
    "sample_repo",
    "task",
    "text_turn",
    "tool_turn",
]
