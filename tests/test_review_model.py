"""A review with a model: the real SDK clients against the loopback fake API, through `prscope review`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prscope.analysis.changeset import DiffSpec
from prscope.analysis.cli import main
from prscope.analysis.config import PrscopeConfig
from prscope.analysis.formats import FORMATS, render
from prscope.analysis.review import ReviewRequest, run_review
from prscope.analysis.review_cli import render_context

from tests.fakeapi import FakeModelServer, Fault, text_turn
from tests.test_review_helpers import clean_pr_repo, demo_repo
from tests.test_subagents_harness import Router, reply

KEY = "sk-ant-api03-prscope-test-key-never-print-me"
MODEL_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL")

MODEL_FINDING = {
    "rule": "bug",
    "severity": "warning",
    "path": "shopkit/checkout.py",
    "line": 14,
    "title": "[[v1]] receipt total ignores the member discount",
    "message": "receipt() prints cart.total() while member_price() charges the discounted amount.",
    "confidence": 0.9,
}


def _final(*findings: dict[str, object]) -> str:
    lines = "\n".join(json.dumps(f) for f in findings)
    return f"<findings>\n{lines}\n</findings>\n<summary>Reviewed the pricing change.</summary>"


def _router() -> Router:
    return Router(
        {
            "main": [text_turn(_final(MODEL_FINDING))],
            "v1": [
                text_turn(reply("checked", "CONFIRMED confidence: 0.9. shopkit/checkout.py:14 uses total()"))
            ],
        }
    )


@pytest.fixture(autouse=True)
def _clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in MODEL_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def _use_fake_anthropic(monkeypatch: pytest.MonkeyPatch, server: FakeModelServer) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)


def test_complete_review_with_a_verified_model_finding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = demo_repo(tmp_path / "shop")
    with FakeModelServer(responder=_router()) as server:
        _use_fake_anthropic(monkeypatch, server)
        code = main(["review", str(repo.root), "--base", "main", "--format", "json"])
        requests = server.requests
    captured = capsys.readouterr()
    assert code == 1  # the stale call is an error
    report = json.loads(captured.out)
    assert report["status"] == "complete", report["status_reason"]
    assert "model review" in report["status_reason"]
    sources = {(f["source"], f["rule"]) for f in report["findings"]}
    assert ("model", "bug") in sources and ("check", "breaking-call") in sources
    assert report["usage"]["requests"] == len(requests) >= 2
    assert {a["id"] for a in report["agents"]} >= {"main"}
    assert requests[0].api_key == KEY
    assert KEY not in captured.out and KEY not in captured.err
    assert "model review with anthropic model" in captured.err
    assert "review offline" not in captured.err


def test_model_failure_is_partial_exit_3_and_keeps_check_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clean_pr_repo(tmp_path / "r")
    with FakeModelServer(responder=Router({"main": [Fault("auth")]})) as server:
        _use_fake_anthropic(monkeypatch, server)
        code = main(["review", str(repo.root), "--base", "main", "--format", "markdown"])
    captured = capsys.readouterr()
    assert code == 3
    assert "**Status: partial**" in captured.out
    status_lines = [line for line in captured.err.splitlines() if "review partial" in line]
    assert len(status_lines) == 1 and "model review failed" in status_lines[0]
    assert KEY not in captured.out + captured.err


async def test_partial_review_keeps_deterministic_findings(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    with FakeModelServer(responder=Router({"main": [Fault("auth")]})) as server:
        env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        result = await run_review(ReviewRequest(repo_path=repo.root, spec=DiffSpec(base="main"), env=env))
    assert result.report.status == "partial" and result.model_incomplete
    assert {f.rule for f in result.report.findings} == {"breaking-call", "debug-leftover"}
    assert result.report.errors


async def test_key_echoed_by_a_server_never_reaches_any_format(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    router = Router({"main": [Fault("bad_request", echo_api_key=True)]})
    with FakeModelServer(responder=router) as server:
        env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
        result = await run_review(ReviewRequest(repo_path=repo.root, spec=DiffSpec(base="main"), env=env))
    assert result.report.status == "partial"
    context = render_context(result, PrscopeConfig(), color=False, width=100)
    for fmt in FORMATS:
        assert KEY not in render(result.report, fmt, context), fmt
    assert KEY not in repr(ReviewRequest(repo_path=repo.root, env=env))


def test_openai_compatible_server_without_a_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = clean_pr_repo(tmp_path / "r")
    router = Router({"main": [text_turn(_final())]})
    with FakeModelServer(responder=router) as server:
        code = main(
            [
                "review",
                str(repo.root),
                "--base",
                "main",
                "--format",
                "json",
                "--provider",
                "openai",
                "--base-url",
                server.openai_base_url,
                "--model",
                "llama-test",
            ]
        )
        requests = server.requests
    captured = capsys.readouterr()
    assert code == 0
    report = json.loads(captured.out)
    assert report["status"] == "complete"
    assert requests and requests[0].api == "openai" and requests[0].body["model"] == "llama-test"


def test_openai_provider_needs_a_model_id(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = clean_pr_repo(tmp_path / "r")
    code = main(["review", str(repo.root), "--provider", "openai", "--base-url", "http://127.0.0.1:9/v1"])
    err = capsys.readouterr().err.splitlines()
    assert code == 2 and len(err) == 1 and "--model" in err[0]


def test_offline_flag_wins_over_a_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = clean_pr_repo(tmp_path / "r")
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", "http://127.0.0.1:9")
    assert main(["review", str(repo.root), "--offline"]) == 0
    assert capsys.readouterr().err.splitlines() == [
        "prscope: review offline: --offline: deterministic checks only"
    ]


@pytest.mark.slow
def test_first_ctrl_c_writes_the_partial_report_and_exits_3(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys

    prscope = Path(sys.executable).with_name("prscope")
    if not prscope.exists():
        pytest.skip("prscope is not installed next to this Python")
    repo = clean_pr_repo(tmp_path / "r")
    out = tmp_path / "report.json"
    router = Router({"main": [text_turn(_final(MODEL_FINDING), delay_s=60)]})
    with FakeModelServer(responder=router) as server:
        env = {k: v for k, v in os.environ.items() if k not in MODEL_VARIABLES}
        env.update({"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url})
        process = subprocess.Popen(
            [str(prscope), "review", "--base", "main", "--format", "json", "-o", str(out)],
            cwd=repo.root,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            assert server.wait_for_requests(1, timeout=60)
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    assert process.returncode == 3, err
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["status"] == "partial" and "cancelled" in report["status_reason"]
    assert report["files"]["changed"] == 1
    assert "stopping; the report so far will be written" in err
    assert KEY not in err
