"""Findings placed on documents as they are now, and kept there while the user edits.

A finding is placed only on a line that still reads what the review saw. With the reviewed text at hand
(the final report's source lines) the reviewed lines are matched with the document's; without it (the
findings published while the review runs) a line is recognised by the finding's id, which fingerprints
its anchor line. A finding that cannot be placed for certain is not shown: a missing diagnostic is
better than one on the wrong line.

Once placed, a finding carries the document's text of its lines (`anchor`) and of the lines its fix
replaces (`fix_anchor`). Each edit moves it with the lines above it; a finding whose anchor text is gone
or changed is dropped, and a fix whose lines changed is no longer offered. A dropped finding is still
followed (`follow_and_keep_lost`) while its document is open: when its anchor text comes back (an undo),
so does the finding.
"""

from __future__ import annotations

import difflib
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal

from prscope.analysis.findings import Finding, fingerprint

Origin = Literal["review", "quick"]
MaskFn = Callable[[str], str]


@dataclass(frozen=True)
class Placed:
    """A finding on a document. `finding` counts lines of the document as it is now (its suggestion's
    too); `anchor` is the document's text of `finding.line..end_line`, `fix_anchor` that of the lines
    the suggestion replaces (None: no fix is offered)."""

    finding: Finding
    origin: Origin
    anchor: tuple[str, ...]
    fix_anchor: tuple[str, ...] | None = None
    reported: Finding | None = None
    """The finding as the review reported it (its lines are the reviewed text's)."""
    base_uri: str = ""
    """The URI of the repository root (ending in /), which the finding's related paths are relative to."""

    @property
    def key(self) -> tuple[str, int]:
        return (self.finding.id, self.finding.line)

    @property
    def source(self) -> Finding:
        return self.reported or self.finding

    def with_base(self, base_uri: str) -> Placed:
        return replace(self, base_uri=base_uri)


@dataclass(frozen=True)
class LineChange:
    """One content change in lines: 0-based lines `start..end` of the text before it were replaced by
    text holding `breaks` line breaks."""

    start: int
    end: int
    breaks: int

    @property
    def delta(self) -> int:
        return self.breaks - (self.end - self.start)


def place(
    findings: Iterable[Finding],
    lines: Sequence[str],
    origin: Origin,
    reviewed: Sequence[str] | None = None,
    mask: MaskFn | None = None,
) -> tuple[list[Placed], list[Finding]]:
    """The findings of one file placed on its current `lines`, and those that could not be placed.

    `reviewed` is the file's text as the review saw it, masked by `mask` (the report masks secrets in
    the source lines it keeps); without it, lines are recognised by the findings' fingerprints."""
    line_map = None
    if reviewed is not None:
        line_map = _line_map(reviewed, [mask(line) for line in lines] if mask is not None else lines)
    findings = list(findings)
    starts = (
        {id(f): line_map.get(f.line) for f in findings}
        if line_map is not None
        else _starts_by_fingerprint(findings, lines, mask)
    )
    placed: list[Placed] = []
    unplaced: list[Finding] = []
    for finding in findings:
        start = starts.get(id(finding))
        if start is None:
            unplaced.append(finding)
            continue
        placed.append(_placed_at(finding, start, lines, origin, line_map))
    return placed, unplaced


def _line_map(old: Sequence[str], new: Sequence[str]) -> dict[int, int]:
    """1-based line numbers of `old` -> those of the same, unchanged lines in `new`."""
    matcher = difflib.SequenceMatcher(None, list(old), list(new), autojunk=False)
    mapping: dict[int, int] = {}
    for tag, old_start, old_end, new_start, _new_end in matcher.get_opcodes():
        if tag == "equal":
            for offset in range(old_end - old_start):
                mapping[old_start + offset + 1] = new_start + offset + 1
    return mapping


def anchors_line(finding: Finding, text: str, mask: MaskFn | None = None) -> bool:
    """Whether `text` is the line the finding's id fingerprints (secrets are fingerprinted masked)."""
    if not finding.id:
        return False
    if fingerprint(finding.rule, finding.path, text) == finding.id:
        return True
    return mask is not None and fingerprint(finding.rule, finding.path, mask(text)) == finding.id


