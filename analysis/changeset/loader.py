"""load_changeset: resolve what to compare, run one `git diff`, and build the ChangeSet.

Modes and what they compare:
- branch: merge-base(base, HEAD) .. HEAD. The base is `--base REF` if given; else the CI variable
  (`GITHUB_BASE_REF`, then `CI_MERGE_REQUEST_TARGET_BRANCH_NAME`; each names a branch, tried as
  `origin/<branch>` then `<branch>`; if set but missing, that is an error, never a silent fallback); else
  the first of origin/HEAD, origin/main, origin/master, main, master that exists, skipping the branch
  that is checked out (comparing a branch with itself always shows nothing, so on `main` the base is
  `origin/main`, i.e. the unpushed commits).
- staged: HEAD (the empty tree in a repository without commits) .. the index.
- uncommitted: HEAD (or the empty tree) .. the working tree, plus untracked, not ignored files as added.
- commits: `A..B` (B defaults to HEAD) or `A...B` (from their merge-base).

One `git diff --raw -p -z` call gives exact paths (NUL-separated raw entries) and the patch; files above
MAX_TEXT_BYTES are reported by git as binary without being diffed and are marked `too_large`.
"""

from __future__ import annotations

import gc
import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from prscope.analysis.changeset.diffparse import SYMLINK_MODE, decode_path, parse_diff_output
from prscope.analysis.changeset.git import (
    MAX_TEXT_BYTES,
    Git,
    GitFailed,
    GitSideReader,
    decode_text,
    read_worktree_file,
)
from prscope.analysis.changeset.model import (
    ChangeSet,
    DiffLine,
    DiffSpec,
    FileChange,
    FileStatus,
    Hunk,
    Side,
    TreeFile,
    language_for_path,
)
from prscope.analysis.changeset.tree import list_side
from prscope.analysis.errors import RepositoryError
from prscope.analysis.gittext import looks_binary, split_lines

