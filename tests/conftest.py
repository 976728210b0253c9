from __future__ import annotations

from pathlib import Path

import pytest

from tests.gitrepo import GitRepo


@pytest.fixture
def git_repo(tmp_path: Path) -> GitRepo:
    """An empty repository on branch `main`."""
    return GitRepo(tmp_path / "repo")


# The GitHub contract (Prism + GitHub's OpenAPI description and GraphQL schema) for the posting tests.
pytest_plugins = ["tests.githubmock.fixtures"]
