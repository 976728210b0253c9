"""The estimated cost of a model review, per agent and in total, from the dated price table: the real SDK
against the loopback fake API, through `prscope review`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prscope.analysis.cli import main
from prscope.analysis.pricing import price_table

from tests.fakeapi import FakeModelServer, text_turn
from tests.test_review_helpers import demo_repo
from tests.test_review_model import KEY, MODEL_FINDING, MODEL_VARIABLES, _final
from tests.test_subagents_harness import Router, reply


@pytest.fixture(autouse=True)
def _model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in MODEL_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def _review(
    tmp_path: Path, model: str, fmt: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> str:
    repo = demo_repo(tmp_path / f"shop-{fmt}")
    router = Router(
        {
            "main": [text_turn(_final(MODEL_FINDING))],
            "v1": [text_turn(reply("checked", "CONFIRMED confidence: 0.9. shopkit/checkout.py:14"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        main(["review", str(repo.root), "--base", "main", "--model", model, "--format", fmt, "--no-progress"])
    return capsys.readouterr().out


def test_a_priced_model_reports_its_cost_per_agent_and_in_total(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    report = json.loads(_review(tmp_path, "claude-sonnet-4-6", "json", monkeypatch, capsys))
    usage = report["usage"]
    expected = (
        usage["input_tokens"] * 3.0
        + usage["output_tokens"] * 15.0
        + usage["cache_creation_input_tokens"] * 3.75
        + usage["cache_read_input_tokens"] * 0.3
    ) / 1_000_000
    assert report["cost_usd"] == pytest.approx(expected, abs=1e-6) and report["cost_usd"] > 0
    assert {agent["id"] for agent in report["agents"]} >= {"main", "verify-1"}
    assert all(agent["cost_usd"] is not None and agent["model"] for agent in report["agents"])
    assert sum(agent["cost_usd"] for agent in report["agents"]) == pytest.approx(report["cost_usd"], abs=1e-5)
    text = _review(tmp_path, "claude-sonnet-4-6", "text", monkeypatch, capsys)
    assert f"at list prices of {price_table().checked}" in text


def test_an_unknown_model_shows_tokens_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    report = json.loads(_review(tmp_path, "some-local-model", "json", monkeypatch, capsys))
    assert report["cost_usd"] is None and report["usage"]["input_tokens"] > 0
    text = _review(tmp_path, "some-local-model", "text", monkeypatch, capsys)
    assert "$" not in text and "input" in text
