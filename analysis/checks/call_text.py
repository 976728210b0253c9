"""A method call read from its text alone: `<expr>.name(...)` from the name to its closing bracket, parsed
by itself. Judging a call's arguments this way skips parsing and indexing the whole function around it,
which matters for a method called thousands of times (sqlalchemy's `assert_compile`). Anything the
scanner is unsure of gives None, and the caller reads the function's syntax as before.
"""

from __future__ import annotations

import ast
import re

_MAX_CALL_LINES = 200
_OPENING = {"(": ")", "[": "]", "{": "}"}
_CLOSING = frozenset(_OPENING.values())
_STRING_START = re.compile(r"""[rRbBuUfF]{0,2}('''|\"\"\"|'|")""")
_INTERESTING = re.compile(r"""[()\[\]{}#'"]""")
_STRING_END = {
    "'": re.compile(r"(?:[^'\\\n]|\\.)*'", re.DOTALL),
    '"': re.compile(r'(?:[^"\\\n]|\\.)*"', re.DOTALL),
    "'''": re.compile(r"(?:[^\\]|\\.)*?'''", re.DOTALL),
    '"""': re.compile(r'(?:[^\\]|\\.)*?"""', re.DOTALL),
}


def call_from_text(lines: list[str], line: int, col: int, name: str) -> ast.Call | None:
    """The call `_.name(...)` whose `name` starts at (line, col) (1-based line, 0-based code points), or
    None when the text there is not such a call or cannot be read with certainty."""
    if not 0 < line <= len(lines) or not lines[line - 1].startswith(name, col):
        return None
    text = "\n".join([lines[line - 1][col:], *lines[line : line - 1 + _MAX_CALL_LINES]])
    after_name = len(name)
    while after_name < len(text) and text[after_name] in " \t":
        after_name += 1
    if not text.startswith("(", after_name):
        return None
    end = _closing_bracket(text, after_name)
    if end is None:
        return None
    try:
        tree = ast.parse("_." + text[: end + 1], mode="eval")
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    call = tree.body
    return call if isinstance(call, ast.Call) and isinstance(call.func, ast.Attribute) else None


def _closing_bracket(text: str, start: int) -> int | None:
    """The offset of the bracket that closes the one at `start`, skipping strings and comments."""
    expected: list[str] = []
    position = start
    while True:
        found = _INTERESTING.search(text, position)
        if found is None:
            return None
        char, position = found.group(), found.start()
        if char in _OPENING:
            expected.append(_OPENING[char])
        elif char in _CLOSING:
            if not expected or expected.pop() != char:
                return None
            if not expected:
                return position
        elif char == "#":
            newline = text.find("\n", position)
            if newline < 0:
                return None
            position = newline
        else:
            quote = _STRING_START.match(text, position)
            if quote is None:
                return None
            delimiter = quote.group(1)
            closed = _STRING_END[delimiter].match(text, quote.end())
            if closed is None:
                return None
            position = closed.end()
            continue
        position += 1
