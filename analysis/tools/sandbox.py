"""The path sandbox every tool goes through, and a git runner that repository config cannot subvert.

Paths the model gives are repository-relative. A path is refused when it leaves the repository (by `..`,
by being absolute elsewhere, or through a symlink), when it reaches into `.git`, or when it names a file
that usually holds credentials (unless the sandbox allows them). Refusals are `ToolError`s with a line
the model can read.
"""

from __future__ import annotations

import fnmatch
import os
import posixpath
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from prscope.analysis import gitsafe
from prscope.analysis.tools.base import ToolContext, ToolError

SECRET_NAME_PATTERNS: tuple[str, ...] = (
    ".env",
    ".env.*",
    "*.env",
    "*.pem",
    "*.key",
    "*.p12",
    "*.pfx",
    "*.jks",
    "*.keystore",
    "*.kdbx",
    "id_rsa*",
    "id_dsa*",
    "id_ecdsa*",
    "id_ed25519*",
    ".netrc",
    "_netrc",
    ".pypirc",
    ".npmrc",
    ".yarnrc.yml",
    ".git-credentials",
    ".htpasswd",
    "credentials.json",
    "client_secret*.json",
    "service-account*.json",
    "*.tfstate",
    "*.tfstate.backup",
)
SECRET_PATH_SUFFIXES: tuple[tuple[str, ...], ...] = (
    (".aws", "credentials"),
    (".aws", "config"),
    (".docker", "config.json"),
    (".kube", "config"),
    (".config", "gh", "hosts.yml"),
)
SECRET_DIRECTORIES = frozenset({".ssh", ".gnupg"})

_SECRET_NAME = re.compile("|".join(fnmatch.translate(p) for p in SECRET_NAME_PATTERNS))

GIT_DEFAULT_TIMEOUT_S = 20.0


def is_secret_path(rel_path: str) -> bool:
    """Whether a repository-relative path names a file that usually holds credentials."""
    parts = [p for p in rel_path.split("/") if p not in ("", ".")]
    if not parts:
        return False
    folded = [p.casefold() for p in parts]
    if any(p in SECRET_DIRECTORIES for p in folded[:-1]):
        return True
    if _SECRET_NAME.match(folded[-1]):
        return True
    return any(tuple(folded[-len(suffix) :]) == suffix for suffix in SECRET_PATH_SUFFIXES)


def _has_git_component(rel_path: str) -> bool:
    return ".git" in rel_path.casefold() and any(part.casefold() == ".git" for part in rel_path.split("/"))


@dataclass(frozen=True)
class SafePath:
    """A path that passed the sandbox: `rel` is repository-relative with `/` separators ("." = root)."""

    rel: str
    absolute: Path
    real: str = ""
    """Where `rel` leads once symlinks inside the repository are followed (repository-relative)."""

    def exists(self) -> bool:
        return self.absolute.exists()


