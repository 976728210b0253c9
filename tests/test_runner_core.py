"""ConversationRunner behaviour with the scripted client: the loop's rules without the network."""

from __future__ import annotations

import asyncio
import time

import pytest
from prscope.analysis.agent.context import ELIDED_MARKER
from prscope.analysis.agent.events import (
    AgentStatus,
    EventRecorder,
    RunNotice,
    ToolCallFinished,
    ToolCallStarted,
    TurnFinished,
    TurnStarted,
    UsageUpdated,
)
from prscope.analysis.agent.runner import Conversation, ConversationRunner, RunConfig, RunOutcome
from prscope.analysis.models.base import ModelError, ModelRequest, ModelResponse, ToolResultBlock
from prscope.analysis.models.scripted import ScriptedClient, text_response, tool_response

from tests.fakeapi.support import sample_context, sample_registry


def config(**overrides: object) -> RunConfig:
    base = RunConfig(system_prompt="You review code.", tools=sample_registry(), tool_context=sample_context())
    for key, value in overrides.items():
        setattr(base, key, value)
    return base


async def run(
    client: ScriptedClient, cfg: RunConfig | None = None, text: str = "review this"
) -> tuple[RunOutcome, EventRecorder]:
    recorder = EventRecorder()
    outcome = await ConversationRunner(client).run(
        cfg or config(), Conversation.start(text), recorder, asyncio.Event()
    )
    return outcome, recorder


async def test_tool_loop_feeds_results_back_in_order() -> None:
    client = ScriptedClient(
        [
            tool_response(("echo", {"text": "one"}), ("echo", {"text": "two"})),
            text_response("all done"),
        ]
    )
    outcome, events = await run(client)
    assert outcome.status == "completed"
    assert outcome.text == "all done"
    assert outcome.tool_calls == 2
    assert outcome.iterations == 2
    results = client.requests[1].messages[-1].tool_results()
    assert [r.content for r in results] == ["one", "two"]
    assert outcome.usage.requests == 2
    assert [type(e) for e in events.events if isinstance(e, AgentStatus)] == [AgentStatus, AgentStatus]
    assert [e.status for e in events.of_type(AgentStatus)] == ["running", "completed"]


async def test_parallel_tool_calls_run_concurrently() -> None:
    calls = [("sleep", {"seconds": 0.2, "label": str(i)}) for i in range(4)]
    client = ScriptedClient([tool_response(*calls), text_response("done")])
    outcome, events = await run(client)
    assert outcome.status == "completed"
    contents = [r.content for r in client.requests[1].messages[-1].tool_results()]
    assert contents == [f"slept 0.2s {i}" for i in range(4)]
    started = events.of_type(ToolCallStarted)
    finished = events.of_type(ToolCallFinished)
    assert len(started) == 4 and len(finished) == 4 and all(f.duration_s > 0.15 for f in finished)
    # Overlap, not wall time (a loaded CI machine stretches that): every call started before the first
    # one finished, which calls run one after another never do.
    assert max(s.at for s in started) < min(f.at for f in finished)


async def test_tool_errors_go_back_to_the_model_marked() -> None:
    client = ScriptedClient(
        [tool_response(("fail", {"reason": "no such file"}), ("nope", {})), text_response("ok")]
    )
    outcome, events = await run(client)
    results = client.requests[1].messages[-1].tool_results()
    assert results[0].is_error and "no such file" in results[0].content
    assert results[1].is_error and "unknown tool" in results[1].content
    finished = events.of_type(ToolCallFinished)
    assert [f.is_error for f in finished] == [True, True]
    assert {f.tool: f.error for f in finished}["fail"] == "Error: no such file"
    assert outcome.status == "completed"


async def test_iteration_limit_gives_one_last_turn_without_tools() -> None:
    endless = tool_response(("echo", {"text": "again"}))
    client = ScriptedClient(
        responder=lambda req: endless if req.tool_choice == "auto" else text_response("final answer")
    )
    outcome, events = await run(client, config(max_iterations=3))
    assert outcome.status == "max_iterations"
    assert outcome.text == "final answer"
    assert outcome.iterations == 4
    assert [r.tool_choice for r in client.requests] == ["auto", "auto", "auto", "none"]
    assert all(r.tools for r in client.requests)  # still defined: the conversation holds tool blocks
    assert "no longer available" in client.requests[-1].messages[-1].text
    assert any(isinstance(e, RunNotice) and e.kind == "wrap_up" for e in events.events)


