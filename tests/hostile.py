"""A repository configured to run a program at every turn git gives it, for the security tests."""

from __future__ import annotations

import stat
from pathlib import Path

from tests.gitrepo import GitRepo

EVIL_SCRIPT = """#!/bin/sh
echo "$0 $*" >> {marker}
cat
"""


def evil_script(tmp_path: Path) -> tuple[Path, Path]:
    """A script that records each run in a marker file (and passes stdin through, like a filter)."""
    marker = tmp_path / "ran.log"
    script = tmp_path / "evil.sh"
    script.write_text(EVIL_SCRIPT.format(marker=marker))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return script, marker


def configure_to_run(repo: GitRepo, script: Path, tmp_path: Path) -> None:
    """Every config key through which a reading git command could run a program, hooks included."""
    included = tmp_path / "included.cfg"
    included.write_text(f"[core]\n\tfsmonitor = {script}\n")
    hooks = tmp_path / "hooks"
    hooks.mkdir(exist_ok=True)
    for hook in ("post-checkout", "post-index-change", "fsmonitor-watchman", "reference-transaction"):
        (hooks / hook).unlink(missing_ok=True)
        (hooks / hook).symlink_to(script)
    settings = {
        "core.fsmonitor": str(script),
        "core.pager": str(script),
        "core.hooksPath": str(hooks),
        "core.sshCommand": str(script),
        "diff.external": str(script),
        "diff.evil.textconv": str(script),
        "diff.evil.command": str(script),
        "filter.evil.clean": str(script),
        "filter.evil.smudge": str(script),
        "filter.evil.process": str(script),
        "filter.evil.required": "true",
        "pager.diff": str(script),
        "pager.log": str(script),
        "pager.grep": str(script),
        "pager.status": str(script),
        "diff.submodule": "diff",
        "core.untrackedCache": "true",
        "include.path": str(included),
    }
    for key, value in settings.items():
        repo.git("config", key, value)
