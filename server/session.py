"""What the server remembers between requests: settings, workspace roots, the negotiated position
encoding, the running reviews (to supersede or cancel them), the findings shown on each document, and
the last review (for `prscope.showRun`)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prscope.analysis.errors import RepositoryError
from prscope.analysis.positions import LSP_DEFAULT_ENCODING, PositionEncoding
from prscope.server.documents import DocumentFindings

if TYPE_CHECKING:
    from prscope.server.settings import ServerSettings
    from prscope.server.tracking import LineChange

SUPERSEDED = "superseded by a newer review"
CANCELLED_BY_CLIENT = "you cancelled it"
CANCELLED_BY_COMMAND = "cancelled with prscope.cancelReview"


@dataclass
class Run:
    """One review or quick analysis. `cancel` tells the engine to stop, and the front end to stop
    waiting for it; `stop_reason` says why, in words for the user."""

    run_id: str
    root: Path
    kind: str = "review"
    request_id: int | str | None = None
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    stop_reason: str = ""
    shown: int = 0
    """How many findings this run has put in the editor so far."""

    def stop(self, reason: str) -> None:
        if not self.cancel.is_set():
            self.stop_reason = reason
            self.cancel.set()

    @property
    def superseded(self) -> bool:
        return self.stop_reason == SUPERSEDED


@dataclass
class LastRun:
    """The last review as `prscope.showRun` reports it; `agents` is the run tree (report.agents when the
    review finished, what the run events said otherwise)."""

    run_id: str
    status: str
    status_reason: str
    agents: list[dict[str, Any]]


@dataclass
class Session:
    settings: ServerSettings | None = None
    raw_options: Any = None
    """`initializationOptions` as sent; parsed after `initialize` is answered."""
    roots: list[Path] = field(default_factory=list)
    encoding: PositionEncoding = LSP_DEFAULT_ENCODING
    runs: dict[str, Run] = field(default_factory=dict)
    documents: DocumentFindings = field(default_factory=DocumentFindings)
    snapshots: dict[str, list[str]] = field(default_factory=dict)
    """URI -> the document's lines as of the last change the server saw (to follow full-text changes)."""
    hidden: set[str] = field(default_factory=set)
    """Finding ids dismissed in this session (recorded in the configuration the next review reads)."""
    last_run: LastRun | None = None
    last_root: Path | None = None
    """The repository of the last review (whose store `prscope.showRun` reads)."""
    restoring: asyncio.Task[None] | None = None
    """Showing the last review's findings again at start (server/restore.py), while it runs."""
    store_usable: dict[Path, bool] = field(default_factory=dict)
    """Repository root -> whether its run store could be used when last tried."""
    _repo_roots: dict[Path, Path | None] = field(default_factory=dict)
    _counter: itertools.count[int] = field(default_factory=lambda: itertools.count(1))

    def root_for(self, uri_path: Path | None = None) -> Path:
        """The workspace folder holding `uri_path` (the first folder when None)."""
        if not self.roots:
            raise RepositoryError("prscope: no workspace folder is open; open a git repository's folder")
        if uri_path is None:
            return self.roots[0]
        for root in sorted(self.roots, key=lambda r: len(r.parts), reverse=True):
            if uri_path == root or root in uri_path.parents:
                return root
        raise RepositoryError(f"prscope: {uri_path} is not inside an open workspace folder")

    def start_run(self, root: Path, request_id: int | str | None = None) -> Run:
        """A new review of `root`; a review still running there is superseded: stopped at once."""
        for run in self.runs.values():
            if run.root == root and run.kind == "review":
                run.stop(SUPERSEDED)
        run = Run(run_id=f"run-{next(self._counter)}", root=root, request_id=request_id)
        self.last_root = root
        self.runs[run.run_id] = run
        return run

    def start_side_run(self, root: Path, kind: str, request_id: int | str | None = None) -> Run:
        """A run that supersedes nothing (a quick analysis), still cancellable."""
        run = Run(run_id=f"{kind}-{next(self._counter)}", root=root, kind=kind, request_id=request_id)
        self.runs[run.run_id] = run
        return run

    def end_run(self, run: Run) -> None:
        self.runs.pop(run.run_id, None)

    def cancel_runs(self) -> int:
        for run in self.runs.values():
            run.stop(CANCELLED_BY_COMMAND)
        return len(self.runs)

    def cancel_request(self, request_id: int | str) -> bool:
        """Stop the run a client request started (a `$/cancelRequest` for it); True when there was one."""
        found = False
        for run in self.runs.values():
            if run.request_id is not None and str(run.request_id) == str(request_id):
                run.stop(CANCELLED_BY_CLIENT)
                found = True
        return found

    def follow(
        self, uri: str, lines: list[str], changes: list[LineChange] | None, *, reopened: bool = False
    ) -> bool:
        """Move the findings of `uri` with the change that turned the document into `lines` (`changes`
        None: the whole text was replaced); `reopened`: the text may differ in any way from what was
        last seen (opened, or closed back to the file on disk). True when what it shows changed."""
        previous = self.snapshots.get(uri)
        self.snapshots[uri] = lines
        if not self.documents.holds(uri):
            return False
        from prscope.server.tracking import follow_and_keep_lost, revalidate_and_keep_lost

        if reopened or (changes is None and previous is None):
            return self.documents.follow(uri, lambda items: revalidate_and_keep_lost(items, lines))
        return self.documents.follow(
            uri, lambda items: follow_and_keep_lost(items, changes, previous or [], lines)
        )

    def cached_store_usable(self, root: Path) -> bool:
        """Whether the run store of `root` can be used, tried once (and again after it failed a write)."""
        if root not in self.store_usable:
            from prscope.server.history import store_usable

            self.store_usable[root] = store_usable(root)
        return self.store_usable[root]

    def cached_repo_root(self, folder: Path, find: Any) -> Path | None:
        """The git work tree holding `folder` (None: none), asked once per folder."""
        if folder not in self._repo_roots:
            try:
                self._repo_roots[folder] = find(folder)
            except (RepositoryError, OSError):
                self._repo_roots[folder] = None
        return self._repo_roots[folder]
