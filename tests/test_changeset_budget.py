"""Fitting a change into a token budget: ranking, collapsing, partial files, and nothing dropped silently."""

from __future__ import annotations

from pathlib import Path

import pytest
from prscope.analysis.changeset import (
    ChangeSet,
    DiffSpec,
    FileChange,
    FileStatus,
    classify,
    estimate_tokens,
    load_changeset,
    render_for_model,
    select_for_budget,
)
from prscope.analysis.changeset.budget import Rank

from tests.gitrepo import GIT_ENV, GitRepo


@pytest.fixture(autouse=True)
def isolated_git_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def numbered(prefix: str, count: int) -> str:
    return "".join(f"{prefix}_{n} = {n}\n" for n in range(count))


@pytest.fixture
def mixed_change(git_repo: GitRepo) -> ChangeSet:
    git_repo.write("src/pkg/core.py", numbered("core", 200))
    git_repo.write("src/pkg/old.py", numbered("old", 30))
    git_repo.write("tests/test_core.py", numbered("t", 10))
    git_repo.write("docs/guide.md", "# Guide\n")
    git_repo.write("poetry.lock", numbered("lock", 5))
    git_repo.commit("base")
    git_repo.checkout("-b", "feature")
    core = numbered("core", 200)
    for n in (10, 60, 110, 160):
        core = core.replace(f"core_{n} = {n}\n", f"core_{n} = {n * 10}\n")
    git_repo.write("src/pkg/core.py", core)
    git_repo.delete("src/pkg/old.py")
    git_repo.write("tests/test_core.py", numbered("t", 12))
    git_repo.write("docs/guide.md", "# Guide\n\nNew words.\n")
    git_repo.write("poetry.lock", numbered("lock", 40))
    git_repo.write("logo.png", b"\0PNG")
    git_repo.commit("feature")
    return load_changeset(git_repo.root, DiffSpec(base="main"), env={})


def accounted(cs: ChangeSet, token_budget: int) -> None:
    selection = select_for_budget(cs, token_budget)
    seen = {change.path for change in selection.included} | {item.path for item in selection.omitted}
    assert seen == {change.path for change in cs.files}
    assert selection.tokens_used <= token_budget
    if selection.included:
        assert estimate_tokens(render_for_model(cs, selection.included)) <= token_budget


def test_generous_budget_includes_all_text_and_collapses_deletions(mixed_change: ChangeSet) -> None:
    selection = select_for_budget(mixed_change, 100_000)
    assert [change.path for change in selection.included] == [
        "docs/guide.md",
        "poetry.lock",
        "src/pkg/core.py",
        "src/pkg/old.py",
        "tests/test_core.py",
    ]
    assert [(item.path, item.reason) for item in selection.omitted] == [("logo.png", "binary file")]
    deleted = next(change for change in selection.included if change.path == "src/pkg/old.py")
    assert all(hunk.collapsed for hunk in deleted.hunks)
    text = render_for_model(mixed_change, selection.included)
    assert "### src/pkg/old.py (deleted) +0 -30\n@@ -1,30 @@ 30 lines deleted (collapsed)" in text
    assert "old_5 = 5" not in text
    original = mixed_change.get("src/pkg/old.py")
    assert original is not None and not original.hunks[0].collapsed


def test_tight_budget_keeps_source_before_tests_docs_and_lock_files(mixed_change: ChangeSet) -> None:
    core = mixed_change.get("src/pkg/core.py")
    assert core is not None
    core_only = estimate_tokens(render_for_model(mixed_change, [core])) + 40
    selection = select_for_budget(mixed_change, core_only)
    included = [change.path for change in selection.included]
    assert "src/pkg/core.py" in included
    reasons = {item.path: item.reason for item in selection.omitted}
    assert "poetry.lock" in reasons
    assert "lock file" in reasons["poetry.lock"]
    assert "tests/test_core.py" in reasons or "tests/test_core.py" in included
    assert "docs/guide.md" in reasons
    assert reasons["docs/guide.md"].startswith("token budget exhausted (docs")
    accounted(mixed_change, core_only)


def test_file_too_big_for_the_budget_keeps_leading_hunks(mixed_change: ChangeSet) -> None:
    selection = select_for_budget(mixed_change, 150)
    core = next(change for change in selection.included if change.path == "src/pkg/core.py")
    assert 0 < len(core.hunks) < 4
    assert core.omitted_hunks == 4 - len(core.hunks)
    assert selection.partial == ["src/pkg/core.py"]
    reason = next(item.reason for item in selection.omitted if item.path == "src/pkg/core.py")
    assert reason.startswith(f"hunks {len(core.hunks) + 1}-4 of 4 left out")
    assert "more hunks of this file left out: token budget" in render_for_model(mixed_change, [core])
    accounted(mixed_change, 150)


@pytest.mark.parametrize("token_budget", [0, 1, 20, 60, 120, 250, 400, 800, 5000])
def test_every_file_is_included_or_listed_with_a_reason(mixed_change: ChangeSet, token_budget: int) -> None:
    accounted(mixed_change, token_budget)


