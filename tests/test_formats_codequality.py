"""`--format codequality` against GitLab's own schema for a Code Quality issue (tests/data/gitlab), plus
what GitLab's documentation adds to it: the severity scale, 1-based lines, one issue per fingerprint."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
from prscope.analysis.findings import Finding, Severity
from prscope.analysis.formats import RenderContext, render
from prscope.analysis.report import Report

from tests.test_review_helpers import GITHUB_TOKEN, sample_context, sample_report

SCHEMA = json.loads(
    (Path(__file__).parent / "data" / "gitlab" / "codeclimate.json").read_text(encoding="utf-8")
)
SEVERITIES = {"info", "minor", "major", "critical", "blocker"}


def _issues(report: Report, context: RenderContext) -> list[dict[str, Any]]:
    issues = json.loads(render(report, "codequality", context))
    assert isinstance(issues, list)
    validator = jsonschema.Draft7Validator(SCHEMA)
    for issue in issues:
        assert not list(validator.iter_errors(issue)), issue
        assert issue["severity"] in SEVERITIES
        assert issue["location"]["lines"]["begin"] >= 1 and isinstance(issue["location"]["path"], str)
        assert issue["check_name"] and issue["description"]
    assert len({issue["fingerprint"] for issue in issues}) == len(issues)
    return issues


def test_every_finding_is_a_valid_issue() -> None:
    report = sample_report()
    issues = _issues(report, sample_context())
    active = [f for f in report.findings if f.id not in sample_context().dismissed]
    assert len(issues) == len(active)
    by_rule = {issue["check_name"]: issue for issue in issues}
    breaking = by_rule["breaking-call"]
    assert breaking["severity"] == "critical" and breaking["fingerprint"] == "f-breaking"
    assert breaking["location"] == {"path": "pkg/a b/ü.py", "lines": {"begin": 3, "end": 3}}
    assert "pkg/x.py:1" in breaking["content"]["body"]


def test_repeated_ids_get_distinct_stable_fingerprints() -> None:
    twin = Finding(
        id="same",
        rule="debug-leftover",
        severity=Severity.WARNING,
        path="a.py",
        line=1,
        end_line=1,
        title="t",
        message="m",
        source="check",
    )
    report = Report(
        status="offline", mode="branch", findings=[twin, twin.model_copy(update={"line": 9, "end_line": 9})]
    )
    first = _issues(report, RenderContext())
    again = _issues(report, RenderContext())
    assert first[0]["fingerprint"] == "same" and first[1]["fingerprint"] != "same"
    assert [i["fingerprint"] for i in first] == [i["fingerprint"] for i in again]


def test_secrets_are_masked_and_model_confidence_shown() -> None:
    leaky = Finding(
        id="s1",
        rule="secret",
        severity=Severity.ERROR,
        confidence=0.9,
        path="cfg.py",
        line=1,
        end_line=1,
        title=f"token {GITHUB_TOKEN}",
        message=f"found {GITHUB_TOKEN}",
        source="model",
    )
    (issue,) = _issues(Report(status="complete", mode="branch", findings=[leaky]), RenderContext())
    assert GITHUB_TOKEN not in json.dumps(issue)
    assert issue["categories"] == ["Security"] and "(model, confidence 0.90)" in issue["description"]


def test_an_empty_review_is_an_empty_array() -> None:
    assert json.loads(render(Report(status="complete", mode="branch"), "codequality")) == []
