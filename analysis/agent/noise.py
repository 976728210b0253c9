"""Noise control for model findings: one finding per problem, and a cap on how many the report shows.

A model finding on the line of a deterministic finding is the same problem seen twice: it is merged into
the check's finding (the check's wording wins; the model's words become related information). The model
findings left are capped (by severity, then confidence), and the cap is said.
"""

from __future__ import annotations

from analysis.findings import Finding, Related

DEFAULT_MAX_MODEL_FINDINGS = 15


def merge_into_checks(checks: list[Finding], model: list[Finding]) -> tuple[list[Finding], list[Finding]]:
    """(the check findings, with the model's evidence attached where both saw the same line; the model
    findings that saw something else)."""
    by_line: dict[tuple[str, int], int] = {}
    for index, finding in enumerate(checks):
        for line in range(finding.line, finding.end_line + 1):
            by_line.setdefault((finding.path, line), index)
    merged = list(checks)
    rest: list[Finding] = []
    for finding in model:
        hit = by_line.get((finding.path, finding.line))
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
