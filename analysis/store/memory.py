"""What a review remembers of earlier model reviews: the result cache and the incremental re-review.

A complete model review is stored with its raw findings (each with the code line it is anchored on), the
hunks it reviewed and its agents. A later review of the same change (same diff, model, prompts,
settings and prscope version: `cache_key`) reuses it without a model request. A later review of the same
branch after new commits sends only the hunks not reviewed before (a hunk is known when the previous
review saw a hunk with the same removed and added lines in the same file, wherever it sits now, so a
rebase that only moves lines sends nothing) and carries the earlier findings on unchanged code over,
moved to where that code is now; findings whose code is gone, changed or inside a new hunk are dropped.
Hunk identity does not depend on line numbers, nor do finding ids (`analysis.findings.fingerprint`).
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prscope.analysis import __version__
from prscope.analysis.changeset import ChangeSet, FileChange, Hunk
from prscope.analysis.findings import Finding, fingerprint
from prscope.analysis.report import AgentNode, Usage
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from prscope.analysis.config import PrscopeConfig

PRESENTATION_SETTINGS = frozenset({"source", "dismissed", "fail_on", "rules", "severity"})
"""Configuration that only filters or grades findings after the model answered: not part of the keys."""


class AnchoredFinding(BaseModel):
    finding: Finding
    anchor: str
    """The text of the finding's line when it was reported (its id is the fingerprint of this line)."""


class StoredModelReview(BaseModel):
    """One complete model review, as the cache and the next incremental review read it back."""

    head: str | None = None
    findings: list[AnchoredFinding] = Field(default_factory=list)
    hunks: dict[str, list[str]] = Field(default_factory=dict)
    """Per path, the signatures of the hunks the model was shown (all of the change, when incremental)."""
    agents: list[AgentNode] = Field(default_factory=list)
    usage: Usage = Field(default_factory=Usage)
    description: str = ""


@dataclass(frozen=True)
class ReviewKeys:
    cache_key: str
    """Same diff, model, prompts, settings and prscope version: the stored result answers it."""
    settings_key: str
    """Everything but the diff: an earlier review is a base for an incremental one only under these."""
    lineage: str
    """What makes two reviews reviews of the same pull request (mode, base and branch); '' for none."""


def review_keys(cs: ChangeSet, config: PrscopeConfig, model_id: str, branch: str | None) -> ReviewKeys:
    from prscope import prompts

    settings = {
        "model": model_id,
        "config": config.model_dump(mode="json", exclude=set(PRESENTATION_SETTINGS)),
        "prompts": prompts.versions(),
        "prscope": __version__,
    }
    settings_key = _digest(json.dumps(settings, sort_keys=True))
    diff = _digest("\n".join(_file_digest(change) for change in cs.files))
    return ReviewKeys(_digest(f"{settings_key}\n{cs.mode}\n{diff}"), settings_key, _lineage(cs, branch))


def _lineage(cs: ChangeSet, branch: str | None) -> str:
    if cs.mode == "branch" and branch:
        return f"branch\0{cs.base_ref or ''}\0{branch}"
    if cs.mode == "commits" and cs.base_sha:
        return f"commits\0{cs.base_sha}"
    return ""


def _file_digest(change: FileChange) -> str:
    header = f"{change.status.value}\0{change.old_path or ''}\0{change.path}\0{change.new_blob or ''}"
    return _digest("\n".join([header, *hunk_signatures(change)]))


def hunk_signature(path: str, hunk: Hunk) -> str:
    """A hunk by what it removes and adds, not by where: the same edit after a rebase has the same one."""
    changed = [f"{line.kind}{line.text}" for line in hunk.lines if line.kind != " "]
    return _digest("\n".join([path, *changed]))


def hunk_signatures(change: FileChange) -> list[str]:
    return [hunk_signature(change.path, hunk) for hunk in change.hunks]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]


@dataclass
class FreshChange:
    """The part of a change a model has not reviewed yet."""

    changeset: ChangeSet
    fresh_hunks: int
    known_hunks: int
    fresh_ranges: dict[str, list[tuple[int, int]]] = field(default_factory=dict)
    """New-side line ranges (inclusive) of the fresh hunks, per path."""


