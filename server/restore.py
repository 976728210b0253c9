"""The last review's findings shown again when the server starts anew (the client restarted it after a
settings change, or after a crash), from the run store where the engine recorded them.

The client names the run (`restore: {runId, uri}` in its initialization options: the `stored_run_id`
of the review whose findings it showed). Each finding is placed on the document as it is now by its
fingerprint (`server.tracking`), as findings are while a review runs; one whose line changed since is
left out, and dismissed ones stay hidden. The client hears how it went in one `prscope/restored`
notification `{run_id, shown, not_shown, error}` (`error`: why nothing was restored, or "").
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from prscope.analysis.errors import PrscopeError
from prscope.analysis.findings import Finding
from prscope.server.reviewing import Outbox, Workspace, dismissed_ids, place_findings, publish
from prscope.server.session import Session
from prscope.server.settings import RestoreOptions

log = logging.getLogger(__name__)

RESTORED = "prscope/restored"


class NothingToRestoreError(PrscopeError):
    """The run's findings cannot be read back; `str()` says why, in one line."""


def stored_findings(root: Path, run_id: str) -> list[Finding]:
    """The findings the run store holds for `run_id`, without those dismissed since."""
    from prscope.analysis.store import StoreUnavailable
    from prscope.server.history import store_session

    try:
        with store_session(root) as store:
            findings = store.findings_of(run_id)
    except StoreUnavailable as err:
        raise NothingToRestoreError(str(err)) from None
    if findings is None:
        raise NothingToRestoreError(f"the run store holds no run {run_id}")
    dismissed = dismissed_ids(root)
    return [finding for finding in findings if finding.id not in dismissed]


async def restore_review(
    session: Session, options: RestoreOptions, workspace_for: Callable[[Path], Workspace], outbox: Outbox
) -> dict[str, Any]:
    """Show the run's findings again, unless a review of the folder has started meanwhile (its findings
    are newer). `workspace_for(root)` makes the Workspace of a repository root. Never raises."""
    answer: dict[str, Any] = {"run_id": options.run_id, "shown": 0, "not_shown": 0, "error": ""}
    try:
        root = await asyncio.to_thread(_repository_of, session, options.uri)
        findings = await asyncio.to_thread(stored_findings, root, options.run_id)
    except PrscopeError as err:
        answer["error"] = str(err)
        log.warning("prscope: the last review's findings were not restored: %s", err)
        outbox.notify(RESTORED, answer)
        return answer
    workspace = workspace_for(root)
    reviewing = any(run.root == root and run.kind == "review" for run in session.runs.values())
    if reviewing or session.last_run is not None:
        answer["error"] = "a new review has started"
        outbox.notify(RESTORED, answer)
        return answer
    visible = [finding for finding in findings if finding.id not in session.hidden]
    by_uri, unplaced = place_findings(visible, workspace)
    changed = session.documents.replace_review(workspace.root_uri, by_uri)
    publish(session, outbox, changed)
    session.last_root = root
    answer["shown"] = sum(len(items) for items in by_uri.values())
    answer["not_shown"] = len(unplaced)
    outbox.notify(RESTORED, answer)
    return answer


def _repository_of(session: Session, uri: str) -> Path:
    from prscope.analysis.tools.registry import find_repo_root
    from pygls.uris import to_fs_path

    path = to_fs_path(uri)
    if not path:
        raise NothingToRestoreError(f"not a folder: {uri}")
    return find_repo_root(session.root_for(Path(path)))
