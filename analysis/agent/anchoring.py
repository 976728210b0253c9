"""Model findings anchored on the code they quote, not only on the line number they cite.

Models often cite a line a few off. Each finding carries the code line it is about (`code`); the finding is
kept at the cited line when that line reads the same (whitespace aside) or contains the quote, moved to
the nearest line that does, and dropped with the reason when no line near the citation does. A short
quote (under 8 characters, such as a name) is too common to look for elsewhere: it keeps the finding on
the cited line when that line holds it as a whole token (`qty`, not the `qty` inside `qty_total`), and
drops it otherwise. A finding without a quote keeps the cited line when it exists.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

ANCHOR_WINDOW = 30
"""How many lines above or below the cited line the quoted code is looked for."""
SHORT_QUOTE = 8
"""A quote shorter than this (whitespace-normalised) is looked for on the cited line only."""


@dataclass(frozen=True)
class Anchor:
    line: int | None
    """The 1-based line the finding belongs on; None when it is dropped."""
    problem: str = ""


def normalised(text: str) -> str:
    return " ".join(text.split())


def quoted_line(code: str | None) -> str:
    """The line of a quote to look for: its first non-blank line, whitespace-normalised, fences removed."""
    for raw in (code or "").splitlines():
        line = normalised(raw)
        if line and not line.startswith("```"):
            return line
    return ""


def anchor_line(lines: list[str], cited: int, code: str | None) -> Anchor:
    """Where a finding citing line `cited` (1-based) and quoting `code` belongs in `lines`."""
    wanted = quoted_line(code)
    if not wanted:
        if 1 <= cited <= len(lines):
            return Anchor(cited)
        return Anchor(None, f"the file has only {len(lines)} lines")
    if len(wanted) < SHORT_QUOTE:
        if 1 <= cited <= len(lines) and _holds_token(lines[cited - 1], wanted):
            return Anchor(cited)
        return Anchor(None, f"the short quoted code {wanted!r} is not on line {cited}")
    for distance in range(ANCHOR_WINDOW + 1):
        for candidate in (cited - distance, cited + distance) if distance else (cited,):
            if 1 <= candidate <= len(lines) and _matches(lines[candidate - 1], wanted):
                return Anchor(candidate)
    return Anchor(None, f"the quoted code is not within {ANCHOR_WINDOW} lines of line {cited}")


def _matches(line: str, wanted: str) -> bool:
    text = normalised(line)
    return bool(text) and wanted in text


def _holds_token(line: str, wanted: str) -> bool:
    """Whether the line holds `wanted` not as part of a longer name: an end of the quote that is a name
    character must not touch another one."""
    before = r"(?<!\w)" if re.match(r"\w", wanted) else ""
    after = r"(?!\w)" if re.search(r"\w$", wanted) else ""
    return re.search(before + re.escape(wanted) + after, normalised(line)) is not None
