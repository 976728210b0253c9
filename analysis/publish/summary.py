"""The one summary comment on a pull request (or merge-request note), edited in place on every push.

It says what the review is worth before what it found: the status (complete / partial / offline, and
why), counts by severity, then every finding linked to its line at the reviewed commit. Findings on lines
the pull request did not change come first: no inline comment can carry them (a stale caller of a changed
function is the typical one), so they are listed with the changed definition they refer to. Model
findings carry their confidence; the model's tokens and estimated cost and the run id close it.

Comments are limited in size (GitHub: 65,536 characters). Findings are fitted most severe first, and the
ones left out are counted with a pointer to the full report, never dropped silently.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from prscope.analysis import __version__
from prscope.analysis.findings import Finding
from prscope.analysis.formats.common import (
    TOOL_NAME,
    RenderContext,
    by_file,
    counts_phrase,
    files_phrase,
    plural,
    shown,
    shown_path,
    usage_phrase,
)
from prscope.analysis.formats.markdown import (
    STATUS_ICON,
    Linker,
    counts_table,
    escape_text,
    finding_block,
    fit_within,
    inline_code,
    link,
)
from prscope.analysis.publish.markers import SUMMARY_MARKER
from prscope.analysis.report import Report

COMMENT_LIMIT = 65_536
_MARGIN = 1_000
"""Room kept for the line that counts what was left out."""
_LISTED = 50
"""Omitted files and errors listed at most (the JSON report has them all)."""


@dataclass(frozen=True)
class SummaryInput:
    report: Report
    context: RenderContext
    findings: Sequence[Finding]
    """The active findings (dismissed ones left out), each once."""
    on_diff: frozenset[int]
    """`id()` of the findings that sit on lines of the diff (and so also get an inline comment)."""
    linker: Linker
    commit_url: str
    commit: str
    run_id: str | None
    full_report: str
    """Where every finding is when the comment cannot hold them all."""
    changed: Callable[[str, int], bool]
    """Whether a line is a changed (diff) line: a related place there is the changed definition."""
    dismissed: int = 0
    inline: bool = True
    """Findings on the diff get inline comments (GitHub); else one list (GitLab, or no diff here)."""


def render_summary(data: SummaryInput) -> str:
    head = _header(data)
    tail = _footer(data)
    budget = COMMENT_LIMIT - _MARGIN - sum(len(line) + 1 for line in (*head, *tail))
    return "\n".join([*head, *_findings(data, budget), *tail]).rstrip() + "\n"


def _header(data: SummaryInput) -> list[str]:
    report = data.report
    reason = f": {escape_text(shown(report.status_reason))}" if report.status_reason else ""
    commit = link(inline_code(data.commit[:12]), data.commit_url)
    out = [
        SUMMARY_MARKER,
        f"## {TOOL_NAME} review",
        "",
        f"{STATUS_ICON[report.status]} **Status: {report.status}**{reason}",
        "",
        f"**{counts_phrase(data.findings)}**; {files_phrase(report)}; reviewed at {commit}.",
        "",
    ]
    if data.findings:
        out += [*counts_table(list(data.findings)), ""]
    return out


def _findings(data: SummaryInput, budget: int) -> list[str]:
    def label(path: str, line: int) -> str:
        return "changed definition" if data.changed(path, line) else "related"

    def render_one(finding: Finding) -> list[str]:
        return finding_block(finding, data.context, data.linker, label)

    findings = list(data.findings)
    rendered = fit_within(findings, render_one, budget)
    out: list[str] = []
    if not data.inline and findings:
        out += ["### Findings", "", *_grouped(findings, rendered)]
        return out + _left_out(len(findings) - len(rendered), data.full_report)
    outside = [f for f in findings if id(f) not in data.on_diff]
    inside = [f for f in findings if id(f) in data.on_diff]
    if outside:
        out += [
            f"### Outside the changed lines ({len(outside)})",
            "",
            "On lines this pull request does not change, where no inline comment can go.",
            "",
            *_grouped(outside, rendered),
        ]
    if inside:
        out += [
            f"### On the changed lines ({len(inside)})",
            "",
            "Each also has an inline comment on its line.",
            "",
            *_grouped(inside, rendered),
        ]
    return out + _left_out(len(findings) - len(rendered), data.full_report)


def _left_out(left: int, full_report: str) -> list[str]:
    if not left:
        return []
    return [
        f"**{plural(left, 'more finding')} not shown here** (the comment size limit); every finding is in "
        f"{full_report}.",
        "",
    ]


def _grouped(findings: list[Finding], rendered: dict[int, list[str]]) -> list[str]:
    out: list[str] = []
    for path, group in by_file(f for f in findings if id(f) in rendered):
        out += [f"#### {inline_code(shown_path(path))}", ""]
        for finding in group:
            out += rendered[id(finding)]
    return out


def _footer(data: SummaryInput) -> list[str]:
    report = data.report
    out: list[str] = []
    if data.dismissed:
        out += [f"{plural(data.dismissed, 'dismissed finding')} not shown.", ""]
    if report.files.omitted:
        out += ["<details><summary>Files not reviewed</summary>", ""]
        out += [
            f"- {inline_code(shown_path(o.path))}: {escape_text(shown(o.reason))}"
            for o in report.files.omitted[:_LISTED]
        ]
        out += [*_more(len(report.files.omitted), "file"), "", "</details>", ""]
    if report.errors:
        out += ["<details><summary>Errors</summary>", ""]
        out += [f"- {escape_text(shown(error))}" for error in report.errors[:_LISTED]]
        out += [*_more(len(report.errors), "error"), "", "</details>", ""]
    usage = usage_phrase(report)
    if usage is not None:
        out += [f"<sub>{escape_text(usage)}</sub>", ""]
    run = f" · run {inline_code(data.run_id)}" if data.run_id else ""
    out += [f"<sub>{TOOL_NAME} {escape_text(__version__)}{run} · this comment is updated on every push</sub>"]
    return out


def _more(total: int, noun: str) -> list[str]:
    return [f"- and {plural(total - _LISTED, noun)} more (see the JSON report)"] if total > _LISTED else []