def fresh_part(cs: ChangeSet, previous: StoredModelReview) -> FreshChange:
    """`cs` with only the hunks `previous` did not review; files left with none are dropped. The view
    shares `cs`'s reader, so it must not be closed on its own."""
    files: list[FileChange] = []
    fresh = known = 0
    ranges: dict[str, list[tuple[int, int]]] = {}
    for change in cs.files:
        seen = set(previous.hunks.get(change.path, ()))
        new_hunks = [hunk for hunk in change.hunks if hunk_signature(change.path, hunk) not in seen]
        known += len(change.hunks) - len(new_hunks)
        if change.path not in previous.hunks or new_hunks:
            kept = new_hunks if change.path in previous.hunks else change.hunks
            fresh += len(kept)
            ranges[change.path] = [_new_range(hunk) for hunk in kept]
            files.append(_with_hunks(change, kept))
    view = dataclasses.replace(cs, files=files, derived={})
    return FreshChange(view, fresh, known, ranges)


def _new_range(hunk: Hunk) -> tuple[int, int]:
    return hunk.new_start, hunk.new_start + max(hunk.new_count, 1) - 1


def _with_hunks(change: FileChange, hunks: list[Hunk]) -> FileChange:
    copy = dataclasses.replace(change, hunks=list(hunks), _maps=None)
    copy.recount()
    return copy


@dataclass
class CarryOver:
    findings: list[Finding] = field(default_factory=list)
    dropped: list[str] = field(default_factory=list)


LineMap = Mapping[str, FileChange]
"""Per path (new side), how lines moved between the previous reviewed head and this one."""


def carry_over(previous: StoredModelReview, cs: ChangeSet, moves: LineMap, fresh: FreshChange) -> CarryOver:
    """The previous findings that still stand: their file is still changed, their line still reads the
    same (found where the line moved to) and lies in no fresh hunk. The others are dropped, with why."""
    result = CarryOver()
    changed = {change.path for change in cs.files}
    texts: dict[str, list[str] | None] = {}
    for stored in previous.findings:
        finding = stored.finding
        if finding.path not in changed:
            result.dropped.append(f"{_where(finding)}: the file is no longer changed")
            continue
        if finding.path not in texts:
            text = cs.read_new(finding.path)
            texts[finding.path] = text.splitlines() if text is not None else None
        lines = texts[finding.path]
        line = _moved_line(finding, moves)
        if lines is None or line is None or not _reads(lines, line, finding, stored.anchor):
            result.dropped.append(f"{_where(finding)}: its code changed or is gone")
            continue
        if any(start <= line <= end for start, end in fresh.fresh_ranges.get(finding.path, ())):
            result.dropped.append(f"{_where(finding)}: its code is in a hunk reviewed again")
            continue
        result.findings.append(_moved(finding, line))
    return result


def _where(finding: Finding) -> str:
    return f"{finding.path}:{finding.line} {finding.rule}"


def _moved_line(finding: Finding, moves: LineMap) -> int | None:
    change = moves.get(finding.path)
    return finding.line if change is None else change.old_to_new(finding.line)


def _reads(lines: list[str], line: int, finding: Finding, anchor: str) -> bool:
    if not 1 <= line <= len(lines):
        return False
    return fingerprint(finding.rule, finding.path, lines[line - 1]) == fingerprint(
        finding.rule, finding.path, anchor
    )


def _moved(finding: Finding, line: int) -> Finding:
    shift = line - finding.line
    if not shift:
        return finding
    update: dict[str, object] = {"line": line, "end_line": finding.end_line + shift}
    if finding.suggestion is not None:
        update["suggestion"] = finding.suggestion.model_copy(
            update={
                "start_line": finding.suggestion.start_line + shift,
                "end_line": finding.suggestion.end_line + shift,
            }
        )
    return finding.model_copy(update=update)


def anchored(findings: list[Finding], cs: ChangeSet) -> list[AnchoredFinding]:
    """Each model finding with the text of its line at this head (read now, while `cs` is open)."""
    texts: dict[str, list[str]] = {}
    kept: list[AnchoredFinding] = []
    for finding in findings:
        if finding.path not in texts:
            texts[finding.path] = (cs.read_new(finding.path) or "").splitlines()
        lines = texts[finding.path]
        if 1 <= finding.line <= len(lines):
            kept.append(AnchoredFinding(finding=finding, anchor=lines[finding.line - 1]))
    return kept
