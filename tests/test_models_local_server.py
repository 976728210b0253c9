"""What a real local model server (llama-cpp-python 0.3.36, chatml-function-calling, SmolLM2 135M)
answered that the fake did not, replayed through the fake (`wire="llama-cpp-python"`) so that the fast
suite keeps prscope honest about it. The real runs are tests/llama/; the shapes are listed in
bench/README_local_model.md."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import pytest
from prscope.analysis.agent.events import EventRecorder
from prscope.analysis.agent.runner import (
    Conversation,
    ConversationRunner,
    RunConfig,
    RunOutcome,
    output_limit,
)
from prscope.analysis.models.base import Message, ModelRequest
from prscope.analysis.models.openai_client import OpenAICompatibleClient

from tests.fakeapi import FakeModelServer, FakeTurn, RecordedRequest, ToolUse, text_turn, tool_turn
from tests.fakeapi.support import make_client, sample_context, sample_registry

LLAMA = "llama-cpp-python"
ANSWER = "<findings>\n</findings>\n<summary>nothing wrong</summary>"


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as fake:
        yield fake


@pytest.fixture
async def client(server: FakeModelServer) -> AsyncIterator[OpenAICompatibleClient]:
    made = make_client("openai", server, context_window=8192)
    assert isinstance(made, OpenAICompatibleClient)
    yield made
    await made.close()


def config(**overrides: object) -> RunConfig:
    base = RunConfig(
        system_prompt="You review code.",
        tools=sample_registry(),
        tool_context=sample_context(),
        expected_block="findings",
        max_output_tokens=8192,
    )
    for key, value in overrides.items():
        setattr(base, key, value)
    return base


async def run(client: OpenAICompatibleClient, cfg: RunConfig) -> RunOutcome:
    runner = ConversationRunner(client)
    return await runner.run(cfg, Conversation.start("Review this."), EventRecorder(), asyncio.Event())


async def test_tools_are_offered_with_tool_choice_auto_said_outright(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    """llama-cpp-python reads a missing tool_choice as "none": it dropped the tools from the prompt and
    the model rambled 25,000 characters until the window was full."""
    server.script(text_turn(ANSWER, wire=LLAMA))
    specs = sample_registry().specs()
    await client.complete(ModelRequest("sys", [Message.user("hi")], specs, 100))
    sent = server.requests[0]
    assert sent.body["tool_choice"] == "auto"
    assert [tool["function"]["name"] for tool in sent.body["tools"]] == ["sleep", "echo", "fail"]


async def test_the_output_limit_leaves_room_for_the_prompt_in_a_small_window(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    """llama.cpp refuses prompt + max_tokens over n_ctx (HTTP 400): an 8k window gets 2k for the reply, and
    the tool results the model has read are not all elided to make room for 8k of output."""
    long_text = "x" * 8000  # about 2,000 tokens by the runner's estimate
    server.script(
        tool_turn(("echo", {"text": long_text}), wire=LLAMA, input_tokens=900),
        tool_turn(("echo", {"text": "second"}), wire=LLAMA, input_tokens=2900),
        text_turn(ANSWER, wire=LLAMA, input_tokens=3000),
    )
    outcome = await run(client, config())
    assert outcome.status == "completed"
    assert {r.body["max_tokens"] for r in server.requests} == {2048}
    assert outcome.elided_results == 0
    assert long_text in str(server.requests[-1].messages)
    assert output_limit(8192, 200_000) == 8192 and output_limit(4096, 8192) == 2048


async def test_llama_cpp_tool_calls_run_by_their_name_not_the_legacy_function_call(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    """Its tool-call ids read `call__0_echo_cmpl-<uuid>`, and it adds a deprecated `function_call` named
    `echo:` (with the colon): the call that runs is the tool call, and its result answers that id."""
    server.script(tool_turn(("echo", {"text": "hello"}), wire=LLAMA), text_turn(ANSWER, wire=LLAMA))
    outcome = await run(client, config())
    assert outcome.status == "completed" and outcome.tool_calls == 1
    assistant = server.requests[1].messages[2]
    # A string, never null: llama-cpp-python answers a null content with HTTP 500 (its request schema).
    assert assistant["content"] == ""
    first_call = assistant["tool_calls"][0]
    assert first_call["id"].startswith("call__0_echo_cmpl-")
    assert first_call["function"]["name"] == "echo"
    results = server.requests[1].tool_results
    assert results == [{"tool_use_id": first_call["id"], "content": "hello", "is_error": None}]


async def test_usage_without_token_details_is_the_servers_count(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    server.script(text_turn(ANSWER, wire=LLAMA, input_tokens=6297, output_tokens=9))
    outcome = await run(client, config())
    assert (outcome.usage.requests, outcome.usage.input_tokens, outcome.usage.output_tokens) == (1, 6297, 9)
    assert outcome.usage.cache_read_input_tokens == 0


def _has_placeholder(request: RecordedRequest) -> bool:
    return any(m.get("role") == "assistant" for m in request.messages)


async def test_an_empty_reply_is_nudged_without_tools_and_never_copied_back(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    """With tools offered, chatml-function-calling lets the model write a message only through a grammar
    that admits nothing but a function name or the end: the reply is "" (finish_reason "stop"). prscope
    used to record "(no reply)" there, which the model then copied as its answer."""
    server.script(text_turn("", wire=LLAMA, output_tokens=9), text_turn(ANSWER, wire=LLAMA))
    recorder = EventRecorder()
    outcome = await ConversationRunner(client).run(
        config(), Conversation.start("Review this."), recorder, asyncio.Event()
    )
    assert outcome.status == "completed" and not outcome.missing_block
    nudge = server.requests[1]
    assert not nudge.tools_usable  # the nudge asks for the answer: no tools, so no grammar
    assert not _has_placeholder(nudge)
    assert "(no reply)" not in str(nudge.messages)
    assert "has no <findings> block" in nudge.last_user_text or "<findings>" in nudge.last_user_text
    assert any("the reply is empty; nudge 1" in str(event) for event in recorder.events)


async def test_replies_that_stay_empty_end_partial_with_the_reason(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    server.script(*(text_turn("", wire=LLAMA) for _ in range(3)))
    outcome = await run(client, config())
    assert outcome.status == "completed" and outcome.missing_block  # the review calls this partial
    assert outcome.text == "" and outcome.nudges == 2
    assert len(server.requests) == 3 and server.rejected == []


async def test_grammar_nonsense_in_arguments_is_a_tool_error_the_model_reads(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    """Arguments are valid JSON for the schema (the grammar sees to it) and still nonsense: a Windows path
    to a file that does not exist, a number where text was meant."""
    server.script(
        tool_turn(("fail", {"reason": "C:\\Users\\nobody\\cart.py"}), wire=LLAMA),
        tool_turn(("echo", {"text": 12}), wire=LLAMA),
        text_turn(ANSWER, wire=LLAMA),
    )
    outcome = await run(client, config())
    assert outcome.status == "completed"
    errors = [r["content"] for r in server.requests[-1].tool_results]
    assert errors[0] == "Error: C:\\Users\\nobody\\cart.py"
    assert errors[1].startswith("Error: invalid arguments for echo: text:")


def test_fake_llama_turns_look_like_the_recorded_ones() -> None:
    from tests.fakeapi.server import _openai_completion

    body = _openai_completion(FakeTurn(text="", wire=LLAMA))
    assert body["choices"][0]["message"] == {"role": "assistant", "content": ""}
    assert "prompt_tokens_details" not in body["usage"] and body["id"].startswith("chatcmpl-")


ESCAPED_ANSWER = (
    "&lt;findings&gt;\n"
    "{&quot;rule&quot;: &quot;bug&quot;, &quot;path&quot;: &quot;a.py&quot;, &quot;line&quot;: 2, "
    "&quot;title&quot;: &quot;it&#39;s off by one&quot;}\n"
    "&lt;/findings&gt;\n&lt;summary&gt;checked a.py&lt;/summary&gt;"
)


def test_an_answer_in_html_entities_is_read() -> None:
    """chatml-function-calling renders messages through an autoescaping Jinja template: the model reads
    `&lt;findings&gt;` where we wrote `<findings>`, and a model that copies the format answers so."""
    from prscope.analysis.agent.blocks import parse_blocks
    from prscope.analysis.agent.runner import default_block_present

    reply = parse_blocks(ESCAPED_ANSWER)
    assert reply.findings_block_present and reply.problems == []
    assert [(f.path, f.line, f.title) for f in reply.findings] == [("a.py", 2, "it's off by one")]
    assert reply.summary == "checked a.py"
    assert default_block_present(ESCAPED_ANSWER, "findings")
    # Text that merely mentions an entity is left as it was written.
    assert parse_blocks("<summary>a &lt; b</summary>").summary == "a &lt; b"


async def test_an_escaped_answer_ends_the_run_without_a_nudge(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    server.script(text_turn(ESCAPED_ANSWER, wire=LLAMA))
    outcome = await run(client, config())
    assert outcome.status == "completed" and not outcome.missing_block and outcome.nudges == 0


def raw_call(name: str, raw: str) -> FakeTurn:
    return FakeTurn(tool_uses=[ToolUse(name, {}, raw_arguments=raw)], wire=LLAMA)


async def test_malformed_tool_calls_get_an_error_that_says_what_was_wrong(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    """Broken JSON, a JSON array, prose where the arguments object belongs, and a tool that does not
    exist: each is answered with an error the model can act on, and the run goes on to its answer."""
    server.script(
        raw_call("echo", '{"text": "unterminated'),
        raw_call("echo", '["text", "hello"]'),
        raw_call("echo", "I will now echo hello"),
        tool_turn(("read_file:", {"path": "a.py"}), wire=LLAMA),
        text_turn(ANSWER, wire=LLAMA),
    )
    outcome = await run(client, config())
    assert outcome.status == "completed" and not outcome.missing_block
    results = [r["content"] for r in server.requests[-1].tool_results]
    assert results[0] == (
        'Error: the arguments of echo are not a JSON object: \'{"text": "unterminated\'. '
        "Call it again with one JSON object of its parameters."
    )
    assert results[1].startswith('Error: the arguments of echo are not a JSON object: \'["text"')
    assert results[2].startswith("Error: the arguments of echo are not a JSON object: 'I will now")
    assert results[3] == "Error: unknown tool 'read_file:'. Available tools: sleep, echo, fail."
    assert server.rejected == []


async def test_a_repeated_call_is_not_run_again_and_the_model_is_told(
    client: OpenAICompatibleClient, server: FakeModelServer
) -> None:
    """A weak model loops on one call (the grammar's temperature-0 pick is the same every turn): the
    second identical call is answered from what the model already has, and says so."""
    server.script(
        tool_turn(("echo", {"text": "same"}), wire=LLAMA),
        tool_turn(("echo", {"text": "same"}), wire=LLAMA),
        tool_turn(("echo", {"text": "other"}), wire=LLAMA),
        text_turn(ANSWER, wire=LLAMA),
    )
    recorder = EventRecorder()
    outcome = await ConversationRunner(client).run(
        config(), Conversation.start("Review this."), recorder, asyncio.Event()
    )
    assert outcome.status == "completed"
    second = server.requests[2].tool_results[-1]["content"]
    assert second.startswith("Error: you already called echo with exactly these arguments")
    assert server.requests[3].tool_results[-1]["content"] == "other"
    assert any("called again with the same arguments" in str(e) for e in recorder.events)
