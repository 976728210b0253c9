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
from dataclasses import dataclass
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


@dataclass(frozen=True)
class _Overrides:
    settings: tuple[str, ...]
    watched: tuple[Path, ...]
    """Every file the repository's configuration is read from or could include, for `stamp`."""
    stamp: tuple[tuple[int, int, int], ...]


_overrides_cache: dict[str, _Overrides] = {}


def program_overrides(repo_root: Path) -> tuple[str, ...]:
    """`-c` settings that blank every filter driver the repository configures (any level, includes).

    Cached per repository while no file its configuration comes from (included files and include
    targets that do not exist yet among them) changes: a long-running language server picks up a filter
    added later, wherever it is added.
    """
    if not repo_root.is_dir():
        return ()
    key = str(repo_root)
    with _overrides_lock:
        cached = _overrides_cache.get(key)
    if cached is not None and _stamp(cached.watched) == cached.stamp:
        return cached.settings
    fresh = _read_overrides(repo_root)
    with _overrides_lock:
        _overrides_cache[key] = fresh
    return fresh.settings


def _read_overrides(repo_root: Path) -> _Overrides:
    """The overrides and the files they depend on, stamped so that a change made while the
    configuration was being read is seen next time (the listing is taken again after the stamp)."""
    listing = _config_listing(repo_root)
    for _attempt in range(3):
        watched = _watched_files(repo_root, listing)
        stamp = _stamp(watched)
        again = _config_listing(repo_root)
        if again == listing:
            return _Overrides(tuple(_blanking(listing)), watched, stamp)
        listing = again
    # The configuration keeps changing: use the latest reading, and read it again next time.
    return _Overrides(tuple(_blanking(listing)), (repo_root,), ((-1, -1, -1),))


def filter_overrides(repo_root: Path) -> list[str]:
    """`-c` settings that blank every filter driver configured for this repository (any config level)."""
    return _blanking(_config_listing(repo_root))


ConfigEntry = tuple[str, str, str]
"""(origin as git shows it, e.g. `file:.git/config`; key; value)."""


def _config_listing(repo_root: Path) -> list[ConfigEntry]:
    try:
        result = subprocess.run(
            safe_git_command("config", "--list", "--show-origin", "--null"),
            cwd=repo_root,
            capture_output=True,
            env=git_env(),
            stdin=subprocess.DEVNULL,
            timeout=GIT_CONFIG_TIMEOUT_S,
            check=False,
        )
    except OSError:
        return []  # no git, or no such directory: the command that follows fails the same way
    fields = result.stdout.decode("utf-8", "replace").split("\x00")
    entries = []
    for origin, item in zip(fields[0::2], fields[1::2], strict=False):
        name, _, value = item.partition("\n")
        entries.append((origin, name, value))
    return entries


def _blanking(listing: list[ConfigEntry]) -> list[str]:
    drivers = set()
    for _origin, name, _value in listing:
        stem, _, setting = name.rpartition(".")
        if stem.startswith("filter.") and setting in (*_FILTER_SETTINGS, "required"):
            drivers.add(stem.removeprefix("filter."))
    overrides = []
    for driver in sorted(drivers):
        overrides += [f"filter.{driver}.{s}=" for s in _FILTER_SETTINGS]
        overrides.append(f"filter.{driver}.required=false")
    return overrides


def _watched_files(repo_root: Path, listing: list[ConfigEntry]) -> tuple[Path, ...]:
    """The usual configuration files (present or not), every file the listing came from, and every
    include target it names (present or not)."""
    home = Path.home()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    files = {
        repo_root / ".git",
        repo_root / ".git" / "config",
        repo_root / ".git" / "config.worktree",
        home / ".gitconfig",
        xdg / "git" / "config",
        Path("/etc/gitconfig"),
    }
    for origin, name, value in listing:
        source = repo_root / origin.removeprefix("file:") if origin.startswith("file:") else None
        if source is not None:
            files.add(source)
        if name == "include.path" or (name.startswith("includeif.") and name.endswith(".path")):
            target = Path(value).expanduser()
            files.add(target if target.is_absolute() or source is None else source.parent / target)
    return tuple(sorted(files))


def _stamp(files: tuple[Path, ...]) -> tuple[tuple[int, int, int], ...]:
    stamp = []
    for path in files:
        try:
            info = path.stat()
        except OSError:
            stamp.append((0, 0, 0))
        else:
            stamp.append((info.st_mtime_ns, info.st_size, info.st_ino))
    return tuple(stamp)
