"""The ConversationRunner driving the real `anthropic` and `openai` SDKs over HTTP against the fake API."""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import AsyncIterator, Callable, Iterator

import pytest
from prscope.analysis.agent.context import ELIDED_MARKER
from prscope.analysis.agent.events import AgentStatus, EventRecorder, ToolCallFinished, ToolCallStarted
from prscope.analysis.agent.runner import Conversation, ConversationRunner, RunConfig, RunOutcome
from prscope.analysis.models.anthropic_client import AnthropicClient
from prscope.analysis.models.openai_client import OpenAICompatibleClient

from tests.fakeapi import FakeModelServer, FakeTurn, Fault, RecordedRequest, text_turn, tool_turn
from tests.fakeapi.support import PROVIDERS, TEST_KEY, Provider, make_client, sample_context, sample_registry

Client = AnthropicClient | OpenAICompatibleClient


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as fake:
        yield fake


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> Provider:
    param: Provider = request.param
    return param


@pytest.fixture
async def client(provider: Provider, server: FakeModelServer) -> AsyncIterator[Client]:
    made = make_client(provider, server)
    yield made
    await made.close()


def config(**overrides: object) -> RunConfig:
    base = RunConfig(system_prompt="You review code.", tools=sample_registry(), tool_context=sample_context())
    for key, value in overrides.items():
        setattr(base, key, value)
    return base


def assert_tools_withheld(request: RecordedRequest) -> None:
    """A last turn that must answer: Anthropic gets the same tool list (required while the conversation
    holds tool blocks; keeps the prompt cache) under tool_choice none, chat completions get no tools."""
    assert not request.tools_usable
    if request.api == "anthropic":
        assert request.tool_names == ["sleep", "echo", "fail"]
        assert request.body["tool_choice"] == {"type": "none"}
    else:
        assert "tools" not in request.body


async def run(client: Client, cfg: RunConfig | None = None) -> tuple[RunOutcome, EventRecorder]:
    recorder = EventRecorder()
    outcome = await ConversationRunner(client).run(
        cfg or config(), Conversation.start("Review the change."), recorder, asyncio.Event()
    )
    return outcome, recorder


async def test_multi_turn_tool_loop(client: Client, server: FakeModelServer) -> None:
    server.script(
        tool_turn(("echo", {"text": "hello"})),
        tool_turn(("echo", {"text": "a"}), ("fail", {"reason": "file outside the repository"})),
        text_turn("<answer>two lookups done</answer>"),
    )
    outcome, _ = await run(client, config(expected_block="answer"))
    assert outcome.status == "completed"
    assert outcome.text == "<answer>two lookups done</answer>"
    assert outcome.tool_calls == 3
    assert outcome.missing_block is False
    requests = server.requests
    assert len(requests) == 3
    assert [r["content"] for r in requests[1].tool_results] == ["hello"]
    second = requests[2].tool_results[1:]
    assert second[0]["content"] == "a"
    assert "file outside the repository" in second[1]["content"]
    assert requests[2].tool_names == ["sleep", "echo", "fail"]
    assert requests[0].system_text == "You review code."


async def test_parallel_tool_calls_are_concurrent(client: Client, server: FakeModelServer) -> None:
    # Eight calls of 0.2-0.34 s: the later calls finish first, yet the results must go back in call order.
    seconds = [0.34 - 0.02 * i for i in range(8)]
    server.script(
        tool_turn(*[("sleep", {"seconds": s, "label": str(i)}) for i, s in enumerate(seconds)]),
        text_turn("done"),
    )
    outcome, events = await run(client)
    starts = events.of_type(ToolCallStarted)
    ends = events.of_type(ToolCallFinished)
    assert len(starts) == 8 and len(ends) == 8
    # Overlap, not wall time (a loaded machine stretches both): every call started before any finished.
    assert max(s.at for s in starts) < min(e.at for e in ends)
    assert ends[0].call_id != starts[0].call_id  # finished out of order (0.34 s vs at most 0.32 s)
    results = server.requests[1].tool_results
    assert [r["content"] for r in results] == [f"slept {s:g}s {i}" for i, s in enumerate(seconds)]
    assert [r["tool_use_id"] for r in results] == [s.call_id for s in starts]
    assert outcome.status == "completed" and outcome.tool_calls == 8


