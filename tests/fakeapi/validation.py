"""The request rules the real APIs enforce, so that a conversation the fake accepts is one they would too.

Each check returns the API's kind of error message (a 400 invalid_request_error), or None.
"""

from __future__ import annotations

from typing import Any

MAX_CACHE_BREAKPOINTS = 4
TOOL_CHOICE_TYPES = ("auto", "any", "tool", "none")


def anthropic_request_problem(body: dict[str, Any]) -> str | None:
    checks = (
        _anthropic_basics,
        _anthropic_tools,
        _anthropic_messages,
        _anthropic_tool_definitions,
        _anthropic_cache_breakpoints,
    )
    for check in checks:
        problem = check(body)
        if problem is not None:
            return problem
    return None


def _anthropic_basics(body: dict[str, Any]) -> str | None:
    if not isinstance(body.get("model"), str) or not body["model"]:
        return "model: field required"
    if not isinstance(body.get("max_tokens"), int) or body["max_tokens"] < 1:
        return "max_tokens: must be a positive integer"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "messages: at least one message is required"
    if messages[0].get("role") != "user":
        return "messages: first message must use the 'user' role"
    return None


def _anthropic_tools(body: dict[str, Any]) -> str | None:
    for index, tool in enumerate(body.get("tools", []) or []):
        if not tool.get("name"):
            return f"tools.{index}.name: field required"
        schema = tool.get("input_schema")
        if not isinstance(schema, dict) or schema.get("type") != "object":
            return f"tools.{index}.input_schema.type: must be 'object'"
    choice = body.get("tool_choice")
    if choice is not None and (not isinstance(choice, dict) or choice.get("type") not in TOOL_CHOICE_TYPES):
        return "tool_choice.type: must be one of 'auto', 'any', 'tool', 'none'"
    return None


def _anthropic_tool_definitions(body: dict[str, Any]) -> str | None:
    """The API wants the tool definitions as long as the conversation holds tool blocks, even on a turn
    that must not call tools (that one sends tool_choice "none")."""
    if body.get("tools"):
        return None
    for message in body["messages"]:
        if any(block.get("type") in ("tool_use", "tool_result") for block in _blocks(message)):
            return "Requests which include `tool_use` or `tool_result` blocks must define tools."
    return None


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message.get("content")
    if isinstance(content, str):
        return [{"type": "text", "text": content}]
    return list(content or [])


def _anthropic_messages(body: dict[str, Any]) -> str | None:
    messages: list[dict[str, Any]] = body["messages"]
    for index, message in enumerate(messages):
        if message.get("role") not in ("user", "assistant"):
            return f"messages.{index}.role: must be 'user' or 'assistant'"
        blocks = _blocks(message)
        if not blocks:
            return f"messages.{index}: all messages must have non-empty content"
        for block in blocks:
            if block.get("type") == "text" and not block.get("text"):
                return f"messages.{index}: text content blocks must be non-empty"
        problem = _tool_pairing(messages, index)
        if problem is not None:
            return problem
    return None


def _tool_pairing(messages: list[dict[str, Any]], index: int) -> str | None:
    message = messages[index]
    blocks = _blocks(message)
    if message["role"] == "assistant":
        uses = [b["id"] for b in blocks if b.get("type") == "tool_use"]
        if not uses:
            return None
        following = _blocks(messages[index + 1]) if index + 1 < len(messages) else []
        answered = [b.get("tool_use_id") for b in following if b.get("type") == "tool_result"]
        missing = [u for u in uses if u not in answered]
        if index + 1 >= len(messages) or messages[index + 1].get("role") != "user" or missing:
            return (
                f"messages.{index + 1}: `tool_use` ids were found without `tool_result` blocks immediately "
                f"after: {', '.join(missing or uses)}"
            )
        first_non_result = next((i for i, b in enumerate(following) if b.get("type") != "tool_result"), None)
        if first_non_result is not None and any(
            b.get("type") == "tool_result" for b in following[first_non_result:]
        ):
            return f"messages.{index + 1}: tool_result blocks must come before any other content"
        return None
    results = [str(b.get("tool_use_id")) for b in blocks if b.get("type") == "tool_result"]
    if not results:
        return None
    previous = (
        _blocks(messages[index - 1]) if index > 0 and messages[index - 1]["role"] == "assistant" else []
    )
    known = {b.get("id") for b in previous if b.get("type") == "tool_use"}
    unknown = [r for r in results if r not in known]
    if unknown:
        return (
            f"messages.{index}: unexpected `tool_use_id` found in `tool_result` blocks: "
            f"{', '.join(unknown)}. Each `tool_result` block must have a corresponding `tool_use` block "
            "in the previous message."
        )
    return None


def _anthropic_cache_breakpoints(body: dict[str, Any]) -> str | None:
    count = sum(1 for tool in body.get("tools", []) or [] if "cache_control" in tool)
    system = body.get("system")
    if isinstance(system, list):
        count += sum(1 for block in system if "cache_control" in block)
    for message in body["messages"]:
        count += sum(1 for block in _blocks(message) if "cache_control" in block)
    if count > MAX_CACHE_BREAKPOINTS:
        return (
            f"A maximum of {MAX_CACHE_BREAKPOINTS} blocks with cache_control may be provided. Found {count}."
        )
    return None


def openai_request_problem(body: dict[str, Any]) -> str | None:
    if not body.get("model"):
        return "you must provide a model parameter"
    messages = body.get("messages")
    if not isinstance(messages, list) or not messages:
        return "'messages' must contain at least one message"
    open_calls: list[str] = []
    for index, message in enumerate(messages):
        role = message.get("role")
        if role == "tool":
            call_id = message.get("tool_call_id")
            if call_id not in open_calls:
                return (
                    f"messages[{index}]: messages with role 'tool' must be a response to a preceding message "
                    "with 'tool_calls'"
                )
            open_calls.remove(call_id)
            continue
        if open_calls:
            return (
                "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
                f"'tool_call_id'. The following tool_call_ids did not have response messages: "
                f"{', '.join(open_calls)}"
            )
        if role == "assistant":
            open_calls = [call["id"] for call in message.get("tool_calls") or []]
    if open_calls:
        return f"tool_call_ids without response messages: {', '.join(open_calls)}"
    return None
