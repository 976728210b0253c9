"""Posting on a GitLab merge request through python-gitlab: the summary as one note, edited in place.

The note is found again by its marker among the notes written by the token's own user (never a note
of anyone else, whatever it contains). Findings reach the merge request's diff through the Code Quality
report (`--format codequality`), which GitLab shows inline itself.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from prscope.analysis import __version__
from prscope.analysis.publish.failures import PostFailed
from prscope.analysis.publish.markers import is_summary
from prscope.analysis.publish.publication import Publication

if TYPE_CHECKING:
    import gitlab

T = TypeVar("T")
MAX_NOTES = 3_000


@dataclass
class GitLabOutcome:
    note_id: int = 0
    created: bool = False


def _client(url: str, token: str, timeout_s: float) -> gitlab.Gitlab:
    import gitlab

    class Client(gitlab.Gitlab):
        """python-gitlab waits out a 429 up to ten times (Retry-After can be minutes): never here, the
        review is done and CI time is not ours to spend; a transient 5xx gets two quick retries."""

        def http_request(self, *args: Any, **kwargs: Any) -> Any:
            kwargs["obey_rate_limit"] = False
            kwargs["max_retries"] = 2
            return super().http_request(*args, **kwargs)

    return Client(
        url,
        private_token=token,
        timeout=timeout_s,
        retry_transient_errors=True,
        user_agent=f"prscope/{__version__}",
    )


class GitLabPoster:
    def __init__(self, publication: Publication, *, timeout_s: float = 30.0) -> None:
        self.publication = publication
        pull = publication.pull
        self.client = _client(pull.api_url, pull.token, timeout_s)
        self.outcome = GitLabOutcome()
        self.done: list[str] = []

    def post(self) -> GitLabOutcome:
        try:
            existing = self._step("reading the merge request's notes", self._own_summary_note)
            self._step("writing the summary note", lambda: self._write(existing))
        finally:
            self.client.session.close()
        return self.outcome

    def _merge_request(self) -> Any:
        pull = self.publication.pull
        project = self.client.projects.get(pull.repository, lazy=True)
        return project.mergerequests.get(pull.number, lazy=True)

    def _own_summary_note(self) -> Any:
        self.client.auth()
        me = self.client.user.id if self.client.user is not None else None
        if me is None:
            raise PostFailed("reading the merge request's notes", 401, "the token's user is unknown")
        notes = self._merge_request().notes.list(
            iterator=True, per_page=100, sort="asc", order_by="created_at"
        )
        for count, note in enumerate(notes):
            if count >= MAX_NOTES:
                break
            author = getattr(note, "author", None) or {}
            if not getattr(note, "system", False) and author.get("id") == me and is_summary(note.body or ""):
                return note
        return None

    def _write(self, existing: Any) -> None:
        body = self.publication.summary
        if existing is None:
            note = self._merge_request().notes.create({"body": body})
            self.outcome.note_id, self.outcome.created = int(note.id), True
        else:
            existing.body = body
            existing.save()
            self.outcome.note_id = int(existing.id)

    def _step(self, step: str, action: Callable[[], T]) -> T:
        import gitlab
        import requests

        try:
            result = action()
        except gitlab.exceptions.GitlabError as err:
            failure = PostFailed(step, err.response_code, str(err.error_message or ""))
            failure.rate_limited = err.response_code == 429
            failure.done = list(self.done)
            raise failure from None
        except requests.RequestException as err:
            failure = PostFailed(step, None, type(err).__name__)
            failure.done = list(self.done)
            raise failure from None
        if not step.startswith("reading"):
            self.done.append(step.removeprefix("writing "))
        return result
