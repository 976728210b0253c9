"""What a pull request changes: files, hunks, lines, and maps between the old and new side."""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path, PurePosixPath
from typing import Literal, Protocol

from prscope.analysis.errors import RepositoryError
from pydantic import BaseModel, ConfigDict

Mode = Literal["branch", "staged", "uncommitted", "commits"]
Side = Literal["old", "new"]


class DiffSpec(BaseModel):
    """Which change to load; the edge between the command line and the ChangeSet."""

    model_config = ConfigDict(frozen=True)

    mode: Mode = "branch"
    base: str | None = None
    commits: str | None = None


class FileStatus(StrEnum):
    ADDED = "added"
    MODIFIED = "modified"
    DELETED = "deleted"
    RENAMED = "renamed"
    COPIED = "copied"
    TYPE_CHANGED = "type_changed"
    SUBMODULE = "submodule"

    @property
    def letter(self) -> str:
        return _STATUS_LETTERS[self]


_STATUS_LETTERS = {
    FileStatus.ADDED: "A",
    FileStatus.MODIFIED: "M",
    FileStatus.DELETED: "D",
    FileStatus.RENAMED: "R",
    FileStatus.COPIED: "C",
    FileStatus.TYPE_CHANGED: "T",
    FileStatus.SUBMODULE: "S",
}


@dataclass(slots=True)
class DiffLine:
    kind: Literal["+", "-", " "]
    text: str
    old_no: int | None
    new_no: int | None


@dataclass(slots=True)
class Hunk:
    old_start: int
    old_count: int
    new_start: int
    new_count: int
    section: str
    lines: list[DiffLine]
    collapsed: bool = False
    """Set by the budget: a deletion-only hunk shown as a one-line marker."""
    lines_left_out: int = 0
    """Set by the budget: lines cut from the end of this hunk to fit the token budget."""

    @property
    def added(self) -> int:
        return sum(1 for line in self.lines if line.kind == "+")

    @property
    def deleted(self) -> int:
        return sum(1 for line in self.lines if line.kind == "-")

    @property
    def is_deletion_only(self) -> bool:
        kinds = {line.kind for line in self.lines}
        return "-" in kinds and "+" not in kinds


_LANGUAGES = {
    ".py": "python",
    ".pyi": "python",
    ".pyx": "cython",
    ".js": "javascript",
    ".mjs": "javascript",
    ".cjs": "javascript",
    ".jsx": "javascript",
    ".ts": "typescript",
    ".tsx": "typescript",
    ".go": "go",
    ".rs": "rust",
    ".java": "java",
    ".kt": "kotlin",
    ".c": "c",
    ".h": "c",
    ".cc": "cpp",
    ".cpp": "cpp",
    ".hpp": "cpp",
    ".rb": "ruby",
    ".php": "php",
    ".cs": "csharp",
    ".swift": "swift",
    ".sh": "shell",
    ".bash": "shell",
    ".sql": "sql",
    ".html": "html",
    ".css": "css",
    ".md": "markdown",
    ".rst": "restructuredtext",
    ".toml": "toml",
    ".yaml": "yaml",
    ".yml": "yaml",
    ".json": "json",
    ".cfg": "ini",
    ".ini": "ini",
}


def language_for_path(path: str) -> str | None:
    return _LANGUAGES.get(PurePosixPath(path).suffix.lower())


