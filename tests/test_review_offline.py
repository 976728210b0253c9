"""`review()` with no model: the deterministic checks on real repositories, status `offline`."""

from __future__ import annotations

from pathlib import Path

import pytest
from prscope.analysis.changeset import DiffSpec
from prscope.analysis.config import parse_config
from prscope.analysis.errors import RepositoryError
from prscope.analysis.review import NO_KEY_REASON, OFFLINE_FLAG_REASON, ReviewRequest, review, run_review

from tests.gitrepo import GitRepo
from tests.test_review_helpers import demo_repo

NO_KEYS: dict[str, str] = {"PATH": "/usr/bin:/bin"}


def _request(root: Path, **kwargs: object) -> ReviewRequest:
    values: dict[str, object] = {"repo_path": root, "spec": DiffSpec(base="main"), "env": NO_KEYS}
    values.update(kwargs)
    return ReviewRequest(**values)  # type: ignore[arg-type]


async def test_offline_review_of_the_demo_pull_request(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    report = await review(_request(repo.root))
    assert report.status == "offline"
    assert report.status_reason == NO_KEY_REASON
    assert report.mode == "branch"
    assert report.base == repo.git("rev-parse", "main")
    assert report.head == repo.head()
    assert report.files.changed == 2 and report.files.reviewed == 2
    by_rule = {(f.rule, f.path, f.line) for f in report.findings}
    assert ("breaking-call", "shopkit/checkout.py", 9) in by_rule
    assert ("debug-leftover", "shopkit/cart.py", 24) in by_rule
    assert all(f.id for f in report.findings)
    assert report.usage.requests == 0 and report.agents == []


async def test_offline_flag_reason_and_sources(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    result = await run_review(_request(repo.root, offline=True, env={"ANTHROPIC_API_KEY": "sk-test"}))
    assert result.report.status == "offline"
    assert result.report.status_reason == OFFLINE_FLAG_REASON
    assert not result.model_configured and not result.model_incomplete
    assert "shopkit/checkout.py" in result.sources
    assert "apply_discount(cart.total(), 10)" in result.sources["shopkit/checkout.py"][8]
    assert "M  shopkit/pricing.py" in result.change_summary


async def test_config_switches_rules_overrides_severity_and_excludes(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    config = parse_config(
        {
            "rules": {"debug-leftover": False},
            "severity": {"breaking-call": "note"},
            "exclude": ["shopkit/cart.py"],
        }
    )
    report = await review(_request(repo.root, config=config))
    assert [(f.rule, f.severity.value) for f in report.findings] == [("breaking-call", "note")]
    assert [(o.path, o.reason) for o in report.files.omitted] == [
        ("shopkit/cart.py", "excluded by configuration")
    ]
    assert report.files.reviewed == 1


async def test_clean_change_has_no_findings(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.write("m.py", "def f(a):\n    return a\n")
    repo.write("use.py", "from m import f\n\nf(1)\n")
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("m.py", "def f(a, b=2):\n    return a + b\n")
    repo.commit("compatible change")
    report = await review(_request(repo.root))
    assert report.findings == [] and report.status == "offline"


async def test_unreadable_and_binary_files_are_listed_not_fatal(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.write("m.py", "x = 1\n")
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("logo.png", b"\x89PNG\r\n\x1a\n\x00\x00\x00binary")
    repo.write("latin1.py", "s = 'caf\xe9'\n".encode("latin-1"))
    repo.write("m.py", "x = 1\nbreakpoint()\n")
    repo.commit("feature")
    report = await review(_request(repo.root))
    omitted = {o.path: o.reason for o in report.files.omitted}
    assert "logo.png" in omitted
    assert any(f.rule == "debug-leftover" and f.path == "m.py" for f in report.findings)
    assert report.files.changed == 3


async def test_staged_and_uncommitted_modes(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.write("m.py", "def f(a):\n    return a\n")
    repo.write("use.py", "from m import f\n\nf(1)\n")
    repo.commit("base")
    repo.write("m.py", "def f(a, b):\n    return a + b\n")
    repo.git("add", "m.py")
    staged = await review(_request(repo.root, spec=DiffSpec(mode="staged")))
    assert staged.mode == "staged"
    assert [(f.rule, f.path, f.line) for f in staged.findings] == [("breaking-call", "use.py", 3)]
    repo.write("notes.py", "breakpoint()\n")
    uncommitted = await review(_request(repo.root, spec=DiffSpec(mode="uncommitted")))
    assert {f.rule for f in uncommitted.findings} == {"breaking-call", "debug-leftover"}


async def test_commit_range_reads_the_range_head_not_the_worktree(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.write("m.py", "def f(a):\n    return a\n")
    repo.write("use.py", "from m import f\n\nf(1)\n")
    first = repo.commit("base")
    repo.write("m.py", "def f(a, b):\n    return a + b\n")
    second = repo.commit("break f")
    # Later work fixes the caller: the range first..second must still show the stale call.
    repo.write("use.py", "from m import f\n\nf(1, 2)\n")
    repo.commit("fix caller")
    report = await review(_request(repo.root, spec=DiffSpec(mode="commits", commits=f"{first}..{second}")))
    assert [(f.rule, f.path) for f in report.findings] == [("breaking-call", "use.py")]


async def test_repository_errors_are_one_line(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    with pytest.raises(RepositoryError) as caught:
        await review(_request(tmp_path / "plain"))
    assert "\n" not in str(caught.value)
    repo = demo_repo(tmp_path / "shop")
    with pytest.raises(RepositoryError, match="no-such-branch"):
        await review(_request(repo.root, spec=DiffSpec(base="no-such-branch")))


async def test_checks_that_crash_are_reported_not_silent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import prscope.analysis.review as review_module

    def crash(*args: object) -> None:
        raise RuntimeError("index exploded")

    monkeypatch.setattr(review_module, "_run_checks", crash)
    repo = demo_repo(tmp_path / "shop")
    report = await review(_request(repo.root))
    assert report.status == "partial"
    assert report.status_reason.endswith("; 1 deterministic check(s) failed to run (see errors)")
    assert report.errors == ["the deterministic checks failed: RuntimeError: index exploded"]


async def test_a_pull_request_cannot_relax_its_own_review(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    repo.write(".prscope.toml", 'fail_on = "never"\n[rules]\nbreaking-call = false\n')
    repo.commit("quiet, please")
    result = await run_review(_request(repo.root))
    assert result.config.fail_on == "error" and result.config.rules == {}
    assert "breaking-call" in {f.rule for f in result.report.findings}
    assert result.report.status_reason.endswith(
        "the change modifies the prscope configuration (.prscope.toml); its base version was used"
    )


async def test_configuration_from_the_base_applies(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "r")
    repo.write("pyproject.toml", '[project]\nname = "x"\n\n[tool.prscope]\nexclude = ["vendor/*"]\n')
    repo.write("m.py", "x = 1\n")
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("vendor/lib.py", "breakpoint()\n")
    repo.write("m.py", "x = 1\nbreakpoint()\n")
    # An unrelated pyproject edit in the PR keeps the (unchanged) table in force, without a note.
    repo.write(
        "pyproject.toml", '[project]\nname = "x"\nversion = "2"\n\n[tool.prscope]\nexclude = ["vendor/*"]\n'
    )
    repo.commit("feature")
    result = await run_review(_request(repo.root))
    assert [f.path for f in result.report.findings] == ["m.py"]
    assert result.report.status_reason == NO_KEY_REASON
    assert result.config.source == "pyproject.toml [tool.prscope]"


async def test_local_uncommitted_config_edits_apply(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    repo.write(".prscope.toml", "[rules]\nbreaking-call = false\n")
    result = await run_review(_request(repo.root))
    assert {f.rule for f in result.report.findings} == {"debug-leftover"}
