"""Diagnostics follow the user's edits, and a quick fix only ever edits the line its finding saw
(issue 10, defects 1 and 2). The real server over stdio; the client edits with incremental sync as
VS Code and Neovim do."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.test_server_support import (
    WORKER_WITH_BREAKPOINT,
    Session,
    action_params,
    apply_edits,
    code_actions,
    edits_of,
    eventually,
    lsp_session,
    stale_call_repo,
)

DOCSTRING = '    """Double x.\n\n    Returns twice x."""\n'
HEADER = "def work(x):\n"


def _lines_of(session: Session, relative: str) -> list[int]:
    return [d.range.start.line for d in session.diagnostics(relative)]


def _fixes(actions: list[types.CodeAction]) -> list[types.CodeAction]:
    return [a for a in actions if a.title.startswith("prscope: fix")]


async def test_a_fix_after_lines_were_inserted_above_deletes_the_breakpoint_not_the_docstring(
    tmp_path: Path,
) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        (stale,) = session.diagnostics("worker.py")
        document = session.open("worker.py")
        session.change("worker.py", 2, [(1, 0, 1, 0, DOCSTRING)])
        moved = await eventually(lambda: _lines_of(session, "worker.py") == [4])
        # The client asks with the diagnostic it held before the edit: the server knows better.
        actions = await code_actions(session.client, action_params(document, stale.range, [stale]))

    edited = HEADER + DOCSTRING + WORKER_WITH_BREAKPOINT.removeprefix(HEADER)
    (fix,) = _fixes(actions)
    target, edits = edits_of(fix)
    assert target == document
    assert apply_edits(edited, edits) == HEADER + DOCSTRING + "    return x * 2\n"
    assert moved


async def test_a_fix_whose_line_changed_is_not_offered(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        (stale,) = session.diagnostics("worker.py")
        document = session.open("worker.py")
        session.change("worker.py", 2, [(1, 16, 1, 16, "  # keep while debugging")])
        dropped = await eventually(lambda: session.diagnostics("worker.py") == [])
        actions = await code_actions(session.client, action_params(document, stale.range, [stale]))

    assert _fixes(actions) == []
    assert dropped


async def test_diagnostics_move_with_edits_and_drop_when_their_line_changes(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        assert _lines_of(session, "app.py") == [2]
        session.open("app.py")
        # two lines inserted above (pressing Enter at the end of line 1, then typing a line)
        session.change("app.py", 2, [(0, 26, 0, 26, "\nimport os\nimport sys")])
        assert await eventually(lambda: _lines_of(session, "app.py") == [4])
        # one line deleted above
        session.change("app.py", 3, [(1, 0, 2, 0, "")])
        assert await eventually(lambda: _lines_of(session, "app.py") == [3])
        # several changes in one notification, as multi-cursor edits send them
        session.change("app.py", 4, [(0, 0, 0, 0, "# one\n"), (5, 0, 5, 0, "# below\n")])
        assert await eventually(lambda: _lines_of(session, "app.py") == [4])
        # Enter at the start of the finding's own line pushes it down
        session.change("app.py", 5, [(4, 0, 4, 0, "\n")])
        assert await eventually(lambda: _lines_of(session, "app.py") == [5])
        published = list(session.client.diagnostics.items())
        # the call itself is edited: its finding no longer holds
        session.change("app.py", 6, [(5, 9, 5, 19, "fetch('a', 'GET')")])
        assert await eventually(lambda: session.diagnostics("app.py") == [])
    assert published


async def test_whole_text_changes_and_closing_unsaved_edits(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        session.open("worker.py")
        # a client that sends the whole text (full sync) after inserting two lines above
        session.change("worker.py", 2, "# a\n# b\n" + WORKER_WITH_BREAKPOINT)
        assert await eventually(lambda: _lines_of(session, "worker.py") == [3])
        assert session.version("worker.py") == 2
        # closing without saving: the file on disk is what the document is again
        session.close("worker.py")
        assert await eventually(lambda: _lines_of(session, "worker.py") == [1])


async def test_opening_a_document_with_other_text_than_reviewed_moves_or_drops(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        # the editor restores an unsaved buffer holding three more lines above the call
        session.open("app.py", "import os\nimport sys\n\n" + (repo.root / "app.py").read_text(), version=3)
        assert await eventually(lambda: _lines_of(session, "app.py") == [5])
        assert session.version("app.py") == 3
        # and one where the breakpoint is gone
        session.open("worker.py", "def work(x):\n    return x * 2\n", version=1)
        assert await eventually(lambda: session.diagnostics("worker.py") == [])


async def test_undoing_the_edit_that_dropped_a_finding_brings_it_back_with_its_fix(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        document = session.open("worker.py")
        # typing at the end of the breakpoint's line: its finding no longer holds
        session.change("worker.py", 2, [(1, 16, 1, 16, "  # why")])
        assert await eventually(lambda: session.diagnostics("worker.py") == [])
        # a line inserted above while it is gone: it is still followed
        session.change("worker.py", 3, [(0, 0, 0, 0, "# note\n")])
        # undo of the typing: the anchor text is back, one line lower now
        session.change("worker.py", 4, [(2, 16, 2, 23, "")])
        assert await eventually(lambda: _lines_of(session, "worker.py") == [2])
        (back,) = session.diagnostics("worker.py")
        actions = await code_actions(session.client, action_params(document, back.range, [back]))
        (fix,) = _fixes(actions)
        # the other finding (app.py) never left; closing the document forgets what it had lost
        session.change("worker.py", 5, [(2, 4, 2, 16, "pass")])
        assert await eventually(lambda: session.diagnostics("worker.py") == [])
        session.close("worker.py")
        assert await eventually(lambda: _lines_of(session, "worker.py") == [1])  # the file on disk holds it
    edited = "# note\n" + WORKER_WITH_BREAKPOINT
    assert apply_edits(edited, edits_of(fix)[1]) == "# note\ndef work(x):\n    return x * 2\n"
