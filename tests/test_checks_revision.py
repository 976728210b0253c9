"""The checks read every file at the reviewed revision, never the checkout (issue 13), and a file that is
a git symlink to another file is searched once, under the target's name."""

from __future__ import annotations

import os

from prscope.analysis.changeset import DiffSpec
from prscope.analysis.review import ReviewRequest, run_review

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

NO_KEYS: dict[str, str] = {"PATH": "/usr/bin:/bin"}
STALE_CALL = "from m import f\n\nf(1)\n"


async def _offline_review(repo: GitRepo, spec: DiffSpec) -> list[tuple[str, str, int]]:
    request = ReviewRequest(repo_path=repo.root, spec=spec, offline=True, env=NO_KEYS)
    result = await run_review(request)
    return sorted((f.rule, f.path, f.line) for f in result.report.findings)


async def test_a_commit_range_is_reviewed_as_its_last_commit_has_the_files_not_as_checked_out(
    git_repo: GitRepo,
) -> None:
    git_repo.write("m.py", "def f(a):\n    return a\n")
    git_repo.write("use.py", STALE_CALL)
    git_repo.write("late.py", "import os\n" + STALE_CALL)
    first = git_repo.commit("base")
    git_repo.write("m.py", "def f(a, b):\n    return a + b\n")
    second = git_repo.commit("f takes b: use.py and late.py still call f(1)")
    git_repo.write("use.py", "from m import f\n\n\n\n\nf(1, 2)\n")
    git_repo.delete("late.py")
    git_repo.write("fresh.py", STALE_CALL)  # only in the checkout: not part of the reviewed revision
    git_repo.commit("later: callers fixed, late.py gone, fresh.py added")

    found = await _offline_review(git_repo, DiffSpec(mode="commits", commits=f"{first}..{second}"))

    assert found == [("breaking-call", "late.py", 4), ("breaking-call", "use.py", 3)]


async def test_a_branch_with_local_edits_is_reviewed_as_committed(git_repo: GitRepo) -> None:
    git_repo.write("m.py", "def f(a):\n    return a\n")
    git_repo.write("use.py", STALE_CALL)
    git_repo.commit("base")
    git_repo.checkout("-b", "pr")
    git_repo.write("m.py", "def f(a, b):\n    return a + b\n")
    git_repo.commit("f takes b")
    git_repo.write("use.py", "from m import f\n\nf(1, 2)\n")  # an uncommitted fix is not in the PR
    git_repo.write("untracked.py", STALE_CALL)

    found = await _offline_review(git_repo, DiffSpec(base="main"))

    assert found == [("breaking-call", "use.py", 3)]


def test_a_file_that_is_a_symlink_to_another_gets_its_findings_once(git_repo: GitRepo) -> None:
    def add_links(repo: GitRepo) -> None:
        os.symlink("use.py", repo.root / "use_link.py")
        (repo.root / "docs").mkdir()
        os.symlink("../use.py", repo.root / "docs" / "example.py")

    base = {
        "m.py": "def f(a):\n    return a\n\n\ndef g():\n    pass\n",
        "use.py": "from m import f, g\n\nf(1)\ng()\n",
    }
    run = review(git_repo, base, {"m.py": "def f(a, b):\n    return a\n"}, before_commit=add_links)

    assert sites(run, "breaking-call") == [("use.py", 3)]
    assert sites(run, "dangling-reference") == [("use.py", 1), ("use.py", 4)]


async def test_a_commit_range_takes_the_configuration_of_its_last_commit(git_repo: GitRepo) -> None:
    git_repo.write("app.py", "def f():\n    return 1\n")
    first = git_repo.commit("base")
    git_repo.write(".prscope.toml", "[rules]\ndebug-leftover = false\n")
    configured = git_repo.commit("the project switches the debug-leftover rule off")
    git_repo.write("app.py", "def f():\n    breakpoint()\n    return 1\n")
    reviewed = git_repo.commit("a breakpoint, under that configuration")
    git_repo.git("checkout", "-q", first)  # the checkout has no configuration at all

    found = await _offline_review(git_repo, DiffSpec(mode="commits", commits=f"{configured}..{reviewed}"))

    assert found == []
    git_repo.git("checkout", "-q", "-")
    git_repo.write(".prscope.toml", "")
    git_repo.commit("configuration emptied later")
    git_repo.git("checkout", "-q", reviewed)
    assert await _offline_review(git_repo, DiffSpec(mode="commits", commits=f"{first}..{reviewed}")) == [
        ("debug-leftover", "app.py", 2)  # the range itself adds the configuration: its base side applies
    ]
