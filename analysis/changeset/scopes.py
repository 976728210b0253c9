"""Which function or class encloses a line of Python source, from `ast`, parsing no more than needed.

Small files are parsed whole. In a large file only the window around the asked line is parsed: the
top-level definition it falls in (from one `def`/`class`/decorator line at column 0 to the next), and for
a very large class the one member definition, dedented. Window boundaries come from a text scan; if one
lands inside a multi-line string the window does not parse and the answer is "unknown", never a guess.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from dataclasses import dataclass

FULL_PARSE_LINES = 600
"""Files up to this many lines are parsed whole."""
WINDOW_LINES = 400
"""A top-level definition longer than this (a big class) is narrowed to the member being asked about."""

_TOP_LEVEL_START = re.compile(r"(?:@|def\b|async\s+def\b|class\b)")
_CLASS_HEADER = re.compile(r"class\s+(\w+)")
_CONTINUATION = (")", "]", "}", "@")
_HEADER_END = re.compile(r":\s*(#.*)?$")

_STATEMENT_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")
_COMPOUND = (
    ast.If,
    ast.For,
    ast.AsyncFor,
    ast.While,
    ast.With,
    ast.AsyncWith,
    ast.Try,
    ast.TryStar,
    ast.Match,
    ast.ExceptHandler,
    ast.match_case,
)


@dataclass(frozen=True)
class Scope:
    start: int
    end: int
    label: str
    """"def Class.method" or "class Class"."""


class ScopeIndex:
    """Innermost enclosing scope label of each line, for the lines its scopes cover."""

    def __init__(self, scopes: list[Scope]) -> None:
        last = max((scope.end for scope in scopes), default=0)
        self._labels: list[str | None] = [None] * (last + 1)
        # Outer scopes are painted first, so nested ones overwrite them with the innermost label.
        for scope in sorted(scopes, key=lambda scope: (scope.start, -scope.end)):
            self._labels[scope.start : scope.end + 1] = [scope.label] * (scope.end - scope.start + 1)

    @classmethod
    def parse(
        cls, source: str, *, line_offset: int = 0, prefix: str = "", outer: list[Scope] | None = None
    ) -> ScopeIndex | None:
        """Scopes of `source`, its line 1 being line `line_offset + 1` of the file; None if unparseable."""
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
        scopes = list(outer or [])
        _collect(tree, prefix, line_offset, scopes)
        return cls(scopes)

    def label_at(self, line: int) -> str | None:
        return self._labels[line] if 0 <= line < len(self._labels) else None


def _collect(node: ast.AST, prefix: str, offset: int, out: list[Scope]) -> None:
    # Definitions only live in statement blocks, so expressions are never walked.
    for block in _STATEMENT_BLOCKS:
        for child in getattr(node, block, ()):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
                qualname = f"{prefix}{child.name}"
                kind = "class" if isinstance(child, ast.ClassDef) else "def"
                start = min([child.lineno, *(decorator.lineno for decorator in child.decorator_list)])
                end = child.end_lineno or child.lineno
                out.append(Scope(start + offset, end + offset, f"{kind} {qualname}"))
                _collect(child, f"{qualname}.", offset, out)
            elif isinstance(child, _COMPOUND):
                _collect(child, prefix, offset, out)


class SourceScopes:
    """Scope labels for lines of one source file."""

    def __init__(self, source: str) -> None:
        self._lines = source.split("\n")
        self._whole: ScopeIndex | None = None
        self._whole_parsed = False
        self._starts: list[int] | None = None
        self._windows: dict[tuple[int, int], ScopeIndex | None] = {}
        self._layouts: dict[tuple[int, int], tuple[Scope, str, int, list[int]] | None] = {}

    def labels(self, numbers: list[int]) -> list[str] | None:
        """Distinct innermost scopes of the lines, in order ("module level" lines add none); None when
        no line's surroundings could be parsed."""
        labels: list[str] = []
        known = False
        for number in numbers:
            index = self._index_for(number)
            if index is None:
                continue
            known = True
            label = index.label_at(number)
            if label is not None and label not in labels:
                labels.append(label)
        return labels if known or not numbers else None

    def _index_for(self, line: int) -> ScopeIndex | None:
        if len(self._lines) <= FULL_PARSE_LINES:
            if not self._whole_parsed:
                self._whole = ScopeIndex.parse("\n".join(self._lines))
                self._whole_parsed = True
            return self._whole
        starts = self._top_level_starts()
        position = bisect_right(starts, line) - 1
        if position < 0:
            # Module code before the first definition may still hold some (under `if`, `try`...).
            return self._window(1, starts[0]) if starts else self._window(1, len(self._lines) + 1)
        start = starts[position]
        end = starts[position + 1] if position + 1 < len(starts) else len(self._lines) + 1
        if end - start <= WINDOW_LINES or _CLASS_HEADER.match(self._header_line(start)) is None:
            return self._window(start, end)
        return self._member_window(start, end, line)

    def _top_level_starts(self) -> list[int]:
        if self._starts is None:
            self._starts = _block_starts(self._lines, "", 1, len(self._lines) + 1)
        return self._starts

    def _header_line(self, start: int) -> str:
        """The `def`/`class` line of a definition starting at `start` (skipping its decorators)."""
        for number in range(start, min(start + 50, len(self._lines) + 1)):
            text = self._lines[number - 1]
            if text.startswith(("def", "async", "class")):
                return text
        return ""

    def _window(self, start: int, end: int) -> ScopeIndex | None:
        key = (start, end)
        if key not in self._windows:
            source = "\n".join(self._lines[start - 1 : end - 1])
            self._windows[key] = ScopeIndex.parse(source, line_offset=start - 1)
        return self._windows[key]

    def _member_window(self, start: int, end: int, line: int) -> ScopeIndex | None:
        """Inside a very large class: parse only the member definition around `line`."""
        layout = self._class_layout(start, end)
        if layout is None:
            return self._window(start, end)
        class_scope, indent, body_start, members = layout
        position = bisect_right(members, line) - 1
        if line < body_start:
            return ScopeIndex([class_scope])
        if position < 0:
            # The class body before its first definition (docstring, attributes, `if TYPE_CHECKING:`).
            member_start, member_end = body_start, members[0] if members else end
        else:
            member_start = members[position]
            member_end = members[position + 1] if position + 1 < len(members) else end
        key = (member_start, member_end)
        if key not in self._windows:
            source = _dedent(self._lines[member_start - 1 : member_end - 1], indent)
            prefix = f"{class_scope.label.removeprefix('class ')}."
            self._windows[key] = (
                ScopeIndex.parse(source, line_offset=member_start - 1, prefix=prefix, outer=[class_scope])
                if source is not None
                else None
            )
        return self._windows[key]

    def _class_layout(self, start: int, end: int) -> tuple[Scope, str, int, list[int]] | None:
        """A big class's own scope, its body indentation, first body line and member starts (cached)."""
        key = (start, end)
        if key not in self._layouts:
            name = _CLASS_HEADER.match(self._header_line(start))
            body = self._class_body(start, end)
            if name is None or body is None:
                self._layouts[key] = None
            else:
                indent, body_start = body
                last = end - 1
                while last > start and not self._lines[last - 1].strip():
                    last -= 1
                scope = Scope(start, last, f"class {name.group(1)}")
                members = _block_starts(self._lines, indent, body_start, end)
                self._layouts[key] = (scope, indent, body_start, members)
        return self._layouts[key]

    def _class_body(self, start: int, end: int) -> tuple[str, int] | None:
        """The indentation and first line of a class body, after a header that may span lines."""
        in_header = False
        for number in range(start, end):
            text = self._lines[number - 1]
            if not in_header:
                in_header = text.startswith("class")
                if in_header and _HEADER_END.search(text):
                    return self._first_code_line(number + 1, end)
            elif _HEADER_END.search(text):
                return self._first_code_line(number + 1, end)
        return None

    def _first_code_line(self, first: int, end: int) -> tuple[str, int] | None:
        for number in range(first, end):
            text = self._lines[number - 1]
            stripped = text.lstrip()
            if stripped and not stripped.startswith("#"):
                indent = text[: len(text) - len(stripped)]
                return (indent, number) if indent else None
        return None


def _block_starts(lines: list[str], indent: str, first: int, end: int) -> list[int]:
    """Lines in [first, end) where a definition (with its decorators) starts at exactly `indent`."""
    starts: list[int] = []
    in_decorators = False
    width = len(indent)
    for number in range(first, end):
        text = lines[number - 1]
        if not text.startswith(indent) or len(text) <= width or text[width] in " \t#":
            continue
        body = text[width:]
        if _TOP_LEVEL_START.match(body):
            # Decorators and the definition they decorate form one start.
            if not in_decorators:
                starts.append(number)
            in_decorators = body.startswith("@")
        elif not body.startswith(_CONTINUATION):
            in_decorators = False
    return starts


def _dedent(lines: list[str], indent: str) -> str | None:
    out = []
    for text in lines:
        if text.startswith(indent):
            out.append(text[len(indent) :])
        elif text.strip():
            return None
        else:
            out.append("")
    return "\n".join(out)
