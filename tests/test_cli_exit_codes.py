"""Every exit code of `prscope review`, through `analysis.cli.main` and once through the installed script."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from prscope.analysis.cli import main

from tests.gitrepo import GitRepo
from tests.test_review_helpers import clean_pr_repo, demo_repo

MODEL_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "NO_COLOR")
PRSCOPE = Path(sys.executable).with_name("prscope")


@pytest.fixture(autouse=True)
def _no_model_keys(monkeypatch: pytest.MonkeyPatch) -> None:
    for variable in MODEL_VARIABLES:
        monkeypatch.delenv(variable, raising=False)


def test_exit_0_when_nothing_at_or_above_fail_on(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = clean_pr_repo(tmp_path / "r")
    assert main(["review", str(repo.root), "--base", "main"]) == 0
    captured = capsys.readouterr()
    assert "no findings" in captured.out


def test_exit_1_on_findings_and_fail_on_levels(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = demo_repo(tmp_path / "shop")
    assert main(["review", str(repo.root), "--base", "main"]) == 1
    assert main(["review", str(repo.root), "--base", "main", "--fail-on", "never"]) == 0
    assert main(["review", str(repo.root), "--base", "main", "--fail-on", "warning"]) == 1
    capsys.readouterr()


def test_fail_on_warning_catches_only_a_warning(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.write("m.py", "x = 1\n")
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("m.py", "x = 1\nbreakpoint()\n")
    repo.commit("feature")
    assert main(["review", str(repo.root), "--base", "main"]) == 0
    assert main(["review", str(repo.root), "--base", "main", "--fail-on", "warning"]) == 1
    assert main(["review", str(repo.root), "--base", "main", "--fail-on", "note"]) == 1
    capsys.readouterr()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "xml"], "invalid choice: 'xml'"),
        (["--staged", "--base", "main"], "not allowed with argument"),
        (["--commits", "abc"], "--commits expects a range A..B"),
        (["--offline", "--require-model"], "contradict"),
        (["--base", "nope"], "nope"),
        (["--config", "missing.toml"], "does not exist"),
        (["--unknown-flag"], "unrecognized arguments: --unknown-flag"),
    ],
)
def test_exit_2_usage_and_repository_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], args: list[str], message: str
) -> None:
    repo = clean_pr_repo(tmp_path / "r")
    assert main(["review", str(repo.root), *args]) == 2
    captured = capsys.readouterr()
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("prscope: error: ") and message in lines[0]
    assert "Traceback" not in captured.err and captured.out == ""


def test_exit_2_not_a_repository(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "plain").mkdir()
    assert main(["review", str(tmp_path / "plain")]) == 2
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "git" in err[0]


def test_exit_2_bad_config_names_the_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = clean_pr_repo(tmp_path / "r")
    repo.write("pyproject.toml", '[tool.prscope]\nfail_on = "error"\nexclud = ["docs"]\n')
    assert main(["review", str(repo.root), "--base", "main"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == ["prscope: error: pyproject.toml [tool.prscope]: unknown key 'exclud'"]


def test_exit_3_require_model_without_key(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = clean_pr_repo(tmp_path / "r")
    out = tmp_path / "report.json"
    assert (
        main(
            [
                "review",
                str(repo.root),
                "--base",
                "main",
                "--require-model",
                "--format",
                "json",
                "-o",
                str(out),
            ]
        )
        == 3
    )
    err = capsys.readouterr().err.splitlines()
    assert len(err) == 1 and "--require-model" in err[0] and "ANTHROPIC_API_KEY" in err[0]
    report = json.loads(out.read_text(encoding="utf-8"))
    assert report["status"] == "partial" and "required" in report["status_reason"]


def test_findings_win_over_exit_3(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    repo = demo_repo(tmp_path / "shop")
    assert main(["review", str(repo.root), "--base", "main", "--require-model"]) == 1
    capsys.readouterr()


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["review", "--help"]) == 0
    assert "--fail-on" in capsys.readouterr().out


def test_installed_script_in_a_real_subprocess(tmp_path: Path) -> None:
    if not PRSCOPE.exists():
        pytest.skip("prscope is not installed next to this Python")
    repo = demo_repo(tmp_path / "shop")
    env = {k: v for k, v in os.environ.items() if k not in MODEL_VARIABLES}
    done = subprocess.run(
        [str(PRSCOPE), "review", "--base", "main"],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 1, done.stderr
    assert done.stderr.splitlines() == [
        "prscope: review offline: no API key: deterministic checks only (set ANTHROPIC_API_KEY, or use "
        "--provider openai --base-url URL, for a model review)"
    ]
    assert "shopkit/checkout.py" in done.stdout and "breaking-call" in done.stdout
    assert "\x1b[" not in done.stdout
    bad = subprocess.run(
        [str(PRSCOPE), "review", "--base", "does-not-exist"],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert bad.returncode == 2 and len(bad.stderr.splitlines()) == 1 and "Traceback" not in bad.stderr


def test_an_internal_error_is_one_line_and_not_exit_1(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import prscope.analysis.review_cli as review_cli

    async def broken(*args: object, **kwargs: object) -> None:
        raise RuntimeError("index exploded\nsecond line sk-test-secret-key-123")

    monkeypatch.setattr(review_cli, "run_review", broken)
    monkeypatch.delenv("PRSCOPE_DEBUG", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test-secret-key-123")
    repo = clean_pr_repo(tmp_path / "r")
    assert main(["review", str(repo.root), "--base", "main"]) == 2
    err = capsys.readouterr().err.splitlines()
    assert err == [
        "prscope: internal error: RuntimeError: index exploded second line *** (set PRSCOPE_DEBUG=1 "
        "for the traceback)"
    ]
