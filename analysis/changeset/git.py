"""Running git: one place that builds the command, maps git's refusals to one-line errors, reads blobs."""

from __future__ import annotations

import contextlib
import io
import os
import re
import subprocess
import threading
import weakref
from pathlib import Path
from typing import IO

from prscope.analysis.changeset.model import Side
from prscope.analysis.errors import RepositoryError
from prscope.analysis.gitsafe import run_git, start_git
from prscope.analysis.gittext import looks_binary
from prscope.analysis.sourcetext import decode_source

MAX_TEXT_BYTES = 8 * 1024 * 1024
"""Files above this are neither diffed nor read: git treats them as binary (core.bigFileThreshold)."""

NULL_SHA_RE = re.compile(r"^0+$")

# Pin the settings that change what git prints, whatever the user's config says.
_PINNED_CONFIG = (
    "core.quotePath=false",
    "diff.noprefix=false",
    "diff.mnemonicPrefix=false",
    "diff.relative=false",
    f"core.bigFileThreshold={MAX_TEXT_BYTES}",
)


class GitFailed(Exception):
    """A git command exited non-zero; callers turn the cases they expect into RepositoryError."""

    def __init__(self, args: tuple[str, ...], returncode: int, stderr: str) -> None:
        super().__init__(stderr)
        self.git_args = args
        self.returncode = returncode
        self.stderr = stderr

    @property
    def first_line(self) -> str:
        for line in self.stderr.splitlines():
            if line.strip():
                return line.strip().removeprefix("fatal: ").removeprefix("error: ")
        return f"exit status {self.returncode}"


