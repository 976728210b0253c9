"""Every file on one side of a change, as that revision has it (a commit, the git index, or the working
tree): what a review must search, whatever happens to be checked out."""

from __future__ import annotations

import io
import os
import posixpath
from pathlib import Path

from prscope.analysis.changeset.diffparse import SYMLINK_MODE
from prscope.analysis.changeset.git import Git, GitFailed, read_batch_reply
from prscope.analysis.changeset.model import TreeFile

_MAX_LINK_BYTES = 4096


def list_side(repo_root: Path, rev: str | None, *, worktree: bool) -> list[TreeFile] | None:
    """The files of one side: `rev` (a commit, a tree, ":" for the index), or the working tree."""
    try:
        if worktree:
            return list_worktree(repo_root)
        return list_revision(repo_root, rev) if rev is not None else None
    except GitFailed:
        return None


def list_revision(repo_root: Path, rev: str) -> list[TreeFile]:
    """Files of a commit or tree (`rev`), or of the git index (`rev` == ":")."""
    git = Git(repo_root)
    if rev == ":":
        entries = _index_entries(git.run("ls-files", "-z", "-s"))
    else:
        entries = _tree_entries(git.run("ls-tree", "-r", "-z", "--full-tree", rev))
    links = [(path, oid) for path, mode, oid in entries if mode == SYMLINK_MODE]
    texts = _link_texts(git, [oid for _path, oid in links])
    link_target = {
        path: link_target_in_repository(path, text) for (path, _), text in zip(links, texts, strict=True)
    }
    return [
        TreeFile(path, mode == SYMLINK_MODE, link_target.get(path))
        for path, mode, _oid in entries
        if mode != "160000"  # a submodule is a commit, not a file
    ]


def list_worktree(repo_root: Path) -> list[TreeFile]:
    """Tracked files still present in the working tree, plus untracked files git does not ignore."""
    git = Git(repo_root)
    tracked = _names(git.run("ls-files", "-z"))
    deleted = set(_names(git.run("ls-files", "-z", "--deleted")))
    untracked = _names(git.run("ls-files", "-z", "--others", "--exclude-standard"))
    files: list[TreeFile] = []
    for path in sorted({*(p for p in tracked if p not in deleted), *untracked}):
        full = repo_root / path
        if os.path.islink(full):
            try:
                text: str | None = os.readlink(full)
            except OSError:
                text = None
            files.append(TreeFile(path, True, link_target_in_repository(path, text)))
        elif not os.path.isdir(full):  # a submodule's directory is listed too
            files.append(TreeFile(path))
    return files


def _names(output: bytes) -> list[str]:
    return [name for raw in output.split(b"\0") if raw and (name := _decoded(raw)) is not None]


def _decoded(raw: bytes) -> str | None:
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return None  # not a name Python could import; the diff itself still shows it


def _tree_entries(output: bytes) -> list[tuple[str, str, str]]:
    """(path, mode, object id) from `ls-tree -r -z`: `<mode> <type> <oid>\\t<path>`."""
    entries = []
    for record in output.split(b"\0"):
        meta, tab, raw_path = record.partition(b"\t")
        fields = meta.split()
        path = _decoded(raw_path)
        if tab and len(fields) == 3 and path is not None:
            entries.append((path, fields[0].decode("ascii"), fields[2].decode("ascii")))
    return entries


def _index_entries(output: bytes) -> list[tuple[str, str, str]]:
    """(path, mode, object id) from `ls-files -s -z`: `<mode> <oid> <stage>\\t<path>`; stage 0 or, for an
    unmerged path, its first stage."""
    seen: dict[str, tuple[str, str, str]] = {}
    for record in output.split(b"\0"):
        meta, tab, raw_path = record.partition(b"\t")
        fields = meta.split()
        path = _decoded(raw_path)
        if tab and len(fields) == 3 and path is not None:
            seen.setdefault(path, (path, fields[0].decode("ascii"), fields[1].decode("ascii")))
    return list(seen.values())


def _link_texts(git: Git, object_ids: list[str]) -> list[str | None]:
    if not object_ids:
        return []
    out = git.run_input(("cat-file", "--batch"), "".join(f"{oid}\n" for oid in object_ids))
    stream = io.BytesIO(out)
    texts: list[str | None] = []
    for _oid in object_ids:
        data = read_batch_reply(stream, _MAX_LINK_BYTES)
        texts.append(None if data is None else _decoded(data))
    return texts


def link_target_in_repository(link_path: str, text: str | None) -> str | None:
    """The repository path a link at `link_path` with target `text` points at; None when it leaves."""
    if not text or posixpath.isabs(text.strip()):
        return None
    target = posixpath.normpath(posixpath.join(posixpath.dirname(link_path), text.strip()))
    if target == ".." or target.startswith("../") or target == ".":
        return None
    return target
