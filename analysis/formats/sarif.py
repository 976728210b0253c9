"""`--format sarif`: SARIF 2.1.0 for GitHub code scanning and other SARIF viewers.

Locations are relative to `%SRCROOT%` (the repository root); columns are UTF-16 units, SARIF's default
`columnKind`. The review's status goes into `run.properties` and the invocation (`executionSuccessful`
plus a notification saying why), since SARIF has no field for "the model review did not finish".
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from prscope.analysis.findings import Finding, Severity, Suggestion
from prscope.analysis.formats.common import (
    INFORMATION_URI,
    TOOL_NAME,
    RenderContext,
    finding_id,
    ordered,
    rule_info,
    safe,
    status_sentence,
    suggestion_edit,
)
from prscope.analysis.positions import utf16_column
from prscope.analysis.printable import excerpt
from prscope.analysis.report import Report

SARIF_VERSION = "2.1.0"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
FINGERPRINT_KEY = "prscopeFindingId/v1"
AUTOMATION_CATEGORY = "prscope/review/"
SRCROOT = "%SRCROOT%"

_SECURITY_SEVERITY = {"secret": "9.0", "security": "7.0"}
_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def _rule_ids(report: Report) -> list[str]:
    ids: list[str] = []
    for finding in ordered(report.findings):
        if finding.rule not in ids:
            ids.append(finding.rule)
    return ids


def _rule_descriptor(rule: str) -> dict[str, Any]:
    info = rule_info(rule)
    return {
        "id": rule,
        "name": info.name,
        "shortDescription": {"text": info.short},
        "fullDescription": {"text": info.full},
        "help": {"text": info.help, "markdown": info.help},
        "defaultConfiguration": {"level": _LEVEL[info.level]},
        "properties": _rule_properties(rule),
    }


def _rule_properties(rule: str) -> dict[str, Any]:
    tags = ["prscope", "deterministic" if rule in _deterministic() else "model"]
    properties: dict[str, Any] = {"tags": tags}
    severity = _SECURITY_SEVERITY.get(rule)
    if severity is not None:
        # GitHub code scanning ranks security alerts by this score (critical >= 9.0, high >= 7.0).
        tags.append("security")
        properties["security-severity"] = severity
    return properties


def _deterministic() -> frozenset[str]:
    from prscope.analysis.config import DETERMINISTIC_RULES

    return frozenset(DETERMINISTIC_RULES)


def _artifact(path: str) -> dict[str, str]:
    # A URI reference relative to the source root: every character outside the unreserved set and `/`
    # is percent-encoded (spaces, `%`, `#`, `?`, non-ASCII and control characters in file names).
    return {"uri": quote(path, safe="/"), "uriBaseId": SRCROOT}


def _region(finding: Finding, context: RenderContext) -> dict[str, Any]:
    region: dict[str, Any] = {"startLine": finding.line, "endLine": max(finding.end_line, finding.line)}
    line_text = context.line(finding.path, finding.line)
    if finding.column is not None:
        region["startColumn"] = utf16_column(line_text, finding.column) if line_text else finding.column
        if finding.end_column is not None:
            end_text = context.line(finding.path, finding.end_line)
            region["endColumn"] = (
                utf16_column(end_text, finding.end_column) if end_text else finding.end_column
            )
            if region["endLine"] == region["startLine"] and region["endColumn"] < region["startColumn"]:
                del region["endColumn"]
    if line_text is not None:
        region["snippet"] = {"text": safe(excerpt(line_text, finding.column)[0])}
    return region


def _fix(finding: Finding, suggestion: Suggestion, context: RenderContext) -> dict[str, Any]:
    edit, end_text = suggestion_edit(finding, suggestion, context)
    return {
        "description": {"text": f"Suggested fix: {safe(finding.title)}"},
        "artifactChanges": [
            {
                "artifactLocation": _artifact(finding.path),
                "replacements": [
                    {
                        "deletedRegion": {
                            "startLine": edit.start_line,
                            "startColumn": 1,
                            "endLine": edit.end_line,
                            "endColumn": utf16_column(end_text, edit.end_column),
                        },
                        "insertedContent": {"text": edit.text},
                    }
                ],
            }
        ],
    }


def _result(finding: Finding, rule_index: int, context: RenderContext) -> dict[str, Any]:
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "ruleIndex": rule_index,
        "level": _LEVEL[finding.severity],
        "message": {"text": f"{safe(finding.title)}: {safe(finding.message)}"},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": _artifact(finding.path),
                    "region": _region(finding, context),
                }
            }
        ],
        "partialFingerprints": {FINGERPRINT_KEY: finding_id(finding, context)},
        "properties": {
            "confidence": finding.confidence,
            "source": finding.source,
            "title": safe(finding.title),
        },
    }
    if finding.related:
        result["relatedLocations"] = [
            {
                "id": number,
                "physicalLocation": {
                    "artifactLocation": _artifact(related.path),
                    "region": {"startLine": related.line},
                },
                "message": {"text": safe(related.message)},
            }
            for number, related in enumerate(finding.related, start=1)
        ]
    if finding.suggestion is not None:
        result["fixes"] = [_fix(finding, finding.suggestion, context)]
    if context.is_dismissed(finding):
        result["suppressions"] = [
            {
                "kind": "external",
                "status": "accepted",
                "justification": safe(context.dismissal_reason(finding)),
            }
        ]
    return result


def _invocation(report: Report) -> dict[str, Any]:
    notifications: list[dict[str, Any]] = []
    if report.status != "complete":
        notifications.append(
            {
                "level": "warning" if report.status == "partial" else "note",
                "message": {"text": status_sentence(report)},
                "descriptor": {"id": f"review-{report.status}"},
            }
        )
    notifications.extend(
        {"level": "note", "message": {"text": f"not reviewed: {o.path}: {o.reason}"}}
        for o in report.files.omitted
    )
    notifications.extend({"level": "error", "message": {"text": safe(error)}} for error in report.errors)
    invocation: dict[str, Any] = {"executionSuccessful": report.status != "partial"}
    if notifications:
        invocation["toolExecutionNotifications"] = notifications
    return invocation


def sarif_log(report: Report, context: RenderContext) -> dict[str, Any]:
    rule_ids = _rule_ids(report)
    index = {rule: number for number, rule in enumerate(rule_ids)}
    run: dict[str, Any] = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": report.tool.version,
                "semanticVersion": report.tool.version,
                "informationUri": INFORMATION_URI,
                "rules": [_rule_descriptor(rule) for rule in rule_ids],
            }
        },
        "automationDetails": {"id": AUTOMATION_CATEGORY},
        "invocations": [_invocation(report)],
        "results": [_result(f, index[f.rule], context) for f in ordered(report.findings)],
        "columnKind": "utf16CodeUnits",
        "properties": {
            "status": report.status,
            "statusReason": report.status_reason,
            "mode": report.mode,
            "base": report.base,
            "head": report.head,
            "filesChanged": report.files.changed,
            "filesReviewed": report.files.reviewed,
        },
    }
    return {"$schema": SARIF_SCHEMA, "version": SARIF_VERSION, "runs": [run]}


def render_sarif(report: Report, context: RenderContext) -> str:
    return json.dumps(sarif_log(report, context), indent=2, ensure_ascii=False) + "\n"
