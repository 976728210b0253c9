"""A secret that reaches a finding (even unmasked, even in the code line) never reaches any output."""

from __future__ import annotations

import pytest
from prscope.analysis.findings import Finding, Related, Severity, Suggestion
from prscope.analysis.formats import FORMATS, RenderContext, render
from prscope.analysis.report import Report

from tests.test_review_helpers import GITHUB_TOKEN

AWS_KEY = "AKIA" + "Q3EGRT5YBV7NDPLK"


def _leaky_report() -> Report:
    finding = Finding(
        id="s1",
        rule="secret",
        severity=Severity.ERROR,
        path="cfg.py",
        line=1,
        end_line=1,
        column=9,
        end_column=9 + len(GITHUB_TOKEN),
        title=f"token {GITHUB_TOKEN}",
        message=f"found {GITHUB_TOKEN} and {AWS_KEY}",
        source="model",
        suggestion=Suggestion(start_line=1, end_line=1, replacement=f'TOKEN = "{GITHUB_TOKEN}"'),
        related=[Related(path="cfg.py", line=2, message=f"also {AWS_KEY}")],
    )
    return Report(
        status="partial",
        status_reason="x",
        mode="branch",
        findings=[finding],
        errors=[f"echo {GITHUB_TOKEN}"],
    )


@pytest.mark.parametrize("fmt", FORMATS)
def test_no_format_leaks_a_secret(fmt: str) -> None:
    context = RenderContext(sources={"cfg.py": [f'TOKEN = "{GITHUB_TOKEN}"', f"KEY = '{AWS_KEY}'"]})
    text = render(_leaky_report(), fmt, context)
    assert GITHUB_TOKEN not in text and AWS_KEY not in text
    assert GITHUB_TOKEN[4:16] not in text and AWS_KEY[4:] not in text
    assert "secret" in text
