"""One review on behalf of an editor: run the engine, stream its events, publish its findings.

Protocol-free: everything the client sees goes through an `Outbox`, which the pygls wiring implements
(and a test can record). Cancellation: the caller's coroutine may be cancelled at any await (pygls does
so on `$/cancelRequest`); the engine then gets its cancel event and finishes on its own, and nothing it
produces is published.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from lsprotocol import types

from analysis.agent.events import AgentEvent
from analysis.changeset import DiffSpec
from analysis.errors import PrscopeError
from analysis.findings import Severity
from analysis.report import Report
from analysis.review import ReviewRequest, ReviewResult, run_review
from server.diagnostics import LinesOf, diagnostics_by_path
from server.events import RUN_EVENT, RunEvent, RunEventTranslator, progress_message
from server.session import Run, Session
from server.settings import ReviewParams

log = logging.getLogger(__name__)

_FAIL_RANK = {"error": 3, "warning": 2, "note": 1, "never": 99}


class Outbox(Protocol):
    def notify(self, method: str, params: dict[str, Any]) -> None: ...
    def progress(self, message: str) -> None: ...
    def publish(self, uri: str, diagnostics: list[types.Diagnostic]) -> None: ...


class ReviewFailedError(Exception):
    """The review could not run; `str(err)` is one line for the user."""


@dataclass
class Workspace:
    """How repository paths become URIs and lines, for one folder."""

    root: Path
    uri_of: Callable[[str], str]
    lines_of: LinesOf
    root_uri: str


def review_request(session: Session, params: ReviewParams, root: Path) -> ReviewRequest:
    settings = session.settings
    spec = DiffSpec(mode=params.mode or settings.mode, base=params.base or settings.base)
    return ReviewRequest(repo_path=root, spec=spec, overrides=settings.overrides(), offline=settings.offline)


async def review_and_publish(
    session: Session, params: ReviewParams, workspace: Workspace, outbox: Outbox
) -> dict[str, Any]:
    """The review's summary after its diagnostics are published. Raises ReviewFailedError (one line) when
    the review could not run, and CancelledError when the caller was cancelled (nothing published)."""
    request = review_request(session, params, workspace.root)
    run = session.start_run(workspace.root)
    translator = RunEventTranslator(run.run_id, f"prscope review ({request.spec.mode})")
    outbox.notify(RUN_EVENT, translator.start().to_json())
    try:
        result = await _run_engine(request, run, translator, outbox)
    except asyncio.CancelledError:
        run.cancel.set()
        finish_run(outbox, translator, "cancelled", "cancelled by the client")
        raise
    except PrscopeError as err:
        finish_run(outbox, translator, "error", str(err))
        raise ReviewFailedError(str(err)) from None
    except Exception as err:
        log.exception("prscope review failed")
        message = f"prscope: the review failed: {type(err).__name__}: {err}"
        finish_run(outbox, translator, "error", message)
        raise ReviewFailedError(message) from None
    finally:
        session.end_run(run)
    if run.cancel.is_set():
        # Superseded by a newer review, or cancelled by command: stale findings must not be published.
        finish_run(outbox, translator, "cancelled", "superseded or cancelled")
        return summary(run.run_id, result, published=False)
    _publish(session, result.report, workspace, outbox)
    finish_run(outbox, translator, "completed", result.report.status_reason)
    return summary(run.run_id, result, published=True)


async def _run_engine(
    request: ReviewRequest, run: Run, translator: RunEventTranslator, outbox: Outbox
) -> ReviewResult:
    on_event = event_sink(translator, outbox)
    engine = asyncio.ensure_future(run_review(request, on_event, run.cancel, outbox.progress))
    try:
        # Shielded: on cancellation the engine is told to stop through its event and winds down itself
        # (closing its git processes), rather than being torn down mid-await.
        return await asyncio.shield(engine)
    except asyncio.CancelledError:
        run.cancel.set()
        engine.add_done_callback(_swallow_result)
        raise


def event_sink(translator: RunEventTranslator, outbox: Outbox) -> Callable[[AgentEvent], None]:
    """Engine events -> run events and progress lines, delivered on the event loop; never raises."""

    def on_event(event: AgentEvent) -> None:
        try:
            translated = translator.translate(event)
            if translated is not None:
                outbox.notify(RUN_EVENT, translated.to_json())
            message = progress_message(event)
            if message is not None:
                outbox.progress(message)
        except Exception:  # a broken progress display must not end a review
            log.exception("prscope: sending a run event failed")

    return _on_loop(on_event)


def _on_loop(sink: Callable[[AgentEvent], None]) -> Callable[[AgentEvent], None]:
    """The sink, called on the event loop even when an engine thread emits the event."""
    loop = asyncio.get_running_loop()

    def deliver(event: AgentEvent) -> None:
        try:
            running = asyncio.get_running_loop()
        except RuntimeError:
            running = None
        if running is loop:
            sink(event)
        else:
            loop.call_soon_threadsafe(sink, event)

    return deliver


def _swallow_result(task: asyncio.Future[ReviewResult]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.info("prscope: a cancelled review ended with %r", task.exception())


def finish_run(outbox: Outbox, translator: RunEventTranslator, status: Any, detail: str) -> None:
    event: RunEvent = translator.finish(status, detail)
    outbox.notify(RUN_EVENT, event.to_json())


def _publish(session: Session, report: Report, workspace: Workspace, outbox: Outbox) -> None:
    by_path = diagnostics_by_path(report.findings, workspace.lines_of, workspace.uri_of)
    by_uri = {workspace.uri_of(path): diagnostics for path, diagnostics in by_path.items()}
    for uri in session.replace_review(workspace.root_uri, by_uri):
        outbox.publish(uri, session.diagnostics_for(uri))


def summary(run_id: str, result: ReviewResult, *, published: bool) -> dict[str, Any]:
    report = result.report
    fail_on = result.config.fail_on
    counts = {severity.value: 0 for severity in Severity}
    for finding in report.findings:
        counts[finding.severity.value] += 1
    blocking = sum(1 for f in report.findings if f.severity.rank >= _FAIL_RANK[fail_on])
    return {
        "run_id": run_id,
        "status": report.status,
        "status_reason": report.status_reason,
        "findings": [f.model_dump(mode="json", exclude_none=True) for f in report.findings],
        "counts": counts,
        "files": report.files.model_dump(mode="json"),
        "errors": list(report.errors),
        "mode": report.mode,
        "base": report.base,
        "head": report.head,
        "fail_on": fail_on,
        "blocking": blocking,
        "published": published,
    }
