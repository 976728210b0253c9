"""A restarted server shows the last review's findings again (issue 22, item 6): the client names the
review (`restore` in its initialization options) and the server reads its findings back from the run
store, placed on the documents as they are now."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.test_server_support import eventually, lsp_session, stale_call_repo, uri


def _restore(root: Path, run_id: str) -> dict[str, object]:
    return {"offline": True, "restore": {"runId": run_id, "uri": uri(root)}}


async def test_the_last_reviews_findings_come_back_where_their_lines_are_now(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        answer = await session.review(base="main")
    run_id = answer["stored_run_id"]
    assert run_id
    # edited while no server ran: two lines above the stale call (not saved in a commit)
    app = repo.root / "app.py"
    app.write_text("import os\nimport sys\n" + app.read_text())
    async with lsp_session(repo.root, options=_restore(repo.root, run_id)) as session:
        assert await eventually(lambda: bool(session.restored))
        app_lines = [d.range.start.line for d in session.diagnostics("app.py")]
        worker = session.diagnostics("worker.py")
        (restored,) = session.restored
    assert app_lines == [4]  # was line 3 (0-based 2), two lines lower now
    assert [d.code for d in worker] == ["debug-leftover"] and worker[0].range.start.line == 1
    assert restored == {"run_id": run_id, "shown": 2, "not_shown": 0, "error": ""}


async def test_a_finding_dismissed_or_edited_away_since_stays_away(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        answer = await session.review(base="main")
    leftover = next(f["id"] for f in answer["findings"] if f["rule"] == "debug-leftover")
    dismissed = subprocess.run(
        [sys.executable, "-m", "prscope", "dismiss", leftover, "--reason", "on purpose"],
        cwd=repo.root,
        capture_output=True,
        check=False,
    )
    assert dismissed.returncode == 0
    (repo.root / "app.py").write_text("from pkg.util import fetch\n\nresult = fetch('a', 'GET')\n")
    async with lsp_session(repo.root, options=_restore(repo.root, answer["stored_run_id"])) as session:
        assert await eventually(lambda: bool(session.restored))
        shown = session.diagnostics("app.py") + session.diagnostics("worker.py")
        (restored,) = session.restored
    assert shown == []
    assert restored["shown"] == 0 and restored["not_shown"] == 1 and restored["error"] == ""


async def test_a_run_the_store_does_not_hold_says_so(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root, options=_restore(repo.root, "20260101-000000-abcdef")) as session:
        assert await eventually(lambda: bool(session.restored))
        (restored,) = session.restored
        # the server works as before
        answer = await session.review(base="main")
    assert restored["shown"] == 0 and "holds no run 20260101-000000-abcdef" in str(restored["error"])
    assert answer["status"] == "offline"
