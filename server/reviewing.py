"""One review on behalf of an editor: run the engine, show its findings as they come, on the right lines.

Protocol-free: everything the client sees goes through an `Outbox`, which the pygls wiring implements
(and a test can record).

Findings are shown in steps: the deterministic checks' as soon as the checks end, each model finding once
it is verified, then the final report, which is the whole truth and replaces what was shown. Every
finding is placed on the document as it is now (`server.tracking`); one that cannot be placed for
certain is not shown, and the summary says how many were not.

A review that is stopped (cancelled by the client, by `prscope.cancelReview`, or superseded by a newer
review of the same folder) stops at once: the engine is told to stop and winds down on its own (closing
its model requests, subagents and git processes), nothing more is published, what was already shown
stays, and the summary and progress say so.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from lsprotocol import types
from prscope.analysis.errors import ConfigError, PrscopeError
from prscope.analysis.findings import Finding, Severity
from prscope.server import history
from prscope.server.diagnostics import to_diagnostic
from prscope.server.events import RUN_EVENT, RunEvent, RunEventTranslator, progress_message, run_tree
from prscope.server.session import CANCELLED_BY_CLIENT, LastRun, Run, Session
from prscope.server.settings import ReviewParams
from prscope.server.tracking import Origin, Placed, place
from prscope.server.wording import EditorCommands, editor_words

if TYPE_CHECKING:
    from prscope.analysis.agent.events import AgentEvent, FindingsPublished
    from prscope.analysis.review import ReviewRequest, ReviewResult

log = logging.getLogger(__name__)

_FAIL_RANK = {"error": 3, "warning": 2, "note": 1, "never": 99}


class Outbox(Protocol):
    def notify(self, method: str, params: dict[str, Any]) -> None: ...
    def progress(self, message: str) -> None: ...
    def publish(self, uri: str, diagnostics: list[types.Diagnostic]) -> None: ...


class ReviewFailedError(Exception):
    """The review could not run; `str(err)` is one line for the user."""


@dataclass(frozen=True)
class DocumentText:
    """A document as it is now: the editor's buffer when it is open, else the file on disk."""

    lines: list[str]
    ends_with_break: bool
    version: int | None = None


@dataclass
class Workspace:
    """How repository paths become URIs and current text, for one repository."""

    root: Path
    uri_of: Callable[[str], str]
    document_of: Callable[[str], DocumentText | None]
    root_uri: str


def diagnostics_of(session: Session, uri: str) -> list[types.Diagnostic]:
    """What a document shows now: its findings, once each, without those dismissed in this session."""
    return [
        to_diagnostic(item, _related_uri(item), session.encoding)
        for item in session.documents.shown(uri)
        if item.finding.id not in session.hidden
    ]


def _related_uri(item: Placed) -> Callable[[str], str]:
    return lambda path: item.base_uri + path


def publish(session: Session, outbox: Outbox, uris: Iterable[str]) -> None:
    for uri in dict.fromkeys(uris):
        outbox.publish(uri, diagnostics_of(session, uri))


def place_findings(
    findings: Iterable[Finding],
    workspace: Workspace,
    origin: Origin = "review",
    sources: dict[str, list[str]] | None = None,
) -> tuple[dict[str, list[Placed]], list[Finding]]:
    """Findings placed on the documents as they are now, by URI, and those that could not be placed.
    `sources` are the reviewed lines (masked) of the files, when the review's report is at hand."""
    from prscope.analysis.checks.secrets import mask_secrets

    by_path: dict[str, list[Finding]] = {}
    for finding in findings:
        by_path.setdefault(finding.path, []).append(finding)
    by_uri: dict[str, list[Placed]] = {}
    unplaced: list[Finding] = []
    for path, group in by_path.items():
        document = workspace.document_of(path)
        if document is None:
            unplaced += group
            continue
        reviewed = sources.get(path) if sources is not None else None
        placed, missed = place(group, document.lines, origin, reviewed, mask_secrets)
        by_uri[workspace.uri_of(path)] = [item.with_base(workspace.root_uri) for item in placed]
        unplaced += missed
    return by_uri, unplaced


