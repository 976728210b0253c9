"""prscope.analysis.positions for the language server: columns in UTF-8, UTF-16 and UTF-32 units, lines as LSP
counts them, and whole-line edits at the end of a file."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st
from prscope.analysis.positions import (
    as_encoding,
    column_from_lsp,
    ends_with_break,
    line_and_column,
    lsp_character,
    split_lines,
    whole_lines_edit,
)

CODECS = {"utf-8": ("utf-8", 1), "utf-16": ("utf-16-le", 2), "utf-32": ("utf-32-le", 4)}
LINE = "\tlabel = 'e\u0301☕🎉'; x"


def _units(text: str, encoding: str) -> int:
    codec, width = CODECS[encoding]
    return len(text.encode(codec)) // width


def test_columns_in_each_encoding() -> None:
    column = LINE.index("; x") + 1
    prefix = LINE[: column - 1]
    for encoding in ("utf-8", "utf-16", "utf-32"):
        character = lsp_character(LINE, column, encoding)  # type: ignore[arg-type]
        assert character == _units(prefix, encoding)
        assert column_from_lsp(LINE, character, encoding) == column  # type: ignore[arg-type]


def test_an_offset_inside_a_character_maps_to_that_character() -> None:
    emoji = LINE.index("🎉")
    bytes_before = len(LINE[:emoji].encode())
    assert column_from_lsp(LINE, bytes_before + 2, "utf-8") == emoji + 1
    assert column_from_lsp(LINE, _units(LINE[:emoji], "utf-16") + 1, "utf-16") == emoji + 1


@given(st.text(max_size=30), st.integers(min_value=1, max_value=35), st.sampled_from(list(CODECS)))
def test_round_trips_in_every_encoding(line: str, column: int, encoding: str) -> None:
    column = min(column, len(line) + 1)
    character = lsp_character(line, column, encoding)  # type: ignore[arg-type]
    assert character == _units(line[: column - 1], encoding)
    assert column_from_lsp(line, character, encoding) == column  # type: ignore[arg-type]


def test_encoding_names() -> None:
    assert as_encoding("utf-8") == "utf-8" and as_encoding("UTF-32") == "utf-32"
    assert as_encoding(None) == "utf-16" and as_encoding("latin-1") == "utf-16"


def test_lines_break_only_where_lsp_breaks_them() -> None:
    text = "a\x0cb\r\nc\rd\ne\u2028f"
    assert split_lines(text) == ["a\x0cb", "c", "d", "e\u2028f"]
    assert split_lines("x\n") == ["x"] and split_lines("x\n\n") == ["x", ""] and split_lines("") == []
    assert ends_with_break("x\r\n") and not ends_with_break("x")
    assert [line_and_column("ab\ncd", offset) for offset in (0, 2, 3, 5)] == [(1, 1), (1, 3), (2, 1), (2, 3)]


def test_deleting_the_last_line_takes_its_break_when_there_is_one() -> None:
    lines = ["a", "b"]
    with_break = whole_lines_edit(2, 2, "", lines, ends_with_break=True)
    assert (with_break.start_line, with_break.start_column, with_break.end_line, with_break.end_column) == (
        2,
        1,
        3,
        1,
    )
    without = whole_lines_edit(2, 2, "", lines)
    assert (without.end_line, without.end_column, without.text) == (2, 2, "")
