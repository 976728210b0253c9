"""Split a source file into independently parsable units, so a query parses only what mentions its name.

Parsing dominates a cold query (about 4 s for the 16 MB of sympy files that mention `Symbol`), yet most
of a file is functions that never mention the name. A unit is a run of module-level statements, one
top-level function, or one method of a top-level class (dedented), plus each class's header. Units are
found from column-0 `def`/`class`/`@` lines; when a unit does not parse on its own (a triple-quoted
string hiding such a line, say) the whole file is parsed instead, so segmentation never changes answers.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_right
from dataclasses import dataclass, field
from itertools import accumulate
from typing import Literal

UnitKind = Literal["module", "function", "class-header", "method", "whole"]

_TOP_BOUNDARY = re.compile(r"(?:async[ \t]+def|def|class)\b|@")
_CLASS_LINE = re.compile(r"class[ \t]+([A-Za-z_]\w*)")
_DEF_LINE = re.compile(r"(?:async[ \t]+)?def[ \t]+([A-Za-z_]\w*)")
_DOCTEST_OR_COMMENT = re.compile(r"[ \t]*(?:>>>|\.\.\.|#)")
_TRIPLE_QUOTE = re.compile(r"\"\"\"|'''")
# str.splitlines also splits at these; Python's tokenizer does not, so line numbers would drift.
_EXTRA_SEPARATORS = ("\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")
_COLUMN_ZERO = re.compile(r"^[^ \t\r\n#]", re.MULTILINE)
_INDENTED_MEMBER_M = re.compile(r"^([ \t]+)(?:(async[ \t]+def|def|class)(?![\w])|(@))", re.MULTILINE)


@dataclass
class Unit:
    kind: UnitKind
    start: int  # 0-based index of the first line
    end: int  # 0-based index one past the last line
    indent: str = ""  # prefix removed from each line to parse the unit on its own
    name: str | None = None  # the function or class defined by the unit
    class_name: str | None = None  # enclosing top-level class for methods and class headers
    extra_pass: bool = False  # a class header parsed with a `pass` body appended


@dataclass
class Segmentation:
    lines: list[str]
    units: list[Unit] = field(default_factory=list)
    in_string: list[bool] = field(default_factory=list)

    def inside_string(self, line: int) -> bool:
        """Whether the 1-based line lies wholly inside a triple-quoted string (docstring prose)."""
        index = line - 1
        if not (0 <= index < len(self.in_string)) or not self.in_string[index]:
            return False
        text = self.lines[index]
        return '"""' not in text and "'''" not in text


def split_lines(text: str) -> list[str]:
    """Lines with their endings, split exactly where Python's tokenizer splits (not at form feeds)."""
    if any(separator in text for separator in _EXTRA_SEPARATORS):
        return _LINE.findall(text)
    return text.splitlines(keepends=True)


def segment(text: str) -> Segmentation:
    lines = split_lines(text)
    offsets = [0, *accumulate(map(len, lines))]
    seg = Segmentation(lines=lines)
    seg.in_string = _inside_triple_quotes(text, offsets, len(lines))
    context = _Context(text, lines, offsets, seg.in_string)
    starts = _top_level_starts(context)
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else len(lines)
        seg.units.extend(_units_of_chunk(context, start, end))
    return seg


@dataclass
class _Context:
    text: str
    lines: list[str]
    offsets: list[int]  # offsets[i]: where line i starts in text
    in_string: list[bool]

    def line_of(self, offset: int) -> int:
        return bisect_right(self.offsets, offset) - 1


def _inside_triple_quotes(text: str, offsets: list[int], count: int) -> list[bool]:
    """For each line, whether it starts inside a triple-quoted string (a cheap, usually right guess)."""
    result = [False] * count
    open_quote: str | None = None
    open_line = 0
    for match in _TRIPLE_QUOTE.finditer(text):
        quote = match.group(0)
        if open_quote is None:
            open_quote = quote
            open_line = bisect_right(offsets, match.start()) - 1
        elif quote == open_quote:
            open_quote = None
            close_line = bisect_right(offsets, match.start()) - 1
            if close_line > open_line:
                result[open_line + 1 : close_line + 1] = [True] * (close_line - open_line)
    if open_quote is not None and open_line + 1 < count:
        result[open_line + 1 :] = [True] * (count - open_line - 1)
    return result


