"""The language server and the run store (issue 12's editor parts): "Dismiss finding" records the
dismissal by fingerprint in the store (the CLI's `prscope dismiss --list` lists it, and it holds when
lines move); reviews and quick analyses leave out the store's dismissals; reviews are recorded, and
`prscope.showRun` reads a run back as `prscope show RUN` prints it. The real server over stdio, the real
CLI, real git repositories."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from prscope.analysis.store import open_store

from tests.fakeapi import FakeModelServer, text_turn, tool_turn
from tests.gitrepo import GIT_ENV, GitRepo
from tests.test_server_support import (
    MODEL_VARIABLES,
    break_store,
    dismiss_action_for,
    eventually,
    lsp_session,
    stale_call_repo,
)

SELECTION = {"start": {"line": 0, "character": 0}, "end": {"line": 3, "character": 0}}
NO_FINDINGS = "<findings>\n</findings>\n<summary>Looked at the change.</summary>"


def _prscope(repo: GitRepo, *argv: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in {**os.environ, **GIT_ENV}.items() if k not in MODEL_VARIABLES}
    return subprocess.run(
        [sys.executable, "-m", "prscope", *argv],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )


async def test_a_dismissal_from_the_code_action_is_in_the_store_and_holds_when_lines_move(
    tmp_path: Path,
) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        breaking, _, dismiss = await dismiss_action_for(session, "app.py")
        assert dismiss.command is not None
        ran = await session.command(dismiss.command.command, *(dismiss.command.arguments or []))
        hidden = await eventually(lambda: session.diagnostics("app.py") == [])
        # three lines inserted above the call, committed: the finding's line moves from 3 to 6
        app = repo.root / "app.py"
        app.write_text("import os\nimport sys\n\n" + app.read_text())
        repo.commit("lines move")
        again = await session.review(base="main")
        after = session.diagnostics("app.py")

    finding_id = breaking.data["id"]
    assert dismiss.edit is None  # nothing to edit: the store records it
    assert ran["recorded"] is True and hidden
    assert finding_id not in [f["id"] for f in again["findings"]] and again["dismissed"] == 1
    report = json.loads(_prscope(repo, "review", "--base", "main", "--offline", "--format", "json").stdout)
    (moved,) = [f for f in report["dismissed_findings"] if f["rule"] == "breaking-call"]
    assert moved["id"] == finding_id and moved["line"] == 6  # same fingerprint, new line
    assert after == []  # and it does not come back
    listed = _prscope(repo, "dismiss", "--list").stdout
    assert finding_id in listed and "breaking-call" in listed and "app.py:3" in listed
    assert not (repo.root / ".prscope.toml").exists()


async def test_reviews_and_quick_analyses_leave_out_dismissals_made_with_the_cli(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    report = json.loads(_prscope(repo, "review", "--base", "main", "--offline", "--format", "json").stdout)
    (leftover,) = [f for f in report["findings"] if f["rule"] == "debug-leftover"]
    assert _prscope(repo, "dismiss", leftover["id"], "--reason", "on purpose").returncode == 0
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        reviewed = {path: session.diagnostics(path) for path in ("app.py", "worker.py")}
        worker = session.open("worker.py")
        quick = await session.command("prscope.quickAnalysis", {"uri": worker, "range": SELECTION})
        after_quick = session.diagnostics("worker.py")

    assert [d.code for d in reviewed["app.py"]] == ["breaking-call"]
    assert reviewed["worker.py"] == []
    assert [f["rule"] for f in quick["findings"]] == ["debug-leftover"]  # found, not shown
    assert quick["shown"] == 0 and after_quick == []


@pytest.mark.slow
async def test_show_run_reads_the_run_from_the_store_as_prscope_show_prints_it(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    task = "Find every caller of fetch in the repository and check each passes the new method argument."
    with FakeModelServer() as fake:
        fake.script(
            tool_turn(("run_subagent", {"task": task, "label": "check callers"})),
            text_turn(f"{NO_FINDINGS}\n<answer>none</answer>"),
            text_turn(NO_FINDINGS),
        )
        env = {"ANTHROPIC_API_KEY": "sk-ant-api03-show-run-store", "ANTHROPIC_BASE_URL": fake.base_url}
        async with lsp_session(repo.root, options={}, env=env) as session:
            before = await session.command("prscope.showRun")
            first = await session.review(base="main")
            latest = await session.command("prscope.showRun")
        async with lsp_session(repo.root) as session:
            second = await session.review(base="main")
            by_id = await session.command("prscope.showRun", first["stored_run_id"])
            by_object = await session.command("prscope.showRun", {"run_id": second["stored_run_id"]})

    shown = _prscope(repo, "show", first["stored_run_id"]).stdout
    history = _prscope(repo, "history").stdout
    assert before is None
    assert latest == by_id
    assert latest["run_id"] == first["stored_run_id"] and latest["status"] == "complete"
    assert latest["text"] == shown.rstrip("\n")
    agents = {agent["label"]: agent for agent in latest["agents"]}
    assert [a["id"] for a in latest["agents"] if a["parent_id"] is None] == ["main"]
    assert agents["check callers"]["parent_id"] == "main" and agents["check callers"]["tokens"] > 0
    assert agents["check callers"]["model"]
    assert sorted(f["rule"] for f in latest["findings"]) == ["breaking-call", "debug-leftover"]
    assert by_object["run_id"] == second["stored_run_id"] and by_object["status"] == "offline"
    assert first["stored_run_id"] in history and second["stored_run_id"] in history


def _statuses(repo: GitRepo) -> list[str]:
    store = open_store(repo.root)
    try:
        return [run.status for run in store.runs()]
    finally:
        store.close()


@pytest.mark.slow
async def test_a_stopped_review_does_not_stay_running_in_the_history(tmp_path: Path) -> None:
    """The server stops waiting for a stopped engine at once; the engine winds down on its own and must
    still record the end of its run (the server process lives on: the run would never be marked
    interrupted)."""
    repo = stale_call_repo(tmp_path / "repo")
    with FakeModelServer() as fake:
        fake.script(text_turn(NO_FINDINGS, delay_s=30))
        env = {"ANTHROPIC_API_KEY": "sk-ant-api03-stopped-run", "ANTHROPIC_BASE_URL": fake.base_url}
        async with lsp_session(repo.root, options={}, env=env) as session:
            pending = asyncio.ensure_future(session.review(base="main"))
            assert await asyncio.to_thread(fake.wait_for_requests, 1, 20.0)
            await session.command("prscope.cancelReview")
            stopped = await asyncio.wait_for(pending, 20)
            ended = await eventually(lambda: _statuses(repo) not in ([], ["running"]), timeout=30)
            with pytest.raises(Exception, match="nope"):
                await session.review(base="nope")
            run = await session.command("prscope.showRun")

    assert stopped["stopped"] == "cancelled" and stopped["stored_run_id"] is None
    assert ended, _statuses(repo)
    assert _statuses(repo) == ["partial"]  # the failed review left no run behind
    assert run["status"] == "partial"


async def test_without_a_usable_store_the_dismissal_edits_the_configuration(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    break_store(repo)
    async with lsp_session(repo.root) as session:
        summary = await session.review(base="main")
        _, _, dismiss = await dismiss_action_for(session, "app.py")
        run = await session.command("prscope.showRun")

    assert dismiss.edit is not None and dismiss.title.endswith("in .prscope.toml")
    assert dismiss.command is not None and "record" not in dismiss.command.arguments[0]
    # showRun falls back to what this session saw
    assert run["run_id"] == summary["run_id"] and run["status"] == "offline"


@pytest.mark.slow
async def test_a_change_reviewed_before_comes_from_the_store_and_no_cache_asks_the_model_again(
    tmp_path: Path,
) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    with FakeModelServer() as fake:
        fake.script(text_turn(NO_FINDINGS), text_turn(NO_FINDINGS))
        env = {"ANTHROPIC_API_KEY": "sk-ant-api03-cached-review", "ANTHROPIC_BASE_URL": fake.base_url}
        # the client names its "review afresh" command (VS Code does: server/wording.py)
        options = {"commands": {"reviewAfresh": "prscope: Review Pull Request (No Cache)"}}
        async with lsp_session(repo.root, options=options, env=env) as session:
            await session.review(base="main")
            asked_first = len(fake.requests)
            again = await session.review(base="main")
            asked_again = len(fake.requests) - asked_first
            fresh = await session.review(base="main", noCache=True)
            asked_fresh = len(fake.requests) - asked_first - asked_again

    assert asked_first == 1 and asked_again == 0 and asked_fresh == 1
    assert "reused from run" in again["status_reason"]
    # in the editor's words: no command-line flag
    assert "--no-cache" not in again["status_reason"]
    assert '("prscope: Review Pull Request (No Cache)" reviews again)' in again["status_reason"]
    assert "noCache" not in again["status_reason"]
    assert "reused" not in fresh["status_reason"]
