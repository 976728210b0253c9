"""Which findings can be inline comments: GitHub accepts a review comment only on a line its pull-request
diff shows (an added line or a context line of a hunk, on the new side), and a multi-line comment only
within one hunk; one comment off the diff makes it refuse the whole review (422). Everything else goes
to the summary.

The diff is the pull request's own (`git diff base...head`, the comparison GitHub shows), loaded from
the clone. The review may have run on another commit with the same files (actions/checkout checks out
the merge commit of a pull request by default): a finding's line numbers are used only when its file is
the same at both commits.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from prscope.analysis.changeset import ChangeSet, DiffSpec, load_changeset
from prscope.analysis.findings import Finding
from prscope.analysis.gitsafe import run_git

LONGEST_INLINE_RANGE = 20
"""A finding spanning more lines than this is commented on its first line only."""


@dataclass(frozen=True)
class Anchor:
    """Where an inline comment goes: lines `start_line..line` of `path` (new side)."""

    path: str
    line: int
    start_line: int | None = None
    """Set for a comment on several lines."""
    covers_suggestion: bool = False
    """The lines are exactly the finding's suggestion's, so a suggestion block applies to them."""


@dataclass(frozen=True)
class DiffLines:
    """The new-side line range of each hunk, per file of the pull request."""

    hunks: Mapping[str, tuple[tuple[int, int], ...]]
    added: Mapping[str, frozenset[int]]
    """The lines the pull request adds or changes."""

    def hunk_of(self, path: str, line: int) -> tuple[int, int] | None:
        for first, last in self.hunks.get(path, ()):
            if first <= line <= last:
                return first, last
        return None

    def in_one_hunk(self, path: str, first: int, last: int) -> bool:
        hunk = self.hunk_of(path, first)
        return hunk is not None and last <= hunk[1]

    def anchor(self, finding: Finding) -> Anchor | None:
        suggestion = finding.suggestion
        if suggestion is not None and self.in_one_hunk(
            finding.path, suggestion.start_line, suggestion.end_line
        ):
            return _span(finding.path, suggestion.start_line, suggestion.end_line, covers_suggestion=True)
        last = finding.end_line
        if last - finding.line < LONGEST_INLINE_RANGE and self.in_one_hunk(finding.path, finding.line, last):
            return _span(finding.path, finding.line, last)
        if self.hunk_of(finding.path, finding.line) is not None:
            return Anchor(finding.path, finding.line)
        return None


def _span(path: str, first: int, last: int, *, covers_suggestion: bool = False) -> Anchor:
    return Anchor(path, last, first if last > first else None, covers_suggestion)


def diff_lines(cs: ChangeSet) -> DiffLines:
    hunks: dict[str, tuple[tuple[int, int], ...]] = {}
    added: dict[str, frozenset[int]] = {}
    for change in cs.files:
        added[change.path] = frozenset(change.added_lines)
        ranges = tuple(
            (hunk.new_start, hunk.new_start + hunk.new_count - 1)
            for hunk in change.hunks
            if hunk.new_count > 0
        )
        if ranges:
            hunks[change.path] = ranges
    return DiffLines(hunks, added)


def pull_request_diff(repo: Path, base_sha: str, head_sha: str) -> DiffLines:
    """The diff GitHub shows for a pull request: from the merge-base of base and head to head.

    Raises RepositoryError when a commit is missing from the clone (a shallow checkout)."""
    with load_changeset(repo, DiffSpec(mode="commits", commits=f"{base_sha}...{head_sha}")) as cs:
        return diff_lines(cs)


def repository_root(path: Path) -> Path:
    """The top of the work tree `path` is in (`path` itself when git cannot say)."""
    done = run_git(path, ["rev-parse", "--show-toplevel"], timeout_s=30)
    top = done.stdout.decode("utf-8", "surrogateescape").strip()
    return Path(top) if done.returncode == 0 and top else path


def same_files(repo: Path, first: str, second: str, paths: Iterable[str]) -> set[str]:
    """The paths whose content is the same at commits `first` and `second` (none when git cannot tell)."""
    wanted = sorted(set(paths))
    if first == second:
        return set(wanted)
    if not wanted:
        return set()
    at_first, at_second = _blobs(repo, first, wanted), _blobs(repo, second, wanted)
    return {path for path in wanted if path in at_first and at_first[path] == at_second.get(path)}


def _blobs(repo: Path, commit: str, paths: list[str]) -> dict[str, str]:
    done = run_git(
        repo,
        ["ls-tree", "-r", "-z", "--full-tree", commit, "--", *paths],
        timeout_s=30,
        literal_pathspecs=True,
    )
    if done.returncode != 0:
        return {}
    blobs: dict[str, str] = {}
    for entry in done.stdout.decode("utf-8", "surrogateescape").split("\0"):
        info, _, path = entry.partition("\t")
        parts = info.split()
        if len(parts) == 3 and parts[1] == "blob":
            blobs[path] = parts[2]
    return blobs
