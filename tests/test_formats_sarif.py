from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from prscope.analysis.formats import render
from prscope.analysis.formats.sarif import AUTOMATION_CATEGORY, FINGERPRINT_KEY

from tests.test_review_helpers import sample_context, sample_report

SCHEMA_PATH = Path("/work/shared/schemas/sarif-schema-2.1.0.json")


@pytest.fixture(scope="module")
def validator() -> jsonschema.Draft7Validator:
    if not SCHEMA_PATH.exists():
        pytest.skip("the SARIF schema is not available")
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    return jsonschema.Draft7Validator(schema)


def _sarif(status: str = "offline", reason: str = "no API key") -> dict[str, Any]:
    return json.loads(render(sample_report(status, reason), "sarif", sample_context()))


@pytest.mark.parametrize("status", ["complete", "partial", "offline"])
def test_validates_against_the_official_schema(validator: jsonschema.Draft7Validator, status: str) -> None:
    log = _sarif(status)
    errors = sorted(validator.iter_errors(log), key=lambda e: list(e.path))
    assert not errors, [f"{list(e.path)}: {e.message}" for e in errors]


def test_run_carries_what_code_scanning_needs() -> None:
    log = _sarif()
    assert log["version"] == "2.1.0"
    run = log["runs"][0]
    assert run["automationDetails"]["id"] == AUTOMATION_CATEGORY
    assert "/" in run["automationDetails"]["id"]
    rules = run["tool"]["driver"]["rules"]
    for rule in rules:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"] and rule["help"]["text"]
        assert rule["defaultConfiguration"]["level"] in {"error", "warning", "note"}
    ids = [rule["id"] for rule in rules]
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uriBaseId"] == "%SRCROOT%"
        assert not location["artifactLocation"]["uri"].startswith("/")
        assert result["partialFingerprints"][FINGERPRINT_KEY]


def test_result_details() -> None:
    run = _sarif()["runs"][0]
    by_id = {r["partialFingerprints"][FINGERPRINT_KEY]: r for r in run["results"]}
    breaking = by_id["f-breaking"]
    assert breaking["level"] == "error"
    region = breaking["locations"][0]["physicalLocation"]["region"]
    # UTF-16 columns: the emoji is at code point 24 (UTF-16 unit 24) and takes two units.
    assert (region["startLine"], region["endLine"], region["startColumn"], region["endColumn"]) == (
        3,
        3,
        24,
        27,
    )
    assert breaking["relatedLocations"][0]["physicalLocation"]["region"]["startLine"] == 1
    assert breaking["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "pkg/a%20b/%C3%BC.py"

    debug = by_id["f-debug"]
    replacement = debug["fixes"][0]["artifactChanges"][0]["replacements"][0]
    # Deleting line 2 removes its line break too: the region runs to the start of line 3.
    assert replacement["deletedRegion"] == {"startLine": 2, "startColumn": 1, "endLine": 3, "endColumn": 1}
    assert replacement["insertedContent"]["text"] == ""

    model = by_id["f-model"]
    assert model["level"] == "note"
    assert model["properties"]["source"] == "model"


def test_dismissed_findings_are_suppressed() -> None:
    run = _sarif()["runs"][0]
    by_id = {r["partialFingerprints"][FINGERPRINT_KEY]: r for r in run["results"]}
    assert by_id["f-dismissed"]["suppressions"][0]["kind"] == "external"
    assert "suppressions" not in by_id["f-breaking"]


@pytest.mark.parametrize(
    ("status", "successful", "level"), [("offline", True, "note"), ("partial", False, "warning")]
)
def test_status_is_in_properties_and_invocation(status: str, successful: bool, level: str) -> None:
    run = _sarif(status, f"because {status}")["runs"][0]
    assert run["properties"]["status"] == status
    assert run["properties"]["statusReason"] == f"because {status}"
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is successful
    first = invocation["toolExecutionNotifications"][0]
    assert first["level"] == level and f"because {status}" in first["message"]["text"]


def test_complete_review_has_no_status_notification() -> None:
    run = _sarif("complete", "all done")["runs"][0]
    texts = [n["message"]["text"] for n in run["invocations"][0]["toolExecutionNotifications"]]
    assert not any("review complete" in text for text in texts)
    assert run["invocations"][0]["executionSuccessful"] is True


def test_secret_rule_is_a_security_alert(validator: jsonschema.Draft7Validator) -> None:
    from prscope.analysis.findings import Finding, Severity
    from prscope.analysis.formats import RenderContext
    from prscope.analysis.report import Report

    finding = Finding(
        id="s",
        rule="secret",
        severity=Severity.ERROR,
        path="a.py",
        line=1,
        end_line=1,
        title="t",
        message="m",
        source="check",
    )
    log = json.loads(
        render(Report(status="offline", mode="branch", findings=[finding]), "sarif", RenderContext())
    )
    assert not list(validator.iter_errors(log))
    rule = log["runs"][0]["tool"]["driver"]["rules"][0]
    assert rule["properties"]["security-severity"] == "9.0" and "security" in rule["properties"]["tags"]
