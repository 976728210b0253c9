from __future__ import annotations

import json
from typing import Any

from prscope.analysis.formats import render

from tests.test_review_helpers import NON_ASCII_LINE, sample_context, sample_report


def _diagnostics() -> list[dict[str, Any]]:
    text = render(sample_report(), "rdjsonl", sample_context())
    assert text.endswith("\n")
    return [json.loads(line) for line in text.splitlines()]


def test_one_diagnostic_per_line_without_dismissed() -> None:
    diagnostics = _diagnostics()
    assert len(diagnostics) == 3
    for diagnostic in diagnostics:
        assert diagnostic["source"]["name"] == "prscope"
        assert diagnostic["severity"] in {"ERROR", "WARNING", "INFO"}
        assert diagnostic["location"]["range"]["start"]["line"] >= 1
        assert diagnostic["code"]["value"]
        assert diagnostic["message"]
    assert {d["code"]["value"] for d in diagnostics} == {"breaking-call", "debug-leftover", "error-handling"}


def test_columns_are_utf8_bytes_of_the_line() -> None:
    breaking = next(d for d in _diagnostics() if d["code"]["value"] == "breaking-call")
    start = breaking["location"]["range"]["start"]
    end = breaking["location"]["range"]["end"]
    assert start == {"line": 3, "column": 30}
    assert end == {"line": 3, "column": 35}
    encoded = NON_ASCII_LINE.encode("utf-8")
    assert encoded[start["column"] - 1 : end["column"] - 1].decode("utf-8") == "🎉x"
    assert breaking["location"]["path"] == "pkg/a b/ü.py"
    assert breaking["severity"] == "ERROR"
    assert breaking["related_locations"][0]["location"]["path"] == "pkg/x.py"


def test_suggestions_replace_whole_lines() -> None:
    by_rule = {d["code"]["value"]: d for d in _diagnostics()}
    deletion = by_rule["debug-leftover"]["suggestions"][0]
    assert deletion == {
        "range": {"start": {"line": 2, "column": 1}, "end": {"line": 3, "column": 1}},
        "text": "",
    }
    replacement = by_rule["error-handling"]["suggestions"][0]
    assert replacement["range"]["start"] == {"line": 4, "column": 1}
    assert replacement["range"]["end"] == {"line": 6, "column": 1}
    assert replacement["text"] == "try:\n    run()\n"
    assert by_rule["error-handling"]["severity"] == "INFO"


def test_finding_without_column_marks_the_line() -> None:
    by_rule = {d["code"]["value"]: d for d in _diagnostics()}
    assert by_rule["debug-leftover"]["location"]["range"]["start"] == {"line": 2}
