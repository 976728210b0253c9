"""Helpers for the language-server tests: the real server (`python -m prscope.server`, or the command in
PRSCOPE_TEST_SERVER, e.g. an installed `prscope-server`: tests/test_packaging.py runs some of these tests
against the installed wheel) over stdio, driven by pytest-lsp's client, on real git repositories."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shlex
import sys
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import from_fs_path
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.gitrepo import GitRepo

MODEL_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL")
SERVER_COMMAND = shlex.split(os.environ.get("PRSCOPE_TEST_SERVER", "")) or [
    sys.executable,
    "-m",
    "prscope.server",
]

UTIL = "def fetch(url, timeout=10):\n    return url, timeout\n"
UTIL_CHANGED = "def fetch(url, method, timeout=10):\n    return url, method, timeout\n"
APP = "from pkg.util import fetch\n\nresult = fetch('a')\n"
WORKER = "def work(x):\n    return x * 2\n"
WORKER_WITH_BREAKPOINT = "def work(x):\n    breakpoint()\n    return x * 2\n"


def stale_call_repo(root: Path) -> GitRepo:
    """main: a function and its caller; branch `feature` adds a required parameter and leaves the caller
    stale (app.py line 3), and leaves a breakpoint() in worker.py (line 2)."""
    repo = GitRepo(root)
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/util.py", UTIL)
    repo.write("app.py", APP)
    repo.write("worker.py", WORKER)
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("pkg/util.py", UTIL_CHANGED)
    repo.write("worker.py", WORKER_WITH_BREAKPOINT)
    repo.commit("change fetch's signature")
    return repo


def break_store(repo: GitRepo) -> None:
    """Make the repository's run store unusable (a file that is not an SQLite database)."""
    from prscope.analysis.store import store_path

    path = store_path(repo.root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"this is not an SQLite database\n" * 64)


def uri(path: Path) -> str:
    return str(from_fs_path(str(path)))


def server_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in MODEL_VARIABLES}
    return {**env, **(extra or {})}


@dataclass
class RunEvents:
    """Every `prscope/runEvent` notification, in arrival order."""

    events: list[dict[str, Any]] = field(default_factory=list)

    def statuses(self, agent_id: str) -> list[str]:
        return [e["status"] for e in self.events if e["agent_id"] == agent_id]


