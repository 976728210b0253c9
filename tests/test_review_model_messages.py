"""A failed model review is said once on a terminal, and a connection error names the host it tried (never
the key): the real CLI on a pseudo-terminal, the real SDK against a closed port."""

from __future__ import annotations

import json
import os
import pty
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from prscope.analysis.cli import main

from tests.fakeapi import FakeModelServer, Fault, text_turn
from tests.gitrepo import GIT_ENV
from tests.test_review_helpers import demo_repo
from tests.test_review_model import KEY, MODEL_VARIABLES

PRSCOPE = Path(sys.executable).with_name("prscope")


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _run_on_a_terminal(argv: list[str], cwd: Path, env: dict[str, str]) -> str:
    leader, follower = pty.openpty()
    process = subprocess.Popen(
        argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=follower, stderr=follower
    )
    os.close(follower)
    chunks = []
    while True:
        try:
            data = os.read(leader, 65536)
        except OSError:
            break
        if not data:
            break
        chunks.append(data)
    process.wait(timeout=120)
    os.close(leader)
    return b"".join(chunks).decode("utf-8", "replace")


def test_a_connection_failure_is_said_once_and_names_the_host(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    port = _closed_port()
    env = {k: v for k, v in {**os.environ, **GIT_ENV}.items() if k not in MODEL_VARIABLES}
    env.update(
        {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": f"http://user:pw@127.0.0.1:{port}", "NO_COLOR": "1"}
    )
    output = _run_on_a_terminal([str(PRSCOPE), "review", "--base", "main"], repo.root, env)
    assert output.count("Connection error.") == 1, output
    assert f"(tried 127.0.0.1:{port})" in output
    assert KEY not in output and "user:pw" not in output


def test_sdk_retries_are_shown_and_counted_in_usage(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = demo_repo(tmp_path / "shop")
    with FakeModelServer() as server:
        server.inject(Fault("overloaded", times=2))
        server.script(text_turn("<findings>\n</findings>\n<summary>Checked the pricing change.</summary>"))
        for variable in MODEL_VARIABLES:
            monkeypatch.delenv(variable, raising=False)
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        code = main(["review", str(repo.root), "--base", "main", "--format", "json"])
        sent = len(server.requests)
    captured = capsys.readouterr()
    report = json.loads(captured.out)
    assert code == 1 and report["status"] == "complete", captured.err
    assert "reviewer (review): retrying (1/4) after HTTP 529" in captured.err
    assert "reviewer (review): retrying (2/4) after HTTP 529" in captured.err
    assert sent == 3 and report["usage"]["requests"] == 3  # the two refused requests count too
