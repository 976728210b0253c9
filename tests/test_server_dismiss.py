"""The "Dismiss finding" code action when the run store cannot be used: an edit of the configuration's
`dismissed` list that the user sees and can undo. The store's own dismissals, and `prscope.showRun`:
tests/test_server_history.py."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from lsprotocol import types
from prscope.analysis.config import load_config
from prscope.analysis.findings import Finding, Severity
from prscope.server.dismiss import apply_inserts, config_dismissal

from tests.test_server_support import (
    apply_edits,
    break_store,
    dismiss_action_for,
    edits_of,
    eventually,
    lsp_session,
    stale_call_repo,
)

FINDING = Finding(
    id="0123456789abcdef0123",
    rule="debug-leftover",
    severity=Severity.WARNING,
    path="worker.py",
    line=2,
    end_line=2,
    title="Debugger call left in",
    message="",
    source="check",
)


def _dismiss(root: Path, name: str, text: str | None) -> str | None:
    if text is not None:
        (root / name).write_text(text, encoding="utf-8", newline="")
    edit = config_dismissal(root, FINDING, lambda p: p.read_bytes().decode() if p.exists() else None)
    return None if edit is None else apply_inserts(edit.text, edit.inserts)


@pytest.mark.parametrize(
    "text",
    [
        'fail_on = "warning"\n',
        'fail_on = "warning"\n\n[model]\nverify = false\n',
        'dismissed = ["aaa"]\n',
        "dismissed = []\n",
        'dismissed = [\n    "aaa",  # old one\n    "bbb"\n]\n',
        'dismissed = [\n    "aaa",\n]\n[budget]\nmax_subagents = 2\n',
        "dismissed = [\"a]b\", 'c#d']  # tricky strings\n",
        "[model]\nverify = false\n",
        'fail_on = "note"\r\ndismissed = [\r\n    "aaa",\r\n]\r\n',
    ],
)
def test_prscope_toml_gets_the_id_and_keeps_everything_else(tmp_path: Path, text: str) -> None:
    edited = _dismiss(tmp_path, ".prscope.toml", text)
    assert edited is not None
    before, after = tomllib.loads(text), tomllib.loads(edited)
    assert after.get("dismissed") == [*before.get("dismissed", []), FINDING.id]
    assert {k: v for k, v in after.items() if k != "dismissed"} == {
        k: v for k, v in before.items() if k != "dismissed"
    }
    assert text.count("#") <= edited.count("#")
    assert ("\r\n" in text) == ("\r\n" in edited) and (
        "\r\n" not in text or "\n" not in edited.replace("\r\n", "")
    )


@pytest.mark.parametrize(
    "text",
    [
        '[project]\nname = "x"\n\n[tool.prscope]\nfail_on = "warning"\n\n[tool.ruff]\nline-length = 100\n',
        '[tool.prscope]\ndismissed = ["aaa"]\n[tool.prscope.model]\nverify = false\n',
        '[project]\nname = "x"\n[tool.prscope.model]\nverify = false\n',
    ],
)
def test_pyproject_gets_the_id_in_its_prscope_table(tmp_path: Path, text: str) -> None:
    edited = _dismiss(tmp_path, "pyproject.toml", text)
    assert edited is not None
    before, after = tomllib.loads(text), tomllib.loads(edited)
    old = before["tool"]["prscope"].get("dismissed", [])
    assert after["tool"]["prscope"]["dismissed"] == [*old, FINDING.id]
    assert after["project"] == before["project"] if "project" in before else True
    (tmp_path / "pyproject.toml").write_text(edited)
    assert load_config(tmp_path).dismissed == [*old, FINDING.id]


def test_no_configuration_creates_one(tmp_path: Path) -> None:
    edit = config_dismissal(tmp_path, FINDING, lambda _p: None)
    assert edit is not None and edit.create and edit.path == tmp_path / ".prscope.toml"
    assert tomllib.loads(apply_inserts("", edit.inserts))["dismissed"] == [FINDING.id]


def test_a_configuration_that_does_not_parse_is_not_edited(tmp_path: Path) -> None:
    assert _dismiss(tmp_path, ".prscope.toml", "dismissed = [\n") is None
    assert _dismiss(tmp_path, ".prscope.toml", 'dismissed = "not a list"\n') is None


async def test_dismissing_a_finding_edits_the_configuration_and_hides_it(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    repo.write(".prscope.toml", 'fail_on = "warning"  # keep\n')
    repo.commit("configure")
    break_store(repo)
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        leftover, _, dismiss = await dismiss_action_for(session, "worker.py")
        config_uri, edits = edits_of(dismiss)
        # the client applies the edit (and saves), then runs the action's command
        config = repo.root / ".prscope.toml"
        config.write_text(apply_edits(config.read_text(), edits))
        assert dismiss.command is not None
        await session.command(dismiss.command.command, *(dismiss.command.arguments or []))
        hidden = await eventually(lambda: session.diagnostics("worker.py") == [])
        again = await session.review(base="main")
        after_review = session.diagnostics("worker.py")

    assert config_uri.endswith("/.prscope.toml")
    assert hidden
    assert load_config(repo.root).dismissed == [leftover.data["id"]]
    assert load_config(repo.root).fail_on == "warning"
    assert after_review == []
    # left out of the answer's findings and counts, as `--format json` leaves it out, and counted apart
    assert leftover.data["id"] not in [f["id"] for f in again["findings"]]
    assert again["dismissed"] == 1 and again["counts"]["warning"] == 0


async def test_without_a_configuration_the_action_creates_it(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    break_store(repo)
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        breaking, _, dismiss = await dismiss_action_for(session, "app.py")
    assert dismiss.edit is not None and dismiss.edit.document_changes is not None
    create, change = dismiss.edit.document_changes
    assert isinstance(create, types.CreateFile) and create.uri.endswith("/.prscope.toml")
    assert isinstance(change, types.TextDocumentEdit)
    (insert,) = change.edits
    assert tomllib.loads(insert.new_text)["dismissed"] == [breaking.data["id"]]