async def test_max_iterations_ends_with_a_request_without_tools(
    client: Client, server: FakeModelServer
) -> None:
    def respond(request: RecordedRequest) -> FakeTurn:
        return (
            tool_turn(("echo", {"text": "more"}))
            if request.tools_usable
            else text_turn("what I found so far")
        )

    server.responder = respond
    outcome, _ = await run(client, config(max_iterations=3))
    assert outcome.status == "max_iterations"
    assert outcome.text == "what I found so far"
    requests = server.requests
    assert len(requests) == 4
    # Chat completions say tool_choice "auto" outright (llama-cpp-python drops tools without it).
    expected_choice = {"anthropic": None, "openai": "auto"}
    assert all(r.tools_usable and r.body.get("tool_choice") == expected_choice[r.api] for r in requests[:3])
    assert_tools_withheld(requests[-1])
    assert server.rejected == []
    assert "no longer available" in requests[-1].last_user_text


async def test_max_tokens_mid_answer_is_continued(client: Client, server: FakeModelServer) -> None:
    server.script(
        text_turn("<answer>first half", stop_reason="max_tokens"),
        text_turn(" second half</answer>"),
    )
    outcome, _ = await run(client, config(expected_block="answer"))
    assert outcome.text == "<answer>first half second half</answer>"
    assert outcome.truncated is False
    assert "cut off" in server.requests[1].last_user_text


async def test_refusal_is_reported(client: Client, server: FakeModelServer) -> None:
    server.script(text_turn("I will not do that.", stop_reason="refusal"))
    outcome, events = await run(client)
    assert outcome.status == "error"
    assert outcome.error is not None and "refusal" in outcome.error
    assert events.of_type(AgentStatus)[-1].status == "error"


async def test_usage_is_accounted_including_cache_tokens(
    client: Client, provider: Provider, server: FakeModelServer
) -> None:
    server.script(
        tool_turn(
            ("echo", {"text": "x"}), input_tokens=1000, output_tokens=50, cache_creation_input_tokens=800
        ),
        text_turn("done", input_tokens=300, output_tokens=40, cache_read_input_tokens=900),
    )
    outcome, _ = await run(client)
    usage = outcome.usage
    assert usage.requests == 2
    assert usage.output_tokens == 90
    assert usage.cache_read_input_tokens == 900
    if provider == "anthropic":
        assert usage.input_tokens == 1300
        assert usage.cache_creation_input_tokens == 800
    else:  # chat completions report cached tokens inside prompt_tokens and no cache writes
        assert usage.input_tokens == 1300
        assert usage.cache_creation_input_tokens == 0


async def test_cancel_mid_request_closes_the_connection(client: Client, server: FakeModelServer) -> None:
    server.script(text_turn("too late", delay_s=10))
    cancel = asyncio.Event()
    task = asyncio.create_task(
        ConversationRunner(client).run(config(), Conversation.start("go"), EventRecorder(), cancel)
    )
    assert await asyncio.to_thread(server.wait_for_requests, 1, 5.0)
    started = time.monotonic()
    cancel.set()
    outcome = await asyncio.wait_for(task, 5)
    assert time.monotonic() - started < 3  # the answer was due in 10 s
    assert outcome.status == "cancelled"
    assert await asyncio.to_thread(server.wait_for_disconnect, 3.0)
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_cancelling_the_task_closes_the_connection(client: Client, server: FakeModelServer) -> None:
    server.script(text_turn("too late", delay_s=10))
    task = asyncio.create_task(
        ConversationRunner(client).run(config(), Conversation.start("go"), EventRecorder(), asyncio.Event())
    )
    assert await asyncio.to_thread(server.wait_for_requests, 1, 5.0)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, 2)
    assert await asyncio.to_thread(server.wait_for_disconnect, 3.0)
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_context_low_asks_for_the_answer_without_tools(
    provider: Provider, server: FakeModelServer
) -> None:
    small = make_client(provider, server, context_window=2000)
    server.script(
        tool_turn(("echo", {"text": "x"}), input_tokens=1100),
        tool_turn(("echo", {"text": "y"}), input_tokens=1600),
        text_turn("<answer>short answer</answer>"),
    )
    try:
        outcome, _ = await run(small, config(max_output_tokens=200, expected_block="answer"))
    finally:
        await small.close()
    requests = server.requests
    assert "% of the model's window used" in requests[1].tool_results[-1]["content"]
    assert_tools_withheld(requests[2])
    assert server.rejected == []
    assert "close to the model's context limit" in requests[2].last_user_text
    assert outcome.status == "completed" and outcome.text == "<answer>short answer</answer>"


