"""Whether a syntax error is Python 2 code meeting a Python 3 parser: such a file is still code (of a
project that ran, or runs, Python 2), unlike a template or a file broken on purpose."""

from __future__ import annotations

import io
import tokenize

_PYTHON2_MESSAGES = (
    "Missing parentheses in call to",
    "multiple exception types must be parenthesized",
    "leading zeros in decimal integer literals",
    "Function parameters cannot be parenthesized",
    "Lambda expression parameters cannot be parenthesized",
)

_TOKEN_MESSAGES = ("invalid syntax", "invalid decimal literal", "invalid hexadecimal literal")
"""What Python 3 says where a Python 2 token stands: a long literal `0L` is an invalid literal to it."""


def python2_construct(error: SyntaxError, source_line: str) -> bool:
    """Errors a Python 2 file gives a Python 3 parser (print statements, `except E, e`, octal `0777`, tuple
    parameters), and the bare "invalid syntax" of Python 2's own tokens where it points: `ur"..."` (mako
    5d4575af's Sphinx `conf.py`), backquotes, `<>`, long literals (`0L`)."""
    if any(message in (error.msg or "") for message in _PYTHON2_MESSAGES):
        return True
    return error.msg in _TOKEN_MESSAGES and _python2_tokens(source_line)


def _python2_tokens(line: str) -> bool:
    """Whether the line's code (not its strings) holds a token only Python 2 has: a backquote, `<>`, a
    `ur"..."` string, `raise E, value`. The error's column is not to be relied on: it differs with the
    grammar parsed for."""
    previous: tokenize.TokenInfo | None = None
    first: str | None = None
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(line).readline):
            if token.string in ("`", "<>"):
                return True
            if previous is not None and previous.end == token.start and _python2_pair(previous, token):
                return True
            if first is None and token.type == tokenize.NAME:
                first = token.string
            depth += (token.string in "([{") - (token.string in ")]}") if token.type == tokenize.OP else 0
            if first == "raise" and token.string == "," and depth == 0:
                return True  # `raise E, value`
            previous = token
    except (tokenize.TokenError, SyntaxError):
        pass  # a line of a longer statement: the tokens before the cut count
    return False


def _python2_pair(first: tokenize.TokenInfo, second: tokenize.TokenInfo) -> bool:
    if first.type == tokenize.NUMBER and second.type == tokenize.NAME:
        return second.string in ("L", "l")  # a long literal: `0L`, `0xffL`
    if first.type == tokenize.NAME and first.string.lower() == "ur":
        return second.type == tokenize.STRING
    return first.string == "<" and second.string == ">"