def _starts_by_fingerprint(
    findings: list[Finding], lines: Sequence[str], mask: MaskFn | None
) -> dict[int, int | None]:
    """Where each finding's anchor line is now. Findings sharing an id (identical lines) are matched in
    order, and only when the document holds exactly as many such lines; otherwise they are left out."""
    starts: dict[int, int | None] = {}
    by_id: dict[str, list[Finding]] = {}
    for finding in findings:
        by_id.setdefault(finding.id, []).append(finding)
    for group in by_id.values():
        group.sort(key=lambda f: f.line)
        first = group[0]
        in_place = all(1 <= f.line <= len(lines) and anchors_line(f, lines[f.line - 1], mask) for f in group)
        if in_place:
            starts.update({id(f): f.line for f in group})
            continue
        matches = [n + 1 for n, text in enumerate(lines) if anchors_line(first, text, mask)]
        fits = len(matches) == len(group)
        starts.update({id(f): (matches[i] if fits else None) for i, f in enumerate(group)})
    return starts


def _placed_at(
    finding: Finding, start: int, lines: Sequence[str], origin: Origin, line_map: dict[int, int] | None
) -> Placed:
    end = min(start + (finding.end_line - finding.line), len(lines))
    # Columns count characters of the reviewed line: kept only when that very text was matched, not
    # merely a fingerprint (which ignores whitespace).
    exact = line_map is not None
    moved = finding.model_copy(
        update={
            "line": start,
            "end_line": end,
            "column": finding.column if exact else None,
            "end_column": finding.end_column if exact else None,
        }
    )
    fix = _fix_lines(finding, start, lines, line_map)
    anchor = tuple(lines[start - 1 : end])
    if fix is None:
        return Placed(moved.model_copy(update={"suggestion": None}), origin, anchor, reported=finding)
    first, last = fix
    suggestion = moved.suggestion.model_copy(update={"start_line": first, "end_line": last})  # type: ignore[union-attr]
    fix_anchor = tuple(lines[first - 1 : last])
    return Placed(moved.model_copy(update={"suggestion": suggestion}), origin, anchor, fix_anchor, finding)


def _fix_lines(
    finding: Finding, start: int, lines: Sequence[str], line_map: dict[int, int] | None
) -> tuple[int, int] | None:
    """The current lines the suggestion replaces, when they are certainly the lines it was made for."""
    suggestion = finding.suggestion
    if suggestion is None or suggestion.end_line < suggestion.start_line:
        return None
    if line_map is not None:
        mapped = [line_map.get(n) for n in range(suggestion.start_line, suggestion.end_line + 1)]
        first = mapped[0]
        if first is None or any(m != first + i for i, m in enumerate(mapped)):
            return None
        last = first + len(mapped) - 1
    elif (suggestion.start_line, suggestion.end_line) == (finding.line, finding.line):
        first = last = start  # the one line the fingerprint vouches for
    else:
        return None
    return (first, last) if 1 <= first <= last <= len(lines) else None


def follow_edits(
    placed: Iterable[Placed],
    changes: Sequence[LineChange] | None,
    old_lines: Sequence[str],
    new_lines: Sequence[str],
) -> list[Placed]:
    """The findings after one `didChange`: moved with the lines above them, dropped when their text is
    gone or changed. `changes` None means the whole text was replaced (full sync)."""
    return follow_and_keep_lost(placed, changes, old_lines, new_lines)[0]


def follow_and_keep_lost(
    placed: Iterable[Placed],
    changes: Sequence[LineChange] | None,
    old_lines: Sequence[str],
    new_lines: Sequence[str],
) -> tuple[list[Placed], list[Placed]]:
    """`follow_edits`, and the findings it dropped, moved to where their anchor text was (the line the
    edit left in its place): following those through later edits brings each back where its text
    returns. Findings dropped earlier may be among `placed`: they are found again the same way."""
    kept: list[Placed] = []
    lost: list[Placed] = []
    line_map = _line_map(old_lines, new_lines) if changes is None else None
    for item in placed:
        guesses: tuple[int, ...]
        if line_map is not None:
            start = line_map.get(item.finding.line, item.finding.line)
            guesses, radius = (start,), 0 if item.finding.line in line_map else len(new_lines)
        else:
            guesses, radius = _shifted(item.finding.line, item.finding.end_line, changes or ())
        moved = relocate(item, guesses, radius, new_lines)
        if moved is not None:
            kept.append(moved)
        else:
            lost.append(_shifted_to(item, guesses[0]))
    return kept, lost


