"""The store's schema, as numbered migrations: `PRAGMA user_version` says which have run."""

from __future__ import annotations

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE runs (
        id TEXT PRIMARY KEY,
        started_at REAL NOT NULL,
        finished_at REAL,
        mode TEXT NOT NULL,
        base TEXT,
        head TEXT,
        status TEXT NOT NULL,
        status_reason TEXT NOT NULL DEFAULT '',
        requests INTEGER NOT NULL DEFAULT 0,
        input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL,
        pid INTEGER
    );
    CREATE TABLE agents (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        parent_id TEXT,
        is_subagent INTEGER NOT NULL,
        label TEXT NOT NULL,
        status TEXT NOT NULL,
        model TEXT,
        tool_calls INTEGER NOT NULL DEFAULT 0,
        tokens INTEGER NOT NULL DEFAULT 0,
        cost_usd REAL,
        PRIMARY KEY (run_id, id)
    );
    CREATE TABLE findings (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        rule TEXT NOT NULL,
        severity TEXT NOT NULL,
        source TEXT NOT NULL,
        path TEXT NOT NULL,
        line INTEGER NOT NULL,
        title TEXT NOT NULL,
        confidence REAL NOT NULL
    );
    CREATE INDEX findings_by_run ON findings(run_id);
    CREATE TABLE dismissals (
        finding_id TEXT PRIMARY KEY,
        reason TEXT NOT NULL DEFAULT '',
        created_at REAL NOT NULL
    );
    """,
)
