"""`--format text`: the terminal view. What changed, findings grouped by file with the code line shown,
severity coloured (only on a terminal, and never with NO_COLOR), and one summary line at the end."""

from __future__ import annotations

import io

from prscope.analysis.findings import Finding, Severity, Suggestion
from prscope.analysis.formats.common import (
    RenderContext,
    active,
    by_file,
    counts_phrase,
    dismissed,
    files_phrase,
    plural,
    shown,
    shown_path,
    status_sentence,
    suggestion_phrase,
    usage_phrase,
)
from prscope.analysis.printable import excerpt, keep_lines, one_line
from prscope.analysis.report import Report
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

SEVERITY_STYLE = {Severity.ERROR: "bold red", Severity.WARNING: "yellow", Severity.NOTE: "cyan"}
STATUS_STYLE = {"complete": "bold green", "partial": "bold yellow", "offline": "bold blue"}
_INDENT = "    "
_GUTTER = 7


def _console(context: RenderContext) -> Console:
    return Console(
        file=io.StringIO(),
        force_terminal=context.color,
        no_color=not context.color,
        color_system="standard" if context.color else None,
        width=context.width,
        highlight=False,
        emoji=False,
        markup=False,
    )


def _code_lines(finding: Finding, context: RenderContext) -> list[Text]:
    line_text = context.line(finding.path, finding.line)
    if line_text is None:
        return []
    cut_line, cut = excerpt(line_text.rstrip("\r\n"), finding.column)
    gutter = f"{finding.line:>{_GUTTER}} │ "
    rows = [Text.assemble((gutter, "dim"), (shown(cut_line).expandtabs(4), ""))]
    if finding.column is not None and finding.column <= len(line_text) + 1:
        rows.append(_caret_row(finding, cut_line, cut))
    return rows


def _caret_row(finding: Finding, line_text: str, cut: int) -> Text:
    """Carets under the finding's columns (in an excerpt that starts `cut` characters into the line),
    measured in terminal cells (wide characters take two)."""
    assert finding.column is not None
    start = finding.column - 1 - cut
    same_line = finding.end_line == finding.line and finding.end_column is not None
    end = finding.end_column - 1 - cut if same_line and finding.end_column is not None else start + 1
    end = min(end, len(line_text))
    indent = cell_len(shown(line_text[:start]).expandtabs(4))
    width = max(1, cell_len(shown(line_text[start : max(end, start + 1)])))
    return Text.assemble(
        (" " * _GUTTER + " │ ", "dim"), (" " * indent + "^" * width, SEVERITY_STYLE[finding.severity])
    )


def _finding_lines(finding: Finding, context: RenderContext) -> list[Text]:
    where = f"{finding.line}:{finding.column}" if finding.column is not None else f"{finding.line}"
    rows = [
        Text.assemble(
            "  ",
            (f"{finding.severity.value:<7}", SEVERITY_STYLE[finding.severity]),
            (f" {where:<8} ", "bold"),
            (finding.rule, "magenta"),
            "  ",
            (shown(finding.title), "bold"),
        )
    ]
    if finding.message and finding.message != finding.title:
        rows += [Text(_INDENT + line) for line in shown(finding.message).splitlines()]
    rows += _code_lines(finding, context)
    for related in finding.related:
        rows.append(
            Text.assemble(
                (_INDENT + "related: ", "dim"),
                f"{shown_path(related.path)}:{related.line} ",
                shown(related.message),
            )
        )
    if finding.suggestion is not None:
        rows += _suggestion_lines(finding.suggestion)
    return rows


def _suggestion_lines(suggestion: Suggestion) -> list[Text]:
    rows = [Text(f"{_INDENT}suggestion: {suggestion_phrase(suggestion)}", style="green")]
    replacement = shown(suggestion.replacement).rstrip("\n")
    if replacement.strip():
        rows += [Text(f"{_INDENT}  {line}", style="green") for line in replacement.splitlines()]
    return rows


def summary_line(report: Report, context: RenderContext) -> Text:
    findings = active(report, context)
    hidden = len(dismissed(report, context))
    tail = f"; {hidden} dismissed" if hidden else ""
    return Text.assemble(
        (status_sentence(report), STATUS_STYLE[report.status]),
        f" — {counts_phrase(findings)}; {files_phrase(report)}{tail}",
    )


def render_text(report: Report, context: RenderContext) -> str:
    console = _console(context)

    def emit(text: Text) -> None:
        console.print(text, soft_wrap=True)

    if context.change_summary:
        for line in context.change_summary.rstrip("\n").splitlines():
            emit(Text(keep_lines(line)))
        emit(Text(""))
    for path, group in by_file(active(report, context)):
        emit(Text(shown_path(path), style="bold underline"))
        for finding in group:
            for row in _finding_lines(finding, context):
                emit(row)
        emit(Text(""))
    if report.files.omitted:
        emit(Text(f"not reviewed ({plural(len(report.files.omitted), 'file')}):", style="yellow"))
        for omitted in report.files.omitted:
            emit(Text(f"  {shown_path(omitted.path)}: {one_line(omitted.reason)}"))
        emit(Text(""))
    for error in report.errors:
        if error not in report.status_reason:  # said once, in the summary line
            emit(Text.assemble(("error: ", "bold red"), shown(error)))
    usage = usage_phrase(report)
    if usage is not None:
        emit(Text(usage, style="dim"))
    emit(summary_line(report, context))
    output = console.file
    assert isinstance(output, io.StringIO)
    return output.getvalue()