def _top_level_starts(context: _Context) -> list[int]:
    """Start lines of top-level chunks: each def/class (with its decorators) and the statements between."""
    starts = [0]
    previous_was_decorator = False
    in_def_chunk = False
    lines, in_string = context.lines, context.in_string
    for match in _COLUMN_ZERO.finditer(context.text):
        number = context.line_of(match.start())
        if in_string[number] or context.offsets[number] != match.start():
            continue
        line = lines[number]
        first = line[:1]
        if _TOP_BOUNDARY.match(line):
            if not previous_was_decorator and number != starts[-1]:
                starts.append(number)
            previous_was_decorator = first == "@"
            in_def_chunk = True
            continue
        if first in ")]}":
            continue  # the closing bracket of a multi-line statement (`@decorator(\n    ...\n)`)
        previous_was_decorator = False
        if in_def_chunk and first not in "'\"":
            # A module-level statement after a def: start a module chunk (it may hold imports).
            if number != starts[-1]:
                starts.append(number)
            in_def_chunk = False
    return starts


def _units_of_chunk(context: _Context, start: int, end: int) -> list[Unit]:
    lines = context.lines
    head = _first_code_line(lines, start, end)
    if head is None:
        return [Unit("module", start, end)]
    head_text = lines[head]
    if not _TOP_BOUNDARY.match(head_text):
        return [Unit("module", start, end)]
    class_match = _CLASS_LINE.match(head_text)
    if class_match is not None:
        return _class_units(context, start, end, class_match.group(1))
    def_match = _DEF_LINE.match(head_text)
    return [Unit("function", start, end, name=def_match.group(1) if def_match else None)]


def _first_code_line(lines: list[str], start: int, end: int) -> int | None:
    """The chunk's first line of code after its decorators (a decorator's arguments may span lines)."""
    decorated = False
    for number in range(start, end):
        line = lines[number]
        if line[:1] == "@":
            decorated = True
            continue
        if decorated and not _TOP_BOUNDARY.match(line):
            continue  # the arguments of a multi-line decorator
        if line.strip() and not line.lstrip().startswith("#"):
            return number
    return None


def _class_units(context: _Context, start: int, end: int, class_name: str) -> list[Unit]:
    """A class chunk: its header (decorators, `class` line, class-level statements), one unit per method."""
    members: list[tuple[int, str, str]] = []  # (line, indent, keyword-or-@)
    for match in _INDENTED_MEMBER_M.finditer(context.text, context.offsets[start + 1], context.offsets[end]):
        number = context.line_of(match.start())
        if context.in_string[number] or context.offsets[number] != match.start():
            continue
        members.append((number, match.group(1), match.group(2) or "@"))
    if not members:
        return [Unit("class-header", start, end, name=class_name, class_name=class_name)]
    indent = min((m[1] for m in members), key=len)
    units: list[Unit] = []
    previous_was_decorator = False
    for number, found, keyword in members:
        if found != indent:
            continue
        if keyword == "@" and previous_was_decorator:
            continue  # a stacked decorator: the same member's (`@asyncio.coroutine` over `@abstractmethod`)
        if keyword != "@" and previous_was_decorator:
            previous_was_decorator = False
            if units and units[-1].name is None:
                units[-1].name = _member_name(context.lines[number][len(indent) :])
            continue
        units.append(
            Unit(
                "method",
                number,
                end,
                indent=indent,
                name=None if keyword == "@" else _member_name(context.lines[number][len(indent) :]),
                class_name=class_name,
            )
        )
        previous_was_decorator = keyword == "@"
    if not units:
        return [Unit("class-header", start, end, name=class_name, class_name=class_name)]
    for index in range(len(units) - 1):
        units[index].end = units[index + 1].start
    header = Unit(
        "class-header", start, units[0].start, name=class_name, class_name=class_name, extra_pass=True
    )
    return [header, *units]


