"""Findings as LSP diagnostics, and quick fixes from their suggestions.

Positions go through `analysis.positions`: findings count 1-based code points, LSP counts 0-based UTF-16
units, and a line with an emoji must land on the same characters in both.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from typing import Any

from lsprotocol import types

from analysis.findings import Finding, Severity, Suggestion
from analysis.positions import LineEdit, Span, lsp_character, lsp_range, whole_lines_edit

SOURCE = "prscope"
LinesOf = Callable[[str], list[str] | None]
"""Repository-relative path -> the file's lines without line breaks (None when it cannot be read)."""

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.NOTE: types.DiagnosticSeverity.Information,
}


def severity_of(severity: Severity) -> types.DiagnosticSeverity:
    return _SEVERITY[severity]


def _line(lines: list[str] | None, number: int) -> str | None:
    if lines is None or not 1 <= number <= len(lines):
        return None
    return lines[number - 1]


def finding_range(finding: Finding, lines: list[str] | None) -> types.Range:
    span = Span(finding.line, max(finding.end_line, finding.line), finding.column, finding.end_column)
    converted = lsp_range(span, _line(lines, span.line), _line(lines, span.end_line))
    return types.Range(
        start=types.Position(line=converted.start_line, character=converted.start_character),
        end=types.Position(line=converted.end_line, character=converted.end_character),
    )


def finding_data(finding: Finding) -> dict[str, Any]:
    return {
        "id": finding.id,
        "suggestion": finding.suggestion.model_dump() if finding.suggestion else None,
        "confidence": finding.confidence,
        "origin": finding.source,
        "title": finding.title,
    }


def to_diagnostic(
    finding: Finding, lines: list[str] | None, uri_of: Callable[[str], str]
) -> types.Diagnostic:
    message = finding.title if not finding.message else f"{finding.title}\n{finding.message}"
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(
                uri=uri_of(item.path),
                range=types.Range(
                    start=types.Position(line=max(item.line - 1, 0), character=0),
                    end=types.Position(line=max(item.line - 1, 0), character=0),
                ),
            ),
            message=item.message,
        )
        for item in finding.related
    ]
    return types.Diagnostic(
        range=finding_range(finding, lines),
        message=message,
        severity=severity_of(finding.severity),
        code=finding.rule,
        source=SOURCE,
        related_information=related or None,
        data=finding_data(finding),
    )


def diagnostics_by_path(
    findings: Iterable[Finding], lines_of: LinesOf, uri_of: Callable[[str], str]
) -> dict[str, list[types.Diagnostic]]:
    """Repository-relative path -> its diagnostics, in the findings' order."""
    grouped: dict[str, list[types.Diagnostic]] = {}
    cache: dict[str, list[str] | None] = {}
    for finding in findings:
        if finding.path not in cache:
            cache[finding.path] = lines_of(finding.path)
        grouped.setdefault(finding.path, []).append(to_diagnostic(finding, cache[finding.path], uri_of))
    return grouped


def suggestion_of(diagnostic: types.Diagnostic) -> Suggestion | None:
    """The suggestion a prscope diagnostic carries in `data` (None for others' diagnostics)."""
    if diagnostic.source != SOURCE or not isinstance(diagnostic.data, dict):
        return None
    raw = diagnostic.data.get("suggestion")
    if not isinstance(raw, dict):
        return None
    try:
        return Suggestion.model_validate(raw)
    except ValueError:
        return None


def text_edit(suggestion: Suggestion, lines: list[str]) -> types.TextEdit | None:
    """The suggestion as an edit of whole lines; None when it points past the end of the file (stale)."""
    if not 1 <= suggestion.start_line <= suggestion.end_line <= len(lines):
        return None
    edit = whole_lines_edit(suggestion.start_line, suggestion.end_line, suggestion.replacement, lines)
    return types.TextEdit(range=_edit_range(edit, lines), new_text=edit.text)


def _edit_range(edit: LineEdit, lines: list[str]) -> types.Range:
    return types.Range(
        start=_position(edit.start_line, edit.start_column, lines),
        end=_position(edit.end_line, edit.end_column, lines),
    )


def _position(line: int, column: int, lines: list[str]) -> types.Position:
    text = _line(lines, line) or ""
    return types.Position(line=line - 1, character=lsp_character(text, column))


def quick_fixes(
    uri: str, diagnostics: Iterable[types.Diagnostic], lines: list[str] | None
) -> list[types.CodeAction]:
    """One quick fix per prscope diagnostic that carries a suggestion which still fits the document."""
    if lines is None:
        return []
    actions: list[types.CodeAction] = []
    for diagnostic in diagnostics:
        suggestion = suggestion_of(diagnostic)
        edit = text_edit(suggestion, lines) if suggestion is not None else None
        if edit is None:
            continue
        title = diagnostic.data.get("title") if isinstance(diagnostic.data, dict) else None
        actions.append(
            types.CodeAction(
                title=f"prscope: fix {title or diagnostic.code}",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                is_preferred=True,
                edit=types.WorkspaceEdit(changes={uri: [edit]}),
            )
        )
    return actions


def filter_kinds(
    actions: list[types.CodeAction], only: Sequence[types.CodeActionKind | str] | None
) -> list[types.CodeAction]:
    """The actions a client asked for with `context.only` (a kind matches its sub-kinds too)."""
    if not only:
        return actions
    wanted = [getattr(kind, "value", kind) for kind in only]
    return [
        a
        for a in actions
        if a.kind and any(_kind_matches(str(getattr(a.kind, "value", a.kind)), w) for w in wanted)
    ]


def _kind_matches(kind: str, wanted: str) -> bool:
    return kind == wanted or kind.startswith(wanted + ".")
