"""File content the way git sees it: when bytes count as binary, and how lines are numbered.

The change set, the tools and the checks all number lines and call files binary; they must agree with
each other and with git, or a finding lands on the wrong line.
"""

from __future__ import annotations

BINARY_SNIFF_BYTES = 8000
"""Git's own heuristic: a NUL byte in the first 8000 bytes means binary."""


def looks_binary(data: bytes) -> bool:
    return b"\0" in data[:BINARY_SNIFF_BYTES]


def split_lines(text: str) -> list[str]:
    """Lines as git numbers them: split on LF only (str.splitlines also splits on form feeds and other
    separators), a final newline ends the last line rather than starting another, CR of CRLF dropped."""
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]
