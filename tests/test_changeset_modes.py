"""ChangeSet modes and base resolution, on real temporary repositories."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

import pytest
from prscope.analysis.changeset import ChangeSet, DiffSpec, FileStatus, load_changeset

from tests.gitrepo import GIT_ENV, GitRepo


@pytest.fixture(autouse=True)
def isolated_git_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """prscope runs git with the caller's environment: give it the test identity and no user config."""
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    for variable in ("GITHUB_BASE_REF", "CI_MERGE_REQUEST_TARGET_BRANCH_NAME"):
        monkeypatch.delenv(variable, raising=False)


def paths(cs: ChangeSet) -> dict[str, FileStatus]:
    return {change.path: change.status for change in cs.files}


@pytest.fixture
def feature_repo(git_repo: GitRepo) -> GitRepo:
    """main has app.py and util.py; branch `feature` edits app.py and adds new.py."""
    git_repo.write("app.py", "def run():\n    return 1\n")
    git_repo.write("util.py", "X = 1\n")
    git_repo.commit("base")
    git_repo.checkout("-b", "feature")
    git_repo.write("app.py", "def run():\n    return 2\n")
    git_repo.write("new.py", "print('new')\n")
    git_repo.commit("feature work")
    return git_repo


def test_branch_mode_with_explicit_base(feature_repo: GitRepo) -> None:
    base = feature_repo.git("rev-parse", "main")
    cs = load_changeset(feature_repo.root, DiffSpec(base="main"))
    assert paths(cs) == {"app.py": FileStatus.MODIFIED, "new.py": FileStatus.ADDED}
    assert cs.base_ref == "main"
    assert cs.base_sha == base
    assert cs.head_sha == feature_repo.head()
    assert cs.mode == "branch"


def test_branch_mode_compares_with_the_merge_base_not_the_base_tip(feature_repo: GitRepo) -> None:
    feature_repo.checkout("main")
    feature_repo.write("util.py", "X = 2\n")
    merge_base = feature_repo.git("rev-parse", "HEAD")
    feature_repo.commit("main moved on")
    feature_repo.checkout("feature")
    cs = load_changeset(feature_repo.root, DiffSpec(base="main"))
    assert "util.py" not in paths(cs)
    assert cs.base_sha == merge_base


def test_auto_base_uses_local_main(feature_repo: GitRepo) -> None:
    cs = load_changeset(feature_repo.root, DiffSpec(), env={})
    assert cs.base_ref == "main"
    assert set(paths(cs)) == {"app.py", "new.py"}


def test_auto_base_prefers_origin_main(feature_repo: GitRepo) -> None:
    first = feature_repo.git("rev-list", "--max-parents=0", "HEAD")
    feature_repo.git("update-ref", "refs/remotes/origin/main", first)
    cs = load_changeset(feature_repo.root, DiffSpec(), env={})
    assert cs.base_ref == "origin/main"


def test_auto_base_skips_the_checked_out_branch(feature_repo: GitRepo) -> None:
    """On `main` itself, comparing main with main is always empty: use origin/main instead."""
    feature_repo.checkout("main")
    feature_repo.write("util.py", "X = 3\n")
    feature_repo.git("update-ref", "refs/remotes/origin/main", feature_repo.head())
    feature_repo.commit("unpushed")
    cs = load_changeset(feature_repo.root, DiffSpec(), env={})
    assert cs.base_ref == "origin/main"
    assert paths(cs) == {"util.py": FileStatus.MODIFIED}


def test_github_base_ref_names_a_branch_tried_under_origin_first(feature_repo: GitRepo) -> None:
    feature_repo.git("branch", "release", "main")
    feature_repo.git("update-ref", "refs/remotes/origin/release", feature_repo.git("rev-parse", "main"))
    cs = load_changeset(feature_repo.root, DiffSpec(), env={"GITHUB_BASE_REF": "release"})
    assert cs.base_ref == "origin/release"
    cs = load_changeset(feature_repo.root, DiffSpec(), env={"CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main"})
    assert cs.base_ref == "main"


