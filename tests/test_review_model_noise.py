"""Model findings add signal, not noise: a model finding on a check's line is merged into it, the report
shows at most 15 model findings (said when more were found), the same replies give byte-identical JSON,
and Markdown / GitHub annotations say which findings come from the model. The real SDK against the
loopback fake API, through `prscope review`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prscope.analysis.cli import main

from tests.fakeapi import FakeModelServer, text_turn
from tests.test_review_helpers import demo_repo
from tests.test_review_model import KEY, MODEL_FINDING, MODEL_VARIABLES, _final
from tests.test_subagents_harness import Router, Step, reply

LINES = [1, 2, 3, 4, 5, 6, 7, 8, 10, 11, 12, 13, 14, 15]  # line 9 holds the check's finding
NO_VERIFY = "[model]\nverify = false\n"
ON_THE_STALE_CALL = {
    **MODEL_FINDING,
    "rule": "breaking-change",
    "severity": "error",
    "line": 9,
    "title": "apply_discount now needs a currency",
    "message": "member_price() still calls apply_discount(total, 10) without the currency.",
}


@pytest.fixture(autouse=True)
def _model_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in MODEL_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def _review(
    tmp_path: Path,
    reply: str,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    fmt: str = "json",
    repo_name: str = "shop",
    settings: str = NO_VERIFY,
    verifiers: dict[str, list[Step]] | None = None,
) -> str:
    repo_root = tmp_path / repo_name
    if not repo_root.exists():
        demo_repo(repo_root)
    config = tmp_path / "prscope.toml"
    config.write_text(settings)
    with FakeModelServer(responder=Router({"main": [text_turn(reply)], **(verifiers or {})})) as server:
        monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", server.base_url)
        argv = ["review", str(repo_root), "--base", "main", "--format", fmt, "--config", str(config)]
        main([*argv, "--no-progress", "--no-cache"])
    return capsys.readouterr().out


def test_a_model_finding_on_a_checks_line_is_merged_into_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    report = json.loads(_review(tmp_path, _final(ON_THE_STALE_CALL), monkeypatch, capsys))
    on_line = [f for f in report["findings"] if f["path"] == "shopkit/checkout.py" and f["line"] == 9]
    assert [f["rule"] for f in on_line] == ["breaking-call"]  # the check's wording wins
    assert any("the model review saw this too" in r["message"] for r in on_line[0]["related"])


def test_the_report_shows_at_most_15_model_findings_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    many = [
        {
            **MODEL_FINDING,
            "rule": f"bug-{n}",
            "line": LINES[n % 14],
            "title": f"finding {n}",
            "confidence": 0.5 + n / 100,
        }
        for n in range(20)
    ]
    report = json.loads(_review(tmp_path, _final(*many), monkeypatch, capsys))
    model = [f for f in report["findings"] if f["source"] == "model"]
    assert len(model) == 15
    assert min(f["confidence"] for f in model) >= 0.55  # the most confident were kept
    assert "5 more model finding(s) not shown (at most 15; [model] max_findings)" in report["errors"]


def test_the_same_replies_give_a_byte_identical_json_report(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    second_finding = {**MODEL_FINDING, "line": 10, "title": "[[v2]] member_price rounds early"}
    verifiers: dict[str, list[Step]] = {
        # The second verification answers first: the report must not follow the order they finish in.
        "v1": [text_turn(reply("checked", "CONFIRMED confidence: 0.9. shopkit/checkout.py:14"), delay_s=1)],
        "v2": [text_turn(reply("checked", "CONFIRMED confidence: 0.8. shopkit/pricing.py:10"))],
    }
    outputs = [
        _review(
            tmp_path,
            _final(MODEL_FINDING, second_finding),
            monkeypatch,
            capsys,
            settings="",
            verifiers=verifiers,
        )
        for _ in range(2)
    ]
    assert outputs[0] == outputs[1]
    report = json.loads(outputs[0])
    assert len([f for f in report["findings"] if f["source"] == "model"]) == 2
    assert [agent["id"] for agent in report["agents"]] == ["main", "verify-1", "verify-2"]


def test_a_model_finding_about_something_else_on_a_checks_line_stays_its_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    other = {
        **MODEL_FINDING,
        "line": 9,
        "title": "the discount rate 10 is a magic number",
        "message": "Name the member discount rate instead of writing 10 inline.",
    }
    report = json.loads(_review(tmp_path, _final(other), monkeypatch, capsys))
    on_line = {
        f["rule"]: f for f in report["findings"] if f["path"] == "shopkit/checkout.py" and f["line"] == 9
    }
    assert set(on_line) == {"breaking-call", "bug"}
    assert on_line["breaking-call"]["related"] == [] or not any(
        "the model review saw this too" in r["message"] for r in on_line["breaking-call"]["related"]
    )


def test_the_cap_on_model_findings_is_configurable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    many = [
        {**MODEL_FINDING, "rule": f"bug-{n}", "line": LINES[n], "title": f"finding {n}"} for n in range(5)
    ]
    settings = NO_VERIFY + "max_findings = 3\n"
    report = json.loads(_review(tmp_path, _final(*many), monkeypatch, capsys, settings=settings))
    assert len([f for f in report["findings"] if f["source"] == "model"]) == 3
    assert "2 more model finding(s) not shown (at most 3; [model] max_findings)" in report["errors"]


@pytest.mark.parametrize("fmt", ["markdown", "github"])
def test_human_formats_mark_model_findings_with_their_confidence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    output = _review(tmp_path, _final(MODEL_FINDING), monkeypatch, capsys, fmt)
    mark = (
        "(model, confidence 0.90)" if fmt == "markdown" else "(model%2C confidence 0.90)"
    )  # escaped property
    assert mark in output
    assert output.count(mark[:7]) == 1  # the checks' findings are not marked
