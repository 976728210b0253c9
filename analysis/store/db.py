"""One SQLite file per repository, in the git directory: `<git common dir>/prscope/store.sqlite3`.

Why there: it belongs to this clone (not to a branch or a worktree: every worktree of a clone shares it),
it is outside the tracked tree (never committed, never in a diff), and it goes away with the clone. WAL
and a busy timeout let an editor and the CLI write at the same time. A store that cannot be opened (a
corrupt or unwritable file) is `StoreUnavailable`: callers warn in one line and review without it.
"""

from __future__ import annotations

import os
import sqlite3
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from prscope.analysis import gitsafe
from prscope.analysis.findings import Finding
from prscope.analysis.report import Report
from prscope.analysis.store.memory import ReviewKeys
from prscope.analysis.store.schema import MIGRATIONS
from pydantic import ValidationError

BUSY_TIMEOUT_S = 10.0


class StoreUnavailable(Exception):
    """The store cannot be used; `str()` is one line for the user."""


@dataclass(frozen=True)
class RunRow:
    id: str
    started_at: float
    mode: str
    base: str | None
    head: str | None
    status: str
    status_reason: str
    findings: int
    cost_usd: float | None


@dataclass(frozen=True)
class StoredReview:
    keys: ReviewKeys
    payload: str
    """`StoredModelReview` as JSON."""


@dataclass
class RunExtras:
    """What a run records beyond its report: the agents' tasks and transcripts (JSON by agent id) and,
    for a complete model review, what the cache and the next incremental review reuse."""

    tasks: dict[str, str] = field(default_factory=dict)
    transcripts: dict[str, str] = field(default_factory=dict)
    model_review: StoredReview | None = None


@dataclass(frozen=True)
class Dismissal:
    finding_id: str
    reason: str
    created_at: float


def store_path(repo_root: Path) -> Path:
    result = gitsafe.run_git(repo_root, ["rev-parse", "--git-common-dir"], timeout_s=30)
    common = result.stdout.decode("utf-8", "surrogateescape").strip()
    if result.returncode != 0 or not common:
        raise StoreUnavailable(f"no git directory for {repo_root}")
    directory = Path(common) if os.path.isabs(common) else repo_root / common
    return directory / "prscope" / "store.sqlite3"


def open_store(repo_root: Path) -> Store:
    path = store_path(repo_root)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(
            path, timeout=BUSY_TIMEOUT_S, isolation_level=None, check_same_thread=False
        )
        store = Store(connection, path)
        store.prepare()
    except (OSError, sqlite3.Error) as err:
        raise StoreUnavailable(f"the run store {path} cannot be used ({err}); reviewing without it") from None
    return store


