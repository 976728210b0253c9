"""The code index a review searches: every file as the reviewed revision has it, never the checkout's.

`--commits A..B` with another commit checked out, `--staged` with unstaged edits, a branch review with
local edits: the files listed and the text read are the head side's. A symbolic link to another file
of the repository is left out (its findings would repeat the target's, under a second name).
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING

from prscope.analysis.changeset import ChangeSet
from prscope.analysis.changeset.git import Git, GitFailed
from prscope.analysis.errors import RepositoryError

if TYPE_CHECKING:
    from prscope.analysis.intel import CodeIndex


def code_index_for(cs: ChangeSet) -> CodeIndex:
    """The index over the reviewed head: the working tree read directly when it is exactly that head,
    otherwise every file read through the change set (a commit, or the git index)."""
    from prscope.analysis.intel import CodeIndex

    listed = head_python_files(cs)
    listing = (lambda: listed) if listed is not None else None
    if _head_is_worktree(cs):
        return CodeIndex(cs.repo_root, listing=listing)
    lock = threading.Lock()

    def read_head(path: str) -> str | None:
        # The change set reads through one `git cat-file --batch` process: one caller at a time.
        with lock:
            return cs.read_new(path)

    return CodeIndex(cs.repo_root, source=read_head, listing=listing)


def head_python_files(cs: ChangeSet) -> list[str] | None:
    """Python files of the reviewed head, minus links to another listed file; None if it cannot list."""
    files = cs.list_files("new")
    if files is None:
        return None
    regular = {f.path for f in files if not f.is_symlink}
    return [
        f.path for f in files if f.path.endswith(".py") and not (f.is_symlink and f.link_target in regular)
    ]


def _head_is_worktree(cs: ChangeSet) -> bool:
    """True when the reviewed head's files are exactly the working tree."""
    if cs.mode == "uncommitted":
        return True
    if cs.mode == "staged" or cs.head_sha is None:
        return False
    head = _git(cs.repo_root, "rev-parse", "HEAD")
    if head is None or head.strip() != cs.head_sha:
        return False
    status = _git(cs.repo_root, "status", "--porcelain", "--untracked-files=no")
    return status is not None and not status.strip()


def _git(root: Path, *args: str) -> str | None:
    try:
        return Git(root).text(*args)
    except (GitFailed, RepositoryError, OSError):
        return None
