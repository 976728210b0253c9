"""search_text: a regular expression over the repository's tracked and untracked-not-ignored files."""

from __future__ import annotations

import re
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from prscope.analysis import gitsafe
from prscope.analysis.gittext import looks_binary, split_lines
from prscope.analysis.tools.base import SyncTool, ToolArgs, ToolContext, ToolError
from prscope.analysis.tools.files import glob_to_regex
from prscope.analysis.tools.paging import page_note, plural, take_grouped_page
from prscope.analysis.tools.sandbox import Sandbox, list_visible_files, sandbox_for
from pydantic import Field

MATCH_CAP = 2000  # matches collected per call; past this the total is reported as "more than"
LINE_CHARS = 300
MAX_SCAN_BYTES = 5 * 1024 * 1024  # the Python fallback skips files larger than this
PCRE_MISSING = ("USE_LIBPCRE", "Perl-compatible")


@dataclass(frozen=True)
class Match:
    path: str
    line: int
    text: str


class SearchTextArgs(ToolArgs):
    pattern: str = Field(
        description=(
            "Regular expression (Perl/Python syntax, e.g. r'def \\w+_handler\\('), matched line by line. "
            "Set fixed_string to search for the text literally."
        )
    )
    path: str = Field(".", description="Directory or file to search, relative to the repository root.")
    glob: str | None = Field(
        None,
        description="Only files matching this glob: '*.py' (any depth), 'tests/**/test_*.py' (from path).",
    )
    case_sensitive: bool = Field(True, description="Match case exactly (false: ignore case).")
    fixed_string: bool = Field(False, description="Treat pattern as literal text, not a regular expression.")
    context_lines: int = Field(0, ge=0, le=5, description="Lines of context to show around each match.")
    max_results: int = Field(100, ge=1, le=500, description="Most matches to show in one call.")
    offset: int = Field(0, ge=0, description="Number of matches to skip (for paging).")


class SearchTextTool(SyncTool[SearchTextArgs]):
    name = "search_text"
    description = (
        "Search the text of the repository's files (tracked and untracked-but-not-ignored; binary and "
        "secret-looking files skipped) with a regular expression. Matches are grouped by file with line "
        "numbers. For Python symbols prefer find_usages, which resolves imports."
    )
    args_model = SearchTextArgs
    timeout_s = 45.0

    def run_sync(self, args: SearchTextArgs, ctx: ToolContext) -> str:
        sandbox = sandbox_for(ctx)
        regex = self._compile(args)
        scope = sandbox.resolve(args.path)
        matches, capped = self._collect(sandbox, scope.real, args, regex)
        allowed, withheld = self._filter(sandbox, matches)
        return self._render(sandbox, args, allowed, withheld, capped)

    @staticmethod
    def _compile(args: SearchTextArgs) -> re.Pattern[str]:
        if not args.pattern:
            raise ToolError("pattern is empty")
        source = re.escape(args.pattern) if args.fixed_string else args.pattern
        try:
            return re.compile(source, 0 if args.case_sensitive else re.IGNORECASE)
        except re.error as err:
            raise ToolError(f"invalid regular expression {args.pattern!r}: {err}") from err

    def _collect(
        self, sandbox: Sandbox, scope: str, args: SearchTextArgs, regex: re.Pattern[str]
    ) -> tuple[list[Match], bool]:
        try:
            return _git_grep(sandbox.root, scope, args, self.timeout_s - 5)
        except _PcreUnavailable:
            return _python_grep(sandbox.root, scope, args, regex)

    @staticmethod
    def _filter(sandbox: Sandbox, matches: list[Match]) -> tuple[list[Match], list[str]]:
        verdicts: dict[str, bool] = {}
        allowed = []
        for match in matches:
            if match.path not in verdicts:
                verdicts[match.path] = sandbox.allows(match.path)
            if verdicts[match.path]:
                allowed.append(match)
        return allowed, sorted(p for p, ok in verdicts.items() if not ok)

    def _render(
        self,
        sandbox: Sandbox,
        args: SearchTextArgs,
        matches: list[Match],
        withheld: list[str],
        capped: bool,
    ) -> str:
        what = f"{'text' if args.fixed_string else 'pattern'} {args.pattern!r}"
        files = len({m.path for m in matches})
        count = f"more than {len(matches)} matches" if capped else plural(len(matches), "match", "matches")
        lines = [f"{count} in {plural(files, 'file')} for {what}"]
        if withheld:
            lines.append(
                f"(matches in {len(withheld)} withheld files not shown: secret-looking or outside the "
                f"repository: {', '.join(withheld[:5])}{' ...' if len(withheld) > 5 else ''})"
            )
        if not matches:
            return "\n".join(lines)
        render = _Renderer(sandbox.root, args.context_lines)
        page = take_grouped_page(
            matches,
            lambda match: match.path,
            lambda path: path,
            render,
            args.offset,
            args.max_results,
            self.max_output_chars - 800 - sum(len(line) + 1 for line in lines),
            "matches",
        )
        lines.extend(page.rows)
        note = page_note(page, self.name, "matches", "narrow the pattern, path or glob")
        if capped and not page.more:
            note = f"[stopped after {len(matches)} matches; narrow the pattern, path or glob to see the rest]"
        return "\n".join([*lines, *([note] if note else [])])


