"""`.pre-commit-hooks.yaml`, run by the real pre-commit (`try-repo`: it installs the hook from this
checkout into its own virtualenv, as a user's `pre-commit install` would) in a temporary repository:
a staged change that breaks a call fails the hook; a clean one passes. The review is offline (never a
model) whatever keys the environment holds."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.gitrepo import GIT_ENV, GitRepo
from tests.test_review_helpers import ROOT

PRE_COMMIT = Path(sys.executable).parent / "pre-commit"


def _try_repo(repo: GitRepo, home: Path) -> subprocess.CompletedProcess[str]:
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("GIT_", "PRE_COMMIT", "ANTHROPIC_", "OPENAI_"))
    }
    # A key in the environment must not make the hook call a model: --offline.
    env |= {**GIT_ENV, "PRE_COMMIT_HOME": str(home), "ANTHROPIC_API_KEY": "sk-ant-not-used"}
    # The real home, for pip's cache (the hook's virtualenv installs prscope and its dependencies, which
    # scripts/setup has just downloaded); no user git configuration all the same.
    env["HOME"] = os.environ.get("HOME", str(home))
    env["GIT_CONFIG_GLOBAL"] = os.devnull
    return subprocess.run(
        [str(PRE_COMMIT), "try-repo", str(ROOT), "prscope", "--verbose", "--color", "never"],
        cwd=repo.root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )


def test_manifest_declares_an_offline_staged_review() -> None:
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert hook["id"] == "prscope" and hook["language"] == "python" and hook["pass_filenames"] is False
    assert "--staged" in hook["entry"] and "--offline" in hook["entry"] and "--fail-on error" in hook["entry"]


@pytest.mark.slow
@pytest.mark.timeout(900)  # pre-commit installs prscope and its dependencies into a virtualenv
def test_hook_fails_on_a_breaking_change_and_passes_a_clean_one(tmp_path: Path) -> None:
    if not PRE_COMMIT.exists():
        pytest.fail("pre-commit is not installed next to this Python (pip install -e '.[dev]')")
    repo = GitRepo(tmp_path / "project")
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/money.py", "def total(prices):\n    return sum(prices)\n")
    repo.write(
        "pkg/shop.py", "from pkg.money import total\n\n\ndef bill(prices):\n    return total(prices)\n"
    )
    repo.commit("base")
    home = tmp_path / "home"

    repo.write("pkg/money.py", "def total(prices, currency):\n    return f'{sum(prices)} {currency}'\n")
    repo.git("add", "pkg/money.py")
    failed = _try_repo(repo, home)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "Failed" in failed.stdout and "breaking-call" in failed.stdout
    assert "Missing new required argument `currency`" in failed.stdout and "review offline" in failed.stdout

    repo.write(
        "pkg/shop.py", "from pkg.money import total\n\n\ndef bill(prices):\n    return total(prices, 'EUR')\n"
    )
    repo.git("add", "pkg/shop.py")
    passed = _try_repo(repo, home)
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