def test_explicit_base_wins_over_ci_variables(feature_repo: GitRepo) -> None:
    cs = load_changeset(feature_repo.root, DiffSpec(base="main"), env={"GITHUB_BASE_REF": "nope"})
    assert cs.base_ref == "main"


def test_detached_head_like_a_ci_checkout(feature_repo: GitRepo) -> None:
    head = feature_repo.head()
    feature_repo.checkout("--detach", head)
    cs = load_changeset(feature_repo.root, DiffSpec(), env={"GITHUB_BASE_REF": "main"})
    assert cs.head_sha == head
    assert set(paths(cs)) == {"app.py", "new.py"}


def test_staged_mode_sees_only_the_index(feature_repo: GitRepo) -> None:
    feature_repo.write("util.py", "X = 'staged'\n")
    feature_repo.git("add", "util.py")
    feature_repo.write("util.py", "X = 'staged then edited'\n")
    feature_repo.write("app.py", "def run():\n    return 'unstaged'\n")
    cs = load_changeset(feature_repo.root, DiffSpec(mode="staged"))
    assert paths(cs) == {"util.py": FileStatus.MODIFIED}
    assert cs.base_sha == feature_repo.head()
    assert cs.head_sha is None
    assert cs.read_new("util.py") == "X = 'staged'\n"
    assert cs.read_old("util.py") == "X = 1\n"


def test_uncommitted_mode_has_staged_unstaged_and_untracked(feature_repo: GitRepo) -> None:
    feature_repo.write(".gitignore", "*.log\n")
    feature_repo.git("add", ".gitignore")
    feature_repo.write("util.py", "X = 'staged'\n")
    feature_repo.git("add", "util.py")
    feature_repo.write("app.py", "def run():\n    return 'unstaged'\n")
    feature_repo.write("fresh/mod.py", "a = 1\nb = 2\n")
    feature_repo.write("debug.log", "ignored\n")
    cs = load_changeset(feature_repo.root, DiffSpec(mode="uncommitted"))
    assert paths(cs) == {
        ".gitignore": FileStatus.ADDED,
        "app.py": FileStatus.MODIFIED,
        "fresh/mod.py": FileStatus.ADDED,
        "util.py": FileStatus.MODIFIED,
    }
    fresh = cs.get("fresh/mod.py")
    assert fresh is not None
    assert fresh.added_lines == {1, 2}
    assert fresh.language == "python"
    assert cs.read_new("app.py") == "def run():\n    return 'unstaged'\n"
    assert cs.read_new("fresh/mod.py") == "a = 1\nb = 2\n"


def test_commit_range_two_and_three_dots(feature_repo: GitRepo) -> None:
    first = feature_repo.git("rev-parse", "main")
    second = feature_repo.head()
    feature_repo.write("util.py", "X = 9\n")
    third = feature_repo.commit("third")
    cs = load_changeset(feature_repo.root, DiffSpec(mode="commits", commits=f"{second}..{third}"))
    assert paths(cs) == {"util.py": FileStatus.MODIFIED}
    assert (cs.base_sha, cs.head_sha) == (second, third)
    cs = load_changeset(feature_repo.root, DiffSpec(mode="commits", commits="main..HEAD"))
    assert set(paths(cs)) == {"app.py", "new.py", "util.py"}
    assert cs.base_sha == first
    cs = load_changeset(feature_repo.root, DiffSpec(mode="commits", commits="main..."))
    assert set(paths(cs)) == {"app.py", "new.py", "util.py"}
    assert cs.head_sha == third
    assert cs.read_old("util.py") == "X = 1\n"
    assert cs.read_new("util.py") == "X = 9\n"


