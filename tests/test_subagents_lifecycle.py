"""Subagent lifecycle: background mode and wait_subagents, errors with a partial transcript, empty
replies, cancellation of nested subagents and their requests, and the event sequence."""

from __future__ import annotations

import asyncio
import time
from pathlib import Path

from prscope.analysis.agent.events import AgentEvent, AgentStatus, ToolCallFinished, TurnStarted
from prscope.analysis.agent.subagents import SubagentLimits
from prscope.analysis.models.base import ModelClient, ModelRequest, ModelResponse

from tests.fakeapi import RecordedRequest
from tests.test_subagents_harness import (
    FakeModelServer,
    FakeTurn,
    Fault,
    Router,
    client_for,
    close_client,
    reply,
    run_parent,
    sample_repo,
    task,
    text_turn,
    tool_turn,
)


async def test_background_returns_a_handle_at_once_and_wait_collects(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [
                tool_turn(("run_subagent", {"task": task("bg"), "mode": "background", "label": "bg job"})),
                tool_turn(("read_file", {"path": "pkg/app.py"})),
                tool_turn(("wait_subagents", {"ids": ["sub-1"]})),
                text_turn("final"),
            ],
            "bg": [
                tool_turn(("read_file", {"path": "pkg/config.py"}), delay_s=0.3),
                text_turn(reply("bg summary", "bg answer"), delay_s=0.3),
            ],
        }
    )
    order: list[tuple[str, str]] = []

    def watch(event: AgentEvent) -> None:
        if isinstance(event, ToolCallFinished) and event.agent_id == "main":
            order.append(("main finished", event.tool))
        elif isinstance(event, AgentStatus) and event.agent_id == "sub-1":
            order.append(("sub-1", event.status))

    with FakeModelServer(responder=router) as server:
        started = time.monotonic()
        run = await run_parent(server, repo.root, extra_sink=watch)
        elapsed = time.monotonic() - started
    started_result = router.requests_of("main")[1].tool_results[0]
    assert "Started background subagent sub-1" in started_result["content"]
    assert "not finished" in started_result["content"]
    # The handle came back at once: the parent went on (another tool call) while the subagent ran.
    assert order.index(("main finished", "run_subagent")) < order.index(("main finished", "read_file"))
    assert order.index(("main finished", "read_file")) < order.index(("sub-1", "completed"))
    collected = router.requests_of("main")[3].tool_results[-1]["content"]
    assert 'Subagent sub-1 "bg job": completed' in collected
    assert "bg answer" in collected
    statuses = run.statuses("sub-1")
    assert statuses == ["pending", "background", "completed"]
    assert elapsed < 5


async def test_background_is_never_completed_early_and_is_awaited_before_finish(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            # The model starts a background subagent and immediately tries to finish.
            "main": [
                tool_turn(("run_subagent", {"task": task("late"), "mode": "background"})),
                text_turn("<findings></findings><summary>first try to finish</summary>"),
                text_turn("<findings></findings><summary>final, with the late result</summary>"),
            ],
            "late": [text_turn(reply("late summary", "late answer"), delay_s=0.5)],
        }
    )
    seen: list[tuple[str, str]] = []

    def watch(event: AgentEvent) -> None:
        if isinstance(event, AgentStatus):
            seen.append((event.agent_id, event.status))

    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root, extra_sink=watch)
    assert run.outcome is not None
    assert run.outcome.status == "completed"
    assert "final, with the late result" in run.outcome.text
    main_requests = router.requests_of("main")
    assert len(main_requests) == 3
    handover = main_requests[2].last_user_text
    assert "background subagents you started have now finished" in handover
    assert "late answer" in handover
    # Started -> background, and completed only once it really was.
    assert seen.index(("sub-1", "background")) < seen.index(("sub-1", "completed"))
    assert ("sub-1", "running") not in seen
    assert run.manager.record("sub-1").delivered


async def test_wait_with_timeout_reports_what_is_still_running(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [
                tool_turn(("run_subagent", {"task": task("w1"), "mode": "background"})),
                tool_turn(("wait_subagents", {"timeout_s": 0.1})),
                text_turn("done"),
            ],
            # Far longer than the 0.1 s wait: on a loaded machine the main turn that waits can itself
            # arrive half a second late, and the subagent must still be running then.
            "w1": [text_turn(reply("w1 summary"), delay_s=3.0)],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root)
    waited = router.requests_of("main")[2].tool_results[-1]["content"]
    assert "Still running (not finished): sub-1" in waited
    # Not collected by the model, so handed over before the final answer.
    assert "w1 summary" in router.requests_of("main")[-1].last_user_text
    assert run.statuses("sub-1")[-1] == "completed"