async def test_old_tool_results_are_elided(provider: Provider, server: FakeModelServer) -> None:
    small = make_client(provider, server, context_window=1500)
    big = "y" * 2000
    server.script(
        tool_turn(("echo", {"text": big + "1"}), input_tokens=50),
        tool_turn(("echo", {"text": big + "2"}), input_tokens=560),
        tool_turn(("echo", {"text": big + "3"}), input_tokens=1070),
        text_turn("done"),
    )
    try:
        cfg = config(max_output_tokens=200, context_note_ratio=0.99, context_low_ratio=0.99)
        outcome, _ = await run(small, cfg)
    finally:
        await small.close()
    contents = [r["content"] for r in server.requests[-1].tool_results]
    assert contents[0] == ELIDED_MARKER
    assert contents[1:] == [big + "2", big + "3"]
    assert outcome.elided_results == 1


async def test_errors_that_survive_retries_end_the_run_cleanly(
    client: Client, server: FakeModelServer
) -> None:
    server.script(tool_turn(("echo", {"text": "x"})))
    server.responder = lambda request: Fault("server_error", echo_api_key=True)
    outcome, events = await run(client)
    assert outcome.status == "error"
    assert outcome.error is not None
    assert "HTTP 500" in outcome.error and "\n" not in outcome.error and "Traceback" not in outcome.error
    assert TEST_KEY not in outcome.error
    assert len(outcome.conversation.messages) == 3  # user, assistant tool call, tool results
    assert len(server.requests) == 1 + 4  # the first turn, then one try and three retries
    assert events.of_type(AgentStatus)[-1].status == "error"


async def test_deadline_cancels_a_slow_request_and_wraps_up(client: Client, server: FakeModelServer) -> None:
    server.script(text_turn("too slow", delay_s=10), text_turn("<answer>what I have</answer>"))
    started = time.monotonic()
    outcome, _ = await run(client, config(deadline_s=0.5, wrap_up_s=5, expected_block="answer"))
    assert time.monotonic() - started < 3
    assert outcome.status == "timed_out"
    assert outcome.text == "<answer>what I have</answer>"
    assert outcome.missing_block is False
    assert await asyncio.to_thread(server.wait_for_disconnect, 3.0)
    last = server.requests[-1]
    assert_tools_withheld(last)
    assert "time for this task is up" in last.last_user_text


async def test_pause_turn_is_resumed_by_sending_the_turn_back(server: FakeModelServer) -> None:
    client = make_client("anthropic", server)
    server.script(text_turn("Still searching", stop_reason="pause_turn"), text_turn(" - found it."))
    try:
        outcome, _ = await run(client)
    finally:
        await client.close()
    assert outcome.status == "completed" and outcome.text == "Still searching - found it."
    resumed = server.requests[1].messages
    assert resumed[-1]["role"] == "assistant"
    assert resumed[-1]["content"][0]["text"] == "Still searching"
    assert server.rejected == []


def fault_on_second_request(fault: Fault) -> Callable[[RecordedRequest], FakeTurn | Fault]:
    """A tool turn, then `fault` in the middle of the loop, then the answer (for any retry)."""
    served = itertools.count()

    def respond(request: RecordedRequest) -> FakeTurn | Fault:
        number = next(served)
        if number == 0:
            return tool_turn(("echo", {"text": "looked"}))
        return fault if number == 1 else text_turn("<answer>done despite the fault</answer>")

    return respond


