"""Run progress on stderr: a live display on a terminal, plain log lines otherwise (CI logs).

Fed by the review's stage messages and the agents' run events. Plain mode stays quiet for the fast
deterministic stages (an offline review's stderr is its one status line) and logs the model review,
which takes minutes: each agent's start and end, with its tool calls and tokens.

Tokens are shown in one unit for every agent: the context it uses against its model's window. The
review's token budget (what all agents together may consume) is shown once, beside the stage.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from types import TracebackType
from typing import TextIO

from prscope.analysis.agent.events import (
    AgentEvent,
    AgentStatus,
    RunNotice,
    ToolCallFinished,
    ToolCallStarted,
    UsageUpdated,
)
from rich.console import Console, Group, RenderableType
from rich.live import Live
from rich.spinner import Spinner
from rich.table import Table
from rich.text import Text

_MAX_DETAIL = 160
_END_STATES = {"completed", "error", "interrupted", "cancelled", "timed_out"}


@dataclass
class _Agent:
    agent_id: str
    parent_id: str | None
    label: str
    depth: int
    status: str
    tool_calls: int = 0
    context: int = 0
    """Tokens of the agent's conversation at its last response."""
    window: int | None = None
    """Its model's context window."""
    spent: int = 0
    """Every token its requests consumed, counted against the review's budget."""
    last_tool: str = ""

    def tokens_text(self) -> str:
        window = f"/{_tokens(self.window)}" if self.window else ""
        return f"{_tokens(self.context)}{window} tokens"


def _tokens(count: int) -> str:
    return f"{count / 1000:.1f}k" if count >= 1000 else str(count)


class ProgressDisplay:
    """Use as a context manager around the review; `stage` and `on_event` are cheap and never raise."""

    def __init__(self, stream: TextIO, *, live: bool, enabled: bool = True, console: Console | None = None):
        self.stream = stream
        self.enabled = enabled
        self.live_mode = live and enabled
        self.stage_text = "starting"
        self.agents: dict[str, _Agent] = {}
        self.started = time.monotonic()
        self._model_stage_seen = False
        self.budget: int | None = None
        self._console = console or Console(file=stream, stderr=True, highlight=False, markup=False)
        self._live: Live | None = None
        # One spinner for the whole run: a new one per frame would restart its animation every time.
        self._spinner = Spinner("dots", text=Text(self.stage_text))

    def __enter__(self) -> ProgressDisplay:
        if self.live_mode:
            self._live = Live(
                console=self._console, get_renderable=self._render, refresh_per_second=8, transient=True
            )
            self._live.start()
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None
    ) -> None:
        if self._live is not None:
            self._live.stop()
            self._live = None

    def stage(self, message: str) -> None:
        self.stage_text = message
        if message.startswith("model review"):
            self._model_stage_seen = True
            self._log(message)

    def on_event(self, event: AgentEvent) -> None:
        try:
            self._apply(event)
        except Exception:  # a progress display must never end a review
            return

    def _apply(self, event: AgentEvent) -> None:
        if isinstance(event, AgentStatus):
            agent = self.agents.get(event.agent_id)
            changed = agent is None or agent.status != event.status
            if agent is None:
                agent = _Agent(event.agent_id, event.parent_id, event.label, event.depth, event.status)
                self.agents[event.agent_id] = agent
            agent.status = event.status
            agent.tool_calls = max(agent.tool_calls, event.tool_calls)
            self._take_tokens(agent, event)
            if changed:
                self._log_agent(agent, event.detail)
        elif isinstance(event, ToolCallStarted):
            agent = self.agents.get(event.agent_id)
            if agent is not None:
                agent.last_tool = event.tool
        elif isinstance(event, RunNotice) and event.kind == "retrying":
            agent = self.agents.get(event.agent_id)
            if agent is not None:
                agent.last_tool = event.message
                who = "reviewer" if agent.parent_id is None else f"subagent {agent.agent_id}"
                self._log(f"{who} ({agent.label}): {event.message}")
        elif isinstance(event, ToolCallFinished):
            agent = self.agents.get(event.agent_id)
            if agent is not None:
                agent.tool_calls += 1  # live: the agent's own status event only comes at its end
        elif isinstance(event, UsageUpdated):
            agent = self.agents.get(event.agent_id)
            if agent is not None:
                agent.context, agent.window = event.context_used, event.context_window
                agent.spent = max(agent.spent, event.usage.total_tokens)

    def _take_tokens(self, agent: _Agent, event: AgentStatus) -> None:
        # The main reviewer's status carries what it consumed against the review's budget; a subagent's
        # carries its context against its window (see AgentStatus).
        if event.parent_id is not None:
            agent.context = max(agent.context, event.tokens_used)
            agent.window = event.tokens_max or agent.window
            return
        agent.spent = max(agent.spent, event.tokens_used)
        if event.tokens_max and self.budget is None:
            self.budget = event.tokens_max
            self._log(f"token budget of the model review: {_tokens(self.budget)} tokens")

    def _log_agent(self, agent: _Agent, detail: str) -> None:
        if agent.status == "pending":
            return  # "running" follows at once; one line per agent start is enough for a CI log
        who = "reviewer" if agent.parent_id is None else f"subagent {agent.agent_id}"
        line = f"{who} ({agent.label}): {agent.status}"
        if agent.status in _END_STATES:
            line += f" after {agent.tool_calls} tool call(s), {agent.tokens_text()}"
        detail = " ".join(detail.split())
        if detail and agent.status not in ("running", "completed") and detail != agent.status:
            line += f" — {detail[:_MAX_DETAIL]}" + ("…" if len(detail) > _MAX_DETAIL else "")
        self._log(line)

    def _log(self, line: str) -> None:
        if not self.enabled or self.live_mode:
            return
        elapsed = time.monotonic() - self.started
        try:
            self.stream.write(f"prscope: [{elapsed:6.1f}s] {line}\n")
            self.stream.flush()
        except (OSError, ValueError):
            self.enabled = False

    def _render(self) -> RenderableType:
        elapsed = time.monotonic() - self.started
        spinner = self._spinner
        budget = ""
        if self.budget is not None:
            spent = sum(agent.spent for agent in self.agents.values())
            budget = f"  {_tokens(spent)}/{_tokens(self.budget)} tokens of the budget"
        spinner.update(text=Text(f"{self.stage_text}  ({elapsed:.0f}s){budget}"))
        if not self.agents:
            return spinner
        table = Table.grid(padding=(0, 2))
        for agent in self.agents.values():
            indent = "  " * agent.depth
            table.add_row(
                Text(f"{indent}{agent.label}"),
                Text(agent.status, style=_status_style(agent.status)),
                Text(f"{agent.tool_calls} tools"),
                Text(agent.tokens_text()),
                Text(agent.last_tool, style="dim"),
            )
        return Group(spinner, table)


def _status_style(status: str) -> str:
    if status in ("error", "timed_out", "cancelled", "interrupted"):
        return "red"
    if status == "completed":
        return "green"
    return "yellow"
