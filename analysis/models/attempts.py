"""The HTTP attempts behind one model call: the SDKs retry 429, 529 and 5xx on their own, and a person
watching a review should see it ("retrying (2/4) after HTTP 529"), and usage should count every request.

The runner says who listens (`listening`); the client counts the attempts of each call (`counting`), and
an httpx response hook (`record_response`) feeds both. Context variables carry them into the SDK's task.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Protocol


class _Response(Protocol):
    status_code: int


RetryListener = Callable[[int, int, int], None]
"""Called with (retry number, most retries, HTTP status) when a failed attempt will be retried."""

_RETRIED = frozenset({408, 409, 429})


@dataclass
class Attempts:
    max_retries: int
    statuses: list[int] = field(default_factory=list)
    listener: RetryListener | None = None

    @property
    def requests(self) -> int:
        return len(self.statuses)


_listener: contextvars.ContextVar[RetryListener | None] = contextvars.ContextVar(
    "retry_listener", default=None
)
_attempts: contextvars.ContextVar[Attempts | None] = contextvars.ContextVar("model_attempts", default=None)


@contextlib.contextmanager
def listening(listener: RetryListener) -> Iterator[None]:
    token = _listener.set(listener)
    try:
        yield
    finally:
        _listener.reset(token)


@contextlib.contextmanager
def counting(max_retries: int) -> Iterator[Attempts]:
    attempts = Attempts(max_retries=max_retries, listener=_listener.get())
    token = _attempts.set(attempts)
    try:
        yield attempts
    finally:
        _attempts.reset(token)


def will_retry(status: int) -> bool:
    return status in _RETRIED or status >= 500


async def record_response(response: _Response) -> None:
    """httpx response hook: count the attempt; announce a retry the SDK is about to make."""
    attempts = _attempts.get()
    if attempts is None:
        return
    attempts.statuses.append(response.status_code)
    retry = len(attempts.statuses)
    if attempts.listener is not None and will_retry(response.status_code) and retry <= attempts.max_retries:
        try:
            attempts.listener(retry, attempts.max_retries, response.status_code)
        except Exception:  # a display must never break a model call
            return
