"""The provider-neutral shape of a model conversation, and the one interface every model client implements.

The runner only ever sees these types; the Anthropic and OpenAI clients translate them to and from their
wire formats. Blocks are plain dataclasses so that transcripts stay cheap to build and easy to serialise
(`message_to_dict` / `message_from_dict`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol, runtime_checkable

from prscope.analysis.report import Usage
from prscope.analysis.tools.base import ToolSpec

StopReason = Literal["end_turn", "tool_use", "max_tokens", "refusal", "stop_sequence", "pause_turn"]
Role = Literal["user", "assistant"]
ToolChoice = Literal["auto", "none"]
ModelErrorKind = Literal[
    "rate_limited", "overloaded", "server", "timeout", "connection", "bad_request", "auth", "bad_response"
]


@dataclass
class TextBlock:
    text: str


@dataclass
class ToolUseBlock:
    id: str
    name: str
    input: dict[str, Any]


@dataclass
class ToolResultBlock:
    tool_use_id: str
    content: str
    is_error: bool = False


ContentBlock = TextBlock | ToolUseBlock | ToolResultBlock
AssistantBlock = TextBlock | ToolUseBlock


@dataclass
class Message:
    role: Role
    content: list[ContentBlock]

    @property
    def text(self) -> str:
        """The text blocks joined; tool blocks are left out."""
        return "".join(block.text for block in self.content if isinstance(block, TextBlock))

    def tool_uses(self) -> list[ToolUseBlock]:
        return [block for block in self.content if isinstance(block, ToolUseBlock)]

    def tool_results(self) -> list[ToolResultBlock]:
        return [block for block in self.content if isinstance(block, ToolResultBlock)]

    @classmethod
    def user(cls, text: str) -> Message:
        return cls("user", [TextBlock(text)])

    @classmethod
    def assistant(cls, text: str) -> Message:
        return cls("assistant", [TextBlock(text)])


@dataclass
class ModelRequest:
    system: str
    messages: list[Message]
    tools: list[ToolSpec] = field(default_factory=list)
    max_tokens: int = 4096
    tool_choice: ToolChoice = "auto"
    """"none": the tools are listed but must not be called (a last turn that must answer). They are still
    sent where the API allows it: Anthropic refuses a conversation holding tool blocks without tool
    definitions, and an unchanged tool list keeps the prompt cache."""


@dataclass
class ModelResponse:
    content: list[AssistantBlock]
    stop_reason: StopReason
    usage: Usage = field(default_factory=Usage)
    model: str = ""

    @property
    def text(self) -> str:
        return "".join(block.text for block in self.content if isinstance(block, TextBlock))

    def tool_uses(self) -> list[ToolUseBlock]:
        return [block for block in self.content if isinstance(block, ToolUseBlock)]


@runtime_checkable
class ModelClient(Protocol):
    """A model behind one call. Implementations retry transient failures themselves and raise ModelError
    for what survives the retries."""

    model: str
    context_window: int

    async def complete(self, request: ModelRequest) -> ModelResponse: ...


class ModelError(Exception):
    """A model call that failed for good. `str(err)` is one line fit for a user: no traceback, no key."""

    def __init__(
        self, message: str, kind: ModelErrorKind, *, retryable: bool = False, status_code: int | None = None
    ) -> None:
        super().__init__(message)
        self.kind: ModelErrorKind = kind
        self.retryable = retryable
        self.status_code = status_code


@dataclass(frozen=True)
class SdkErrorTypes:
    """One SDK's exception classes: the `anthropic` and `openai` SDKs are generated alike, so one mapping
    to ModelError serves both."""

    provider: str
    timeout: type[Exception]
    connection: type[Exception]
    invalid_body: type[Exception]
    status: type[Exception]


def model_error_from_sdk(
    err: Exception, sdk: SdkErrorTypes, secrets: list[str | None], *, hint: str = ""
) -> ModelError:
    """A ModelError for what an SDK raised after its retries: one line, the API's own message, no key."""
    kind, retryable, status = _classify_sdk_error(err, sdk)
    where = f"HTTP {status}" if status else type(err).__name__
    host = _host_tried(err) if kind in ("connection", "timeout") else ""
    tried = f" (tried {host})" if host else ""
    message = f"{sdk.provider} error ({kind}, {where}): {sdk_error_detail(err)}{tried}{hint}"
    return ModelError(redact(message, secrets), kind, retryable=retryable, status_code=status)


