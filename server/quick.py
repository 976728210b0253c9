"""Quick analysis of a selection: the deterministic checks run on the selected lines as if they had
just been written (no model, no network, no key: well under a second), then, when a model is
configured, a short focused model review of the same selection.

The selection becomes an in-memory change: the document's current text (unsaved edits included) is the
new side, and the same text without the selected lines is the old side, so that every check that looks
at added lines looks at exactly the selection.
"""

from __future__ import annotations

import asyncio
import logging
import os
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prscope.analysis.changeset import ChangeSet, FileChange, FileStatus
from prscope.analysis.changeset.model import DiffLine, Hunk, Side, language_for_path
from prscope.analysis.findings import Finding
from prscope.analysis.positions import split_lines
from prscope.server.events import RUN_EVENT, RunEventTranslator
from prscope.server.session import CANCELLED_BY_CLIENT
from prscope.server.wording import editor_words

if TYPE_CHECKING:
    from prscope.analysis.agent.events import EventSink
    from prscope.analysis.review import ModelPlan, ReviewRequest
    from prscope.server.reviewing import Outbox, Workspace
    from prscope.server.session import Run, Session

log = logging.getLogger(__name__)

# Repository-wide rules compare two versions of a signature or a symbol; a selection has no old version.
_TEXT_RULES_ONLY = {
    rule: False
    for rule in (
        "breaking-call",
        "dangling-reference",
        "async-mismatch",
        "property-mismatch",
        "override-mismatch",
    )
}


@dataclass
class QuickResult:
    findings: list[Finding]
    errors: list[str]


class _DocumentSides:
    """A SideReader over one document held in memory; other files are read from the working tree."""

    def __init__(self, root: Path, path: str, new_text: str, old_text: str) -> None:
        self._root = root
        self._texts: dict[tuple[Side, str], str] = {("new", path): new_text, ("old", path): old_text}

    def read(self, side: Side, path: str) -> str | None:
        if (side, path) in self._texts:
            return self._texts[(side, path)]
        try:
            return (self._root / path).read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            return None

    def prefetch(self, wanted: list[tuple[Side, str, str]]) -> None:
        """Nothing to warm: the document is in memory."""

    def prefetch_paths(self, side: Side, paths: list[str]) -> None:
        """Nothing to warm: other files are read on demand."""

    def close(self) -> None:
        """Nothing to release."""


def selection_changeset(root: Path, path: str, text: str, first: int, last: int) -> ChangeSet:
    """`text` with lines `first..last` (1-based, inclusive) as the only added lines of `path`."""
    lines = text.splitlines(keepends=True)
    last = min(last, len(lines))
    selected = lines[first - 1 : last]
    old_text = "".join(lines[: first - 1] + lines[last:])
    hunk = Hunk(
        old_start=first - 1,
        old_count=0,
        new_start=first,
        new_count=len(selected),
        section="",
        lines=[
            DiffLine(kind="+", text=line.rstrip("\r\n"), old_no=None, new_no=first + offset)
            for offset, line in enumerate(selected)
        ],
    )
    change = FileChange(
        path=path,
        old_path=None,
        status=FileStatus.MODIFIED,
        is_binary=False,
        language=language_for_path(path),
        hunks=[hunk] if selected else [],
    )
    change.recount()
    return ChangeSet(
        repo_root=root,
        mode="uncommitted",
        base_ref=None,
        base_sha=None,
        head_sha=None,
        files=[change],
        reader=_DocumentSides(root, path, text, old_text),
    )


def quick_analysis(root: Path, path: str, text: str, first: int, last: int) -> QuickResult:
    """Findings of the deterministic checks inside lines `first..last` of `path` (blocking: run it in a
    thread)."""
    from prscope.analysis.checks import ChecksConfig, run_checks
    from prscope.analysis.intel import CodeIndex

    if first < 1 or last < first:
        return QuickResult([], [])
    cs = selection_changeset(root, path, text, first, last)
    index = CodeIndex(root, source=lambda wanted: cs.read_new(wanted) if wanted == path else None)
    run = run_checks(cs, index, ChecksConfig(enabled=dict(_TEXT_RULES_ONLY)))
    inside = [f for f in run.findings if f.path == path and f.line <= last and f.end_line >= first]
    return QuickResult(inside, list(run.errors))


@dataclass
class FocusedResult:
    """The checks' findings plus, with a model configured, the model's, all inside the selection."""

    status: str
    status_reason: str
    findings: list[Finding]
    errors: list[str]


