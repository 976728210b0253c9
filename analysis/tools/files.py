"""Reading the repository's files: read_file, list_directory, find_files."""

from __future__ import annotations

import re
from typing import BinaryIO, ClassVar

from prscope.analysis.gittext import BINARY_SNIFF_BYTES, looks_binary
from prscope.analysis.tools.base import SyncTool, ToolArgs, ToolContext, ToolError
from prscope.analysis.tools.paging import page_note, plural, take_page
from prscope.analysis.tools.sandbox import Sandbox, list_visible_files, sandbox_for
from pydantic import Field

MAX_LINE_CHARS = 1000
SECRET_MARK = "(secret-looking file: content withheld)"


def _cut_line(text: str, limit: int = MAX_LINE_CHARS) -> str:
    if len(text) <= limit:
        return text
    return f"{text[:limit]} …[line cut: {len(text) - limit} more characters]"


def _human_size(size: int) -> str:
    if size < 1024:
        return f"{size} B"
    if size < 1024 * 1024:
        return f"{size / 1024:.1f} KB"
    return f"{size / (1024 * 1024):.1f} MB"


class ReadFileArgs(ToolArgs):
    path: str = Field(description="File path relative to the repository root, e.g. 'src/pkg/module.py'.")
    start_line: int = Field(1, ge=1, description="First line to show (1-based).")
    end_line: int | None = Field(
        None,
        ge=1,
        description="Last line to show (inclusive); omit to read as far as the output budget allows.",
    )


class ReadFileTool(SyncTool[ReadFileArgs]):
    name = "read_file"
    description = (
        "Read a text file of the repository (working tree) with line numbers, optionally a line range. "
        "Long files are shown a page at a time; the output says which start_line continues it."
    )
    args_model = ReadFileArgs
    max_lines: ClassVar[int] = 400

    def run_sync(self, args: ReadFileArgs, ctx: ToolContext) -> str:
        target = sandbox_for(ctx).resolve(args.path)
        if target.absolute.is_dir():
            raise ToolError(f"{target.rel} is a directory; use list_directory")
        if args.end_line is not None and args.end_line < args.start_line:
            raise ToolError(f"end_line {args.end_line} is before start_line {args.start_line}")
        last_wanted = args.start_line + self.max_lines - 1
        if args.end_line is not None:
            last_wanted = min(last_wanted, args.end_line)
        with target.absolute.open("rb") as handle:
            if looks_binary(handle.read(BINARY_SNIFF_BYTES)):
                size = _human_size(target.absolute.stat().st_size)
                raise ToolError(f"{target.rel} is a binary file ({size}); it is not shown")
            handle.seek(0)
            raw_lines, total = _read_window(handle, args.start_line, last_wanted)
        lines, clean = _decode_lines(raw_lines)
        note = "" if clean else " (not valid UTF-8: undecodable bytes shown as U+FFFD)"
        return self._render(target.rel, lines, total, args, note)

    def _render(self, rel: str, lines: list[str], total: int, args: ReadFileArgs, note: str) -> str:
        """`lines` are the file's lines from `args.start_line` on; `total` is the file's line count."""
        if total == 0:
            return f"{rel}: (empty file)"
        if args.start_line > total:
            raise ToolError(f"start_line {args.start_line} is past the end of {rel} ({total} lines)")
        width = len(str(args.start_line + len(lines) - 1))
        budget = self.max_output_chars - 400
        shown: list[str] = []
        used = 0
        for offset, text in enumerate(lines):
            row = f"{args.start_line + offset:>{width}}| {_cut_line(text)}"
            if shown and used + len(row) + 1 > budget:
                break
            shown.append(row)
            used += len(row) + 1
        last_shown = args.start_line + len(shown) - 1
        header = f"{rel} (lines {args.start_line}-{last_shown} of {total}){note}"
        body = "\n".join([header, *shown])
        wanted_end = min(args.end_line or total, total)
        if last_shown < wanted_end:
            body += (
                f"\n[cut at line {last_shown} to fit the output budget; call read_file with "
                f"start_line={last_shown + 1} to continue ({wanted_end - last_shown} lines left in range)]"
            )
        return body


def _read_window(handle: BinaryIO, first: int, last: int) -> tuple[list[bytes], int]:
    """Lines `first`..`last` (1-based, split on LF only, as git and editors count) and the line count."""
    window: list[bytes] = []
    total = 0
    for total, raw in enumerate(handle, start=1):
        if first <= total <= last:
            window.append(raw)
    return window, total


def _decode_lines(raw_lines: list[bytes]) -> tuple[list[str], bool]:
    clean = True
    lines = []
    for raw in raw_lines:
        raw = raw.rstrip(b"\n").rstrip(b"\r")
        try:
            lines.append(raw.decode("utf-8"))
        except UnicodeDecodeError:
            lines.append(raw.decode("utf-8", errors="replace"))
            clean = False
    return lines, clean


class ListDirectoryArgs(ToolArgs):
    path: str = Field(".", description="Directory relative to the repository root; '.' is the root.")
    max_entries: int = Field(200, ge=1, le=1000, description="Most entries to show in one call.")
    offset: int = Field(0, ge=0, description="Number of entries to skip (to page through a large directory).")


