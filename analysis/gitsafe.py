"""The one place prscope runs git: settings that keep a reviewed repository from running programs.

A repository under review is untrusted input: its `.git/config` (and any file it includes) can name
programs (fsmonitor, pager, clean/smudge filters, external diff, textconv, hooks) that git would
otherwise execute, and its `.gitattributes` decides which files they apply to. Every git command the
product runs is built and started here (`run_git`, `start_git`); a test checks that no other module
starts a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import threading
from collections.abc import Sequence
from pathlib import Path

GIT_CONFIG_TIMEOUT_S = 20.0
TimeoutExpired = subprocess.TimeoutExpired
PIPE = subprocess.PIPE
DEVNULL = subprocess.DEVNULL

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
    "submodule.recurse=false",
    "status.submoduleSummary=false",
)

# Subcommands that can show a diff, and the flags that stop them running a configured diff program.
_DIFF_GUARDS = ("--no-ext-diff", "--no-textconv")
_GUARD_FLAGS: dict[str, tuple[str, ...]] = {
    "diff": _DIFF_GUARDS,
    "log": _DIFF_GUARDS,
    "show": _DIFF_GUARDS,
    "diff-tree": _DIFF_GUARDS,
    "diff-index": _DIFF_GUARDS,
    "diff-files": _DIFF_GUARDS,
    "blame": ("--no-textconv",),
    "grep": ("--no-textconv",),
}
_FILTER_SETTINGS = ("clean", "smudge", "process")


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
    return [*command, *_guarded(args)]


def git_argv(
    repo_root: Path, args: Sequence[str], *, extra_config: Sequence[str] = (), literal_pathspecs: bool = False
) -> list[str]:
    """The argv for git ARGS in `repo_root`: safe settings, the repository's filters blanked, guard flags."""
    settings = (*program_overrides(repo_root), *extra_config)
    literal = ("--literal-pathspecs",) if literal_pathspecs else ()
    return safe_git_command(*literal, *args, extra_config=settings)


def run_git(
    repo_root: Path,
    args: Sequence[str],
    *,
    stdin: bytes | None = None,
    timeout_s: float | None = None,
    extra_config: Sequence[str] = (),
    literal_pathspecs: bool = False,
) -> subprocess.CompletedProcess[bytes]:
    """Run git in `repo_root` to completion; FileNotFoundError when git (or the directory) is missing."""
    return subprocess.run(
        git_argv(repo_root, args, extra_config=extra_config, literal_pathspecs=literal_pathspecs),
        cwd=repo_root,
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        env=git_env(),
        timeout=timeout_s,
        check=False,
    )


def start_git(
    repo_root: Path,
    args: Sequence[str],
    *,
    stdin: int = subprocess.DEVNULL,
    stderr: int = subprocess.PIPE,
    literal_pathspecs: bool = False,
) -> subprocess.Popen[bytes]:
    """Start a long-running git in `repo_root` with its stdout piped (batch readers, streaming grep)."""
    return subprocess.Popen(
        git_argv(repo_root, args, literal_pathspecs=literal_pathspecs),
        cwd=repo_root,
        stdin=stdin,
        stdout=subprocess.PIPE,
        stderr=stderr,
        env=git_env(),
    )


def _guarded(args: Sequence[str]) -> list[str]:
    """`args` with the flags that stop a diff-showing subcommand from running configured programs."""
    position = next((i for i, arg in enumerate(args) if not arg.startswith("-")), None)
    if position is None:
        return list(args)
    missing = [flag for flag in _GUARD_FLAGS.get(args[position], ()) if flag not in args]
    return [*args[: position + 1], *missing, *args[position + 1 :]]


_overrides_lock = threading.Lock()
_overrides_cache: dict[str, tuple[tuple[int, ...], tuple[str, ...]]] = {}


def program_overrides(repo_root: Path) -> tuple[str, ...]:
    """`-c` settings that blank every filter driver the repository configures (any level, includes).

    Cached per repository while its config files are unchanged: a long-running language server picks up
    a filter added later.
    """
    if not repo_root.is_dir():
        return ()
    key = str(repo_root)
    stamp = _config_stamp(repo_root)
    with _overrides_lock:
        cached = _overrides_cache.get(key)
        if cached is not None and cached[0] == stamp:
            return cached[1]
    overrides = tuple(filter_overrides(repo_root))
    with _overrides_lock:
        _overrides_cache[key] = (stamp, overrides)
    return overrides


def _config_stamp(repo_root: Path) -> tuple[int, ...]:
    candidates = [repo_root / ".git" / "config", Path.home() / ".gitconfig", Path("/etc/gitconfig")]
    dot_git = repo_root / ".git"
    if dot_git.is_file():
        candidates.append(dot_git)
    stamp: list[int] = []
    for path in candidates:
        try:
            stamp.append(path.stat().st_mtime_ns)
        except OSError:
            stamp.append(0)
    return tuple(stamp)


def filter_overrides(repo_root: Path) -> list[str]:
    """`-c` settings that blank every filter driver configured for this repository (any config level)."""
    try:
        result = subprocess.run(
            safe_git_command("config", "--null", "--get-regexp", r"^filter\."),
            cwd=repo_root,
            capture_output=True,
            env=git_env(),
            stdin=subprocess.DEVNULL,
            timeout=GIT_CONFIG_TIMEOUT_S,
            check=False,
        )
    except OSError:
        return []  # no git, or no such directory: the command that follows fails the same way
    drivers = set()
    for entry in result.stdout.decode("utf-8", "replace").split("\x00"):
        key = entry.partition("\n")[0]
        stem, _, setting = key.rpartition(".")
        if stem.startswith("filter.") and setting in (*_FILTER_SETTINGS, "required"):
            drivers.add(stem.removeprefix("filter."))
    overrides = []
    for driver in sorted(drivers):
        overrides += [f"filter.{driver}.{s}=" for s in _FILTER_SETTINGS]
        overrides.append(f"filter.{driver}.required=false")
    return overrides
