"""What every check shares: the change set, the code index, the files it had to skip, and finding helpers."""

from __future__ import annotations

import ast
import threading
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from prscope.analysis.changeset import ChangeSet, FileChange, FileStatus
from prscope.analysis.changeset.model import Side
from prscope.analysis.changeset.tree import link_target_in_repository
from prscope.analysis.checks.defs import ModuleDefs, collect
from prscope.analysis.checks.dependencies import declared_distributions, normalised
from prscope.analysis.deadline import Deadline, OutOfTime
from prscope.analysis.findings import Finding, Related, Severity, Suggestion
from prscope.analysis.intel.files import RepoFiles
from prscope.analysis.sourcetext import undecodable

if TYPE_CHECKING:
    from prscope.analysis.intel import CodeIndex

PYTHON_SUFFIXES = (".py", ".pyi")
_REPLACEMENT = "\ufffd"


def is_python_path(path: str) -> bool:
    """A Python file, not a template of one: a path with `{{` or `{%` in it is a project template's
    (cookiecutter-django's `{{cookiecutter.project_slug}}/config/__init__.py` holds Jinja tags), rendered
    into Python by the tool, never imported as it is."""
    return path.endswith(PYTHON_SUFFIXES) and "{{" not in path and "{%" not in path


def parse_python(text: str, path: str) -> ast.Module | None:
    """The module's AST, or None when it does not parse (syntax errors are the syntax check's business)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=path, type_comments=False)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


@dataclass
class CheckContext:
    cs: ChangeSet
    index: CodeIndex
    skipped: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    """Problems worth reporting that did not stop the checks (a time budget ran out, say)."""
    deadline: float | None = None
    """time.monotonic() after which the repository-wide checks stop and report partial results."""
    stop: threading.Event | None = None
    """Set when the review is cancelled (first Ctrl-C, a cancelled editor request): the checks stop."""
    incomplete: list[str] = field(default_factory=list)
    """Why the checks did not all finish, one short reason per check ("breaking-call: cancelled")."""
    python_version: str | None = None
    """The configured target Python ("3.8"); None: taken from the project's requires-python."""
    _new_text: dict[str, str | None] = field(default_factory=dict)
    _old_text: dict[str, str | None] = field(default_factory=dict)
    _old_files: RepoFiles | None = None
    _trees: dict[tuple[Side, str], ast.Module | None] = field(default_factory=dict)
    _declared: frozenset[str] | None = None
    _defs: dict[tuple[Side, str], ModuleDefs | None] = field(default_factory=dict)
    memo: dict[str, Any] = field(default_factory=dict)
    """What a check module works out once per review and shares between its rules, by a key it owns."""

    def changed_files(self) -> Iterator[FileChange]:
        for change in self.cs.files:
            if change.status is FileStatus.SUBMODULE:
                continue
            if change.is_binary or change.too_large:
                if change.status is not FileStatus.DELETED:
                    reason = "binary file" if change.is_binary else "too large to diff"
                    self.skip(change.path, f"{reason}: not checked")
                continue
            if change.is_symlink:
                if change.status is not FileStatus.DELETED:
                    self.skip(change.path, self._symlink_reason(change.path))
                continue
            if is_python_path(change.path) and change.status is not FileStatus.DELETED:
                self.new_text(change.path)  # an undecodable file is skipped by every check, not only some
            if change.path in self.skipped:
                continue
            yield change

    def _symlink_reason(self, path: str) -> str:
        target = link_target_in_repository(path, _safe_read(lambda: self.cs.read_new(path)))
        if target is None:
            return "symlink leaving the repository: never read"
        return f"symlink to {target}: checked as that file, not under this name"

    @property
    def limit(self) -> Deadline:
        return Deadline(self.deadline, self.stop)

    def out_of_time(self, rule: str, what: str) -> bool:
        """True once the time budget is spent or the review cancelled; notes (once per rule) that `what`
        was not examined."""
        reason = self.limit.reason()
        if reason is None:
            return False
        self.stopped(rule, reason, what)
        return True

    def stopped(self, rule: str, reason: str, what: str | None = None) -> None:
        """Record (once per rule) that `rule` stopped early, why, and what it did not examine."""
        if any(entry.startswith(f"{rule}: ") for entry in self.incomplete):
            return
        self.incomplete.append(f"{rule}: {reason}")
        left = f"; not examined: {what} and later" if what else ""
        self.notes.append(f"check {rule} stopped ({reason}): partial results{left}")

    def bounded(self, rule: str, what: str, work: Callable[[], list[Finding]]) -> list[Finding]:
        """`work()` for one symbol, stopped inside when the budget runs out (its findings are lost, the
        ones before it kept)."""
        try:
            return work()
        except OutOfTime as stop:
            self.stopped(rule, str(stop), what)
            return []

    def skip(self, path: str, reason: str) -> None:
        self.skipped.setdefault(path, reason)

    def new_text(self, path: str) -> str | None:
        if path not in self._new_text:
            text = _safe_read(lambda: self.cs.read_new(path))
            self._new_text[path] = self._checked_text("new", path, path, text)
        return self._new_text[path]

    def old_text(self, path: str) -> str | None:
        if path not in self._old_text:
            change = self.cs.get(path)
            old_path = (change.old_path if change is not None and change.path == path else None) or path
            text = _safe_read(lambda: self.cs.read_old(path))
            self._old_text[path] = self._checked_text("old", path, old_path, text)
        return self._old_text[path]

    def _checked_text(self, side: Side, path: str, stored_path: str, text: str | None) -> str | None:
        # The change set decodes with replacement characters; a real U+FFFD in the file is fine, bytes
        # that do not decode in the file's declared encoding are not what Python would read.
        if text is None or _REPLACEMENT not in text:
            return text
        read_bytes = getattr(self.cs.reader, "read_bytes", None)
        raw = read_bytes(side, stored_path) if read_bytes is not None else None
        problem = undecodable(raw, path) if isinstance(raw, bytes) else "not valid UTF-8"
        if problem is None:
            return text
        self.skip(path, f"{problem}: not checked")
        return None

    def tree(self, side: Side, path: str) -> ast.Module | None:
        """The parsed text of a changed file on one side (`old`: by the path the base had), parsed once
        for every check; None when it cannot be read or does not parse."""
        key = (side, path)
        if key not in self._trees:
            text = self.old_text(path) if side == "old" else self.new_text(path)
            self._trees[key] = parse_python(text, path) if text is not None else None
        return self._trees[key]

    def keep_tree(self, side: Side, path: str, tree: ast.Module) -> None:
        """A tree of the file's text on that side another check already parsed: `tree` gives it."""
        self._trees.setdefault((side, path), tree)

    def defs(self, side: Side, path: str) -> ModuleDefs | None:
        """What the file defines on one side (`collect` of `tree`), worked out once for every check."""
        key = (side, path)
        if key not in self._defs:
            tree = self.tree(side, path)
            text = self.old_text(path) if side == "old" else self.new_text(path)
            self._defs[key] = collect(tree, text) if tree is not None else None
        return self._defs[key]

    def old_module(self, path: str) -> str | None:
        """The dotted module name a file had at the base (a deleted file's packages may be gone now);
        None when the base side cannot be listed."""
        files = self._base_files()
        return files.module_name(path) if files is not None else None

    def old_module_path(self, module: str) -> str | None:
        """The file an import of `module` found at the base; None when none did or the base side cannot be
        listed."""
        files = self._base_files()
        return files.module_path(module) if files is not None else None

    def _base_files(self) -> RepoFiles | None:
        if self._old_files is None:
            listed = self.cs.list_files("old")
            if listed is None:
                return None
            paths = [f.path for f in listed]
            self._old_files = RepoFiles(self.cs.repo_root, source=self.cs.read_old, listing=lambda: paths)
            self._old_files.python_files()
        return self._old_files

    def provided_by_a_dependency(self, module: str) -> bool:
        """Whether `module`'s top-level name is a distribution the project declares it requires and no
        longer has a package of: the installed one provides it (a vendored copy deleted for it,
        mongoengine 894e9818)."""
        top = module.split(".")[0]
        try:
            if self.index.is_module(top) or self.index.is_package(top):
                return False  # the repository's own package of that name still comes first
        except Exception:
            return False
        if self._declared is None:
            listed = self.cs.list_files("new")
            paths = [f.path for f in listed] if listed is not None else []
            self._declared = declared_distributions(paths, self.cs.read_new)
        return normalised(top) in self._declared

    def added_lines(self, change: FileChange) -> Iterator[tuple[int, str]]:
        for hunk in change.hunks:
            for line in hunk.lines:
                if line.kind == "+" and line.new_no is not None:
                    yield line.new_no, line.text.rstrip("\r\n")

    def repo_text(self, path: str) -> str | None:
        """Head-side text of any repository file (through the index, which reads the reviewed head)."""
        try:
            return self.index.source(path)
        except Exception:
            return None


def _safe_read(read: Callable[[], str | None]) -> str | None:
    try:
        result = read()
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    return result if isinstance(result, str) else None


def unreadable_reason(change: FileChange) -> str:
    """Why a changed file's text could not be had (a more precise reason recorded first wins)."""
    if change.unmerged:
        return "unmerged (a merge conflict is in progress): not checked"
    return "unreadable: not checked"


def line_at(text: str | None, line: int) -> str:
    if text is None or line < 1:
        return ""
    lines = text.splitlines()
    return lines[line - 1] if line <= len(lines) else ""


def make_finding(
    *,
    rule: str,
    severity: Severity,
    path: str,
    line: int,
    title: str,
    message: str,
    anchor: str,
    end_line: int | None = None,
    column: int | None = None,
    end_column: int | None = None,
    confidence: float = 1.0,
    suggestion: Suggestion | None = None,
    related: list[Related] | None = None,
) -> Finding:
    finding = Finding(
        rule=rule,
        severity=severity,
        confidence=confidence,
        path=path,
        line=line,
        end_line=max(line, end_line or line),
        column=column,
        end_column=end_column if column is not None else None,
        title=title,
        message=message,
        source="check",
        suggestion=suggestion,
        related=related or [],
    )
    return finding.with_id(anchor)
