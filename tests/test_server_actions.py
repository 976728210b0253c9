"""Code actions: quick fixes from findings' suggestions, and the quick analysis of a selection."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from lsprotocol import types

from tests.fakeapi import FakeModelServer, text_turn
from tests.gitrepo import GitRepo
from tests.test_server_support import (
    WORKER,
    Session,
    action_params,
    apply_edits,
    code_actions,
    edits_of,
    lsp_session,
    plain,
    stale_call_repo,
    uri,
)

# One server on one reviewed repository for the quick-fix tests, which only read it.
pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def reviewed(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[Session]:
    repo = stale_call_repo(tmp_path_factory.mktemp("reviewed") / "repo")
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        yield session


def _line_range(first: int, last: int) -> types.Range:
    """0-based lines first..last, whole lines."""
    return types.Range(
        start=types.Position(line=first, character=0), end=types.Position(line=last + 1, character=0)
    )


async def test_quick_fix_removes_the_breakpoint(reviewed: Session) -> None:
    (leftover,) = reviewed.diagnostics("worker.py")
    document = uri(reviewed.root / "worker.py")
    actions = await reviewed.client.text_document_code_action_async(
        action_params(document, leftover.range, [leftover])
    )
    assert actions is not None
    fixes = [
        a for a in actions if isinstance(a, types.CodeAction) and a.kind == types.CodeActionKind.QuickFix
    ]
    (fix,) = fixes
    assert fix.title.startswith("prscope: fix")
    target, edits = edits_of(fix)
    assert target == document
    fixed = apply_edits((reviewed.root / "worker.py").read_text(), edits)
    assert fixed == WORKER


async def test_quick_fix_works_when_the_client_drops_diagnostic_data(reviewed: Session) -> None:
    (leftover,) = reviewed.diagnostics("worker.py")
    stripped = types.Diagnostic(
        range=leftover.range, message=leftover.message, code=leftover.code, source=leftover.source
    )
    document = uri(reviewed.root / "worker.py")
    actions = await reviewed.client.text_document_code_action_async(
        action_params(document, leftover.range, [stripped])
    )
    assert actions is not None
    assert [a.kind for a in actions if isinstance(a, types.CodeAction)] == [types.CodeActionKind.QuickFix]


async def test_breaking_call_has_no_quick_fix_only_a_dismissal(reviewed: Session) -> None:
    (breaking,) = reviewed.diagnostics("app.py")
    document = uri(reviewed.root / "app.py")
    empty_selection = types.Range(start=breaking.range.start, end=breaking.range.start)
    actions = await code_actions(reviewed.client, action_params(document, empty_selection, [breaking]))
    assert [a.title.split(" ")[1] for a in actions] == ["dismiss"]


async def _open(session_client: Any, document: str, text: str) -> None:
    session_client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=document, language_id="python", version=1, text=text)
        )
    )


async def test_quick_analysis_of_a_selection_checks_unsaved_text_offline(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("job.py", "def job():\n    return 1\n")
    repo.commit("base")
    unsaved = "def job():\n    import pdb; pdb.set_trace()\n    return 1\n\ndef other():\n    breakpoint()\n"
    document = uri(repo.root / "job.py")
    async with lsp_session(repo.root, options={}) as session:
        await _open(session.client, document, unsaved)
        actions = await code_actions(session.client, action_params(document, _line_range(0, 2), []))
        (quick,) = [a for a in actions if a.title == "prscope: quick analysis"]
        assert quick.command is not None
        result = plain(
            await session.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=quick.command.command, arguments=quick.command.arguments)
            )
        )
        published = list(session.client.diagnostics.get(document, []))

    assert result["status"] == "offline"
    assert [(f["rule"], f["line"]) for f in result["findings"]] == [("debug-leftover", 2)]
    assert [(d.code, d.range.start.line) for d in published] == [("debug-leftover", 1)]


async def test_quick_analysis_finds_a_syntax_error_in_the_selection(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("calc.py", "def add(a, b):\n    return a + b\n")
    repo.commit("base")
    document = uri(repo.root / "calc.py")
    async with lsp_session(repo.root) as session:
        await _open(session.client, document, "def add(a, b):\n    return (a + b\n")
        result = plain(
            await session.client.workspace_execute_command_async(
                types.ExecuteCommandParams(
                    command="prscope.quickAnalysis",
                    arguments=[{"uri": document, "range": plain_range(0, 1)}],
                )
            )
        )
    assert [f["rule"] for f in result["findings"]] == ["syntax-error"]


def plain_range(first: int, last: int) -> dict[str, Any]:
    return {"start": {"line": first, "character": 0}, "end": {"line": last, "character": 80}}


async def test_non_ascii_line_gets_utf16_columns(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/util.py", "def fetch(url, timeout=10):\n    return url\n")
    caller = "from pkg.util import fetch\n\nlabel = '🎉'; result = fetch('a')\n"
    repo.write("app.py", caller)
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("pkg/util.py", "def fetch(url, method, timeout=10):\n    return url\n")
    repo.commit("change")
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        (breaking,) = session.diagnostics("app.py")
    line = caller.splitlines()[2]
    expected = len(line[: line.index("fetch(")].encode("utf-16-le")) // 2
    assert breaking.range.start.line == 2
    assert breaking.range.start.character == expected


def _model_finding(line: int, title: str) -> str:
    return json.dumps(
        {
            "rule": "bug",
            "severity": "warning",
            "path": "calc.py",
            "line": line,
            "title": title,
            "message": "Integer division drops the remainder the caller expects.",
            "confidence": 0.9,
        }
    )


@pytest.mark.slow
async def test_quick_analysis_with_a_model_adds_findings_inside_the_selection(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    text = "def ratio(a, b):\n    return a // b\n\n\ndef half(a):\n    return a // 2\n"
    repo.write("calc.py", text)
    repo.commit("base")
    document = uri(repo.root / "calc.py")
    reply = (
        f"<findings>\n{_model_finding(2, 'floor division')}\n{_model_finding(6, 'outside the selection')}\n"
        "</findings>\n<summary>Looked at ratio().</summary>"
    )
    with FakeModelServer() as fake:
        fake.script(text_turn(reply))
        env = {"ANTHROPIC_API_KEY": "sk-ant-api03-quick-test", "ANTHROPIC_BASE_URL": fake.base_url}
        async with lsp_session(repo.root, options={}, env=env) as session:
            result = plain(
                await session.client.protocol.send_request_async(
                    "prscope/quickAnalysis", {"uri": document, "range": plain_range(0, 1)}
                )
            )
            statuses = session.run_events.statuses("main")
        requests = fake.requests

    assert result["status"] == "complete", result["status_reason"]
    assert [(f["rule"], f["line"], f["source"]) for f in result["findings"]] == [("bug", 2, "model")]
    assert len(requests) == 1 and "return a // b" in requests[0].first_user_text
    assert statuses and statuses[-1] == "completed"
