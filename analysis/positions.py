"""The one place where line and column conventions are converted.

prscope's own convention (`Finding`, `Reference`): lines are 1-based; columns are 1-based counts of
Unicode code points, and an end column is exclusive (the column just after the last character).
Consumers count differently: reviewdog's rdjsonl wants 1-based columns in UTF-8 bytes, LSP wants 0-based
lines and 0-based code units of the position encoding negotiated with the client (UTF-8, UTF-16 or
UTF-32), SARIF defaults to 1-based UTF-16 units. Every conversion goes through this module so that a
non-ASCII line lands on the same character everywhere.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

PositionEncoding = Literal["utf-8", "utf-16", "utf-32"]
LSP_DEFAULT_ENCODING: PositionEncoding = "utf-16"
"""What LSP positions count when no other encoding was negotiated (every client must support it)."""


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def split_lines(text: str) -> list[str]:
    """The lines of `text` without their breaks, as LSP and git count them: only \\n, \\r\\n and \\r
    end a line (str.splitlines also splits at form feeds and other separators, which editors do not)."""
    lines = _LINE_BREAK.split(text)
    if lines and lines[-1] == "":
        lines.pop()
    return lines


def line_breaks(text: str) -> int:
    """How many line breaks `text` holds, counted as `split_lines` counts them."""
    return len(_LINE_BREAK.findall(text))


def ends_with_break(text: str) -> bool:
    return text.endswith(("\n", "\r"))


def line_and_column(text: str, offset: int) -> tuple[int, int]:
    """The 1-based line and 1-based code-point column of code-point `offset` in `text`."""
    line, line_start = 1, 0
    for match in _LINE_BREAK.finditer(text, 0, offset):
        if match.end() > offset:
            break
        line, line_start = line + 1, match.end()
    return line, offset - line_start + 1


def to_zero_based(number: int) -> int:
    if number < 1:
        raise ValueError(f"a 1-based position must be >= 1, got {number}")
    return number - 1


def to_one_based(number: int) -> int:
    if number < 0:
        raise ValueError(f"a 0-based position must be >= 0, got {number}")
    return number + 1


def _clamped_prefix(line_text: str, column: int) -> str:
    """The characters before 1-based code-point `column`; columns past the end count as end-of-line."""
    return line_text[: max(0, column - 1)]


def utf8_column(line_text: str, column: int) -> int:
    """1-based code-point column -> 1-based UTF-8 byte column in `line_text`."""
    prefix = _clamped_prefix(line_text, column)
    overflow = max(0, column - 1 - len(line_text))
    return len(prefix.encode("utf-8")) + overflow + 1


def utf16_units(text: str) -> int:
    """How many UTF-16 code units `text` takes (characters outside the BMP take two)."""
    return sum(2 if ord(char) > 0xFFFF else 1 for char in text)


def utf16_column(line_text: str, column: int) -> int:
    """1-based code-point column -> 1-based UTF-16 code-unit column (SARIF's default)."""
    prefix = _clamped_prefix(line_text, column)
    overflow = max(0, column - 1 - len(line_text))
    return utf16_units(prefix) + overflow + 1


def as_encoding(name: object) -> PositionEncoding:
    """The position encoding an LSP `positionEncoding` value names; UTF-16 for anything else, as LSP says."""
    text = str(getattr(name, "value", name)).lower()
    return text if text in ("utf-8", "utf-32") else "utf-16"  # type: ignore[return-value]


def code_units(text: str, encoding: PositionEncoding) -> int:
    """How many code units of `encoding` `text` takes."""
    if encoding == "utf-8":
        return len(text.encode("utf-8", errors="surrogatepass"))
    if encoding == "utf-16":
        return utf16_units(text)
    return len(text)


def _units_of_char(char: str, encoding: PositionEncoding) -> int:
    if encoding == "utf-32":
        return 1
    if encoding == "utf-16":
        return 2 if ord(char) > 0xFFFF else 1
    return len(char.encode("utf-8", errors="surrogatepass"))


def lsp_character(line_text: str, column: int, encoding: PositionEncoding = LSP_DEFAULT_ENCODING) -> int:
    """1-based code-point column -> LSP's 0-based `character` offset in `encoding` code units (columns
    past the end of the line count one unit per missing character)."""
    prefix = _clamped_prefix(line_text, column)
    overflow = max(0, column - 1 - len(line_text))
    return code_units(prefix, encoding) + overflow


def column_from_lsp(line_text: str, character: int, encoding: PositionEncoding = LSP_DEFAULT_ENCODING) -> int:
    """LSP's 0-based `character` in `encoding` units -> 1-based code-point column. An offset inside a
    character (half of a surrogate pair, a middle byte) maps to that character; past the end, to the
    line's end + 1."""
    units = 0
    for index, char in enumerate(line_text):
        if units >= character:
            return index + 1
        units += _units_of_char(char, encoding)
        if units > character:
            return index + 1
    return len(line_text) + 1


def column_from_utf16(line_text: str, character: int) -> int:
    """LSP's 0-based UTF-16 `character` -> 1-based code-point column (clamped to the line's end + 1)."""
    return column_from_lsp(line_text, character, "utf-16")


def column_from_utf8(line_text: str, byte_column: int) -> int:
    """1-based UTF-8 byte column -> 1-based code-point column (a byte inside a character maps to it)."""
    consumed = 0
    for index, char in enumerate(line_text):
        if consumed >= byte_column - 1:
            return index + 1
        consumed += len(char.encode("utf-8"))
    return len(line_text) + 1


@dataclass(frozen=True)
class Span:
    """A finding's extent in prscope's convention: 1-based lines, 1-based code-point columns (end
    exclusive), columns None when unknown."""

    line: int
    end_line: int
    column: int | None = None
    end_column: int | None = None


@dataclass(frozen=True)
class ByteRange:
    """rdjsonl's range: 1-based lines and 1-based UTF-8 byte columns, end exclusive."""

    start_line: int
    start_column: int | None
    end_line: int
    end_column: int | None


def utf8_range(span: Span, line_text: str | None, end_line_text: str | None = None) -> ByteRange:
    """`span` with its columns converted to UTF-8 bytes of the lines they sit on.

    Without the line's text a column cannot be converted faithfully and is left out (reviewdog then
    marks the whole line), rather than landing on the wrong character.
    """
    end_text = (
        end_line_text if end_line_text is not None else (line_text if span.end_line == span.line else None)
    )
    start = utf8_column(line_text, span.column) if span.column is not None and line_text is not None else None
    end: int | None = None
    if span.end_column is not None and end_text is not None and start is not None:
        end = utf8_column(end_text, span.end_column)
    return ByteRange(span.line, start, span.end_line, end)


@dataclass(frozen=True)
class LineEdit:
    """A replacement of whole lines as a range: 1-based lines, 1-based code-point columns, end exclusive."""

    start_line: int
    start_column: int
    end_line: int
    end_column: int
    text: str


def whole_lines_edit(
    start_line: int,
    end_line: int,
    replacement: str,
    lines: list[str] | None,
    *,
    ends_with_break: bool = False,
) -> LineEdit:
    """Lines `start_line..end_line` (inclusive) replaced by `replacement`, line breaks included, so that
    an empty replacement deletes the lines rather than leaving them blank.

    The range runs to the start of the next line. For the file's last line it does so only when the file
    ends with a line break (`ends_with_break`: the position after it exists); otherwise there is no next
    line to reach, so it stops at the end of that line and the replacement loses its final break instead.
    """
    body = replacement if not replacement or replacement.endswith("\n") else replacement + "\n"
    if lines is not None and end_line >= len(lines) and not ends_with_break:
        last = lines[end_line - 1] if 1 <= end_line <= len(lines) else ""
        return LineEdit(start_line, 1, end_line, len(last) + 1, body.removesuffix("\n"))
    return LineEdit(start_line, 1, end_line + 1, 1, body)


@dataclass(frozen=True)
class LspRange:
    """LSP's range: 0-based lines, 0-based `character` offsets in the negotiated encoding, end exclusive."""

    start_line: int
    start_character: int
    end_line: int
    end_character: int


def lsp_range(
    span: Span,
    line_text: str | None,
    end_line_text: str | None = None,
    encoding: PositionEncoding = LSP_DEFAULT_ENCODING,
) -> LspRange:
    """`span` as an LSP range. Without a column the whole line is covered (to the end of `end_line`, or
    the start of the next line when its text is unknown)."""
    start_character = (
        lsp_character(line_text, span.column, encoding) if span.column and line_text is not None else 0
    )
    end_text = (
        end_line_text if end_line_text is not None else (line_text if span.end_line == span.line else None)
    )
    if span.column is not None and span.end_column is not None and end_text is not None:
        return LspRange(
            to_zero_based(span.line),
            start_character,
            to_zero_based(span.end_line),
            lsp_character(end_text, span.end_column, encoding),
        )
    if end_text is not None:
        return LspRange(
            to_zero_based(span.line),
            start_character,
            to_zero_based(span.end_line),
            code_units(end_text, encoding),
        )
    return LspRange(to_zero_based(span.line), start_character, span.end_line, 0)


def lsp_edit_range(edit: LineEdit, lines: list[str], encoding: PositionEncoding) -> LspRange:
    """A whole-lines edit as an LSP range over `lines` (the document's lines, without breaks)."""

    def character(line: int, column: int) -> int:
        text = lines[line - 1] if 1 <= line <= len(lines) else ""
        return lsp_character(text, column, encoding)

    return LspRange(
        to_zero_based(edit.start_line),
        character(edit.start_line, edit.start_column),
        to_zero_based(edit.end_line),
        character(edit.end_line, edit.end_column),
    )
