"""The GitHub Action: its metadata, and its shell steps run for real on a shallow CI-like clone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from tests.githubmock.fixtures import Contract
from tests.githubmock.server import FakeGitHub
from tests.gitrepo import GIT_ENV
from tests.publish_support import PullRequestRun, shop_repository
from tests.test_review_helpers import ROOT, demo_repo

ACTION = ROOT / "action.yml"
BIN = Path(sys.executable).parent


def _action() -> dict[str, Any]:
    data = yaml.safe_load(ACTION.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


def _step(name: str) -> dict[str, Any]:
    return next(step for step in _action()["runs"]["steps"] if step.get("name") == name)


def test_composite_action_uploads_sarif_with_a_category() -> None:
    action = _action()
    assert action["runs"]["using"] == "composite"
    upload = _step("Upload SARIF to code scanning")
    assert upload["uses"].startswith("github/codeql-action/upload-sarif@")
    assert upload["with"]["category"] == "prscope/review/"
    assert upload["continue-on-error"] is True
    assert action["inputs"]["anthropic-api-key"]["default"] == ""
    for step in action["runs"]["steps"]:
        assert "run" not in step or step["shell"] == "bash"
    text = ACTION.read_text(encoding="utf-8")
    for name in action["inputs"]:
        assert f"inputs.{name}" in text, f"input {name} is never used"


def _run_step(name: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    script = _step(name)["run"]
    full_env = {**os.environ, **GIT_ENV, "PATH": f"{BIN}:{os.environ.get('PATH', '')}", **env}
    for variable in ("ANTHROPIC_BASE_URL", "OPENAI_BASE_URL", "GITHUB_BASE_REF"):
        if variable not in env:
            full_env.pop(variable, None)
    return subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=cwd,
        env=full_env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def _review_env(tmp_path: Path, **changes: str) -> dict[str, str]:
    env = {
        "ANTHROPIC_API_KEY": "",
        "OPENAI_API_KEY": "",
        "INPUT_PATH": ".",
        "INPUT_BASE": "main",
        "BASE_REF": "",
        "FAIL_ON": "error",
        "PROVIDER": "",
        "MODEL": "",
        "BASE_URL": "",
        "REQUIRE_MODEL": "false",
        "CONFIG": "",
        "SARIF_FILE": str(tmp_path / "prscope.sarif"),
        "GITHUB_OUTPUT": str(tmp_path / "github_output"),
        "GITHUB_STEP_SUMMARY": str(tmp_path / "step_summary.md"),
        "POST_REVIEW": "auto",
        "REQUIRE_POST": "false",
        "REQUEST_CHANGES": "false",
    }
    return env | changes


def test_steps_on_a_shallow_pull_request_clone(tmp_path: Path) -> None:
    if not (BIN / "prscope").exists():
        pytest.skip("prscope is not installed next to this Python")
    origin = demo_repo(tmp_path / "origin")
    clone = tmp_path / "clone"
    subprocess.run(
        [
            "git",
            "clone",
            "-q",
            "--depth",
            "1",
            "--branch",
            "feature/currency-rounding",
            f"file://{origin.root}",
            str(clone),
        ],
        check=True,
        capture_output=True,
        env={**os.environ, **GIT_ENV},
    )
    fetched = _run_step("Make the base branch available", clone, {"BASE_REF": "main"})
    assert fetched.returncode == 0, fetched.stderr

    output, summary = tmp_path / "github_output", tmp_path / "step_summary.md"
    env = _review_env(tmp_path, INPUT_BASE="", BASE_REF="main")
    reviewed = _run_step("Review", clone, env)
    assert reviewed.returncode == 0, reviewed.stderr
    assert output.read_text(encoding="utf-8").strip() == "exit-code=1"
    assert "::error file=shopkit/checkout.py,line=9" in reviewed.stdout
    assert reviewed.stderr.strip().startswith("prscope: review offline: no API key")
    assert '"ruleId": "breaking-call"' in (tmp_path / "prscope.sarif").read_text(encoding="utf-8")
    assert "**Status: offline**" in summary.read_text(encoding="utf-8")

    gate = _run_step("Gate on the result", clone, {"CODE": "1"})
    assert gate.returncode == 1 and "::error title=prscope::findings" in gate.stdout
    assert _run_step("Gate on the result", clone, {"CODE": "0"}).returncode == 0
    assert _run_step("Gate on the result", clone, {"CODE": "3"}).returncode == 3


@pytest.mark.timeout(900)  # the first user of the GitHub contract installs its tools and starts Prism
def test_review_step_posts_on_the_pull_request(tmp_path: Path, github_contract: Contract) -> None:
    """The action's inputs reach `prscope review --post`: posted with the default (auto), the exit-code
    output as without posting; a read-only token is one warning; require-post makes it exit 4."""
    if not (BIN / "prscope").exists():
        pytest.skip("prscope is not installed next to this Python")
    pr = PullRequestRun(shop_repository(tmp_path / "shop"), tmp_path)
    with FakeGitHub(github_contract.prism, github_contract.schema, pr.state()) as fake:
        ci = pr.env(fake.url, token=None)
        posted = _run_step("Review", pr.repo.root, ci | _review_env(tmp_path, GITHUB_TOKEN="bot-token"))
        assert posted.returncode == 0, posted.stderr
        assert (tmp_path / "github_output").read_text(encoding="utf-8").strip() == "exit-code=1"
        assert "prscope: posted to octo/shop#7: summary comment" in posted.stderr
        assert len(fake.state.issue_comments) == 1 and len(fake.state.review_comments) == 2

        read_only = _review_env(tmp_path, GITHUB_TOKEN="read-only-token", REQUIRE_POST="true")
        (tmp_path / "github_output").unlink()
        refused = _run_step("Review", pr.repo.root, ci | read_only)
        assert "pull-requests: write" in refused.stderr
        assert (tmp_path / "github_output").read_text(encoding="utf-8").strip() == "exit-code=1"  # 1 wins

        never = _review_env(tmp_path, GITHUB_TOKEN="bot-token", POST_REVIEW="false")
        quiet = _run_step("Review", pr.repo.root, ci | never)
        assert "posted" not in quiet.stderr and len(fake.state.issue_comments) == 1
    assert fake.invalid() == []
    gate = _run_step("Gate on the result", tmp_path, {"CODE": "4"})
    assert gate.returncode == 4 and "could not be posted" in gate.stdout
