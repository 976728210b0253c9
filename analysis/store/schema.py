"""The store's schema, as numbered migrations: `PRAGMA user_version` says which have run.

Version 1: runs, agents, findings, dismissals. Version 2: each agent's task, a finding's
full body, the agents' transcripts, and the complete model reviews that the result cache and the
incremental re-review reuse (`model_reviews.payload`, see `analysis.store.memory`).
"""

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
    """
    ALTER TABLE agents ADD COLUMN task TEXT NOT NULL DEFAULT '';
    ALTER TABLE findings ADD COLUMN body TEXT;
    ALTER TABLE runs ADD COLUMN reuse TEXT NOT NULL DEFAULT '';
    CREATE TABLE transcripts (
        run_id TEXT NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
        agent_id TEXT NOT NULL,
        body TEXT NOT NULL,
        PRIMARY KEY (run_id, agent_id)
    );
    CREATE TABLE model_reviews (
        run_id TEXT PRIMARY KEY REFERENCES runs(id) ON DELETE CASCADE,
        cache_key TEXT NOT NULL,
        settings_key TEXT NOT NULL,
        lineage TEXT NOT NULL,
        head TEXT,
        created_at REAL NOT NULL,
        payload TEXT NOT NULL
    );
    CREATE INDEX model_reviews_by_cache ON model_reviews(cache_key);
    CREATE INDEX model_reviews_by_lineage ON model_reviews(lineage, settings_key, created_at);
    """,
)