@dataclass
class Shown:
    """What one review has put in the editor, for the summary of a review that was stopped."""

    findings: dict[tuple[str, str, int], Finding] = field(default_factory=dict)
    model_findings: int = 0
    checks_done: bool = False

    def record(self, findings: Iterable[Finding]) -> None:
        for finding in findings:
            self.findings[(finding.id, finding.path, finding.line)] = finding

    def sentence(self) -> str:
        count = len(self.findings)
        if not count:
            return "no finding had been shown yet"
        parts = ["the deterministic checks"] if self.checks_done else []
        if self.model_findings:
            parts.append(f"{_count(self.model_findings)} verified by the model review")
        origin = f" ({' and '.join(parts)})" if parts else ""
        if count == 1:
            return f"the finding already shown{origin} is kept"
        return f"the {count} findings already shown{origin} are kept"


class ReviewPublisher:
    """Publishes one review's findings while it runs and when it ends; closed once the review stops."""

    def __init__(
        self, session: Session, workspace: Workspace, outbox: Outbox, run: Run, dismissed: frozenset[str]
    ) -> None:
        self.session = session
        self.workspace = workspace
        self.outbox = outbox
        self.run = run
        self.dismissed = dismissed
        self.shown = Shown()

    def on_findings(self, event: FindingsPublished) -> None:
        if self.run.cancel.is_set():
            return
        findings = self.visible(event.findings)
        by_uri, _unplaced = place_findings(findings, self.workspace)
        documents = self.session.documents
        if event.phase == "checks":
            changed = documents.replace_review(self.workspace.root_uri, by_uri)
            self.shown.checks_done = True
        else:
            changed = [uri for uri, items in by_uri.items() if documents.add_review(uri, items)]
            self.shown.model_findings += sum(len(items) for items in by_uri.values())
        self.shown.record(item.source for items in by_uri.values() for item in items)
        self.run.shown = len(self.shown.findings)
        publish(self.session, self.outbox, changed)

    def finish(self, result: ReviewResult) -> tuple[list[Finding], list[Finding]]:
        """Show the final report: (findings shown, findings that could not be placed)."""
        findings = self.visible(result.report.findings)
        by_uri, unplaced = place_findings(findings, self.workspace, sources=result.sources)
        documents = self.session.documents
        changed = documents.replace_review(self.workspace.root_uri, by_uri)
        covered = [self.workspace.uri_of(path) for path in result.paths]
        changed += documents.drop_quick(covered)
        publish(self.session, self.outbox, changed)
        shown = [item.source for items in by_uri.values() for item in items]
        return shown, unplaced

    def visible(self, findings: Iterable[Finding]) -> list[Finding]:
        """The findings not dismissed (in the store, the configuration or this session)."""
        hidden = self.dismissed | self.session.hidden
        return [finding for finding in findings if finding.id not in hidden]


def review_request(session: Session, params: ReviewParams, root: Path) -> ReviewRequest:
    from prscope.analysis.changeset import DiffSpec
    from prscope.analysis.review import ReviewRequest

    settings = session.settings
    assert settings is not None
    spec = DiffSpec(mode=params.mode or settings.mode, base=params.base or settings.base)
    return ReviewRequest(
        repo_path=root,
        spec=spec,
        overrides=settings.overrides(),
        offline=settings.offline,
        use_cache=not params.no_cache,
    )


