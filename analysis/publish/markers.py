"""The hidden markers that let the next run find what this one posted.

A marker is an HTML comment (invisible once rendered) on a line of its own: the summary's is the first
line of its comment, a finding's the last line of its inline comment. Only those positions count, so a
marker quoted inside a code block of a finding (code from the pull request is untrusted) is never taken
for ours, and only comments written by the token's own user are ever read for markers at all.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import get_args

from prscope.analysis.findings import FindingSource

SUMMARY_MARKER = "<!-- prscope:summary -->"
REVIEW_MARKER = "<!-- prscope:review -->"
_FINDING_MARKER = re.compile(r"<!-- prscope:finding id=([0-9a-f]{8,64}) source=([a-z]+) -->")


@dataclass(frozen=True)
class FindingMark:
    finding_id: str
    source: FindingSource


def finding_marker(finding_id: str, source: FindingSource) -> str:
    return f"<!-- prscope:finding id={finding_id} source={source} -->"


def is_summary(body: str) -> bool:
    return body.split("\n", 1)[0].strip() == SUMMARY_MARKER


def is_review(body: str) -> bool:
    return body.rstrip().rsplit("\n", 1)[-1].strip() == REVIEW_MARKER


def parse_finding_marker(body: str) -> FindingMark | None:
    last = body.rstrip().rsplit("\n", 1)[-1].strip()
    match = _FINDING_MARKER.fullmatch(last)
    if match is None or match.group(2) not in get_args(FindingSource):
        return None
    source: FindingSource = "model" if match.group(2) == "model" else "check"
    return FindingMark(match.group(1), source)


def same_user(first: str, second: str) -> bool:
    """GitHub names an app's user `name[bot]` in REST answers and `name` in GraphQL ones."""
    return first.removesuffix("[bot]").casefold() == second.removesuffix("[bot]").casefold()
