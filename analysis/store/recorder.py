"""The run store as one review uses it: the run recorded from its start (so a killed review shows as
interrupted), earlier model reviews looked up for reuse, and the finished run written with its agents'
transcripts. Every store failure becomes one warning line; the review never depends on the store.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from prscope.analysis.report import Report
from prscope.analysis.store.db import RunExtras, Store, StoredReview, StoreUnavailable, open_store, store_path
from prscope.analysis.store.memory import ReviewKeys, StoredModelReview
from pydantic import ValidationError

_CREDENTIAL_SUFFIXES = ("_API_KEY", "_TOKEN", "_SECRET", "_PASSWORD")
_TASK_CHARS = 2_000


@dataclass(frozen=True)
class EarlierReview:
    kind: Literal["cache", "incremental"]
    run_id: str
    review: StoredModelReview


class RunMemory:
    """One review's handle on the store. Open it with `RunMemory.open`; close it with `finish`."""

    def __init__(self, store: Store, run_id: str, env: Mapping[str, str]) -> None:
        self.store = store
        self.run_id = run_id
        self._secrets = sorted(
            (v for k, v in env.items() if k.upper().endswith(_CREDENTIAL_SUFFIXES) and len(v) >= 8),
            key=len,
            reverse=True,
        )

    @classmethod
    def open(cls, repo_root: Path, mode: str, env: Mapping[str, str]) -> tuple[RunMemory | None, str]:
        """The handle and '' or None and the one-line warning why the review runs without the store."""
        try:
            store_path(repo_root)
        except (StoreUnavailable, OSError):
            return None, ""  # not a repository: the review itself says so
        try:
            store = open_store(repo_root)
        except StoreUnavailable as err:
            return None, str(err)
        try:
            return cls(store, store.start_run(mode), env), ""
        except (OSError, sqlite3.Error) as err:
            store.close()
            return None, f"the run store {store.path} cannot be used ({err}); reviewing without it"

    def earlier_review(self, keys: ReviewKeys) -> EarlierReview | None:
        """A stored review of this very change (the cache) or else the last one of the same pull request."""
        try:
            cached = self.store.cached_review(keys.cache_key)
            if cached is not None:
                return _parsed("cache", *cached)
            previous = self.store.previous_review(keys.lineage, keys.settings_key)
        except sqlite3.Error:
            return None
        return _parsed("incremental", *previous) if previous is not None else None

    def dismissed_ids(self) -> list[str]:
        return list(self.dismissals())

    def dismissals(self) -> dict[str, str]:
        """Finding id -> the reason it was dismissed with."""
        try:
            return {d.finding_id: d.reason for d in self.store.dismissals()}
        except sqlite3.Error:
            return {}

    def finish(
        self,
        report: Report,
        transcripts: Mapping[str, list[dict[str, Any]]],
        model_review: tuple[ReviewKeys, StoredModelReview] | None,
    ) -> str:
        """Write the run; '' or the warning that it could not be written. Closes the store."""
        bodies = {
            agent: self.scrub(json.dumps(body, ensure_ascii=False)) for agent, body in transcripts.items()
        }
        extras = RunExtras(tasks=_tasks(transcripts), transcripts=bodies)
        if model_review is not None:
            keys, review = model_review
            extras.model_review = StoredReview(keys, self.scrub(review.model_dump_json()))
        try:
            self.store.finish_run(self.run_id, report, extras)
            return ""
        except sqlite3.Error as err:
            return f"the run was not recorded: {err}"
        finally:
            self.store.close()

    def abandon(self) -> None:
        """The review never ran (not a repository, an unknown base): no run to show in the history."""
        try:
            self.store.delete_run(self.run_id)
        except sqlite3.Error:
            pass
        finally:
            self.store.close()

    def scrub(self, text: str) -> str:
        """Credentials out of text bound for the store: the environment's keys and known token formats."""
        from prscope.analysis.checks.secrets import mask_secrets

        for secret in self._secrets:
            text = text.replace(secret, "***")
        return mask_secrets(text)


def _parsed(kind: Literal["cache", "incremental"], run_id: str, payload: str) -> EarlierReview | None:
    try:
        return EarlierReview(kind, run_id, StoredModelReview.model_validate_json(payload))
    except (ValidationError, ValueError):
        return None  # written by another version, or damaged: review afresh


def _tasks(transcripts: Mapping[str, list[dict[str, Any]]]) -> dict[str, str]:
    """Each subagent's task: the first user message of its conversation (the main reviewer's is the diff)."""
    tasks: dict[str, str] = {}
    for agent_id, messages in transcripts.items():
        first = next((m for m in messages if m.get("role") == "user"), None)
        if agent_id == "main" or first is None:
            continue
        texts = [b.get("text", "") for b in first.get("content", []) if b.get("type") == "text"]
        tasks[agent_id] = "".join(texts)[:_TASK_CHARS]
    return tasks
