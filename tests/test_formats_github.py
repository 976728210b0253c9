from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from prscope.analysis.formats import render
from prscope.analysis.formats.github import escape_data, escape_property, workflow_command

from tests.test_review_helpers import sample_context, sample_report


def test_escaping_rules() -> None:
    assert escape_data("100% a\r\nb") == "100%25 a%0D%0Ab"
    assert escape_property("a:b,c%\n") == "a%3Ab%2Cc%25%0A"
    assert escape_data("a:b,c") == "a:b,c"


def test_workflow_command_shape() -> None:
    line = workflow_command("error", "boom\nbang", file="a,b.py", line=3, endLine=4, title="x: y")
    assert line == "::error file=a%2Cb.py,line=3,endLine=4,title=x%3A y::boom%0Abang"


def test_annotations_and_status_notice() -> None:
    lines = render(sample_report(), "github", sample_context()).splitlines()
    assert lines[0].startswith("::notice title=prscope review offline::review offline: no API key")
    errors = [line for line in lines if line.startswith("::error ")]
    assert len(errors) == 1
    breaking = errors[0]
    assert "file=pkg/a b/ü.py,line=3,endLine=3,col=24,endColumn=26," in breaking
    assert "title=prscope breaking-call%3A Call to `café` no longer matches its signature::" in breaking
    warning = next(line for line in lines if line.startswith("::warning file=pkg/x.py"))
    # `%`, newlines in the message are encoded; the message keeps its `:` and `,`.
    assert "100%25 sure: a,b:c%0Asecond line" in warning
    assert "Suggested fix: delete line 2" in warning
    notice = next(line for line in lines if line.startswith("::notice file=pkg/x.py"))
    assert "line=4,endLine=5" in notice and "col=" not in notice
    assert not any("Dismissed one" in line for line in lines)
    assert any(line.startswith("::notice title=prscope%3A file not reviewed::img.png") for line in lines)
    assert any("check dangling-reference failed" in line for line in lines)
    assert all("\n" not in line for line in lines)


def _unescape(text: str) -> str:
    for encoded, raw in (("%0D", "\r"), ("%0A", "\n"), ("%3A", ":"), ("%2C", ","), ("%25", "%")):
        text = text.replace(encoded, raw)
    return text


@given(st.text())
def test_property_escaping_round_trips_and_never_leaks_separators(value: str) -> None:
    escaped = escape_property(value)
    assert "\n" not in escaped and "\r" not in escaped and "," not in escaped and ":" not in escaped
    assert _unescape(escaped) == value
    data = escape_data(value)
    assert "\n" not in data and "\r" not in data
