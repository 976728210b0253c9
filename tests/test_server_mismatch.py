"""The three mismatch rules reach the editor: prscope/review over stdio publishes them as diagnostics."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from tests.mismatch_repo import mismatch_repo
from tests.test_server_support import lsp_session


async def test_each_rule_arrives_as_a_diagnostic_with_its_fix(tmp_path: Path) -> None:
    repo = mismatch_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        summary = await session.review(base="main")
        app = session.diagnostics("app.py")

    by_code = {d.code: d for d in app}
    assert sorted(by_code) == ["async-mismatch", "override-mismatch", "property-mismatch"]
    awaited = by_code["async-mismatch"]
    assert awaited.range.start.line == 9 and awaited.range.start.character == 11
    assert awaited.severity == types.DiagnosticSeverity.Error
    assert isinstance(awaited.data, dict)
    assert awaited.data["suggestion"]["replacement"] == "    await client.fetch(1)"
    called = by_code["property-mismatch"]
    assert called.range.start.line == 10
    assert isinstance(called.data, dict)
    assert called.data["suggestion"]["replacement"] == "    return client.name"
    override = by_code["override-mismatch"]
    assert override.range.start.line == 4
    assert override.severity == types.DiagnosticSeverity.Warning
    assert override.related_information
    assert override.related_information[0].location.uri.endswith("pkg/service.py")
    rules = {f["rule"] for f in summary["findings"]}
    assert {"async-mismatch", "property-mismatch", "override-mismatch"} <= rules
