"""The run store through the real CLI on real repositories: history, show, dismissals that stick when
lines move, two writers at once, a killed run marked interrupted, a corrupt file, and no key inside."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from prscope.analysis.store import open_store, store_path
from prscope.analysis.store.schema import MIGRATIONS

from tests.fakeapi import FakeModelServer, text_turn
from tests.gitrepo import GIT_ENV, GitRepo
from tests.test_review_bounds import _changed_fetch_repo
from tests.test_review_helpers import demo_repo
from tests.test_review_model import KEY, MODEL_FINDING, MODEL_VARIABLES, _final
from tests.test_subagents_harness import Router, reply

PRSCOPE = Path(sys.executable).with_name("prscope")


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in {**os.environ, **GIT_ENV}.items() if k not in MODEL_VARIABLES}
    return {**env, **extra}


def _prscope(repo: GitRepo, *argv: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(PRSCOPE), *argv], cwd=repo.root, env=_env(**env), capture_output=True, text=True, check=False
    )


def _review_json(repo: GitRepo) -> tuple[int, dict[str, object]]:
    done = _prscope(repo, "review", "--base", "main", "--offline", "--format", "json")
    return done.returncode, json.loads(done.stdout)


def test_history_and_show_list_the_reviews(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    _review_json(repo)
    history = _prscope(repo, "history").stdout.splitlines()
    assert (
        len(history) == 1
        and "branch" in history[0]
        and "offline" in history[0]
        and "2 findings" in history[0]
    )
    run_id = history[0].split()[0]
    shown = _prscope(repo, "show", run_id[:15]).stdout
    assert (
        shown.startswith(f"run {run_id}: offline") and "breaking-call" in shown and "debug-leftover" in shown
    )
    assert store_path(repo.root).is_file() and ".git" in str(store_path(repo.root))
    assert _prscope(repo, "show", "nope").returncode == 2


def test_a_dismissal_sticks_when_lines_move_and_can_be_undone(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    code, report = _review_json(repo)
    assert code == 1
    findings = report["findings"]
    assert isinstance(findings, list)
    (stale,) = [f for f in findings if f["rule"] == "breaking-call"]
    assert _prscope(repo, "dismiss", stale["id"], "--reason", "fixed in the next PR").returncode == 0
    checkout = repo.root / "shopkit" / "checkout.py"
    checkout.write_text("# moved\n# down\n# three lines\n" + checkout.read_text())
    repo.commit("lines move")
    code, report = _review_json(repo)
    assert code == 0 and report["dismissed"] == [stale["id"]]
    sarif = json.loads(_prscope(repo, "review", "--base", "main", "--offline", "--format", "sarif").stdout)
    suppressed = [r for r in sarif["runs"][0]["results"] if r.get("suppressions")]
    assert (
        len(suppressed) == 1
        and suppressed[0]["locations"][0]["physicalLocation"]["region"]["startLine"] == 12
    )
    listed = _prscope(repo, "dismiss", "--list").stdout
    assert stale["id"] in listed and "fixed in the next PR" in listed
    assert _prscope(repo, "dismiss", "--undo", stale["id"]).returncode == 0
    assert _review_json(repo)[0] == 1


def test_two_reviews_at_once_are_both_recorded(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    argv = [str(PRSCOPE), "review", "--base", "main", "--offline", "--format", "json"]
    processes = [
        subprocess.Popen(argv, cwd=repo.root, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    errors = [process.communicate(timeout=120)[1] for process in processes]
    assert [p.returncode for p in processes] == [1, 1], errors
    assert b"warning" not in b"".join(errors)
    assert len(_prscope(repo, "history").stdout.splitlines()) == 2


def test_a_killed_review_is_marked_interrupted(tmp_path: Path) -> None:
    repo = _changed_fetch_repo(tmp_path / "repo", 1500)
    argv = [str(PRSCOPE), "review", "--base", "main", "--offline", "--format", "json"]
    process = subprocess.Popen(
        argv, cwd=repo.root, env=_env(), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    for _ in range(600):
        if process.poll() is not None or _running_runs(repo):
            break
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=30)
    history = _prscope(repo, "history").stdout
    assert "interrupted" in history, history


def _running_runs(repo: GitRepo) -> int:
    path = store_path(repo.root)
    if not path.exists():
        return 0
    try:
        with sqlite3.connect(path, timeout=5) as db:
            return int(db.execute("SELECT COUNT(*) FROM runs WHERE status = 'running'").fetchone()[0])
    except sqlite3.OperationalError:
        return 0  # not created yet


def test_a_corrupt_store_is_one_warning_and_the_review_runs(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    path = store_path(repo.root)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"this is not a database" * 100)
    done = _prscope(repo, "review", "--base", "main", "--offline", "--format", "json")
    assert done.returncode == 1 and json.loads(done.stdout)["findings"]
    warnings = [line for line in done.stderr.splitlines() if "warning" in line]
    assert len(warnings) == 1 and "cannot be used" in warnings[0] and "Traceback" not in done.stderr


def test_an_empty_store_file_is_migrated_to_the_current_schema(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    path = store_path(repo.root)
    path.parent.mkdir(parents=True, exist_ok=True)
    sqlite3.connect(path).close()  # version 0: no tables
    store = open_store(repo.root)
    try:
        version = store.connection.execute("PRAGMA user_version").fetchone()[0]
        assert version == len(MIGRATIONS) and store.runs() == []
    finally:
        store.close()


def test_a_version_1_store_is_migrated_keeping_its_history_and_dismissals(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    path = store_path(repo.root)
    path.parent.mkdir(parents=True, exist_ok=True)
    with sqlite3.connect(path) as old:
        old.executescript(MIGRATIONS[0])
        old.execute(
            "INSERT INTO runs (id, started_at, mode, status, status_reason) VALUES"
            " ('20261101-120000-abcdef', 1.0, 'branch', 'offline', 'no API key')"
        )
        old.execute(
            "INSERT INTO findings (run_id, id, rule, severity, source, path, line, title, confidence) VALUES"
            " ('20261101-120000-abcdef', 'f1', 'debug-leftover', 'warning', 'check', 'a.py', 3, 'x', 1.0)"
        )
        old.execute("INSERT INTO dismissals (finding_id, reason, created_at) VALUES ('f1', 'old one', 1.0)")
        old.execute("PRAGMA user_version = 1")
    code, _ = _review_json(repo)
    assert code == 1
    history = _prscope(repo, "history").stdout.splitlines()
    assert len(history) == 2 and history[-1].startswith("20261101-120000-abcdef")
    assert "1 findings" in history[-1]
    assert "f1" in _prscope(repo, "dismiss", "--list").stdout
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS) == 2


def test_the_key_never_reaches_the_store(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    router = Router(
        {
            "main": [text_turn(_final(MODEL_FINDING))],
            "v1": [text_turn(reply("checked", f"CONFIRMED confidence: 0.9. echoing {KEY}"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        done = _prscope(
            repo,
            "review",
            "--base",
            "main",
            "--format",
            "json",
            ANTHROPIC_API_KEY=KEY,
            ANTHROPIC_BASE_URL=server.base_url,
        )
    assert json.loads(done.stdout)["status"] == "complete", done.stderr
    stored = b"".join(p.read_bytes() for p in store_path(repo.root).parent.iterdir())
    assert KEY.encode() not in stored and b"main" in stored


def test_show_prints_the_agent_tree_and_an_agents_transcript(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    router = Router(
        {
            "main": [text_turn(_final(MODEL_FINDING))],
            "v1": [text_turn(reply("checked", "CONFIRMED confidence: 0.9. checkout.py:14 uses total()"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        done = _prscope(
            repo,
            "review",
            "--base",
            "main",
            "--format",
            "json",
            ANTHROPIC_API_KEY=KEY,
            ANTHROPIC_BASE_URL=server.base_url,
        )
    assert json.loads(done.stdout)["status"] == "complete", done.stderr
    run_id = _prscope(repo, "history").stdout.split()[0]
    tree = _prscope(repo, "show", run_id).stdout.splitlines()
    main_line = next(line for line in tree if line.startswith("main (review): completed"))
    verifier = next(line for line in tree if line.startswith("  verify"))
    assert "tool calls" in main_line and "completed" in verifier
    agent_id = verifier.split()[0]
    transcript = _prscope(repo, "show", run_id, "--agent", agent_id).stdout
    assert "[user]" in transcript and "receipt total ignores the member discount" in transcript
    assert "[assistant]" in transcript and "CONFIRMED" in transcript
    missing = _prscope(repo, "show", run_id, "--agent", "nobody")
    assert missing.returncode == 2 and "no transcript" in missing.stderr
