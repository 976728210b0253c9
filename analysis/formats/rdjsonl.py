"""`--format rdjsonl`: reviewdog's Diagnostic, one JSON object per line.

reviewdog counts lines from 1 and columns from 1 in UTF-8 bytes; the conversion from prscope's
code-point columns happens in analysis.positions. reviewdog has no notion of a review status: the CLI
prints the status line on stderr for this format.
"""

from __future__ import annotations

import json
from typing import Any

from prscope.analysis.findings import Finding, Severity
from prscope.analysis.formats.common import (
    INFORMATION_URI,
    TOOL_NAME,
    RenderContext,
    active,
    ordered,
    safe,
    suggestion_edit,
)
from prscope.analysis.positions import Span, utf8_column, utf8_range
from prscope.analysis.report import Report

_SEVERITY = {Severity.ERROR: "ERROR", Severity.WARNING: "WARNING", Severity.NOTE: "INFO"}


def _position(line: int, column: int | None) -> dict[str, int]:
    return {"line": line, "column": column} if column is not None else {"line": line}


def _range(finding: Finding, context: RenderContext) -> dict[str, Any]:
    span = Span(finding.line, finding.end_line, finding.column, finding.end_column)
    converted = utf8_range(
        span, context.line(finding.path, finding.line), context.line(finding.path, finding.end_line)
    )
    return {
        "start": _position(converted.start_line, converted.start_column),
        "end": _position(converted.end_line, converted.end_column),
    }


def _suggestion(finding: Finding, context: RenderContext) -> dict[str, Any] | None:
    suggestion = finding.suggestion
    if suggestion is None:
        return None
    edit, end_text = suggestion_edit(finding, suggestion, context)
    return {
        "range": {
            "start": {"line": edit.start_line, "column": 1},
            "end": {"line": edit.end_line, "column": utf8_column(end_text, edit.end_column)},
        },
        "text": edit.text,
    }


def diagnostic(finding: Finding, context: RenderContext) -> dict[str, Any]:
    out: dict[str, Any] = {
        "message": f"{safe(finding.title)}\n\n{safe(finding.message)}".strip(),
        "location": {"path": finding.path, "range": _range(finding, context)},
        "severity": _SEVERITY[finding.severity],
        "source": {"name": TOOL_NAME, "url": INFORMATION_URI},
        "code": {"value": finding.rule},
    }
    suggestion = _suggestion(finding, context)
    if suggestion is not None:
        out["suggestions"] = [suggestion]
    if finding.related:
        out["related_locations"] = [
            {
                "message": safe(related.message),
                "location": {"path": related.path, "range": {"start": {"line": related.line}}},
            }
            for related in finding.related
        ]
    return out


def render_rdjsonl(report: Report, context: RenderContext) -> str:
    return "".join(
        json.dumps(diagnostic(finding, context), ensure_ascii=False) + "\n"
        for finding in ordered(active(report, context))
    )
