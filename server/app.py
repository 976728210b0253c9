"""Handler wiring for the language server; review logic lives in `analysis`, translation in the plain
modules next to this one (settings, session, reviewing, diagnostics, events, quick)."""

from __future__ import annotations

import asyncio
import logging
import uuid
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.uris import from_fs_path, to_fs_path

from analysis import __version__
from analysis.errors import PrscopeError
from analysis.review import ReviewRequest
from server.diagnostics import SOURCE, diagnostics_by_path, filter_kinds, quick_fixes
from server.events import RUN_EVENT, RunEventTranslator
from server.quick import focused_analysis
from server.reviewing import ReviewFailedError, Workspace, event_sink, finish_run, review_and_publish
from server.session import Session
from server.settings import (
    ReviewParams,
    fallback_settings,
    parse_review_params,
    parse_selection,
    parse_settings,
    plain,
)

log = logging.getLogger(__name__)

REVIEW_COMMAND = "prscope.review"
CANCEL_COMMAND = "prscope.cancelReview"
QUICK_COMMAND = "prscope.quickAnalysis"
REVIEW_REQUEST = "prscope/review"
QUICK_REQUEST = "prscope/quickAnalysis"
QUICK_ANALYSIS_KIND = "source.prscope.quickAnalysis"
REQUEST_FAILED = -32803  # LSP's RequestFailed: the request was valid, the work could not be done


class RequestFailedError(JsonRpcException):
    CODE = REQUEST_FAILED


class PrscopeServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("prscope", __version__)
        self.session = Session()


class _ClientOutbox:
    """The Outbox of one review: notifications, progress reports and diagnostics to this client."""

    def __init__(self, ls: PrscopeServer, token: types.ProgressToken | None) -> None:
        self._ls = ls
        self._token = token

    def end_progress(self, message: str) -> None:
        """End the progress; later reports (a cancelled engine winding down) are dropped."""
        if self._token is not None:
            self._ls.work_done_progress.end(self._token, types.WorkDoneProgressEnd(message=message))
            self._token = None

    def notify(self, method: str, params: dict[str, Any]) -> None:
        self._ls.protocol.notify(method, params)

    def progress(self, message: str) -> None:
        if self._token is not None:
            self._ls.work_done_progress.report(self._token, types.WorkDoneProgressReport(message=message))

    def publish(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        self._ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=uri, diagnostics=diagnostics)
        )


def build_server() -> PrscopeServer:
    server = PrscopeServer()

    @server.feature(types.INITIALIZE)
    def initialize(ls: PrscopeServer, params: types.InitializeParams) -> None:
        ls.session.roots = _workspace_roots(params)
        try:
            settings, warnings = parse_settings(params.initialization_options)
        except PrscopeError as err:
            _show(ls, str(err), types.MessageType.Error)
            ls.session.settings = fallback_settings(params.initialization_options)
            return
        ls.session.settings = settings
        for warning in warnings:
            _show(ls, warning, types.MessageType.Warning)

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: PrscopeServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        removed = {_folder_path(f.uri) for f in params.event.removed}
        kept = [root for root in ls.session.roots if root not in removed]
        added = [p for p in (_folder_path(f.uri) for f in params.event.added) if p is not None]
        ls.session.roots = kept + [p for p in added if p not in kept]

    @server.feature(REVIEW_REQUEST)
    async def review_request(ls: PrscopeServer, params: Any) -> dict[str, Any]:
        """Cancellable with $/cancelRequest: pygls cancels this coroutine and the client gets
        RequestCancelled."""
        return await _review(ls, params)

    @server.command(REVIEW_COMMAND)
    async def review_command(ls: PrscopeServer, *args: Any) -> dict[str, Any]:
        return await _review(ls, list(args))

    @server.command(CANCEL_COMMAND)
    def cancel_command(ls: PrscopeServer, *args: Any) -> dict[str, int]:
        return {"cancelled": ls.session.cancel_runs()}

    @server.command(QUICK_COMMAND)
    async def quick_command(ls: PrscopeServer, *args: Any) -> dict[str, Any]:
        return await _quick(ls, plain(args[0]) if args else None)

    @server.feature(QUICK_REQUEST)
    async def quick_request(ls: PrscopeServer, params: Any) -> dict[str, Any]:
        """Cancellable like prscope/review; takes {uri, range}."""
        return await _quick(ls, plain(params))

    @server.feature(
        types.TEXT_DOCUMENT_CODE_ACTION,
        types.CodeActionOptions(
            code_action_kinds=[
                types.CodeActionKind.QuickFix,
                types.CodeActionKind.Source,
                QUICK_ANALYSIS_KIND,
            ]
        ),
    )
    def code_actions(ls: PrscopeServer, params: types.CodeActionParams) -> list[types.CodeAction]:
        uri = params.text_document.uri
        lines = _document_lines(ls, uri)
        diagnostics = [_with_data(ls, uri, d) for d in params.context.diagnostics]
        actions = quick_fixes(uri, diagnostics, lines)
        if _is_selection(params.range):
            actions.append(_quick_analysis_action(uri, params.range))
        return filter_kinds(actions, params.context.only)

    return server


