"""`prscope review --post ...`: post the finished review on its pull request or merge request.

Called after every report is written, and whatever happens here the review's report and exit code stay
as they are: the outcome is one line for stderr (what was posted, or a warning saying what failed and
what to grant). `--require-post` lets the CLI turn a failure into exit code 4.

`auto` posts where the token can write: in GitHub Actions unless the pull request comes from a fork
(its token is read-only), in a GitLab merge-request pipeline, and nowhere outside CI.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from prscope.analysis.formats.common import RenderContext, plural
from prscope.analysis.publish.failures import PostFailed, explain
from prscope.analysis.publish.publication import Publication, build_publication
from prscope.analysis.publish.target import NotPostable, Platform, detect_platform, pull_request_for
from prscope.analysis.report import Report

PostTarget = Literal["auto", "github", "gitlab"]
_CLIENT_MODULES = frozenset({"githubkit", "githubkit_schemas", "gitlab", "hishel", "requests"})


@dataclass(frozen=True)
class PostOptions:
    target: PostTarget
    request_changes: bool = False
    timeout_s: float = 30.0


@dataclass(frozen=True)
class PostResult:
    posted: bool
    line: str
    """One line for stderr, starting "prscope: "."""
    skipped: bool = False
    """Nothing was tried (auto mode where posting does not apply)."""


def publish(
    report: Report,
    context: RenderContext,
    repo: Path,
    options: PostOptions,
    *,
    run_id: str | None = None,
    env: Mapping[str, str] | None = None,
) -> PostResult:
    environment = os.environ if env is None else env
    platform: Platform | None = detect_platform(environment) if options.target == "auto" else options.target
    if platform is None:
        return PostResult(
            False, "prscope: not posted: not a pull-request run of GitHub Actions or GitLab CI", True
        )
    try:
        pull = pull_request_for(platform, environment)
    except NotPostable as unusable:
        if options.target == "auto" and platform == "github" and "not a pull request" in str(unusable):
            return PostResult(False, f"prscope: not posted: {unusable}", True)
        return PostResult(False, f"prscope: warning: not posted: {unusable}")
    if options.target == "auto" and pull.from_fork:
        kind = "pull request" if pull.platform == "github" else "merge request"
        return PostResult(
            False,
            f"prscope: not posted to {pull.label}: a {kind} from a fork gets no token that can write "
            "(the report has every finding)",
            True,
        )
    try:
        pull.require_token()
    except NotPostable as unusable:
        return PostResult(False, f"prscope: warning: not posted to {pull.label}: {unusable}")
    try:
        publication = build_publication(
            report, context, pull, repo, run_id=run_id, request_changes=options.request_changes
        )
        return PostResult(True, _posted(publication, options))
    except PostFailed as failure:
        return PostResult(False, f"prscope: warning: not posted to {pull.label}: {explain(failure, pull)}")
    except Exception as err:  # a bug in posting must not cost the review its result
        if environment.get("PRSCOPE_DEBUG"):
            raise
        if isinstance(err, ModuleNotFoundError) and err.name in _CLIENT_MODULES:
            why = f"{err.name} is not installed (pip install 'prscope[post]')"
        else:
            why = f"internal error {type(err).__name__}: {err}"
        return PostResult(False, f"prscope: warning: not posted to {pull.label}: {why}")


def _posted(publication: Publication, options: PostOptions) -> str:
    pull = publication.pull
    notes = "".join(f"; {note}" for note in publication.notes)
    if pull.platform == "gitlab":
        from prscope.analysis.publish.gitlab import GitLabPoster

        note = GitLabPoster(publication, timeout_s=options.timeout_s).post()
        action = "created" if note.created else "updated"
        return f"prscope: posted to {pull.label}: summary note {note.note_id} {action}{notes}"
    from prscope.analysis.publish.github import GitHubPoster

    outcome = GitHubPoster(publication, timeout_s=options.timeout_s).post()
    plan = outcome.plan
    suggestions = sum(1 for comment in plan.new if comment.suggests)
    parts = [
        f"summary comment {outcome.summary_id} {'created' if outcome.summary_created else 'updated'}",
        plural(len(plan.new), "new inline comment")
        + (f" ({suggestions} with a suggestion)" if suggestions else ""),
        f"{plural(len(plan.resolve), 'thread')} resolved",
        f"{plan.kept} still open",
    ]
    if outcome.event == "REQUEST_CHANGES":
        parts.append("changes requested")
    if outcome.dismissed_reviews:
        parts.append(f"{plural(outcome.dismissed_reviews, 'earlier change request')} dismissed")
    if plan.deferred:
        parts.append(f"{plan.deferred} more inline next run (limit per run)")
    return f"prscope: posted to {pull.label}: {', '.join(parts)}{notes}"