class _Renderer:
    """One match as the model reads it, with context lines read from the file when asked for."""

    def __init__(self, root: Path, context: int) -> None:
        self.root = root
        self.context = context
        self._lines: dict[str, list[str]] = {}

    def __call__(self, match: Match) -> str:
        if self.context == 0:
            return f"  {match.line}: {_cut(match.text)}"
        text = self._file_lines(match.path)
        first, last = max(1, match.line - self.context), min(len(text), match.line + self.context)
        block = [
            f"  {n}{':' if n == match.line else '-'} {_cut(text[n - 1])}" for n in range(first, last + 1)
        ]
        return "\n".join([*block, "  --"])

    def _file_lines(self, path: str) -> list[str]:
        if path not in self._lines:
            data = (self.root / path).read_bytes()
            self._lines[path] = split_lines(data.decode("utf-8", "replace"))
        return self._lines[path]


def _cut(text: str) -> str:
    text = text.rstrip("\r")
    return text if len(text) <= LINE_CHARS else text[:LINE_CHARS] + " …[cut]"


class _PcreUnavailable(Exception):
    pass


def _pathspecs(scope: str, glob: str | None) -> list[str]:
    prefix = "" if scope == "." else scope.rstrip("/") + "/"
    if glob is None:
        return [] if scope == "." else [f":(literal){scope}"]
    pattern = glob.strip().lstrip("/")
    if ".." in pattern.split("/"):
        raise ToolError(f"refused: glob {glob!r} climbs out of the search path with '..'")
    if "/" not in pattern:
        pattern = "**/" + pattern
    return [f":(glob){prefix}{pattern}"]


def _git_grep(root: Path, scope: str, args: SearchTextArgs, timeout_s: float) -> tuple[list[Match], bool]:
    flags = ["grep", "--null", "-n", "-I", "--untracked", "--no-color", "--no-textconv", "--full-name"]
    flags.append("-F" if args.fixed_string else "-P")
    if not args.case_sensitive:
        flags.append("-i")
    specs = _pathspecs(scope, args.glob)
    process = gitsafe.start_git(root, [*flags, "-e", args.pattern, "--", *specs])
    timer = threading.Timer(timeout_s, process.kill)
    timer.start()
    try:
        matches, capped = _read_matches(_lines(process))
        if capped:
            process.kill()
        _, stderr = process.communicate()
    finally:
        timer.cancel()
    if capped:
        return matches, True
    if process.returncode not in (0, 1):
        message = stderr.decode("utf-8", "replace").strip()
        if any(marker in message for marker in PCRE_MISSING):
            raise _PcreUnavailable(message)
        if process.returncode < 0:
            raise ToolError(f"search took longer than {timeout_s:g} s; narrow the pattern, path or glob")
        first = message.splitlines()[0] if message else f"exit code {process.returncode}"
        raise ToolError(f"search failed: {first}")
    return matches, False


def _lines(process: subprocess.Popen[bytes]) -> Iterator[bytes]:
    assert process.stdout is not None
    yield from process.stdout


def _read_matches(raw_lines: Iterator[bytes]) -> tuple[list[Match], bool]:
    matches: list[Match] = []
    for raw in raw_lines:
        path, _, rest = raw.partition(b"\x00")
        number, _, text = rest.partition(b"\x00")
        if not number.isdigit():
            continue
        matches.append(
            Match(path.decode("utf-8", "replace"), int(number), text.rstrip(b"\n").decode("utf-8", "replace"))
        )
        if len(matches) >= MATCH_CAP:
            return matches, True
    return matches, False


def _python_grep(
    root: Path, scope: str, args: SearchTextArgs, regex: re.Pattern[str]
) -> tuple[list[Match], bool]:
    """The same search without git's PCRE support: slower, same results."""
    name_filter = glob_to_regex(args.glob.strip().lstrip("/")) if args.glob else None
    prefix = "" if scope == "." else scope + "/"
    matches: list[Match] = []
    for path in list_visible_files(root, scope):
        if name_filter is not None:
            subject = path.rsplit("/", 1)[-1] if "/" not in (args.glob or "") else path[len(prefix) :]
            if not name_filter.match(subject):
                continue
        absolute = root / path
        if not absolute.is_file() or absolute.stat().st_size > MAX_SCAN_BYTES:
            continue
        data = absolute.read_bytes()
        if looks_binary(data):
            continue
        for number, text in enumerate(split_lines(data.decode("utf-8", "replace")), start=1):
            if regex.search(text):
                matches.append(Match(path, number, text))
                if len(matches) >= MATCH_CAP:
                    return matches, True
    return matches, False
