"""Placed findings as LSP diagnostics, and quick fixes that still fit the document.

Columns go through `analysis.positions` in the position encoding negotiated with the client: findings
count code points, LSP counts UTF-8 bytes, UTF-16 units or code points, and a line with an emoji must
land on the same characters in all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from lsprotocol import types
from prscope.analysis.findings import Finding, Severity
from prscope.analysis.positions import (
    LspRange,
    PositionEncoding,
    Span,
    lsp_edit_range,
    lsp_range,
    whole_lines_edit,
)
from prscope.server.tracking import Placed, fix_still_fits

SOURCE = "prscope"

_SEVERITY = {
    Severity.ERROR: types.DiagnosticSeverity.Error,
    Severity.WARNING: types.DiagnosticSeverity.Warning,
    Severity.NOTE: types.DiagnosticSeverity.Information,
}


def severity_of(severity: Severity) -> types.DiagnosticSeverity:
    return _SEVERITY[severity]


def _range(converted: LspRange) -> types.Range:
    return types.Range(
        start=types.Position(line=converted.start_line, character=converted.start_character),
        end=types.Position(line=converted.end_line, character=converted.end_character),
    )


def placed_range(item: Placed, encoding: PositionEncoding) -> types.Range:
    """The item's range; its anchor holds the text of its lines, so no document read is needed."""
    finding = item.finding
    span = Span(finding.line, max(finding.end_line, finding.line), finding.column, finding.end_column)
    first = item.anchor[0] if item.anchor else None
    last = item.anchor[-1] if len(item.anchor) == span.end_line - span.line + 1 else None
    return _range(lsp_range(span, first, last, encoding))


def finding_data(finding: Finding) -> dict[str, Any]:
    return {
        "id": finding.id,
        "suggestion": finding.suggestion.model_dump() if finding.suggestion else None,
        "confidence": finding.confidence,
        "origin": finding.source,
        "title": finding.title,
    }


def diagnostic_message(finding: Finding) -> str:
    return finding.title if not finding.message else f"{finding.title}\n{finding.message}"


def to_diagnostic(item: Placed, uri_of: Callable[[str], str], encoding: PositionEncoding) -> types.Diagnostic:
    finding = item.finding
    related = [
        types.DiagnosticRelatedInformation(
            location=types.Location(
                uri=uri_of(other.path),
                range=types.Range(
                    start=types.Position(line=max(other.line - 1, 0), character=0),
                    end=types.Position(line=max(other.line - 1, 0), character=0),
                ),
            ),
            message=other.message,
        )
        for other in finding.related
    ]
    return types.Diagnostic(
        range=placed_range(item, encoding),
        message=diagnostic_message(finding),
        severity=severity_of(finding.severity),
        code=finding.rule,
        source=SOURCE,
        related_information=related or None,
        data=finding_data(finding),
    )


def fix_edit(
    item: Placed, lines: Sequence[str], ends_with_break: bool, encoding: PositionEncoding
) -> types.TextEdit | None:
    """The item's suggestion as an edit of the document as it is now; None when the lines it replaces no
    longer read what they read when the finding was placed (the fix would land on the wrong code)."""
    suggestion = item.finding.suggestion
    if suggestion is None or not fix_still_fits(item, lines):
        return None
    edit = whole_lines_edit(
        suggestion.start_line,
        suggestion.end_line,
        suggestion.replacement,
        list(lines),
        ends_with_break=ends_with_break,
    )
    return types.TextEdit(range=_range(lsp_edit_range(edit, list(lines), encoding)), new_text=edit.text)


def document_edit(
    uri: str, version: int | None, edits: list[types.TextEdit], versioned: bool
) -> types.WorkspaceEdit:
    """Edits of one document; with `versioned` (the client takes documentChanges) they name the version
    they were computed for, so that a client holding another version refuses them."""
    if not versioned:
        return types.WorkspaceEdit(changes={uri: edits})
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version),
                edits=list(edits),
            )
        ]
    )


def edit_capabilities(capabilities: types.ClientCapabilities | None) -> tuple[bool, bool]:
    """Whether the client takes `documentChanges` (versioned edits), and file creation among them.
    Resource operations exist only inside `documentChanges`: a client that declares `create` takes them
    (Neovim 0.11 declares the operations but not the flag)."""
    workspace = capabilities.workspace if capabilities else None
    edits = workspace.workspace_edit if workspace else None
    operations = (edits.resource_operations if edits else None) or []
    return bool(edits and edits.document_changes), types.ResourceOperationKind.Create in operations


def fix_action(item: Placed, diagnostic: types.Diagnostic, edit: types.WorkspaceEdit) -> types.CodeAction:
    return types.CodeAction(
        title=f"prscope: fix {item.finding.title or item.finding.rule}",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=True,
        edit=edit,
    )


def matching_item(
    diagnostic: types.Diagnostic, shown: Sequence[Placed], encoding: PositionEncoding
) -> Placed | None:
    """The shown finding a client's diagnostic stands for: by the finding id in its `data`, or, from a
    client that does not send `data` back, by its range, code and message. None when unsure."""
    if diagnostic.source != SOURCE:
        return None
    data = diagnostic.data if isinstance(diagnostic.data, dict) else {}
    finding_id = data.get("id")
    if isinstance(finding_id, str) and finding_id:
        candidates = [item for item in shown if item.finding.id == finding_id]
    else:
        candidates = [item for item in shown if _same_text(item, diagnostic)]
    if len(candidates) > 1:
        candidates = [item for item in candidates if placed_range(item, encoding) == diagnostic.range]
    return candidates[0] if len(candidates) == 1 else None


def _same_text(item: Placed, diagnostic: types.Diagnostic) -> bool:
    return diagnostic.code == item.finding.rule and diagnostic.message == diagnostic_message(item.finding)


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