async def test_tool_call_limit_refuses_extra_calls_and_wraps_up() -> None:
    client = ScriptedClient(
        [
            tool_response(("echo", {"text": "a"}), ("echo", {"text": "b"}), ("echo", {"text": "c"})),
            text_response("answer from what I have"),
        ]
    )
    outcome, _ = await run(client, config(max_tool_calls=2))
    results = client.requests[1].messages[-1].tool_results()
    assert [r.is_error for r in results] == [False, False, True]
    assert "tool-call limit" in results[2].content
    assert client.requests[1].tool_choice == "none"
    assert outcome.status == "max_iterations"
    assert outcome.tool_calls == 2
    assert outcome.text == "answer from what I have"


async def test_token_budget_exhausted_gets_a_last_turn() -> None:
    client = ScriptedClient(
        [tool_response(("echo", {"text": "x"}), input_tokens=900, output_tokens=200), text_response("short")]
    )
    outcome, events = await run(client, config(token_budget=1000))
    assert outcome.status == "budget_exhausted"
    assert outcome.text == "short"
    assert client.requests[-1].tool_choice == "none"
    assert events.of_type(AgentStatus)[0].tokens_max == 1000


async def test_missing_block_is_nudged_then_reported() -> None:
    client = ScriptedClient([text_response("no block"), text_response("still none"), text_response("nope")])
    outcome, events = await run(client, config(expected_block="findings"))
    assert outcome.status == "completed"
    assert outcome.missing_block is True
    assert outcome.text == "nope"
    assert outcome.nudges == 2
    assert len(client.requests) == 3
    assert "<findings>" in client.requests[1].messages[-1].text
    assert len([e for e in events.of_type(RunNotice) if e.kind == "nudge"]) == 2


async def test_nudge_that_works_clears_missing_block() -> None:
    client = ScriptedClient([text_response("forgot"), text_response("<findings>[]</findings>")])
    outcome, _ = await run(client, config(expected_block="findings"))
    assert outcome.missing_block is False
    assert outcome.text == "<findings>[]</findings>"


async def test_before_finish_hook_injects_a_turn() -> None:
    pending = ["background result: bug in foo()"]

    async def before_finish() -> str | None:
        return pending.pop() if pending else None

    client = ScriptedClient([text_response("first answer"), text_response("revised answer")])
    outcome, _ = await run(client, config(before_finish=before_finish))
    assert outcome.text == "revised answer"
    assert client.requests[1].messages[-1].text == "background result: bug in foo()"


async def test_max_tokens_mid_answer_asks_to_continue() -> None:
    client = ScriptedClient(
        [text_response("<answer>the first half", "max_tokens"), text_response(" and the rest</answer>")]
    )
    outcome, events = await run(client, config(expected_block="answer"))
    assert outcome.text == "<answer>the first half and the rest</answer>"
    assert outcome.truncated is False and outcome.missing_block is False
    assert "cut off" in client.requests[1].messages[-1].text
    assert any(e.kind == "continued" for e in events.of_type(RunNotice))


async def test_max_tokens_every_time_is_returned_truncated() -> None:
    client = ScriptedClient(responder=lambda req: text_response("more ", "max_tokens"))
    outcome, _ = await run(client, config(max_continuations=2))
    assert outcome.status == "completed"
    assert outcome.truncated is True
    assert outcome.text == "more more more "
    assert len(client.requests) == 3


async def test_refusal_is_an_error_with_the_conversation_kept() -> None:
    client = ScriptedClient([text_response("I can't help with that.", "refusal")])
    outcome, _ = await run(client)
    assert outcome.status == "error"
    assert outcome.error is not None and "refusal" in outcome.error
    assert outcome.conversation.messages[-1].text == "I can't help with that."


async def test_model_error_ends_the_run_with_its_text() -> None:
    client = ScriptedClient(
        [
            tool_response(("echo", {"text": "x"})),
            ModelError("Anthropic API error (overloaded, HTTP 529)", "overloaded"),
        ]
    )
    outcome, events = await run(client)
    assert outcome.status == "error"
    assert outcome.error == "Anthropic API error (overloaded, HTTP 529)"
    assert len(outcome.conversation.messages) == 3
    assert events.of_type(AgentStatus)[-1].status == "error"


async def test_pause_turn_continues_without_a_new_user_message() -> None:
    client = ScriptedClient([text_response("working", "pause_turn"), text_response(", done")])
    outcome, _ = await run(client)
    assert outcome.text == "working, done"
    assert client.requests[1].messages[-1].role == "assistant"


