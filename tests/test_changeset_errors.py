"""Bad input gets one clear line (RepositoryError), on real temporary repositories."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from prscope.analysis.changeset import DiffSpec, load_changeset
from prscope.analysis.errors import RepositoryError

from tests.gitrepo import GIT_ENV, GitRepo


@pytest.fixture(autouse=True)
def isolated_git_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    for variable in ("GITHUB_BASE_REF", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME", "GIT_CEILING_DIRECTORIES"):
        monkeypatch.delenv(variable, raising=False)


def error_line(repo: Path, spec: DiffSpec, env: dict[str, str] | None = None) -> str:
    with pytest.raises(RepositoryError) as caught:
        load_changeset(repo, spec, env=env if env is not None else {})
    message = str(caught.value)
    assert "\n" not in message
    return message


def test_not_a_git_repository(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    plain = tmp_path / "plain"
    plain.mkdir()
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    assert error_line(plain, DiffSpec()) == f"not a git repository: {plain}"


def test_missing_directory(tmp_path: Path) -> None:
    assert error_line(tmp_path / "nope", DiffSpec()).startswith("no such directory:")


def test_repository_with_no_commits(git_repo: GitRepo) -> None:
    message = error_line(git_repo.root, DiffSpec(base="main"))
    assert "no commits yet" in message
    assert "no commits yet" in error_line(git_repo.root, DiffSpec(mode="commits", commits="a..b"))


def test_unknown_base_ref_names_it_and_suggests_fetch(git_repo: GitRepo) -> None:
    git_repo.write("a.py", "a = 1\n")
    git_repo.commit()
    message = error_line(git_repo.root, DiffSpec(base="develop"))
    assert "'develop'" in message
    assert "git fetch" in message
    git_repo.git("remote", "add", "origin", "https://example.invalid/repo.git")
    message = error_line(git_repo.root, DiffSpec(base="origin/develop"))
    assert "`git fetch origin develop`" in message


def test_unknown_revision_in_commit_range(git_repo: GitRepo) -> None:
    git_repo.write("a.py", "a = 1\n")
    git_repo.commit()
    assert "'nosuch'" in error_line(git_repo.root, DiffSpec(mode="commits", commits="nosuch..HEAD"))
    assert "A..B" in error_line(git_repo.root, DiffSpec(mode="commits", commits="HEAD"))


def test_ci_base_branch_missing(git_repo: GitRepo) -> None:
    git_repo.write("a.py", "a = 1\n")
    git_repo.commit()
    message = error_line(git_repo.root, DiffSpec(), env={"GITHUB_BASE_REF": "release"})
    assert "GITHUB_BASE_REF" in message
    assert "git fetch origin release" in message
    assert "fetch-depth: 0" in message


def test_no_base_branch_found(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r", branch="trunk")
    repo.write("a.py", "a = 1\n")
    repo.commit()
    repo.checkout("-b", "work")
    message = error_line(repo.root, DiffSpec())
    assert "could not find a base branch" in message
    assert "--base" in message


def test_unrelated_histories(git_repo: GitRepo) -> None:
    git_repo.write("a.py", "a = 1\n")
    git_repo.commit()
    git_repo.checkout("--orphan", "other")
    git_repo.write("b.py", "b = 1\n")
    git_repo.commit()
    assert "no common history" in error_line(git_repo.root, DiffSpec(base="main"))


def test_shallow_clone_without_merge_base_says_how_to_fix(tmp_path: Path) -> None:
    origin = GitRepo(tmp_path / "origin")
    origin.write("a.py", "a = 1\n")
    origin.commit("one")
    origin.write("a.py", "a = 2\n")
    origin.commit("two")
    origin.checkout("-b", "feature")
    origin.write("b.py", "b = 1\n")
    origin.commit("feature")
    origin.checkout("main")
    origin.write("a.py", "a = 3\n")
    origin.commit("main moves on")
    clone = tmp_path / "clone"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "1", "--no-single-branch", f"file://{origin.root}", str(clone)],
        check=True,
        env={**os.environ, **GIT_ENV},
    )
    shallow = GitRepo(clone, init=False)
    shallow.checkout("feature")
    message = error_line(clone, DiffSpec(), env={"GITHUB_BASE_REF": "main"})
    assert "shallow clone" in message
    assert "fetch-depth: 0" in message
    assert "git fetch --unshallow" in message
    old_commit = origin.git("rev-parse", "main~2")
    commits = error_line(clone, DiffSpec(mode="commits", commits=f"{old_commit}..HEAD"))
    assert "shallow clone" in commits and "git fetch --unshallow" in commits
    shallow.git("fetch", "-q", "--unshallow")
    cs = load_changeset(clone, DiffSpec(), env={"GITHUB_BASE_REF": "main"})
    assert [change.path for change in cs.files] == ["b.py"]


def test_dubious_ownership_gets_a_clear_line(git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch) -> None:
    git_repo.write("a.py", "a = 1\n")
    git_repo.commit()
    if os.geteuid() == 0:
        # As root, git refuses a repository another user owns: make it really owned by someone else.
        monkeypatch.delenv("SUDO_UID", raising=False)
        for dirpath, _, filenames in os.walk(git_repo.root):
            os.chown(dirpath, 65534, 65534)
            for name in filenames:
                os.chown(os.path.join(dirpath, name), 65534, 65534, follow_symlinks=False)
    else:
        monkeypatch.setenv("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
    message = error_line(git_repo.root, DiffSpec(base="main"))
    assert "dubious ownership" in message
    assert "safe.directory" in message


def test_corrupt_repository_is_one_line_not_a_traceback(git_repo: GitRepo) -> None:
    git_repo.write("a.py", "a = 1\n")
    git_repo.commit("base")
    git_repo.checkout("-b", "feature")
    git_repo.write("a.py", "a = 'lost'\n")
    git_repo.commit("feature")
    blob = git_repo.git("rev-parse", "HEAD:a.py")
    (git_repo.root / ".git" / "objects" / blob[:2] / blob[2:]).unlink()
    message = error_line(git_repo.root, DiffSpec(base="main"))
    assert message.startswith("git diff failed in ")
    assert blob[:7] in message or "unable to read" in message
