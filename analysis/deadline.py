"""A time budget that holds inside one piece of work, not only between pieces.

The checks set a `Deadline` for the thread they run in; the code index polls it (`check_deadline`) as it
reads and scans files, so one symbol with a very common name cannot run for minutes past the budget. A
stop event (the first Ctrl-C, a cancelled editor request) ends the work the same way.
"""

from __future__ import annotations

import contextlib
import contextvars
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass


class OutOfTime(BaseException):
    """The work's time budget ran out, or it was asked to stop; the reason says which.

    A BaseException, like asyncio's CancelledError: the many `except Exception` guards around single
    files and symbols must not swallow it and carry on."""


@dataclass(frozen=True)
class Deadline:
    at: float | None = None
    """time.monotonic() after which the work stops; None for no time limit."""
    stop: threading.Event | None = None

    def reason(self) -> str | None:
        if self.stop is not None and self.stop.is_set():
            return "cancelled"
        if self.at is not None and time.monotonic() >= self.at:
            return "time budget spent"
        return None


_current: contextvars.ContextVar[Deadline | None] = contextvars.ContextVar("prscope_deadline", default=None)


@contextlib.contextmanager
def enforced(deadline: Deadline) -> Iterator[None]:
    """Make `check_deadline` in this thread (and context) answer to `deadline`."""
    token = _current.set(deadline)
    try:
        yield
    finally:
        _current.reset(token)


def check_deadline() -> None:
    """Raise OutOfTime when the enforced deadline has passed or its stop event is set."""
    deadline = _current.get()
    if deadline is None:
        return
    reason = deadline.reason()
    if reason is not None:
        raise OutOfTime(reason)