class Store:
    def __init__(self, connection: sqlite3.Connection, path: Path) -> None:
        self.connection = connection
        self.path = path

    def prepare(self) -> None:
        """WAL, the busy timeout, migrations, and runs left 'running' by a dead process marked interrupted."""
        self.connection.execute(f"PRAGMA busy_timeout = {int(BUSY_TIMEOUT_S * 1000)}")
        self._switch_to_wal()
        self.connection.execute("PRAGMA foreign_keys = ON")
        self._migrate()
        self.mark_interrupted()

    def _switch_to_wal(self) -> None:
        """`PRAGMA journal_mode = WAL` does not wait for the busy timeout: two processes opening a new
        store at once (an editor and the CLI) would see "database is locked". Retry within the timeout."""
        deadline = time.monotonic() + BUSY_TIMEOUT_S
        while True:
            try:
                self.connection.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as err:
                if "locked" not in str(err) or time.monotonic() > deadline:
                    raise
                time.sleep(0.05)

    def _migrate(self) -> None:
        with self._transaction():
            version = int(self.connection.execute("PRAGMA user_version").fetchone()[0])
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in filter(str.strip, script.split(";")):
                    self.connection.execute(statement)
                self.connection.execute(f"PRAGMA user_version = {number}")

    @contextmanager
    def _transaction(self) -> Iterator[None]:
        self.connection.execute("BEGIN IMMEDIATE")
        try:
            yield
        except BaseException:
            self.connection.execute("ROLLBACK")
            raise
        self.connection.execute("COMMIT")

    def close(self) -> None:
        self.connection.close()

    def start_run(self, mode: str) -> str:
        run_id = time.strftime("%Y%m%d-%H%M%S") + "-" + uuid.uuid4().hex[:6]
        with self._transaction():
            self.connection.execute(
                "INSERT INTO runs (id, started_at, mode, status, pid) VALUES (?, ?, ?, 'running', ?)",
                (run_id, time.time(), mode, os.getpid()),
            )
        return run_id

    def finish_run(self, run_id: str, report: Report, extra: RunExtras | None = None) -> None:
        """Record the finished review. Texts in `extra` must already be scrubbed of credentials."""
        extra = extra or RunExtras()
        usage = report.usage
        reuse = report.reuse.model_dump_json() if report.reuse is not None else ""
        with self._transaction():
            self.connection.execute(
                "UPDATE runs SET finished_at = ?, mode = ?, base = ?, head = ?, status = ?,"
                " status_reason = ?, requests = ?, input_tokens = ?, output_tokens = ?, cost_usd = ?,"
                " reuse = ?, pid = NULL WHERE id = ?",
                (
                    time.time(),
                    report.mode,
                    report.base,
                    report.head,
                    report.status,
                    report.status_reason,
                    usage.requests,
                    usage.input_tokens,
                    usage.output_tokens,
                    report.cost_usd,
                    reuse,
                    run_id,
                ),
            )
            self.connection.executemany(
                "INSERT INTO agents (run_id, id, parent_id, is_subagent, label, status, model, tool_calls,"
                " tokens, cost_usd, task) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        run_id,
                        a.id,
                        a.parent_id,
                        a.parent_id is not None,
                        a.label,
                        a.status,
                        a.model,
                        a.tool_calls,
                        a.tokens,
                        a.cost_usd,
                        extra.tasks.get(a.id, ""),
                    )
                    for a in report.agents
                ],
            )
            self.connection.executemany(
                "INSERT INTO findings (run_id, id, rule, severity, source, path, line, title, confidence,"
                " body) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [
                    (
                        run_id,
                        f.id,
                        f.rule,
                        f.severity.value,
                        f.source,
                        f.path,
                        f.line,
                        f.title,
                        f.confidence,
                        f.model_dump_json(),
                    )
                    for f in report.findings
                ],
            )
            self.connection.executemany(
                "INSERT OR REPLACE INTO transcripts (run_id, agent_id, body) VALUES (?, ?, ?)",
                [(run_id, agent_id, body) for agent_id, body in extra.transcripts.items()],
            )
            if extra.model_review is not None:
                keys = extra.model_review.keys
                self.connection.execute(
                    "INSERT OR REPLACE INTO model_reviews (run_id, cache_key, settings_key, lineage, head,"
                    " created_at, payload) VALUES (?, ?, ?, ?, ?, ?, ?)",
                    (
                        run_id,
                        keys.cache_key,
                        keys.settings_key,
                        keys.lineage,
                        report.head,
                        time.time(),
                        extra.model_review.payload,
                    ),
                )

    def cached_review(self, cache_key: str) -> tuple[str, str] | None:
        """The newest stored model review of exactly this change: (run id, payload)."""
        row = self.connection.execute(
            "SELECT run_id, payload FROM model_reviews WHERE cache_key = ? ORDER BY created_at DESC LIMIT 1",
            (cache_key,),
        ).fetchone()
        return (str(row[0]), str(row[1])) if row else None

    def previous_review(self, lineage: str, settings_key: str) -> tuple[str, str] | None:
        """The newest stored model review of the same pull request under the same settings."""
        if not lineage:
            return None
        row = self.connection.execute(
            "SELECT run_id, payload FROM model_reviews WHERE lineage = ? AND settings_key = ?"
            " ORDER BY created_at DESC LIMIT 1",
            (lineage, settings_key),
        ).fetchone()
        return (str(row[0]), str(row[1])) if row else None

    def transcript(self, run_id: str, agent_id: str) -> str | None:
        row = self.connection.execute(
            "SELECT body FROM transcripts WHERE run_id = ? AND agent_id = ?", (run_id, agent_id)
        ).fetchone()
        return str(row[0]) if row else None

    def delete_run(self, run_id: str) -> None:
        with self._transaction():
            self.connection.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    def mark_interrupted(self) -> int:
        """Runs still 'running' whose process is gone (killed, crashed) become 'interrupted'."""
        rows = self.connection.execute("SELECT id, pid FROM runs WHERE status = 'running'").fetchall()
        dead = [run_id for run_id, pid in rows if not _alive(pid)]
        if dead:
            with self._transaction():
                self.connection.executemany(
                    "UPDATE runs SET status = 'interrupted', status_reason = 'the process ended before the"
                    " review finished', pid = NULL WHERE id = ?",
                    [(run_id,) for run_id in dead],
                )
        return len(dead)

    def runs(self, limit: int = 20) -> list[RunRow]:
        rows = self.connection.execute(
            "SELECT r.id, r.started_at, r.mode, r.base, r.head, r.status, r.status_reason,"
            " (SELECT COUNT(*) FROM findings f WHERE f.run_id = r.id), r.cost_usd"
            " FROM runs r ORDER BY r.started_at DESC LIMIT ?",
            (limit,),
        ).fetchall()
        return [RunRow(*row) for row in rows]

    def run_detail(
        self, run_id: str
    ) -> tuple[RunRow, list[tuple[object, ...]], list[tuple[object, ...]]] | None:
        run = next((r for r in self.runs(10_000) if r.id == run_id or r.id.startswith(run_id)), None)
        if run is None:
            return None
        agents = self.connection.execute(
            "SELECT id, parent_id, label, status, model, tool_calls, tokens, cost_usd FROM agents"
            " WHERE run_id = ? ORDER BY rowid",
            (run.id,),
        ).fetchall()
        findings = self.connection.execute(
            "SELECT id, severity, rule, path, line, title, source FROM findings WHERE run_id = ?"
            " ORDER BY rowid",
            (run.id,),
        ).fetchall()
        return run, agents, findings

    def findings_of(self, run_id: str) -> list[Finding] | None:
        """The findings run `run_id` (the exact id) recorded, whole; None when there is no such run."""
        if self.connection.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
            return None
        rows = self.connection.execute(
            "SELECT body FROM findings WHERE run_id = ? ORDER BY rowid", (run_id,)
        ).fetchall()
        findings: list[Finding] = []
        for (body,) in rows:
            try:
                findings.append(Finding.model_validate_json(body))
            except ValidationError:
                continue  # written by another version of prscope: left out
        return findings

    def dismiss(self, finding_id: str, reason: str) -> None:
        with self._transaction():
            self.connection.execute(
                "INSERT INTO dismissals (finding_id, reason, created_at) VALUES (?, ?, ?)"
                " ON CONFLICT(finding_id) DO UPDATE SET reason = excluded.reason",
                (finding_id, reason, time.time()),
            )

    def undo_dismissal(self, finding_id: str) -> bool:
        with self._transaction():
            cursor = self.connection.execute("DELETE FROM dismissals WHERE finding_id = ?", (finding_id,))
        return cursor.rowcount > 0

    def dismissals(self) -> list[Dismissal]:
        rows = self.connection.execute(
            "SELECT finding_id, reason, created_at FROM dismissals ORDER BY created_at"
        ).fetchall()
        return [Dismissal(*row) for row in rows]


def _alive(pid: int | None) -> bool:
    if not pid:
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