def _shifted_to(item: Placed, line: int) -> Placed:
    """`item` with its lines (and its fix's) moved so that it starts at `line`, its text unchecked."""
    offset = line - item.finding.line
    if offset == 0:
        return item
    suggestion = item.finding.suggestion
    if suggestion is not None:
        suggestion = suggestion.model_copy(
            update={"start_line": suggestion.start_line + offset, "end_line": suggestion.end_line + offset}
        )
    finding = item.finding.model_copy(
        update={"line": line, "end_line": item.finding.end_line + offset, "suggestion": suggestion}
    )
    return replace(item, finding=finding)


def revalidate(placed: Iterable[Placed], lines: Sequence[str]) -> list[Placed]:
    """The findings on a document whose text may have changed in any way (opened with unsaved text,
    closed back to the file on disk): each stays where its anchor text still is, or moves to the one
    place in the document that holds it."""
    return revalidate_and_keep_lost(placed, lines)[0]


def revalidate_and_keep_lost(
    placed: Iterable[Placed], lines: Sequence[str]
) -> tuple[list[Placed], list[Placed]]:
    """`revalidate`, and the findings it dropped, where they were."""
    kept: list[Placed] = []
    lost: list[Placed] = []
    for item in placed:
        moved = relocate(item, (item.finding.line,), len(lines), lines)
        if moved is not None:
            kept.append(moved)
        else:
            lost.append(item)
    return kept, lost


def _shifted(line: int, end_line: int, changes: Iterable[LineChange]) -> tuple[tuple[int, ...], int]:
    """Where a span's first line probably is after `changes`, best guess first (a change that touched it
    either left its text in place or pushed it down with the lines it inserted), and how far from the
    first guess its text may now be (0 when no change touched it)."""
    start, end, radius, pushed = line - 1, end_line - 1, 0, 0
    for change in changes:
        if change.end < start:
            start, end = start + change.delta, end + change.delta
        elif change.start <= end:
            radius += (change.end - change.start) + change.breaks + (end - start) + 1
            pushed += change.delta
    return (start + 1, start + 1 + pushed), radius


def relocate(item: Placed, guesses: Sequence[int], radius: int, lines: Sequence[str]) -> Placed | None:
    """`item` where its anchor text is now: at the first guess that holds it, else at the one place
    within `radius` lines of the first guess that does; None when it is not there, or not certainly."""
    found = _find_block(item.anchor, guesses, radius, lines)
    if found is None:
        return None
    offset = found - item.finding.line
    finding = item.finding.model_copy(update={"line": found, "end_line": item.finding.end_line + offset})
    fix_anchor = item.fix_anchor
    suggestion = finding.suggestion
    if suggestion is not None and fix_anchor is not None:
        first = suggestion.start_line + offset
        if _block_at(fix_anchor, first, lines):
            suggestion = suggestion.model_copy(
                update={"start_line": first, "end_line": suggestion.end_line + offset}
            )
        else:
            suggestion, fix_anchor = None, None
    else:
        suggestion, fix_anchor = None, None
    return replace(item, finding=finding.model_copy(update={"suggestion": suggestion}), fix_anchor=fix_anchor)


def _find_block(
    block: tuple[str, ...], guesses: Sequence[int], radius: int, lines: Sequence[str]
) -> int | None:
    if not block or not guesses:
        return None
    for guess in guesses:
        if _block_at(block, guess, lines):
            return guess
    start = guesses[0]
    low, high = max(1, start - radius), min(len(lines), start + radius)
    candidates = [n for n in range(low, high + 1) if _block_at(block, n, lines)]
    return candidates[0] if len(candidates) == 1 else None


def _block_at(block: tuple[str, ...], first: int, lines: Sequence[str]) -> bool:
    return first >= 1 and tuple(lines[first - 1 : first - 1 + len(block)]) == block


def fix_still_fits(item: Placed, lines: Sequence[str]) -> bool:
    """Whether the lines the item's fix replaces read, right now, what they read when it was placed."""
    suggestion = item.finding.suggestion
    if suggestion is None or item.fix_anchor is None:
        return False
    return _block_at(item.fix_anchor, suggestion.start_line, lines) and (
        suggestion.end_line - suggestion.start_line + 1 == len(item.fix_anchor)
    )
