"""Dismissing a finding, recorded where the CLI reads dismissals from.

That place is the run store (`analysis.store`: `prscope dismiss --list` lists it, `--undo ID` takes it
back): the code action runs `prscope.dismissFinding`, which records the finding's fingerprint there, so
the dismissal holds wherever the finding's line moves. Only when the store cannot be opened is the
dismissal the configuration's `dismissed` list (`.prscope.toml`, or `[tool.prscope]` in pyproject.toml):
an edit of that file, which the user sees in the editor and can undo, never a silent write.

The configuration edit is made on the file's text (keeping its comments and layout) and checked before it
is offered: the edited file must parse to the same configuration plus the one dismissed id; otherwise
nothing is offered.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from prscope.analysis.findings import Finding
from prscope.analysis.positions import PositionEncoding, line_and_column, lsp_character, split_lines
from prscope.server.diagnostics import edit_capabilities
from pygls.uris import from_fs_path

DISMISS_COMMAND = "prscope.dismissFinding"
ReadText = Callable[[Path], str | None]
"""A file's current text (the editor's buffer when it is open), None when it does not exist."""

_HEADER = re.compile(r"^[ \t]*\[", re.MULTILINE)
_DISMISSED_KEY = re.compile(r"^[ \t]*dismissed[ \t]*=[ \t]*", re.MULTILINE)
_PRSCOPE_TABLE = re.compile(r"^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*prscope[ \t]*\][ \t]*(#.*)?$", re.MULTILINE)


@dataclass(frozen=True)
class ConfigEdit:
    """Insertions into the configuration file `path` (code-point offsets into its current text, in
    increasing order); `create` when the file does not exist yet."""

    path: Path
    text: str
    inserts: tuple[tuple[int, str], ...]
    create: bool = False


def store_dismiss_action(finding: Finding, root: Path) -> types.CodeAction | None:
    """The "Dismiss finding" code action that records the dismissal in the run store (the command does)."""
    if not finding.id:
        return None
    argument = {"id": finding.id, "record": str(from_fs_path(str(root))), "reason": _note(finding)}
    return types.CodeAction(
        title=f"prscope: dismiss this finding ({finding.rule})",
        kind=types.CodeActionKind.QuickFix,
        command=types.Command(
            title="prscope: dismiss this finding", command=DISMISS_COMMAND, arguments=[argument]
        ),
    )


def config_dismiss_action(
    finding: Finding,
    root: Path,
    read: ReadText,
    encoding: PositionEncoding,
    capabilities: types.ClientCapabilities | None,
    version_of: Callable[[str], int | None],
) -> types.CodeAction | None:
    """The "Dismiss finding" code action that edits the configuration's `dismissed` list (the store
    cannot be used), or None when the dismissal cannot be recorded safely."""
    edit = config_dismissal(root, finding, read)
    if edit is None:
        return None
    workspace_edit = _workspace_edit(edit, encoding, capabilities, version_of)
    if workspace_edit is None:
        return None
    return types.CodeAction(
        title=f"prscope: dismiss this finding ({finding.rule}) in {edit.path.name}",
        kind=types.CodeActionKind.QuickFix,
        edit=workspace_edit,
        command=types.Command(
            title="prscope: hide the dismissed finding",
            command=DISMISS_COMMAND,
            arguments=[{"id": finding.id}],
        ),
    )


def config_dismissal(root: Path, finding: Finding, read: ReadText) -> ConfigEdit | None:
    """The edit that adds the finding's id to the `dismissed` list of the repository's configuration."""
    from prscope.analysis.config import CONFIG_FILE, find_config_file

    if not finding.id:
        return None
    path = find_config_file(root)
    text = read(path) if path is not None else None
    entry = _entry(finding)
    if path is None or text is None:
        created = (
            f"# prscope configuration: findings dismissed in the editor\ndismissed = [\n    {entry}\n]\n"
        )
        edit = ConfigEdit(root / CONFIG_FILE, "", ((0, created),), create=True)
    else:
        inserts = _inserts(text, entry, in_pyproject=path.name == "pyproject.toml")
        if inserts is None:
            return None
        if "\r\n" in text:  # keep the file's line breaks
            inserts = tuple((offset, added.replace("\n", "\r\n")) for offset, added in inserts)
        edit = ConfigEdit(path, text, inserts)
    return edit if _adds_exactly(edit, finding.id) else None


def _note(finding: Finding) -> str:
    """What the dismissal says about the finding: its rule, title and place when it was dismissed."""
    return " ".join(f"{finding.rule}: {finding.title} ({finding.path}:{finding.line})".split())[:120]


def _entry(finding: Finding) -> str:
    return f'"{finding.id}",  # {_note(finding)}'


def _section(text: str, in_pyproject: bool) -> tuple[int, int] | None:
    """Offsets of the table that holds prscope's keys: the top of `.prscope.toml` (up to its first
    table), or `[tool.prscope]` in pyproject.toml (up to the next table); None when there is none."""
    if not in_pyproject:
        first = _HEADER.search(text)
        return 0, first.start() if first else len(text)
    table = _PRSCOPE_TABLE.search(text)
    if table is None:
        return None
    following = _HEADER.search(text, table.end())
    return table.end(), following.start() if following else len(text)


def _inserts(text: str, entry: str, *, in_pyproject: bool) -> tuple[tuple[int, str], ...] | None:
    section = _section(text, in_pyproject)
    if section is None:
        # Only sub-tables such as [tool.prscope.model] exist: add the table itself at the end.
        lead = "" if not text or text.endswith("\n") else "\n"
        return ((len(text), f"{lead}\n[tool.prscope]\ndismissed = [\n    {entry}\n]\n"),)
    start, end = section
    key = _DISMISSED_KEY.search(text, start, end)
    if key is None:
        return (_new_key(text, start, end, entry),)
    return _append_to_array(text, key.end(), entry)


def _new_key(text: str, start: int, end: int, entry: str) -> tuple[int, str]:
    """`dismissed = [...]` after the section's last non-blank line."""
    body = text[start:end].rstrip()
    where = start + len(body)
    line = f"dismissed = [\n    {entry}\n]\n"
    if where == 0:
        return 0, line
    return where, "\n" + line.rstrip("\n")


