"""Handler wiring for the language server; the logic lives in the plain modules next to this one
(settings, session, tracking, documents, reviewing, diagnostics, actions, dismiss, history, events,
outbox, quick, wording).

Only pygls, lsprotocol and light modules are imported here: `initialize` is answered before the engine
is loaded (it is imported in the background once the client is initialized, and on first use).

Wire contracts (backward compatible; "+" marks what was added after the first version):
- request `prscope/review` and command `prscope.review` take `{mode?, base?, uri?, workDoneToken?}` (+
  `noCache?`: review afresh even when the run store holds a model review of this very change) and
  answer the review's summary `{run_id, status, status_reason, findings, counts, files, errors, mode,
  base, head, fail_on, blocking, published}` + `shown` (how many findings the editor shows), +
  `not_shown` (ids of findings whose lines changed since the review), + `stopped` (null, "cancelled" or
  "superseded"), + `stored_run_id` (the run's id in the run store), + `dismissed` (how many of the
  report's findings were dismissed: `findings` and `counts` leave them out, as `--format json` does).
  `$/cancelRequest` stops both the request and the command: the engine, its model requests and its
  subagents. A review superseded by a newer review of the same folder stops at once and answers
  `status: "partial", stopped: "superseded"`; a stopped review keeps the findings it had shown.
- command `prscope.cancelReview` answers `{cancelled: n}`.
- request `prscope/quickAnalysis` and command `prscope.quickAnalysis` take `{uri, range}`.
- + command `prscope.showRun` `[run_id?]` (or `{run_id?, uri?}`) answers a run as the run store holds
  it, the last review's by default (what `prscope show RUN` prints): `{run_id, status, status_reason,
  mode, base, head, started_at, cost_usd, agents: [{id, parent_id, label, status, model, tool_calls,
  tokens, cost_usd}], findings: [{id, severity, rule, path, line, title, source}], text}`; null when
  there is none. Without a usable store: the last review of this session `{run_id, status,
  status_reason, agents, findings: [], text}`. The engine records each review in the store; the
  review's `stored_run_id` names it there (null when it was not recorded, or was stopped).
- + command `prscope.dismissFinding` `{id, record?, reason?}` hides a finding for this session, and with
  `record` (the repository's URI) records the dismissal in that repository's run store; the "dismiss"
  code action runs it. Without a usable store, the code action's edit records the dismissal in the
  configuration's `dismissed` list and the command only hides.
- notification `prscope/runEvent` `{run_id, agent_id, parent_id, label, status, tool, tokens_used,
  tokens_max, depth, tool_calls, detail}`; `$/progress` begin, report and end, whose message is
  "<status>: N findings", "cancelled", "cancelled: kept N findings" or + "superseded".
- + initialization options `commands: {storeKey?, reviewAfresh?}` (titles of the client's commands that
  messages may name: server/wording.py) and `restore: {runId, uri}` (a review recorded in the run store
  whose findings to show again at start, placed on the documents as they are: server/restore.py; one
  notification `prscope/restored` `{run_id, shown, not_shown, error}` says how it went).
- diagnostics: `source: "prscope"`, `code: <rule>`, `data: {id, suggestion, confidence, origin, title}`;
  + positions count the position encoding negotiated at `initialize` (utf-8, utf-16 or utf-32), +
  `version` names the document version they were computed for, + they follow the user's edits.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from prscope.analysis import __version__
from prscope.analysis.errors import PrscopeError
from prscope.analysis.positions import as_encoding, ends_with_break, line_breaks, split_lines
from prscope.server.outbox import ClientOutbox, begin_progress
from prscope.server.session import Session
from pygls.exceptions import JsonRpcException
from pygls.lsp.server import LanguageServer
from pygls.protocol import LanguageServerProtocol
from pygls.uris import from_fs_path, to_fs_path

if TYPE_CHECKING:
    from prscope.server.reviewing import DocumentText, Workspace
    from prscope.server.settings import RestoreOptions, ServerSettings
    from prscope.server.tracking import LineChange

log = logging.getLogger(__name__)

REVIEW_COMMAND = "prscope.review"
CANCEL_COMMAND = "prscope.cancelReview"
QUICK_COMMAND = "prscope.quickAnalysis"
SHOW_RUN_COMMAND = "prscope.showRun"
DISMISS_COMMAND = "prscope.dismissFinding"
REVIEW_REQUEST = "prscope/review"
QUICK_REQUEST = "prscope/quickAnalysis"
QUICK_ANALYSIS_KIND = "source.prscope.quickAnalysis"
REQUEST_FAILED = -32803  # LSP's RequestFailed: the request was valid, the work could not be done


class RequestFailedError(JsonRpcException):
    CODE = REQUEST_FAILED


class PrscopeProtocol(LanguageServerProtocol):
    """pygls answers `$/cancelRequest` for a command at once but lets the command's coroutine run on;
    here the run the request started is stopped as well (engine, model requests, subagents)."""

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        server = self._server
        if isinstance(server, PrscopeServer):
            server.session.cancel_request(msg_id)
        super()._handle_cancel_notification(msg_id)


class PrscopeServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__("prscope", __version__, protocol_cls=PrscopeProtocol)
        self.session = Session()


class _UserErrorsLoggedOnce(logging.Filter):
    """pygls logs every failed request with a traceback at ERROR; a user error was already logged as
    one WARNING line, so its record is dropped. Real crashes keep their traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        error = record.exc_info[1] if record.exc_info else None
        return not isinstance(error, RequestFailedError)


