"""`--format markdown`: for a pull-request comment or `$GITHUB_STEP_SUMMARY`.

Text from the pull request goes into code fences or inline code whose fence is longer than any backtick
run inside it, so a finding cannot break out of its block or inject markup into the comment.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from prscope.analysis.findings import Finding, Severity
from prscope.analysis.formats.common import (
    SEVERITY_ORDER,
    TOOL_NAME,
    RenderContext,
    active,
    by_file,
    counts_phrase,
    dismissed,
    files_phrase,
    origin_note,
    severity_counts,
    shown,
    shown_path,
    suggestion_phrase,
    usage_phrase,
)
from prscope.analysis.printable import excerpt
from prscope.analysis.report import Report

MAX_FINDINGS_CHARS = 50_000
STATUS_ICON = {"complete": "✅", "partial": "⚠️", "offline": "ℹ️"}
SEVERITY_ICON = {Severity.ERROR: "🔴", Severity.WARNING: "🟠", Severity.NOTE: "🔵"}
_BACKTICKS = re.compile(r"`+")
_CODE_SPAN = re.compile(r"(`+)(?=[^`])(.+?)(?<=[^`])\1(?!`)")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+!|~])")


def escape_text(text: str) -> str:
    """Inline Markdown from finding text: `code spans` are kept, markup (links, images, HTML, emphasis,
    tables, headings) everywhere else is escaped, and the text is joined onto one line."""
    flat = " ".join(text.split())
    out: list[str] = []
    position = 0
    for span in _CODE_SPAN.finditer(flat):
        out.append(_MARKDOWN_SPECIAL.sub(r"\\\1", flat[position : span.start()]))
        out.append(span.group(0))
        position = span.end()
    out.append(_MARKDOWN_SPECIAL.sub(r"\\\1", flat[position:]))
    return "".join(out)


def inline_code(text: str) -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def code_block(text: str, language: str = "") -> str:
    longest = max((len(run) for run in _BACKTICKS.findall(text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{language}\n{text}\n{fence}"


def code_language(path: str) -> str:
    return "python" if path.endswith((".py", ".pyi")) else ""


def _snippet(finding: Finding, context: RenderContext) -> str | None:
    last = min(finding.end_line, finding.line + 4)
    numbered = [(number, context.line(finding.path, number)) for number in range(finding.line, last + 1)]
    present = [(number, text) for number, text in numbered if text is not None]
    if not present:
        return None
    width = len(str(present[-1][0]))
    column = finding.column if finding.end_line == finding.line else None
    return "\n".join(f"{number:>{width}}  {shown(excerpt(text, column)[0])}" for number, text in present)


Linker = Callable[[str, int, int], str]
"""(path, line, end_line) -> the URL of those lines, for formats that can link to the code."""


def link(text: str, url: str) -> str:
    """A Markdown link whose text is already escaped; the URL is percent-encoded by the caller."""
    return f"[{text}]({url})"


def place(path: str, line: int, end_line: int, linker: Linker | None = None) -> str:
    """`path:line` as inline code, linked to the code when a linker is given."""
    lines = f"{line}" if end_line <= line else f"{line}-{end_line}"
    text = inline_code(f"{shown_path(path)}:{lines}")
    return link(text, linker(path, line, end_line)) if linker is not None else text


def finding_block(
    finding: Finding,
    context: RenderContext,
    linker: Linker | None = None,
    related_label: Callable[[str, int], str] | None = None,
) -> list[str]:
    """One finding as a list item: what, where, why, the code, related places and the fix. With a
    linker, its location and related places link to the code (a pull-request comment); `related_label`
    names a related place (default "related")."""
    if linker is not None:
        where = place(finding.path, finding.line, finding.end_line, linker)
    elif finding.end_line == finding.line:
        where = f"line {finding.line}"
    else:
        where = f"lines {finding.line}-{finding.end_line}"
    head = (
        f"- {SEVERITY_ICON[finding.severity]} **{finding.severity.value}** {inline_code(finding.rule)} "
        f"{where}{origin_note(finding)}: {escape_text(shown(finding.title))}"
    )
    lines = [head, "", f"  {escape_text(shown(finding.message))}"]
    snippet = _snippet(finding, context)
    if snippet is not None:
        lines += ["", *("  " + row for row in code_block(snippet, code_language(finding.path)).splitlines())]
    for related in finding.related:
        where_related = place(related.path, related.line, related.line, linker)
        label = related_label(related.path, related.line) if related_label is not None else "related"
        lines.append(f"  - {label}: {where_related} {escape_text(shown(related.message))}")
    if finding.suggestion is not None:
        lines += ["", f"  Suggested fix: {suggestion_phrase(finding.suggestion)}"]
        replacement = shown(finding.suggestion.replacement).rstrip("\n")
        if replacement.strip():
            lines += [
                "",
                *("  " + row for row in code_block(replacement, code_language(finding.path)).splitlines()),
            ]
    lines.append("")
    return lines


def counts_table(findings: list[Finding]) -> list[str]:
    counts = severity_counts(findings)
    rows = ["| severity | findings |", "| --- | ---: |"]
    rows += [f"| {SEVERITY_ICON[s]} {s.value} | {counts[s]} |" for s in SEVERITY_ORDER]
    return rows


def fit_within(
    findings: list[Finding], render_one: Callable[[Finding], list[str]], budget: int
) -> dict[int, list[str]]:
    """The rendered lines of the findings that fit in `budget` characters, keyed by `id(finding)`, the
    most severe first: whatever does not fit is left for the caller to count, never dropped silently."""
    rendered: dict[int, list[str]] = {}
    for finding in sorted(findings, key=lambda f: -f.severity.rank):
        lines = render_one(finding)
        cost = sum(len(line) + 1 for line in lines)
        if cost > budget:
            continue
        budget -= cost
        rendered[id(finding)] = lines
    return rendered


def _findings_within_budget(findings: list[Finding], context: RenderContext) -> list[str]:
    """Findings grouped by file, errors first when they do not all fit: a PR comment holds 65,536
    characters, so the rest is counted, never silently dropped."""
    rendered = fit_within(findings, lambda finding: finding_block(finding, context), MAX_FINDINGS_CHARS)
    out: list[str] = []
    for path, group in by_file(f for f in findings if id(f) in rendered):
        out += [f"### {inline_code(shown_path(path))}", ""]
        for finding in group:
            out += rendered[id(finding)]
    left = len(findings) - len(rendered)
    if left:
        out += [f"{left} more finding(s) not shown here (size limit); see the SARIF or JSON report.", ""]
    return out


def render_markdown(report: Report, context: RenderContext) -> str:
    findings = active(report, context)
    reason = f": {escape_text(shown(report.status_reason))}" if report.status_reason else ""
    out = [
        f"## {TOOL_NAME} review",
        "",
        f"{STATUS_ICON[report.status]} **Status: {report.status}**{reason}",
        "",
        f"{counts_phrase(findings)}; {files_phrase(report)}.",
        "",
        *counts_table(findings),
        "",
    ]
    usage = usage_phrase(report)
    if usage is not None:
        out += [f"<sub>{escape_text(usage)}</sub>", ""]
    out += _findings_within_budget(findings, context)
    hidden = dismissed(report, context)
    if hidden:
        out += [f"{len(hidden)} dismissed finding(s) not shown.", ""]
    if report.files.omitted:
        out += ["<details><summary>Files not reviewed</summary>", ""]
        out += [
            f"- {inline_code(shown_path(o.path))}: {escape_text(shown(o.reason))}"
            for o in report.files.omitted
        ]
        out += ["", "</details>", ""]
    if report.errors:
        out += ["**Errors**", ""]
        out += [f"- {escape_text(shown(error))}" for error in report.errors]
        out.append("")
    return "\n".join(out)
