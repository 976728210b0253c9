"""The run store (`analysis.store`) on behalf of the editor: a run read back for `prscope.showRun` (what
`prscope show RUN` prints), and dismissals recorded and read by fingerprint. (The engine records the
reviews themselves, the editor's as the CLI's.)

Each function opens the store, does one thing and closes it (they run in worker threads). A store that
cannot be used is one warning in the log; only `record_dismissal_for` fails, so that the user knows the
dismissal was not recorded.
"""

from __future__ import annotations

import logging
import sqlite3
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prscope.analysis.errors import ConfigError, PrscopeError
from prscope.analysis.store import Store, StoreUnavailable, open_store
from prscope.analysis.store_cli import show_lines
from prscope.server.events import render_tree

if TYPE_CHECKING:
    from prscope.server.session import Session

log = logging.getLogger(__name__)


@contextmanager
def store_session(root: Path) -> Iterator[Store]:
    """The store of the repository at `root`; StoreUnavailable when it cannot be opened or used."""
    try:
        store = open_store(root)
    except (OSError, subprocess.SubprocessError) as err:  # git missing or hanging
        raise StoreUnavailable(f"the run store cannot be used ({err})") from None
    try:
        yield store
    except sqlite3.Error as err:
        raise StoreUnavailable(f"the run store {store.path} cannot be used ({err})") from None
    finally:
        store.close()


def store_usable(root: Path) -> bool:
    try:
        with store_session(root):
            return True
    except StoreUnavailable as err:
        log.warning("prscope: %s", err)
        return False


def record_dismissal_for(session: Session, root: Path, finding_id: str, reason: str) -> None:
    """The dismissal in the run store of `root`; a PrscopeError (one line) when it could not be recorded,
    after which the store is taken as unusable: the next "Dismiss finding" edits the configuration."""
    try:
        with store_session(root) as store:
            store.dismiss(finding_id, reason)
    except StoreUnavailable as err:
        session.store_usable[root] = False
        raise PrscopeError(
            f"prscope: the dismissal was not recorded: {err}; dismiss the finding again to record it in "
            "the configuration"
        ) from None
    session.store_usable[root] = True


def store_dismissals(root: Path) -> frozenset[str]:
    """The finding ids dismissed in the store (none when it cannot be used)."""
    try:
        with store_session(root) as store:
            return frozenset(d.finding_id for d in store.dismissals())
    except StoreUnavailable as err:
        log.warning("prscope: dismissals in the run store not read: %s", err)
        return frozenset()


def show_run_answer(session: Session, root: Path | None, run_id: str | None) -> dict[str, Any] | None:
    """`prscope.showRun`: the run from the store of `root`; without a usable store, the last review of
    this session. None when there is no run; a ConfigError when `run_id` names none."""
    if root is not None:
        try:
            detail = run_detail(root, run_id)
        except StoreUnavailable as err:
            log.warning("prscope: %s", err)
        else:
            if detail is None and run_id is not None:
                raise ConfigError(f"prscope: no run {run_id!r} in this repository's history")
            return detail
    return _session_run(session, run_id)


def _session_run(session: Session, run_id: str | None) -> dict[str, Any] | None:
    last = session.last_run
    if last is None or (run_id is not None and not last.run_id.startswith(run_id)):
        if run_id is not None:
            raise ConfigError(f"prscope: no run {run_id!r} in this session, and no run store to look in")
        return None
    return {
        "run_id": last.run_id,
        "status": last.status,
        "status_reason": last.status_reason,
        "agents": last.agents,
        "findings": [],
        "text": render_tree(last.agents),
    }


def run_detail(root: Path, run_id: str | None) -> dict[str, Any] | None:
    """The run `run_id` (a unique prefix is enough), else the latest, as `prscope show RUN` tells it:
    None when there is no such run. Raises StoreUnavailable."""
    with store_session(root) as store:
        if run_id is None:
            latest = store.runs(1)
            if not latest:
                return None
            run_id = latest[0].id
        detail = store.run_detail(run_id)
    if detail is None:
        return None
    run, agents, findings = detail
    agent_keys = ("id", "parent_id", "label", "status", "model", "tool_calls", "tokens", "cost_usd")
    finding_keys = ("id", "severity", "rule", "path", "line", "title", "source")
    return {
        "run_id": run.id,
        "status": run.status,
        "status_reason": run.status_reason,
        "mode": run.mode,
        "base": run.base,
        "head": run.head,
        "started_at": run.started_at,
        "cost_usd": run.cost_usd,
        "agents": [dict(zip(agent_keys, row, strict=True)) for row in agents],
        "findings": [dict(zip(finding_keys, row, strict=True)) for row in findings],
        "text": "\n".join(show_lines(detail)),
    }
