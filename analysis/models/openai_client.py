"""OpenAI-compatible chat completions (OpenAI, Ollama, vLLM, llama.cpp server, LM Studio) through the
`openai` SDK's async client, behind the same interface as the Anthropic client.

The SDK retries 429 (honouring retry-after), 5xx, timeouts and dropped connections. Chat completions
have no tool_result blocks: tool results become `tool` messages, in the order of the calls.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit

import openai
from openai.types.chat import ChatCompletion, ChatCompletionMessageParam, ChatCompletionToolParam
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
    ToolResultBlock,
    ToolUseBlock,
    model_error_from_sdk,
    redact,
    sdk_error_detail,
)
from prscope.analysis.report import Usage
from prscope.analysis.tools.base import UNPARSED_ARGUMENTS, ToolSpec

_FINISH_REASONS: dict[str, StopReason] = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}

_SDK_ERRORS = SdkErrorTypes(
    provider="OpenAI-compatible API",
    timeout=openai.APITimeoutError,
    connection=openai.APIConnectionError,
    invalid_body=openai.APIResponseValidationError,
    status=openai.APIStatusError,
)

NO_KEY = "no-key-needed"
"""Local servers (Ollama, llama.cpp) want no key, but the SDK insists on one."""


class OpenAICompatibleClient:
    def __init__(
        self,
        *,
        model: str,
        api_key: str | None = None,
        base_url: str | None = None,
        context_window: int = 32_768,
        max_retries: int = 4,
        timeout_s: float = 300.0,
        connect_timeout_s: float = 10.0,
    ) -> None:
        self.model = model
        self.context_window = context_window
        key = api_key or NO_KEY
        self._secrets: list[str | None] = [api_key]
        self._max_retries = max_retries
        self._sdk = openai.AsyncOpenAI(
            api_key=key,
            base_url=base_url,
            max_retries=max_retries,
            timeout=openai.Timeout(timeout_s, connect=connect_timeout_s),
            http_client=openai.DefaultAsyncHttpxClient(event_hooks={"response": [record_response]}),
        )
        self._limit_parameter = output_limit_parameter(str(self._sdk.base_url))

    def __repr__(self) -> str:
        return f"OpenAICompatibleClient(model={self.model!r}, base_url={str(self._sdk.base_url)!r})"

    async def close(self) -> None:
        await self._sdk.close()

    async def complete(self, request: ModelRequest) -> ModelResponse:
        kwargs: dict[str, Any] = {}
        # For "none" the tools are left out rather than sent with tool_choice "none": chat completions
        # accept tool messages without definitions, and several local servers ignore tool_choice.
        if request.tools and request.tool_choice == "auto":
            kwargs["tools"] = to_openai_tools(request.tools)
            # Said outright although it is the API's default: llama-cpp-python's tool-calling chat
            # formats read a missing tool_choice as "none" and silently drop the tools.
            kwargs["tool_choice"] = "auto"
        kwargs["messages"] = to_openai_messages(request.system, request.messages)
        try:
            with counting(self._max_retries) as attempts:
                completion = await self._create(request.max_tokens, kwargs)
        except openai.APIError as err:
            raise self._model_error(err) from None
        except ValueError as err:  # a body that is not JSON, or JSON of the wrong shape
            message = f"OpenAI-compatible API returned a malformed response: {err}"
            raise ModelError(self._clean(message), "bad_response") from None
        try:
            response = from_openai_completion(completion)
        except (AttributeError, IndexError, TypeError) as err:
            message = f"OpenAI-compatible API returned an unexpected response: {err}"
            raise ModelError(self._clean(message), "bad_response") from None
        # Usage counts every HTTP request, the retried ones too.
        response.usage = response.usage.model_copy(update={"requests": max(1, attempts.requests)})
        return response

    async def _create(self, max_tokens: int, kwargs: dict[str, Any]) -> ChatCompletion:
        try:
            return await self._send({**kwargs, self._limit_parameter: max_tokens})
        except openai.BadRequestError as err:
            other = _OTHER_LIMIT_PARAMETER[self._limit_parameter]
            if other not in sdk_error_detail(err):
                raise
        # The server named the other parameter (OpenAI's reasoning models refuse max_tokens; some
        # compatible servers know only max_tokens): switch for good and send the request again.
        self._limit_parameter = other
        return await self._send({**kwargs, other: max_tokens})

    async def _send(self, kwargs: dict[str, Any]) -> ChatCompletion:
        completion: ChatCompletion = await self._sdk.chat.completions.create(model=self.model, **kwargs)
        return completion

    def _clean(self, text: str) -> str:
        return redact(text, self._secrets)

    def _model_error(self, err: openai.APIError) -> ModelError:
        hint = ""
        if isinstance(err, openai.NotFoundError):
            url = self._sdk.base_url
            hint = f" (is the base URL {url} right? OpenAI-compatible servers usually end in /v1)"
        return model_error_from_sdk(err, _SDK_ERRORS, self._secrets, hint=hint)


def output_limit_parameter(base_url: str) -> str:
    """OpenAI itself deprecated `max_tokens` (its reasoning models refuse it); the servers people run
    locally (Ollama, llama.cpp, LM Studio, older vLLM) know only `max_tokens`."""
    host = urlsplit(base_url).hostname or ""
    return "max_completion_tokens" if host == "api.openai.com" else "max_tokens"


_OTHER_LIMIT_PARAMETER = {"max_tokens": "max_completion_tokens", "max_completion_tokens": "max_tokens"}


def to_openai_tools(specs: list[ToolSpec]) -> list[ChatCompletionToolParam]:
    return [
        {
            "type": "function",
            "function": {"name": s.name, "description": s.description, "parameters": s.input_schema},
        }
        for s in specs
    ]


def to_openai_messages(system: str, messages: list[Message]) -> list[ChatCompletionMessageParam]:
    converted: list[ChatCompletionMessageParam] = []
    if system:
        converted.append({"role": "system", "content": system})
    for message in messages:
        if message.role == "assistant":
            converted.append(_assistant_message(message))
            continue
        texts = []
        for block in message.content:
            if isinstance(block, ToolResultBlock):
                converted.append(
                    {"role": "tool", "tool_call_id": block.tool_use_id, "content": block.content}
                )
            elif isinstance(block, TextBlock) and block.text:
                texts.append(block.text)
        if texts:
            converted.append({"role": "user", "content": "\n\n".join(texts)})
    return converted


def _assistant_message(message: Message) -> ChatCompletionMessageParam:
    text = message.text
    uses = message.tool_uses()
    if not uses:
        return {"role": "assistant", "content": text}
    calls: list[Any] = [
        {"id": u.id, "type": "function", "function": {"name": u.name, "arguments": json.dumps(u.input)}}
        for u in uses
    ]
    # "" rather than null when the turn is only tool calls: OpenAI takes either, but llama-cpp-python's
    # request schema wants a string and answers null with HTTP 500 (seven validation errors).
    return {"role": "assistant", "content": text, "tool_calls": calls}


def from_openai_completion(completion: ChatCompletion) -> ModelResponse:
    choice = completion.choices[0]
    reply = choice.message
    blocks: list[AssistantBlock] = []
    if reply.content:
        blocks.append(TextBlock(reply.content))
    elif reply.refusal:
        blocks.append(TextBlock(reply.refusal))
    for index, call in enumerate(reply.tool_calls or []):
        if call.type != "function":
            continue
        # Some local servers send no call id; the tool message must still name the call it answers.
        call_id = getattr(call, "id", None) or f"call_{completion.id}_{index}"
        blocks.append(ToolUseBlock(call_id, call.function.name, _parse_arguments(call.function.arguments)))
    stop = _FINISH_REASONS.get(choice.finish_reason or "stop", "end_turn")
    if reply.refusal and not reply.content:
        stop = "refusal"
    if any(isinstance(b, ToolUseBlock) for b in blocks) and stop == "end_turn":
        stop = "tool_use"
    return ModelResponse(blocks, stop, _usage(completion), completion.model)


def _parse_arguments(raw: object) -> dict[str, Any]:
    """Small local models sometimes send broken JSON, or JSON that is not an object: it is kept under
    UNPARSED_ARGUMENTS so that the tool's answer tells the model what was wrong with it."""
    if isinstance(raw, dict):  # some servers send an object instead of a JSON string
        return raw
    if raw is None or raw == "":
        return {}
    text = raw if isinstance(raw, str) else json.dumps(raw)
    try:
        parsed = json.loads(text)
    except ValueError:
        return {UNPARSED_ARGUMENTS: text}
    return parsed if isinstance(parsed, dict) else {UNPARSED_ARGUMENTS: text}


def _usage(completion: ChatCompletion) -> Usage:
    usage = completion.usage
    if usage is None:
        return Usage(requests=1)
    details = usage.prompt_tokens_details
    cached = (details.cached_tokens or 0) if details is not None else 0
    return Usage(
        requests=1,
        input_tokens=max(0, usage.prompt_tokens - cached),
        output_tokens=usage.completion_tokens,
        cache_read_input_tokens=cached,
    )