async def test_events_cover_turns_and_usage() -> None:
    client = ScriptedClient([tool_response(("echo", {"text": "x"})), text_response("done")])
    _, events = await run(client)
    assert [e.iteration for e in events.of_type(TurnStarted)] == [1, 2]
    assert [e.stop_reason for e in events.of_type(TurnFinished)] == ["tool_use", "end_turn"]
    usage = events.of_type(UsageUpdated)
    assert [u.usage.requests for u in usage] == [1, 2]
    assert usage[-1].context_window == 200_000


async def test_a_raising_event_sink_does_not_stop_the_run() -> None:
    def broken(event: object) -> None:
        raise RuntimeError("display crashed")

    client = ScriptedClient([tool_response(("echo", {"text": "x"})), text_response("done")])
    outcome = await ConversationRunner(client).run(
        config(), Conversation.start("go"), broken, asyncio.Event()
    )
    assert outcome.status == "completed"


async def test_context_note_then_context_low_prompt() -> None:
    client = ScriptedClient(
        [
            tool_response(("echo", {"text": "x"}), input_tokens=600),
            tool_response(("echo", {"text": "y"}), input_tokens=800),
            text_response("answer now"),
        ],
        context_window=1000,
    )
    outcome, events = await run(client, config(max_output_tokens=100))
    first_results = client.requests[1].messages[-1].tool_results()
    assert "% of the model's window used" in first_results[-1].content
    last = client.requests[2]
    assert last.tool_choice == "none"
    assert "close to the model's context limit" in last.messages[-1].text
    assert outcome.status == "completed" and outcome.text == "answer now"
    kinds = [e.kind for e in events.of_type(RunNotice)]
    assert "context_note" in kinds and "context_low" in kinds


async def test_old_tool_results_are_elided_when_the_window_would_overflow() -> None:
    big = "x" * 2000  # about 500 tokens each
    client = ScriptedClient(
        [
            tool_response(("echo", {"text": big + "1"}), input_tokens=50),
            tool_response(("echo", {"text": big + "2"}), input_tokens=560),
            tool_response(("echo", {"text": big}), input_tokens=1070),
            text_response("done"),
        ],
        context_window=1500,
    )
    cfg = config(max_output_tokens=200, context_low_ratio=0.99, context_note_ratio=0.99)
    outcome, events = await run(client, cfg)
    assert outcome.elided_results == 1
    last_request = client.requests[-1]
    results = [b for m in last_request.messages for b in m.content if isinstance(b, ToolResultBlock)]
    assert results[0].content == ELIDED_MARKER
    assert results[-1].content == big
    assert any(e.kind == "elided" for e in events.of_type(RunNotice))


async def test_cancel_event_stops_a_slow_model_call_at_once() -> None:
    client = ScriptedClient([text_response("never")], delay_s=10)
    cancel = asyncio.Event()
    recorder = EventRecorder()
    task = asyncio.create_task(
        ConversationRunner(client).run(config(), Conversation.start("go"), recorder, cancel)
    )
    await asyncio.sleep(0.05)
    started = time.monotonic()
    cancel.set()
    outcome = await asyncio.wait_for(task, 5)
    assert time.monotonic() - started < 3  # the answer was due in 10 s
    assert outcome.status == "cancelled"
    assert recorder.of_type(AgentStatus)[-1].status == "cancelled"
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_cancel_during_tools_answers_every_open_call() -> None:
    client = ScriptedClient([tool_response(("sleep", {"seconds": 5}), ("sleep", {"seconds": 5}))])
    cancel = asyncio.Event()
    task = asyncio.create_task(
        ConversationRunner(client).run(config(), Conversation.start("go"), EventRecorder(), cancel)
    )
    await asyncio.sleep(0.1)
    cancel.set()
    outcome = await asyncio.wait_for(task, 1)
    assert outcome.status == "cancelled"
    results = outcome.conversation.messages[-1].tool_results()
    assert len(results) == 2 and all(r.is_error and "cancelled" in r.content for r in results)
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_cancelling_the_task_propagates_and_leaves_nothing_running() -> None:
    client = ScriptedClient([text_response("never")], delay_s=10)
    recorder = EventRecorder()
    task = asyncio.create_task(
        ConversationRunner(client).run(config(), Conversation.start("go"), recorder, asyncio.Event())
    )
    await asyncio.sleep(0.05)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert recorder.of_type(AgentStatus)[-1].status == "cancelled"
    assert asyncio.all_tasks() == {asyncio.current_task()}


async def test_deadline_interrupts_tools_and_wraps_up() -> None:
    client = ScriptedClient(
        responder=lambda req: (
            tool_response(("sleep", {"seconds": 5}))
            if req.tool_choice == "auto"
            else text_response("partial")
        )
    )
    started = time.monotonic()
    outcome, events = await run(client, config(deadline_s=0.3, wrap_up_s=2))
    assert time.monotonic() - started < 1.5
    assert outcome.status == "timed_out"
    assert outcome.text == "partial"
    assert client.requests[-1].tool_choice == "none"
    assert events.of_type(AgentStatus)[-1].status == "timed_out"


