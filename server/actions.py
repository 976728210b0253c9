"""Code actions on prscope's diagnostics: a fix while it still fits the document as it is now, and a
"dismiss" that records the dismissal (see `server.dismiss`)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from lsprotocol import types
from prscope.analysis.positions import PositionEncoding
from prscope.server.diagnostics import document_edit, edit_capabilities, fix_action, fix_edit, matching_item
from prscope.server.dismiss import ReadText, config_dismiss_action, store_dismiss_action
from prscope.server.reviewing import DocumentText
from prscope.server.tracking import Placed
from pygls.uris import to_fs_path


@dataclass(frozen=True)
class ActionContext:
    """One code action request: the document as it is now and what it shows, and the client."""

    uri: str
    document: DocumentText
    shown: Sequence[Placed]
    encoding: PositionEncoding
    capabilities: types.ClientCapabilities | None
    read: ReadText
    version_of: Callable[[str], int | None]
    store_usable: Callable[[Path], bool]
    """Whether the run store of a repository can record a dismissal."""


def finding_actions(
    context: ActionContext, diagnostics: Sequence[types.Diagnostic]
) -> list[types.CodeAction]:
    """For each prscope diagnostic the client sent: its fix, when the lines the fix replaces still read
    what they read when the finding was placed, and its dismissal. Fixes come first."""
    document_changes, _ = edit_capabilities(context.capabilities)
    fixes: list[types.CodeAction] = []
    dismissals: list[types.CodeAction] = []
    for diagnostic in diagnostics:
        item = matching_item(diagnostic, context.shown, context.encoding)
        if item is None:
            continue
        document = context.document
        edit = fix_edit(item, document.lines, document.ends_with_break, context.encoding)
        if edit is not None:
            workspace_edit = document_edit(context.uri, document.version, [edit], document_changes)
            fixes.append(fix_action(item, diagnostic, workspace_edit))
        dismissal = _dismissal(context, item)
        if dismissal is not None:
            dismissal.diagnostics = [diagnostic]
            dismissals.append(dismissal)
    return fixes + dismissals


def _dismissal(context: ActionContext, item: Placed) -> types.CodeAction | None:
    root = to_fs_path(item.base_uri) if item.base_uri else None
    if not root:
        return None
    if context.store_usable(Path(root)):
        return store_dismiss_action(item.finding, Path(root))
    return config_dismiss_action(
        item.finding, Path(root), context.read, context.encoding, context.capabilities, context.version_of
    )
