"""What the model and the terminal see of a change."""

from __future__ import annotations

from pathlib import Path

import pytest
from prscope.analysis.changeset import (
    ChangeSet,
    DiffSpec,
    files_summary,
    load_changeset,
    render_for_model,
    render_summary,
)
from prscope.analysis.report import OmittedFile

from tests.gitrepo import GIT_ENV, GitRepo

SERVICE = '''\
import os


class Service:
    """A service."""

    def start(self):
        value = 1
        return value

    @property
    def name(self):
        return "svc"


def helper(x):
    return x * 2


def removed_later():
    return 0
'''


@pytest.fixture(autouse=True)
def isolated_git_config(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    for key, value in GIT_ENV.items():
        monkeypatch.setenv(key, value)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


@pytest.fixture
def service_change(git_repo: GitRepo) -> ChangeSet:
    git_repo.write("svc.py", SERVICE)
    git_repo.write("notes.md", "# Notes\n")
    git_repo.commit("base")
    git_repo.checkout("-b", "feature")
    edited = (
        SERVICE.replace("        value = 1\n", "        value = 2\n        value += 1\n")
        .replace('        return "svc"\n', '        return "service"\n')
        .replace("\n\ndef removed_later():\n    return 0\n", "")
    )
    git_repo.write("svc.py", edited)
    git_repo.write("notes.md", "# Notes\n\nMore.\n")
    git_repo.git("mv", "notes.md", "NOTES.md")
    git_repo.commit("edit")
    return load_changeset(git_repo.root, DiffSpec(base="main"), env={})


def test_model_rendering_has_new_line_numbers_marked_removals_and_scopes(service_change: ChangeSet) -> None:
    text = render_for_model(service_change)
    lines = text.splitlines()
    assert "### svc.py (modified) +3 -6" in lines
    headers = [line for line in lines if line.startswith("@@ -")]
    assert headers[-1] == (
        "@@ -5,17 +5,14 @@ in def Service.start, def Service.name; removed from def removed_later"
    )
    assert " 8+        value = 2" in lines
    assert " 9+        value += 1" in lines
    assert "  -        value = 1" in lines
    assert " 8         value = 1" not in lines
    assert "  -def removed_later():" in lines


def test_scope_comes_from_the_source_not_git_hunk_header(git_repo: GitRepo) -> None:
    body = "def outer():\n" + "".join(f"    x{n} = {n}\n" for n in range(20))
    body += "    def inner():\n        return 1\n    return inner\n"
    git_repo.write("deep.py", body)
    git_repo.commit("base")
    git_repo.checkout("-b", "feature")
    git_repo.write("deep.py", body.replace("        return 1\n", "        return 2\n"))
    git_repo.commit("edit")
    text = render_for_model(load_changeset(git_repo.root, DiffSpec(base="main"), env={}))
    header = next(line for line in text.splitlines() if line.startswith("@@"))
    assert header.endswith("in def outer.inner")


def test_unparseable_python_falls_back_to_git_section(git_repo: GitRepo) -> None:
    body = "def broken(:\n" + "".join(f"    y{n} = {n}\n" for n in range(10))
    git_repo.write("bad.py", body)
    git_repo.commit("base")
    git_repo.checkout("-b", "feature")
    git_repo.write("bad.py", body.replace("y8 = 8", "y8 = 80"))
    git_repo.commit("edit")
    text = render_for_model(load_changeset(git_repo.root, DiffSpec(base="main"), env={}))
    assert "in def broken(:" in text


def test_rendering_a_subset_and_special_files(git_repo: GitRepo) -> None:
    git_repo.write("a.py", "a = 1\n")
    git_repo.commit("base")
    git_repo.checkout("-b", "feature")
    git_repo.write("a.py", "a = 2\n")
    git_repo.write("pic.png", b"\0\1\2")
    git_repo.commit("edit")
    cs = load_changeset(git_repo.root, DiffSpec(base="main"), env={})
    assert "pic.png" not in render_for_model(cs, [f for f in cs.files if f.path == "a.py"])
    full = render_for_model(cs)
    assert "### pic.png (added, binary) +0 -0\nbinary file; content not shown" in full
    assert render_for_model(cs, []) == ""


def test_terminal_summary(service_change: ChangeSet) -> None:
    text = render_summary(service_change)
    lines = text.splitlines()
    assert lines[0].startswith(f"base main ({service_change.base_sha[:12]}) -> head ")  # type: ignore[index]
    assert lines[0].endswith("[branch]")
    assert "  R  notes.md -> NOTES.md  +2 -0" in lines
    assert "  M  svc.py                +3 -6" in lines
    assert lines[-1] == "2 files changed, +5 -6"


def test_summary_of_worktree_modes(git_repo: GitRepo) -> None:
    git_repo.write("a.py", "a = 1\n")
    git_repo.commit()
    git_repo.write("a.py", "a = 2\n")
    text = render_summary(load_changeset(git_repo.root, DiffSpec(mode="uncommitted")))
    assert "-> head the working tree" in text
    assert "1 file changed, +1 -1" in text


def test_files_summary_for_the_report(service_change: ChangeSet) -> None:
    omitted = [OmittedFile(path="NOTES.md", reason="token budget exhausted")]
    summary = files_summary(service_change, ["svc.py", "svc.py"], omitted)
    assert summary.model_dump() == {
        "changed": 2,
        "reviewed": 1,
        "omitted": [{"path": "NOTES.md", "reason": "token budget exhausted"}],
    }
