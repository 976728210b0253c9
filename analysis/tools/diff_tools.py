"""The pull request's diff on demand: list_changed_files and get_file_diff.

Both read the ChangeSet the review loaded, from `ctx.extras["changeset"]`; they never run git themselves,
so what they show is exactly the change under review.
"""

from __future__ import annotations

import posixpath
from typing import TYPE_CHECKING, Any

from prscope.analysis.tools.base import SyncTool, ToolArgs, ToolContext, ToolError
from prscope.analysis.tools.paging import page_note, take_page
from prscope.analysis.tools.sandbox import sandbox_for
from pydantic import Field

if TYPE_CHECKING:
    from prscope.analysis.changeset import ChangeSet, DiffLine, FileChange, Hunk

NO_CHANGESET = (
    "no pull-request change set is loaded in this session (from the command line, pass --base REF, "
    "--staged, --uncommitted or --commits A..B)"
)


def changeset_for(ctx: ToolContext) -> ChangeSet:
    changeset: Any = ctx.extras.get("changeset")
    if changeset is None:
        raise ToolError(NO_CHANGESET)
    return changeset  # type: ignore[no-any-return]


def _short(sha: str | None) -> str:
    return sha[:12] if sha else "?"


def describe_changeset(cs: ChangeSet) -> str:
    added = sum(f.additions for f in cs.files)
    deleted = sum(f.deletions for f in cs.files)
    base = f"base {cs.base_ref} ({_short(cs.base_sha)})" if cs.base_ref else f"base {_short(cs.base_sha)}"
    head = f"head {_short(cs.head_sha)}" if cs.head_sha else "head: working tree"
    return f"{cs.mode} change, {base} -> {head}; {len(cs.files)} files changed, +{added} -{deleted}"


def _file_row(change: FileChange) -> str:
    details = []
    if change.old_path and change.old_path != change.path:
        details.append(f"from {change.old_path}")
    if change.is_binary:
        details.append("binary")
    else:
        details.append(f"+{change.additions} -{change.deletions}")
    return f"{change.status.letter}  {change.path}  ({', '.join(details)})"


class ListChangedFilesArgs(ToolArgs):
    max_results: int = Field(300, ge=1, le=2000, description="Most files to list in one call.")
    offset: int = Field(0, ge=0, description="Number of files to skip (for paging).")


class ListChangedFilesTool(SyncTool[ListChangedFilesArgs]):
    name = "list_changed_files"
    description = (
        "List the files this pull request changes: status letter (A added, M modified, D deleted, "
        "R renamed, C copied, T type changed, S submodule), path, and lines added/removed."
    )
    args_model = ListChangedFilesArgs

    def run_sync(self, args: ListChangedFilesArgs, ctx: ToolContext) -> str:
        cs = changeset_for(ctx)
        header = describe_changeset(cs)
        if not cs.files:
            return f"{header}\n(no files changed)"
        rows = [_file_row(change) for change in cs.files]
        page = take_page(rows, args.offset, args.max_results, self.max_output_chars - 500, "files")
        note = page_note(page, self.name, "files", "use get_file_diff on the files you need")
        return "\n".join([header, *page.rows, *([note] if note else [])])


class GetFileDiffArgs(ToolArgs):
    path: str = Field(description="A changed file's path (new path, or the old path of a rename/deletion).")
    offset: int = Field(0, ge=0, description="Number of hunks to skip (to page through a long diff).")
    max_hunks: int = Field(50, ge=1, le=500, description="Most hunks to show in one call.")


