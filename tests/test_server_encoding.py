"""Columns in the position encoding the client negotiated (issue 10, defect 3): Neovim 0.10+ offers
utf-8 first, VS Code only utf-16. Lines with astral characters, combining marks and tabs, and a last line
without a newline."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from lsprotocol import types

from tests.fakeapi import FakeModelServer, text_turn
from tests.gitrepo import GitRepo
from tests.test_server_support import (
    action_params,
    apply_edits,
    client_capabilities,
    code_actions,
    edits_of,
    lsp_session,
)

# e + a combining acute accent, a BMP emoji (3 UTF-8 bytes, 1 UTF-16 unit), an astral one (4 bytes, 2
# units), then a tab; the stale call comes after them, on the file's last line, with no newline after it.
PREFIX = "label = 'e\u0301☕🎉'\t; "
CALLER = f"from pkg.util import fetch\n\n{PREFIX}result = fetch('a')"
UNITS = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}


def _units(text: str, encoding: str) -> int:
    codec, width = UNITS[encoding]
    return len(text.encode(codec)) // width


def _caller_repo(root: Path) -> GitRepo:
    repo = GitRepo(root)
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/util.py", "def fetch(url, timeout=10):\n    return url\n")
    repo.write("app.py", CALLER)
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("pkg/util.py", "def fetch(url, method, timeout=10):\n    return url\n")
    repo.commit("change fetch")
    return repo


@pytest.mark.parametrize(
    ("offered", "expected"),
    [
        (["utf-8", "utf-16"], "utf-8"),  # what Neovim 0.10+ offers
        (None, "utf-16"),  # what VS Code does (offers nothing: LSP's default)
        (["utf-32", "utf-16"], "utf-32"),
        (["utf-16", "utf-8"], "utf-16"),
    ],
)
async def test_columns_count_the_negotiated_encoding(
    tmp_path: Path, offered: list[str] | None, expected: str
) -> None:
    repo = _caller_repo(tmp_path / "repo")
    async with lsp_session(repo.root, capabilities=client_capabilities(offered)) as session:
        await session.review(base="main")
        (breaking,) = session.diagnostics("app.py")
        announced = session.server_capabilities.position_encoding if session.server_capabilities else None

    assert str(getattr(announced, "value", announced)) == expected
    line = CALLER.splitlines()[2]
    call = line.index("fetch(")
    assert breaking.range.start.line == 2
    assert breaking.range.start.character == _units(line[:call], expected)
    assert breaking.range.end.character == _units(line[: call + len("fetch")], expected)


CALC = "def ratio(a, b):\n    label = 'e\u0301☕🎉'\t; return a // b"
FIXED_LINE = "    label = 'e\u0301☕🎉'\t; return a / b"


def _finding_with_fix() -> str:
    finding = {
        "rule": "bug",
        "severity": "warning",
        "path": "calc.py",
        "line": 2,
        "title": "floor division",
        "message": "Integer division drops the remainder the caller expects.",
        "confidence": 0.9,
        "suggestion": {"start_line": 2, "end_line": 2, "replacement": FIXED_LINE},
    }
    return f"<findings>\n{json.dumps(finding)}\n</findings>\n<summary>Looked at ratio().</summary>"


@pytest.mark.slow
@pytest.mark.parametrize("encoding", ["utf-8", "utf-16"])
async def test_a_fix_on_a_last_line_with_emoji_replaces_exactly_that_line(
    tmp_path: Path, encoding: str
) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("calc.py", CALC)
    repo.commit("base")
    selection = types.Range(
        start=types.Position(line=0, character=0), end=types.Position(line=1, character=5)
    )
    with FakeModelServer() as fake:
        fake.script(text_turn(_finding_with_fix()))
        env = {"ANTHROPIC_API_KEY": "sk-ant-api03-encoding-test", "ANTHROPIC_BASE_URL": fake.base_url}
        capabilities = client_capabilities([encoding, "utf-16"])
        async with lsp_session(repo.root, options={}, env=env, capabilities=capabilities) as session:
            document = session.open("calc.py")
            result = await session.command(
                "prscope.quickAnalysis", {"uri": document, "range": _plain(selection)}
            )
            (bug,) = session.diagnostics("calc.py")
            actions = await code_actions(session.client, action_params(document, bug.range, [bug]))

    assert [f["rule"] for f in result["findings"]] == ["bug"]
    (fix,) = [a for a in actions if a.title.startswith("prscope: fix")]
    _, edits = edits_of(fix)
    assert apply_edits(CALC, edits, encoding) == "def ratio(a, b):\n" + FIXED_LINE
    assert bug.range.end.character == _units(CALC.splitlines()[1], encoding)


def _plain(selection: types.Range) -> dict[str, object]:
    return {
        "start": {"line": selection.start.line, "character": selection.start.character},
        "end": {"line": selection.end.line, "character": selection.end.character},
    }