async def test_deadline_during_the_wrap_up_turn_ends_the_run() -> None:
    client = ScriptedClient([text_response("slow")], delay_s=5)
    started = time.monotonic()
    outcome, _ = await run(client, config(deadline_s=0.1, wrap_up_s=0.2))
    assert time.monotonic() - started < 1.0
    assert outcome.status == "timed_out"


async def test_conversation_round_trips_through_dicts() -> None:
    client = ScriptedClient([tool_response(("echo", {"text": "x"})), text_response("done")])
    outcome, _ = await run(client)
    again = Conversation.from_dicts(outcome.conversation.to_dicts())
    assert again == outcome.conversation


def _request_text(request: ModelRequest) -> str:
    return request.messages[0].text


async def test_concurrent_runs_share_one_routed_client() -> None:
    def route(request: ModelRequest) -> ModelResponse:
        return text_response(f"answer for {_request_text(request)}")

    client = ScriptedClient(responder=route, delay_s=0.05)
    runner = ConversationRunner(client)
    outcomes = await asyncio.gather(
        *(
            runner.run(
                config(agent_id=f"sub{i}"), Conversation.start(f"q{i}"), EventRecorder(), asyncio.Event()
            )
            for i in range(5)
        )
    )
    assert [o.text for o in outcomes] == [f"answer for q{i}" for i in range(5)]


async def test_overflow_reported_by_the_api_elides_read_results_and_retries() -> None:
    client = ScriptedClient(
        [
            tool_response(("echo", {"text": "old result"})),
            tool_response(("echo", {"text": "new result"})),
            ModelError("API error (bad_request, HTTP 400): prompt is too long: 210000 tokens", "bad_request"),
            text_response("done"),
        ]
    )
    outcome, _ = await run(client)
    assert outcome.status == "completed" and outcome.text == "done"
    retried = client.requests[-1]
    results = [b for m in retried.messages for b in m.content if isinstance(b, ToolResultBlock)]
    assert [r.content for r in results] == [ELIDED_MARKER, "new result"]
    assert outcome.elided_results == 1


async def test_an_unexpected_client_failure_is_an_error_outcome() -> None:
    def broken(request: ModelRequest) -> ModelResponse:
        raise RuntimeError("bug in a client")

    client = ScriptedClient([tool_response(("echo", {"text": "x"}))], responder=broken)
    outcome, _ = await run(client)
    assert outcome.status == "error"
    assert outcome.error == "model client failed: RuntimeError: bug in a client"
    assert len(outcome.conversation.messages) == 3


async def test_cancel_set_before_the_run_makes_no_request() -> None:
    client = ScriptedClient([text_response("never")])
    cancel = asyncio.Event()
    cancel.set()
    outcome = await ConversationRunner(client).run(
        config(), Conversation.start("go"), EventRecorder(), cancel
    )
    assert outcome.status == "cancelled"
    assert client.requests == []


async def test_tool_call_events_carry_an_argument_preview() -> None:
    client = ScriptedClient([tool_response(("echo", {"text": "x" * 500})), text_response("done")])
    _, events = await run(client)
    started = events.of_type(ToolCallStarted)[0]
    assert started.tool == "echo"
    assert started.arguments.startswith('text="xxx')
    assert len(started.arguments) == 120


async def test_a_failed_turn_is_closed_in_the_events() -> None:
    client = ScriptedClient([ModelError("API error (auth, HTTP 401): invalid key", "auth")])
    outcome, events = await run(client)
    assert outcome.status == "error"
    assert [(t.iteration, t.stop_reason) for t in events.of_type(TurnFinished)] == [(1, "error")]


@pytest.mark.parametrize(
    "bad", [{"max_iterations": 0}, {"max_tool_calls": -1}, {"max_output_tokens": 0}, {"deadline_s": 0}]
)
def test_nonsense_limits_are_refused(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError, match="RunConfig"):
        RunConfig(system_prompt="s", tools=sample_registry(), tool_context=sample_context(), **bad)  # type: ignore[arg-type]


async def test_text_cut_off_before_a_tool_call_is_not_glued_to_the_answer() -> None:
    client = ScriptedClient(
        [
            text_response("Let me", "max_tokens"),
            tool_response(("echo", {"text": "x"}), text=" check."),
            text_response("The answer."),
        ]
    )
    outcome, _ = await run(client)
    assert outcome.text == "The answer."