def build_server() -> PrscopeServer:
    server = PrscopeServer()
    logging.getLogger("pygls.protocol.json_rpc").addFilter(_UserErrorsLoggedOnce())

    @server.feature(types.INITIALIZE)
    def initialize(ls: PrscopeServer, params: types.InitializeParams) -> None:
        ls.session.roots = _workspace_roots(params)
        ls.session.raw_options = params.initialization_options
        # pygls negotiated the encoding (the client's first choice of utf-8, utf-16, utf-32) and tracks
        # documents with it; every position sent must count in it too.
        ls.session.encoding = as_encoding(ls.workspace.position_encoding)

    @server.feature(types.INITIALIZED)
    def initialized(ls: PrscopeServer, params: types.InitializedParams) -> None:
        settings = _settings(ls)
        # On the event loop, not in a thread: a handler importing the same modules at the same time
        # from another thread could meet a circular import half-way and fail.
        loop = asyncio.get_running_loop()
        loop.call_soon(_load_engine)
        if settings.restore is not None:
            ls.session.restoring = loop.create_task(_restore(ls, settings.restore))

    @server.feature(types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS)
    def folders_changed(ls: PrscopeServer, params: types.DidChangeWorkspaceFoldersParams) -> None:
        removed = {_folder_path(f.uri) for f in params.event.removed}
        kept = [root for root in ls.session.roots if root not in removed]
        added = [p for p in (_folder_path(f.uri) for f in params.event.added) if p is not None]
        ls.session.roots = kept + [p for p in added if p not in kept]

    @server.feature(types.TEXT_DOCUMENT_DID_OPEN)
    def did_open(ls: PrscopeServer, params: types.DidOpenTextDocumentParams) -> None:
        _follow(ls, params.text_document.uri, None, reopened=True)

    @server.feature(types.TEXT_DOCUMENT_DID_CHANGE)
    def did_change(ls: PrscopeServer, params: types.DidChangeTextDocumentParams) -> None:
        _follow(ls, params.text_document.uri, _line_changes(params.content_changes))

    @server.feature(types.TEXT_DOCUMENT_DID_CLOSE)
    def did_close(ls: PrscopeServer, params: types.DidCloseTextDocumentParams) -> None:
        # Unsaved edits are gone: the file on disk is the document now.
        _follow(ls, params.text_document.uri, None, reopened=True)
        ls.session.snapshots.pop(params.text_document.uri, None)
        ls.session.documents.forget_lost(params.text_document.uri)

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
        return await _quick(ls, args[0] if args else None)

    @server.feature(QUICK_REQUEST)
    async def quick_request(ls: PrscopeServer, params: Any) -> dict[str, Any]:
        """Cancellable like prscope/review; takes {uri, range}."""
        return await _quick(ls, params)

    @server.command(SHOW_RUN_COMMAND)
    async def show_run(ls: PrscopeServer, *args: Any) -> dict[str, Any] | None:
        from prscope.server.history import show_run_answer
        from prscope.server.settings import parse_run_argument

        try:
            run_id, uri = parse_run_argument(args[0] if args else None)
            root = await _root_of(ls, uri)
            return await asyncio.to_thread(show_run_answer, ls.session, root, run_id)
        except PrscopeError as err:
            raise _user_error(ls, str(err)) from None

    @server.command(DISMISS_COMMAND)
    async def dismiss_command(ls: PrscopeServer, *args: Any) -> dict[str, Any]:
        from prscope.server.history import record_dismissal_for
        from prscope.server.reviewing import publish
        from prscope.server.settings import parse_dismissal

        try:
            finding_id, record, reason = parse_dismissal(args[0] if args else None)
            root = _folder_path(record) if record else None
            if root is not None:
                await asyncio.to_thread(record_dismissal_for, ls.session, root, finding_id, reason)
        except PrscopeError as err:
            raise _user_error(ls, str(err)) from None
        ls.session.hidden.add(finding_id)
        uris = ls.session.documents.hide(finding_id)
        publish(ls.session, ClientOutbox(ls, None), uris)
        return {"hidden": finding_id, "documents": len(uris), "recorded": root is not None}

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
        from prscope.server.diagnostics import filter_kinds

        uri = params.text_document.uri
        actions = _finding_actions(ls, uri, params.context.diagnostics)
        if params.range.start != params.range.end and _can_analyse(ls, uri):
            actions.append(_quick_analysis_action(uri, params.range))
        return filter_kinds(actions, params.context.only)

    return server


