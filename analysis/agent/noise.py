"""Noise control for model findings: one finding per problem, and a cap on how many the report shows.

A model finding on the line of a deterministic finding, about the same problem, is that problem seen
twice: it is merged into the check's finding (the check's wording wins; the model's words become related
information). The same problem means the model names a symbol the check's title names (`apply_discount`),
uses the check's rule id, or, for the checks about no symbol, the words of that kind of problem. A model
finding about something else on that line stays a finding of its own. The model findings left are capped
(by severity, then confidence), and the cap is said.
"""

from __future__ import annotations

import re

from prscope.analysis.findings import Finding, Related

DEFAULT_MAX_MODEL_FINDINGS = 15

_CODE_SPAN = re.compile(r"`([^`]+)`")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PROBLEM_WORDS: dict[str, tuple[str, ...]] = {
    "conflict-marker": ("conflict",),
    "syntax-error": ("syntax", "does not parse", "parse error"),
    "debug-leftover": ("breakpoint", "pdb", "debugger"),
    "secret": ("secret", "credential", "password", "token", "api key"),
}


def same_problem(check: Finding, model: Finding) -> bool:
    """Whether a model finding on a check's line is about what the check found there."""
    said = f"{model.rule} {model.title} {model.message}".lower()
    if model.rule == check.rule:
        return True
    names = {name.lower() for span in _CODE_SPAN.findall(check.title) for name in _NAME.findall(span)}
    if any(re.search(rf"\b{re.escape(name)}\b", said) for name in names if len(name) > 2):
        return True
    return any(word in said for word in _PROBLEM_WORDS.get(check.rule, ()))


def merge_into_checks(checks: list[Finding], model: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(the check findings, with the model's evidence attached where both saw the same line; the model
    findings that saw something else)."""
    by_line: dict[tuple[str, int], list[int]] = {}
    for index, finding in enumerate(checks):
        for line in range(finding.line, finding.end_line + 1):
            by_line.setdefault((finding.path, line), []).append(index)
    merged = list(checks)
    rest: list[Finding] = []
    for finding in model:
        hits = by_line.get((finding.path, finding.line), [])
        hit = next((i for i in hits if same_problem(checks[i], finding)), None)
        if hit is None:
            rest.append(finding)
            continue
        evidence = Related(
            path=finding.path,
            line=finding.line,
            message=f"the model review saw this too ({finding.confidence:.2f}): {finding.title}",
        )
        merged[hit] = merged[hit].model_copy(update={"related": [*merged[hit].related, evidence]})
    return merged, rest


def cap_model_findings(findings: list[Finding], cap: int) -> tuple[list[Finding], str | None]:
    """The `cap` most severe, most confident model findings (in a stable order), and a note when more
    were left out."""
    ranked = sorted(findings, key=lambda f: (-f.severity.rank, -f.confidence, f.path, f.line, f.id))
    if len(ranked) <= cap:
        return ranked, None
    left = len(ranked) - cap
    return ranked[:cap], f"{left} more model finding(s) not shown (at most {cap}; [model] max_findings)"
