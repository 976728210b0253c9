"""What the server remembers between requests: settings, workspace roots, the running review (to
supersede or cancel it) and which documents carry prscope diagnostics (to clear them)."""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass, field
from pathlib import Path

from lsprotocol import types

from analysis.errors import RepositoryError
from server.settings import ServerSettings


@dataclass
class Run:
    run_id: str
    root: Path
    cancel: asyncio.Event = field(default_factory=asyncio.Event)


@dataclass
class Session:
    settings: ServerSettings = field(default_factory=ServerSettings)
    roots: list[Path] = field(default_factory=list)
    runs: dict[str, Run] = field(default_factory=dict)
    review_diagnostics: dict[str, list[types.Diagnostic]] = field(default_factory=dict)
    """URI -> the last finished review's diagnostics."""
    quick_diagnostics: dict[str, list[types.Diagnostic]] = field(default_factory=dict)
    """URI -> the last quick analysis's diagnostics for that document."""
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

    def start_run(self, root: Path) -> Run:
        """A new run for `root`; a review still running there is superseded (told to stop)."""
        for run in self.runs.values():
            if run.root == root:
                run.cancel.set()
        run = Run(run_id=f"run-{next(self._counter)}", root=root)
        self.runs[run.run_id] = run
        return run

    def start_side_run(self, root: Path, kind: str) -> Run:
        """A run that supersedes nothing (a quick analysis), still cancellable by command."""
        run = Run(run_id=f"{kind}-{next(self._counter)}", root=root)
        self.runs[run.run_id] = run
        return run

    def end_run(self, run: Run) -> None:
        self.runs.pop(run.run_id, None)

    def cancel_runs(self) -> int:
        for run in self.runs.values():
            run.cancel.set()
        return len(self.runs)

    def replace_review(self, root_uri_prefix: str, by_uri: dict[str, list[types.Diagnostic]]) -> list[str]:
        """Store a finished review's diagnostics for the folder; returns every URI whose diagnostics
        changed, including those that no longer have any (they must be cleared)."""
        stale = [uri for uri in self.review_diagnostics if uri.startswith(root_uri_prefix)]
        for uri in stale:
            del self.review_diagnostics[uri]
        self.review_diagnostics.update(by_uri)
        return sorted(set(stale) | set(by_uri))

    def replace_quick(self, uri: str, diagnostics: list[types.Diagnostic]) -> None:
        self.quick_diagnostics[uri] = diagnostics

    def diagnostics_for(self, uri: str) -> list[types.Diagnostic]:
        return [*self.review_diagnostics.get(uri, []), *self.quick_diagnostics.get(uri, [])]