async def focused_analysis(
    request: ReviewRequest,
    path: str,
    text: str,
    first: int,
    last: int,
    events: EventSink,
    cancel: asyncio.Event,
) -> FocusedResult:
    """Deterministic checks on the selection, then (when a model is configured and not offline) a short
    model review of the selection as if it were a fresh change. The model part never raises: whatever
    it could not do is said in the status."""
    from prscope.analysis.config import load_config
    from prscope.analysis.review import plan_model

    root = request.repo_path
    checked = await asyncio.to_thread(quick_analysis, root, path, text, first, last)
    config = request.overrides.apply(await asyncio.to_thread(load_config, root))
    env = dict(os.environ) if request.env is None else request.env
    plan = plan_model(request, config, env)
    if plan.client is None:
        return FocusedResult("offline", f"{plan.reason} (selection)", checked.findings, checked.errors)
    try:
        status, model_findings, errors = await _model_pass(
            root, path, text, first, last, plan, events, cancel
        )
    finally:
        close = getattr(plan.client, "close", None)
        if close is not None:
            await close()
    inside = [f for f in model_findings if f.path == path and f.line <= last and f.end_line >= first]
    findings = sorted([*checked.findings, *inside], key=lambda f: (f.line, -f.severity.rank, f.rule))
    reason = f"deterministic checks and {plan.description} on lines {first}-{last}"
    if status != "complete":
        reason = f"the model pass was {status}; deterministic findings are kept"
    return FocusedResult(
        "complete" if status == "complete" else "partial", reason, findings, [*checked.errors, *errors]
    )


async def _model_pass(
    root: Path,
    path: str,
    text: str,
    first: int,
    last: int,
    plan: ModelPlan,
    events: EventSink,
    cancel: asyncio.Event,
) -> tuple[str, list[Finding], list[str]]:
    from prscope.analysis.agent.review_agent import AgentReviewSettings, run_agent_review
    from prscope.analysis.agent.subagents import SubagentLimits
    from prscope.analysis.intel import CodeIndex
    from prscope.analysis.tools.registry import default_registry, make_tool_context

    assert plan.client is not None
    cs = selection_changeset(root, path, text, first, last)
    index = CodeIndex(root, source=lambda wanted: cs.read_new(wanted))
    context = await asyncio.to_thread(make_tool_context, root, changeset=cs, code_index=index)
    # A selection is small: a short leash keeps the answer quick and the cost low.
    settings = AgentReviewSettings(
        subagents=SubagentLimits(max_per_review=2), max_iterations=8, max_tool_calls=12, deadline_s=180.0
    )
    result = await run_agent_review(
        cs, plan.client, default_registry(), settings, events, cancel, tool_context=context
    )
    return result.status, list(result.findings), list(result.errors)


async def quick_and_publish(
    session: Session,
    workspace: Workspace,
    outbox: Outbox,
    run: Run,
    selection: tuple[str, str, int, int],
    text: str,
) -> dict[str, Any]:
    """Analyse lines `first..last` of the document (`uri`, repository path `relative`) as `text` holds it,
    and show the findings on the document as it is by then. Raises QuickFailedError (one line)."""
    from prscope.analysis.review import ReviewRequest
    from prscope.server.reviewing import dismissed_ids, event_sink, finish_run, publish
    from prscope.server.tracking import place

    uri, relative, first, last = selection
    settings = session.settings
    assert settings is not None
    request = ReviewRequest(
        repo_path=workspace.root, overrides=settings.overrides(), offline=settings.offline
    )
    translator = RunEventTranslator(run.run_id, f"prscope quick analysis ({relative}:{first}-{last})")
    outbox.notify(RUN_EVENT, translator.start().to_json())
    try:
        result = await focused_analysis(
            request, relative, text, first, last, event_sink(translator, outbox), run.cancel
        )
    except asyncio.CancelledError:
        run.stop(run.stop_reason or CANCELLED_BY_CLIENT)
        finish_run(outbox, translator, "cancelled", run.stop_reason)
        raise
    except Exception as err:
        log.exception("prscope quick analysis failed")
        message = f"prscope: quick analysis failed: {type(err).__name__}: {err}"
        finish_run(outbox, translator, "error", message)
        raise QuickFailedError(message) from None
    finally:
        session.end_run(run)
    finish_run(outbox, translator, "completed", result.status_reason)
    document = workspace.document_of(relative)
    hidden = await asyncio.to_thread(dismissed_ids, workspace.root) | session.hidden
    findings = [f for f in result.findings if f.id not in hidden]
    placed, unplaced = (
        place(findings, document.lines, "quick", split_lines(text)) if document else ([], findings)
    )
    session.documents.replace_quick(uri, [item.with_base(workspace.root_uri) for item in placed])
    publish(session, outbox, [uri])
    return {
        "run_id": run.run_id,
        "status": result.status,
        "status_reason": editor_words(result.status_reason, settings.commands),
        "findings": [f.model_dump(mode="json", exclude_none=True) for f in result.findings],
        "shown": len(placed),
        "not_shown": [f.id for f in unplaced],
        "errors": result.errors,
    }


class QuickFailedError(Exception):
    """The quick analysis could not run; `str(err)` is one line for the user."""