def _member_name(body: str) -> str | None:
    match = _DEF_LINE.match(body)
    return match.group(1) if match else None


def unit_source(lines: list[str], unit: Unit) -> str:
    chunk = lines[unit.start : unit.end]
    if unit.indent:
        width = len(unit.indent)
        chunk = [line[width:] if line.startswith(unit.indent) else line for line in chunk]
    text = "".join(chunk)
    if unit.extra_pass:
        if not text.endswith("\n"):
            text += "\n"
        text += _body_indent(lines, unit) + "pass\n"
    return text


def _body_indent(lines: list[str], unit: Unit) -> str:
    for line in lines[unit.start + 1 : unit.end + 1]:
        stripped = line.lstrip(" \t")
        if stripped.strip() and line[:1] in (" ", "\t"):
            return line[: len(line) - len(stripped)]
    return "    "


def parse_unit(lines: list[str], unit: Unit) -> ast.Module:
    """Parse one unit; raises SyntaxError (or ValueError for NUL bytes) when it does not parse alone."""
    return ast.parse(unit_source(lines, unit))


def recover_statements(seg: Segmentation, unit: Unit) -> ast.Module | None:
    """The module-level statements of a unit that parse on their own, when the unit as a whole does not;
    positions are relative to the unit, as `parse_unit` gives them. None when none parses."""
    starts = [number for number in range(unit.start, unit.end) if _module_statement_start(seg, number)]
    body: list[ast.stmt] = []
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else unit.end
        try:
            tree = ast.parse("".join(seg.lines[start:end]))
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        ast.increment_lineno(tree, start - unit.start)
        body.extend(tree.body)
    return ast.Module(body=body, type_ignores=[]) if body else None


def _module_statement_start(seg: Segmentation, number: int) -> bool:
    line = seg.lines[number]
    first = line[:1]
    if not first or first in " \t\r\n#)]}" or seg.in_string[number]:
        return False
    return _CONTINUATION_KEYWORD.match(line) is None


def mentions(lines: list[str], unit: Unit, pattern: re.Pattern[str]) -> bool:
    """Whether the unit mentions a word outside doctest lines and comments (a safe over-approximation)."""
    for number in range(unit.start, unit.end):
        line = lines[number]
        if pattern.search(line) and not _DOCTEST_OR_COMMENT.match(line):
            return True
    return False


def column_in_file(lines: list[str], unit: Unit, unit_line: int, col: int) -> int:
    """Map a 0-based column in the dedented unit back to the file line."""
    if not unit.indent:
        return col
    line = lines[unit.start + unit_line - 1]
    return col + len(unit.indent) if line.startswith(unit.indent) else col


_SPARSE_MIN_LINES = 12  # below this, cutting costs more than it saves
_SIMPLE_STRING = re.compile(r"'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|#.*")
_CONTINUATION_KEYWORD = re.compile(r"(?:else|elif|except|finally)\b")


def sparse_source(seg: Segmentation, unit: Unit, keep: set[int]) -> str | None:
    """The unit's source with every body statement that touches none of the `keep` lines (0-based file
    lines) blanked out, so line numbers stay put and the parser sees only what matters. None when the
    unit's layout is not simple enough to cut safely."""
    lines = seg.lines
    if unit.end - unit.start < _SPARSE_MIN_LINES:
        return None
    header_end = _header_end(seg, unit)
    if header_end is None or header_end + 1 >= unit.end:
        return None
    body_indent = _statement_indent(lines, header_end + 1, unit.end)
    def_indent = len(lines[header_end]) - len(lines[header_end].lstrip(" \t"))
    if body_indent is None or len(body_indent) <= def_indent:
        return None
    starts = _body_statement_starts(seg, header_end + 1, unit.end, body_indent)
    if not starts:
        return None
    out = lines[unit.start : header_end + 1]
    out.extend("\n" for _ in range(header_end + 1, starts[0]))
    kept_any = False
    for index, start in enumerate(starts):
        end = starts[index + 1] if index + 1 < len(starts) else unit.end
        if any(start <= line < end for line in keep) or not lines[start].startswith(body_indent):
            out.extend(lines[start:end])
            kept_any = kept_any or lines[start].startswith(body_indent)
        else:
            out.extend("\n" for _ in range(start, end))
    if not kept_any:
        first = starts[0] - unit.start
        out[first] = body_indent + "pass\n"
    if unit.indent:
        width = len(unit.indent)
        out = [line[width:] if line.startswith(unit.indent) else line for line in out]
    return "".join(out)


