"""The result cache and the incremental re-review, through the real anthropic SDK against the loopback
fake API, on real repositories: what reaches the model is inspected at the fake API."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from prscope.analysis.changeset import DiffSpec
from prscope.analysis.review import ReviewRequest, ReviewResult, run_review

from tests.fakeapi import FakeModelServer, RecordedRequest, text_turn
from tests.gitrepo import GitRepo
from tests.test_review_model import KEY
from tests.test_subagents_harness import Router

FUNCTIONS = 12


def _module(name: str, tweaks: dict[int, str] | None = None) -> str:
    """A module of small functions; `tweaks` replaces the body line of function i."""
    lines: list[str] = []
    for i in range(FUNCTIONS):
        body = (tweaks or {}).get(i, f"return {i}")
        lines += [f"def {name}_{i}(x):", f"    {body}", "", ""]
    return "\n".join(lines).rstrip() + "\n"


def _body_line(i: int) -> int:
    return 4 * i + 2


CHANGES = {
    "alpha": "return x / 0  # alpha-bug",
    "beta": "return eval(x)  # beta-bug",
    "gamma": "return open(x).read()  # gamma-bug",
}
"""Markers the scripted model reports a finding for, wherever they appear in the diff it is sent."""


def _model_reply(request: RecordedRequest) -> object:
    """The reviewer: a finding for every marked line of the diff it was sent, quoting the line."""
    diff = request.first_user_text
    findings = []
    for marker, code in CHANGES.items():
        for number in re.findall(rf"^(\d+)\+.*{marker}-bug", diff, re.MULTILINE):
            findings.append(
                {
                    "rule": "bug",
                    "severity": "warning",
                    "path": "app/a.py" if marker != "beta" else "app/b.py",
                    "line": int(number),
                    "code": code,
                    "title": f"{marker} is wrong",
                    "message": f"the {marker} line fails at run time",
                    "confidence": 0.9,
                }
            )
    block = "\n".join(json.dumps(f) for f in findings)
    return text_turn(f"<findings>\n{block}\n</findings>\n<summary>done</summary>")


def _repo(root: Path) -> GitRepo:
    repo = GitRepo(root)
    repo.write(".prscope.toml", "[model]\nverify = false\n")
    repo.write("app/__init__.py", "")
    repo.write("app/a.py", _module("a"))
    repo.write("app/b.py", _module("b"))
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("app/a.py", _module("a", {2: CHANGES["alpha"]}))
    repo.write("app/b.py", _module("b", {5: CHANGES["beta"]}))
    repo.commit("feature")
    return repo


async def _review(repo: GitRepo, server: FakeModelServer, *, use_cache: bool = True) -> ReviewResult:
    env = {"ANTHROPIC_API_KEY": KEY, "ANTHROPIC_BASE_URL": server.base_url}
    request = ReviewRequest(repo_path=repo.root, spec=DiffSpec(base="main"), env=env, use_cache=use_cache)
    return await run_review(request, cancel=None)


def _model_findings(result: ReviewResult) -> list[tuple[str, int, str]]:
    return sorted((f.path, f.line, f.title) for f in result.report.findings if f.source == "model")


def _diffs_sent(server: FakeModelServer, since: int) -> list[str]:
    return [r.first_user_text for r in server.requests[since:]]


@pytest.fixture
def server() -> object:
    with FakeModelServer(responder=Router({"main": [_model_reply]})) as fake:
        yield fake


async def test_the_same_change_reviewed_again_comes_from_the_cache_without_a_request(
    tmp_path: Path, server: FakeModelServer
) -> None:
    repo = _repo(tmp_path / "r")
    first = await _review(repo, server)
    sent = len(server.requests)
    assert first.report.status == "complete" and sent >= 1 and first.report.reuse is None
    second = await _review(repo, server)
    assert len(server.requests) == sent  # not a single model request
    assert second.report.status == "complete"
    assert second.report.reuse is not None and second.report.reuse.kind == "cache"
    assert second.report.reuse.previous_run == first.run_id
    assert "reused from run" in second.report.status_reason
    assert _model_findings(second) == _model_findings(first) != []
    assert second.report.usage.requests == 0
    third = await _review(repo, server, use_cache=False)
    assert len(server.requests) > sent and third.report.reuse is None


async def test_after_a_one_line_push_only_the_new_hunk_goes_to_the_model(
    tmp_path: Path, server: FakeModelServer
) -> None:
    repo = _repo(tmp_path / "r")
    first = await _review(repo, server)
    assert _model_findings(first) == [
        ("app/a.py", _body_line(2), "alpha is wrong"),
        ("app/b.py", _body_line(5), "beta is wrong"),
    ]
    before = len(server.requests)
    repo.write("app/a.py", _module("a", {2: CHANGES["alpha"], 9: CHANGES["gamma"]}))
    repo.commit("one more line")
    second = await _review(repo, server)
    (diff,) = _diffs_sent(server, before)
    assert "gamma-bug" in diff and "alpha-bug" not in diff and "beta-bug" not in diff
    assert "app/b.py" not in diff.split('kind="diff"')[1]
    reuse = second.report.reuse
    assert reuse is not None and reuse.kind == "incremental" and reuse.previous_run == first.run_id
    assert (reuse.fresh_hunks, reuse.known_hunks, reuse.carried_over, reuse.dropped) == (1, 2, 2, 0)
    assert _model_findings(second) == [
        ("app/a.py", _body_line(2), "alpha is wrong"),
        ("app/a.py", _body_line(9), "gamma is wrong"),
        ("app/b.py", _body_line(5), "beta is wrong"),
    ]
    assert "incremental model review" in second.report.status_reason


async def test_findings_are_carried_across_a_rebase_that_moves_lines_and_dropped_once_fixed(
    tmp_path: Path, server: FakeModelServer
) -> None:
    repo = _repo(tmp_path / "r")
    first = await _review(repo, server)
    ids = {f.path: f.id for f in first.report.findings if f.source == "model"}
    repo.checkout("main")
    repo.write("app/b.py", "import os\nimport sys\n\n\n" + _module("b"))
    repo.commit("upstream: imports at the top of b.py")
    repo.checkout("feature")
    repo.git("rebase", "main")
    before = len(server.requests)
    rebased = await _review(repo, server)
    assert len(server.requests) == before  # the pull request's hunks are the ones reviewed already
    assert rebased.report.reuse is not None and rebased.report.reuse.kind == "incremental"
    assert _model_findings(rebased) == [
        ("app/a.py", _body_line(2), "alpha is wrong"),
        ("app/b.py", _body_line(5) + 4, "beta is wrong"),
    ]
    moved = {f.path: f for f in rebased.report.findings if f.source == "model"}
    assert {path: f.id for path, f in moved.items()} == ids  # ids do not depend on line numbers
    repo.write("app/b.py", "import os\nimport sys\n\n\n" + _module("b", {5: "return x  # fixed"}))
    repo.commit("fix beta")
    fixed = await _review(repo, server)
    assert _model_findings(fixed) == [("app/a.py", _body_line(2), "alpha is wrong")]
    assert fixed.report.reuse is not None and fixed.report.reuse.dropped == 1


async def test_a_partial_model_review_is_never_reused(tmp_path: Path) -> None:
    repo = _repo(tmp_path / "r")
    with FakeModelServer(responder=Router({"main": [text_turn("no blocks at all")]})) as server:
        first = await _review(repo, server)
        assert first.report.status == "partial"
        sent = len(server.requests)
        second = await _review(repo, server)
        assert len(server.requests) > sent and second.report.reuse is None


async def test_the_cache_and_transcripts_hold_no_key(tmp_path: Path, server: FakeModelServer) -> None:
    repo = _repo(tmp_path / "r")
    result = await _review(repo, server)
    assert result.run_id is not None
    store_dir = repo.root / ".git" / "prscope"
    stored = b"".join(p.read_bytes() for p in store_dir.iterdir())
    assert KEY.encode() not in stored and b"alpha is wrong" in stored