@dataclass
class FileChange:
    path: str
    old_path: str | None
    status: FileStatus
    is_binary: bool
    language: str | None
    hunks: list[Hunk] = field(default_factory=list)
    additions: int = 0
    deletions: int = 0
    added_lines: set[int] = field(default_factory=set)
    deleted_lines: set[int] = field(default_factory=set)
    """Old-side line numbers removed."""
    old_mode: str | None = None
    new_mode: str | None = None
    old_blob: str | None = None
    """Object id on the old side (a commit id for submodules); None when absent."""
    new_blob: str | None = None
    """Object id on the new side; None when absent or when the side is the working tree."""
    is_symlink: bool = False
    too_large: bool = False
    """Larger than the diff limit: git did not diff it and it is never read into memory."""
    size: int | None = None
    unmerged: bool = False
    """A merge conflict is unresolved in the index (staged mode shows no content for it)."""
    omitted_hunks: int = 0
    """Set by the budget on the copies it returns: hunks of this file left out of the prompt."""
    _maps: _LineMaps | None = field(default=None, repr=False, compare=False)

    @property
    def display_path(self) -> str:
        if self.old_path and self.old_path != self.path:
            return f"{self.old_path} -> {self.path}"
        return self.path

    def new_to_old(self, line: int) -> int | None:
        """The old-side line a new-side line came from; None for added lines (and whole-file adds)."""
        if line < 1 or not self._has_line_map:
            return None
        return self._line_maps().map_line(line, "new")

    def old_to_new(self, line: int) -> int | None:
        """Where an old-side line is on the new side; None for deleted lines."""
        if line < 1 or not self._has_line_map:
            return None
        return self._line_maps().map_line(line, "old")

    @property
    def _has_line_map(self) -> bool:
        no_counterpart = {FileStatus.ADDED, FileStatus.DELETED, FileStatus.TYPE_CHANGED, FileStatus.SUBMODULE}
        return self.status not in no_counterpart and not self.is_binary and not self.too_large

    def _line_maps(self) -> _LineMaps:
        if self._maps is None:
            self._maps = _LineMaps.build(self.hunks)
        return self._maps

    def recount(self) -> None:
        """Derive the counts and line sets from the hunks."""
        self.additions = self.deletions = 0
        self.added_lines = set()
        self.deleted_lines = set()
        for hunk in self.hunks:
            for line in hunk.lines:
                if line.kind == "+" and line.new_no is not None:
                    self.additions += 1
                    self.added_lines.add(line.new_no)
                elif line.kind == "-" and line.old_no is not None:
                    self.deletions += 1
                    self.deleted_lines.add(line.old_no)
        self._maps = None


def _first_line_after(start: int, count: int) -> int:
    """The first line after a hunk on one side (`start` is the line before the gap when count is 0)."""
    return start + count if count > 0 else start + 1


@dataclass
class _LineMaps:
    """Inside hunks a lookup table; between hunks the offset left by the previous hunk."""

    inside: dict[Side, dict[int, int | None]]
    boundaries: dict[Side, list[int]]
    deltas: dict[Side, list[int]]

    @classmethod
    def build(cls, hunks: list[Hunk]) -> _LineMaps:
        inside: dict[Side, dict[int, int | None]] = {"new": {}, "old": {}}
        boundaries: dict[Side, list[int]] = {"new": [], "old": []}
        deltas: dict[Side, list[int]] = {"new": [], "old": []}
        for hunk in hunks:
            for line in hunk.lines:
                if line.new_no is not None:
                    inside["new"][line.new_no] = line.old_no
                if line.old_no is not None:
                    inside["old"][line.old_no] = line.new_no
            after_new = _first_line_after(hunk.new_start, hunk.new_count)
            after_old = _first_line_after(hunk.old_start, hunk.old_count)
            boundaries["new"].append(after_new)
            deltas["new"].append(after_old - after_new)
            boundaries["old"].append(after_old)
            deltas["old"].append(after_new - after_old)
        return cls(inside, boundaries, deltas)

    def map_line(self, line: int, side: Side) -> int | None:
        table = self.inside[side]
        if line in table:
            return table[line]
        index = bisect_right(self.boundaries[side], line) - 1
        return line + (self.deltas[side][index] if index >= 0 else 0)


@dataclass(frozen=True)
class TreeFile:
    path: str
    """Repository-relative, `/`-separated."""
    is_symlink: bool = False
    link_target: str | None = None
    """For a symbolic link: the repository path it points at, None when it leaves the repository."""


Lister = Callable[[Side], list[TreeFile] | None]
"""Every file on one side of the change (None when that side cannot be listed)."""


class SideReader(Protocol):
    """Reads a file's text on one side of the change (git objects, the index or the working tree)."""

    def read(self, side: Side, path: str) -> str | None: ...

    def prefetch(self, wanted: list[tuple[Side, str, str]]) -> None:
        """Warm the cache for many `(side, path, object id)` at once (one git call, not one each)."""

    def prefetch_paths(self, side: Side, paths: list[str]) -> None:
        """Warm the cache for many paths on one side at once."""

    def close(self) -> None: ...


