"""A model client that replays a script: for unit tests of the runner and of code built on it only.

Each step is a ModelResponse, a ModelError to raise, or a function of the request returning either
(for concurrent callers that must be routed by what they ask). Every request is recorded.
"""

from __future__ import annotations

import asyncio
import itertools
from collections import deque
from collections.abc import Callable, Iterable
from typing import Any

from prscope.analysis.models.base import (
    AssistantBlock,
    ModelError,
    ModelRequest,
    ModelResponse,
    StopReason,
    TextBlock,
    ToolUseBlock,
)
from prscope.analysis.report import Usage

ScriptStep = ModelResponse | ModelError | Callable[[ModelRequest], "ModelResponse | ModelError"]

_call_ids = itertools.count(1)


def text_response(
    text: str, stop_reason: StopReason = "end_turn", *, input_tokens: int = 10, output_tokens: int = 5
) -> ModelResponse:
    usage = Usage(requests=1, input_tokens=input_tokens, output_tokens=output_tokens)
    return ModelResponse([TextBlock(text)], stop_reason, usage, "scripted")


def tool_response(
    *calls: tuple[str, dict[str, Any]], text: str = "", input_tokens: int = 10, output_tokens: int = 5
) -> ModelResponse:
    """An assistant turn asking for `calls` (name, arguments), all in one turn."""
    blocks: list[AssistantBlock] = [TextBlock(text)] if text else []
    blocks.extend(ToolUseBlock(f"toolu_s{next(_call_ids)}", name, args) for name, args in calls)
    usage = Usage(requests=1, input_tokens=input_tokens, output_tokens=output_tokens)
    return ModelResponse(blocks, "tool_use", usage, "scripted")


class ScriptedClient:
    """Replays `steps` in order (or answers every request with `responder`)."""

    def __init__(
        self,
        steps: Iterable[ScriptStep] = (),
        *,
        responder: Callable[[ModelRequest], ModelResponse | ModelError] | None = None,
        context_window: int = 200_000,
        delay_s: float = 0.0,
        model: str = "scripted",
    ) -> None:
        self.model = model
        self.context_window = context_window
        self.delay_s = delay_s
        self.requests: list[ModelRequest] = []
        self._steps: deque[ScriptStep] = deque(steps)
        self._responder = responder

    def add(self, *steps: ScriptStep) -> None:
        self._steps.extend(steps)

    @property
    def remaining(self) -> int:
        return len(self._steps)

    async def close(self) -> None:
        """Nothing to release; here so that every client can be closed the same way."""

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.requests.append(_snapshot(request))
        if self.delay_s:
            await asyncio.sleep(self.delay_s)
        step = self._next_step()
        result = step(request) if callable(step) else step
        if isinstance(result, ModelError):
            raise result
        return result

    def _next_step(self) -> ScriptStep:
        if self._steps:
            return self._steps.popleft()
        if self._responder is not None:
            return self._responder
        raise ModelError("scripted client: the script has no turn left", "bad_response")


def _snapshot(request: ModelRequest) -> ModelRequest:
    """Copy the message list: the runner keeps appending to the conversation after the call."""
    return ModelRequest(
        request.system, list(request.messages), list(request.tools), request.max_tokens, request.tool_choice
    )