def test_staged_and_uncommitted_in_a_repository_without_commits(git_repo: GitRepo) -> None:
    git_repo.write("first.py", "x = 1\n")
    git_repo.git("add", "first.py")
    git_repo.write("second.py", "y = 2\n")
    staged = load_changeset(git_repo.root, DiffSpec(mode="staged"))
    assert paths(staged) == {"first.py": FileStatus.ADDED}
    assert staged.read_new("first.py") == "x = 1\n"
    everything = load_changeset(git_repo.root, DiffSpec(mode="uncommitted"))
    assert paths(everything) == {"first.py": FileStatus.ADDED, "second.py": FileStatus.ADDED}


def test_a_subdirectory_path_loads_the_whole_repository(feature_repo: GitRepo) -> None:
    (feature_repo.root / "pkg").mkdir()
    cs = load_changeset(feature_repo.root / "pkg", DiffSpec(base="main"))
    assert cs.repo_root == feature_repo.root.resolve()
    assert set(paths(cs)) == {"app.py", "new.py"}


def test_ci_variables_come_from_the_process_environment_by_default(
    feature_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    feature_repo.git("branch", "release", "main")
    monkeypatch.setenv("GITHUB_BASE_REF", "release")
    cs = load_changeset(feature_repo.root, DiffSpec())
    assert cs.base_ref == "release"


def test_detached_head_without_ci_variables_finds_the_base_itself(feature_repo: GitRepo) -> None:
    head = feature_repo.head()
    feature_repo.checkout("--detach", head)
    cs = load_changeset(feature_repo.root, DiffSpec(), env={})
    assert (cs.base_ref, cs.base_sha) == ("main", feature_repo.git("rev-parse", "main"))
    assert cs.head_sha == head
    assert paths(cs) == {"app.py": FileStatus.MODIFIED, "new.py": FileStatus.ADDED}


def test_base_resolution_order_ci_variable_then_origin_head_origin_main_master_main(
    feature_repo: GitRepo,
) -> None:
    base = feature_repo.git("rev-parse", "main")
    for ref in ("refs/remotes/origin/master", "refs/remotes/origin/main", "refs/heads/master"):
        feature_repo.git("update-ref", ref, base)
    feature_repo.git("symbolic-ref", "refs/remotes/origin/HEAD", "refs/remotes/origin/main")
    feature_repo.git("branch", "release", base)
    resolved = []
    for env in ({"GITHUB_BASE_REF": "release"}, {}):
        resolved.append(load_changeset(feature_repo.root, DiffSpec(), env=env).base_ref)
    feature_repo.git("symbolic-ref", "-d", "refs/remotes/origin/HEAD")
    resolved.append(load_changeset(feature_repo.root, DiffSpec(), env={}).base_ref)
    feature_repo.git("update-ref", "-d", "refs/remotes/origin/main")
    resolved.append(load_changeset(feature_repo.root, DiffSpec(), env={}).base_ref)
    feature_repo.git("update-ref", "-d", "refs/remotes/origin/master")
    resolved.append(load_changeset(feature_repo.root, DiffSpec(), env={}).base_ref)
    assert resolved == ["release", "origin/HEAD", "origin/main", "origin/master", "main"]


def test_each_mode_lists_the_files_of_the_side_it_reviews(feature_repo: GitRepo) -> None:
    main = feature_repo.git("rev-parse", "main")
    feature_repo.write("staged.py", "x = 1\n")
    feature_repo.git("add", "staged.py")
    feature_repo.write("untracked.py", "y = 2\n")
    feature_repo.delete("util.py")

    def listed(spec: DiffSpec, side: Literal["old", "new"] = "new") -> list[str]:
        cs = load_changeset(feature_repo.root, spec)
        files = cs.list_files(side)
        cs.close()
        assert files is not None
        return sorted(f.path for f in files)

    assert listed(DiffSpec(mode="commits", commits=f"{main}..feature")) == ["app.py", "new.py", "util.py"]
    assert listed(DiffSpec(mode="commits", commits=f"{main}..feature"), "old") == ["app.py", "util.py"]
    assert listed(DiffSpec(mode="staged")) == ["app.py", "new.py", "staged.py", "util.py"]
    assert listed(DiffSpec(mode="uncommitted")) == ["app.py", "new.py", "staged.py", "untracked.py"]