async def review_and_publish(
    session: Session, params: ReviewParams, workspace: Workspace, outbox: Outbox, run: Run
) -> dict[str, Any]:
    """The review's summary once its findings are shown. Raises ReviewFailedError (one line) when the
    review could not run, and CancelledError when the caller was cancelled (what was shown stays)."""
    request = review_request(session, params, workspace.root)
    translator = RunEventTranslator(
        run.run_id, f"prscope review ({request.spec.mode})", work_done_token=params.work_done_token
    )
    outbox.notify(RUN_EVENT, translator.start().to_json())
    dismissed = await asyncio.to_thread(dismissed_ids, workspace.root)
    publisher = ReviewPublisher(session, workspace, outbox, run, dismissed)
    session.last_run = LastRun(run.run_id, "running", "", run_tree(translator))
    try:
        on_event = event_sink(translator, outbox, publisher.on_findings)
        result = await _run_engine(request, run, on_event, outbox)
    except asyncio.CancelledError:
        run.stop(run.stop_reason or CANCELLED_BY_CLIENT)
        _finish_stopped(session, outbox, translator, run, publisher.shown)
        raise
    except PrscopeError as err:
        message = editor_words(str(err), _commands(session))
        finish_run(outbox, translator, "error", message)
        session.last_run = LastRun(run.run_id, "error", message, run_tree(translator))
        raise ReviewFailedError(message) from None
    except Exception as err:
        log.exception("prscope review failed")
        message = f"prscope: the review failed: {type(err).__name__}: {err}"
        finish_run(outbox, translator, "error", message)
        session.last_run = LastRun(run.run_id, "error", message, run_tree(translator))
        raise ReviewFailedError(message) from None
    finally:
        session.end_run(run)
    if result is None:
        return _finish_stopped(session, outbox, translator, run, publisher.shown)
    # The engine recorded the run in the store (or said in a warning why it could not).
    session.store_usable[workspace.root] = result.run_id is not None
    for warning in result.warnings:
        log.warning("prscope: %s", warning)
    shown, unplaced = publisher.finish(result)
    visible = publisher.visible(result.report.findings)
    answer = summary(run.run_id, result, shown, unplaced, visible, _commands(session))
    finish_run(outbox, translator, "completed", answer["status_reason"])
    agents = [node.model_dump(mode="json") for node in result.report.agents] or run_tree(translator)
    session.last_run = LastRun(run.run_id, answer["status"], answer["status_reason"], agents)
    return answer


def _commands(session: Session) -> EditorCommands | None:
    return session.settings.commands if session.settings is not None else None


def dismissed_ids(root: Path) -> frozenset[str]:
    """The finding ids dismissed in the run store and in the repository's configuration (none from the
    configuration when it cannot be read: the review itself reports a broken configuration)."""
    from prscope.analysis.config import load_config

    try:
        configured = frozenset(load_config(root).dismissed)
    except (ConfigError, OSError):
        configured = frozenset()
    return configured | history.store_dismissals(root)


