"""`--format github`: GitHub Actions workflow commands, one annotation per finding, and a status notice.

Escaping follows the runner's rules: in the message `%`, CR and LF are encoded; in properties also `:`
and `,` (a raw comma would end the property, a raw colon the command).
"""

from __future__ import annotations

from prscope.analysis.findings import Finding, Severity
from prscope.analysis.formats.common import (
    TOOL_NAME,
    RenderContext,
    active,
    ordered,
    origin_note,
    plural,
    shown,
    shown_path,
    status_sentence,
    suggestion_phrase,
)
from prscope.analysis.printable import keep_lines
from prscope.analysis.report import Report

_COMMAND = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def workflow_command(command: str, message: str, **properties: str | int | None) -> str:
    given = [f"{key}={escape_property(str(value))}" for key, value in properties.items() if value is not None]
    head = f"::{command} {','.join(given)}" if given else f"::{command}"
    return f"{head}::{escape_data(message)}"


def annotation(finding: Finding) -> str:
    message = shown(finding.message)
    if finding.suggestion is not None:
        replacement = shown(finding.suggestion.replacement).rstrip("\n")
        message += f"\n\nSuggested fix: {suggestion_phrase(finding.suggestion)}"
        message += f"\n{replacement}" if replacement.strip() else ""
    same_line = finding.end_line == finding.line
    return workflow_command(
        _COMMAND[finding.severity],
        message,
        file=keep_lines(finding.path),  # line breaks are escaped as properties; other controls here
        line=finding.line,
        endLine=finding.end_line,
        col=finding.column if same_line else None,
        endColumn=finding.end_column if same_line and finding.column is not None else None,
        title=f"{TOOL_NAME} {finding.rule}{origin_note(finding)}: {shown(finding.title)}",
    )


def render_github(report: Report, context: RenderContext) -> str:
    findings = active(report, context)
    lines = [
        workflow_command(
            "notice",
            f"{status_sentence(report)} ({plural(len(findings), 'finding')})",
            title=f"{TOOL_NAME} review {report.status}",
        )
    ]
    lines.extend(annotation(finding) for finding in ordered(findings))
    lines.extend(
        workflow_command(
            "notice",
            f"{shown_path(omitted.path)}: {shown(omitted.reason)}",
            title=f"{TOOL_NAME}: file not reviewed",
        )
        for omitted in report.files.omitted
    )
    lines.extend(
        workflow_command("warning", shown(error), title=f"{TOOL_NAME} error") for error in report.errors
    )
    return "\n".join(lines) + "\n"