class Git:
    """git in one working directory; raises RepositoryError for the refusals every command shares."""

    def __init__(self, cwd: Path) -> None:
        self.cwd = cwd
        self.warnings: list[str] = []
        """`warning:` lines git printed on success (e.g. rename detection skipped), in order."""

    def run(self, *args: str, ok_codes: tuple[int, ...] = (0,)) -> bytes:
        return self._run(args, None, ok_codes)

    def run_input(self, args: tuple[str, ...], stdin: str) -> bytes:
        return self._run(args, stdin.encode("utf-8", "surrogateescape"), (0,))

    def _run(self, args: tuple[str, ...], stdin: bytes | None, ok_codes: tuple[int, ...]) -> bytes:
        try:
            result = run_git(self.cwd, args, stdin=stdin, extra_config=_PINNED_CONFIG)
        except FileNotFoundError as err:
            raise RepositoryError("git is not installed or not on PATH") from err
        if result.returncode not in ok_codes:
            stderr = result.stderr.decode("utf-8", "replace")
            raise_common_refusal(stderr, self.cwd)
            raise GitFailed(args, result.returncode, stderr)
        self._keep_warnings(result.stderr)
        return result.stdout

    def _keep_warnings(self, stderr: bytes) -> None:
        for line in stderr.decode("utf-8", "replace").splitlines():
            if line.startswith("warning: "):
                self.warnings.append(line.removeprefix("warning: ").strip())

    def text(self, *args: str, ok_codes: tuple[int, ...] = (0,)) -> str:
        return self.run(*args, ok_codes=ok_codes).decode("utf-8", "replace").strip()

    def rev_parse_commit(self, rev: str) -> str | None:
        """The commit id `rev` names, or None when it names nothing."""
        try:
            out = self.text("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
        except GitFailed:
            return None
        return out or None


def raise_common_refusal(stderr: str, cwd: Path) -> None:
    lowered = stderr.lower()
    if "dubious ownership" in lowered:
        where = _quoted_path_after(stderr, "repository at") or str(cwd)
        raise RepositoryError(
            f"git refuses to read {where}: it is owned by another user (dubious ownership); "
            f"if you trust it, run: git config --global --add safe.directory {where}"
        )
    if "not a git repository" in lowered:
        raise RepositoryError(f"not a git repository: {cwd}")


def _quoted_path_after(text: str, marker: str) -> str | None:
    match = re.search(re.escape(marker) + r"\s+'([^']+)'", text)
    return match.group(1) if match else None


def decode_text(data: bytes, path: str = "") -> str:
    return decode_source(data, path)


class BlobReader:
    """File text from git objects through one long-lived `git cat-file --batch` process.

    The process is started on first use and shared by threads under a lock; `close` (or garbage
    collection) stops it.
    """

    def __init__(self, repo_root: Path, max_bytes: int = MAX_TEXT_BYTES) -> None:
        self.repo_root = repo_root
        self.max_bytes = max_bytes
        self._lock = threading.Lock()
        self._process: subprocess.Popen[bytes] | None = None
        self._finalizer: weakref.finalize[[subprocess.Popen[bytes]], BlobReader] | None = None

    def read(self, spec: str) -> bytes | None:
        """The blob `spec` (`rev:path`, `:path` for the index, or an object id) or None if absent/large."""
        if "\n" in spec:
            return self._read_one_off(spec)
        with self._lock:
            process = self._ensure_process()
            assert process.stdin is not None and process.stdout is not None
            try:
                process.stdin.write(spec.encode("utf-8", "surrogateescape") + b"\n")
                process.stdin.flush()
                return read_batch_reply(process.stdout, self.max_bytes)
            except (BrokenPipeError, OSError, ValueError):
                self._stop()
                return self._read_one_off(spec)

    def _read_one_off(self, spec: str) -> bytes | None:
        git = Git(self.repo_root)
        try:
            size = int(git.text("cat-file", "-s", spec))
            if size > self.max_bytes:
                return None
            return git.run("cat-file", "blob", spec)
        except (GitFailed, ValueError):
            return None

    def _ensure_process(self) -> subprocess.Popen[bytes]:
        if self._process is None or self._process.poll() is not None:
            self._process = start_git(
                self.repo_root, ("cat-file", "--batch"), stdin=subprocess.PIPE, stderr=subprocess.DEVNULL
            )
            self._finalizer = weakref.finalize(self, _stop_process, self._process)
        return self._process

    def _stop(self) -> None:
        if self._finalizer is not None:
            self._finalizer()
        self._process = None
        self._finalizer = None

    def close(self) -> None:
        with self._lock:
            self._stop()


def read_batch_reply(stream: IO[bytes], max_bytes: int) -> bytes | None:
    """One `git cat-file --batch` reply: the blob, or None (missing, not a blob, or over `max_bytes`)."""
    header = stream.readline().decode("utf-8", "replace").split()
    # A miss echoes the request (which may hold spaces) followed by "missing" or "ambiguous".
    if len(header) != 3 or not header[2].isdigit():
        return None
    _, kind, size_text = header
    size = int(size_text)
    if kind != "blob" or size > max_bytes:
        _discard(stream, size + 1)
        return None
    data = stream.read(size)
    stream.read(1)
    return data


def _discard(stream: IO[bytes], count: int) -> None:
    while count > 0:
        chunk = stream.read(min(count, 1 << 20))
        if not chunk:
            return
        count -= len(chunk)


def _stop_process(process: subprocess.Popen[bytes]) -> None:
    if process.stdin is not None:
        with contextlib.suppress(OSError):
            process.stdin.close()
    try:
        process.wait(timeout=5)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    if process.stdout is not None:
        process.stdout.close()


def read_worktree_file(repo_root: Path, path: str, max_bytes: int = MAX_TEXT_BYTES) -> bytes | None:
    """A working-tree file's bytes without following links out of the repository.

    A symlink reads as its target string (as git stores it); a file reached through a symlinked
    directory, or above `max_bytes`, reads as None.
    """
    target = repo_root / path
    try:
        if os.path.islink(target):
            return os.fsencode(os.readlink(target))
        root = os.path.realpath(repo_root)
        parent = os.path.realpath(target.parent)
        if parent != root and not parent.startswith(root + os.sep):
            return None
        if not target.is_file() or target.stat().st_size > max_bytes:
            return None
        return target.read_bytes()
    except OSError:
        return None


PREFETCH_CHUNK = 500
PREFETCH_MAX_CHARS = 64 * 1024 * 1024


class GitSideReader:
    """Reads either side of a change: a commit or tree, the index (`:`), or the working tree (None)."""

    def __init__(
        self,
        repo_root: Path,
        old_rev: str | None,
        new_rev: str | None,
        new_is_worktree: bool,
        *,
        real_names: dict[str, str] | None = None,
    ) -> None:
        self.repo_root = repo_root
        self.real_names = real_names or {}
        """Display path -> the name as stored, for names that are not valid UTF-8."""
        self.old_rev = old_rev
        self.new_rev = new_rev
        self.new_is_worktree = new_is_worktree
        self.blobs = BlobReader(repo_root)
        self._cache: dict[tuple[Side, str], str | None] = {}
        self._cached_chars = 0
        self._cache_lock = threading.Lock()

    def prefetch(self, wanted: list[tuple[Side, str, str]]) -> None:
        todo = [
            item
            for item in wanted
            if (item[0], item[1]) not in self._cache and not (item[0] == "new" and self.new_is_worktree)
        ]
        for start in range(0, len(todo), PREFETCH_CHUNK):
            if self._cached_chars > PREFETCH_MAX_CHARS:
                return
            chunk = todo[start : start + PREFETCH_CHUNK]
            for (side, path, _), data in zip(chunk, self._batch([oid for _, _, oid in chunk]), strict=True):
                text = None if data is None or looks_binary(data) else decode_text(data, path)
                self._remember(side, path, text)

    def prefetch_paths(self, side: Side, paths: list[str]) -> None:
        """Warm the cache for files by path on one side (e.g. every file a code index will read)."""
        rev = self.old_rev if side == "old" else self.new_rev
        if rev is None or (side == "new" and self.new_is_worktree):
            return
        prefix = ":" if rev == ":" else f"{rev}:"
        wanted = [
            (side, path, f"{prefix}{self.real_names.get(path, path)}") for path in paths if "\n" not in path
        ]
        self.prefetch(wanted)

    def _batch(self, object_ids: list[str]) -> list[bytes | None]:
        """Blobs by object name (an id or `rev:path`) from one `git cat-file --batch` run."""
        out = Git(self.repo_root).run_input(
            ("cat-file", "--batch"), "".join(f"{oid}\n" for oid in object_ids)
        )
        stream = io.BytesIO(out)
        return [read_batch_reply(stream, self.blobs.max_bytes) for _ in object_ids]

    def _remember(self, side: Side, path: str, text: str | None) -> None:
        with self._cache_lock:
            if self._cached_chars <= PREFETCH_MAX_CHARS:
                self._cache[(side, path)] = text
                self._cached_chars += len(text or "")

    def read_bytes(self, side: Side, path: str) -> bytes | None:
        path = self.real_names.get(path, path)
        if side == "new" and self.new_is_worktree:
            return read_worktree_file(self.repo_root, path)
        rev = self.old_rev if side == "old" else self.new_rev
        if rev is None:
            return None
        return self.blobs.read(f"{rev}:{path}" if rev != ":" else f":{path}")

    def read(self, side: Side, path: str) -> str | None:
        key = (side, path)
        if key in self._cache:
            return self._cache[key]
        data = self.read_bytes(side, path)
        if data is None or looks_binary(data):
            return None
        return decode_text(data, path)

    def close(self) -> None:
        self.blobs.close()
