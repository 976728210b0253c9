"""Keeps a conversation inside the model's context window.

The last response's usage says how large the conversation was when the model saw it; what was appended
since is estimated from its length. When the next request would not fit (leaving room for the answer),
the oldest tool results are replaced by a short marker, never the ones the model has not read yet.
"""

from __future__ import annotations

from prscope.analysis.models.base import Message, TextBlock, ToolResultBlock, ToolUseBlock
from prscope.analysis.report import Usage

ELIDED_MARKER = "[tool result elided to save context]"
CHARS_PER_TOKEN = 4
"""A deliberately rough, provider-neutral estimate; it only decides when to start eliding."""


def estimate_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


def estimate_message_tokens(message: Message) -> int:
    total = 4
    for block in message.content:
        if isinstance(block, TextBlock):
            total += estimate_tokens(block.text)
        elif isinstance(block, ToolUseBlock):
            total += estimate_tokens(block.name) + estimate_tokens(str(block.input))
        else:
            total += estimate_tokens(block.content) + 8
    return total


class ContextMonitor:
    def __init__(self, window: int, reserved_for_output: int, fixed_overhead_tokens: int = 0) -> None:
        """`fixed_overhead_tokens`: what every request carries besides the messages (tool definitions)."""
        self.window = window
        self.reserved_for_output = reserved_for_output
        self.fixed_overhead_tokens = fixed_overhead_tokens
        self.used = 0
        self.elided = 0
        self._messages_seen = 0

    @property
    def ratio(self) -> float:
        return self.used / self.window if self.window > 0 else 0.0

    @property
    def percent(self) -> int:
        return round(self.ratio * 100)

    def observe(self, usage: Usage, message_count: int) -> None:
        """Record the conversation size a response reports, counting messages up to `message_count`."""
        self.used = (
            usage.input_tokens
            + usage.cache_creation_input_tokens
            + usage.cache_read_input_tokens
            + usage.output_tokens
        )
        self._messages_seen = message_count

    def estimate(self, system: str, messages: list[Message]) -> int:
        seen = min(self._messages_seen, len(messages))
        base = self.used if seen else estimate_tokens(system) + self.fixed_overhead_tokens
        return base + sum(estimate_message_tokens(m) for m in messages[seen:])

    def elide_read_results(self, messages: list[Message]) -> int:
        """Elide every tool result except those in the last message (the ones not read yet)."""
        elided = 0
        for message in messages[:-1]:
            for position in range(len(message.content)):
                if _elide(message, position) is not None:
                    elided += 1
        self.elided += elided
        return elided

    def fit(self, system: str, messages: list[Message]) -> int:
        """Elide the oldest tool results until the next request fits; returns how many were elided."""
        if self.window <= 0:
            return 0
        limit = self.window - self.reserved_for_output
        estimate = self.estimate(system, messages)
        elided = 0
        for index, message in enumerate(messages[:-1]):
            for position in range(len(message.content)):
                if estimate <= limit:
                    self.elided += elided
                    return elided
                saved = _elide(message, position)
                if saved is not None:
                    estimate -= saved
                    if index < self._messages_seen:
                        self.used -= saved
                    elided += 1
        self.elided += elided
        return elided


def _elide(message: Message, position: int) -> int | None:
    """Replace the tool result at `position` by the marker; the tokens saved, or None if there is no
    tool result left to elide there."""
    block = message.content[position]
    if not isinstance(block, ToolResultBlock) or block.content == ELIDED_MARKER:
        return None
    message.content[position] = ToolResultBlock(block.tool_use_id, ELIDED_MARKER, block.is_error)
    return estimate_tokens(block.content) - estimate_tokens(ELIDED_MARKER)