class Sandbox:
    def __init__(self, repo_root: Path, *, allow_secret_files: bool = False) -> None:
        self.root = Path(os.path.realpath(repo_root))
        self.allow_secret_files = allow_secret_files
        self._root_text = str(self.root)
        self._given_root = Path(os.path.abspath(repo_root))
        self._directories: dict[str, str | None] = {}

    def resolve(self, path: str, *, must_exist: bool = True) -> SafePath:
        """Check `path` and return where it is; raise ToolError with the reason when it is refused."""
        rel = self._relative(path)
        real_rel = self._check(rel, path)
        absolute = self.root / rel if rel != "." else self.root
        if must_exist and not absolute.exists():
            raise ToolError(f"no such file or directory: {rel}")
        return SafePath(rel, absolute, real_rel)

    def _check(self, rel: str, path: str) -> str:
        """Refuse `rel` (normalised, repository-relative) or return where it really leads."""
        if _has_git_component(rel):
            raise ToolError(f"refused: {path!r} is inside .git; git internals are not readable")
        self._refuse_secret(rel, path)
        real_rel = self._real_relative(rel)
        if real_rel is None:
            raise ToolError(f"refused: {path!r} is a symlink that resolves outside the repository")
        if real_rel != rel:
            if _has_git_component(real_rel):
                raise ToolError(f"refused: {path!r} resolves into .git; git internals are not readable")
            self._refuse_secret(real_rel, path)
        return real_rel

    def _real_relative(self, rel: str) -> str | None:
        """Where `rel` really leads, relative to the root (symlinks followed); None when outside it.

        Directory answers are cached: listings and searches check hundreds of files in a few directories.
        """
        if rel == ".":
            return "."
        parent, _, name = rel.rpartition("/")
        real_parent = self._real_directory(parent or ".")
        if real_parent is None:
            return None
        candidate = name if real_parent == "." else f"{real_parent}/{name}"
        full = os.path.join(self._root_text, candidate)
        if not os.path.islink(full):
            return candidate
        return self._inside(os.path.realpath(full))

    def _real_directory(self, rel: str) -> str | None:
        if rel not in self._directories:
            if len(self._directories) > 50_000:
                self._directories.clear()
            self._directories[rel] = self._inside(os.path.realpath(os.path.join(self._root_text, rel)))
        return self._directories[rel]

    def _inside(self, real: str) -> str | None:
        if real == self._root_text:
            return "."
        if real.startswith(self._root_text + os.sep):
            return real[len(self._root_text) + 1 :].replace(os.sep, "/")
        return None

    def check_name(self, rel_path: str) -> None:
        """Refuse `.git` internals and withheld secrets by name alone (for content not read from disk)."""
        rel = self._relative(rel_path)
        if _has_git_component(rel):
            raise ToolError(f"refused: {rel_path!r} is inside .git; git internals are not readable")
        self._refuse_secret(rel, rel_path)

    def allows(self, rel_path: str) -> bool:
        """Whether a path found by a listing or search may have its content shown."""
        try:
            self._check(self._relative(rel_path), rel_path)
        except ToolError:
            return False
        return True

    def is_withheld_secret(self, rel_path: str) -> bool:
        return not self.allow_secret_files and is_secret_path(rel_path)

    def _refuse_secret(self, rel: str, shown: str) -> None:
        if self.is_withheld_secret(rel):
            raise ToolError(
                f"refused: {shown!r} looks like a secrets file (credentials, keys, .env); its content is "
                "withheld (allow_secret_files is off)"
            )

    def _relative(self, path: str) -> str:
        raw = path.strip().replace("\\", "/")
        if not raw or raw == ".":
            return "."
        if "\x00" in raw:
            raise ToolError("refused: path contains a NUL character")
        if raw.startswith("/"):
            return self._relative_from_absolute(raw, path)
        normal = posixpath.normpath(raw)
        if normal == ".." or normal.startswith("../"):
            raise ToolError(f"refused: {path!r} escapes the repository (paths are repository-relative)")
        return normal

    def _relative_from_absolute(self, raw: str, shown: str) -> str:
        normal = Path(posixpath.normpath(raw))
        for root in (self.root, self._given_root):
            if normal == root:
                return "."
            if normal.is_relative_to(root):
                return normal.relative_to(root).as_posix()
        raise ToolError(
            f"refused: {shown!r} is an absolute path outside the repository (use a repository-relative path)"
        )


def sandbox_for(ctx: ToolContext) -> Sandbox:
    """The context's sandbox, made once and kept in `ctx.extras["sandbox"]`."""
    existing = ctx.extras.get("sandbox")
    if isinstance(existing, Sandbox):
        return existing
    sandbox = Sandbox(ctx.repo_root, allow_secret_files=ctx.allow_secret_files)
    ctx.extras["sandbox"] = sandbox
    return sandbox


def run_git(
    repo_root: Path,
    args: Sequence[str],
    *,
    timeout_s: float = GIT_DEFAULT_TIMEOUT_S,
    ok_codes: Sequence[int] = (0,),
) -> str:
    """Run git read-only and return its stdout (decoded with replacement); failures are ToolErrors."""
    try:
        result = gitsafe.run_git(repo_root, args, timeout_s=timeout_s, literal_pathspecs=True)
    except gitsafe.TimeoutExpired as err:
        raise ToolError(f"git {args[0]} took longer than {timeout_s:g} s; narrow the request") from err
    if result.returncode not in ok_codes:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        first = message[0] if message else f"exit code {result.returncode}"
        raise ToolError(f"git {args[0]} failed: {first}")
    return result.stdout.decode("utf-8", "replace")


def list_visible_files(repo_root: Path, under: str = ".") -> list[str]:
    """Tracked plus untracked-not-ignored files (repository-relative), optionally under one directory."""
    args = ["ls-files", "-z", "--cached", "--others", "--exclude-standard", "--deduplicate"]
    if under != ".":
        args += ["--", under]
    output = run_git(repo_root, args)
    # deleted-but-still-tracked files are in the index only; they are not there to be read or listed
    return sorted({p for p in output.split("\x00") if p and os.path.lexists(repo_root / p)})