async def _review(ls: PrscopeServer, raw: Any) -> dict[str, Any]:
    try:
        params = parse_review_params(raw)
        workspace = await _workspace(ls, params)
    except PrscopeError as err:
        _show(ls, str(err), types.MessageType.Error)
        raise RequestFailedError(str(err)) from None
    token = await _begin_progress(ls, params, f"prscope review ({params.mode or ls.session.settings.mode})")
    outcome = "cancelled"
    outbox = _ClientOutbox(ls, token)
    try:
        result = await review_and_publish(ls.session, params, workspace, outbox)
        outcome = _outcome_line(result)
        return result
    except ReviewFailedError as err:
        outcome = str(err)
        _show(ls, str(err), types.MessageType.Error)
        raise RequestFailedError(str(err)) from None
    finally:
        outbox.end_progress(outcome)


def _outcome_line(result: dict[str, Any]) -> str:
    count = len(result["findings"])
    return f"{result['status']}: {count} finding{'s' if count != 1 else ''}"


async def _begin_progress(ls: PrscopeServer, params: ReviewParams, title: str) -> types.ProgressToken | None:
    """The client's own token when it sent one, else a server-created one when the client supports it."""
    token: types.ProgressToken | None = params.work_done_token
    if token is None:
        window = ls.client_capabilities.window if ls.client_capabilities else None
        if not (window and window.work_done_progress):
            return None
        token = f"prscope-{uuid.uuid4()}"
        try:
            await ls.work_done_progress.create_async(token)
        except Exception:  # a client that refuses progress still gets its review
            log.warning("prscope: the client refused a progress token")
            return None
    ls.work_done_progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=False))
    return token


async def _workspace(ls: PrscopeServer, params: ReviewParams) -> Workspace:
    from analysis.tools.registry import find_repo_root

    near = _folder_path(params.uri) if params.uri else None
    folder = ls.session.root_for(near)
    root = await asyncio.to_thread(find_repo_root, folder)
    return _workspace_for(ls, root)


def _workspace_for(ls: PrscopeServer, root: Path) -> Workspace:
    def uri_of(path: str) -> str:
        return str(from_fs_path(str(root / path)))

    def lines_of(path: str) -> list[str] | None:
        return _document_lines(ls, uri_of(path))

    return Workspace(root=root, uri_of=uri_of, lines_of=lines_of, root_uri=str(from_fs_path(str(root))) + "/")