def _append_to_array(text: str, opening: int, entry: str) -> tuple[tuple[int, str], ...] | None:
    """Inserts that append `entry` to the array whose `[` is at `opening`: on a line of its own before
    the closing bracket when that bracket is on a line of its own, otherwise inline."""
    if opening >= len(text) or text[opening] != "[":
        return None
    scanned = _scan_array(text, opening)
    if scanned is None:
        return None
    closing, last_value = scanned
    inserts: list[tuple[int, str]] = []
    line_start = text.rfind("\n", 0, closing) + 1
    own_line = not text[line_start:closing].strip() and line_start > opening
    needs_comma = text[last_value] not in "[,"
    value = entry.split(",", 1)[0]
    if own_line:
        if needs_comma:
            inserts.append((last_value + 1, ","))
        indent = "    "
        inserts.append((line_start, f"{indent}{entry}\n"))
        return tuple(inserts)
    prefix = "" if text[last_value] == "[" else (" " if text[last_value] == "," else ", ")
    return ((closing, f"{prefix}{value}"),)


def _scan_array(text: str, opening: int) -> tuple[int, int] | None:
    """(offset of the `]` closing the array opened at `opening`, offset of its last significant
    character before that: a value's last character, a comma, or the `[` itself)."""
    depth, position, last = 0, opening, opening
    while position < len(text):
        char = text[position]
        if char == "#":
            newline = text.find("\n", position)
            position = len(text) if newline < 0 else newline
            continue
        if char in "\"'":
            end = _string_end(text, position)
            if end is None:
                return None
            last, position = end, end + 1
            continue
        if char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return position, last
        if not char.isspace():
            last = position
        position += 1
    return None


def _string_end(text: str, start: int) -> int | None:
    """Offset of the closing quote of the TOML string opening at `start` (basic or literal, one line or
    three quotes)."""
    quote = text[start]
    triple = text.startswith(quote * 3, start)
    delimiter = quote * 3 if triple else quote
    position = start + len(delimiter)
    while position < len(text):
        if quote == '"' and text[position] == "\\":
            position += 2
            continue
        if text.startswith(delimiter, position):
            return position + len(delimiter) - 1
        if not triple and text[position] == "\n":
            return None
        position += 1
    return None


def apply_inserts(text: str, inserts: tuple[tuple[int, str], ...]) -> str:
    for offset, added in sorted(inserts, key=lambda item: item[0], reverse=True):
        text = text[:offset] + added + text[offset:]
    return text


def _adds_exactly(edit: ConfigEdit, finding_id: str) -> bool:
    """Whether the edited file reads as the same configuration with `finding_id` appended to
    `dismissed` (a file that does not parse now is not edited)."""
    from prscope.analysis.config import PrscopeConfig, config_from_reader
    from prscope.analysis.errors import ConfigError

    name = edit.path.name

    def reader(text: str) -> Callable[[str], str | None]:
        return lambda wanted: text if wanted == name else None

    try:
        before = config_from_reader(reader(edit.text)) if not edit.create else PrscopeConfig()
        after = config_from_reader(reader(apply_inserts(edit.text, edit.inserts)))
    except ConfigError:
        return False
    if after.dismissed != [*before.dismissed, finding_id]:
        return False
    return after.model_dump(exclude={"dismissed"}) == before.model_dump(exclude={"dismissed"})


def _workspace_edit(
    edit: ConfigEdit,
    encoding: PositionEncoding,
    capabilities: types.ClientCapabilities | None,
    version_of: Callable[[str], int | None],
) -> types.WorkspaceEdit | None:
    uri = str(from_fs_path(str(edit.path)))
    lines = split_lines(edit.text)
    edits = [
        types.TextEdit(range=_point(edit.text, lines, offset, encoding), new_text=added)
        for offset, added in edit.inserts
    ]
    document_changes, can_create = edit_capabilities(capabilities)
    if edit.create:
        if not can_create:
            return None
        return types.WorkspaceEdit(
            document_changes=[
                types.CreateFile(uri=uri, options=types.CreateFileOptions(ignore_if_exists=True)),
                types.TextDocumentEdit(
                    text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=None),
                    edits=list(edits),
                ),
            ]
        )
    if not document_changes:
        return types.WorkspaceEdit(changes={uri: list(edits)})
    return types.WorkspaceEdit(
        document_changes=[
            types.TextDocumentEdit(
                text_document=types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version_of(uri)),
                edits=list(edits),
            )
        ]
    )


def _point(text: str, lines: list[str], offset: int, encoding: PositionEncoding) -> types.Range:
    line, column = line_and_column(text, offset)
    line_text = lines[line - 1] if line <= len(lines) else ""
    position = types.Position(line=line - 1, character=lsp_character(line_text, column, encoding))
    return types.Range(start=position, end=position)