async def _run_engine(
    request: ReviewRequest, run: Run, on_event: Callable[[AgentEvent], None], outbox: Outbox
) -> ReviewResult | None:
    """The engine's result, or None when the run was stopped first. A stopped engine is not awaited: it
    has been told to stop and winds down on its own, rather than being torn down mid-await."""
    from prscope.analysis.review import run_review

    engine = asyncio.ensure_future(run_review(request, on_event, run.cancel, outbox.progress))
    stopped = asyncio.ensure_future(run.cancel.wait())
    try:
        await asyncio.wait({engine, stopped}, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        run.cancel.set()
        engine.add_done_callback(_swallow_result)
        raise
    finally:
        stopped.cancel()
    if run.cancel.is_set():
        engine.add_done_callback(_swallow_result)
        return None
    return engine.result()


def event_sink(
    translator: RunEventTranslator,
    outbox: Outbox,
    on_findings: Callable[[FindingsPublished], None] | None = None,
) -> Callable[[AgentEvent], None]:
    """Engine events -> run events, progress lines and early findings, delivered on the event loop;
    never raises."""
    from prscope.analysis.agent.events import FindingsPublished

    def on_event(event: AgentEvent) -> None:
        try:
            if isinstance(event, FindingsPublished):
                if on_findings is not None:
                    on_findings(event)
                return
            translated = translator.translate(event)
            if translated is not None:
                outbox.notify(RUN_EVENT, translated.to_json())
            message = progress_message(event)
            if message is not None:
                outbox.progress(message)
        except Exception:  # a broken progress display must not end a review
            log.exception("prscope: handling a run event failed")

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


def _swallow_result(task: asyncio.Future[Any]) -> None:
    if not task.cancelled() and task.exception() is not None:
        log.info("prscope: a stopped review ended with %r", task.exception())


def finish_run(outbox: Outbox, translator: RunEventTranslator, status: Any, detail: str) -> None:
    event: RunEvent = translator.finish(status, detail)
    outbox.notify(RUN_EVENT, event.to_json())


def _finish_stopped(
    session: Session, outbox: Outbox, translator: RunEventTranslator, run: Run, shown: Shown
) -> dict[str, Any]:
    reason = f"{run.stop_reason}; {shown.sentence()}"
    finish_run(outbox, translator, "cancelled", reason)
    session.last_run = LastRun(run.run_id, "cancelled", reason, run_tree(translator))
    return stopped_summary(run, reason, list(shown.findings.values()), session)


def stopped_outcome(run: Run, shown_count: int) -> str:
    """The progress's last line for a stopped review."""
    if run.superseded:
        return "superseded"
    return f"cancelled: kept {_count(shown_count)}" if shown_count else "cancelled"


def completed_outcome(answer: dict[str, Any]) -> str:
    return f"{answer['status']}: {_count(answer['shown'])}"


def _count(number: int) -> str:
    return f"{number} finding{'s' if number != 1 else ''}"


def _counts(findings: list[Finding]) -> dict[str, int]:
    counts = {severity.value: 0 for severity in Severity}
    for finding in findings:
        counts[finding.severity.value] += 1
    return counts


def _json(findings: list[Finding]) -> list[dict[str, Any]]:
    return [f.model_dump(mode="json", exclude_none=True) for f in findings]


def summary(
    run_id: str,
    result: ReviewResult,
    shown: list[Finding],
    unplaced: list[Finding],
    visible: list[Finding] | None = None,
    commands: EditorCommands | None = None,
) -> dict[str, Any]:
    """The answer to a finished review. `findings` are the report's not dismissed (`visible`; as in
    `--format json`, with `dismissed` counting the others), `shown` how many are in the editor; the
    reason says why any are not (their lines changed since the review)."""
    report = result.report
    kept = report.findings if visible is None else visible
    fail_on = result.config.fail_on
    blocking = sum(1 for f in shown if f.severity.rank >= _FAIL_RANK[fail_on])
    reason = editor_words(report.status_reason, commands)
    if unplaced:
        reason += (
            f"; {_count(len(unplaced))} not shown in the editor: "
            "the lines they point at changed since the review"
        )
    return {
        "run_id": run_id,
        "status": report.status,
        "status_reason": reason,
        "findings": _json(kept),
        "counts": _counts(kept),
        "dismissed": len(report.findings) - len(kept),
        "files": report.files.model_dump(mode="json"),
        "errors": list(report.errors),
        "mode": report.mode,
        "base": report.base,
        "head": report.head,
        "fail_on": fail_on,
        "blocking": blocking,
        "published": True,
        "shown": len(shown),
        "not_shown": [f.id for f in unplaced],
        "stopped": None,
        "stored_run_id": result.run_id,
    }


def stopped_summary(run: Run, reason: str, shown: list[Finding], session: Session) -> dict[str, Any]:
    """The answer to a review stopped before its end: what it had shown, and why it stopped."""
    settings = session.settings
    fail_on = (settings.fail_on if settings else None) or "error"
    return {
        "run_id": run.run_id,
        "status": "partial",
        "status_reason": reason,
        "findings": _json(shown),
        "counts": _counts(shown),
        "dismissed": 0,
        "files": {"changed": 0, "reviewed": 0, "omitted": []},
        "errors": [],
        "mode": None,
        "base": None,
        "head": None,
        "fail_on": fail_on,
        "blocking": sum(1 for f in shown if f.severity.rank >= _FAIL_RANK[fail_on]),
        "published": bool(shown),
        "shown": len(shown),
        "not_shown": [],
        "stopped": "superseded" if run.superseded else "cancelled",
        "stored_run_id": None,
    }
