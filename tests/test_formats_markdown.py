from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from prscope.analysis.formats import render
from prscope.analysis.formats.markdown import code_block, escape_text, inline_code

from tests.test_review_helpers import sample_context, sample_report


def test_status_line_counts_and_files() -> None:
    text = render(
        sample_report("partial", "the model review failed (HTTP 500)"), "markdown", sample_context()
    )
    assert "**Status: partial**: the model review failed \\(HTTP 500\\)" in text
    assert "| 🔴 error | 1 |" in text
    assert "| 🟠 warning | 1 |" in text
    assert "| 🔵 note | 1 |" in text
    assert "### `pkg/a b/ü.py`" in text and "### `pkg/x.py`" in text
    assert text.index("### `pkg/a b/ü.py`") < text.index("### `pkg/x.py`")
    assert "1 dismissed finding(s) not shown." in text
    assert "Dismissed one" not in text
    assert "<details><summary>Files not reviewed</summary>" in text
    assert "- `img.png`: binary file" in text
    assert "check dangling-reference failed: boom" in text


def test_code_lines_in_fences() -> None:
    text = render(sample_report(), "markdown", sample_context())
    assert '```python\n  3      naïve = café("日本", 🎉x)\n  ```' in text
    assert "Suggested fix: delete line 2" in text
    assert "Suggested fix: replace lines 4-5 with:" in text
    assert "  ```python\n  try:\n      run()\n  ```" in text


def test_model_text_cannot_inject_markup() -> None:
    text = render(sample_report(), "markdown", sample_context())
    assert "<swallowed>" not in text and "\\<swallowed\\>" in text
    assert "](http://evil.example)" not in text
    assert "``a`b``" in text  # a code span is kept as code


def test_fences_outgrow_backticks_inside() -> None:
    assert inline_code("a`b") == "``a`b``"
    assert inline_code("`x`") == "`` `x` ``"
    assert code_block("```\nx\n```").startswith("````\n")
    assert escape_text("*bold* `code_x` _u_") == "\\*bold\\* `code_x` \\_u\\_"


def test_size_limit_shows_errors_first_and_counts_the_rest() -> None:
    from prscope.analysis.findings import Finding, Severity
    from prscope.analysis.report import Report

    def finding(number: int, severity: Severity) -> Finding:
        return Finding(
            id=f"f{number}",
            rule="bug",
            severity=severity,
            path=f"m{number % 7}.py",
            line=1,
            end_line=1,
            title=f"finding {number}",
            message="x" * 600,
            source="model",
        )

    findings = [finding(n, Severity.NOTE) for n in range(200)] + [
        finding(1000 + n, Severity.ERROR) for n in range(5)
    ]
    text = render(Report(status="complete", mode="branch", findings=findings), "markdown", sample_context())
    assert len(text) < 65_536
    assert all(f"finding {1000 + n}" in text for n in range(5))
    shown = text.count("**note**")
    assert 0 < shown < 200
    assert f"{200 - shown} more finding(s) not shown here (size limit)" in text


@given(st.text(alphabet="`a\n ", max_size=40))
def test_property_code_block_cannot_be_closed_by_its_content(content: str) -> None:
    block = code_block(content)
    fence = block.split("\n", 1)[0]
    assert block.endswith("\n" + fence)
    assert all(not line.startswith(fence) for line in content.split("\n"))
