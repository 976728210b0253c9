"""The fake API refuses what the real APIs refuse, so tests passing against it mean valid requests."""

from __future__ import annotations

import pytest
from prscope.analysis.models.anthropic_client import to_anthropic_messages
from prscope.analysis.models.base import (
    Message,
    ModelError,
    ModelRequest,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
)

from tests.fakeapi import FakeModelServer, FakeTurn, text_turn
from tests.fakeapi.support import PROVIDERS, Provider, make_client
from tests.fakeapi.validation import anthropic_request_problem, openai_request_problem

ECHO_TOOL = [{"name": "echo", "description": "echo", "input_schema": {"type": "object"}}]
UNANSWERED = [
    Message.user("go"),
    Message("assistant", [ToolUseBlock("toolu_1", "echo", {"text": "x"})]),
    Message.user("no result given"),
]


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_unanswered_tool_call_is_refused_like_the_real_api(provider: Provider) -> None:
    with FakeModelServer() as server:
        client = make_client(provider, server, max_retries=0)
        server.script(text_turn("never served"))
        try:
            with pytest.raises(ModelError) as caught:
                await client.complete(ModelRequest("sys", UNANSWERED, [], 10))
        finally:
            await client.close()
        assert caught.value.kind == "bad_request"
        assert len(server.rejected) == 1
        assert server.remaining_turns == 1


def test_anthropic_rules() -> None:
    ok = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}]}
    assert anthropic_request_problem(ok) is None
    assert "first message" in str(
        anthropic_request_problem({**ok, "messages": [{"role": "assistant", "content": "x"}]})
    )
    empty_text = {**ok, "messages": [{"role": "user", "content": [{"type": "text", "text": ""}]}]}
    assert "non-empty" in str(anthropic_request_problem(empty_text))
    stray = {
        **ok,
        "messages": [
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "nope", "content": "x"}]}
        ],
    }
    assert "tool_use_id" in str(anthropic_request_problem(stray))
    marked = {"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}
    too_many = {**ok, "messages": [{"role": "user", "content": [marked] * 5}]}
    assert "maximum of 4" in str(anthropic_request_problem(too_many))


def test_openai_rules() -> None:
    ok = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}
    assert openai_request_problem(ok) is None
    call = {"id": "c1", "type": "function", "function": {"name": "echo", "arguments": "{}"}}
    unanswered = {**ok, "messages": [*ok["messages"], {"role": "assistant", "tool_calls": [call]}]}
    assert "c1" in str(openai_request_problem(unanswered))
    stray = {**ok, "messages": [*ok["messages"], {"role": "tool", "tool_call_id": "zz", "content": "x"}]}
    assert "role 'tool'" in str(openai_request_problem(stray))


def test_tool_results_come_before_text_in_a_user_turn() -> None:
    body = {
        "model": "m",
        "max_tokens": 5,
        "messages": [
            {"role": "user", "content": "go"},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "e", "input": {}}]},
            {
                "role": "user",
                "content": [{"type": "text", "text": "note"}, {"type": "tool_result", "tool_use_id": "t1"}],
            },
        ],
    }
    assert "before any other content" in str(anthropic_request_problem(body))


def test_runner_transcript_blocks_are_accepted() -> None:
    messages = [
        Message.user("go"),
        Message("assistant", [TextBlock("checking"), ToolUseBlock("t1", "echo", {})]),
        Message("user", [ToolResultBlock("t1", "x"), TextBlock("context note")]),
    ]
    body = {"model": "m", "max_tokens": 5, "messages": to_anthropic_messages(messages), "tools": ECHO_TOOL}
    assert anthropic_request_problem(body) is None


def test_tool_blocks_need_tool_definitions_even_when_tools_may_not_be_called() -> None:
    messages = to_anthropic_messages(
        [
            Message.user("go"),
            Message("assistant", [ToolUseBlock("t1", "echo", {})]),
            Message("user", [ToolResultBlock("t1", "x"), TextBlock("answer now")]),
        ]
    )
    body = {"model": "m", "max_tokens": 5, "messages": messages}
    assert "must define tools" in str(anthropic_request_problem(body))
    assert anthropic_request_problem({**body, "tools": ECHO_TOOL, "tool_choice": {"type": "none"}}) is None
    wrong_choice = {**body, "tools": ECHO_TOOL, "tool_choice": {"type": "never"}}
    assert "tool_choice" in str(anthropic_request_problem(wrong_choice))


async def test_a_failing_responder_fails_fast_without_retries() -> None:
    def broken(request: object) -> FakeTurn:
        raise KeyError("no script for this agent")

    with FakeModelServer(responder=broken) as server:
        client = make_client("anthropic", server, max_retries=3)
        try:
            with pytest.raises(ModelError) as caught:
                await client.complete(ModelRequest("sys", [Message.user("hi")], [], 10))
        finally:
            await client.close()
        assert len(server.requests) == 1
        assert server.responder_errors == ["KeyError: 'no script for this agent'"]
    assert "responder failed" in str(caught.value)
