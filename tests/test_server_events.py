"""Run events, progress and cancellation of prscope/review, offline and with a model (the real
anthropic SDK in the server process, against the loopback fake API)."""

from __future__ import annotations

import asyncio
import uuid
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcRequestCancelled

from tests.fakeapi import FakeModelServer, text_turn, tool_turn
from tests.test_server_support import eventually, lsp_session, plain, stale_call_repo

KEY = "sk-ant-api03-prscope-server-test-key"
NO_FINDINGS = "<findings>\n</findings>\n<summary>Looked at the signature change.</summary>"
EVENT_FIELDS = {"run_id", "agent_id", "parent_id", "label", "status", "tool", "tokens_used", "tokens_max"}


def _model_env(server: FakeModelServer) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}


async def test_offline_review_sends_run_events_and_progress(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        summary = await session.review(base="main")
        events = list(session.run_events.events)
        progress = dict(session.client.progress_reports)

    assert all(set(event) >= EVENT_FIELDS for event in events)
    assert {e["run_id"] for e in events} == {summary["run_id"]}
    assert session.run_events.statuses("review") == ["running", "completed"]
    (reports,) = progress.values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert any(isinstance(r, types.WorkDoneProgressReport) and "checks" in (r.message or "") for r in reports)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[-1].message == f"offline: {len(summary['findings'])} findings"


@pytest.mark.slow
async def test_model_review_streams_agent_events_with_tools(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    with FakeModelServer() as fake:
        fake.script(
            tool_turn(("read_file", {"path": "app.py"}), text="Reading the caller."),
            text_turn(NO_FINDINGS),
        )
        async with lsp_session(repo.root, options={}, env=_model_env(fake)) as session:
            summary = await session.review(base="main")
            events = list(session.run_events.events)
            logged = [m.message for m in session.client.log_messages]
        requests = fake.requests

    assert summary["status"] == "complete", summary["status_reason"]
    assert len(requests) == 2 and requests[0].api_key == KEY
    main = [e for e in events if e["agent_id"] == "main"]
    assert main and main[0]["parent_id"] is None
    assert "running" in [e["status"] for e in main] and main[-1]["status"] == "completed"
    assert any(e["tool"] == "read_file" for e in main)
    assert session.run_events.statuses("review")[-1] == "completed"
    # the breaking call is still found and published alongside the model review
    assert any(d.code == "breaking-call" for d in session.diagnostics("app.py"))
    assert all(KEY not in message for message in logged)


@pytest.mark.slow
async def test_cancelling_a_review_stops_the_engine_and_keeps_what_it_showed(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    with FakeModelServer() as fake:
        fake.script(text_turn(NO_FINDINGS, delay_s=30))
        async with lsp_session(repo.root, options={}, env=_model_env(fake)) as session:
            msg_id = str(uuid.uuid4())
            pending = asyncio.wrap_future(
                session.client.protocol.send_request("prscope/review", {"base": "main"}, msg_id=msg_id)
            )
            assert await asyncio.to_thread(fake.wait_for_requests, 1, 20.0)
            shown_before = {u: list(d) for u, d in session.client.diagnostics.items()}
            session.client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
            with pytest.raises(JsonRpcException) as raised:
                await asyncio.wait_for(pending, 10)
            # the engine was told to stop: it drops the in-flight model request
            disconnected = await asyncio.to_thread(fake.wait_for_disconnect, 10.0)
            assert await eventually(lambda: "cancelled" in session.run_events.statuses("review"))
            await asyncio.sleep(1.0)
            shown_after = {u: list(d) for u, d in session.client.diagnostics.items()}
            progress = {token: list(reports) for token, reports in session.client.progress_reports.items()}
            root_events = [e for e in session.run_events.events if e["agent_id"] == "review"]
            # the server is still serving requests
            fake.script(text_turn(NO_FINDINGS))
            after = await session.review(base="main")

    assert isinstance(raised.value, JsonRpcRequestCancelled)
    assert disconnected
    # the deterministic checks' findings were shown before the model answered, and stay
    assert sorted(d.code for ds in shown_before.values() for d in ds) == ["breaking-call", "debug-leftover"]
    assert shown_after == shown_before
    (reports,) = progress.values()
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[-1].message == "cancelled: kept 2 findings"
    assert root_events[-1]["detail"].startswith("you cancelled it; the 2 findings already shown")
    assert after["status"] == "complete"


async def test_review_command_runs_the_same_review(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        result = await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="prscope.review", arguments=[{"base": "main"}])
        )
        summary = plain(result)
        app = session.diagnostics("app.py")
    assert summary["status"] == "offline"
    assert [d.code for d in app] == ["breaking-call"]


@pytest.mark.slow
async def test_cancel_command_stops_a_running_review_and_says_what_it_kept(tmp_path: Path) -> None:
    """For clients that cannot send $/cancelRequest for a command: prscope.cancelReview."""
    repo = stale_call_repo(tmp_path / "repo")
    with FakeModelServer() as fake:
        fake.script(text_turn(NO_FINDINGS, delay_s=30))
        async with lsp_session(repo.root, options={}, env=_model_env(fake)) as session:
            running = asyncio.ensure_future(session.command("prscope.review", {"base": "main"}))
            assert await asyncio.to_thread(fake.wait_for_requests, 1, 20.0)
            cancelled = await session.command("prscope.cancelReview")
            summary = await asyncio.wait_for(running, 5)
            disconnected = await asyncio.to_thread(fake.wait_for_disconnect, 10.0)
            published = {u: [d.data["id"] for d in ds] for u, ds in session.client.diagnostics.items()}

    assert cancelled == {"cancelled": 1}
    assert disconnected
    assert summary["status"] == "partial" and summary["stopped"] == "cancelled"
    assert summary["status_reason"] == (
        "cancelled with prscope.cancelReview; "
        "the 2 findings already shown (the deterministic checks) are kept"
    )
    # what the summary says was kept is exactly what the editor shows
    assert sorted(f["id"] for f in summary["findings"]) == sorted(
        i for ids in published.values() for i in ids
    )
    assert session.run_events.statuses("review")[-1] == "cancelled"


async def test_progress_goes_to_the_token_the_client_sent(tmp_path: Path) -> None:
    """How an editor that owns its progress UI (with a cancel button) asks for the review."""
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        token = "client-token-1"
        session.client.progress_reports[token] = []
        summary = await session.review(base="main", workDoneToken=token)
        reports = list(session.client.progress_reports[token])
        others = [t for t in session.client.progress_reports if t != token]
    assert others == []
    assert isinstance(reports[0], types.WorkDoneProgressBegin)
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[-1].message is not None and reports[-1].message.startswith(summary["status"])
