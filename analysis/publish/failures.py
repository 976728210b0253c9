"""A posting failure, and the one line that tells the user what happened and what to grant.

Posting never decides the review's outcome: whatever goes wrong here becomes one warning line on stderr
(or, with --require-post, exit code 4); the report, the annotations and the job summary are unaffected.
"""

from __future__ import annotations

from prscope.analysis.publish.target import PullRequest


class PostFailed(Exception):
    """One step of posting failed. `status` is the HTTP status (None: no answer at all)."""

    def __init__(self, step: str, status: int | None, detail: str, *, rate_limited: bool = False) -> None:
        super().__init__(f"{step}: {status} {detail}")
        self.step = step
        self.status = status
        self.detail = " ".join(detail.split())[:300]
        self.rate_limited = rate_limited
        self.done: list[str] = []
        """What was posted before this step failed."""


def explain(err: PostFailed, pull: PullRequest) -> str:
    """`<step> failed: <why>; <what to do>` on one line."""
    detail = f": {err.detail}" if err.detail else ""
    status = err.status
    if err.rate_limited or status == 429:
        why = f"rate limited ({status}{detail}); try again later, nothing more was posted"
    elif status is None:
        why = f"no answer from {pull.api_url}{detail}"
    elif status == 401:
        why = f"the token was rejected (401{detail}); check the token given to prscope"
    elif status == 403:
        fork = " (a fork's pull request only gets a read-only token)" if pull.platform == "github" else ""
        why = f"not allowed (403{detail}); {pull.grant}{fork}"
    elif status == 404:
        why = f"not found (404{detail}): the token cannot see {pull.label}; {pull.grant}"
    elif status >= 500:
        why = f"the server failed ({status}{detail}), also when tried again"
    else:
        why = f"refused ({status}{detail})"
    done = f" (done before: {', '.join(err.done)})" if err.done else ""
    return f"{err.step} failed: {why}{done}"
