"""run_checks as a whole: crash isolation, time budget, stable ids, JSON-ready output."""

from __future__ import annotations

import pytest
from prscope.analysis import checks
from prscope.analysis.checks import ChecksConfig, run_checks
from prscope.analysis.checks.context import CheckContext
from prscope.analysis.checks.sites import RepoView
from prscope.analysis.findings import Finding

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

LIB = "def area(w, h):\n    return w * h\n"
USER = "from lib import area\n\narea(2, 3)\n"


def test_a_crashing_check_is_an_error_line_and_the_others_still_run(
    git_repo: GitRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    def explode(ctx: CheckContext, view: RepoView) -> list[Finding]:
        raise RuntimeError("boom ghp_A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8")

    monkeypatch.setattr(checks, "CHECKS", [("explode", explode), *checks.CHECKS])
    run = review(
        git_repo,
        {"lib.py": LIB, "use.py": USER},
        {"lib.py": LIB.replace("w, h", "w, h, d")},
        allow_errors=True,
    )
    assert len(run.errors) == 1 and run.errors[0].startswith("check explode failed: RuntimeError: boom")
    assert "A1b2C3d4" not in run.errors[0]
    assert sites(run, "breaking-call") == [("use.py", 3)]


def test_time_budget_gives_partial_results_with_a_note(git_repo: GitRepo) -> None:
    config = ChecksConfig(time_budget_s=0)
    run = review(
        git_repo,
        {"lib.py": LIB, "use.py": USER},
        {"lib.py": LIB.replace("w, h", "w, h, d")},
        config,
        allow_errors=True,
    )
    assert sites(run, "breaking-call") == []
    assert any("time budget" in e and "partial" in e for e in run.errors)


def test_finding_ids_are_stable_across_line_moves(git_repo: GitRepo) -> None:
    new_lib = LIB.replace("w, h", "w, h, d")
    first = review(git_repo, {"lib.py": LIB, "use.py": USER}, {"lib.py": new_lib})
    git_repo.git("checkout", "-q", "main")
    git_repo.git("branch", "-D", "pr")
    git_repo.write("use.py", "from lib import area\n\n\n\n# moved down\narea(2, 3)\n")
    second = review(git_repo, {}, {"lib.py": new_lib})
    assert [f.id for f in first.findings] == [f.id for f in second.findings]
    assert first.findings[0].line != second.findings[0].line


def test_no_changes_means_no_findings_and_no_errors(git_repo: GitRepo) -> None:
    from prscope.analysis.changeset import DiffSpec, load_changeset
    from prscope.analysis.intel import CodeIndex

    git_repo.write("a.py", "x = 1\n")
    git_repo.commit("base")
    cs = load_changeset(git_repo.root, DiffSpec(mode="branch", base="HEAD"))
    run = run_checks(cs, CodeIndex(git_repo.root))
    assert run.findings == [] and run.errors == []
    assert set(run.model_dump(mode="json")) >= {"findings", "errors", "skipped"}
