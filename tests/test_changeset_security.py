"""The ChangeSet loader reads an untrusted repository: its config must not make git run programs."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from prscope.analysis.changeset import DiffSpec, load_changeset, render_for_model
from prscope.analysis.errors import RepositoryError

from tests.gitrepo import GIT_ENV, GitRepo
from tests.hostile import configure_to_run, evil_script

# Names git could mistake for options or pathspec magic if they were ever passed unguarded.
OPTION_LIKE_NAMES = ("--output=x", "-rf.py", ":(glob)*.py")


@pytest.fixture(autouse=True)
def isolated_git_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture
def hostile_repo(git_repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[GitRepo, Path]:
    """A feature branch, staged and unstaged edits, and a config that would run a script at every turn."""
    script, marker = evil_script(tmp_path)
    git_repo.write(".gitattributes", "* diff=evil filter=evil\n")
    git_repo.write("a.py", "def f():\n    return 1\n")
    for name in OPTION_LIKE_NAMES:
        git_repo.write(name, "value = 1\n")
    git_repo.commit("base")
    git_repo.checkout("-b", "feature")
    git_repo.write("a.py", "def f():\n    return 2\n")
    for name in OPTION_LIKE_NAMES:
        git_repo.write(name, "value = 2\n")
    git_repo.commit("feature")
    git_repo.write("a.py", "def f():\n    return 3\n")
    git_repo.git("add", "a.py")
    git_repo.write("a.py", "def f():\n    return 4\n")
    git_repo.write("untracked.py", "u = 1\n")
    configure_to_run(git_repo, script, tmp_path)
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", str(script))
    monkeypatch.setenv("GIT_PAGER", str(script))
    return git_repo, marker


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (DiffSpec(base="main"), {"a.py": "return 2", "--output=x": "value = 2"}),
        (DiffSpec(mode="commits", commits="main..feature"), {"a.py": "return 2", "-rf.py": "value = 2"}),
        (DiffSpec(mode="staged"), {"a.py": "return 3"}),
        (DiffSpec(mode="uncommitted"), {"a.py": "return 4", "untracked.py": "u = 1"}),
    ],
)
def test_every_mode_reads_a_hostile_repository_without_running_its_programs(
    hostile_repo: tuple[GitRepo, Path], spec: DiffSpec, expected: dict[str, str]
) -> None:
    repo, marker = hostile_repo
    cs = load_changeset(repo.root, spec, env={})
    for path, text in expected.items():
        new_text = cs.read_new(path)
        assert new_text is not None and text in new_text, path
        assert cs.read_old(path) != new_text
    rendered = render_for_model(cs)
    assert all(f"### {path}" in rendered for path in expected)
    assert not marker.exists(), marker.read_text()
    subprocess.run(["git", "-C", str(repo.root), "diff", "HEAD"], capture_output=True, check=False)
    assert marker.exists()  # proof that the repository really was configured to run it


def test_option_like_and_pathspec_like_names_are_plain_files(hostile_repo: tuple[GitRepo, Path]) -> None:
    repo, marker = hostile_repo
    cs = load_changeset(repo.root, DiffSpec(base="main"), env={})
    assert {change.path for change in cs.files} == {"a.py", *OPTION_LIKE_NAMES}
    for name in OPTION_LIKE_NAMES:
        change = cs.get(name)
        assert change is not None and (change.additions, change.deletions) == (1, 1)
        assert cs.read_old(name) == "value = 1\n"
    assert not (repo.root / "x").exists()
    assert not os.path.exists("x")
    assert not marker.exists()


@pytest.mark.parametrize(
    "spec",
    [
        DiffSpec(base="--output=written-by-git"),
        DiffSpec(mode="commits", commits="--output=written-by-git..HEAD"),
        DiffSpec(mode="commits", commits="main..--output=written-by-git"),
        DiffSpec(mode="commits", commits="main..feature --output=written-by-git"),
    ],
)
def test_option_like_revisions_are_unknown_revisions_not_options(
    hostile_repo: tuple[GitRepo, Path], spec: DiffSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _ = hostile_repo
    monkeypatch.chdir(repo.root)
    with pytest.raises(RepositoryError, match=r"^unknown revision '[^']*--output=written-by-git'"):
        load_changeset(repo.root, spec, env={})
    assert not (repo.root / "written-by-git").exists()
