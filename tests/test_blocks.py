from __future__ import annotations

import json

from prscope.analysis.agent.blocks import NO_SUMMARY, FindingCandidate, parse_blocks
from prscope.analysis.findings import Severity

FIRST = {
    "rule": "breaking-change",
    "severity": "error",
    "path": "src/app.py",
    "line": 12,
    "title": "Callers pass 2 args",
    "message": "load() now needs 3 arguments; src/cli.py:40 passes 2.",
    "confidence": 0.9,
}
SECOND = {
    "rule": "bug",
    "severity": "warning",
    "path": "src/util.py",
    "line": 3,
    "end_line": 5,
    "title": "None not handled",
    "message": "parse() can return None.",
    "confidence": 0.6,
}
FULL_REPLY = f"""I looked at every caller.

<findings>
{json.dumps(FIRST)}
{json.dumps(SECOND)}
</findings>
<summary>Two callers of load() were not updated.</summary>
<answer>Yes: src/cli.py:40 and src/web.py:88 call load(path, mode) with two arguments.</answer>
"""


def test_full_reply_gives_typed_findings_summary_and_answer() -> None:
    reply = parse_blocks(FULL_REPLY)
    assert reply.missing == []
    assert reply.problems == []
    assert [f.path for f in reply.findings] == ["src/app.py", "src/util.py"]
    first = reply.findings[0]
    assert first.severity is Severity.ERROR
    assert first.rule == "breaking-change"
    assert first.line == 12 and first.end_line is None
    assert first.confidence == 0.9
    assert reply.findings[1].end_line == 5
    assert reply.summary == "Two callers of load() were not updated."
    assert reply.answer.startswith("Yes: src/cli.py:40")


def test_json_array_in_a_code_fence_with_trailing_comma() -> None:
    text = """<findings>
```json
[
  {"rule": "Error Handling", "severity": "HIGH", "file": "./pkg/mod.py", "line": "L7",
   "title": "Bare except", "description": "Swallows KeyboardInterrupt", "confidence": "85%"},
]
```
</findings>
<summary>One issue.</summary>"""
    reply = parse_blocks(text)
    assert reply.problems == []
    (finding,) = reply.findings
    assert finding.rule == "error-handling"
    assert finding.severity is Severity.ERROR
    assert finding.path == "pkg/mod.py"
    assert finding.line == 7
    assert finding.message == "Swallows KeyboardInterrupt"
    assert finding.confidence == 0.85
    assert reply.missing == ["answer"]


def test_malformed_entries_are_reported_and_good_ones_kept() -> None:
    text = """<findings>
{"severity": "warning", "path": "a.py", "line": 4, "title": "ok one"}
{"severity": "warning", "path": "a.py", "line": 0, "title": "bad line"}
{"severity": "catastrophic", "path": "a.py", "line": 2, "title": "bad severity"}
{"path": "a.py", "line": 9, "title": "unterminated
just some prose the model wrote
["just", "strings"]
</findings>"""
    reply = parse_blocks(text)
    assert [f.title for f in reply.findings] == ["ok one"]
    joined = "\n".join(reply.problems)
    assert "line" in joined and "greater than or equal to 1" in joined
    assert "unknown severity 'catastrophic'" in joined
    assert "unreadable finding" in joined
    assert "not a JSON object" in joined
    assert "ignored text in <findings>: just some prose" in joined
    assert len(reply.problems) >= 4


def test_empty_findings_markers_are_not_problems() -> None:
    for body in ("", "none", "[]", "No findings."):
        reply = parse_blocks(f"<findings>{body}</findings><summary>clean</summary>")
        assert reply.findings == [] and reply.problems == [], body
        assert "findings" not in reply.missing


def test_missing_tags_fall_back_to_raw_text() -> None:
    reply = parse_blocks("The function is only called from tests/test_x.py:10.")
    assert reply.missing == ["findings", "summary", "answer"]
    assert reply.summary == "The function is only called from tests/test_x.py:10."
    assert reply.answer == ""
    assert reply.findings == []


def test_empty_reply_becomes_no_summary() -> None:
    for text in ("", "   \n", None):
        reply = parse_blocks(text)
        assert reply.summary == NO_SUMMARY
        assert reply.findings == []


def test_unclosed_block_runs_to_the_next_tag_or_end() -> None:
    text = '<findings>{"path": "x.py", "line": 1, "title": "t"}\n<summary>cut off here'
    reply = parse_blocks(text)
    assert len(reply.findings) == 1
    assert reply.summary == "cut off here"


def test_summary_missing_uses_prose_outside_blocks() -> None:
    text = "Checked all three call sites.\n<findings>[]</findings>\n<answer>No caller breaks.</answer>"
    reply = parse_blocks(text)
    assert reply.summary == "Checked all three call sites."
    assert reply.answer == "No caller breaks."


def test_to_finding_is_a_model_finding_with_a_stable_id() -> None:
    candidate = FindingCandidate.model_validate(
        {"path": "b/src/x.py", "line": 3, "title": "Off by one", "severity": "medium"}
    )
    finding = candidate.to_finding("    for i in range(n + 1):")
    assert finding.source == "model"
    assert finding.path == "src/x.py"
    assert finding.end_line == 3
    assert finding.message == "Off by one"
    moved = FindingCandidate(path="src/x.py", line=30, title="Off by one").to_finding(
        "for i in range(n + 1):"
    )
    assert finding.id == moved.id


def test_end_line_before_line_is_corrected_and_prose_suggestion_folded() -> None:
    reply = parse_blocks(
        '<findings>{"path": "m.py", "line": 8, "end_line": 2, "title": "t", "message": "m",'
        ' "suggestion": "use a context manager"}</findings>'
    )
    (finding,) = reply.findings
    assert finding.end_line == 8
    assert finding.suggestion is None
    assert "Suggestion: use a context manager" in finding.message
