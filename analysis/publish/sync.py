"""What a run does to the inline comments earlier runs left: the part that makes a new push never
duplicate, independent of the host.

- A finding that already has a thread of ours (open or resolved) is not posted again.
- A thread whose finding is dismissed is resolved.
- A thread whose finding is gone is resolved as fixed, but only when this run could have found it
  again: a partial review resolves nothing (a check that ran out of time finds nothing), and a model
  finding is judged only by a complete model review (an offline run has no model findings at all).
- New comments are capped per run, most severe first; the rest follow on the next push, and the summary
  lists every finding meanwhile.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from prscope.analysis.findings import FindingSource
from prscope.analysis.publish.comments import InlineComment
from prscope.analysis.report import Report

MAX_NEW_COMMENTS = 30


@dataclass(frozen=True)
class PostedThread:
    """A review thread this token's user started on an earlier run."""

    thread_id: str
    comment_id: int
    finding_id: str
    source: FindingSource
    resolved: bool


@dataclass
class ThreadPlan:
    new: list[InlineComment] = field(default_factory=list)
    resolve: list[tuple[PostedThread, str]] = field(default_factory=list)
    """Threads to resolve, each with why ("fixed in <sha>" or "dismissed")."""
    kept: int = 0
    """Open threads whose finding is still there."""
    deferred: int = 0
    """Findings on the diff left for the next run (over MAX_NEW_COMMENTS)."""


def judged_sources(report: Report) -> frozenset[FindingSource]:
    """The kinds of finding whose absence in this report means they were fixed."""
    if report.status == "partial":
        return frozenset()
    if report.status == "complete":
        return frozenset({"check", "model"})
    return frozenset({"check"})


def plan_threads(
    candidates: list[InlineComment],
    posted: list[PostedThread],
    *,
    active_ids: frozenset[str],
    dismissed_ids: frozenset[str],
    judged: frozenset[FindingSource],
    commit: str,
) -> ThreadPlan:
    plan = ThreadPlan()
    for thread in posted:
        if thread.resolved:
            continue
        if thread.finding_id in dismissed_ids and thread.finding_id not in active_ids:
            plan.resolve.append((thread, "dismissed"))
        elif thread.finding_id in active_ids:
            plan.kept += 1
        elif thread.source in judged:
            plan.resolve.append((thread, f"fixed in {commit[:12]}"))
        else:
            plan.kept += 1
    already = {thread.finding_id for thread in posted}
    fresh: list[InlineComment] = []
    for comment in sorted(candidates, key=lambda c: -c.finding.severity.rank):
        if comment.finding_id not in already:
            already.add(comment.finding_id)
            fresh.append(comment)
    plan.new = fresh[:MAX_NEW_COMMENTS]
    plan.deferred = len(fresh) - len(plan.new)
    return plan
