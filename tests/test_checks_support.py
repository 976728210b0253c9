"""Shared helpers for the deterministic-check tests: a real repository with a base branch and a PR branch."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from prscope.analysis.changeset import DiffSpec, load_changeset
from prscope.analysis.checks import CheckRun, ChecksConfig, run_checks
from prscope.analysis.checks.revision import code_index_for
from prscope.analysis.findings import Finding

from tests.gitrepo import GitRepo


def code_index(root: Path) -> Any:
    from prscope.analysis.intel import CodeIndex

    return CodeIndex(root)


def review(
    repo: GitRepo,
    base_files: dict[str, str | bytes],
    pr_files: dict[str, str | bytes | None],
    config: ChecksConfig | None = None,
    before_commit: Callable[[GitRepo], None] | None = None,
    *,
    allow_errors: bool = False,
) -> CheckRun:
    """Commit `base_files` on main, apply `pr_files` (None deletes) on a branch, run the checks. A check
    that crashed fails the test (unless `allow_errors`): its findings are missing, and an assertion that
    nothing is reported would pass for the wrong reason."""
    for path, content in base_files.items():
        repo.write(path, content)
    repo.commit("base")
    repo.git("checkout", "-q", "-b", "pr")
    for path, new_content in pr_files.items():
        if new_content is None:
            repo.delete(path)
        else:
            repo.write(path, new_content)
    if before_commit is not None:
        before_commit(repo)
    repo.commit("pr")
    cs = load_changeset(repo.root, DiffSpec(mode="branch", base="main"))
    try:
        run = run_checks(cs, code_index_for(cs), config)
    finally:
        cs.close()
    assert allow_errors or not run.errors, run.errors
    return run


def sites(run: CheckRun, rule: str) -> list[tuple[str, int]]:
    return sorted((f.path, f.line) for f in run.findings if f.rule == rule)


def only(run: CheckRun, rule: str) -> Finding:
    matching = [f for f in run.findings if f.rule == rule]
    assert len(matching) == 1, [(f.rule, f.path, f.line, f.message) for f in run.findings]
    return matching[0]
