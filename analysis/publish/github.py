"""Posting on a GitHub pull request through githubkit (its REST models are generated from GitHub's
OpenAPI description; GraphQL for what REST cannot do: who the token is, and review threads).

One run: find who the token is and the review threads this user started (GraphQL), update the summary
comment this user wrote (found by its marker) or create it, post the new inline comments as one review,
then resolve the threads whose finding is fixed or dismissed. Only comments whose author is the token's
own user are ever edited or resolved: a marker in the pull request's text or in anyone else's comment
is ignored.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from functools import partial
from typing import TYPE_CHECKING, Any, Literal, TypeVar, cast

from prscope.analysis import __version__
from prscope.analysis.publish.comments import InlineComment
from prscope.analysis.publish.failures import PostFailed
from prscope.analysis.publish.markers import (
    REVIEW_MARKER,
    is_review,
    is_summary,
    parse_finding_marker,
    same_user,
)
from prscope.analysis.publish.publication import Publication
from prscope.analysis.publish.sync import PostedThread, ThreadPlan, plan_threads

if TYPE_CHECKING:
    from githubkit import GitHub
    from githubkit.exception import GitHubException
    from githubkit.typing import RetryOption
    from githubkit_schemas.latest.models import IssueComment, PullRequestReview

T = TypeVar("T")
PAGE_SIZE = 100
MAX_PAGES = 30
"""3,000 comments, reviews or threads read at most: enough for any pull request a person reads."""

_THREADS_QUERY = """
query($owner: String!, $name: String!, $number: Int!, $after: String) {
  viewer { login }
  repository(owner: $owner, name: $name) {
    pullRequest(number: $number) {
      reviewThreads(first: 100, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes {
          id
          isResolved
          comments(first: 1) { nodes { databaseId body author { login } } }
        }
      }
    }
  }
}
"""

_RESOLVE_MUTATION = """
mutation($thread: ID!) {
  resolveReviewThread(input: {threadId: $thread}) { thread { id isResolved } }
}
"""


@dataclass
class GitHubOutcome:
    summary_id: int = 0
    summary_created: bool = False
    review_id: int | None = None
    event: str | None = None
    plan: ThreadPlan = field(default_factory=ThreadPlan)
    replied: int = 0
    """Threads answered "fixed in <sha>" because they could not be resolved."""
    dismissed_reviews: int = 0


def _retry(exc: GitHubException, count: int) -> RetryOption:
    """Server errors get two more tries a second or two apart; a rate limit is never waited out (it can
    last an hour, and the review has already done its job)."""
    from githubkit.exception import RateLimitExceeded, RequestFailed
    from githubkit.typing import RetryOption

    if isinstance(exc, RateLimitExceeded) or not isinstance(exc, RequestFailed):
        return RetryOption(False)
    if exc.response.status_code >= 500 and count < 2:
        return RetryOption(True, timedelta(seconds=count + 1))
    return RetryOption(False)


class GitHubPoster:
    def __init__(self, publication: Publication, *, timeout_s: float = 30.0) -> None:
        from githubkit import GitHub

        self.publication = publication
        pull = publication.pull
        self.owner, self.repo = pull.repository.split("/", 1)
        self.number = pull.number
        self.github: GitHub[Any] = GitHub(
            pull.token,
            base_url=pull.api_url + "/",
            user_agent=f"prscope/{__version__}",
            timeout=timeout_s,
            http_cache=False,
            auto_retry=_retry,
        )
        self.outcome = GitHubOutcome()
        self.done: list[str] = []

    def post(self) -> GitHubOutcome:
        with self.github:  # one connection for every request of the run
            viewer, threads = self._step("reading the review threads", self._viewer_and_threads)
            self._step("writing the summary comment", lambda: self._upsert_summary(viewer))
            publication = self.publication
            plan = plan_threads(
                publication.candidates,
                threads,
                active_ids=publication.active_ids,
                dismissed_ids=publication.dismissed_ids,
                judged=publication.judged,
                commit=publication.commit,
            )
            self.outcome.plan = plan
            self._step("posting the review", lambda: self._review(plan, viewer))
            for thread, why in plan.resolve:
                self._step("resolving a review thread", partial(self._resolve, thread, why))
        return self.outcome

    def _step(self, step: str, action: Callable[[], T]) -> T:
        from githubkit.exception import (
            GraphQLFailed,
            RateLimitExceeded,
            RequestError,
            RequestFailed,
            RequestTimeout,
        )

        try:
            result = action()
        except RateLimitExceeded as err:
            raise self._failed(step, err.response.status_code, _message(err), rate_limited=True) from None
        except RequestFailed as err:
            raise self._failed(step, err.response.status_code, _message(err)) from None
        except GraphQLFailed as err:
            errors = "; ".join(e.message for e in err.response.errors or [])
            status = 403 if "not accessible" in errors.casefold() else 422
            raise self._failed(step, status, errors or "GraphQL error") from None
        except (RequestTimeout, RequestError) as err:
            raise self._failed(step, None, type(getattr(err, "exc", err)).__name__) from None
        self.done.append(step.removeprefix("writing ").removeprefix("posting "))
        return result

    def _failed(
        self, step: str, status: int | None, detail: str, *, rate_limited: bool = False
    ) -> PostFailed:
        failure = PostFailed(step, status, detail, rate_limited=rate_limited)
        failure.done = [d for d in self.done if not d.startswith("reading")]
        return failure

    # --- reading -----------------------------------------------------------------------------------

    def _viewer_and_threads(self) -> tuple[str, list[PostedThread]]:
        viewer = ""
        threads: list[PostedThread] = []
        after: str | None = None
        for _ in range(MAX_PAGES):
            variables = {"owner": self.owner, "name": self.repo, "number": self.number, "after": after}
            data = self.github.graphql.request(_THREADS_QUERY, variables)
            viewer = str(_get(data, "viewer", "login") or "")
            connection = _get(data, "repository", "pullRequest", "reviewThreads") or {}
            threads += [t for node in connection.get("nodes") or [] if (t := _own_thread(node, viewer))]
            page = connection.get("pageInfo") or {}
            if not page.get("hasNextPage"):
                break
            after = page.get("endCursor")
        if not viewer:
            raise PostFailed("reading the review threads", 403, "the token's user is unknown")
        return viewer, threads

    def _own_comments(self, viewer: str) -> Iterator[tuple[int, str]]:
        for page in range(1, MAX_PAGES + 1):
            response = self.github.rest.issues.list_comments(
                self.owner, self.repo, self.number, per_page=PAGE_SIZE, page=page
            )
            comments = cast("list[IssueComment]", response.parsed_data)
            for comment in comments:
                if comment.user is not None and same_user(comment.user.login, viewer):
                    yield comment.id, comment.body or ""
            if len(comments) < PAGE_SIZE:
                return

    # --- writing -----------------------------------------------------------------------------------

    def _upsert_summary(self, viewer: str) -> None:
        body = self.publication.summary
        existing = next((cid for cid, text in self._own_comments(viewer) if is_summary(text)), None)
        rest = self.github.rest.issues
        if existing is None:
            created = rest.create_comment(self.owner, self.repo, self.number, body=body).parsed_data
            self.outcome.summary_id, self.outcome.summary_created = created.id, True
        else:
            rest.update_comment(self.owner, self.repo, existing, body=body)
            self.outcome.summary_id = existing

    def _review(self, plan: ThreadPlan, viewer: str) -> None:
        publication = self.publication
        event: Literal["COMMENT", "REQUEST_CHANGES"] = "COMMENT"
        if publication.request_changes:
            blocking = self._own_blocking_reviews(viewer)
            if publication.has_errors and not blocking:
                event = "REQUEST_CHANGES"
            elif not publication.has_errors:
                for review_id in blocking:
                    self.github.rest.pulls.dismiss_review(
                        self.owner,
                        self.repo,
                        self.number,
                        review_id,
                        message=f"prscope: no errors left at {publication.commit[:12]}",
                        event="DISMISS",
                    )
                    self.outcome.dismissed_reviews += 1
        if not plan.new and event == "COMMENT":
            return
        response = self.github.rest.pulls.create_review(
            self.owner,
            self.repo,
            self.number,
            commit_id=publication.commit,
            body=_review_body(len(plan.new), event),
            event=event,
            comments=[_review_comment(comment) for comment in plan.new],
        )
        self.outcome.review_id, self.outcome.event = response.parsed_data.id, event

    def _own_blocking_reviews(self, viewer: str) -> list[int]:
        blocking: list[int] = []
        for page in range(1, MAX_PAGES + 1):
            response = self.github.rest.pulls.list_reviews(
                self.owner, self.repo, self.number, per_page=PAGE_SIZE, page=page
            )
            reviews = cast("list[PullRequestReview]", response.parsed_data)
            blocking += [
                r.id
                for r in reviews
                if r.state == "CHANGES_REQUESTED"
                and r.user is not None
                and same_user(r.user.login, viewer)
                and is_review(r.body)
            ]
            if len(reviews) < PAGE_SIZE:
                break
        return blocking

    def _resolve(self, thread: PostedThread, why: str) -> None:
        from githubkit.exception import GraphQLFailed

        try:
            self.github.graphql.request(_RESOLVE_MUTATION, {"thread": thread.thread_id})
        except GraphQLFailed:
            # Resolving can be refused where replying is not (e.g. a locked conversation's rules): say it.
            self.github.rest.pulls.create_reply_for_review_comment(
                self.owner, self.repo, self.number, thread.comment_id, body=f"prscope: {why}."
            )
            self.outcome.replied += 1


def _own_thread(node: dict[str, Any], viewer: str) -> PostedThread | None:
    first = (_get(node, "comments", "nodes") or [None])[0]
    if not isinstance(first, dict) or not isinstance(node.get("id"), str):
        return None
    author = _get(first, "author", "login")
    mark = parse_finding_marker(str(first.get("body") or ""))
    if mark is None or not isinstance(author, str) or not same_user(author, viewer):
        return None
    return PostedThread(
        thread_id=node["id"],
        comment_id=int(first.get("databaseId") or 0),
        finding_id=mark.finding_id,
        source=mark.source,
        resolved=bool(node.get("isResolved")),
    )


def _review_comment(comment: InlineComment) -> dict[str, Any]:
    anchor = comment.anchor
    data: dict[str, Any] = {"path": anchor.path, "line": anchor.line, "side": "RIGHT", "body": comment.body}
    if anchor.start_line is not None:
        data |= {"start_line": anchor.start_line, "start_side": "RIGHT"}
    return data


def _review_body(new: int, event: str) -> str:
    what = f"{new} new finding(s) on the changed lines" if new else "no new finding on the changed lines"
    ask = " Errors remain: changes requested." if event == "REQUEST_CHANGES" else ""
    return f"prscope: {what}; the summary comment lists every finding.{ask}\n\n{REVIEW_MARKER}"


def _get(data: Any, *keys: str) -> Any:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _message(err: Any) -> str:
    try:
        data = err.response.raw_response.json()
    except ValueError:
        return ""
    return str(data.get("message", "")) if isinstance(data, dict) else ""
