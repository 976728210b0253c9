"""prscope/review over stdio: diagnostics on the exact lines, the summary, clearing, errors."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.exceptions import JsonRpcException

from tests.gitrepo import GitRepo
from tests.test_server_support import APP, Session, lsp_session, stale_call_repo, uri

# One server on one repository for the tests that only read it (a server start costs about a second).
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def shared(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    repo = stale_call_repo(tmp_path_factory.mktemp("shared") / "repo")
    async with lsp_session(repo.root) as session:
        yield session


async def test_review_publishes_breaking_call_on_the_stale_caller(shared: Session) -> None:
    summary = await shared.review(mode="branch", base="main")
    app = shared.diagnostics("app.py")

    assert summary["status"] == "offline"
    assert "deterministic checks only" in summary["status_reason"]
    assert summary["files"]["changed"] == 2
    breaking = [d for d in app if d.code == "breaking-call"]
    assert len(breaking) == 1
    diagnostic = breaking[0]
    assert diagnostic.range.start.line == 2  # app.py line 3: result = fetch('a')
    assert diagnostic.source == "prscope"
    assert diagnostic.severity == types.DiagnosticSeverity.Error
    assert "method" in diagnostic.message
    assert isinstance(diagnostic.data, dict) and diagnostic.data["id"]
    assert any(f["rule"] == "breaking-call" and f["path"] == "app.py" for f in summary["findings"])


async def test_debug_leftover_is_a_warning_with_its_suggestion_in_data(shared: Session) -> None:
    await shared.review(base="main")
    worker = shared.diagnostics("worker.py")

    (leftover,) = [d for d in worker if d.code == "debug-leftover"]
    assert leftover.range.start.line == 1
    assert leftover.severity == types.DiagnosticSeverity.Warning
    assert isinstance(leftover.data, dict)
    assert leftover.data["suggestion"]["start_line"] == 2


async def test_a_second_review_clears_files_without_findings(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        assert session.diagnostics("app.py")
        repo.write("app.py", APP.replace("fetch('a')", "fetch('a', 'GET')"))
        repo.commit("fix the caller")
        summary = await session.review(base="main")
        app_after = session.diagnostics("app.py")
        worker_after = session.diagnostics("worker.py")

    assert not any(f["path"] == "app.py" for f in summary["findings"])
    assert app_after == []
    assert [d.code for d in worker_after] == ["debug-leftover"]


async def test_staged_mode_reviews_the_index(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("worker.py", "def work(x):\n    return x\n")
    repo.commit("base")
    repo.write("worker.py", "def work(x):\n    import pdb; pdb.set_trace()\n    return x\n")
    repo.git("add", "worker.py")
    async with lsp_session(repo.root) as session:
        summary = await session.review(mode="staged")
        worker = session.diagnostics("worker.py")
    assert summary["mode"] == "staged"
    assert [d.code for d in worker] == ["debug-leftover"]


async def test_unknown_base_answers_with_one_line_error_and_shows_it(shared: Session) -> None:
    with pytest.raises(JsonRpcException) as raised:
        await shared.review(base="no-such-branch")
    messages = list(shared.client.messages)
    still_alive = await shared.review(base="main")
    assert raised.value.code == -32803
    assert "no-such-branch" in raised.value.message and "\n" not in raised.value.message
    assert any(m.type == types.MessageType.Error and "no-such-branch" in m.message for m in messages)
    assert still_alive["status"] == "offline"


async def test_not_a_git_repository_is_a_clear_error(tmp_path: Path) -> None:
    folder = tmp_path / "plain"
    folder.mkdir()
    async with lsp_session(folder) as session:
        with pytest.raises(JsonRpcException) as raised:
            await session.review()
    # in the editor's words: prefixed, and saying what to do
    assert raised.value.message.startswith(f"prscope: {folder} is not inside a git work tree: ")
    assert "open a folder inside a git repository" in raised.value.message


async def test_bad_arguments_are_reported_not_crashed_on(shared: Session) -> None:
    with pytest.raises(JsonRpcException) as raised:
        await shared.review(mode="sideways")
    assert "mode" in raised.value.message


async def test_keys_in_initialization_options_are_ignored_and_never_echoed(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    secret = "sk-ant-api03-pasted-into-settings"
    async with lsp_session(repo.root, options={"offline": True, "model": {"apiKey": secret}}) as session:
        summary = await session.review(base="main")
        shown = [m.message for m in session.client.messages]
        logged = [m.message for m in session.client.log_messages]
    assert any("model.apiKey" in message and "environment" in message for message in shown)
    assert all(secret not in message for message in shown + logged)
    assert secret not in str(summary)


async def test_invalid_initialization_options_are_shown_and_defaults_used(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root, options={"failOn": "sometimes", "offline": True}) as session:
        summary = await session.review(base="main")
        shown = list(session.client.messages)
    assert [m.message for m in shown if "failOn" in m.message] == [
        "prscope: option 'failOn': Input should be 'error', 'warning', 'note' or 'never'; the default is used"
    ]
    assert summary["status"] == "offline"  # the explicit offline: true still holds


async def test_multi_root_review_picks_the_folder_of_the_given_uri(tmp_path: Path) -> None:
    first = stale_call_repo(tmp_path / "first")
    second = GitRepo(tmp_path / "second")
    second.write("job.py", "def job():\n    return 1\n")
    second.commit("base")
    second.write("job.py", "def job():\n    breakpoint()\n    return 1\n")
    async with lsp_session(first.root, more_folders=(second.root,)) as session:
        summary = await session.review(mode="uncommitted", uri=uri(second.root / "job.py"))
        job = session.diagnostics_in(second.root, "job.py")
        app = session.diagnostics("app.py")
    assert [f["path"] for f in summary["findings"]] == ["job.py"]
    assert [d.code for d in job] == ["debug-leftover"]
    assert app == []