class ListDirectoryTool(SyncTool[ListDirectoryArgs]):
    name = "list_directory"
    description = (
        "List a directory of the repository: subdirectories (with how many files they hold) and files "
        "(with sizes). Shows tracked and untracked-but-not-ignored files; git-ignored files are left out."
    )
    args_model = ListDirectoryArgs

    def run_sync(self, args: ListDirectoryArgs, ctx: ToolContext) -> str:
        sandbox = sandbox_for(ctx)
        target = sandbox.resolve(args.path)
        if not target.absolute.is_dir():
            raise ToolError(f"{target.rel} is a file, not a directory; use read_file")
        files = list_visible_files(sandbox.root, target.real)
        prefix = "" if target.real == "." else target.real + "/"
        subdirs: dict[str, int] = {}
        direct: list[str] = []
        for path in files:
            rest = path[len(prefix) :]
            head, sep, _ = rest.partition("/")
            if sep:
                subdirs[head] = subdirs.get(head, 0) + 1
            else:
                direct.append(head)
        # rows are indented before paging so that the budget counts what is really printed
        entries = [f"  {name}/  ({plural(count, 'file')})" for name, count in sorted(subdirs.items())]
        entries += [f"  {self._describe_file(sandbox, prefix + name, name)}" for name in sorted(direct)]
        # a symlinked directory is listed as what it points to, under the name that was asked for
        title = "/" if target.rel == "." else target.rel + "/"
        header = (
            f"{title} ({plural(len(subdirs), 'directory', 'directories')}, {plural(len(direct), 'file')})"
        )
        if not entries:
            return f"{header}\n(empty, or only git-ignored files)"
        page = take_page(entries, args.offset, args.max_entries, self.max_output_chars - 500, "entries")
        note = page_note(page, self.name, "entries", "list a subdirectory")
        return "\n".join([header, *page.rows, *([note] if note else [])])

    @staticmethod
    def _describe_file(sandbox: Sandbox, rel: str, name: str) -> str:
        absolute = sandbox.root / rel
        if sandbox.is_withheld_secret(rel):
            return f"{name}  {SECRET_MARK}"
        if absolute.is_symlink():
            return f"{name}  (symlink)"
        try:
            return f"{name}  {_human_size(absolute.stat().st_size)}"
        except OSError:
            return f"{name}  (unreadable)"


def glob_to_regex(pattern: str) -> re.Pattern[str]:
    """Translate a glob where `*` stays within a path component and `**` crosses directories."""
    out: list[str] = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif char == "*":
            out.append("[^/]*")
            i += 1
        elif char == "?":
            out.append("[^/]")
            i += 1
        elif char == "[":
            close = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "]") else i + 1)
            if close == -1:
                out.append(re.escape(char))
                i += 1
                continue
            body = pattern[i + 1 : close]
            if body.startswith("!"):
                body = "^" + body[1:]
            out.append(f"[{body.replace(chr(92), chr(92) * 2)}]")
            i = close + 1
        else:
            out.append(re.escape(char))
            i += 1
    return re.compile("".join(out) + r"\Z")


class FindFilesArgs(ToolArgs):
    pattern: str = Field(
        description=(
            "Glob. '*' matches within one path component, '**' across directories, '?' one character, "
            "'[abc]' a set. A pattern without '/' matches file names at any depth ('*.py', 'test_*.py'); "
            "one with '/' matches the whole path from the search directory ('src/**/models/*.py')."
        )
    )
    path: str = Field(".", description="Directory to search under, relative to the repository root.")
    max_results: int = Field(200, ge=1, le=2000, description="Most paths to return in one call.")
    offset: int = Field(0, ge=0, description="Number of matching paths to skip (for paging).")


class FindFilesTool(SyncTool[FindFilesArgs]):
    name = "find_files"
    description = (
        "Find files by glob among tracked and untracked-but-not-ignored files. Returns repository-relative "
        "paths, sorted."
    )
    args_model = FindFilesArgs

    def run_sync(self, args: FindFilesArgs, ctx: ToolContext) -> str:
        sandbox = sandbox_for(ctx)
        base = sandbox.resolve(args.path)
        if not base.absolute.is_dir():
            raise ToolError(f"{base.rel} is not a directory")
        pattern = args.pattern.strip().lstrip("/") if args.pattern.strip() not in ("", "/") else ""
        if not pattern:
            raise ToolError("pattern is empty; give a glob such as '*.py' or 'src/**/test_*.py'")
        regex = glob_to_regex(pattern)
        by_name = "/" not in pattern
        prefix = "" if base.real == "." else base.real + "/"
        matches = []
        for path in list_visible_files(sandbox.root, base.real):
            subject = path.rsplit("/", 1)[-1] if by_name else path[len(prefix) :]
            if regex.match(subject):
                matches.append(path)
        return self._render(sandbox, args, matches)

    @staticmethod
    def _render(sandbox: Sandbox, args: FindFilesArgs, matches: list[str]) -> str:
        where = "" if args.path in (".", "") else f" under {args.path}"
        if not matches:
            return f"no files match {args.pattern!r}{where}"
        rows = [f"{p}  {SECRET_MARK}" if sandbox.is_withheld_secret(p) else p for p in matches]
        page = take_page(rows, args.offset, args.max_results, FindFilesTool.max_output_chars - 500, "matches")
        note = page_note(page, FindFilesTool.name, "matches", "use a narrower pattern or path")
        verb = "matches" if len(matches) == 1 else "match"
        header = f"{plural(len(matches), 'file')} {verb} {args.pattern!r}{where}"
        return "\n".join([header, *page.rows, *([note] if note else [])])
