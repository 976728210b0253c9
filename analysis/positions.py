"""The one place where line and column conventions are converted.

prscope's own convention (`Finding`, `Reference`): lines are 1-based; columns are 1-based counts of
Unicode code points, and an end column is exclusive (the column just after the last character).
Consumers count differently: reviewdog's rdjsonl wants 1-based columns in UTF-8 bytes, LSP wants 0-based
lines and 0-based UTF-16 code units, SARIF defaults to 1-based UTF-16 units. Every conversion goes
through this module so that a non-ASCII line lands on the same character everywhere.
"""

from __future__ import annotations

from dataclasses import dataclass


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


def lsp_character(line_text: str, column: int) -> int:
    """1-based code-point column -> LSP's 0-based UTF-16 `character` offset."""
    return utf16_column(line_text, column) - 1


def column_from_utf16(line_text: str, character: int) -> int:
    """LSP's 0-based UTF-16 `character` -> 1-based code-point column (clamped to the line's end + 1)."""
    units = 0
    for index, char in enumerate(line_text):
        if units >= character:
            return index + 1
        units += 2 if ord(char) > 0xFFFF else 1
    return len(line_text) + 1


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


def whole_lines_edit(start_line: int, end_line: int, replacement: str, lines: list[str] | None) -> LineEdit:
    """Lines `start_line..end_line` (inclusive) replaced by `replacement`, line breaks included, so that
    an empty replacement deletes the lines rather than leaving them blank.

    The range runs to the start of the next line; for the file's last line (no next line to reach) it
    stops at the end of that line and the replacement loses its final break instead.
    """
    body = replacement if not replacement or replacement.endswith("\n") else replacement + "\n"
    if lines is not None and end_line >= len(lines):
        last = lines[end_line - 1] if 1 <= end_line <= len(lines) else ""
        return LineEdit(start_line, 1, end_line, len(last) + 1, body.removesuffix("\n"))
    return LineEdit(start_line, 1, end_line + 1, 1, body)


@dataclass(frozen=True)
class LspRange:
    """LSP's range: 0-based lines, 0-based UTF-16 `character` offsets, end exclusive."""

    start_line: int
    start_character: int
    end_line: int
    end_character: int


def lsp_range(span: Span, line_text: str | None, end_line_text: str | None = None) -> LspRange:
    """`span` as an LSP range. Without a column the whole line is covered (to the end of `end_line`, or
    the start of the next line when its text is unknown)."""
    start_character = lsp_character(line_text, span.column) if span.column and line_text is not None else 0
    end_text = (
        end_line_text if end_line_text is not None else (line_text if span.end_line == span.line else None)
    )
    if span.column is not None and span.end_column is not None and end_text is not None:
        return LspRange(
            to_zero_based(span.line),
            start_character,
            to_zero_based(span.end_line),
            lsp_character(end_text, span.end_column),
        )
    if end_text is not None:
        return LspRange(
            to_zero_based(span.line), start_character, to_zero_based(span.end_line), utf16_units(end_text)
        )
    return LspRange(to_zero_based(span.line), start_character, span.end_line, 0)
