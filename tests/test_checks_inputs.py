"""Files the checks must read as Python does, or skip and say so: symlinks, PEP 263, a literal U+FFFD."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from prscope.analysis.changeset import DiffSpec, load_changeset
from prscope.analysis.checks import CheckRun, run_checks

from tests.gitrepo import GitRepo
from tests.test_checks_support import code_index, review, sites


def _link(repo: GitRepo, path: str, target: str) -> None:
    link = repo.root / path
    link.parent.mkdir(parents=True, exist_ok=True)
    link.unlink(missing_ok=True)
    link.symlink_to(target)


def _make_links(repo: GitRepo) -> None:
    _link(repo, "pkg/compat.py", "../vendor/compat.py")
    _link(repo, "pkg/outside.py", "../../elsewhere/secret.py")


def test_a_symlinked_module_is_not_parsed_from_its_link_text(git_repo: GitRepo) -> None:
    base = {"vendor/compat.py": "def f(a):\n    return a\n", "pkg/__init__.py": ""}
    run = review(git_repo, base, {}, before_commit=_make_links)
    assert sites(run, "syntax-error") == []
    skipped = {s.path: s.reason for s in run.skipped}
    assert skipped["pkg/compat.py"].startswith("symlink to vendor/compat.py")
    assert skipped["pkg/outside.py"] == "symlink leaving the repository: never read"


def test_a_pep263_latin1_file_is_checked(git_repo: GitRepo) -> None:
    source = "# -*- coding: latin-1 -*-\nname = 'été'\n\n\ndef f():\n    breakpoint()\n"
    run = review(git_repo, {"a.py": "x = 1\n"}, {"latin.py": source.encode("latin-1"), "a.py": "x = 2\n"})
    assert [s.path for s in run.skipped] == []
    assert sites(run, "debug-leftover") == [("latin.py", 6)]


def test_a_file_with_a_literal_replacement_character_is_checked(git_repo: GitRepo) -> None:
    source = "MARK = '\ufffd'\nbreakpoint()\n"
    run = review(git_repo, {"a.py": "x = 1\n"}, {"mark.py": source})
    assert [s.path for s in run.skipped] == []
    assert sites(run, "debug-leftover") == [("mark.py", 2)]


def test_an_undecodable_file_is_skipped_by_every_check_not_only_some(git_repo: GitRepo) -> None:
    run = review(git_repo, {"a.py": "x = 1\n"}, {"bad.py": b"name = '\xe9'\nbreakpoint()\n"})
    skipped = {s.path: s.reason for s in run.skipped}
    assert skipped == {"bad.py": "not valid UTF-8: not checked"}
    assert [f for f in run.findings if f.path == "bad.py"] == []


def test_a_utf8_bom_file_is_checked(git_repo: GitRepo, tmp_path: Path) -> None:
    run = review(git_repo, {"a.py": "x = 1\n"}, {"bom.py": b"\xef\xbb\xbfname = '\xc3\xa9'\nbreakpoint()\n"})
    assert [s.path for s in run.skipped] == []
    assert sites(run, "debug-leftover") == [("bom.py", 2)]


def test_conflict_markers_are_not_said_to_be_committed(git_repo: GitRepo) -> None:
    text = "a = 1\n<<<<<<< HEAD\nb = 2\n=======\nb = 3\n>>>>>>> feature\n"
    run = review(git_repo, {"conf.py": "a = 1\n"}, {"conf.py": text})
    (finding,) = [f for f in run.findings if f.rule == "conflict-marker"]
    assert "committed" not in finding.message and "This change contains merge conflict markers" in (
        finding.message
    )


def test_an_unmerged_file_is_said_to_be_unmerged_not_unreadable(git_repo: GitRepo) -> None:
    git_repo.merge_with_conflict("f.py", "a = 1\nb = 2\n", "a = 1\nb = 3\n", "a = 1\nb = 4\n")
    staged = _checks(git_repo, "staged")
    assert {s.path: s.reason for s in staged.skipped} == {
        "f.py": "unmerged (a merge conflict is in progress): not checked"
    }
    uncommitted = _checks(git_repo, "uncommitted")  # the working tree holds the markers: they are checked
    assert uncommitted.skipped == []
    (marker,) = uncommitted.findings
    assert marker.rule == "conflict-marker" and "committed" not in marker.message


def _checks(repo: GitRepo, mode: Literal["staged", "uncommitted"]) -> CheckRun:
    cs = load_changeset(repo.root, DiffSpec(mode=mode))
    try:
        return run_checks(cs, code_index(repo.root))
    finally:
        cs.close()
