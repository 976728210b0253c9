"""Engine events -> `prscope/runEvent` notifications and progress messages.

The translator keeps the last known state of each agent so that every notification is whole (label,
parent, tokens), even when the event that caused it (a tool call) carries only the agent's id.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Literal

from prscope.analysis.agent.events import (
    AgentEvent,
    AgentState,
    AgentStatus,
    FindingsPublished,
    RunNotice,
    ToolCallFinished,
    ToolCallStarted,
    UsageUpdated,
)

RUN_EVENT = "prscope/runEvent"
ROOT_AGENT = "review"
RunOutcome = Literal["completed", "error", "cancelled"]


@dataclass(frozen=True)
class RunEvent:
    """The body of a `prscope/runEvent` notification (DESIGN.md), plus depth, tool calls and detail."""

    run_id: str
    agent_id: str
    parent_id: str | None
    label: str
    status: AgentState
    tool: str | None = None
    tokens_used: int = 0
    tokens_max: int | None = None
    depth: int = 0
    tool_calls: int = 0
    detail: str = ""
    running_tools: tuple[str, ...] = ()
    """The agent's tool calls in flight, one name per call in the order they started (parallel calls of
    one tool, two `run_subagent` at once, are two entries); `tool` is the newest of them."""
    work_done_token: int | str | None = None
    """On the run's own events (the root): the work-done token of the request that started the run, so
    that a client can tell which of its requests the run serves."""

    def to_json(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "agent_id": self.agent_id,
            "parent_id": self.parent_id,
            "label": self.label,
            "status": self.status,
            "tool": self.tool,
            "tokens_used": self.tokens_used,
            "tokens_max": self.tokens_max,
            "depth": self.depth,
            "tool_calls": self.tool_calls,
            "detail": self.detail,
            "running_tools": list(self.running_tools),
            "work_done_token": self.work_done_token,
        }


@dataclass
class RunEventTranslator:
    """Turns one run's engine events into run events; `root` is the whole review, parent of nothing."""

    run_id: str
    label: str
    agents: dict[str, RunEvent] = field(default_factory=dict)
    work_done_token: int | str | None = None
    running: dict[str, dict[str, str]] = field(default_factory=dict)
    """Agent id -> its tool calls in flight, call id -> tool name, in the order they started."""

    def start(self) -> RunEvent:
        return self._remember(self._root())

    def finish(self, status: RunOutcome, detail: str = "") -> RunEvent:
        root = self.agents.get(ROOT_AGENT) or self._root()
        return self._remember(replace(root, status=status, tool=None, detail=detail))

    def _root(self) -> RunEvent:
        return RunEvent(
            self.run_id, ROOT_AGENT, None, self.label, "running", work_done_token=self.work_done_token
        )

    def translate(self, event: AgentEvent) -> RunEvent | None:
        """The run event for `event`, or None when it changes nothing a client shows."""
        if isinstance(event, AgentStatus):
            known = self.agents.get(event.agent_id)
            used, window = _context(event, known)
            active = event.status in ("running", "background")
            if not active:
                self.running.pop(event.agent_id, None)
            calls = tuple(self.running.get(event.agent_id, {}).values())
            return self._remember(
                RunEvent(
                    self.run_id,
                    event.agent_id,
                    event.parent_id,
                    event.label,
                    event.status,
                    tool=known.tool if known and event.status == "running" else None,
                    tokens_used=used,
                    tokens_max=window,
                    depth=event.depth,
                    tool_calls=event.tool_calls,
                    detail=event.detail,
                    running_tools=calls,
                )
            )
        if isinstance(event, FindingsPublished):
            return None
        known = self.agents.get(event.agent_id)
        if known is None:
            return None
        if isinstance(event, ToolCallStarted):
            started = self.running.setdefault(event.agent_id, {})
            started[event.call_id] = event.tool
            status: AgentState = "background" if known.status == "background" else "running"
            return self._remember(
                replace(known, tool=event.tool, status=status, running_tools=tuple(started.values()))
            )
        if isinstance(event, ToolCallFinished):
            in_flight = self.running.get(event.agent_id, {})
            in_flight.pop(event.call_id, None)
            left = tuple(in_flight.values())
            return self._remember(
                replace(
                    known,
                    tool=left[-1] if left else None,
                    tool_calls=known.tool_calls + 1,
                    running_tools=left,
                )
            )
        if isinstance(event, UsageUpdated):
            return self._remember(
                replace(known, tokens_used=event.context_used, tokens_max=event.context_window)
            )
        return None

    def _remember(self, event: RunEvent) -> RunEvent:
        self.agents[event.agent_id] = event
        return event


def _context(event: AgentStatus, known: RunEvent | None) -> tuple[int, int | None]:
    """Every agent's tokens in one unit, as the CLI shows them: its context against its model's window.
    A subagent's status carries that pair; the reviewer's carries its spending against the review's
    budget, so the reviewer keeps the pair its usage events gave (see AgentStatus)."""
    if event.parent_id is not None:
        return event.tokens_used, event.tokens_max
    if known is not None:
        return known.tokens_used, known.tokens_max
    return 0, None


def progress_message(event: AgentEvent) -> str | None:
    """A short line for the progress display, or None for events too small to show."""
    if isinstance(event, ToolCallStarted):
        arguments = f" {event.arguments}" if event.arguments else ""
        return _shorten(f"{event.agent_id}: {event.tool}{arguments}")
    if isinstance(event, AgentStatus):
        return _shorten(f"{event.label}: {event.status.replace('_', ' ')}")
    if isinstance(event, RunNotice) and event.kind in ("context_low", "wrap_up", "retrying"):
        return _shorten(f"{event.agent_id}: {event.message}")
    return None


def _shorten(text: str, limit: int = 120) -> str:
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= limit else first[: limit - 1] + "…"


def run_tree(translator: RunEventTranslator) -> list[dict[str, Any]]:
    """The run tree as the run events last described it, in the report's `agents` shape (the whole
    review, the main reviewer, subagents)."""
    return [
        {
            "id": event.agent_id,
            "parent_id": event.parent_id,
            "label": event.label,
            "status": event.status,
            "tool_calls": event.tool_calls,
            "tokens": event.tokens_used,
        }
        for event in translator.agents.values()
    ]


def render_tree(agents: list[dict[str, Any]]) -> str:
    """The run tree as indented text, children under their parent, for clients that show plain text."""
    children: dict[str | None, list[dict[str, Any]]] = {}
    ids = {agent["id"] for agent in agents}
    for agent in agents:
        parent = agent.get("parent_id") if agent.get("parent_id") in ids else None
        children.setdefault(parent, []).append(agent)
    lines: list[str] = []

    def walk(parent: str | None, depth: int) -> None:
        for agent in children.get(parent, []):
            tokens = f", {agent.get('tokens', 0)} tokens" if agent.get("tokens") else ""
            calls = agent.get("tool_calls", 0)
            lines.append(
                f"{'  ' * depth}{agent['label']} [{agent['status']}] {calls} tool call"
                f"{'s' if calls != 1 else ''}{tokens}"
            )
            walk(agent["id"], depth + 1)

    walk(None, 0)
    return "\n".join(lines)
