"""Settings that keep a reviewed repository's own git config from running programs or changing output.

Every git command prscope runs (change set, tools, code index) goes through these: a repository under
review is untrusted input, and its `.git/config` can name programs (fsmonitor, pager, filters, external
diff) that git would otherwise execute.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Sequence
from pathlib import Path

GIT_CONFIG_TIMEOUT_S = 20.0

GIT_SAFE_CONFIG: tuple[str, ...] = (
    "core.fsmonitor=false",
    "core.untrackedCache=false",
    "core.hooksPath=/dev/null",
    "core.pager=cat",
    "core.sshCommand=false",
    "core.askPass=",
    "diff.external=",
    "protocol.allow=never",
    "credential.helper=",
    "color.ui=false",
    "log.showSignature=false",
    "gpg.program=false",
    "grep.fallbackToNoIndex=false",
)


def git_env() -> dict[str, str]:
    """The environment for git: no inherited GIT_* overrides, no prompts, no pager, no lazy fetch."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(
        {
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_PAGER": "cat",
            "PAGER": "cat",
            "GIT_OPTIONAL_LOCKS": "0",
            "GIT_NO_LAZY_FETCH": "1",
            "GIT_NO_REPLACE_OBJECTS": "1",
            "LC_ALL": "C",
            "LANGUAGE": "C",
        }
    )
    return env


def safe_git_command(*args: str, extra_config: Sequence[str] = ()) -> list[str]:
    """The argv for `git ARGS` with every setting that could run a program or page output pinned off."""
    command = ["git", "--no-pager"]
    for setting in (*GIT_SAFE_CONFIG, *extra_config):
        command += ["-c", setting]
    return [*command, *args]


def filter_overrides(repo_root: Path) -> list[str]:
    """`-c` settings that blank every filter driver configured for this repository (any config level)."""
    result = subprocess.run(
        safe_git_command("-C", str(repo_root), "config", "--null", "--get-regexp", r"^filter\."),
        capture_output=True,
        env=git_env(),
        stdin=subprocess.DEVNULL,
        timeout=GIT_CONFIG_TIMEOUT_S,
        check=False,
    )
    drivers = set()
    for entry in result.stdout.decode("utf-8", "replace").split("\x00"):
        key = entry.partition("\n")[0]
        stem, _, setting = key.rpartition(".")
        if stem.startswith("filter.") and setting in ("clean", "smudge", "process", "required"):
            drivers.add(stem.removeprefix("filter."))
    overrides = []
    for driver in sorted(drivers):
        overrides += [f"filter.{driver}.{s}=" for s in ("clean", "smudge", "process")]
        overrides.append(f"filter.{driver}.required=false")
    return overrides
