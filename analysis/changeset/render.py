"""Text views of a ChangeSet: the compact diff a model reads, and the terminal summary."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from prscope.analysis.changeset.model import ChangeSet, FileChange, FileStatus, Hunk, Side
from prscope.analysis.changeset.scopes import SourceScopes
from prscope.analysis.printable import one_line
from prscope.analysis.report import FilesSummary, OmittedFile

MAX_SCOPES_PER_HUNK = 3


class ScopeCache:
    """Scope indexes of one ChangeSet's sources, kept on the ChangeSet so every render shares them."""

    def __init__(self, cs: ChangeSet) -> None:
        self.cs = cs
        memo = cs.derived.setdefault(ScopeCache, {})
        assert isinstance(memo, dict)
        self._cache: dict[tuple[Side, str], SourceScopes | None] = memo

    def get(self, side: Side, path: str) -> SourceScopes | None:
        key = (side, path)
        if key not in self._cache:
            source = self.cs.read_new(path) if side == "new" else self.cs.read_old(path)
            self._cache[key] = SourceScopes(source) if source is not None else None
        return self._cache[key]


_DEFINITION_STARTS = ("def ", "async def ", "class ", "@")
_WHOLE_FILE = {FileStatus.ADDED, FileStatus.DELETED, FileStatus.TYPE_CHANGED}
"""Statuses whose one hunk is the whole file: naming every definition in it would say nothing."""


def prefetch_sources(cs: ChangeSet, changes: Sequence[FileChange]) -> None:
    """Read, in one git call per side, the sources the scope names will be computed from."""
    python = [
        change for change in changes if change.language == "python" and change.status not in _WHOLE_FILE
    ]
    cs.prefetch(python, sides=("new",))
    needs_old = [
        change
        for change in python
        if any(hunk.is_deletion_only or _removes_a_definition(hunk) for hunk in change.hunks)
    ]
    cs.prefetch(needs_old, sides=("old",))


def _removes_a_definition(hunk: Hunk) -> bool:
    return any(line.kind == "-" and line.text.lstrip().startswith(_DEFINITION_STARTS) for line in hunk.lines)


def _scope_labels(scopes: SourceScopes | None, numbers: list[int | None]) -> list[str] | None:
    """Distinct innermost scopes of the given lines, in order; None when the source could not be parsed."""
    if scopes is None:
        return None
    return scopes.labels([number for number in numbers if number is not None])


def _join_labels(labels: list[str]) -> str:
    if len(labels) > MAX_SCOPES_PER_HUNK:
        labels = [*labels[:MAX_SCOPES_PER_HUNK], f"+{len(labels) - MAX_SCOPES_PER_HUNK} more"]
    return ", ".join(labels)


def _named_already(label: str, labels: list[str]) -> bool:
    """`label` is in `labels`, or encloses one of them ("class A" encloses "def A.f")."""
    qualname = label.split(" ", 1)[-1]
    return any(other == label or other.split(" ", 1)[-1].startswith(f"{qualname}.") for other in labels)


def _hunk_scope(change: FileChange, hunk: Hunk, scopes: ScopeCache) -> str:
    """Where a hunk is: enclosing Python scopes computed from the source, else git's hunk header.

    Added lines are placed in the new source; removed lines in the old one, so a hunk that deletes a
    whole function still names it.
    """
    if change.language != "python":
        return hunk.section
    if change.status in _WHOLE_FILE:
        return ""
    removed = [line.old_no for line in hunk.lines if line.kind == "-" and line.text.strip()]
    deletion_only = hunk.is_deletion_only or change.status is FileStatus.DELETED
    old_labels: list[str] | None = []
    # Removed lines keep the scope of the lines around them unless a definition itself was removed;
    # only then is the old source worth parsing.
    if removed and (deletion_only or _removes_a_definition(hunk)):
        old_labels = _scope_labels(scopes.get("old", change.old_path or change.path), removed)
    if deletion_only:
        if old_labels is None:
            return hunk.section
        return _join_labels(old_labels) or "module level"
    added = [line.new_no for line in hunk.lines if line.kind == "+"]
    new_labels = _scope_labels(scopes.get("new", change.path), added)
    if new_labels is None:
        return hunk.section
    text = _join_labels(new_labels) or "module level"
    gone = [label for label in old_labels or [] if not _named_already(label, new_labels)]
    if gone:
        text += f"; removed from {_join_labels(gone)}"
    return text


def _status_words(change: FileChange) -> str:
    words = [change.status.value.replace("_", " ")]
    if change.is_symlink:
        words.append("symlink")
    if change.is_binary:
        words.append("binary")
    if change.too_large:
        words.append("too large to diff")
    if change.unmerged:
        words.append("unmerged")
    if change.old_mode and change.new_mode and change.old_mode != change.new_mode:
        words.append(f"mode {change.old_mode} -> {change.new_mode}")
    return ", ".join(words)


def file_header(change: FileChange) -> str:
    counts = f"+{change.additions} -{change.deletions}"
    return f"### {one_line(change.display_path)} ({_status_words(change)}) {counts}"