async def _restore(ls: PrscopeServer, options: RestoreOptions) -> None:
    from prscope.server.restore import restore_review

    try:
        outbox = ClientOutbox(ls, None)
        await restore_review(ls.session, options, lambda root: _workspace_for(ls, root), outbox)
    except Exception:  # a broken restore must not take the server down
        log.exception("prscope: restoring the last review's findings failed")


def _load_engine() -> None:
    """Import the engine ahead of the first review, once `initialize` has been answered."""
    for module in (
        "prscope.analysis.review",
        "prscope.server.reviewing",
        "prscope.server.quick",
        "prscope.server.actions",
    ):
        importlib.import_module(module)


def _settings(ls: PrscopeServer) -> ServerSettings:
    """The settings, parsed from `initializationOptions` on first use (after `initialize` is answered);
    every option that could not be used is one message naming it."""
    if ls.session.settings is None:
        from prscope.server.settings import parse_settings

        settings, messages = parse_settings(ls.session.raw_options)
        ls.session.settings = settings
        for message in messages:
            _tell(ls, message, types.MessageType.Warning)
    return ls.session.settings


def _line_changes(changes: Sequence[types.TextDocumentContentChangeEvent]) -> list[LineChange] | None:
    """The changes in lines, or None when one of them replaced the whole text."""
    from prscope.server.tracking import LineChange

    line_changes: list[LineChange] = []
    for change in changes:
        if not isinstance(change, types.TextDocumentContentChangePartial):
            return None
        line_changes.append(
            LineChange(change.range.start.line, change.range.end.line, line_breaks(change.text))
        )
    return line_changes


def _follow(ls: PrscopeServer, uri: str, changes: list[LineChange] | None, reopened: bool = False) -> None:
    """Move the document's findings with the edit just applied, and republish when that changed them."""
    if not ls.session.documents.holds(uri):
        ls.session.snapshots.pop(uri, None)  # nothing to move: no need to read the text per keystroke
        return
    document = _document_text(ls, uri)
    lines = document.lines if document is not None else []
    if ls.session.follow(uri, lines, changes, reopened=reopened):
        from prscope.server.reviewing import publish

        publish(ls.session, ClientOutbox(ls, None), [uri])


def _finding_actions(
    ls: PrscopeServer, uri: str, diagnostics: Sequence[types.Diagnostic]
) -> list[types.CodeAction]:
    from prscope.server.actions import ActionContext, finding_actions

    document = _document_text(ls, uri)
    if document is None:
        return []

    def version_of(uri: str) -> int | None:
        open_document = ls.workspace.text_documents.get(uri)
        return open_document.version if open_document else None

    context = ActionContext(
        uri=uri,
        document=document,
        shown=ls.session.documents.shown(uri),
        encoding=ls.session.encoding,
        capabilities=ls.client_capabilities,
        read=lambda path: _current_text(ls, path),
        version_of=version_of,
        store_usable=ls.session.cached_store_usable,
    )
    return finding_actions(context, diagnostics)


def _can_analyse(ls: PrscopeServer, uri: str) -> bool:
    """A quick analysis needs a file inside a git work tree (not an untitled buffer)."""
    from prscope.analysis.tools.registry import find_repo_root

    path = _folder_path(uri) if uri.startswith("file:") else None
    if path is None:
        return False
    return ls.session.cached_repo_root(path.parent, find_repo_root) is not None


async def _review(ls: PrscopeServer, raw: Any) -> dict[str, Any]:
    from prscope.server.reviewing import (
        ReviewFailedError,
        completed_outcome,
        review_and_publish,
        stopped_outcome,
    )
    from prscope.server.settings import parse_review_params

    settings = _settings(ls)
    try:
        params = parse_review_params(raw)
        workspace = await _workspace(ls, params)
    except PrscopeError as err:
        raise _user_error(ls, str(err)) from None
    run = ls.session.start_run(workspace.root, ls.protocol.msg_id)
    title = f"prscope review ({params.mode or settings.mode})"
    outbox = ClientOutbox(ls, await begin_progress(ls, params.work_done_token, title))
    outcome = "cancelled"
    try:
        answer = await review_and_publish(ls.session, params, workspace, outbox, run)
        outcome = stopped_outcome(run, answer["shown"]) if answer["stopped"] else completed_outcome(answer)
        return answer
    except asyncio.CancelledError:
        outcome = stopped_outcome(run, run.shown)
        raise
    except ReviewFailedError as err:
        outcome = str(err)
        raise _user_error(ls, str(err)) from None
    finally:
        outbox.end_progress(outcome)


