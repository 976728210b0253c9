"""Repository text made safe to print: control characters shown as escapes, long lines cut to a window.

File names and file contents come from the repository under review. A newline in a file name must not
start a new line of output (a CI log would read `::error ...` on it as a workflow command), an escape
sequence must not reach the terminal (set the title, clear the screen), and a 5 MB line must not be
printed whole.
"""

from __future__ import annotations

import re

EXCERPT_CHARS = 240
"""The most characters of one code line any format shows, around the column the finding points at."""
_ELLIPSIS = "…"
_CONTROLS = "\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069"
_CONTROL_KEEP_LINES = re.compile(f"[{_CONTROLS}]")
_CONTROL_ONE_LINE = re.compile(f"[\n{_CONTROLS}]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\x1b": "\\x1b"}


def _escape(match: re.Match[str]) -> str:
    char = match.group(0)
    if char in _NAMED:
        return _NAMED[char]
    code = ord(char)
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(text: str) -> str:
    """`text` on one line: line breaks, escape sequences and bidi overrides shown as escapes."""
    return _CONTROL_ONE_LINE.sub(_escape, text)


def keep_lines(text: str) -> str:
    """`text` with its line breaks kept and every other control character shown as an escape."""
    return _CONTROL_KEEP_LINES.sub(_escape, text)


def excerpt(line: str, column: int | None = None, width: int = EXCERPT_CHARS) -> tuple[str, int]:
    """At most `width` characters of `line` around 1-based `column`, with `…` where it was cut.

    Returns the excerpt and how many characters of `line` were cut before it, so a caret under the
    column can be placed in the excerpt (`column - cut`, counting the leading `…` as one character).
    """
    if len(line) <= width:
        return line, 0
    center = (column or 1) - 1
    start = max(0, min(center - width // 3, len(line) - width))
    end = start + width
    head = _ELLIPSIS if start else ""
    tail = _ELLIPSIS if end < len(line) else ""
    return f"{head}{line[start:end]}{tail}", start - len(head)