async def _quick(ls: PrscopeServer, raw: Any) -> dict[str, Any]:
    try:
        uri, first, last = parse_selection(raw)
        path = _folder_path(uri)
        if path is None:
            raise PrscopeError(f"prscope: {uri} is not a file")
        from analysis.tools.registry import find_repo_root

        root = await asyncio.to_thread(find_repo_root, path)
        relative = path.relative_to(root).as_posix()
        text = ls.workspace.get_text_document(uri).source
    except (PrscopeError, ValueError, OSError) as err:
        message = str(err) if isinstance(err, PrscopeError) else f"prscope: quick analysis failed: {err}"
        _show(ls, message, types.MessageType.Error)
        raise RequestFailedError(message) from None
    settings = ls.session.settings
    request = ReviewRequest(repo_path=root, overrides=settings.overrides(), offline=settings.offline)
    run = ls.session.start_side_run(root, "quick")
    outbox = _ClientOutbox(ls, None)
    translator = RunEventTranslator(run.run_id, f"prscope quick analysis ({relative}:{first}-{last})")
    outbox.notify(RUN_EVENT, translator.start().to_json())
    try:
        result = await focused_analysis(
            request, relative, text, first, last, event_sink(translator, outbox), run.cancel
        )
    except asyncio.CancelledError:
        run.cancel.set()
        finish_run(outbox, translator, "cancelled", "cancelled by the client")
        raise
    except Exception as err:
        log.exception("prscope quick analysis failed")
        message = f"prscope: quick analysis failed: {type(err).__name__}: {err}"
        finish_run(outbox, translator, "error", message)
        _show(ls, message, types.MessageType.Error)
        raise RequestFailedError(message) from None
    finally:
        ls.session.end_run(run)
    finish_run(outbox, translator, "completed", result.status_reason)
    workspace = _workspace_for(ls, root)
    diagnostics = diagnostics_by_path(result.findings, workspace.lines_of, workspace.uri_of).get(relative, [])
    ls.session.replace_quick(uri, diagnostics)
    outbox.publish(uri, ls.session.diagnostics_for(uri))
    count = len(result.findings)
    _show(
        ls,
        f"prscope quick analysis ({result.status}): {count} finding(s) in lines {first}-{last}",
        types.MessageType.Info,
    )
    return {
        "run_id": run.run_id,
        "status": result.status,
        "status_reason": result.status_reason,
        "findings": [f.model_dump(mode="json", exclude_none=True) for f in result.findings],
        "errors": result.errors,
    }


def _quick_analysis_action(uri: str, selection: types.Range) -> types.CodeAction:
    argument = {
        "uri": uri,
        "range": {
            "start": {"line": selection.start.line, "character": selection.start.character},
            "end": {"line": selection.end.line, "character": selection.end.character},
        },
    }
    return types.CodeAction(
        title="prscope: quick analysis",
        kind=QUICK_ANALYSIS_KIND,
        command=types.Command(title="prscope: quick analysis", command=QUICK_COMMAND, arguments=[argument]),
    )


def _is_selection(selection: types.Range) -> bool:
    return selection.start != selection.end


def _with_data(ls: PrscopeServer, uri: str, diagnostic: types.Diagnostic) -> types.Diagnostic:
    """The diagnostic with its `data`, from what was published when the client did not send it back."""
    if diagnostic.source != SOURCE or diagnostic.data is not None:
        return diagnostic
    for known in ls.session.diagnostics_for(uri):
        if (known.range, known.code, known.message) == (
            diagnostic.range,
            diagnostic.code,
            diagnostic.message,
        ):
            return known
    return diagnostic


def _document_lines(ls: PrscopeServer, uri: str) -> list[str] | None:
    try:
        document = ls.workspace.get_text_document(uri)
        return document.source.splitlines()
    except (OSError, UnicodeDecodeError, ValueError):
        return None


def _folder_path(uri: str | None) -> Path | None:
    if not uri:
        return None
    path = to_fs_path(uri)
    return Path(path) if path else None


def _workspace_roots(params: types.InitializeParams) -> list[Path]:
    folders = [p for p in (_folder_path(f.uri) for f in params.workspace_folders or []) if p is not None]
    if folders:
        return folders
    root = _folder_path(params.root_uri) if params.root_uri else None
    if root is None and params.root_path:
        root = Path(params.root_path)
    return [root] if root is not None else []


def _show(ls: PrscopeServer, message: str, kind: types.MessageType) -> None:
    ls.window_show_message(types.ShowMessageParams(type=kind, message=message))
    ls.window_log_message(types.LogMessageParams(type=kind, message=message))
