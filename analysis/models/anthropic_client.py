"""The Anthropic Messages API through the official SDK's async client.

The SDK does the retrying (429 honouring retry-after, 529 overloaded, 5xx, timeouts, dropped
connections); this module configures it, marks the stable prefix of every request for prompt caching,
and turns whatever survives the retries into a ModelError whose text never contains the API key.
"""

from __future__ import annotations

from typing import Any

import anthropic
from anthropic.types import (
    AssistantMessageParam,
    CacheControlEphemeralParam,
    MessageParam,
    TextBlockParam,
    ToolChoiceNoneParam,
    ToolParam,
    ToolResultBlockParam,
    ToolUseBlockParam,
    UserMessageParam,
)
from prscope.analysis.models.attempts import counting, record_response
from prscope.analysis.models.base import (
    AssistantBlock,
    Message,
    ModelError,
    ModelRequest,
    ModelResponse,
    SdkErrorTypes,
    StopReason,
    TextBlock,
    ToolUseBlock,
    model_error_from_sdk,
    redact,
)
from prscope.analysis.report import Usage
from prscope.analysis.tools.base import ToolSpec

_STOP_REASONS: dict[str, StopReason] = {
    "end_turn": "end_turn",
    "tool_use": "tool_use",
    "max_tokens": "max_tokens",
    "stop_sequence": "stop_sequence",
    "refusal": "refusal",
    "pause_turn": "pause_turn",
    # The conversation no longer fits: like max_tokens, the answer is cut off.
    "model_context_window_exceeded": "max_tokens",
}

_SDK_ERRORS = SdkErrorTypes(
    provider="Anthropic API",
    timeout=anthropic.APITimeoutError,
    connection=anthropic.APIConnectionError,
    invalid_body=anthropic.APIResponseValidationError,
    status=anthropic.APIStatusError,
)
_EPHEMERAL: CacheControlEphemeralParam = {"type": "ephemeral"}
_NO_TOOL_USE: ToolChoiceNoneParam = {"type": "none"}


class AnthropicClient:
    def __init__(
        self,
        *,
        api_key: str,
        model: str,
        context_window: int = 200_000,
        base_url: str | None = None,
        max_retries: int = 4,
        timeout_s: float = 300.0,
        connect_timeout_s: float = 10.0,
    ) -> None:
        self.model = model
        self.context_window = context_window
        self._secrets: list[str | None] = [api_key]
        self._max_retries = max_retries
        self._sdk = anthropic.AsyncAnthropic(
            api_key=api_key,
            base_url=base_url,
            max_retries=max_retries,
            timeout=anthropic.Timeout(timeout_s, connect=connect_timeout_s),
            http_client=anthropic.DefaultAsyncHttpxClient(event_hooks={"response": [record_response]}),
        )

    def __repr__(self) -> str:
        return f"AnthropicClient(model={self.model!r}, base_url={str(self._sdk.base_url)!r})"

    async def close(self) -> None:
        await self._sdk.close()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        kwargs: dict[str, Any] = {}
        if request.tools:
            kwargs["tools"] = to_anthropic_tools(request.tools)
            if request.tool_choice == "none":
                kwargs["tool_choice"] = _NO_TOOL_USE
        if request.system:
            kwargs["system"] = [TextBlockParam(type="text", text=request.system, cache_control=_EPHEMERAL)]
        try:
            with counting(self._max_retries) as attempts:
                message = await self._sdk.messages.create(
                    model=self.model,
                    max_tokens=request.max_tokens,
                    messages=to_anthropic_messages(request.messages),
                    **kwargs,
                )
        except anthropic.APIError as err:
            raise model_error_from_sdk(err, _SDK_ERRORS, self._secrets) from None
        except ValueError as err:  # a body that is not JSON, or JSON of the wrong shape
            raise ModelError(
                self._clean(f"Anthropic API returned a malformed response: {err}"), "bad_response"
            ) from None
        response = from_anthropic_message(message)
        # Usage counts every HTTP request, the retried ones too.
        response.usage = response.usage.model_copy(update={"requests": max(1, attempts.requests)})
        return response

    def _clean(self, text: str) -> str:
        return redact(text, self._secrets)


def to_anthropic_tools(specs: list[ToolSpec]) -> list[ToolParam]:
    tools = [ToolParam(name=s.name, description=s.description, input_schema=s.input_schema) for s in specs]
    if tools:
        # One breakpoint after the last tool caches the whole tool list (tools precede the system prompt).
        tools[-1]["cache_control"] = _EPHEMERAL
    return tools


def to_anthropic_messages(messages: list[Message]) -> list[MessageParam]:
    converted: list[MessageParam] = []
    for message in messages:
        blocks: list[Any] = []
        for block in message.content:
            if isinstance(block, TextBlock):
                if block.text:  # the API rejects empty text blocks
                    blocks.append(TextBlockParam(type="text", text=block.text))
            elif isinstance(block, ToolUseBlock):
                blocks.append(
                    ToolUseBlockParam(type="tool_use", id=block.id, name=block.name, input=block.input)
                )
            else:
                blocks.append(
                    ToolResultBlockParam(
                        type="tool_result",
                        tool_use_id=block.tool_use_id,
                        content=block.content or "(empty)",
                        is_error=block.is_error,
                    )
                )
        if not blocks:
            blocks.append(TextBlockParam(type="text", text="(empty)"))
        if message.role == "user":
            converted.append(UserMessageParam(role="user", content=blocks))
        else:
            converted.append(AssistantMessageParam(role="assistant", content=blocks))
    _mark_conversation_prefix(converted)
    return converted


def _mark_conversation_prefix(messages: list[MessageParam]) -> None:
    """A moving cache breakpoint on the newest block: the next turn of the loop reads the whole
    conversation so far from the cache instead of paying for it again."""
    if not messages:
        return
    content = messages[-1]["content"]
    if isinstance(content, list) and content:
        last = content[-1]
        if isinstance(last, dict):
            last["cache_control"] = _EPHEMERAL


def from_anthropic_message(message: anthropic.types.Message) -> ModelResponse:
    blocks: list[AssistantBlock] = []
    for block in message.content:
        if block.type == "text":
            blocks.append(TextBlock(block.text))
        elif block.type == "tool_use":
            arguments = block.input if isinstance(block.input, dict) else {}
            blocks.append(ToolUseBlock(block.id, block.name, dict(arguments)))
    stop = _STOP_REASONS.get(message.stop_reason or "", "end_turn")
    if stop == "end_turn" and any(isinstance(b, ToolUseBlock) for b in blocks):
        stop = "tool_use"
    usage = message.usage
    return ModelResponse(
        content=blocks,
        stop_reason=stop,
        usage=Usage(
            requests=1,
            input_tokens=usage.input_tokens,
            output_tokens=usage.output_tokens,
            cache_creation_input_tokens=usage.cache_creation_input_tokens or 0,
            cache_read_input_tokens=usage.cache_read_input_tokens or 0,
        ),
        model=message.model,
    )