def test_submodules_and_large_files_are_listed_not_rendered() -> None:
    cs = ChangeSet(repo_root=Path("."), mode="branch", base_ref=None, base_sha=None, head_sha=None)
    cs.files = [
        FileChange("lib", None, FileStatus.SUBMODULE, False, None, old_blob="a" * 40, new_blob="b" * 40),
        FileChange("big.csv", None, FileStatus.MODIFIED, False, None, too_large=True, size=60_000_000),
    ]
    reasons = {item.path: item.reason for item in select_for_budget(cs, 1000).omitted}
    assert reasons == {
        "lib": "submodule pointer change (aaaaaaa -> bbbbbbb); its content is not reviewed",
        "big.csv": "file too large to diff (57.2 MB)",
    }


@pytest.mark.parametrize(
    ("path", "rank", "label"),
    [
        ("src/app.py", Rank.SOURCE, "source"),
        ("pyproject.toml", Rank.CONFIG, "config"),
        ("tests/test_app.py", Rank.TEST, "test"),
        ("pkg/app_test.py", Rank.TEST, "test"),
        ("conftest.py", Rank.TEST, "test"),
        ("README.md", Rank.DOCS, "docs"),
        ("docs/conf.py", Rank.DOCS, "docs"),
        ("uv.lock", Rank.LOW_VALUE, "lock file"),
        ("package-lock.json", Rank.LOW_VALUE, "lock file"),
        ("vendor/lib/x.py", Rank.LOW_VALUE, "vendored"),
        ("static/app.min.js", Rank.LOW_VALUE, "minified"),
        ("api/service_pb2.py", Rank.LOW_VALUE, "generated"),
    ],
)
def test_classification_by_path(path: str, rank: Rank, label: str) -> None:
    kind = classify(FileChange(path, None, FileStatus.MODIFIED, False, None))
    assert (kind.rank, kind.label) == (rank, label)


def test_classification_by_content(git_repo: GitRepo) -> None:
    git_repo.write("keep.txt", "k\n")
    git_repo.commit("base")
    git_repo.checkout("-b", "feature")
    git_repo.write("models.py", "# Code generated by protoc. DO NOT EDIT.\nX = 1\n")
    git_repo.write("bundle.js", "var a=" + "1+" * 400 + "1;\n")
    git_repo.commit("feature")
    cs = load_changeset(git_repo.root, DiffSpec(base="main"), env={})
    labels = {change.path: classify(change).label for change in cs.files}
    assert labels == {"models.py": "generated", "bundle.js": "minified"}


def test_a_long_new_file_is_cut_short_rather_than_dropped(git_repo: GitRepo) -> None:
    git_repo.write("README.md", "r\n")
    git_repo.commit("base")
    git_repo.checkout("-b", "feature")
    git_repo.write("big_module.py", numbered("value", 400))
    git_repo.commit("feature")
    cs = load_changeset(git_repo.root, DiffSpec(base="main"), env={})
    selection = select_for_budget(cs, 300)
    [change] = selection.included
    [hunk] = change.hunks
    assert 0 < len(hunk.lines) < 400
    assert hunk.lines_left_out == 400 - len(hunk.lines)
    assert [item.reason for item in selection.omitted] == [
        f"hunk 1 of 1 cut after {len(hunk.lines)} of 400 lines: token budget exhausted (source)"
    ]
    text = render_for_model(cs, selection.included)
    assert text.rstrip().endswith(f"[{hunk.lines_left_out} more lines of this hunk left out: token budget]")
    assert estimate_tokens(text) <= 300
    assert selection.partial == ["big_module.py"]
    accounted(cs, 300)


RANKED_PATHS = [
    ("src/core.py", "source"),
    ("pyproject.toml", "config"),
    ("tests/test_core.py", "test"),
    ("docs/guide.md", "docs"),
    ("api/service_pb2.py", "generated"),
    ("static/app.min.js", "minified"),
    ("vendor/lib.py", "vendored"),
    ("yarn.lock", "lock file"),
]


@pytest.fixture
def one_file_of_each_kind(git_repo: GitRepo) -> ChangeSet:
    """Each file a little bigger than the one before it, so a lower-ranked file never fits where a
    higher-ranked one did not: the included files must always be a prefix of the ranking."""
    git_repo.write("keep.txt", "k\n")
    git_repo.commit("base")
    git_repo.checkout("-b", "feature")
    for position, (path, _) in enumerate(RANKED_PATHS):
        git_repo.write(path, f"value = '{'x' * (20 + 8 * position)}'\n")
    git_repo.commit("feature")
    return load_changeset(git_repo.root, DiffSpec(base="main"), env={})


def test_budget_fills_source_then_config_tests_docs_and_low_value_files_last(
    one_file_of_each_kind: ChangeSet,
) -> None:
    ranking = [path for path, _ in RANKED_PATHS]
    labels = dict(RANKED_PATHS)
    assert [classify(change).label for change in one_file_of_each_kind.files] == [
        labels[change.path] for change in one_file_of_each_kind.files
    ]
    everything = select_for_budget(one_file_of_each_kind, 100_000).tokens_used
    included_counts = set()
    for token_budget in range(0, everything + 1, 3):
        selection = select_for_budget(one_file_of_each_kind, token_budget)
        included = {change.path for change in selection.included}
        count = len(included)
        assert included == set(ranking[:count]), token_budget
        omitted = {item.path: item.reason for item in selection.omitted}
        assert set(omitted) == set(ranking[count:])
        for path in ranking[count:]:
            assert omitted[path].startswith(f"token budget exhausted ({labels[path]}, ~"), omitted[path]
        included_counts.add(count)
    assert included_counts == set(range(len(ranking) + 1))