@dataclass
class ChangeSet:
    repo_root: Path
    mode: str
    base_ref: str | None
    base_sha: str | None
    head_sha: str | None
    files: list[FileChange] = field(default_factory=list)
    reader: SideReader | None = field(default=None, repr=False, compare=False)
    lister: Lister | None = field(default=None, repr=False, compare=False)
    warnings: list[str] = field(default_factory=list)
    """What git warned about while diffing (e.g. "exhaustive rename detection was skipped...")."""
    _by_path: dict[str, FileChange] = field(default_factory=dict, repr=False, compare=False)
    _indexed: int = field(default=-1, repr=False, compare=False)
    derived: dict[object, object] = field(default_factory=dict, repr=False, compare=False)
    """Memo for data computed from this change (e.g. the renderer's scope indexes)."""

    def _index(self) -> None:
        self._by_path = {}
        self._indexed = len(self.files)
        for change in self.files:
            if change.old_path is not None:
                self._by_path.setdefault(change.old_path, change)
        for change in self.files:
            self._by_path[change.path] = change

    @property
    def additions(self) -> int:
        return sum(change.additions for change in self.files)

    @property
    def deletions(self) -> int:
        return sum(change.deletions for change in self.files)

    def get(self, path: str) -> FileChange | None:
        """The change to `path` (its new path, or the old path of a rename or deletion)."""
        if self._indexed != len(self.files):
            self._index()
        return self._by_path.get(path)

    def read_new(self, path: str) -> str | None:
        """Head-side text (commit, index or working tree per mode); None if absent, binary or too large."""
        change = self.get(path)
        if change is not None and change.path == path:
            if change.status is FileStatus.DELETED or change.is_binary or change.too_large:
                return None
        elif change is not None and change.status in (FileStatus.DELETED, FileStatus.RENAMED):
            return None
        return self.reader.read("new", path) if self.reader else None

    def read_old(self, path: str) -> str | None:
        """Base-side text of `path` (for a renamed file, its text under the old name)."""
        change = self.get(path)
        old_path = path
        if change is not None and change.path == path:
            if change.status is FileStatus.ADDED or change.is_binary or change.too_large:
                return None
            old_path = change.old_path or path
        return self.reader.read("old", old_path) if self.reader else None

    def list_files(self, side: Side = "new") -> list[TreeFile] | None:
        """Every file on one side as the reviewed revision has it (not the checkout's files, which may
        be another commit's); None when this change set cannot list them."""
        key = ("list_files", side)
        if key not in self.derived:
            try:
                self.derived[key] = self.lister(side) if self.lister is not None else None
            except (RepositoryError, OSError):  # git failed: the caller lists the files another way
                self.derived[key] = None
        listed = self.derived[key]
        return listed if isinstance(listed, list) else None

    def prefetch(
        self, changes: list[FileChange] | None = None, sides: tuple[Side, ...] = ("new", "old")
    ) -> None:
        """Read many changed files in one git call, ahead of `read_new`/`read_old`."""
        if self.reader is None:
            return
        wanted: list[tuple[Side, str, str]] = []
        for change in self.files if changes is None else changes:
            if change.is_binary or change.too_large or change.status is FileStatus.SUBMODULE:
                continue
            if "new" in sides and change.new_blob and change.status is not FileStatus.DELETED:
                wanted.append(("new", change.path, change.new_blob))
            if "old" in sides and change.old_blob and change.status is not FileStatus.ADDED:
                wanted.append(("old", change.old_path or change.path, change.old_blob))
        self.reader.prefetch(wanted)

    def prefetch_paths(self, paths: Iterable[str], side: Side = "new") -> None:
        """Read many files (changed or not) in one git call, e.g. before a code index reads them all.

        A no-op for the working tree, which is read directly."""
        if self.reader is not None:
            self.reader.prefetch_paths(side, list(paths))

    def close(self) -> None:
        if self.reader is not None:
            self.reader.close()

    def __enter__(self) -> ChangeSet:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
