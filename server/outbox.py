"""How one run talks to the client: notifications, progress and diagnostics (the `Outbox` the review
and the quick analysis write to)."""

from __future__ import annotations

import logging
import uuid
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

log = logging.getLogger(__name__)


class ClientOutbox:
    """The Outbox of one run: notifications, progress reports and diagnostics to this client."""

    def __init__(self, ls: LanguageServer, token: types.ProgressToken | None) -> None:
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
        document = self._ls.workspace.text_documents.get(uri)
        self._ls.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(
                uri=uri, diagnostics=diagnostics, version=document.version if document else None
            )
        )


async def begin_progress(
    ls: LanguageServer, token: types.ProgressToken | None, title: str
) -> types.ProgressToken | None:
    """The client's own token when it sent one, else a server-created one when the client supports it."""
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
