"""Parsing `git diff --raw -p -z` output: NUL-separated raw entries (exact paths), then the patch."""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from prscope.analysis.changeset.model import DiffLine, FileChange, FileStatus, Hunk, language_for_path

SUBMODULE_MODE = "160000"
SYMLINK_MODE = "120000"

_HUNK_HEADER = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@ ?(.*)$")
_SECTION_STARTS = ("diff --git ", "diff --cc ", "* Unmerged path ")
_STATUSES = {
    "A": FileStatus.ADDED,
    "D": FileStatus.DELETED,
    "M": FileStatus.MODIFIED,
    "R": FileStatus.RENAMED,
    "C": FileStatus.COPIED,
    "T": FileStatus.TYPE_CHANGED,
}


@dataclass
class RawEntry:
    old_mode: str
    new_mode: str
    old_sha: str
    new_sha: str
    status: str
    src: str
    dst: str


@dataclass
class PatchSection:
    header: str
    is_binary: bool = False
    hunks: list[Hunk] = field(default_factory=list)


def decode_path(raw: bytes, undecodable: dict[str, str] | None = None) -> str:
    """A path for display and reports (always valid UTF-8); a name that is not UTF-8 gets U+FFFD marks,
    and `undecodable` learns how to spell it back to the filesystem and git."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        shown = raw.decode("utf-8", "replace")
        if undecodable is not None:
            undecodable[shown] = raw.decode("utf-8", "surrogateescape")
        return shown


def split_raw_and_patch(
    output: bytes, undecodable: dict[str, str] | None = None
) -> tuple[list[RawEntry], bytes]:
    """Raw entries (`:modes shas status\\0path\\0[dst\\0]`) and whatever follows them (the patch)."""
    entries: list[RawEntry] = []
    pos = 0
    size = len(output)
    while pos < size and output[pos : pos + 1] == b":":
        end = output.index(b"\0", pos)
        fields = output[pos + 1 : end].decode("ascii", "replace").split()
        old_mode, new_mode, old_sha, new_sha, status = fields[:5]
        pos = end + 1
        end = output.index(b"\0", pos)
        src = decode_path(output[pos:end], undecodable)
        pos = end + 1
        dst = src
        if status[:1] in ("R", "C"):
            end = output.index(b"\0", pos)
            dst = decode_path(output[pos:end], undecodable)
            pos = end + 1
        entries.append(RawEntry(old_mode, new_mode, old_sha, new_sha, status[:1], src, dst))
    if output[pos : pos + 1] == b"\0":
        pos += 1
    return entries, output[pos:]


def parse_patch(text: str) -> list[PatchSection]:
    lines = text.split("\n")
    sections: list[PatchSection] = []
    index = 0
    total = len(lines)
    while index < total:
        line = lines[index]
        if line.startswith(_SECTION_STARTS):
            sections.append(PatchSection(header=line))
        elif sections and line.startswith("@@ "):
            hunk, index = parse_hunk(lines, index)
            if hunk is not None:
                sections[-1].hunks.append(hunk)
                continue
        elif sections and (line.startswith("Binary files ") or line == "GIT binary patch"):
            sections[-1].is_binary = True
        index += 1
    return sections


def parse_hunk(lines: list[str], index: int) -> tuple[Hunk | None, int]:
    """The hunk whose `@@` header is at `index`, and the index just past its body."""
    match = _HUNK_HEADER.match(lines[index])
    if match is None:
        return None, index + 1
    old_start, new_start = int(match.group(1)), int(match.group(3))
    old_count = int(match.group(2)) if match.group(2) is not None else 1
    new_count = int(match.group(4)) if match.group(4) is not None else 1
    body: list[DiffLine] = []
    old_no, new_no = old_start, new_start
    old_left, new_left = old_count, new_count
    index += 1
    total = len(lines)
    while (old_left > 0 or new_left > 0) and index < total:
        line = lines[index]
        tag = line[:1]
        text = line[1:]
        if text.endswith("\r"):
            text = text[:-1]
        if tag == " " or not line:
            body.append(DiffLine(" ", text, old_no, new_no))
            old_no += 1
            new_no += 1
            old_left -= 1
            new_left -= 1
        elif tag == "-":
            body.append(DiffLine("-", text, old_no, None))
            old_no += 1
            old_left -= 1
        elif tag == "+":
            body.append(DiffLine("+", text, None, new_no))
            new_no += 1
            new_left -= 1
        elif tag != "\\":
            break
        index += 1
    while index < total and lines[index].startswith("\\"):
        index += 1
    hunk = Hunk(old_start, old_count, new_start, new_count, match.group(5).strip(), body)
    return hunk, index


def _null(sha: str) -> bool:
    return not sha.strip("0")


def file_change_from(entry: RawEntry, sections: list[PatchSection]) -> FileChange:
    """One FileChange from a raw entry and its patch section(s) (a type change has two)."""
    is_submodule = SUBMODULE_MODE in (entry.old_mode, entry.new_mode)
    status = _STATUSES.get(entry.status, FileStatus.MODIFIED)
    hunks = [hunk for section in sections for hunk in section.hunks]
    is_binary = any(section.is_binary for section in sections)
    if is_submodule:
        status = FileStatus.SUBMODULE
        hunks = []
    elif (
        entry.status != "U"
        and status is FileStatus.MODIFIED
        and entry.old_mode != entry.new_mode
        and not hunks
        and not is_binary
    ):
        status = FileStatus.TYPE_CHANGED
    deleted = status is FileStatus.DELETED
    path = entry.dst
    old_path = entry.src if status in (FileStatus.RENAMED, FileStatus.COPIED, FileStatus.DELETED) else None
    mode = entry.old_mode if deleted else entry.new_mode
    is_symlink = mode == SYMLINK_MODE
    change = FileChange(
        path=path,
        old_path=old_path,
        status=status,
        is_binary=is_binary,
        language=None if is_symlink or is_submodule else language_for_path(path),
        hunks=hunks,
        old_mode=None if _null(entry.old_mode) else entry.old_mode,
        new_mode=None if _null(entry.new_mode) else entry.new_mode,
        old_blob=None if _null(entry.old_sha) else entry.old_sha,
        new_blob=None if _null(entry.new_sha) else entry.new_sha,
        is_symlink=is_symlink,
        unmerged=entry.status == "U",
    )
    change.recount()
    return change


def build_changes(entries: list[RawEntry], sections: list[PatchSection]) -> list[FileChange]:
    """Pair raw entries with patch sections; git writes both in the same order."""
    changes: list[FileChange] = []
    cursor = 0
    for entry in entries:
        own: list[PatchSection] = []
        if cursor < len(sections):
            own.append(sections[cursor])
            cursor += 1
            # A type change is printed as a deletion and an addition under the same header.
            if entry.status == "T" and cursor < len(sections) and sections[cursor].header == own[0].header:
                own.append(sections[cursor])
                cursor += 1
        changes.append(file_change_from(entry, own))
    return changes


def parse_diff_output(output: bytes, undecodable: dict[str, str] | None = None) -> list[FileChange]:
    entries, patch = split_raw_and_patch(output, undecodable)
    sections = parse_patch(patch.decode("utf-8", "replace"))
    return build_changes(entries, sections)
