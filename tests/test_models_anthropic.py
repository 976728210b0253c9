"""The Anthropic client through the real SDK: wire format, prompt-caching markers, stop reasons, usage."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from prscope.analysis.models.anthropic_client import AnthropicClient
from prscope.analysis.models.base import Message, ModelRequest, TextBlock, ToolResultBlock, ToolUseBlock
from prscope.analysis.models.factory import ModelSettings, client_from_settings

from tests.fakeapi import FakeModelServer, text_turn, tool_turn
from tests.fakeapi.support import TEST_KEY, make_client, sample_registry

EPHEMERAL = {"type": "ephemeral"}


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as fake:
        yield fake


@pytest.fixture
async def client(server: FakeModelServer) -> AsyncIterator[AnthropicClient]:
    made = make_client("anthropic", server)
    assert isinstance(made, AnthropicClient)
    yield made
    await made.close()


def conversation() -> list[Message]:
    return [
        Message.user("Review this."),
        Message("assistant", [TextBlock("Looking."), ToolUseBlock("toolu_1", "echo", {"text": "x"})]),
        Message("user", [ToolResultBlock("toolu_1", "x"), TextBlock("")]),
    ]


async def test_request_carries_tools_system_and_cache_markers(
    client: AnthropicClient, server: FakeModelServer
) -> None:
    server.script(text_turn("ok"))
    specs = sample_registry().specs()
    await client.complete(ModelRequest("You review code.", conversation(), specs, 321))
    body = server.requests[0].body
    assert body["model"] == "fake-model"
    assert body["max_tokens"] == 321
    assert body["system"] == [{"type": "text", "text": "You review code.", "cache_control": EPHEMERAL}]
    assert [t["name"] for t in body["tools"]] == ["sleep", "echo", "fail"]
    assert body["tools"][-1]["cache_control"] == EPHEMERAL
    assert all("cache_control" not in t for t in body["tools"][:-1])
    assert body["tools"][1]["input_schema"]["required"] == ["text"]
    messages = body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"][1] == {
        "type": "tool_use",
        "id": "toolu_1",
        "name": "echo",
        "input": {"text": "x"},
    }
    assert messages[2]["content"] == [
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "content": "x",
            "is_error": False,
            "cache_control": EPHEMERAL,
        }
    ]
    assert server.requests[0].api_key == TEST_KEY
    assert "anthropic-version" in server.requests[0].headers


async def test_request_without_tools_sends_no_tools_key(
    client: AnthropicClient, server: FakeModelServer
) -> None:
    server.script(text_turn("ok"))
    await client.complete(ModelRequest("sys", [Message.user("hi")], [], 10))
    assert "tools" not in server.requests[0].body
    assert "tool_choice" not in server.requests[0].body


async def test_a_turn_that_must_not_call_tools_keeps_the_cached_tool_list(
    client: AnthropicClient, server: FakeModelServer
) -> None:
    """Tool definitions stay (the API requires them while the conversation holds tool blocks, and the
    cached prefix stays valid); tool_choice "none" forbids calling them."""
    specs = sample_registry().specs()
    conversation = [
        Message.user("go"),
        Message("assistant", [ToolUseBlock("toolu_1", "echo", {"text": "x"})]),
        Message("user", [ToolResultBlock("toolu_1", "x"), TextBlock("Answer now, no more tools.")]),
    ]
    server.script(text_turn("answer"), text_turn("answer"))
    await client.complete(ModelRequest("sys", conversation, specs, 10))
    await client.complete(ModelRequest("sys", conversation, specs, 10, tool_choice="none"))
    auto, none = server.requests
    assert server.rejected == []
    assert none.body["tools"] == auto.body["tools"]
    assert none.body["tools"][-1]["cache_control"] == {"type": "ephemeral"}
    assert none.body["tool_choice"] == {"type": "none"} and "tool_choice" not in auto.body
    assert none.tools_usable is False and auto.tools_usable is True


async def test_tool_use_response_is_parsed(client: AnthropicClient, server: FakeModelServer) -> None:
    server.script(tool_turn(("echo", {"text": "a"}), ("sleep", {"seconds": 1}), text="Let me look."))
    response = await client.complete(ModelRequest("sys", [Message.user("hi")], sample_registry().specs(), 10))
    assert response.stop_reason == "tool_use"
    assert response.text == "Let me look."
    assert [(u.name, u.input) for u in response.tool_uses()] == [
        ("echo", {"text": "a"}),
        ("sleep", {"seconds": 1}),
    ]
    assert all(u.id.startswith("toolu_") for u in response.tool_uses())
    assert response.model == "fake-model"


@pytest.mark.parametrize(
    ("wire", "expected"),
    [
        ("end_turn", "end_turn"),
        ("max_tokens", "max_tokens"),
        ("stop_sequence", "stop_sequence"),
        ("refusal", "refusal"),
        ("pause_turn", "pause_turn"),
        ("model_context_window_exceeded", "max_tokens"),
    ],
)
async def test_every_stop_reason_is_mapped(
    client: AnthropicClient, server: FakeModelServer, wire: str, expected: str
) -> None:
    server.script(text_turn("text", stop_reason=wire))
    response = await client.complete(ModelRequest("sys", [Message.user("hi")], [], 10))
    assert response.stop_reason == expected


async def test_usage_includes_cache_reads_and_writes(
    client: AnthropicClient, server: FakeModelServer
) -> None:
    server.script(
        text_turn(
            "ok",
            input_tokens=12,
            output_tokens=34,
            cache_creation_input_tokens=56,
            cache_read_input_tokens=78,
        )
    )
    response = await client.complete(ModelRequest("sys", [Message.user("hi")], [], 10))
    usage = response.usage
    assert (usage.requests, usage.input_tokens, usage.output_tokens) == (1, 12, 34)
    assert (usage.cache_creation_input_tokens, usage.cache_read_input_tokens) == (56, 78)


async def test_timeouts_are_explicit(server: FakeModelServer) -> None:
    made = make_client("anthropic", server, timeout_s=42)
    try:
        timeout = made._sdk.timeout  # the configured SDK client is the thing under test here
        assert timeout.read == 42 and timeout.connect == 2.0  # type: ignore[union-attr]
    finally:
        await made.close()


async def test_base_url_and_key_come_from_the_environment(server: FakeModelServer) -> None:
    env = {"ANTHROPIC_API_KEY": TEST_KEY, "ANTHROPIC_BASE_URL": server.base_url}
    made = client_from_settings(ModelSettings(model="claude-test", context_window=1234), env)
    assert isinstance(made, AnthropicClient)
    server.script(text_turn("from env"))
    try:
        response = await made.complete(ModelRequest("sys", [Message.user("hi")], [], 10))
    finally:
        await made.close()
    assert response.text == "from env"
    assert made.context_window == 1234
    assert server.requests[0].body["model"] == "claude-test"
    assert server.requests[0].api_key == TEST_KEY
