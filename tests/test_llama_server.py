"""prscope against a real model server: llama-cpp-python's OpenAI-compatible server with SmolLM2 135M
Instruct, started here, reached through `prscope review --provider openai --base-url ...` exactly as a
user runs it. A weak model: the tests assert what must hold whatever it says (the run ends in time, the
status tells the truth, usage is the server's own count, nothing crashes), not what it finds.

Skipped with one line unless scripts/setup-llama has run (scripts/test runs it; PRSCOPE_LLAMA=0 skips).
A recording proxy sits between prscope and the server: it sees every request and whether the client
dropped it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from tests.llama.proxy import Exchange, RecordingProxy
from tests.llama.server import CONTEXT_WINDOW, MODEL_ALIAS, SKIP_REASON, LlamaServer

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "scripts"))
from demo_pr import build_repository

DEADLINE_S = 150
WRAP_UP_S = 60.0  # the runner's default wrap-up turn once the deadline has passed
# Checks, process start, the store; generous for a loaded 2-core machine.
SLACK_S = 60
pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

_SERVER = LlamaServer.from_environment(Path(os.environ.get("TMPDIR", "/tmp")) / "prscope-llama-test.log")
if _SERVER is None:
    pytest.skip(SKIP_REASON, allow_module_level=True)


@pytest.fixture(scope="module")
def llama() -> Iterator[LlamaServer]:
    assert _SERVER is not None
    with _SERVER as server:
        yield server


@pytest.fixture
def proxy(llama: LlamaServer) -> Iterator[RecordingProxy]:
    recording = RecordingProxy("127.0.0.1", llama.port).start()
    yield recording
    recording.stop()


@dataclass
class Review:
    code: int
    report: dict[str, Any]
    stderr: str
    seconds: float


def prscope() -> list[str]:
    installed = Path(sys.executable).with_name("prscope")
    return [str(installed)] if installed.exists() else [sys.executable, "-m", "prscope"]


def write_config(tmp_path: Path, deadline_s: int = DEADLINE_S) -> Path:
    config = tmp_path / "prscope-llama.toml"
    config.write_text(
        f'[model]\nprovider = "openai"\ncontext_window = {CONTEXT_WINDOW}\n\n'
        f"[budget]\ndeadline_s = {deadline_s}\n",
        encoding="utf-8",
    )
    return config


def review_command(repo: Path, base_url: str, config: Path, report: Path) -> list[str]:
    return [
        *prscope(), "review", "--base", "main", "--provider", "openai", "--base-url", base_url,
        "--model", MODEL_ALIAS, "--config", str(config), "--format", "json", "--output", str(report),
        "--no-progress", "--no-cache",
    ]  # fmt: skip


def clean_env() -> dict[str, str]:
    drop = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL")
    return {k: v for k, v in os.environ.items() if k not in drop}


def run_review(repo: Path, proxy: RecordingProxy, tmp_path: Path) -> Review:
    report = tmp_path / "report.json"
    started = time.monotonic()
    done = subprocess.run(
        review_command(repo, proxy.base_url, write_config(tmp_path), report),
        cwd=repo, env=clean_env(), capture_output=True, text=True, timeout=DEADLINE_S + WRAP_UP_S + 300,
    )  # fmt: skip
    seconds = time.monotonic() - started
    return Review(done.returncode, json.loads(report.read_text(encoding="utf-8")), done.stderr, seconds)


def answered(proxy: RecordingProxy) -> list[Exchange]:
    return [e for e in proxy.completions() if e.status == 200 and e.response is not None]


def assert_honest(review: Review, proxy: RecordingProxy) -> None:
    """What must hold whatever the model said."""
    report = review.report
    assert "Traceback" not in review.stderr, review.stderr
    assert review.seconds < DEADLINE_S + WRAP_UP_S + SLACK_S, f"the review took {review.seconds:.0f} s"
    assert report["status"] in ("complete", "partial"), report["status"]
    assert report["status_reason"], "a status without its reason"
    if report["status"] == "complete":
        assert not any("did not finish" in e or "no <findings>" in e for e in report["errors"])
        assert all(agent["status"] == "completed" for agent in report["agents"])
    # Usage is the server's own count: the sum of what it answered, request by request.
    # (On a loaded machine the first answer, a 6k-token prompt on two shared cores, may itself outlast
    # the deadline: then nothing was answered, and the review says it did not finish.)
    assert proxy.completions(), "no request reached the server"
    done = answered(proxy)
    usage = report["usage"]
    assert usage["requests"] == len(done)
    if not done:
        assert report["status"] == "partial"
    assert usage["input_tokens"] == sum(e.response["usage"]["prompt_tokens"] for e in done if e.response)
    assert usage["output_tokens"] == sum(e.response["usage"]["completion_tokens"] for e in done if e.response)
    # Every request fitted the server's window: prompt plus max_tokens within n_ctx.
    assert all(e.request.get("max_tokens", 0) <= CONTEXT_WINDOW // 4 for e in proxy.completions())
    # Nothing the server refused for its shape (500: it wanted "" where prscope sent a null content).
    # A prompt over n_ctx (400) can still happen when a large tool result lands just as the window fills
    # (prscope estimates 4 characters a token); the review must then say it did not finish.
    for exchange in proxy.completions():
        if exchange.status is None or exchange.status < 400:
            continue
        answer = exchange.raw_response[:300].decode("utf-8", "replace")
        assert exchange.status == 400 and "context length" in answer, answer
        assert report["status"] == "partial", answer
    # A model finding is reported on a line of a changed file, or dropped with the reason said.
    for finding in (f for f in report["findings"] if f["source"] == "model"):
        assert finding["line"] >= 1 and finding["path"]


def test_demo_pull_request(proxy: RecordingProxy, tmp_path: Path) -> None:
    repo = tmp_path / "shopkit"
    build_repository(repo)
    review = run_review(repo, proxy, tmp_path)
    assert_honest(review, proxy)
    assert review.code in (1, 3), review.stderr  # 1: the stale call gates; 3 only with --require-model
    rules = {(f["rule"], f["path"]) for f in review.report["findings"] if f["source"] == "check"}
    assert ("breaking-call", "shopkit/checkout.py") in rules
    assert ("debug-leftover", "shopkit/cart.py") in rules


def make_real_repository(root: Path) -> Path:
    """h11 (a small, real HTTP/1.1 library that prscope's own httpx depends on) as a
    repository on `main`, and a pull request that gives one of its helpers a required parameter."""
    import h11

    source = Path(h11.__file__).parent
    repo = root / "h11-repo"
    shutil.copytree(source, repo / "h11", ignore=shutil.ignore_patterns("__pycache__", "tests"))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false"]
    subprocess.run(["git", "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-qm", "h11"], cwd=repo, check=True)
    subprocess.run(["git", "checkout", "-qb", "pr"], cwd=repo, check=True)
    util = repo / "h11" / "_util.py"
    text = util.read_text(encoding="utf-8")
    # validate(regex, data, msg="malformed data", *format_args) gains a required `strict`: h11's own
    # readers, which pass three arguments, now break.
    old = 'msg: str = "malformed data", *format_args: Any'
    changed = text.replace(old, "msg: str, strict: bool, *format_args: Any")
    assert changed != text, "h11's validate() changed shape: update this pull request"
    util.write_text(changed, encoding="utf-8")
    subprocess.run([*git, "commit", "-qam", "validate: strict mode"], cwd=repo, check=True)
    return repo


def test_small_real_repository(proxy: RecordingProxy, tmp_path: Path) -> None:
    pytest.importorskip("h11")
    repo = make_real_repository(tmp_path)
    review = run_review(repo, proxy, tmp_path)
    assert_honest(review, proxy)
    assert any(f["rule"] == "breaking-call" for f in review.report["findings"])


def test_ctrl_c_drops_the_request_in_flight(
    llama: LlamaServer, proxy: RecordingProxy, tmp_path: Path
) -> None:
    repo = tmp_path / "shopkit"
    build_repository(repo)
    report = tmp_path / "report.json"
    command = review_command(repo, proxy.base_url, write_config(tmp_path), report)
    process = subprocess.Popen(command, cwd=repo, env=clean_env(), stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 120
        while not proxy.completions() and time.monotonic() < deadline:
            time.sleep(0.05)
        in_flight = proxy.completions()[0]
        time.sleep(1.0)  # the server is computing the answer now
        assert in_flight.status is None, "the first answer came too fast to interrupt"
        interrupted = time.monotonic()
        process.send_signal(signal.SIGINT)
        _, stderr = process.communicate(timeout=30)
        exited = time.monotonic() - interrupted
    finally:
        if process.poll() is None:
            process.kill()
    assert in_flight.dropped and in_flight.dropped_at is not None
    assert in_flight.dropped_at - interrupted < 5.0, "the request was not dropped at once"
    assert exited < 15.0 and "Traceback" not in stderr
    written = json.loads(report.read_text(encoding="utf-8"))
    assert written["status"] == "partial" and "cancel" in written["status_reason"]
    assert len(proxy.completions()) == 1, "a request was sent after Ctrl-C"
