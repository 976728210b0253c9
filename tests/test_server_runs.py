"""A review with a model: its findings show as they come, and stopping it (cancelled by request or by
command, or superseded by a newer review) stops the engine, its model requests and its subagents at once
(issue 10, defects 4 to 6). The real anthropic SDK in the server process, against the loopback fake API."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from tests.fakeapi import FakeModelServer, text_turn, tool_turn
from tests.test_server_support import Session, eventually, lsp_session, plain, stale_call_repo

KEY = "sk-ant-api03-prscope-runs-test-key"
NO_FINDINGS = "<findings>\n</findings>\n<summary>Looked at the signature change.</summary>"
SUBAGENT_TASK = "Find every caller of fetch in the repository and check each passes the new method argument."

pytestmark = pytest.mark.slow


def _env(fake: FakeModelServer) -> dict[str, str]:
    return {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": fake.base_url}


def _send(session: Session, method: str, params: Any) -> tuple[str, Awaitable[Any]]:
    msg_id = str(uuid.uuid4())
    future = session.client.protocol.send_request(method, params, msg_id=msg_id)
    return msg_id, asyncio.wrap_future(future)


def _shown_codes(session: Session) -> list[str]:
    return sorted(str(d.code) for ds in session.client.diagnostics.values() for d in ds)


async def test_the_checks_findings_show_while_the_model_is_still_working(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    with FakeModelServer() as fake:
        fake.script(text_turn(NO_FINDINGS, delay_s=30))
        async with lsp_session(repo.root, options={}, env=_env(fake)) as session:
            msg_id, pending = _send(session, "prscope/review", {"base": "main"})
            assert await asyncio.to_thread(fake.wait_for_requests, 1, 20.0)
            early = await eventually(lambda: _shown_codes(session) == ["breaking-call", "debug-leftover"])
            still_running = not pending.done()  # type: ignore[attr-defined]
            session.client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
            with pytest.raises(JsonRpcRequestCancelled):
                await asyncio.wait_for(pending, 10)

    assert early and still_running


async def test_cancelling_the_review_command_stops_the_engine(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    with FakeModelServer() as fake:
        fake.script(text_turn(NO_FINDINGS, delay_s=30))
        async with lsp_session(repo.root, options={}, env=_env(fake)) as session:
            command = types.ExecuteCommandParams(command="prscope.review", arguments=[{"base": "main"}])
            msg_id, pending = _send(session, types.WORKSPACE_EXECUTE_COMMAND, command)
            assert await asyncio.to_thread(fake.wait_for_requests, 1, 20.0)
            assert await eventually(lambda: len(_shown_codes(session)) == 2)
            session.client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
            with pytest.raises(JsonRpcRequestCancelled):
                await asyncio.wait_for(pending, 10)
            # The engine, not only the answer, stopped: its model request is dropped at once.
            disconnected = await asyncio.to_thread(fake.wait_for_disconnect, 10.0)
            stopped = await eventually(lambda: "cancelled" in session.run_events.statuses("review"))
            shown_at_cancel = dict(session.client.diagnostics)
            await asyncio.sleep(1.0)
            shown_later = dict(session.client.diagnostics)
            (detail,) = [e["detail"] for e in session.run_events.events if e["agent_id"] == "review"][-1:]

    assert disconnected and stopped
    assert shown_later == shown_at_cancel
    assert detail.startswith("you cancelled it; the 2 findings already shown")


async def test_cancelling_the_command_stops_the_subagents_model_requests(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    with FakeModelServer() as fake:
        fake.script(
            tool_turn(("run_subagent", {"task": SUBAGENT_TASK, "label": "check callers"})),
            text_turn(NO_FINDINGS, delay_s=30),  # the subagent's first turn
        )
        async with lsp_session(repo.root, options={}, env=_env(fake)) as session:
            command = types.ExecuteCommandParams(command="prscope.review", arguments=[{"base": "main"}])
            msg_id, pending = _send(session, types.WORKSPACE_EXECUTE_COMMAND, command)
            assert await asyncio.to_thread(fake.wait_for_requests, 2, 20.0)
            session.client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
            with pytest.raises(JsonRpcRequestCancelled):
                await asyncio.wait_for(pending, 10)
            disconnected = await asyncio.to_thread(fake.wait_for_disconnect, 10.0)
            subagents = await eventually(
                lambda: any(
                    e["parent_id"] == "main" and e["status"] in ("cancelled", "interrupted")
                    for e in session.run_events.events
                )
            )
            requests = len(fake.requests)

    assert disconnected and subagents
    assert requests == 2  # nothing was asked of the model after the cancellation


async def test_a_superseded_review_stops_at_once_and_says_so(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    with FakeModelServer() as fake:
        fake.script(text_turn(NO_FINDINGS, delay_s=30), text_turn(NO_FINDINGS))
        async with lsp_session(repo.root, options={}, env=_env(fake)) as session:
            first_token, second_token = "first-review", "second-review"
            session.client.progress_reports[first_token] = []
            session.client.progress_reports[second_token] = []
            _, first = _send(session, "prscope/review", {"base": "main", "workDoneToken": first_token})
            assert await asyncio.to_thread(fake.wait_for_requests, 1, 20.0)
            _, second = _send(session, "prscope/review", {"base": "main", "workDoneToken": second_token})
            superseded = plain(await asyncio.wait_for(first, 5))
            disconnected = await asyncio.to_thread(fake.wait_for_disconnect, 10.0)
            latest = plain(await asyncio.wait_for(second, 30))
            first_end = session.client.progress_reports[first_token][-1]
            codes = _shown_codes(session)

    assert superseded["status"] == "partial" and superseded["stopped"] == "superseded"
    assert superseded["status_reason"].startswith("superseded by a newer review")
    assert isinstance(first_end, types.WorkDoneProgressEnd) and first_end.message == "superseded"
    assert disconnected
    assert latest["status"] == "complete" and latest["stopped"] is None
    assert codes == ["breaking-call", "debug-leftover"]


async def test_a_verified_model_finding_shows_before_the_review_ends(tmp_path: Path) -> None:
    from tests.test_subagents_harness import Router, reply

    def finding(line: int, key: str) -> str:
        return (
            f'{{"rule": "bug", "severity": "warning", "path": "app.py", "line": {line}, '
            f'"title": "[[{key}]] suspicious call", "message": "m", "confidence": 0.9}}'
        )

    answer = f"<findings>\n{finding(1, 'v1')}\n{finding(3, 'v2')}\n</findings>\n<summary>s</summary>"
    router = Router(
        {
            "main": [text_turn(answer)],
            "v1": [text_turn(reply("checked", "CONFIRMED confidence: 0.9. app.py:1"))],
            "v2": [text_turn(reply("checked", "CONFIRMED confidence: 0.9. app.py:3"), delay_s=90)],
        }
    )
    repo = stale_call_repo(tmp_path / "repo")
    with FakeModelServer(responder=router) as fake:
        async with lsp_session(repo.root, options={}, env=_env(fake)) as session:
            msg_id, pending = _send(session, "prscope/review", {"base": "main"})
            shown = await eventually(lambda: "bug" in _shown_codes(session), timeout=30)
            still_running = not pending.done()  # type: ignore[attr-defined]
            session.client.protocol.notify("$/cancelRequest", types.CancelParams(id=msg_id))
            with pytest.raises(JsonRpcRequestCancelled):
                await asyncio.wait_for(pending, 10)

    assert shown and still_running