async def _workspace(ls: PrscopeServer, params: Any) -> Workspace:
    from prscope.analysis.tools.registry import find_repo_root

    near = _folder_path(params.uri) if params.uri else None
    folder = ls.session.root_for(near)
    root = await asyncio.to_thread(find_repo_root, folder)
    return _workspace_for(ls, root)


async def _root_of(ls: PrscopeServer, uri: str | None) -> Path | None:
    """The repository holding `uri`; without one, that of the last review, else of the first folder
    (None when there is none)."""
    from prscope.analysis.tools.registry import find_repo_root

    if uri is None and ls.session.last_root is not None:
        return ls.session.last_root
    try:
        folder = ls.session.root_for(_folder_path(uri) if uri else None)
        return await asyncio.to_thread(find_repo_root, folder)
    except PrscopeError:
        if uri is not None:
            raise
        return None


def _workspace_for(ls: PrscopeServer, root: Path) -> Workspace:
    from prscope.server.reviewing import Workspace

    def uri_of(path: str) -> str:
        return str(from_fs_path(str(root / path)))

    def document_of(path: str) -> DocumentText | None:
        return _document_text(ls, uri_of(path))

    return Workspace(root=root, uri_of=uri_of, document_of=document_of, root_uri=uri_of("") + "/")


async def _quick(ls: PrscopeServer, raw: Any) -> dict[str, Any]:
    from prscope.analysis.tools.registry import find_repo_root
    from prscope.server.quick import QuickFailedError, quick_and_publish
    from prscope.server.settings import parse_selection

    _settings(ls)
    try:
        uri, first, last = parse_selection(raw)
        path = _folder_path(uri) if uri.startswith("file:") else None
        if path is None:
            raise PrscopeError("prscope: quick analysis works on files saved inside a git work tree")
        root = await asyncio.to_thread(find_repo_root, path)
        relative = path.relative_to(root).as_posix()
        text = ls.workspace.get_text_document(uri).source
    except (PrscopeError, ValueError, OSError) as err:
        message = str(err) if isinstance(err, PrscopeError) else f"prscope: quick analysis failed: {err}"
        raise _user_error(ls, message) from None
    run = ls.session.start_side_run(root, "quick", ls.protocol.msg_id)
    try:
        answer = await quick_and_publish(
            ls.session,
            _workspace_for(ls, root),
            ClientOutbox(ls, None),
            run,
            (uri, relative, first, last),
            text,
        )
    except QuickFailedError as err:
        _tell(ls, str(err), types.MessageType.Error)
        raise RequestFailedError(str(err)) from None
    count = len(answer["findings"])
    _tell(
        ls,
        f"prscope quick analysis ({answer['status']}): {count} finding(s) in lines {first}-{last}",
        types.MessageType.Info,
    )
    return answer


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


def _document_text(ls: PrscopeServer, uri: str) -> DocumentText | None:
    from prscope.server.reviewing import DocumentText

    try:
        document = ls.workspace.get_text_document(uri)
        source = document.source
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return DocumentText(split_lines(source), ends_with_break(source), document.version)


def _current_text(ls: PrscopeServer, path: Path) -> str | None:
    """A file's text as the user sees it: the editor's buffer when open, else the disk; None if absent."""
    uri = str(from_fs_path(str(path)))
    document = ls.workspace.text_documents.get(uri)
    if document is not None:
        return str(document.source)
    try:
        return path.read_bytes().decode("utf-8")  # line breaks as they are: edits must keep them
    except (OSError, UnicodeDecodeError):
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


def _user_error(ls: PrscopeServer, message: str) -> RequestFailedError:
    """Show a user error (something the user can act on): one line, in the editor's words, logged once
    at WARNING without a traceback. Returns the error to answer the request with."""
    from prscope.server.wording import user_error

    message = user_error(message, _settings(ls).commands)
    ls.window_show_message(types.ShowMessageParams(type=types.MessageType.Error, message=message))
    ls.window_log_message(types.LogMessageParams(type=types.MessageType.Warning, message=message))
    log.warning("%s", message)
    return RequestFailedError(message)


def _tell(ls: PrscopeServer, message: str, kind: types.MessageType) -> None:
    ls.window_show_message(types.ShowMessageParams(type=kind, message=message))
    ls.window_log_message(types.LogMessageParams(type=kind, message=message))
