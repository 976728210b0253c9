from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from prscope.analysis.positions import (
    LspRange,
    Span,
    column_from_utf8,
    column_from_utf16,
    lsp_character,
    lsp_range,
    to_one_based,
    to_zero_based,
    utf8_column,
    utf8_range,
    utf16_column,
    whole_lines_edit,
)

from tests.test_review_helpers import NON_ASCII_LINE


def test_non_ascii_line_columns() -> None:
    # Column 24 is the emoji: 29 bytes before it in UTF-8, 23 UTF-16 units (all BMP) before it.
    assert NON_ASCII_LINE[23] == "🎉"
    assert utf8_column(NON_ASCII_LINE, 24) == 30
    assert utf16_column(NON_ASCII_LINE, 24) == 24
    # After the emoji (4 bytes, 2 UTF-16 units).
    assert utf8_column(NON_ASCII_LINE, 25) == 34
    assert utf16_column(NON_ASCII_LINE, 25) == 26
    assert lsp_character(NON_ASCII_LINE, 25) == 25


def test_ascii_columns_are_unchanged() -> None:
    assert utf8_column("x = 1", 3) == 3
    assert utf16_column("x = 1", 3) == 3
    assert lsp_character("x = 1", 1) == 0


def test_columns_past_the_end_stay_monotonic() -> None:
    assert utf8_column("é", 2) == 3
    assert utf8_column("é", 4) == 5


def test_one_and_zero_based() -> None:
    assert to_zero_based(1) == 0
    assert to_one_based(0) == 1


def test_utf8_range_without_text_drops_columns() -> None:
    converted = utf8_range(Span(3, 3, 5, 7), None)
    assert (converted.start_line, converted.start_column, converted.end_line, converted.end_column) == (
        3,
        None,
        3,
        None,
    )


def test_whole_lines_edit_reaches_the_next_line() -> None:
    edit = whole_lines_edit(2, 2, "", ["a", "b", "c"])
    assert (edit.start_line, edit.start_column, edit.end_line, edit.end_column, edit.text) == (2, 1, 3, 1, "")
    edit = whole_lines_edit(2, 3, "x", ["a", "b", "c"])
    assert (edit.end_line, edit.end_column, edit.text) == (3, 2, "x")


@given(st.text(max_size=30), st.integers(min_value=1, max_value=35))
def test_round_trips(line: str, column: int) -> None:
    column = min(column, len(line) + 1)
    assert column_from_utf8(line, utf8_column(line, column)) == column
    assert column_from_utf16(line, lsp_character(line, column)) == column


def test_lsp_range() -> None:
    assert lsp_range(Span(3, 3, 24, 26), NON_ASCII_LINE) == LspRange(2, 23, 2, 26)
    assert lsp_range(Span(1, 1), "é🎉") == LspRange(0, 0, 0, 3)
    assert lsp_range(Span(1, 2), None) == LspRange(0, 0, 2, 0)