CI_BASE_VARIABLES = ("GITHUB_BASE_REF", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME")
DEFAULT_BASE_CANDIDATES = ("origin/HEAD", "origin/main", "origin/master", "main", "master")
SHALLOW_HINT = "fetch the full history (actions/checkout `fetch-depth: 0`, or `git fetch --unshallow`)"

_DIFF_OPTIONS = (
    "diff",
    "--raw",
    "-p",
    "-z",
    "-M",
    "-C",
    "-U3",
    "--no-abbrev",
    "--no-color",
    "--no-ext-diff",
    "--no-textconv",
    "--submodule=short",
    "--ignore-submodules=dirty",
    "--src-prefix=a/",
    "--dst-prefix=b/",
)


@dataclass
class _Comparison:
    """What one mode compares: `git diff` arguments and how each side is read back."""

    diff_args: tuple[str, ...]
    base_ref: str | None
    base_sha: str | None
    head_sha: str | None
    old_rev: str | None
    new_rev: str | None
    new_is_worktree: bool = False
    with_untracked: bool = False


def load_changeset(repo_path: Path, spec: DiffSpec, env: Mapping[str, str] | None = None) -> ChangeSet:
    """The change `spec` names in the repository at `repo_path`.

    Raises RepositoryError with one line for anything that stops the change from being read.
    """
    root = _repository_root(repo_path)
    git = Git(root)
    try:
        head = git.rev_parse_commit("HEAD")
        comparison = _comparison(git, spec, head, os.environ if env is None else env)
        git.warnings.clear()
        output = git.run(*_DIFF_OPTIONS, *comparison.diff_args, "--")
        undecodable: dict[str, str] = {}
        with _gc_paused():
            files = parse_diff_output(output, undecodable)
        _mark_too_large(git, root, files, comparison.new_is_worktree, undecodable)
        if comparison.with_untracked:
            files += _untracked_files(git, root, undecodable)
            files.sort(key=lambda change: change.path)
    except GitFailed as err:
        raise RepositoryError(f"git {err.git_args[0]} failed in {root}: {err.first_line}") from err
    reader = GitSideReader(
        root, comparison.old_rev, comparison.new_rev, comparison.new_is_worktree, real_names=undecodable
    )
    return ChangeSet(
        repo_root=root,
        mode=spec.mode,
        base_ref=comparison.base_ref,
        base_sha=comparison.base_sha,
        head_sha=comparison.head_sha,
        files=files,
        reader=reader,
        lister=partial(_list_side, root, comparison),
        warnings=list(git.warnings),
    )


def _list_side(root: Path, comparison: _Comparison, side: Side) -> list[TreeFile] | None:
    if side == "old":
        return list_side(root, comparison.old_rev, worktree=False)
    return list_side(root, comparison.new_rev, worktree=comparison.new_is_worktree)


@contextmanager
def _gc_paused() -> Iterator[None]:
    """Parsing builds ~100k small acyclic objects; cycle collection passes over them only cost time."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _repository_root(repo_path: Path) -> Path:
    path = Path(repo_path).expanduser()
    if not path.exists():
        raise RepositoryError(f"no such directory: {path}")
    if not path.is_dir():
        raise RepositoryError(f"not a directory: {path}")
    try:
        top = Git(path).text("rev-parse", "--show-toplevel")
    except GitFailed as err:
        raise RepositoryError(f"cannot read the repository at {path}: {err.first_line}") from err
    if not top:
        raise RepositoryError(f"not inside a working tree: {path} (a bare repository cannot be reviewed)")
    return Path(top)


def _comparison(git: Git, spec: DiffSpec, head: str | None, env: Mapping[str, str]) -> _Comparison:
    if spec.mode == "staged":
        base = head or _empty_tree(git)
        return _Comparison(("--cached", base), "HEAD" if head else None, base, None, base, ":")
    if spec.mode == "uncommitted":
        base = head or _empty_tree(git)
        return _Comparison(
            (base,),
            "HEAD" if head else None,
            base,
            None,
            base,
            None,
            new_is_worktree=True,
            with_untracked=True,
        )
    if head is None:
        raise RepositoryError(
            "the repository has no commits yet: commit something first, "
            "or review with --staged or --uncommitted"
        )
    if spec.mode == "commits":
        return _commit_range(git, spec.commits or "")
    base_ref, base_tip = _resolve_base(git, spec.base, env)
    merge_base = _merge_base(git, base_ref, base_tip, head)
    return _Comparison((merge_base, head), base_ref, merge_base, head, merge_base, head)


def _empty_tree(git: Git) -> str:
    """The empty tree's id (differs between SHA-1 and SHA-256 repositories)."""
    return git.text("hash-object", "-t", "tree", "/dev/null")


def _commit_range(git: Git, commits: str) -> _Comparison:
    symmetric = "..." in commits
    left, sep, right = commits.partition("..." if symmetric else "..")
    if not sep or not left:
        raise RepositoryError(f"--commits expects a range like A..B, got {commits!r}")
    right = right or "HEAD"
    shas = []
    for rev in (left, right):
        sha = git.rev_parse_commit(rev)
        if sha is None:
            raise RepositoryError(_unknown_ref_message(git, rev))
        shas.append(sha)
    base_sha, head_sha = shas
    if symmetric:
        base_sha = _merge_base(git, left, base_sha, head_sha)
    return _Comparison((base_sha, head_sha), left, base_sha, head_sha, base_sha, head_sha)


def _resolve_base(git: Git, explicit: str | None, env: Mapping[str, str]) -> tuple[str, str]:
    """The base ref name and its commit: explicit, from CI variables, or the first default that exists."""
    if explicit:
        sha = git.rev_parse_commit(explicit)
        if sha is None:
            raise RepositoryError(_unknown_ref_message(git, explicit))
        return explicit, sha
    for variable in CI_BASE_VARIABLES:
        branch = env.get(variable, "").strip()
        if branch:
            return _resolve_ci_branch(git, variable, branch)
    current = _current_branch(git)
    for candidate in DEFAULT_BASE_CANDIDATES:
        # Comparing the checked-out branch with itself always shows nothing; try its upstream instead.
        if candidate == current:
            continue
        sha = git.rev_parse_commit(candidate)
        if sha is not None:
            return candidate, sha
    tried = ", ".join(DEFAULT_BASE_CANDIDATES)
    raise RepositoryError(f"could not find a base branch (tried {tried}); pass --base REF")


def _resolve_ci_branch(git: Git, variable: str, branch: str) -> tuple[str, str]:
    for candidate in (f"origin/{branch}", branch):
        sha = git.rev_parse_commit(candidate)
        if sha is not None:
            return candidate, sha
    raise RepositoryError(
        f"base branch {branch!r} from {variable} not found (tried origin/{branch}, {branch}); "
        f"run `git fetch origin {branch}` or {SHALLOW_HINT}"
    )


def _current_branch(git: Git) -> str | None:
    try:
        ref = git.text("symbolic-ref", "--quiet", "HEAD")
    except GitFailed:
        return None
    return ref.removeprefix("refs/heads/") or None


def _unknown_ref_message(git: Git, ref: str) -> str:
    message = f"unknown revision {ref!r}: not a branch, tag or commit in this repository"
    remote, _, branch = ref.partition("/")
    if _is_shallow(git):
        return f"{message}; this is a shallow clone: {SHALLOW_HINT}"
    if branch and remote in _remotes(git):
        return f"{message}; run `git fetch {remote} {branch}`"
    return f"{message}; if it exists on the remote, run `git fetch` first"


def _remotes(git: Git) -> set[str]:
    try:
        return set(git.text("remote").split())
    except GitFailed:
        return set()


def _merge_base(git: Git, base_ref: str, base_sha: str, head: str) -> str:
    try:
        return git.text("merge-base", base_sha, head)
    except GitFailed as err:
        if _is_shallow(git):
            raise RepositoryError(
                f"no merge-base between {base_ref} and HEAD in this shallow clone; {SHALLOW_HINT}"
            ) from err
        raise RepositoryError(
            f"{base_ref} and HEAD have no common history; pass a --base that HEAD was branched from"
        ) from err


def _is_shallow(git: Git) -> bool:
    try:
        return git.text("rev-parse", "--is-shallow-repository") == "true"
    except GitFailed:
        return False


def _mark_too_large(
    git: Git, root: Path, files: list[FileChange], new_is_worktree: bool, real_names: dict[str, str]
) -> None:
    """Flag files git skipped for size (it reports them as binary) and record their size."""
    candidates = [change for change in files if change.is_binary]
    if not candidates:
        return
    blobs = sorted({sha for change in candidates for sha in (change.old_blob, change.new_blob) if sha})
    sizes = _blob_sizes(git, blobs)
    for change in candidates:
        new_size = sizes.get(change.new_blob or "")
        if new_is_worktree and change.status is not FileStatus.DELETED:
            new_size = _worktree_size(root, real_names.get(change.path, change.path))
        old_size = sizes.get(change.old_blob or "")
        change.size = new_size if new_size is not None else old_size
        if max(new_size or 0, old_size or 0) > MAX_TEXT_BYTES:
            change.too_large = True
            change.is_binary = False


def _blob_sizes(git: Git, blobs: list[str]) -> dict[str, int]:
    if not blobs:
        return {}
    out = git.run_input(("cat-file", "--batch-check=%(objectname) %(objectsize)"), "\n".join(blobs) + "\n")
    sizes = {}
    for line in out.decode("ascii", "replace").splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[1].isdigit():
            sizes[parts[0]] = int(parts[1])
    return sizes


def _worktree_size(root: Path, path: str) -> int | None:
    try:
        return (root / path).lstat().st_size
    except OSError:
        return None


def _untracked_files(git: Git, root: Path, real_names: dict[str, str]) -> list[FileChange]:
    out = git.run("ls-files", "--others", "--exclude-standard", "-z")
    changes = []
    for raw in out.split(b"\0"):
        if raw:
            path = decode_path(raw, real_names)
            changes.append(_untracked_change(root, path, real_names.get(path, path)))
    return changes


def _untracked_change(root: Path, path: str, real_name: str) -> FileChange:
    """An untracked file shown as added, with every line in one hunk (as `git add -N` would show it)."""
    if path.endswith("/"):
        # git lists a nested repository as a directory.
        return FileChange(
            path=path.rstrip("/"), old_path=None, status=FileStatus.SUBMODULE, is_binary=False, language=None
        )
    target = root / real_name
    is_symlink = target.is_symlink()
    size = _worktree_size(root, real_name)
    change = FileChange(
        path=path,
        old_path=None,
        status=FileStatus.ADDED,
        is_binary=False,
        language=None if is_symlink else language_for_path(path),
        new_mode=SYMLINK_MODE if is_symlink else None,
        is_symlink=is_symlink,
        size=size,
    )
    if size is not None and size > MAX_TEXT_BYTES and not is_symlink:
        change.too_large = True
        return change
    data = read_worktree_file(root, real_name)
    if data is None:
        return change
    if looks_binary(data):
        change.is_binary = True
        return change
    change.hunks = [_whole_file_hunk(decode_text(data, path))] if data else []
    change.recount()
    return change


def _whole_file_hunk(text: str) -> Hunk:
    body = [DiffLine("+", line, None, number) for number, line in enumerate(split_lines(text), 1)]
    return Hunk(0, 0, 1, len(body), "", body)
