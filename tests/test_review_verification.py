"""Every model phase that does not finish makes the review partial (exit 3): verification (an API error,
the deadline, the token budget, a Ctrl-C; the finding is then marked unverified) and a subagent. The
deadline and the token budget cover verification, and the budget counts the reviewer's subagents too; a
refuted finding is not reported. The real anthropic SDK against the loopback fake Messages API, through
`prscope review`."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from prscope.analysis.cli import main

from tests.fakeapi import FakeModelServer, Fault, text_turn, tool_turn
from tests.test_review_helpers import demo_repo
from tests.test_review_model import KEY, MODEL_FINDING, MODEL_VARIABLES, _final
from tests.test_subagents_harness import Router, Step, reply, task

PRSCOPE = Path(sys.executable).with_name("prscope")

SECOND_FINDING = {
    **MODEL_FINDING,
    "line": 10,
    "title": "[[v2]] member_price rounds before discounting",
    "message": "member_price() rounds the price first.",
}
CONFIRMED = text_turn(reply("checked", "CONFIRMED confidence: 0.9. shopkit/checkout.py:14 uses total()"))
REFUTED = text_turn(reply("checked", "REFUTED confidence: 0.9. the rounding happens after the discount"))


@pytest.fixture(autouse=True)
def _model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in MODEL_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def _review(
    tmp_path: Path,
    router: Router,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    *extra: str,
) -> tuple[int, dict[str, object], str]:
    repo = demo_repo(tmp_path / "shop")
    with FakeModelServer(responder=router) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        code = main(["review", str(repo.root), "--base", "main", "--format", "json", *extra])
    captured = capsys.readouterr()
    return code, json.loads(captured.out), captured.err


def _configured_review(
    tmp_path: Path,
    router: Router,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    settings: str,
) -> tuple[int, dict[str, object], str]:
    config = tmp_path / "prscope.toml"
    config.write_text(settings)
    return _review(tmp_path, router, monkeypatch, capsys, "--config", str(config), "--fail-on", "never")


def _delegating_router(subagent: list[Step]) -> Router:
    """The reviewer delegates to subagent `s1` (scripted by `subagent`), then reports MODEL_FINDING."""
    spawn = tool_turn(
        ("run_subagent", {"task": task("s1"), "context": "shopkit/pricing.py", "label": "callers"})
    )
    return Router({"main": [spawn, text_turn(_final(MODEL_FINDING))], "s1": subagent})


def _model_findings(report: dict[str, object]) -> list[dict[str, object]]:
    findings = report["findings"]
    assert isinstance(findings, list)
    return [f for f in findings if f["source"] == "model"]


def test_a_failed_verification_makes_the_review_partial_and_the_finding_unverified(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    router = Router({"main": [text_turn(_final(MODEL_FINDING))], "v1": [Fault("server_error", times=50)]})
    code, report, err = _review(tmp_path, router, monkeypatch, capsys, "--fail-on", "never")
    assert code == 3, err
    assert report["status"] == "partial"
    assert "verification did not finish" in str(report["status_reason"])
    (finding,) = _model_findings(report)
    assert "[unverified: verification did not finish" in str(finding["message"])


def test_verification_confirms_one_finding_and_refutes_the_other(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    drifted = {
        **MODEL_FINDING,
        "line": 17,
        "code": '    lines.append(f"total: {pricing.format_price(cart.total())}")',
        "suggestion": {
            "start_line": 17,
            "end_line": 17,
            "replacement": '    lines.append(f"total: {pricing.format_price(cart.member_total())}")\n',
        },
    }
    router = Router(
        {"main": [text_turn(_final(drifted, SECOND_FINDING))], "v1": [CONFIRMED], "v2": [REFUTED]}
    )
    code, report, err = _review(tmp_path, router, monkeypatch, capsys)
    assert code == 1, err  # the stale call the checks find is an error
    assert report["status"] == "complete", report["status_reason"]
    (finding,) = _model_findings(report)  # the refuted one is not reported
    assert finding["line"] == 14 and "[[v1]]" in str(finding["title"])  # moved from the drifted 17
    assert (
        finding["suggestion"]["start_line"] == 14 and "member_total" in finding["suggestion"]["replacement"]
    )
    assert "unverified" not in str(finding["message"])


def test_the_deadline_covers_verification(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "prscope.toml"
    config.write_text("[budget]\ndeadline_s = 3\n")
    router = Router({"main": [text_turn(_final(MODEL_FINDING))], "v1": [text_turn("...", delay_s=60)]})
    code, report, err = _review(
        tmp_path, router, monkeypatch, capsys, "--config", str(config), "--fail-on", "never"
    )
    assert code == 3, err
    assert report["status"] == "partial"
    reason = str(report["status_reason"])
    assert "verification did not finish (the review's deadline came first)" in reason or (
        "verification skipped: the review's deadline was reached" in reason
    )
    (finding,) = _model_findings(report)
    assert "[unverified:" in str(finding["message"])


def _interrupted(tmp_path: Path, router: Router, requests: int) -> tuple[int, dict[str, object], str]:
    """`prscope review` as a user runs it, Ctrl-C once `requests` model requests have arrived."""
    repo = demo_repo(tmp_path / "shop")
    out = tmp_path / "report.json"
    with FakeModelServer(responder=router) as server:
        env = {k: v for k, v in os.environ.items() if k not in MODEL_VARIABLES}
        env.update({"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url})
        argv = [
            str(PRSCOPE),
            "review",
            "--base",
            "main",
            "--format",
            "json",
            "-o",
            str(out),
            "--no-progress",
            "--fail-on",
            "never",
        ]
        process = subprocess.Popen(
            argv, cwd=repo.root, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE
        )
        try:
            assert server.wait_for_requests(requests, timeout=60)
            process.send_signal(signal.SIGINT)
            _, err = process.communicate(timeout=60)
        finally:
            if process.poll() is None:
                process.kill()
    return process.returncode, json.loads(out.read_text(encoding="utf-8")), err.decode()


@pytest.mark.slow
def test_ctrl_c_during_verification_is_partial_exit_3_and_the_finding_unverified(tmp_path: Path) -> None:
    router = Router({"main": [text_turn(_final(MODEL_FINDING))], "v1": [text_turn("...", delay_s=60)]})
    code, report, err = _interrupted(tmp_path, router, requests=2)
    assert code == 3, err
    assert report["status"] == "partial" and "cancelled" in str(report["status_reason"])
    (finding,) = _model_findings(report)
    assert "[unverified:" in str(finding["message"])
    assert "no <findings> block" not in json.dumps(report) + err


@pytest.mark.slow
def test_ctrl_c_while_a_subagent_works_says_cancelled_and_nothing_about_a_missing_block(
    tmp_path: Path,
) -> None:
    router = _delegating_router([text_turn("...", delay_s=60)])
    code, report, err = _interrupted(tmp_path, router, requests=2)
    assert code == 3, err
    assert report["status"] == "partial" and "cancelled" in str(report["status_reason"])
    assert "no <findings> block" not in json.dumps(report) + err


def test_the_token_budget_covers_verification(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    config = tmp_path / "prscope.toml"
    config.write_text("[budget]\nreview_tokens = 5000\n")
    slow_verdict = text_turn(reply("checked", "CONFIRMED confidence: 0.9"), delay_s=30)
    router = Router(
        {
            "main": [text_turn(_final(MODEL_FINDING, SECOND_FINDING), input_tokens=1000)],
            # The first verifier's first answer spends the rest of the budget; neither verdict arrives.
            "v1": [
                tool_turn(("read_file", {"path": "shopkit/checkout.py"}), input_tokens=5000),
                slow_verdict,
            ],
            "v2": [slow_verdict],
        }
    )
    started = time.monotonic()
    code, report, err = _review(
        tmp_path, router, monkeypatch, capsys, "--config", str(config), "--fail-on", "never"
    )
    assert time.monotonic() - started < 20  # not the 30 s the verdicts would have taken
    assert code == 3, err
    assert report["status"] == "partial"
    assert "verification did not finish (the review's token budget ran out)" in str(report["status_reason"])
    findings = _model_findings(report)
    assert len(findings) == 2 and all("[unverified:" in str(f["message"]) for f in findings)


def test_the_token_budget_counts_the_reviewers_subagents(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    router = _delegating_router([text_turn(reply("one caller", "shopkit/checkout.py:9"), input_tokens=6000)])
    settings = "[budget]\nreview_tokens = 5000\n[model]\nverify = false\n"
    code, report, err = _configured_review(tmp_path, router, monkeypatch, capsys, settings)
    assert code == 3, err
    assert report["status"] == "partial"
    assert "used up its token budget" in str(report["status_reason"])
    last = router.requests_of("main")[-1]
    assert last.tool_names == [] or "token budget" in json.dumps(last.messages[-1])


def test_a_subagent_that_did_not_finish_makes_the_review_partial(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    router = _delegating_router([Fault("server_error", times=50)])
    code, report, err = _configured_review(tmp_path, router, monkeypatch, capsys, "[model]\nverify = false\n")
    assert code == 3, err  # it was 'complete', exit 0, with nothing said
    assert report["status"] == "partial"
    assert "subagent sub-1 (callers) did not finish" in str(report["status_reason"])
    assert len(_model_findings(report)) == 1  # what the reviewer found is kept