@pytest.mark.timeout(30)
@pytest.mark.parametrize(
    "fault",
    [
        Fault("rate_limit", retry_after=0.2),
        Fault("overloaded"),
        Fault("server_error"),
        Fault("drop"),
        Fault("slow", delay_s=0.4),
    ],
    ids=lambda fault: fault.kind,
)
async def test_a_fault_mid_loop_is_absorbed_and_the_run_completes(
    client: Client, server: FakeModelServer, fault: Fault
) -> None:
    server.responder = fault_on_second_request(fault)
    started = time.monotonic()
    outcome, events = await run(client, config(expected_block="answer"))
    assert outcome.status == "completed", outcome.error
    assert outcome.text == "<answer>done despite the fault</answer>"
    refused = fault.kind in ("rate_limit", "overloaded", "server_error")  # answered, then retried
    assert outcome.tool_calls == 1 and outcome.usage.requests == (3 if refused else 2)
    retries = [r.headers.get("x-stainless-retry-count") for r in server.requests]
    if fault.kind == "slow":  # served late, not retried: the client's timeout is longer than the delay
        assert retries == ["0", "0"]
        assert time.monotonic() - started >= 0.4
    else:
        assert retries == ["0", "0", "1"]
    if fault.kind == "rate_limit":
        assert time.monotonic() - started >= 0.2  # retry-after honoured
    assert [e.status for e in events.of_type(AgentStatus)] == ["running", "completed"]
    assert server.rejected == []


@pytest.mark.timeout(30)
async def test_malformed_json_mid_loop_ends_the_run_as_an_error_keeping_the_transcript(
    client: Client, server: FakeModelServer
) -> None:
    server.responder = fault_on_second_request(Fault("malformed"))
    outcome, events = await run(client)
    assert outcome.status == "error"
    assert outcome.error is not None and "malformed" in outcome.error and "\n" not in outcome.error
    assert [m.role for m in outcome.conversation.messages] == ["user", "assistant", "user"]
    assert outcome.conversation.messages[-1].tool_results()[0].content == "looked"
    assert events.of_type(AgentStatus)[-1].status == "error"


@pytest.mark.parametrize(
    ("limit", "status", "calls"),
    [
        ({"max_tool_calls": 2}, "max_iterations", 2),
        ({"token_budget": 400}, "budget_exhausted", 4),  # 220 tokens a turn: spent after two turns
    ],
    ids=["tool_calls", "token_budget"],
)
async def test_a_limit_gives_one_last_turn_that_cannot_call_tools(
    client: Client, server: FakeModelServer, limit: dict[str, int], status: str, calls: int
) -> None:
    turns = itertools.count()

    def respond(request: RecordedRequest) -> FakeTurn:
        if request.tools_usable:
            turn = next(turns)  # new arguments each turn: an identical call would not run again
            return tool_turn(("echo", {"text": f"a{turn}"}), ("echo", {"text": f"b{turn}"}), input_tokens=200)
        return text_turn("<answer>what the tools found</answer>")

    server.responder = respond
    outcome, _ = await run(client, config(expected_block="answer", **limit))
    assert outcome.status == status
    assert outcome.text == "<answer>what the tools found</answer>" and outcome.missing_block is False
    assert outcome.tool_calls == calls
    last = server.requests[-1]
    assert_tools_withheld(last)
    assert [r["content"][0] for r in last.tool_results][-2:] == ["a", "b"]  # the work done is kept
    assert server.rejected == []


async def test_a_missing_block_is_nudged_twice_then_the_raw_text_is_marked(
    client: Client, server: FakeModelServer
) -> None:
    server.script(text_turn("no block"), text_turn("still none"), text_turn("plain prose, no block"))
    outcome, _ = await run(client, config(expected_block="findings"))
    assert outcome.status == "completed"
    assert outcome.text == "plain prose, no block"
    assert outcome.missing_block is True and outcome.nudges == 2
    assert len(server.requests) == 3
    assert all("<findings>" in r.last_user_text for r in server.requests[1:])