def _host_tried(err: Exception) -> str:
    """host:port the failed request went to; never the URL's user info, path or query."""
    request = getattr(err, "request", None)
    url = getattr(request, "url", None)
    host = getattr(url, "host", None)
    if not isinstance(host, str) or not host:
        return ""
    port = getattr(url, "port", None)
    return f"{host}:{port}" if isinstance(port, int) else host


def _classify_sdk_error(err: Exception, sdk: SdkErrorTypes) -> tuple[ModelErrorKind, bool, int | None]:
    if isinstance(err, sdk.timeout):
        return "timeout", True, None
    if isinstance(err, sdk.connection):
        return "connection", True, None
    status = getattr(err, "status_code", None)
    if not isinstance(status, int) or isinstance(err, sdk.invalid_body) or not isinstance(err, sdk.status):
        return "bad_response", False, status if isinstance(status, int) else None
    return error_kind_for_status(status), status_is_retryable(status), status


def sdk_error_detail(err: Exception) -> str:
    """The API's own error message when the body has one (both APIs nest it under "error"), on one line."""
    body = getattr(err, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return one_line(str(inner["message"]))
    return one_line(str(getattr(err, "message", "") or "")) or type(err).__name__


def error_kind_for_status(status: int) -> ModelErrorKind:
    if status == 429:
        return "rate_limited"
    if status == 529:
        return "overloaded"
    if status in (401, 403):
        return "auth"
    if status == 408:
        return "timeout"
    if status >= 500:
        return "server"
    return "bad_request"


def status_is_retryable(status: int) -> bool:
    return status in (408, 409, 429) or status >= 500


def one_line(text: str) -> str:
    return " ".join(text.split())


def redact(text: str, secrets: list[str | None]) -> str:
    """Replace each secret in `text`; values under 4 characters are ignored (they would mangle text)."""
    for secret in secrets:
        if secret and len(secret) >= 4:
            text = text.replace(secret, "[redacted]")
    return text


def message_to_dict(message: Message) -> dict[str, Any]:
    """A JSON-ready dict for transcripts and the store."""
    blocks: list[dict[str, Any]] = []
    for block in message.content:
        if isinstance(block, TextBlock):
            blocks.append({"type": "text", "text": block.text})
        elif isinstance(block, ToolUseBlock):
            blocks.append({"type": "tool_use", "id": block.id, "name": block.name, "input": block.input})
        else:
            blocks.append(
                {
                    "type": "tool_result",
                    "tool_use_id": block.tool_use_id,
                    "content": block.content,
                    "is_error": block.is_error,
                }
            )
    return {"role": message.role, "content": blocks}


def message_from_dict(data: dict[str, Any]) -> Message:
    role = data["role"]
    if role not in ("user", "assistant"):
        raise ValueError(f"unknown message role {role!r}")
    blocks: list[ContentBlock] = []
    for block in data["content"]:
        kind = block.get("type")
        if kind == "text":
            blocks.append(TextBlock(block["text"]))
        elif kind == "tool_use":
            blocks.append(ToolUseBlock(block["id"], block["name"], dict(block["input"])))
        elif kind == "tool_result":
            is_error = bool(block.get("is_error"))
            blocks.append(ToolResultBlock(block["tool_use_id"], block["content"], is_error))
        else:
            raise ValueError(f"unknown content block type {kind!r}")
    return Message(role, blocks)
