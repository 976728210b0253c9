"""What `prscope review` writes: every format to stdout or --output, the status on stderr, masking."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prscope.analysis.cli import main
from prscope.analysis.formats import FORMATS

from tests.test_review_helpers import GITHUB_TOKEN, demo_repo, secret_pr_repo

MODEL_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL")
OFFLINE_LINE = (
    "prscope: review offline: no API key: deterministic checks only (set ANTHROPIC_API_KEY, or use "
    "--provider openai --base-url URL, for a model review)"
)


@pytest.fixture(autouse=True)
def _no_model_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in MODEL_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


@pytest.mark.parametrize("fmt", FORMATS)
def test_every_format_says_offline_and_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    repo = demo_repo(tmp_path / "shop")
    assert main(["review", str(repo.root), "--base", "main", "--format", fmt]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [OFFLINE_LINE]
    if fmt == "rdjsonl":
        assert all(json.loads(line)["location"]["path"] for line in captured.out.splitlines())
    elif fmt == "codequality":  # an array of issues, no field for the status: stderr has it
        assert all(issue["location"]["path"] for issue in json.loads(captured.out))
    else:
        assert "offline" in captured.out and "no API key" in captured.out
    assert "shopkit/checkout.py" in captured.out


def test_output_file_gets_the_report_and_stdout_stays_empty(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    repo = demo_repo(tmp_path / "shop")
    target = tmp_path / "out" / "review.sarif"
    assert (
        main(["review", str(repo.root), "--base", "main", "--format", "sarif", "--output", str(target)]) == 1
    )
    captured = capsys.readouterr()
    assert captured.out == ""
    sarif = json.loads(target.read_text(encoding="utf-8"))
    rules = {result["ruleId"] for result in sarif["runs"][0]["results"]}
    assert rules == {"breaking-call", "debug-leftover"}


def test_unwritable_output_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = demo_repo(tmp_path / "shop")
    blocker = tmp_path / "file"
    blocker.write_text("x", encoding="utf-8")
    assert main(["review", str(repo.root), "--base", "main", "-o", str(blocker / "r.json")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith("prscope: error: cannot write")


def test_json_files_part_of_the_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = demo_repo(tmp_path / "shop")
    main(["review", str(repo.root), "--base", "main", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    assert report["files"] == {"changed": 2, "reviewed": 2, "omitted": []}
    assert report["mode"] == "branch" and len(report["base"]) == 40 and len(report["head"]) == 40


@pytest.mark.parametrize("fmt", FORMATS)
def test_secret_is_masked_in_every_format(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], fmt: str
) -> None:
    repo = secret_pr_repo(tmp_path / "r")
    assert main(["review", str(repo.root), "--base", "main", "--format", fmt]) == 1
    captured = capsys.readouterr()
    assert "secret" in captured.out
    assert GITHUB_TOKEN not in captured.out and GITHUB_TOKEN not in captured.err
    assert GITHUB_TOKEN[4:20] not in captured.out
    assert "ghp_" in captured.out or fmt == "json" or fmt == "rdjsonl" or fmt == "github"


def test_flags_beat_the_config_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = demo_repo(tmp_path / "shop")
    repo.write(".prscope.toml", 'fail_on = "never"\n[rules]\nbreaking-call = false\n')
    assert main(["review", str(repo.root), "--base", "main", "--format", "json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert {f["rule"] for f in report["findings"]} == {"debug-leftover"}
    assert main(["review", str(repo.root), "--base", "main", "--fail-on", "warning"]) == 1
    capsys.readouterr()


def test_dismissed_findings_do_not_gate(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = demo_repo(tmp_path / "shop")
    main(["review", str(repo.root), "--base", "main", "--format", "json"])
    report = json.loads(capsys.readouterr().out)
    breaking = next(f["id"] for f in report["findings"] if f["rule"] == "breaking-call")
    repo.write(".prscope.toml", f'dismissed = ["{breaking}"]\n')
    assert main(["review", str(repo.root), "--base", "main", "--format", "sarif"]) == 0
    sarif = json.loads(capsys.readouterr().out)
    results = {r["ruleId"]: r for r in sarif["runs"][0]["results"]}
    assert results["breaking-call"]["suppressions"][0]["status"] == "accepted"
    assert "suppressions" not in results["debug-leftover"]


def test_text_has_no_colour_when_not_a_terminal_even_if_forced_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    repo = demo_repo(tmp_path / "shop")
    main(["review", str(repo.root), "--base", "main"])
    out = capsys.readouterr().out
    assert "\x1b[" not in out
    assert out.splitlines()[-1].startswith("review offline: no API key")


def test_no_progress_keeps_the_status_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = demo_repo(tmp_path / "shop")
    main(["review", str(repo.root), "--base", "main", "--no-progress", "--offline"])
    assert capsys.readouterr().err.splitlines() == [
        "prscope: review offline: --offline: deterministic checks only"
    ]


def test_also_writes_more_formats_from_one_review(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = demo_repo(tmp_path / "shop")
    sarif, summary = tmp_path / "r.sarif", tmp_path / "summary.md"
    code = main(
        [
            "review",
            str(repo.root),
            "--base",
            "main",
            "--format",
            "github",
            "--also",
            f"sarif={sarif}",
            "--also",
            f"markdown={summary}",
        ]
    )
    assert code == 1
    out = capsys.readouterr().out
    assert out.startswith("::notice title=prscope review offline::")
    assert json.loads(sarif.read_text(encoding="utf-8"))["version"] == "2.1.0"
    assert "**Status: offline**" in summary.read_text(encoding="utf-8")
    assert main(["review", str(repo.root), "--also", "pdf=x.pdf"]) == 2
    assert "--also expects FMT=FILE" in capsys.readouterr().err


def test_dismissed_findings_agree_in_json_sarif_text_and_the_exit_code(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """One finding dismissed in the run store (with a reason), one in the configuration: JSON leaves
    both out of `findings` and lists them apart with the reason, SARIF suppresses them with it, the text
    report counts them as dismissed, and neither gates the build."""
    repo = demo_repo(tmp_path / "shop")
    main(["review", str(repo.root), "--base", "main", "--format", "json"])
    ids = {f["rule"]: f["id"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert (
        main(["dismiss", ids["breaking-call"], "--reason", "fixed in the next PR", "--path", str(repo.root)])
        == 0
    )
    repo.write(".prscope.toml", f'dismissed = ["{ids["debug-leftover"]}"]\n')
    capsys.readouterr()

    assert main(["review", str(repo.root), "--base", "main", "--format", "json", "--fail-on", "note"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["findings"] == []
    assert report["dismissed"] == sorted(ids.values())
    reasons = {f["rule"]: (f["dismissed"], f["dismissal_reason"]) for f in report["dismissed_findings"]}
    assert reasons == {
        "breaking-call": (True, "fixed in the next PR"),
        "debug-leftover": (True, "dismissed in the prscope configuration"),
    }

    assert main(["review", str(repo.root), "--base", "main", "--format", "sarif", "--fail-on", "note"]) == 0
    results = json.loads(capsys.readouterr().out)["runs"][0]["results"]
    justifications = {r["ruleId"]: r["suppressions"][0]["justification"] for r in results}
    assert justifications == {
        "breaking-call": "fixed in the next PR",
        "debug-leftover": "dismissed in the prscope configuration",
    }

    assert main(["review", str(repo.root), "--base", "main", "--fail-on", "note"]) == 0
    text = capsys.readouterr().out
    assert "breaking-call" not in text and "debug-leftover" not in text
    assert text.rstrip().endswith("2 dismissed")
