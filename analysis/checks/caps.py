"""Caps on how many findings one rule reports, per file and in all: a generated file calling a changed
function 400,000 times is one problem, not 400,000 lines of output. What is left out is counted."""

from __future__ import annotations

from collections import Counter

from prscope.analysis.findings import Finding

MAX_PER_RULE_AND_FILE = 250
MAX_PER_RULE = 2500


def cap_findings(
    findings: list[Finding], per_file: int = MAX_PER_RULE_AND_FILE, per_rule: int = MAX_PER_RULE
) -> tuple[list[Finding], list[str]]:
    """The findings within the caps (order kept), and one line per rule that lost some."""
    in_file: Counter[tuple[str, str]] = Counter()
    in_rule: Counter[str] = Counter()
    left_out: Counter[str] = Counter()
    kept: list[Finding] = []
    for finding in findings:
        if in_file[(finding.rule, finding.path)] >= per_file or in_rule[finding.rule] >= per_rule:
            left_out[finding.rule] += 1
            continue
        in_file[(finding.rule, finding.path)] += 1
        in_rule[finding.rule] += 1
        kept.append(finding)
    notes = [
        f"{rule}: {count:,} more finding(s) not reported (at most {per_file} per file and {per_rule} in all)"
        for rule, count in sorted(left_out.items())
    ]
    return kept, notes
