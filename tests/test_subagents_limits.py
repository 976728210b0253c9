"""Subagent limits: depth, per review, at once, wall time (with a wrap-up turn), context running low;
and parallel execution of several run_subagent calls of one turn."""

from __future__ import annotations

from pathlib import Path

import pytest
from prscope.analysis.agent.events import RunNotice
from prscope.analysis.agent.subagents import SubagentLimits
from pydantic import ValidationError

from tests.fakeapi import RecordedRequest
from tests.test_subagents_harness import (
    FakeModelServer,
    FakeTurn,
    Router,
    Step,
    reply,
    run_parent,
    sample_repo,
    task,
    text_turn,
    tool_turn,
)


def test_limit_defaults_and_bounds() -> None:
    limits = SubagentLimits()
    assert (limits.max_per_review, limits.max_concurrent, limits.wall_time_s) == (5, 8, 60.0)
    assert limits.max_depth == 1
    with pytest.raises(ValidationError):
        SubagentLimits(max_per_review=11)
    with pytest.raises(ValidationError):
        SubagentLimits(max_depth=5)


async def test_nesting_up_to_max_depth_then_the_tool_is_not_offered(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [tool_turn(("run_subagent", {"task": task("d1")})), text_turn("done")],
            "d1": [tool_turn(("run_subagent", {"task": task("d2")})), text_turn(reply("d1 done"))],
            "d2": [tool_turn(("run_subagent", {"task": task("d3")})), text_turn(reply("d2 done"))],
            "d3": [tool_turn(("run_subagent", {"task": task("d4")})), text_turn(reply("d3 done"))],
            "d4": [text_turn(reply("d4 done", "deepest answer"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root, limits=SubagentLimits(max_depth=4))
    for key in ("d1", "d2", "d3"):
        assert "run_subagent" in router.requests_of(key)[0].tool_names
    assert "run_subagent" not in router.requests_of("d4")[0].tool_names
    assert "wait_subagents" not in router.requests_of("d4")[0].tool_names
    tree = {node.id: (node.parent_id, node.status) for node in run.manager.nodes()}
    assert tree == {
        "main": (None, "running"),
        "sub-1": ("main", "completed"),
        "sub-1.2": ("sub-1", "completed"),
        "sub-1.2.3": ("sub-1.2", "completed"),
        "sub-1.2.3.4": ("sub-1.2.3", "completed"),
    }
    assert run.manager.record("sub-1.2.3.4").depth == 4
    # The nested result travelled up: d3 got d4's answer as a tool result.
    assert "deepest answer" in router.requests_of("d3")[1].tool_results[0]["content"]


async def test_default_depth_refuses_nesting_even_if_called(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [tool_turn(("run_subagent", {"task": task("flat")})), text_turn("done")],
            # The tool is not offered; a model that calls it anyway gets an error, not a subagent.
            "flat": [tool_turn(("run_subagent", {"task": task("nested")})), text_turn(reply("flat done"))],
            "nested": [text_turn(reply("must never run"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root)
    assert "run_subagent" not in router.requests_of("flat")[0].tool_names
    (refused,) = router.requests_of("flat")[1].tool_results
    assert refused["is_error"] is True and "unknown tool 'run_subagent'" in refused["content"]
    assert router.requests_of("nested") == []
    assert run.manager.spawned == 1


async def test_spawns_beyond_the_per_review_limit_get_an_error_result(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    keys = [f"p{i}" for i in range(4)]
    scripts: dict[str, list[Step]] = {
        "main": [tool_turn(*(("run_subagent", {"task": task(k)}) for k in keys)), text_turn("done")]
    }
    scripts.update({k: [text_turn(reply(f"{k} done"))] for k in keys})
    router = Router(scripts)
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root, limits=SubagentLimits(max_per_review=3))
    results = router.requests_of("main")[1].tool_results
    assert [r["is_error"] for r in results] == [False, False, False, True]
    assert "3 subagents per review" in results[3]["content"]
    assert "direct tools" in results[3]["content"]
    assert run.manager.spawned == 3
    assert router.requests_of("p3") == []


async def test_spawns_beyond_the_running_limit_get_an_error_result(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    slow: list[Step] = [text_turn(reply("slow done"), delay_s=0.4)]
    router = Router(
        {
            "main": [
                tool_turn(
                    *(("run_subagent", {"task": task(k), "mode": "background"}) for k in ("b1", "b2", "b3"))
                ),
                text_turn("done"),
            ],
            "b1": slow,
            "b2": slow,
            "b3": slow,
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root, limits=SubagentLimits(max_concurrent=2))
    results = router.requests_of("main")[1].tool_results
    assert [r["is_error"] for r in results] == [False, False, True]
    assert "2 subagents are already running" in results[2]["content"]
    assert "direct tools" in results[2]["content"]
    assert {n.id: n.status for n in run.manager.nodes() if n.parent_id} == {
        "sub-1": "completed",
        "sub-2": "completed",
    }


async def test_several_calls_in_one_turn_run_concurrently_with_own_accounting(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    keys = ("c1", "c2", "c3")
    scripts: dict[str, list[Step]] = {
        "main": [tool_turn(*(("run_subagent", {"task": task(k)}) for k in keys)), text_turn("done")]
    }
    for n, key in enumerate(keys, start=1):
        scripts[key] = [
            tool_turn(("read_file", {"path": "pkg/app.py"}), delay_s=0.3, input_tokens=1000 * n),
            text_turn(reply(f"{key} done"), delay_s=0.3, input_tokens=1000 * n),
        ]
    router = Router(scripts)
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root)
    # Concurrent: every subagent's first request arrived before any subagent's second one (one after
    # another, each 0.3 s turn would separate them).
    firsts = [at for key, turn, at in router.arrivals if key in keys and turn == 0]
    seconds = [at for key, turn, at in router.arrivals if key in keys and turn == 1]
    assert len(firsts) == len(seconds) == 3
    assert max(firsts) < min(seconds)
    assert max(firsts) - min(firsts) < 0.25
    usage = {r.agent_id: r.usage for r in run.manager.results()}
    assert usage["sub-1"].input_tokens == 2000
    assert usage["sub-2"].input_tokens == 4000
    assert usage["sub-3"].input_tokens == 6000
    assert all(u.requests == 2 for u in usage.values())


async def test_timeout_asks_for_a_summary_and_returns_a_partial_result(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")

    def slow_tools_then_summary(request: RecordedRequest) -> FakeTurn:
        # The wrap-up request lets it call no tools: that is when the subagent replies with its summary.
        if not request.tools_usable:
            return text_turn(reply("Checked 1 of 3 callers before time ran out.", "partial: pkg/app.py:3"))
        return tool_turn(("read_file", {"path": "pkg/app.py"}), delay_s=0.4)

    router = Router(
        {
            "main": [tool_turn(("run_subagent", {"task": task("slow")})), text_turn("done")],
            "slow": [slow_tools_then_summary],
        }
    )
    limits = SubagentLimits(wall_time_s=1.0, wrap_up_grace_s=5.0)
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root, limits=limits)
    (result,) = run.manager.results()
    assert result.status == "timed_out"
    assert result.success is True
    assert result.summary == "Checked 1 of 3 callers before time ran out."
    assert result.answer == "partial: pkg/app.py:3"
    last = router.requests_of("slow")[-1]
    assert not last.tools_usable
    assert "time for this task is up" in last.last_user_text
    parent_view = router.requests_of("main")[1].tool_results[0]["content"]
    assert "timed_out" in parent_view and "partial result" in parent_view
    assert run.statuses("sub-1")[-1] == "timed_out"
    assert run.elapsed_s < 4.0


async def test_wrap_up_that_hangs_is_cut_off_and_the_transcript_kept(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [tool_turn(("run_subagent", {"task": task("hang")})), text_turn("done")],
            "hang": [
                tool_turn(("read_file", {"path": "pkg/app.py"})),
                text_turn(reply("never arrives"), delay_s=30),
            ],
        }
    )
    limits = SubagentLimits(wall_time_s=0.5, wrap_up_grace_s=1.0)
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root, limits=limits)
        assert server.wait_for_disconnect(timeout=5)
    (result,) = run.manager.results()
    assert result.status == "timed_out"
    assert result.summary == "(no summary)"
    assert "[tool call read_file]" in result.transcript_excerpt
    assert run.elapsed_s < 10


async def test_context_running_low_asks_for_the_answer_and_marks_timed_out(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [tool_turn(("run_subagent", {"task": task("big")})), text_turn("done")],
            "big": [
                tool_turn(("read_file", {"path": "pkg/config.py"}), input_tokens=9_000),
                text_turn(reply("Read one big file; context ran low.", "incomplete")),
            ],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root, context_window=10_000)
    (result,) = run.manager.results()
    assert result.status == "timed_out"
    assert result.summary == "Read one big file; context ran low."
    second = router.requests_of("big")[1]
    assert not second.tools_usable
    notices = [e for e in run.events.events if isinstance(e, RunNotice) and e.agent_id == "sub-1"]
    assert any(n.kind == "context_low" for n in notices)


async def test_configured_default_tool_call_budget_applies_when_the_model_gives_none(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    read = ("read_file", {"path": "pkg/app.py"})
    router = Router(
        {
            "main": [tool_turn(("run_subagent", {"task": task("dflt")})), text_turn("ok")],
            "dflt": [tool_turn(read), tool_turn(read), tool_turn(read), text_turn(reply("done"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root, limits=SubagentLimits(default_tool_calls=2))
    (result,) = run.manager.results()
    assert result.tool_calls_made == 2
    assert "at most 2 tool calls" in router.requests_of("dflt")[0].system_text
