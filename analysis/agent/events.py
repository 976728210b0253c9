"""Run events: the only thing front ends draw progress from.

Every event names the agent it belongs to. Sinks are synchronous and cheap, and must not raise (the
runner still guards against one that does: a broken progress display must not end a review).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal, TypeVar

from prscope.analysis.findings import Finding
from prscope.analysis.report import Usage

AgentState = Literal[
    "pending", "running", "background", "completed", "error", "interrupted", "cancelled", "timed_out"
]


@dataclass(frozen=True)
class AgentStatus:
    """An agent's lifecycle state; `detail` says why, for an end state. The token pair differs by who
    sends it: the runner (the main reviewer) reports all tokens its requests consumed against its token
    budget (None when unbounded); the SubagentManager reports a subagent's context in use against its
    model's context window (how close it is to being asked to wrap up)."""

    agent_id: str
    parent_id: str | None
    label: str
    depth: int
    status: AgentState
    tool_calls: int = 0
    tokens_used: int = 0
    tokens_max: int | None = None
    detail: str = ""
    at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class TurnStarted:
    agent_id: str
    iteration: int
    tools_offered: bool
    at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class TurnFinished:
    """`stop_reason` is the model's, or "error" / "cancelled" / "timed_out" for a turn that got no reply."""

    agent_id: str
    iteration: int
    stop_reason: str
    duration_s: float
    tool_calls_requested: int = 0
    at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class ToolCallStarted:
    """`arguments` is a short one-line rendering of the call's arguments, for progress displays."""

    agent_id: str
    call_id: str
    tool: str
    arguments: str = ""
    at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class ToolCallFinished:
    """`error` is the first line of the result when the call failed (what the model was told)."""

    agent_id: str
    call_id: str
    tool: str
    duration_s: float
    is_error: bool
    error: str = ""
    at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class UsageUpdated:
    """`usage` is the agent's running total; `context_used` the size of its conversation at the last
    response, against the model's `context_window`."""

    agent_id: str
    usage: Usage
    context_used: int
    context_window: int
    at: float = field(default_factory=time.time)


NoticeKind = Literal[
    "nudge", "context_note", "context_low", "elided", "continued", "wrap_up", "retrying", "repeated_call"
]


@dataclass(frozen=True)
class RunNotice:
    """Something the runner did on its own: a nudge, a context warning, elided tool results, a retry of a
    truncated answer, a wrap-up turn."""

    agent_id: str
    kind: NoticeKind
    message: str
    at: float = field(default_factory=time.time)


@dataclass(frozen=True)
class FindingsPublished:
    """Findings a front end may show before the review ends: the deterministic checks' as soon as they
    finish (phase "checks", configuration already applied), then each model finding once it is verified
    (phase "model"). The final report is still the whole truth; these only let an editor show results
    early, so a cancelled or superseded review can say exactly what it had shown."""

    phase: Literal["checks", "model"]
    findings: tuple[Finding, ...]
    at: float = field(default_factory=time.time)


AgentEvent = (
    AgentStatus
    | TurnStarted
    | TurnFinished
    | ToolCallStarted
    | ToolCallFinished
    | UsageUpdated
    | RunNotice
    | FindingsPublished
)
EventSink = Callable[[AgentEvent], None]


def discard_events(event: AgentEvent) -> None:
    """A sink for callers that want no progress."""


EventT = TypeVar("EventT")


class EventRecorder:
    """A sink that keeps every event (tests, transcripts)."""

    def __init__(self) -> None:
        self.events: list[AgentEvent] = []

    def __call__(self, event: AgentEvent) -> None:
        self.events.append(event)

    def of_type(self, kind: type[EventT]) -> list[EventT]:
        return [event for event in self.events if isinstance(event, kind)]