class GetFileDiffTool(SyncTool[GetFileDiffArgs]):
    name = "get_file_diff"
    description = (
        "Show the pull request's diff of one file, hunk by hunk. Each line shows its old and new line "
        "numbers, then '+' (added), '-' (removed) or ' ' (context), then the text."
    )
    args_model = GetFileDiffArgs

    def run_sync(self, args: GetFileDiffArgs, ctx: ToolContext) -> str:
        cs = changeset_for(ctx)
        change = self._find(cs, args.path)
        sandbox = sandbox_for(ctx)
        # the diff text is the files' content; a symlink's diff is only its target, so names are enough
        for shown_path in {change.path, change.old_path or change.path}:
            sandbox.check_name(shown_path)
        header = f"{change.path}: {change.status.value}{self._details(change)}"
        if change.is_binary:
            return f"{header}\n(binary file: no text diff)"
        if change.too_large:
            return f"{header}\n(too large to diff: {change.size} bytes; read_file shows parts of it)"
        if not change.hunks:
            return f"{header}\n(no content changes)"
        budget = self.max_output_chars - 600
        rows = [self._render_hunk(hunk) for hunk in change.hunks]
        page = take_page(rows, args.offset, args.max_hunks, budget, "hunks")
        shown = page.rows
        if len(shown) == 1 and len(shown[0]) > budget:
            shown = [self._cut_hunk(change, page.start, budget)]
        lines = [f"{header}; {len(rows)} hunks; columns: old line, new line, +/-/space, text", *shown]
        if change.omitted_hunks:
            lines.append(f"({change.omitted_hunks} hunks were left out when the change set was loaded)")
        note = page_note(page, self.name, "hunks", "read_file the new side for a line range")
        return "\n".join([*lines, *([note] if note else [])])

    @staticmethod
    def _find(cs: ChangeSet, path: str) -> FileChange:
        wanted = posixpath.normpath(path.strip().replace("\\", "/"))
        change = cs.get(wanted)
        if change is None:
            change = next((f for f in cs.files if f.old_path == wanted), None)
        if change is None:
            raise ToolError(f"{wanted} is not changed in this pull request; list_changed_files lists them")
        return change

    @staticmethod
    def _details(change: FileChange) -> str:
        parts = []
        if change.old_path and change.old_path != change.path:
            parts.append(f"from {change.old_path}")
        if change.old_mode and change.new_mode and change.old_mode != change.new_mode:
            parts.append(f"mode {change.old_mode} -> {change.new_mode}")
        if not change.is_binary:
            parts.append(f"+{change.additions} -{change.deletions}")
        return f" ({', '.join(parts)})" if parts else ""

    @staticmethod
    def _render_hunk(hunk: Hunk) -> str:
        return "\n".join([_hunk_heading(hunk), *(_diff_row(line) for line in hunk.lines)])

    @staticmethod
    def _cut_hunk(change: FileChange, index: int, budget: int) -> str:
        """One hunk too long for the output, cut on a line, saying where the rest can be read."""
        hunk = change.hunks[index]
        rows = [_hunk_heading(hunk)]
        used = len(rows[0])
        for line in hunk.lines:
            row = _diff_row(line)
            used += len(row) + 1
            if used > budget - 300:
                break
            rows.append(row)
        shown = len(rows) - 1
        resume = next((line.new_no for line in hunk.lines[shown:] if line.new_no is not None), None)
        if resume is None:
            where = "the rest of it only removes lines"
        else:
            where = f"read_file {change.path} with start_line={resume} shows the new side from there"
        if index + 1 < len(change.hunks):
            where += f"; call get_file_diff with offset={index + 1} for the next hunk"
        rows.append(
            f"[hunk {index + 1} cut after {shown} of {len(hunk.lines)} lines (output budget); {where}]"
        )
        return "\n".join(rows)


def _hunk_heading(hunk: Hunk) -> str:
    section = f" {hunk.section}" if hunk.section else ""
    return f"@@ -{hunk.old_start},{hunk.old_count} +{hunk.new_start},{hunk.new_count} @@{section}"


def _diff_row(line: DiffLine) -> str:
    old = "" if line.old_no is None else str(line.old_no)
    new = "" if line.new_no is None else str(line.new_no)
    return f"{old:>5} {new:>5} {line.kind}{line.text}"