async def test_model_error_in_a_subagent_is_an_error_result_with_its_transcript(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [
                tool_turn(("run_subagent", {"task": task("boom")}), ("run_subagent", {"task": task("fine")})),
                text_turn("<findings></findings><summary>went on</summary>"),
            ],
            "boom": [
                tool_turn(("read_file", {"path": "pkg/config.py"}), text="Reading the config first."),
                Fault("server_error"),
            ],
            "fine": [text_turn(reply("fine summary"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root)
    assert run.outcome is not None and run.outcome.status == "completed"
    boom, fine = router.requests_of("main")[1].tool_results
    assert boom["is_error"] is True
    assert 'Subagent sub-1 "' in boom["content"] and ": error" in boom["content"]
    assert "HTTP 500" in boom["content"]
    assert "Transcript (first 8 KB)" in boom["content"]
    assert "[assistant] Reading the config first." in boom["content"]
    assert "[tool call read_file]" in boom["content"]
    assert "def load_config(path, strict=False)" in boom["content"]
    assert "sk-ant-test-key" not in boom["content"]
    assert fine["is_error"] is False
    statuses = {r.agent_id: r.status for r in run.manager.results()}
    assert statuses == {"sub-1": "error", "sub-2": "completed"}


async def test_transcript_excerpt_is_bounded_to_8_kb(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    repo.write("big.txt", "\n".join(f"line {i} " + "x" * 60 for i in range(600)))
    repo.commit("big")
    router = Router(
        {
            "main": [tool_turn(("run_subagent", {"task": task("huge")})), text_turn("done")],
            "huge": [tool_turn(("read_file", {"path": "big.txt"})), Fault("bad_request")],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root)
    (result,) = run.manager.results()
    assert result.status == "error"
    assert len(result.transcript_excerpt.encode()) <= 8 * 1024 + 40
    assert result.transcript_excerpt.endswith("[transcript cut at 8 KB]")


async def test_empty_reply_becomes_no_summary(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [tool_turn(("run_subagent", {"task": task("mute")})), text_turn("done")],
            "mute": [text_turn("")],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root)
    (result,) = run.manager.results()
    assert result.summary == "(no summary)"
    assert result.findings == []
    content = router.requests_of("main")[1].tool_results[0]["content"]
    assert "Summary:\n(no summary)" in content


async def test_cancellation_stops_nested_subagents_and_their_requests(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [
                tool_turn(
                    ("run_subagent", {"task": task("outer")}),
                    ("run_subagent", {"task": task("side"), "mode": "background"}),
                ),
                text_turn("never"),
            ],
            "outer": [tool_turn(("run_subagent", {"task": task("inner")})), text_turn(reply("never"))],
            "inner": [text_turn(reply("never"), delay_s=20)],
            "side": [text_turn(reply("never"), delay_s=20)],
        }
    )
    cancel = asyncio.Event()
    with FakeModelServer(responder=router) as server:

        async def cancel_when_both_wait() -> None:
            while not (router.requests_of("inner") and router.requests_of("side")):
                await asyncio.sleep(0.01)
            await asyncio.sleep(0.1)
            cancel.set()

        canceller = asyncio.create_task(cancel_when_both_wait())
        started = time.monotonic()
        run = await asyncio.wait_for(
            run_parent(server, repo.root, cancel=cancel, limits=SubagentLimits(max_depth=2)), timeout=10
        )
        elapsed = time.monotonic() - started
        await canceller
        assert asyncio.all_tasks() == {asyncio.current_task()}  # no subagent task left behind
        deadline = time.monotonic() + 5
        while server.disconnects < 2 and time.monotonic() < deadline:
            await asyncio.sleep(0.02)
        assert server.disconnects >= 2  # the in-flight HTTP requests were dropped, not awaited
    assert elapsed < 5
    assert run.outcome is not None and run.outcome.status == "cancelled"
    final = {node.id: node.status for node in run.manager.nodes() if node.parent_id}
    assert final == {"sub-1": "cancelled", "sub-2": "cancelled", "sub-1.3": "cancelled"}
    assert run.manager.record("sub-1.3").depth == 2
    assert all(r.task is None or r.task.done() for r in run.manager.subagents())


async def test_event_sequence_of_a_subagent(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [
                tool_turn(("run_subagent", {"task": task("ev"), "label": "event check"})),
                text_turn("ok"),
            ],
            "ev": [
                tool_turn(("read_file", {"path": "pkg/app.py"}), input_tokens=1200, output_tokens=30),
                text_turn(reply("ev summary"), input_tokens=1500, output_tokens=40),
            ],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root)
    events = [e for e in run.events.events if getattr(e, "agent_id", None) == "sub-1"]
    kinds = [type(e).__name__ for e in events]
    assert kinds[0] == "AgentStatus" and kinds[-1] == "AgentStatus"
    statuses = run.status_events("sub-1")
    transitions = [s.status for n, s in enumerate(statuses) if n == 0 or statuses[n - 1].status != s.status]
    assert transitions == ["pending", "running", "completed"]
    # While it runs, refreshed "running" statuses carry its progress as it happens.
    running = [s for s in statuses if s.status == "running"]
    assert [s.tool_calls for s in running][-1] == 1
    assert max(s.tokens_used for s in running) == 1540
    for status in statuses:
        assert status.parent_id == "main"
        assert status.label == "event check"
        assert status.depth == 1
        assert status.tokens_max == 200_000
    final = statuses[-1]
    assert final.tool_calls == 1
    assert final.tokens_used == 1540  # the context at its last response, against the window
    turns = [e for e in events if isinstance(e, TurnStarted)]
    assert [t.iteration for t in turns] == [1, 2]
    # The subagent's status events come between the parent's tool call start and finish.
    order = [
        (type(e).__name__, getattr(e, "agent_id", ""), getattr(e, "status", getattr(e, "tool", "")))
        for e in run.events.events
    ]
    start = order.index(("ToolCallStarted", "main", "run_subagent"))
    end = order.index(("ToolCallFinished", "main", "run_subagent"))
    assert (
        start
        < order.index(("AgentStatus", "sub-1", "pending"))
        < order.index(("AgentStatus", "sub-1", "completed"))
        < end
    )
    node = next(n for n in run.manager.nodes() if n.id == "sub-1")
    assert node.tokens == 1200 + 30 + 1500 + 40
    assert node.tool_calls == 1


async def test_background_child_of_a_timed_out_subagent_is_interrupted(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")

    def parent_turn(request: RecordedRequest) -> FakeTurn:
        if not request.tools_usable:
            return text_turn(reply("ran out of time", "partial"))
        return tool_turn(("read_file", {"path": "pkg/app.py"}), delay_s=0.8)

    router = Router(
        {
            "main": [tool_turn(("run_subagent", {"task": task("lead")})), text_turn("done")],
            "lead": [tool_turn(("run_subagent", {"task": task("child"), "mode": "background"})), parent_turn],
            "child": [text_turn(reply("never"), delay_s=20)],
        }
    )
    limits = SubagentLimits(max_depth=2, wall_time_s=0.6, wrap_up_grace_s=5)
    with FakeModelServer(responder=router) as server:
        run = await asyncio.wait_for(run_parent(server, repo.root, limits=limits), timeout=10)
        assert server.wait_for_disconnect(timeout=5)
    statuses = {r.agent_id: r.status for r in run.manager.results()}
    assert statuses == {"sub-1": "timed_out", "sub-1.2": "interrupted"}
    assert run.statuses("sub-1.2") == ["pending", "background", "interrupted"]


class CrashingClient:
    """A model client whose second call fails with a bug (not a ModelError): a crash inside a subagent."""

    def __init__(self, inner: ModelClient) -> None:
        self.inner = inner
        self.model = inner.model
        self.context_window = inner.context_window
        self.calls = 0

    async def complete(self, request: ModelRequest) -> ModelResponse:
        self.calls += 1
        if self.calls > 1:
            raise RuntimeError("client bug: unexpected None in response")
        return await self.inner.complete(request)

    async def close(self) -> None:
        await close_client(self.inner)


async def test_crash_inside_a_subagent_is_an_error_result_and_the_review_goes_on(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [
                tool_turn(("run_subagent", {"task": task("crash")})),
                text_turn("<findings></findings><summary>carried on</summary>"),
            ],
            "crash": [tool_turn(("read_file", {"path": "pkg/app.py"})), text_turn(reply("unreachable"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        crashing = CrashingClient(client_for(server))
        run = await run_parent(server, repo.root, subagent_client=crashing)
    assert run.outcome is not None and run.outcome.status == "completed"
    assert "carried on" in run.outcome.text
    (result,) = run.manager.results()
    assert result.status == "error" and not result.success
    assert (
        result.error is not None and "RuntimeError: client bug: unexpected None in response" in result.error
    )
    content = router.requests_of("main")[1].tool_results[0]["content"]
    assert "RuntimeError: client bug" in content
    assert "[tool call read_file]" in content and "load_config('app.toml')" in content
    assert run.statuses("sub-1")[-1] == "error"
