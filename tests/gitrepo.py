"""Real git repositories in temporary directories, for tests."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test Author",
    "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": "Test Committer",
    "GIT_COMMITTER_EMAIL": "committer@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
    "HOME": "/nonexistent-prscope-test-home",
}


class GitRepo:
    """A throwaway repository: write files, commit, branch, and run git."""

    def __init__(self, root: Path, *, init: bool = True, branch: str = "main") -> None:
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        if init:
            self.git("init", "-q", "-b", branch)
            self.git("config", "commit.gpgsign", "false")
            self.git("config", "core.autocrlf", "false")

    def git(self, *args: str, check: bool = True) -> str:
        env = {**os.environ, **GIT_ENV}
        result = subprocess.run(
            ["git", *args], cwd=self.root, env=env, capture_output=True, text=True, check=False
        )
        if check and result.returncode != 0:
            raise RuntimeError(f"git {' '.join(args)} failed: {result.stderr.strip()}")
        return result.stdout.strip()

    def write(self, path: str, content: str | bytes) -> Path:
        target = self.root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            target.write_bytes(content)
        else:
            target.write_text(content, encoding="utf-8", newline="")
        return target

    def delete(self, path: str) -> None:
        (self.root / path).unlink()

    def commit(self, message: str = "change", *, add_all: bool = True) -> str:
        if add_all:
            self.git("add", "-A")
        self.git("commit", "-q", "--allow-empty", "-m", message)
        return self.head()

    def head(self) -> str:
        return self.git("rev-parse", "HEAD")

    def checkout(self, *args: str) -> None:
        self.git("checkout", "-q", *args)

    def merge_with_conflict(self, path: str, base: str, feature: str, main: str) -> None:
        """Leave `path` unmerged: `feature` and `main` both change `base`, and main merges feature."""
        self.write(path, base)
        self.commit("base")
        self.checkout("-b", "feature")
        self.write(path, feature)
        self.commit("feature side")
        self.checkout("main")
        self.write(path, main)
        self.commit("main side")
        self.git("merge", "feature", check=False)
