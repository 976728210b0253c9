"""The three mismatch rules in every output format of `prscope review`, and in the SARIF rules table."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prscope.analysis.cli import main
from prscope.analysis.formats import FORMATS

from tests.mismatch_repo import mismatch_repo

MODEL_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL")
RULES = ("async-mismatch", "property-mismatch", "override-mismatch")


@pytest.fixture(autouse=True)
def _no_model_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in MODEL_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_carries_the_three_rules(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    repo = mismatch_repo(tmp_path / "repo")
    assert main(["review", str(repo.root), "--base", "main", "--format", fmt]) == 1
    out = capsys.readouterr().out
    for rule in RULES:
        assert rule in out, (rule, out)
    if fmt == "json":
        findings = json.loads(out)["findings"]
        lines = {f["rule"]: (f["path"], f["line"], f["severity"]) for f in findings}
        assert lines == {
            "async-mismatch": ("app.py", 10, "error"),
            "property-mismatch": ("app.py", 11, "error"),
            "override-mismatch": ("app.py", 5, "warning"),
        }


def test_sarif_describes_each_rule_with_its_default_level(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = mismatch_repo(tmp_path / "repo")
    main(["review", str(repo.root), "--base", "main", "--format", "sarif"])
    run = json.loads(capsys.readouterr().out)["runs"][0]
    rules = {rule["id"]: rule for rule in run["tool"]["driver"]["rules"]}
    assert rules["async-mismatch"]["name"] == "AsyncMismatch"
    assert rules["property-mismatch"]["defaultConfiguration"]["level"] == "error"
    assert rules["override-mismatch"]["defaultConfiguration"]["level"] == "warning"
    assert all("deterministic" in rules[r]["properties"]["tags"] for r in RULES)
    fixes = next(r for r in run["results"] if r["ruleId"] == "async-mismatch").get("fixes")
    assert fixes, "the certain `await` fix goes out as a SARIF fix"


def test_a_config_file_switches_rules_off_and_changes_severity(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = mismatch_repo(tmp_path / "repo")
    repo.write(
        ".prscope.toml", '[rules]\n"async-mismatch" = false\n[severity]\n"override-mismatch" = "note"\n'
    )
    main(["review", str(repo.root), "--base", "main", "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert {f["rule"]: f["severity"] for f in findings} == {
        "property-mismatch": "error",
        "override-mismatch": "note",
    }
