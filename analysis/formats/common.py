"""What every format shares: the render context, the status sentence, counting, grouping, masking."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import groupby
from typing import Literal

from prscope.analysis.checks.secrets import mask_secrets
from prscope.analysis.findings import Finding, Severity, Suggestion, fingerprint
from prscope.analysis.positions import LineEdit, whole_lines_edit
from prscope.analysis.printable import keep_lines, one_line
from prscope.analysis.report import Report

Format = Literal["text", "json", "sarif", "rdjsonl", "markdown", "github", "codequality"]
FORMATS: tuple[Format, ...] = ("text", "json", "sarif", "rdjsonl", "markdown", "github", "codequality")
TOOL_NAME = "prscope"
INFORMATION_URI = "https://github.com/prscope/prscope"

SEVERITY_ORDER: tuple[Severity, ...] = (Severity.ERROR, Severity.WARNING, Severity.NOTE)


@dataclass(frozen=True)
class RuleInfo:
    name: str
    short: str
    full: str
    help: str
    level: Severity


_DETERMINISTIC: dict[str, RuleInfo] = {
    "breaking-call": RuleInfo(
        "BreakingCall",
        "A call site still matches the old signature of a function the PR changed.",
        "The pull request changes the signature of a function, method or constructor (a parameter added, "
        "removed, renamed, reordered or made keyword-only) and this call, elsewhere in the repository, "
        "binds to the old signature but not to the new one. It will fail at run time.",
        "Update the call to the new signature, or keep the old signature working (a default value, a "
        "deprecation shim).",
        Severity.ERROR,
    ),
    "dangling-reference": RuleInfo(
        "DanglingReference",
        "A name the PR removes or renames is still imported or used elsewhere.",
        "The pull request removes or renames a function, class, method or module-level name, and this "
        "line still imports, calls or references it: an ImportError or AttributeError waiting to happen.",
        "Update the reference to the new name, or keep an alias for the old one.",
        Severity.ERROR,
    ),
    "syntax-error": RuleInfo(
        "SyntaxError",
        "A changed Python file no longer parses.",
        "A Python file changed by the pull request is not valid Python: importing it fails.",
        "Fix the syntax at the reported line.",
        Severity.ERROR,
    ),
    "conflict-marker": RuleInfo(
        "ConflictMarker",
        "Unresolved merge conflict markers in the change.",
        "The pull request adds lines that look like merge conflict markers (<<<<<<<, =======, >>>>>>>).",
        "Resolve the conflict and remove the markers.",
        Severity.ERROR,
    ),
    "debug-leftover": RuleInfo(
        "DebugLeftover",
        "A debugger call was left in.",
        "The pull request adds a debugger entry point (breakpoint(), pdb.set_trace(), ipdb.set_trace()) "
        "that stops the program when it runs.",
        "Remove the debugger call before merging.",
        Severity.WARNING,
    ),
    "secret": RuleInfo(
        "CommittedSecret",
        "A credential in a recognisable provider format was committed.",
        "The pull request adds a private key or an access token in a known provider format. Once pushed "
        "it must be treated as leaked, even if the commit is later removed.",
        "Revoke the credential now, remove it from the code, and load it from the environment or a "
        "secret store.",
        Severity.ERROR,
    ),
    "async-mismatch": RuleInfo(
        "AsyncMismatch",
        "A caller still uses a function the PR made async (or no longer async) the old way.",
        "The pull request turns a function or method into a coroutine function (`async def`), or back, and "
        "this caller was not updated: a call that is never awaited only creates a coroutine, so the body "
        "never runs; `await` on what is now a plain function raises TypeError.",
        "Await the call (or hand it to a runner such as asyncio.run / create_task); drop the `await` for a "
        "function that is no longer async.",
        Severity.ERROR,
    ),
    "property-mismatch": RuleInfo(
        "PropertyMismatch",
        "A use still calls a method the PR made a property, or reads one made a method.",
        "The pull request turns a method into a property (or cached_property), or the reverse, and this use "
        "was not updated: calling a property calls its value (TypeError), and reading a method without "
        "calling it gives a bound method, always true and never the value.",
        "Drop the parentheses for a property; call the method.",
        Severity.ERROR,
    ),
    "override-mismatch": RuleInfo(
        "OverrideMismatch",
        "An override no longer accepts the calls its base method accepts after the PR.",
        "The pull request changes a base method's signature (or makes it async), or changes an override, and "
        "an override in a subclass no longer accepts every call the base accepts: code calling through the "
        "base class fails on instances of that subclass.",
        "Give the override the parameters the base now takes (or accept *args, **kwargs), and keep async "
        "and plain methods apart.",
        Severity.WARNING,
    ),
}


def rule_info(rule: str) -> RuleInfo:
    known = _DETERMINISTIC.get(rule)
    if known is not None:
        return known
    words = rule.replace("-", " ")
    title = "".join(part.capitalize() for part in rule.split("-")) or "Finding"
    return RuleInfo(
        title,
        f"Model review finding: {words}.",
        f"A finding of the model review in the '{words}' category, verified before it was reported.",
        "Read the finding's message; it explains the problem and, when it can, suggests a fix.",
        Severity.WARNING,
    )


CONFIG_DISMISSAL = "dismissed in the prscope configuration"
"""The reason of a dismissal without one of its own (the configuration's `dismissed` list)."""


@dataclass(frozen=True)
class RenderContext:
    """What a format needs beyond the report: head-side lines of the files findings point at (already
    masked), the change summary, dismissed finding ids, and whether colour is wanted."""

    sources: Mapping[str, Sequence[str]] = field(default_factory=dict)
    change_summary: str = ""
    dismissed: frozenset[str] = frozenset()
    color: bool = False
    width: int = 100
    dismissal_reasons: Mapping[str, str] = field(default_factory=dict)
    """Finding id -> why it was dismissed (run-store dismissals); the others are the configuration's."""

    def line(self, path: str, number: int) -> str | None:
        lines = self.sources.get(path)
        if lines is None or not 1 <= number <= len(lines):
            return None
        return lines[number - 1]

    def is_dismissed(self, finding: Finding) -> bool:
        return finding_id(finding, self) in self.dismissed

    def dismissal_reason(self, finding: Finding) -> str:
        reason = self.dismissal_reasons.get(finding_id(finding, self), "").strip()
        return reason or CONFIG_DISMISSAL


def safe(text: str) -> str:
    """Text from a finding or the repository, with any secret in it masked (a last line of defence: the
    checks already mask their own titles and messages)."""
    return mask_secrets(text)


def origin_note(finding: Finding) -> str:
    """ " (model, confidence 0.85)" for a model finding, "" for a deterministic one."""
    return f" (model, confidence {finding.confidence:.2f})" if finding.source == "model" else ""


def shown(text: str) -> str:
    """`safe` text for a human-facing format: control characters shown as escapes, line breaks kept."""
    return keep_lines(safe(text))


def shown_path(path: str) -> str:
    """A repository path for a human-facing format, on one line whatever characters its name holds."""
    return one_line(path)


def suggestion_edit(finding: Finding, suggestion: Suggestion, context: RenderContext) -> tuple[LineEdit, str]:
    """The whole-line edit a suggestion makes, and the text of its last line (for end-column units)."""
    lines = context.sources.get(finding.path)
    edit = whole_lines_edit(
        suggestion.start_line,
        suggestion.end_line,
        safe(suggestion.replacement),
        list(lines) if lines is not None else None,
    )
    return edit, context.line(finding.path, edit.end_line) or ""


def suggestion_phrase(suggestion: Suggestion) -> str:
    """ "delete line 24" / "replace lines 3-5 with:"."""
    if suggestion.start_line == suggestion.end_line:
        lines = f"line {suggestion.start_line}"
    else:
        lines = f"lines {suggestion.start_line}-{suggestion.end_line}"
    if not suggestion.replacement.strip():
        return f"delete {lines}"
    return f"replace {lines} with:"


def finding_id(finding: Finding, context: RenderContext | None = None) -> str:
    if finding.id:
        return finding.id
    anchor = context.line(finding.path, finding.line) if context is not None else None
    return fingerprint(finding.rule, finding.path, anchor or f"{finding.title}")


def status_sentence(report: Report) -> str:
    reason = report.status_reason.strip()
    return f"review {report.status}" + (f": {reason}" if reason else "")


def status_line(report: Report) -> str:
    return f"prscope: {status_sentence(report)}"


def active(report: Report, context: RenderContext) -> list[Finding]:
    return [f for f in report.findings if not context.is_dismissed(f)]


def dismissed(report: Report, context: RenderContext) -> list[Finding]:
    return [f for f in report.findings if context.is_dismissed(f)]


def ordered(findings: Iterable[Finding]) -> list[Finding]:
    return sorted(findings, key=lambda f: (f.path, f.line, -f.severity.rank, f.rule, f.column or 0))


def by_file(findings: Iterable[Finding]) -> list[tuple[str, list[Finding]]]:
    return [(path, list(group)) for path, group in groupby(ordered(findings), key=lambda f: f.path)]


def severity_counts(findings: Iterable[Finding]) -> dict[Severity, int]:
    counts = dict.fromkeys(SEVERITY_ORDER, 0)
    for finding in findings:
        counts[finding.severity] += 1
    return counts


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" + ("" if count == 1 else "s")


def counts_phrase(findings: Sequence[Finding]) -> str:
    if not findings:
        return "no findings"
    counts = severity_counts(findings)
    parts = [plural(counts[s], s.value) for s in SEVERITY_ORDER if counts[s]]
    files = len({f.path for f in findings})
    return f"{', '.join(parts)} in {plural(files, 'file')}"


def files_phrase(report: Report) -> str:
    files = report.files
    phrase = f"{plural(files.changed, 'file')} changed, {files.reviewed} reviewed"
    if files.omitted:
        phrase += f", {len(files.omitted)} omitted"
    return phrase


def usage_phrase(report: Report) -> str | None:
    """What the model review cost, for the formats people read; None for an offline review."""
    usage = report.usage
    if usage.requests == 0:
        return None
    subagents = sum(1 for agent in report.agents if agent.parent_id is not None)
    cached = f", {usage.cache_read_input_tokens:,} cached" if usage.cache_read_input_tokens else ""
    cost = ""
    if report.cost_usd is not None:
        from prscope.analysis.pricing import price_table

        cost = f", about ${report.cost_usd:.2f} at list prices of {price_table().checked}"
    return (
        f"model: {plural(usage.requests, 'request')}, {usage.input_tokens:,} input{cached} and "
        f"{usage.output_tokens:,} output tokens, {plural(subagents, 'subagent')}{cost}"
    )


def location(finding: Finding) -> str:
    column = f":{finding.column}" if finding.column is not None else ""
    return f"{finding.path}:{finding.line}{column}"
