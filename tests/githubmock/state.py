"""The state a pull request keeps on GitHub, for the stateful fake: users (by token), issue comments,
reviews, review comments and their threads, and the rules GitHub enforces that its OpenAPI description
cannot state (a review comment must be on a line of the diff and the review on the head commit)."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field


@dataclass(frozen=True)
class User:
    login: str
    """As REST answers it: an app's user is `name[bot]`."""
    id: int
    type: str = "User"
    can_write: bool = True

    @property
    def graphql_login(self) -> str:
        """GraphQL names an app's user without the `[bot]` suffix (what clients must cope with)."""
        return self.login.removesuffix("[bot]")


BOT = User("github-actions[bot]", 41898282, "Bot")
READ_ONLY_BOT = User("github-actions[bot]", 41898282, "Bot", can_write=False)
AUTHOR = User("pr-author", 1001)
MALLORY = User("mallory", 666)


@dataclass
class IssueComment:
    id: int
    user: User
    body: str


@dataclass
class Review:
    id: int
    user: User
    body: str
    state: str
    commit_id: str


@dataclass
class ReviewComment:
    id: int
    review_id: int
    user: User
    path: str
    line: int
    start_line: int | None
    body: str
    commit_id: str
    in_reply_to: int | None = None


@dataclass
class Thread:
    node_id: str
    comment_ids: list[int]
    resolved: bool = False


class Refused(Exception):
    """GitHub's answer to a request it will not do: status and message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass
class PullRequestState:
    number: int
    head_sha: str
    diff: Mapping[str, frozenset[int]]
    """The new-side lines of each file the pull request's diff shows (review comments go only there)."""
    body: str = ""
    issue_comments: dict[int, IssueComment] = field(default_factory=dict)
    reviews: dict[int, Review] = field(default_factory=dict)
    review_comments: dict[int, ReviewComment] = field(default_factory=dict)
    threads: dict[str, Thread] = field(default_factory=dict)
    _ids: itertools.count[int] = field(default_factory=lambda: itertools.count(5000))
    lock: threading.RLock = field(default_factory=threading.RLock)

    def next_id(self) -> int:
        return next(self._ids)

    def add_issue_comment(self, user: User, body: str) -> IssueComment:
        with self.lock:
            comment = IssueComment(self.next_id(), user, body)
            self.issue_comments[comment.id] = comment
            return comment

    def add_review(
        self, user: User, body: str, event: str, commit_id: str, comments: list[dict[str, object]]
    ) -> Review:
        with self.lock:
            if commit_id != self.head_sha:
                raise Refused(422, "commit_id is not part of the pull request")
            for comment in comments:
                self._check_on_diff(comment)
            state = {"COMMENT": "COMMENTED", "REQUEST_CHANGES": "CHANGES_REQUESTED", "APPROVE": "APPROVED"}
            review = Review(self.next_id(), user, body, state.get(event, "PENDING"), commit_id)
            self.reviews[review.id] = review
            for comment in comments:
                start = comment.get("start_line")
                added = ReviewComment(
                    self.next_id(),
                    review.id,
                    user,
                    str(comment["path"]),
                    int(str(comment["line"])),
                    int(str(start)) if start is not None else None,
                    str(comment["body"]),
                    commit_id,
                )
                self.review_comments[added.id] = added
                node = f"PRRT_{added.id}"
                self.threads[node] = Thread(node, [added.id])
            return review

    def add_reply(self, user: User, comment_id: int, body: str) -> ReviewComment:
        with self.lock:
            first = self.review_comments.get(comment_id)
            thread = self.thread_of(comment_id)
            if first is None or thread is None:
                raise Refused(404, "Not Found")
            reply = ReviewComment(
                self.next_id(),
                first.review_id,
                user,
                first.path,
                first.line,
                None,
                body,
                self.head_sha,
                comment_id,
            )
            self.review_comments[reply.id] = reply
            thread.comment_ids.append(reply.id)
            return reply

    def thread_of(self, comment_id: int) -> Thread | None:
        return next((t for t in self.threads.values() if comment_id in t.comment_ids), None)

    def _check_on_diff(self, comment: Mapping[str, object]) -> None:
        path, line, start = comment.get("path"), comment.get("line"), comment.get("start_line")
        lines = self.diff.get(str(path), frozenset())
        wanted = [line] if start is None else [start, line]
        if any(not isinstance(n, int) or n not in lines for n in wanted):
            raise Refused(422, "Pull request review thread line must be part of the diff")
        if comment.get("side", "RIGHT") != "RIGHT":
            raise Refused(422, "Pull request review thread side must be RIGHT for new lines")

    # --- for assertions ---------------------------------------------------------------------------

    def comments_by(self, user: User) -> list[ReviewComment]:
        return [
            c for c in self.review_comments.values() if c.user.login == user.login and c.in_reply_to is None
        ]

    def open_threads(self) -> list[Thread]:
        return [t for t in self.threads.values() if not t.resolved]
