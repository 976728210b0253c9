"""Model findings anchored on the code they quote, not only on the line number they cite.

Models often cite a line a few off. Each finding carries the code line it is about (`code`); the finding is
kept at the cited line when that line reads the same (whitespace aside), moved to the nearest line that
does, and dropped with the reason when no line near the citation does. A finding without a quote keeps
the cited line when it exists.
"""

from __future__ import annotations

from dataclasses import dataclass

ANCHOR_WINDOW = 30
"""How many lines above or below the cited line the quoted code is looked for."""


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
    for distance in range(ANCHOR_WINDOW + 1):
        for candidate in (cited - distance, cited + distance) if distance else (cited,):
            if 1 <= candidate <= len(lines) and _matches(lines[candidate - 1], wanted):
                return Anchor(candidate)
    return Anchor(None, f"the quoted code is not within {ANCHOR_WINDOW} lines of line {cited}")


def _matches(line: str, wanted: str) -> bool:
    text = normalised(line)
    return bool(text) and (text == wanted or (len(wanted) >= 8 and wanted in text))