def plain(value: Any) -> Any:
    """JSON as dicts and lists (pygls gives untyped results and params as namedtuples)."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


@dataclass
class Session:
    client: LanguageClient
    root: Path
    run_events: RunEvents
    versions: dict[str, int | None] = field(default_factory=dict)
    """URI -> the document version named by the last diagnostics published for it."""
    server_capabilities: types.ServerCapabilities | None = None
    restored: list[dict[str, Any]] = field(default_factory=list)
    """Every `prscope/restored` notification (server/restore.py)."""

    async def review(self, **params: Any) -> Any:
        return plain(await self.client.protocol.send_request_async("prscope/review", params))

    def diagnostics(self, relative: str) -> list[types.Diagnostic]:
        return self.diagnostics_in(self.root, relative)

    def diagnostics_in(self, folder: Path, relative: str) -> list[types.Diagnostic]:
        return list(self.client.diagnostics.get(uri(folder / relative), []))

    def version(self, relative: str) -> int | None:
        return self.versions.get(uri(self.root / relative))

    def close(self, relative: str) -> None:
        self.client.text_document_did_close(
            types.DidCloseTextDocumentParams(
                text_document=types.TextDocumentIdentifier(uri=uri(self.root / relative))
            )
        )

    def open(self, relative: str, text: str | None = None, version: int = 1) -> str:
        """Open a document in the client (its text on disk unless given); returns its URI."""
        document = uri(self.root / relative)
        content = text if text is not None else (self.root / relative).read_text(encoding="utf-8")
        self.client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=document, language_id="python", version=version, text=content
                )
            )
        )
        return document

    def change(self, relative: str, version: int, edits: list[tuple[int, int, int, int, str]] | str) -> None:
        """Edit an open document: (start line, start character, end line, end character, new text)
        ranges, applied in order, or a whole new text (full sync)."""
        changes: list[types.TextDocumentContentChangeEvent] = (
            [types.TextDocumentContentChangeWholeDocument(text=edits)]
            if isinstance(edits, str)
            else [
                types.TextDocumentContentChangePartial(
                    range=types.Range(
                        start=types.Position(line=a, character=b), end=types.Position(line=c, character=d)
                    ),
                    text=text,
                )
                for a, b, c, d, text in edits
            ]
        )
        self.client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(
                    uri=uri(self.root / relative), version=version
                ),
                content_changes=changes,
            )
        )

    async def command(self, name: str, *arguments: Any) -> Any:
        return plain(
            await self.client.workspace_execute_command_async(
                types.ExecuteCommandParams(command=name, arguments=list(arguments))
            )
        )


def client_capabilities(encodings: list[str] | None = None) -> types.ClientCapabilities:
    """What VS Code declares (documentChanges, file creation, diagnostics `data`, progress), with the
    position encodings to offer (None: none, so UTF-16)."""
    return types.ClientCapabilities(
        general=types.GeneralClientCapabilities(position_encodings=encodings) if encodings else None,
        window=types.WindowClientCapabilities(work_done_progress=True),
        workspace=types.WorkspaceClientCapabilities(
            workspace_edit=types.WorkspaceEditClientCapabilities(
                document_changes=True,
                resource_operations=[types.ResourceOperationKind.Create],
            )
        ),
        text_document=types.TextDocumentClientCapabilities(
            publish_diagnostics=types.PublishDiagnosticsClientCapabilities(data_support=True)
        ),
    )


@contextlib.asynccontextmanager
async def lsp_session(
    root: Path,
    options: Any = None,
    env: dict[str, str] | None = None,
    more_folders: tuple[Path, ...] = (),
    capabilities: types.ClientCapabilities | None = None,
) -> AsyncIterator[Session]:
    config = ClientServerConfig(server_command=SERVER_COMMAND, server_env=server_env(env))
    client = await config.start()
    assert isinstance(client, LanguageClient)
    run_events = RunEvents()

    versions: dict[str, int | None] = {}

    @client.feature("prscope/runEvent")
    def on_run_event(params: Any) -> None:
        run_events.events.append(plain(params))

    restored: list[dict[str, Any]] = []

    @client.feature("prscope/restored")
    def on_restored(params: Any) -> None:
        restored.append(plain(params))

    # pytest-lsp keeps the diagnostics but not the document version they name; record both.
    client.protocol.fm.features.pop(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, None)

    @client.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
    def on_diagnostics(params: types.PublishDiagnosticsParams) -> None:
        client.diagnostics[params.uri] = params.diagnostics
        versions[params.uri] = params.version

    result = await client.initialize_session(
        types.InitializeParams(
            capabilities=capabilities or client_capabilities(),
            root_uri=uri(root),
            workspace_folders=[types.WorkspaceFolder(uri=uri(p), name=p.name) for p in (root, *more_folders)],
            initialization_options=options if options is not None else {"offline": True},
        )
    )
    try:
        yield Session(client, root, run_events, versions, result.capabilities, restored)
    finally:
        await client.shutdown_session()
        await client.stop()


async def eventually(check: Callable[[], bool], timeout: float = 10.0) -> bool:
    deadline = asyncio.get_running_loop().time() + timeout
    while asyncio.get_running_loop().time() < deadline:
        if check():
            return True
        await asyncio.sleep(0.05)
    return check()


def apply_edits(text: str, edits: list[types.TextEdit], encoding: str = "utf-16") -> str:
    """`text` after LSP `edits`, positions counted in `encoding` (an implementation independent of the
    server's: it slices the encoded line)."""
    lines = text.split("\n")
    codec, width = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}[encoding]

    def offset(position: types.Position) -> int:
        before = sum(len(line) + 1 for line in lines[: position.line])
        line = lines[position.line] if position.line < len(lines) else ""
        units = 0
        for index, char in enumerate(line):
            units += len(char.encode(codec)) // width
            if units > position.character:
                return before + index
        return before + len(line)

    for edit in sorted(edits, key=lambda e: offset(e.range.start), reverse=True):
        text = text[: offset(edit.range.start)] + edit.new_text + text[offset(edit.range.end) :]
    return text


def edits_of(action: types.CodeAction) -> tuple[str, list[types.TextEdit]]:
    """The one document an action edits, and its edits (from `changes` or `documentChanges`)."""
    assert action.edit is not None
    if action.edit.changes:
        ((document, edits),) = action.edit.changes.items()
        return document, list(edits)
    assert action.edit.document_changes is not None
    (change,) = [c for c in action.edit.document_changes if isinstance(c, types.TextDocumentEdit)]
    return change.text_document.uri, [e for e in change.edits if isinstance(e, types.TextEdit)]


async def code_actions(client: Any, params: types.CodeActionParams) -> list[types.CodeAction]:
    """Code actions read as CodeAction objects. lsprotocol's client-side hook takes any item with a
    `command` key for a bare Command, so a CodeAction that carries a command comes back garbled; the
    response is read untyped instead and structured here."""
    msg_id = str(uuid.uuid4())
    converter = client.protocol._converter
    future = client.protocol.send_request(types.TEXT_DOCUMENT_CODE_ACTION, params, msg_id=msg_id)
    client.protocol._result_types.pop(msg_id, None)
    raw = plain(await asyncio.wrap_future(future)) or []
    return [converter.structure(item, types.CodeAction) for item in raw]


def action_params(
    document: str, selection: types.Range, diagnostics: list[types.Diagnostic]
) -> types.CodeActionParams:
    return types.CodeActionParams(
        text_document=types.TextDocumentIdentifier(uri=document),
        range=selection,
        context=types.CodeActionContext(diagnostics=diagnostics),
    )


async def dismiss_action_for(
    session: Session, relative: str
) -> tuple[types.Diagnostic, str, types.CodeAction]:
    """The one prscope diagnostic of `relative`, the document opened for it, and its "dismiss" action."""
    (diagnostic,) = session.diagnostics(relative)
    document = session.open(relative)
    actions = await code_actions(session.client, action_params(document, diagnostic.range, [diagnostic]))
    (dismiss,) = [a for a in actions if a.title.startswith("prscope: dismiss")]
    return diagnostic, document, dismiss