def _header_end(seg: Segmentation, unit: Unit) -> int | None:
    """The line on which the unit's `def ...:` signature ends."""
    lines = seg.lines
    number = unit.start
    while number < unit.end and not _DEF_LINE.match(lines[number].lstrip(" \t")):
        number += 1
    depth = 0
    while number < unit.end:
        if seg.in_string[number]:
            return None
        code = _SIMPLE_STRING.sub("", lines[number])
        depth += _bracket_balance(code)
        if depth == 0 and code.rstrip().endswith(":"):
            return number
        if depth == 0 and ":" in code and not code.rstrip().endswith(":"):
            return None  # a one-line body (`def f(): return x`)
        number += 1
    return None


def _bracket_balance(code: str) -> int:
    opened = code.count("(") + code.count("[") + code.count("{")
    closed = code.count(")") + code.count("]") + code.count("}")
    return opened - closed


def _statement_indent(lines: list[str], start: int, end: int) -> str | None:
    for number in range(start, end):
        line = lines[number]
        stripped = line.lstrip(" \t")
        if stripped.strip() and not stripped.startswith("#"):
            return line[: len(line) - len(stripped)]
    return None


def _body_statement_starts(seg: Segmentation, start: int, end: int, indent: str) -> list[int]:
    """First lines of the body's statements (compound statements include their else/except parts)."""
    lines = seg.lines
    starts: list[int] = []
    depth = 0
    continued = False
    width = len(indent)
    for number in range(start, end):
        line = lines[number]
        if seg.in_string[number]:
            continue
        stripped = line.lstrip(" \t")
        if not stripped.strip() or stripped.startswith("#"):
            continue
        at_statement_level = depth == 0 and not continued
        current = len(line) - len(stripped)
        if at_statement_level and current <= width:
            if current < width or not line.startswith(indent):
                starts.append(number)  # a dedented line: kept as is by the caller
            elif stripped[:1] not in ")]}" and not _CONTINUATION_KEYWORD.match(stripped):
                starts.append(number)
        code = _SIMPLE_STRING.sub("", line) if ("'" in line or '"' in line or "#" in line) else line
        if '"""' in code or "'''" in code:
            return []  # a triple-quoted string opens mid-statement: too irregular to cut safely
        depth += _bracket_balance(code)
        if depth < 0:
            return []
        continued = code.rstrip("\r\n").endswith("\\")
    return starts


def place_in_file(tree: ast.Module, lines: list[str], start: int, indent: str) -> ast.Module:
    """Move the positions of a unit's parsed nodes to the file: lines by the unit's start, columns by
    the indentation removed from each line (byte offsets, as `ast` counts them)."""
    width = len(indent.encode("utf-8"))
    for node in ast.walk(tree):
        if not isinstance(node, ast.expr | ast.stmt | ast.arg | ast.keyword | ast.alias | ast.excepthandler):
            continue
        node.lineno += start
        node.end_lineno = (node.end_lineno or node.lineno - start) + start
        if width:
            if _indented(lines, node.lineno, indent):
                node.col_offset += width
            if node.end_col_offset is not None and _indented(lines, node.end_lineno, indent):
                node.end_col_offset += width
    return tree


def _indented(lines: list[str], line: int, indent: str) -> bool:
    return 0 < line <= len(lines) and lines[line - 1].startswith(indent)
