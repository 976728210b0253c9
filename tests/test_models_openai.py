"""The OpenAI-compatible client through the real SDK: tool calls, tool messages, finish reasons, usage."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator

import pytest
from openai.types.chat import ChatCompletion
from prscope.analysis.models.base import (
    Message,
    ModelError,
    ModelRequest,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)
from prscope.analysis.models.openai_client import (
    NO_KEY,
    OpenAICompatibleClient,
    from_openai_completion,
    output_limit_parameter,
)
from prscope.analysis.tools.base import UNPARSED_ARGUMENTS

from tests.fakeapi import FakeModelServer, FakeTurn, Fault, RecordedRequest, text_turn, tool_turn
from tests.fakeapi.support import TEST_KEY, make_client, sample_registry


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as fake:
        yield fake


@pytest.fixture
async def client(server: FakeModelServer) -> AsyncIterator[OpenAICompatibleClient]:
    made = make_client("openai", server)
    assert isinstance(made, OpenAICompatibleClient)
    yield made
    await made.close()


async def test_conversation_maps_to_chat_messages(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    server.script(text_turn("ok"))
    messages = [
        Message.user("Review this."),
        Message(
            "assistant",
            [
                TextBlock("Looking."),
                ToolUseBlock("call_1", "echo", {"text": "x"}),
                ToolUseBlock("call_2", "fail", {}),
            ],
        ),
        Message(
            "user",
            [
                ToolResultBlock("call_1", "x"),
                ToolResultBlock("call_2", "Error: no", True),
                TextBlock("Context is low."),
            ],
        ),
    ]
    await client.complete(ModelRequest("You review code.", messages, sample_registry().specs(), 50))
    body = server.requests[0].body
    assert [m["role"] for m in body["messages"]] == ["system", "user", "assistant", "tool", "tool", "user"]
    assistant = body["messages"][2]
    assert assistant["content"] == "Looking."
    assert [c["function"]["name"] for c in assistant["tool_calls"]] == ["echo", "fail"]
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"text": "x"}'
    assert body["messages"][3] == {"role": "tool", "tool_call_id": "call_1", "content": "x"}
    assert body["messages"][5]["content"] == "Context is low."
    assert body["tools"][1]["type"] == "function"
    assert body["tools"][1]["function"]["name"] == "echo"
    assert body["max_tokens"] == 50
    assert server.requests[0].headers["authorization"] == f"Bearer {TEST_KEY}"


async def test_tool_calls_are_parsed(client: OpenAICompatibleClient, server: FakeModelServer) -> None:
    server.script(tool_turn(("echo", {"text": "a"}), ("sleep", {"seconds": 0.5})))
    response = await client.complete(ModelRequest("sys", [Message.user("hi")], sample_registry().specs(), 10))
    assert response.stop_reason == "tool_use"
    assert [(u.name, u.input) for u in response.tool_uses()] == [
        ("echo", {"text": "a"}),
        ("sleep", {"seconds": 0.5}),
    ]


@pytest.mark.parametrize(
    ("wire", "expected"), [("end_turn", "end_turn"), ("max_tokens", "max_tokens"), ("refusal", "refusal")]
)
async def test_finish_reasons_are_mapped(
    client: OpenAICompatibleClient, server: FakeModelServer, wire: str, expected: str
) -> None:
    server.script(text_turn("text", stop_reason=wire))
    response = await client.complete(ModelRequest("sys", [Message.user("hi")], [], 10))
    assert response.stop_reason == expected


def completion(message: dict[str, object], finish_reason: str = "stop") -> ChatCompletion:
    return ChatCompletion.model_validate(
        {
            "id": "c1",
            "object": "chat.completion",
            "created": 0,
            "model": "m",
            "choices": [
                {"index": 0, "message": {"role": "assistant", **message}, "finish_reason": finish_reason}
            ],
        }
    )


def test_broken_tool_arguments_are_kept_for_the_error_the_model_reads() -> None:
    raw = completion(
        {
            "content": None,
            "tool_calls": [
                {"id": "c", "type": "function", "function": {"name": "echo", "arguments": "{oops"}}
            ],
        },
        "tool_calls",
    )
    response = from_openai_completion(raw)
    assert response.tool_uses()[0].input == {UNPARSED_ARGUMENTS: "{oops"}
    assert response.usage.requests == 1


def test_a_refusal_message_is_a_refusal() -> None:
    response = from_openai_completion(completion({"content": None, "refusal": "I can't help with that."}))
    assert response.stop_reason == "refusal"
    assert response.text == "I can't help with that."


async def test_local_server_without_key(server: FakeModelServer) -> None:
    local = OpenAICompatibleClient(model="llama3", base_url=server.openai_base_url, max_retries=0)
    server.script(text_turn("local answer"))
    try:
        response = await local.complete(ModelRequest("sys", [Message.user("hi")], [], 10))
    finally:
        await local.close()
    assert response.text == "local answer"
    assert server.requests[0].headers["authorization"] == f"Bearer {NO_KEY}"


def test_tool_calls_without_ids_get_stable_ones() -> None:
    call = {"type": "function", "function": {"name": "echo", "arguments": "{}"}}
    message = {"role": "assistant", "content": None, "tool_calls": [call]}
    raw = ChatCompletion.construct(  # as the SDK builds it from a llama.cpp-style reply: no call id
        id="c9",
        object="chat.completion",
        created=0,
        model="m",
        choices=[{"index": 0, "finish_reason": "tool_calls", "message": message}],
    )
    response = from_openai_completion(raw)
    assert [u.id for u in response.tool_uses()] == ["call_c9_0"]


async def test_wrong_base_url_says_so(server: FakeModelServer) -> None:
    wrong = OpenAICompatibleClient(model="llama3", base_url=server.base_url, max_retries=0)  # no /v1
    try:
        with pytest.raises(ModelError) as caught:
            await wrong.complete(ModelRequest("sys", [Message.user("hi")], [], 10))
    finally:
        await wrong.close()
    assert "HTTP 404" in str(caught.value) and "usually end in /v1" in str(caught.value), str(caught.value)


def test_official_openai_gets_max_completion_tokens_local_servers_max_tokens() -> None:
    assert output_limit_parameter("https://api.openai.com/v1/") == "max_completion_tokens"
    assert output_limit_parameter("http://localhost:11434/v1/") == "max_tokens"
    assert output_limit_parameter("http://127.0.0.1:8000/v1/") == "max_tokens"


async def test_a_server_refusing_max_tokens_gets_max_completion_tokens_from_then_on(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    refusal = (
        "Unsupported parameter: 'max_tokens' is not supported with this model. "
        "Use 'max_completion_tokens' instead."
    )

    def respond(request: RecordedRequest) -> FakeTurn | Fault:
        if "max_tokens" in request.body:
            return Fault("bad_request", retry_after=None, message=refusal)
        return text_turn(f"limit {request.body['max_completion_tokens']}")

    server.responder = respond
    first = await client.complete(ModelRequest("sys", [Message.user("hi")], [], 77))
    second = await client.complete(ModelRequest("sys", [Message.user("again")], [], 88))
    assert (first.text, second.text) == ("limit 77", "limit 88")
    assert ["max_tokens" in r.body for r in server.requests] == [True, False, False]


async def test_other_bad_requests_are_not_resent(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    server.inject(Fault("bad_request", retry_after=None, message="messages: field required"))
    with pytest.raises(ModelError) as caught:
        await client.complete(ModelRequest("sys", [Message.user("hi")], [], 10))
    assert caught.value.kind == "bad_request"
    assert len(server.requests) == 1


async def test_a_turn_that_must_not_call_tools_sends_no_tools(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    """Local servers often ignore tool_choice; leaving the tools out is the sure way to get an answer."""
    conversation = [
        Message.user("go"),
        Message("assistant", [ToolUseBlock("call_1", "echo", {"text": "x"})]),
        Message("user", [ToolResultBlock("call_1", "x"), TextBlock("Answer now.")]),
    ]
    server.script(text_turn("answer"))
    response = await client.complete(
        ModelRequest("sys", conversation, sample_registry().specs(), 10, tool_choice="none")
    )
    assert response.text == "answer"
    (sent,) = server.requests
    assert "tools" not in sent.body and "tool_choice" not in sent.body
    assert sent.body["max_tokens"] == 10
    assert server.rejected == []
