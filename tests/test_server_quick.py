"""Quick analysis and the review share one set of diagnostics per document (issue 10, defect 7)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from prscope.analysis.findings import fingerprint

from tests.gitrepo import GitRepo
from tests.test_server_support import action_params, code_actions, lsp_session, stale_call_repo, uri

SELECTION = {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}


def _selection(first: int, last: int) -> types.Range:
    return types.Range(
        start=types.Position(line=first, character=0), end=types.Position(line=last, character=0)
    )


async def test_a_quick_analysis_does_not_duplicate_what_the_review_shows(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root) as session:
        await session.review(base="main")
        document = session.open("worker.py")
        result = await session.command("prscope.quickAnalysis", {"uri": document, "range": SELECTION})
        shown = session.diagnostics("worker.py")

    assert [f["rule"] for f in result["findings"]] == ["debug-leftover"]
    assert [(d.code, d.range.start.line) for d in shown] == [("debug-leftover", 1)]


async def test_a_new_review_replaces_quick_results_for_the_files_it_covers(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("job.py", "def job():\n    return 1\n")
    repo.write("other.py", "def other():\n    return 2\n")
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("job.py", "def job():\n    return 1\n\n\ndef more():\n    return 3\n")
    repo.commit("add more()")
    unsaved = "def job():\n    import pdb; pdb.set_trace()\n    return 1\n"
    async with lsp_session(repo.root) as session:
        job = session.open("job.py", unsaved)
        other = session.open("other.py", "def other():\n    breakpoint()\n    return 2\n")
        await session.command("prscope.quickAnalysis", {"uri": job, "range": SELECTION})
        await session.command("prscope.quickAnalysis", {"uri": other, "range": SELECTION})
        before = [d.code for d in session.diagnostics("job.py")]
        summary = await session.review(base="main")
        after_job = session.diagnostics("job.py")
        after_other = [d.code for d in session.diagnostics("other.py")]

    assert before == ["debug-leftover"]
    assert summary["files"]["changed"] == 1
    assert after_job == []  # job.py is in the reviewed change: the review's word replaces the quick one
    assert after_other == ["debug-leftover"]  # other.py is not: its quick result stays


async def test_quick_analysis_is_offered_only_where_it_can_run(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "notes.py").write_text("x = 1\ny = 2\n")
    async with lsp_session(repo.root, more_folders=(outside,)) as session:
        inside = await code_actions(
            session.client, action_params(session.open("worker.py"), _selection(0, 2), [])
        )
        untitled = "untitled:Untitled-1"
        session.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=untitled, language_id="python", version=1, text="x\ny\n"
                )
            )
        )
        in_untitled = await code_actions(session.client, action_params(untitled, _selection(0, 1), []))
        plain_file = uri(outside / "notes.py")
        in_plain = await code_actions(session.client, action_params(plain_file, _selection(0, 1), []))

    def quick(actions: list[types.CodeAction]) -> list[str]:
        return [a.title for a in actions if a.title == "prscope: quick analysis"]

    assert quick(inside) == ["prscope: quick analysis"]
    assert quick(in_untitled) == []
    assert quick(in_plain) == []


async def test_quick_analysis_hides_findings_the_configuration_dismisses(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    leftover = "    breakpoint()"
    repo.write(".prscope.toml", f'dismissed = ["{fingerprint("debug-leftover", "job.py", leftover)}"]\n')
    repo.write("job.py", "def job():\n    return 1\n")
    repo.commit("base")
    async with lsp_session(repo.root) as session:
        job = session.open("job.py", f"def job():\n{leftover}\n    return 1\n")
        result = await session.command("prscope.quickAnalysis", {"uri": job, "range": SELECTION})
        shown = session.diagnostics("job.py")
    assert [f["rule"] for f in result["findings"]] == ["debug-leftover"]
    assert result["shown"] == 0 and shown == []