def render_hunk(hunk: Hunk, scope: str, width: int) -> str:
    where = f" in {scope}" if scope else ""
    if hunk.collapsed:
        count = hunk.deleted
        noun = "line" if count == 1 else "lines"
        return f"@@ -{hunk.old_start},{hunk.old_count} @@ {count} {noun} deleted{where} (collapsed)"
    out = [f"@@ -{hunk.old_start},{hunk.old_count} +{hunk.new_start},{hunk.new_count} @@{where}"]
    blank = " " * width
    for line in hunk.lines:
        if line.kind == "-":
            out.append(f"{blank}-{line.text}")
        else:
            out.append(f"{line.new_no:>{width}}{line.kind}{line.text}")
    if hunk.lines_left_out:
        out.append(truncation_marker(hunk.lines_left_out))
    return "\n".join(out)


def truncation_marker(lines_left_out: int) -> str:
    return f"[{lines_left_out} more lines of this hunk left out: token budget]"


def _line_number_width(change: FileChange) -> int:
    last = max((hunk.new_start + hunk.new_count for hunk in change.hunks), default=1)
    return len(str(last))


def unreviewable_reason(change: FileChange) -> str | None:
    """Why a file has no text to show (submodule pointer, too large, binary); None when it has."""
    if change.status is FileStatus.SUBMODULE:
        old, new = (change.old_blob or "none")[:7], (change.new_blob or "none")[:7]
        return f"submodule pointer change ({old} -> {new})"
    if change.too_large:
        size = f" ({change.size / 1_048_576:.1f} MB)" if change.size else ""
        return f"file too large to diff{size}"
    if change.is_binary:
        return "binary file"
    return None


def _special_note(change: FileChange) -> str | None:
    reason = unreviewable_reason(change)
    return None if reason is None else f"{reason}; content not shown"


def render_file_parts(
    cs: ChangeSet, change: FileChange, scopes: ScopeCache | None = None, *, scoped: bool = True
) -> list[str]:
    """The header, then one string per hunk (the budget prices each part on its own).

    `scoped=False` leaves the scope names out: a cheap lower bound of the size, with no source parsed.
    """
    parts = [file_header(change)]
    note = _special_note(change)
    if note is not None:
        parts[0] += f"\n{note}"
        return parts
    scopes = scopes or ScopeCache(cs)
    width = _line_number_width(change)
    for hunk in change.hunks:
        scope = _hunk_scope(change, hunk, scopes) if scoped else ""
        parts.append(render_hunk(hunk, scope, width))
    if change.omitted_hunks:
        parts.append(f"[{change.omitted_hunks} more hunks of this file left out: token budget]")
    return parts


def render_for_model(cs: ChangeSet, files: Sequence[FileChange] | None = None) -> str:
    """Compact diff: new-side line numbers, removed lines marked `-` with no number, scopes named.

    Line format: `<new line no><+ or space><text>` for added and context lines, `<blank>-<text>` for
    removed ones.
    """
    scopes = ScopeCache(cs)
    chosen = cs.files if files is None else files
    prefetch_sources(cs, chosen)
    blocks = ["\n".join(render_file_parts(cs, change, scopes)) for change in chosen]
    return "\n\n".join(blocks) + ("\n" if blocks else "")


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "?"


def _sides_line(cs: ChangeSet) -> str:
    base = f"{cs.base_ref} ({_short(cs.base_sha)})" if cs.base_ref else _short(cs.base_sha)
    if cs.mode == "staged":
        head = "the index (staged changes)"
    elif cs.mode == "uncommitted":
        head = "the working tree (staged, unstaged and untracked changes)"
    else:
        head = _short(cs.head_sha)
    return f"base {base} -> head {head} [{cs.mode}]"


def _summary_counts(change: FileChange) -> str:
    if change.status is FileStatus.SUBMODULE:
        return f"{_short(change.old_blob)[:7]} -> {_short(change.new_blob)[:7]}"
    if change.too_large:
        return "too large to diff"
    if change.is_binary:
        return "binary"
    return f"+{change.additions} -{change.deletions}"


def render_summary(cs: ChangeSet) -> str:
    """Plain-text summary for the terminal: one line per file, totals, and what was compared."""
    lines = [_sides_line(cs)]
    if not cs.files:
        lines.append("no changes")
        return "\n".join(lines) + "\n"
    width = max(len(change.display_path) for change in cs.files)
    for change in cs.files:
        extra = " (symlink)" if change.is_symlink else ""
        extra += " (unmerged)" if change.unmerged else ""
        counts = _summary_counts(change)
        lines.append(f"  {change.status.letter}  {one_line(change.display_path):<{width}}  {counts}{extra}")
    count = len(cs.files)
    noun = "file" if count == 1 else "files"
    lines.append(f"{count} {noun} changed, +{cs.additions} -{cs.deletions}")
    lines.extend(f"git warning: {warning}" for warning in cs.warnings)
    return "\n".join(lines) + "\n"


def files_summary(cs: ChangeSet, reviewed: Iterable[str], omitted: list[OmittedFile]) -> FilesSummary:
    return FilesSummary(changed=len(cs.files), reviewed=len(set(reviewed)), omitted=list(omitted))
