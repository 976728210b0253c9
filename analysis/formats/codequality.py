"""`--format codequality`: the Code Quality report GitLab reads (`artifacts: reports: codequality:`).

A JSON array of Code Climate issues. GitLab keeps the issues that pass its schema
(app/validators/json_schemas/codeclimate.json: `description`, `fingerprint`, `severity`, `location`) and
keys them by `fingerprint`: two issues with one fingerprint would show as one, and it compares the
fingerprints of the base and head pipelines to say what a merge request fixed or introduced. So the
fingerprint is the finding's stable id, made unique within a report. The format has no field for the
review's status: the CLI prints it on stderr, as for rdjsonl.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from prscope.analysis.findings import Finding, Severity
from prscope.analysis.formats.common import (
    RenderContext,
    active,
    finding_id,
    ordered,
    origin_note,
    safe,
    suggestion_phrase,
)
from prscope.analysis.report import Report

# GitLab's scale is info < minor < major < critical < blocker; an error breaks at run time.
_SEVERITY = {Severity.ERROR: "critical", Severity.WARNING: "major", Severity.NOTE: "info"}
_CATEGORY = {"secret": "Security", "security": "Security", "performance": "Performance"}


def _description(finding: Finding) -> str:
    return f"{safe(finding.title)}{origin_note(finding)}"


def _body(finding: Finding) -> str:
    text = safe(finding.message)
    if finding.suggestion is not None:
        text += f"\n\nSuggested fix: {suggestion_phrase(finding.suggestion)}"
        replacement = safe(finding.suggestion.replacement).rstrip("\n")
        if replacement.strip():
            text += f"\n\n```\n{replacement}\n```"
    for related in finding.related:
        text += f"\n\n{related.path}:{related.line}: {safe(related.message)}"
    return text


def _unique(fingerprint: str, seen: set[str]) -> str:
    """The id itself the first time (stable across pipelines), a derived one for a repeat."""
    candidate, count = fingerprint, 1
    while candidate in seen:
        count += 1
        candidate = hashlib.sha256(f"{fingerprint}\0{count}".encode()).hexdigest()[:20]
    seen.add(candidate)
    return candidate


def issue(finding: Finding, fingerprint: str) -> dict[str, Any]:
    return {
        "type": "issue",
        "check_name": finding.rule,
        "description": _description(finding),
        "content": {"body": _body(finding)},
        "categories": [_CATEGORY.get(finding.rule, "Bug Risk")],
        "fingerprint": fingerprint,
        "severity": _SEVERITY[finding.severity],
        "location": {"path": finding.path, "lines": {"begin": finding.line, "end": finding.end_line}},
    }


def render_codequality(report: Report, context: RenderContext) -> str:
    seen: set[str] = set()
    issues = [
        issue(finding, _unique(finding_id(finding, context), seen))
        for finding in ordered(active(report, context))
    ]
    return json.dumps(issues, indent=2, ensure_ascii=False) + "\n"
