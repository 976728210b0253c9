"""Everything to post for one review, whatever the host: the summary's text, the inline comments the
diff allows, and what the next run needs to reconcile its threads (ids now active or dismissed, which
kinds of finding this run could judge, the commit the comments are made at)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from prscope.analysis.errors import RepositoryError
from prscope.analysis.findings import Finding, FindingSource, Severity
from prscope.analysis.formats.common import RenderContext, active, dismissed, finding_id
from prscope.analysis.formats.markdown import Linker
from prscope.analysis.publish.comments import InlineComment, inline_comment
from prscope.analysis.publish.diffmap import DiffLines, pull_request_diff, repository_root, same_files
from prscope.analysis.publish.summary import SummaryInput, render_summary
from prscope.analysis.publish.sync import judged_sources
from prscope.analysis.publish.target import PullRequest
from prscope.analysis.report import Report


@dataclass(frozen=True)
class Publication:
    pull: PullRequest
    summary: str
    candidates: list[InlineComment]
    """One inline comment per finding (id) on a line of the diff."""
    commit: str
    """The pull request's head commit: the review comments are made on it."""
    active_ids: frozenset[str]
    dismissed_ids: frozenset[str]
    judged: frozenset[FindingSource]
    has_errors: bool
    request_changes: bool = False
    notes: list[str] = field(default_factory=list)
    """Why some findings could not be inline comments (e.g. the head commit is not in the clone)."""


def build_publication(
    report: Report,
    context: RenderContext,
    pull: PullRequest,
    repo: Path,
    *,
    run_id: str | None,
    request_changes: bool = False,
) -> Publication:
    repo = repository_root(repo)
    findings = active(report, context)
    reviewed = report.head or pull.head_sha or ""
    commit = pull.head_sha or reviewed
    notes: list[str] = []
    diff = _diff(report, pull, repo, notes)
    places = {f.path for f in findings} | {r.path for f in findings for r in f.related}
    same = same_files(repo, reviewed, commit, places) if reviewed and commit else set()

    def linker(path: str, line: int, end_line: int) -> str:
        return pull.permalink(commit if path in same else reviewed, path, line, end_line)

    inline = pull.platform == "github" and not notes
    candidates, on_diff = _inline(findings, context, diff, same, linker) if inline else ([], set())
    summary = render_summary(
        SummaryInput(
            report=report,
            context=context,
            findings=findings,
            on_diff=frozenset(on_diff),
            linker=linker,
            commit_url=pull.commit_url(reviewed or commit),
            commit=reviewed or commit,
            run_id=run_id,
            full_report=pull.full_report,
            changed=lambda path, line: path in same and line in diff.added.get(path, frozenset()),
            dismissed=len(dismissed(report, context)),
            inline=inline,
        )
    )
    return Publication(
        pull=pull,
        summary=summary,
        candidates=candidates,
        commit=commit,
        active_ids=frozenset(finding_id(f, context) for f in findings),
        dismissed_ids=frozenset(finding_id(f, context) for f in dismissed(report, context)),
        judged=judged_sources(report),
        has_errors=any(f.severity is Severity.ERROR for f in findings),
        request_changes=request_changes,
        notes=notes,
    )


def _diff(report: Report, pull: PullRequest, repo: Path, notes: list[str]) -> DiffLines:
    """The pull request's diff as the host shows it; empty (no inline comments) when it cannot be read."""
    if pull.platform != "github":
        return DiffLines({}, {})
    base, head = pull.base_sha or report.base, pull.head_sha or report.head
    if not base or not head:
        notes.append("inline comments need a branch or commit-range review")
        return DiffLines({}, {})
    try:
        return pull_request_diff(repo, base, head)
    except RepositoryError as err:
        notes.append(f"no inline comments: the pull request's diff cannot be read here ({err})")
        return DiffLines({}, {})


def _inline(
    findings: list[Finding], context: RenderContext, diff: DiffLines, same: set[str], linker: Linker
) -> tuple[list[InlineComment], set[int]]:
    candidates: list[InlineComment] = []
    on_diff: set[int] = set()
    seen: set[str] = set()
    for finding in findings:
        anchor = diff.anchor(finding) if finding.path in same else None
        if anchor is None:
            continue
        on_diff.add(id(finding))
        identity = finding_id(finding, context)
        if identity not in seen:
            seen.add(identity)
            candidates.append(inline_comment(finding, identity, anchor, linker))
    return candidates, on_diff
