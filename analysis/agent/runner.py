"""The one tool-calling loop: every conversation (main review, subagents, verification) runs through here.

A run sends the conversation to the model, executes the tool calls of each assistant turn concurrently,
feeds the results back in order, and stops when the model answers. Around that it enforces the limits
(iterations, tool calls, token budget, wall time) by giving the model one last turn without tools, keeps
the conversation inside the model's context window, nudges for a missing answer block, and stops at once
on cancellation, leaving no request or task behind.
"""

from __future__ import annotations

import asyncio
import html
import json
import logging
import re
import time
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal, TypeVar

from prscope.analysis.agent.context import ContextMonitor, estimate_tokens
from prscope.analysis.agent.events import (
    AgentEvent,
    AgentState,
    AgentStatus,
    EventSink,
    NoticeKind,
    RunNotice,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from prscope.analysis.models.attempts import listening
from prscope.analysis.models.base import (
    ContentBlock,
    Message,
    ModelClient,
    ModelError,
    ModelRequest,
    ModelResponse,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    message_from_dict,
    message_to_dict,
)
from prscope.analysis.report import Usage
from prscope.analysis.tools.base import ToolCall, ToolContext, ToolExecutor, ToolRegistry, ToolResult
from prscope.prompts import load as load_prompt

log = logging.getLogger(__name__)

RunStatus = Literal["completed", "max_iterations", "budget_exhausted", "cancelled", "error", "timed_out"]
FinalReason = Literal["max_iterations", "budget_exhausted", "timed_out"]

T = TypeVar("T")

_OVERFLOW = re.compile(
    r"prompt is too long|context length|context window|maximum context|too many tokens|input is too long",
    re.I,
)

END_STATE: dict[RunStatus, AgentState] = {
    "completed": "completed",
    "max_iterations": "completed",
    "budget_exhausted": "completed",
    "cancelled": "cancelled",
    "error": "error",
    "timed_out": "timed_out",
}
"""The lifecycle state an agent ends in for each run status (the limits still end with an answer)."""


@dataclass
class RunConfig:
    system_prompt: str
    tools: ToolRegistry
    tool_context: ToolContext
    agent_id: str = "main"
    parent_id: str | None = None
    label: str = "review"
    depth: int = 0
    max_iterations: int = 20
    max_tool_calls: int = 40
    token_budget: int | None = None
    tokens_elsewhere: Callable[[], int] | None = None
    """Tokens the rest of the review has spent (subagents), counted against `token_budget` together with
    this conversation's own; None: the budget is this conversation's alone."""
    max_output_tokens: int = 4096
    expected_block: str | None = None
    max_nudges: int = 2
    deadline_s: float | None = None
    before_finish: Callable[[], Awaitable[str | None]] | None = None
    max_continuations: int = 2
    """How often an answer cut off by max_tokens is asked to continue before it is returned truncated."""
    wrap_up_s: float = 60.0
    """Time the model gets for its wrap-up turn once `deadline_s` has passed."""
    block_present: Callable[[str], bool] | None = None
    """Overrides how `expected_block` is detected (default: an opening and a closing tag)."""
    initial_status: AgentState = "running"
    context_note_ratio: float = 0.5
    context_low_ratio: float = 0.75

    def __post_init__(self) -> None:
        for name in ("max_iterations", "max_output_tokens"):
            if getattr(self, name) < 1:
                raise ValueError(f"RunConfig.{name} must be at least 1, got {getattr(self, name)}")
        for name in ("max_tool_calls", "max_nudges", "max_continuations"):
            if getattr(self, name) < 0:
                raise ValueError(f"RunConfig.{name} must not be negative, got {getattr(self, name)}")
        if self.deadline_s is not None and self.deadline_s <= 0:
            raise ValueError(f"RunConfig.deadline_s must be positive, got {self.deadline_s}")


@dataclass
class Conversation:
    messages: list[Message] = field(default_factory=list)

    @classmethod
    def start(cls, user_text: str) -> Conversation:
        return cls([Message.user(user_text)])

    def to_dicts(self) -> list[dict[str, Any]]:
        return [message_to_dict(message) for message in self.messages]

    @classmethod
    def from_dicts(cls, data: Sequence[dict[str, Any]]) -> Conversation:
        return cls([message_from_dict(item) for item in data])

    def last_assistant_text(self) -> str:
        for message in reversed(self.messages):
            if message.role == "assistant" and message.text.strip():
                return message.text
        return ""


@dataclass
class RunOutcome:
    text: str
    status: RunStatus
    tool_calls: int
    usage: Usage
    iterations: int
    missing_block: bool
    error: str | None
    conversation: Conversation
    truncated: bool = False
    """The answer was cut off by the output limit even after asking the model to continue."""
    nudges: int = 0
    elided_results: int = 0
    stop_reason: str = ""


class _Interrupted(Exception):
    def __init__(self, reason: Literal["cancelled", "timed_out"]) -> None:
        super().__init__(reason)
        self.reason: Literal["cancelled", "timed_out"] = reason


class ConversationRunner:
    def __init__(self, client: ModelClient) -> None:
        self.client = client

    async def run(
        self, config: RunConfig, conversation: Conversation, events: EventSink, cancel: asyncio.Event
    ) -> RunOutcome:
        return await _Run(self.client, config, conversation, events, cancel).execute()


OUTPUT_SHARE_OF_WINDOW = 4
"""A reply may take at most a quarter of the context window."""


def output_limit(configured: int, context_window: int) -> int:
    """The output limit a request asks for. Small local windows (llama.cpp serves 2k-8k) cannot hold the
    prompt plus the usual 4k-8k limit: llama.cpp's server refuses such a request outright (HTTP 400,
    prompt plus max_tokens over n_ctx), and reserving the whole window for the reply would elide every
    tool result. A quarter of the window leaves the rest to the conversation."""
    if context_window <= 0:
        return configured
    return max(1, min(configured, context_window // OUTPUT_SHARE_OF_WINDOW))


def _preview(arguments: dict[str, Any], limit: int = 120) -> str:
    text = " ".join(f"{key}={json.dumps(value, ensure_ascii=False)}" for key, value in arguments.items())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= limit else line[: limit - 1] + "…"


def default_block_present(text: str, block: str) -> bool:
    name = re.escape(block)
    pattern = re.compile(rf"<{name}(\s[^>]*)?>.*?</{name}\s*>", re.DOTALL)
    # HTML-escaped tags count too (a server's autoescaping template showed the model `&lt;findings&gt;`);
    # the block parser reads them (analysis.agent.blocks.unescape_if_escaped).
    if pattern.search(text) is not None:
        return True
    return "&lt;" in text and pattern.search(html.unescape(text)) is not None


class _Run:
    """The state of one `ConversationRunner.run` call."""

    def __init__(
        self,
        client: ModelClient,
        config: RunConfig,
        conversation: Conversation,
        events: EventSink,
        cancel: asyncio.Event,
    ) -> None:
        self.client = client
        self.config = config
        self.conversation = conversation
        self.messages = conversation.messages
        self.sink = events
        self.cancel = cancel
        self.executor = ToolExecutor(config.tools, config.tool_context)
        self.tool_specs = config.tools.specs()
        tools_overhead = sum(
            estimate_tokens(spec.description) + estimate_tokens(json.dumps(spec.input_schema))
            for spec in self.tool_specs
        )
        self.max_output_tokens = output_limit(config.max_output_tokens, client.context_window)
        self.context = ContextMonitor(client.context_window, self.max_output_tokens, tools_overhead)
        self.usage = Usage()
        self.iterations = 0
        self.tool_calls = 0
        self.nudges = 0
        self.continuations = 0
        self.cut_off_parts: list[str] = []
        self.final_reason: FinalReason | None = None
        self.wrapping_up = False
        self.started = time.monotonic()
        self.deadline = None if config.deadline_s is None else self.started + config.deadline_s
        self.sink_failed = False
        self.last_stop_reason = ""
        self.overflow_recovered = False
        self.answer_requested = False
        self.calls_made: set[str] = set()

    async def execute(self) -> RunOutcome:
        self._emit_status(self.config.initial_status)
        try:
            outcome = await self._loop()
        except asyncio.CancelledError:
            self._answer_open_tool_uses("Not run: the review was cancelled.")
            self._emit_status("cancelled", "task cancelled")
            raise
        self._emit_status(END_STATE[outcome.status], outcome.error or outcome.status)
        return outcome

    async def _loop(self) -> RunOutcome:
        while True:
            if self.cancel.is_set():
                return self._outcome("cancelled", error=self._why("cancelled"))
            self._apply_limits()
            self._fit_context()
            try:
                response = await self._call_model()
            except ModelError as err:
                if self._recover_from_overflow(err):
                    continue
                return self._outcome("error", error=str(err))
            except _Interrupted as stop:
                if stop.reason == "cancelled" or self.final_reason is not None:
                    return self._outcome(stop.reason, error=self._why(stop.reason))
                self._begin_final_turn("timed_out")
                continue
            except Exception as err:  # a client bug must not lose the conversation; report it as an error
                log.warning("model client failed unexpectedly", exc_info=True)
                return self._outcome("error", error=f"model client failed: {type(err).__name__}: {err}")
            outcome = await self._handle_response(response)
            if outcome is not None:
                return outcome

    def _recover_from_overflow(self, err: ModelError) -> bool:
        """The API said the conversation is too long (our estimate was off): once, drop every tool result
        the model has already read, and try again."""
        if self.overflow_recovered or err.kind != "bad_request" or not _OVERFLOW.search(str(err)):
            return False
        self.overflow_recovered = True
        elided = self.context.elide_read_results(self.messages)
        if not elided:
            return False
        self._notice("elided", f"the request was too long; {elided} old tool result(s) elided")
        return True

    async def _handle_response(self, response: ModelResponse) -> RunOutcome | None:
        """Act on one assistant turn; an outcome ends the run, None asks for another turn."""
        tool_uses = response.tool_uses()
        if self.final_reason is not None:
            self._answer_open_tool_uses("Not run: tools are no longer available.")
            return self._finished(self.final_reason, response)
        if tool_uses:
            self._flush_cut_off_parts()  # the answer starts over after the tools
            try:
                await self._run_tools(tool_uses)
            except _Interrupted as stop:
                if stop.reason == "cancelled":
                    return self._outcome("cancelled", error=self._why("cancelled"))
                self._begin_final_turn("timed_out")
            return None
        if response.stop_reason == "max_tokens" and self.continuations < self.config.max_continuations:
            self.continuations += 1
            self.cut_off_parts.append(response.text)
            self._notice("continued", "the answer was cut off by the output limit; asked to continue")
            self._add_user_blocks([TextBlock(load_prompt("runner_continue").render().strip())])
            return None
        if response.stop_reason == "pause_turn":
            # The API paused a long turn; sending the conversation back as it is resumes the same turn.
            self.cut_off_parts.append(response.text)
            return None
        if response.stop_reason == "refusal":
            return self._outcome(
                "error", text=response.text, error="the model declined to answer (stop reason: refusal)"
            )
        return await self._finish_or_continue(response)

    async def _finish_or_continue(self, response: ModelResponse) -> RunOutcome | None:
        if self.config.before_finish is not None:
            try:
                extra = await self._race(self.config.before_finish())
            except _Interrupted as stop:
                return self._outcome(
                    stop.reason, text=self._answer_text(response), error=self._why(stop.reason)
                )
            if extra:
                self._flush_cut_off_parts()
                self._add_user_blocks([TextBlock(extra)])
                return None
        text = self._answer_text(response)
        if not self._block_missing(text):
            return self._outcome("completed", text=text, truncated=response.stop_reason == "max_tokens")
        if self.nudges < self.config.max_nudges:
            self.nudges += 1
            self._flush_cut_off_parts()
            # The nudge asks for the answer, so the next turn offers no tools: a server that constrains
            # a tool turn's text by grammar (llama-cpp-python's chatml-function-calling) can then write it.
            self.answer_requested = True
            block = self.config.expected_block or ""
            what = "is empty" if not text.strip() else f"has no <{block}> block"
            self._notice("nudge", f"the reply {what}; nudge {self.nudges}")
            self._add_user_blocks([TextBlock(load_prompt("runner_nudge").render(block=block).strip())])
            return None
        return self._outcome("completed", text=text, truncated=response.stop_reason == "max_tokens")

    def _why(self, reason: Literal["cancelled", "timed_out"]) -> str:
        if reason == "cancelled":
            return "the run was cancelled"
        return f"no answer within the time limit of {self.config.deadline_s or 0:g} s"

    def _finished(self, status: RunStatus, response: ModelResponse) -> RunOutcome:
        text = self._answer_text(response) or self.conversation.last_assistant_text()
        error = self._why("timed_out") if status == "timed_out" else None
        return self._outcome(status, text=text, error=error, truncated=response.stop_reason == "max_tokens")

    def _answer_text(self, response: ModelResponse) -> str:
        return "".join(self.cut_off_parts) + response.text

    def _flush_cut_off_parts(self) -> None:
        self.cut_off_parts.clear()
        self.continuations = 0

    def _block_missing(self, text: str) -> bool:
        block = self.config.expected_block
        if block is None:
            return False
        if self.config.block_present is not None:
            return not self.config.block_present(text)
        return not default_block_present(text, block)

    def _apply_limits(self) -> None:
        if self.final_reason is not None:
            return
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self._begin_final_turn("timed_out")
        elif self.iterations >= self.config.max_iterations or self.tool_calls >= self.config.max_tool_calls:
            self._begin_final_turn("max_iterations")
        elif self.config.token_budget is not None and self._tokens_spent() >= self.config.token_budget:
            self._begin_final_turn("budget_exhausted")
        elif not self.wrapping_up and self.context.ratio >= self.config.context_low_ratio:
            self.wrapping_up = True
            percent = self.context.percent
            self._notice("context_low", f"{percent}% of the context window used; asked for the answer now")
            prompt = load_prompt("runner_context_low").render(percent=str(percent), block_hint=self._hint())
            self._add_user_blocks([TextBlock(prompt.strip())])

    def _tokens_spent(self) -> int:
        elsewhere = self.config.tokens_elsewhere
        return self.usage.total_tokens + (elsewhere() if elsewhere is not None else 0)

    def _begin_final_turn(self, reason: FinalReason) -> None:
        self.final_reason = reason
        if reason == "timed_out":
            self.deadline = time.monotonic() + self.config.wrap_up_s
        why = {
            "max_iterations": "You have reached the limit of turns or tool calls for this task.",
            "budget_exhausted": "You have used the token budget for this task.",
            "timed_out": "The time for this task is up.",
        }[reason]
        self._notice("wrap_up", f"{reason}: one last turn without tools")
        prompt = load_prompt("runner_final_turn").render(reason=why, block_hint=self._hint())
        self._add_user_blocks([TextBlock(prompt.strip())])

    def _hint(self) -> str:
        block = self.config.expected_block
        return f" Put it inside <{block}>...</{block}>." if block else ""

    def _fit_context(self) -> None:
        elided = self.context.fit(self.config.system_prompt, self.messages)
        if elided:
            self._notice("elided", f"{elided} old tool result(s) elided to stay inside the context window")

    def _offered_tools(self) -> bool:
        if self.final_reason is not None or self.wrapping_up or self.answer_requested:
            return False
        return len(self.config.tools) > 0

    async def _call_model(self) -> ModelResponse:
        tools_offered = self._offered_tools()
        request = ModelRequest(
            system=self.config.system_prompt,
            messages=list(self.messages),
            tools=self.tool_specs,
            max_tokens=self.max_output_tokens,
            tool_choice="auto" if tools_offered else "none",
        )
        iteration = self.iterations + 1
        self._emit(TurnStarted(self.config.agent_id, iteration, tools_offered))
        started = time.monotonic()
        try:
            with listening(self._announce_retry):
                response = await self._race(self.client.complete(request))
        except BaseException as err:  # the turn ends without a reply; displays still need to close it
            ended_by = err.reason if isinstance(err, _Interrupted) else "error"
            if isinstance(err, asyncio.CancelledError):
                ended_by = "cancelled"
            self._emit(TurnFinished(self.config.agent_id, iteration, ended_by, time.monotonic() - started))
            raise
        self.iterations = iteration
        self._record(response)
        self._emit(
            TurnFinished(
                self.config.agent_id,
                iteration,
                response.stop_reason,
                time.monotonic() - started,
                len(response.tool_uses()),
            )
        )
        return response

    def _record(self, response: ModelResponse) -> None:
        content: list[ContentBlock] = [
            block for block in response.content if not (isinstance(block, TextBlock) and not block.text)
        ]
        # An empty reply (llama.cpp answers "" when its tool grammar picks a message) stays out of the
        # conversation: a placeholder there is what a weak model copies into its next answer. What
        # follows (a nudge) joins the user turn before it, so turns still alternate.
        if content:
            self.messages.append(Message("assistant", content))
        self.usage = self.usage.add(response.usage)
        self.last_stop_reason = response.stop_reason
        self.context.observe(response.usage, len(self.messages))
        self._emit(UsageUpdated(self.config.agent_id, self.usage, self.context.used, self.context.window))

    def _repeats(self, tool_uses: list[ToolUseBlock]) -> tuple[list[ToolUseBlock], list[ToolResultBlock]]:
        """The calls to run, and an error for each call this run already made with the same arguments
        (a weak model loops on one call; the repository does not change during a review)."""
        fresh: list[ToolUseBlock] = []
        repeated: list[ToolResultBlock] = []
        earlier = set(self.calls_made)  # identical calls within one turn run: only a later turn loops
        for use in tool_uses:
            tool = self.config.tools.get(use.name)
            key = f"{use.name}\n{json.dumps(use.input, sort_keys=True, default=str)}"
            if tool is None or tool.repeatable or key not in earlier:
                self.calls_made.add(key)
                fresh.append(use)
                continue
            self._notice("repeated_call", f"{use.name} called again with the same arguments; not run")
            text = (
                f"Error: you already called {use.name} with exactly these arguments; its result is "
                "earlier in this conversation and would be the same. Use it, call something else, or give "
                "your answer."
            )
            repeated.append(ToolResultBlock(use.id, text, True))
        return fresh, repeated

    async def _run_tools(self, tool_uses: list[ToolUseBlock]) -> None:
        allowed = max(0, self.config.max_tool_calls - self.tool_calls)
        to_run, refused = tool_uses[:allowed], tool_uses[allowed:]
        self.tool_calls += len(to_run)  # a repeated call counts: a looping model reaches the limit
        to_run, repeated = self._repeats(to_run)
        calls = [ToolCall(use.id, use.name, use.input) for use in to_run]
        try:
            results = await self._race(asyncio.gather(*(self._execute_one(call) for call in calls)))
        except _Interrupted as stop:
            why = "the review was cancelled" if stop.reason == "cancelled" else "the time limit was reached"
            self._answer_open_tool_uses(f"Not finished: {why}.")
            raise
        blocks: list[ContentBlock] = [ToolResultBlock(r.call_id, r.content, r.is_error) for r in results]
        blocks.extend(repeated)
        blocks.extend(
            ToolResultBlock(use.id, "Not run: the tool-call limit for this task is reached.", True)
            for use in refused
        )
        self._add_context_note(blocks)
        self._add_user_blocks(blocks)

    async def _execute_one(self, call: ToolCall) -> ToolResult:
        self._emit(ToolCallStarted(self.config.agent_id, call.id, call.name, _preview(call.arguments)))
        result = await self.executor.execute(call)
        error = _first_line(result.content) if result.is_error else ""
        self._emit(
            ToolCallFinished(
                self.config.agent_id, call.id, call.name, result.duration_s, result.is_error, error
            )
        )
        return result

    def _add_context_note(self, blocks: list[ContentBlock]) -> None:
        if self.context.ratio <= self.config.context_note_ratio or not blocks:
            return
        last = blocks[-1]
        if isinstance(last, ToolResultBlock):
            percent = self.context.percent
            note = load_prompt("runner_context_note").render(percent=str(percent)).strip()
            blocks[-1] = ToolResultBlock(last.tool_use_id, f"{last.content}\n\n{note}", last.is_error)
            self._notice("context_note", f"{percent}% of the context window used")

    def _answer_open_tool_uses(self, text: str) -> None:
        """Give every unanswered tool call of the last assistant turn a result, so the transcript stays
        a valid conversation (the APIs reject a tool call without its result)."""
        if not self.messages or self.messages[-1].role != "assistant":
            return
        uses = self.messages[-1].tool_uses()
        if uses:
            self._add_user_blocks([ToolResultBlock(use.id, text, True) for use in uses])

    def _add_user_blocks(self, blocks: list[ContentBlock]) -> None:
        """Append to the conversation as a user turn, merged into a trailing user message: the APIs want
        user and assistant turns to alternate."""
        if self.messages and self.messages[-1].role == "user":
            self.messages[-1].content.extend(blocks)
        else:
            self.messages.append(Message("user", list(blocks)))

    def _announce_retry(self, retry: int, most: int, status: int) -> None:
        message = f"retrying ({retry}/{most}) after HTTP {status}"
        self._emit(RunNotice(self.config.agent_id, "retrying", message))

    async def _race(self, work: Awaitable[T]) -> T:
        """Await `work` unless cancellation or the deadline comes first; then cancel it and wait until it
        has really stopped (the SDK closes the HTTP connection when its task is cancelled)."""
        task = asyncio.ensure_future(work)
        waiter = asyncio.ensure_future(self.cancel.wait())
        try:
            done, _ = await asyncio.wait(
                {task, waiter}, timeout=self._time_left(), return_when=asyncio.FIRST_COMPLETED
            )
        finally:
            for pending in (task, waiter):
                if not pending.done():
                    pending.cancel()
            await asyncio.gather(task, waiter, return_exceptions=True)
        if task in done:
            return task.result()
        raise _Interrupted("cancelled" if self.cancel.is_set() else "timed_out")

    def _time_left(self) -> float | None:
        if self.deadline is None:
            return None
        return max(0.0, self.deadline - time.monotonic())

    def _outcome(
        self,
        status: RunStatus,
        *,
        text: str | None = None,
        error: str | None = None,
        truncated: bool = False,
    ) -> RunOutcome:
        final_text = text if text is not None else self.conversation.last_assistant_text()
        return RunOutcome(
            text=final_text,
            status=status,
            tool_calls=self.tool_calls,
            usage=self.usage,
            iterations=self.iterations,
            missing_block=self._block_missing(final_text),
            error=error if status in ("error", "cancelled", "timed_out") else None,
            conversation=self.conversation,
            truncated=truncated,
            nudges=self.nudges,
            elided_results=self.context.elided,
            stop_reason=self.last_stop_reason,
        )

    def _emit_status(self, status: AgentState, detail: str = "") -> None:
        self._emit(
            AgentStatus(
                agent_id=self.config.agent_id,
                parent_id=self.config.parent_id,
                label=self.config.label,
                depth=self.config.depth,
                status=status,
                tool_calls=self.tool_calls,
                tokens_used=self.usage.total_tokens,
                tokens_max=self.config.token_budget,
                detail=detail,
            )
        )

    def _notice(self, kind: NoticeKind, message: str) -> None:
        self._emit(RunNotice(self.config.agent_id, kind, message))

    def _emit(self, event: AgentEvent) -> None:
        try:
            self.sink(event)
        except Exception:  # a broken progress display must not end the review
            if not self.sink_failed:
                self.sink_failed = True
                log.warning("event sink failed; further sink errors are ignored", exc_info=True)
