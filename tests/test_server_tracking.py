"""Placing findings on documents and following edits (server.tracking, server.reviewing's publisher),
on their own: a finding is shown on the line that reads what the review saw, or not at all."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from lsprotocol import types
from prscope.analysis.agent.events import FindingsPublished
from prscope.analysis.findings import Finding, Severity, Suggestion, fingerprint
from prscope.analysis.positions import line_breaks, split_lines
from prscope.server.reviewing import DocumentText, ReviewPublisher, Workspace
from prscope.server.session import Session as ServerSession
from prscope.server.tracking import LineChange, Placed, fix_still_fits, follow_edits, place, revalidate
from pygls.workspace import TextDocument

LINES = ["def work(x):", "    breakpoint()", "    return x * 2"]


def _finding(line: int, text: str, rule: str = "debug-leftover", **changes: Any) -> Finding:
    finding = Finding(
        id=fingerprint(rule, "w.py", text),
        rule=rule,
        severity=Severity.WARNING,
        path="w.py",
        line=line,
        end_line=line,
        title=rule,
        message="",
        source="check",
    )
    return finding.model_copy(update=changes)


def _leftover(line: int = 2) -> Finding:
    return _finding(
        line, "    breakpoint()", suggestion=Suggestion(start_line=line, end_line=line, replacement="")
    )


def test_placed_by_fingerprint_where_the_line_moved_and_without_columns() -> None:
    lines = ["# header", "", *LINES]
    (item,), unplaced = place(
        [_leftover().model_copy(update={"column": 5, "end_column": 17})], lines, "review"
    )
    assert unplaced == []
    assert item.finding.line == 4 and item.finding.column is None  # columns of another text: dropped
    assert item.finding.suggestion is not None and item.finding.suggestion.start_line == 4
    assert item.anchor == ("    breakpoint()",) and item.fix_anchor == ("    breakpoint()",)


def test_placed_by_the_reviewed_text_keeps_columns_and_multi_line_fixes() -> None:
    finding = _finding(
        2,
        "    breakpoint()",
        column=5,
        end_column=17,
        suggestion=Suggestion(start_line=2, end_line=3, replacement=""),
    )
    (item,), _ = place([finding], ["import os", *LINES], "review", reviewed=LINES)
    assert (item.finding.line, item.finding.column) == (3, 5)
    assert item.fix_anchor == ("    breakpoint()", "    return x * 2")
    changed = ["import os", "def work(x):", "    breakpoint()", "    return x * 3"]
    (item,), _ = place([finding], changed, "review", reviewed=LINES)
    assert item.finding.suggestion is None  # a line of the fix changed: no fix


def test_a_finding_whose_line_changed_is_not_placed() -> None:
    placed, unplaced = place([_leftover()], ["def work(x):", "    pass"], "review")
    assert placed == [] and len(unplaced) == 1
    placed, unplaced = place([_leftover()], ["def work(x):", "    pass"], "review", reviewed=LINES)
    assert placed == [] and len(unplaced) == 1


def test_identical_lines_are_matched_in_order_or_not_at_all() -> None:
    two = ["def f():", "    breakpoint()", "def g():", "    breakpoint()"]
    findings = [_leftover(2), _leftover(4)]
    placed, _ = place(findings, ["# moved", *two], "review")
    assert [p.finding.line for p in placed] == [3, 5]
    placed, unplaced = place(findings, ["# one left", *two[:2]], "review")
    assert placed == [] and len(unplaced) == 2  # which of the two is left? unknown: neither is shown


def _one(lines: list[str]) -> Placed:
    (item,), _ = place([_leftover()], lines, "review")
    return item


def test_following_incremental_edits() -> None:
    item = _one(LINES)
    after_insert = ["# a", "# b", *LINES]
    (moved,) = follow_edits([item], [LineChange(0, 0, 2)], LINES, after_insert)
    assert moved.finding.line == 4 and moved.finding.suggestion is not None
    assert moved.finding.suggestion.start_line == 4 and fix_still_fits(moved, after_insert)
    below = [*LINES, "# tail"]
    (same,) = follow_edits([item], [LineChange(2, 2, 1)], LINES, below)
    assert same.finding.line == 2
    edited = ["def work(x):", "    breakpoint()  # why", "    return x * 2"]
    assert follow_edits([item], [LineChange(1, 1, 0)], LINES, edited) == []


def test_following_a_whole_text_change_and_a_reopened_document() -> None:
    item = _one(LINES)
    new = ["import os", "", *LINES]
    (moved,) = follow_edits([item], None, LINES, new)
    assert moved.finding.line == 4
    (found,) = revalidate([item], ["x = 1", *LINES])
    assert found.finding.line == 3
    assert revalidate([item], ["def work(x):", "    return x"]) == []


def test_a_fix_whose_text_changed_is_withdrawn_but_the_finding_stays() -> None:
    finding = _finding(
        1, "def work(x):", rule="bug", suggestion=Suggestion(start_line=2, end_line=2, replacement="")
    )
    (item,), _ = place([finding], LINES, "review", reviewed=LINES)
    assert item.fix_anchor == ("    breakpoint()",)
    edited = ["def work(x):", "    pass", "    return x * 2"]
    (kept,) = follow_edits([item], [LineChange(1, 1, 0)], LINES, edited)
    assert kept.finding.line == 1 and kept.finding.suggestion is None and kept.fix_anchor is None


_EDIT = st.tuples(
    st.integers(min_value=0, max_value=12),  # start line
    st.integers(min_value=0, max_value=6),  # start character
    st.integers(min_value=0, max_value=3),  # lines spanned
    st.integers(min_value=0, max_value=6),  # end character
    st.sampled_from(["", "x", "\n", "new\n", "a\nb\n", "\nz", "    breakpoint()\n"]),
)


@settings(max_examples=120, deadline=None)
@given(st.integers(min_value=1, max_value=10), st.lists(st.lists(_EDIT, min_size=1, max_size=3), max_size=6))
def test_a_followed_finding_is_always_on_its_own_text(target: int, notifications: list[list[Any]]) -> None:
    """Whatever the user types, a finding still shown sits on a line reading exactly its anchor, and a
    finding whose line nobody touched is still shown, on that very line."""
    source = "".join(f"line {n}\n" for n in range(1, 11))
    anchor = f"line {target}"
    (item,), _ = place([_finding(target, anchor)], split_lines(source), "review")
    document = TextDocument("file:///w.py", source)
    placed = [item]
    true_line, touched = target - 1, False
    for notification in notifications:
        before = split_lines(document.source)
        changes = []
        for start, start_char, span, end_char, text in notification:
            lines = split_lines(document.source)
            start = min(start, len(lines))
            end = min(start + span, len(lines))
            first = min(start_char, len(lines[start]) if start < len(lines) else 0)
            last = min(end_char, len(lines[end]) if end < len(lines) else 0)
            if (end, last) < (start, first):
                last = first
            change = types.TextDocumentContentChangePartial(
                range=types.Range(
                    start=types.Position(line=start, character=first),
                    end=types.Position(line=end, character=last),
                ),
                text=text,
            )
            document.apply_change(change)
            changes.append(LineChange(start, end, line_breaks(text)))
            if end < true_line:
                true_line += line_breaks(text) - (end - start)
            elif start <= true_line:
                touched = True
        placed = follow_edits(placed, changes, before, split_lines(document.source))
    lines = split_lines(document.source)
    if placed:
        (moved,) = placed
        assert lines[moved.finding.line - 1] == anchor
    if not touched:
        assert [p.finding.line for p in placed] == [true_line + 1]
    holders = [n for n, text in enumerate(lines, 1) if text == anchor]
    if placed and len(holders) == 1:
        assert placed[0].finding.line == holders[0]


class _RecordingOutbox:
    def __init__(self) -> None:
        self.published: list[tuple[str, list[types.Diagnostic]]] = []

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Run events are not under test here."""

    def progress(self, message: str) -> None:
        """Progress is not under test here."""

    def publish(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        self.published.append((uri, diagnostics))


@pytest.mark.asyncio
async def test_model_findings_are_added_as_each_is_verified_and_not_after_a_stop(tmp_path: Path) -> None:
    """The engine emits FindingsPublished(phase="model") for each verified model finding; each is added
    to what the document shows. Protocol-free: a recording outbox stands for the client."""
    lines = ["import os", "value = os.environ['X']", "print(value)"]
    session = ServerSession()
    workspace = Workspace(
        root=tmp_path,
        uri_of=lambda path: f"file:///repo/{path}",
        document_of=lambda _path: DocumentText(lines, True),
        root_uri="file:///repo/",
    )
    outbox = _RecordingOutbox()
    run = session.start_run(tmp_path)
    publisher = ReviewPublisher(session, workspace, outbox, run, frozenset())

    def finding(rule: str, line: int) -> Finding:
        return _finding(line, lines[line - 1], rule=rule).model_copy(update={"path": "app.py"})

    def with_path_id(f: Finding) -> Finding:
        return f.model_copy(update={"id": fingerprint(f.rule, "app.py", lines[f.line - 1])})

    publisher.on_findings(FindingsPublished("checks", (with_path_id(finding("secret", 2)),)))
    publisher.on_findings(FindingsPublished("model", (with_path_id(finding("bug", 3)),)))
    shown = [[d.code for d in diagnostics] for _uri, diagnostics in outbox.published]
    run.stop("you cancelled it")
    publisher.on_findings(FindingsPublished("model", (with_path_id(finding("bug", 1)),)))

    assert shown == [["secret"], ["secret", "bug"]]
    assert len(outbox.published) == 2  # nothing after the stop
    assert publisher.shown.sentence() == (
        "the 2 findings already shown (the deterministic checks and 1 finding verified by the model review)"
        " are kept"
    )


def test_a_finding_dropped_by_an_edit_is_followed_and_comes_back_with_its_text() -> None:
    from prscope.server.documents import DocumentFindings
    from prscope.server.tracking import follow_and_keep_lost

    documents = DocumentFindings(review={"w": [_one(LINES)]})
    texts = [
        LINES,
        ["def work(x):", "    breakpoint()  # why", "    return x * 2"],  # its line edited: dropped
        ["# a", "def work(x):", "    breakpoint()  # why", "    return x * 2"],  # a line above
        ["# a", *LINES],  # the edit undone
    ]
    changes = [[LineChange(1, 1, 0)], [LineChange(0, 0, 1)], [LineChange(2, 2, 0)]]
    shown: list[list[int]] = []
    for before, after, change in zip(texts, texts[1:], changes, strict=False):
        documents.follow("w", lambda items, b=before, a=after, c=change: follow_and_keep_lost(items, c, b, a))
        shown.append([item.finding.line for item in documents.shown("w")])
    assert shown == [[], [], [3]]
    (back,) = documents.shown("w")
    assert back.finding.suggestion is not None and fix_still_fits(back, texts[-1])
    assert documents.lost == {}
