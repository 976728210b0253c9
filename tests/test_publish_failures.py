"""Posting never breaks the build for the wrong reason: every failure (no token, a read-only token,
401, 403, 404, 422, a rate limit, 5xx, no network) is one warning line naming what to grant, the
review's exit code is unchanged, and every request that was sent is still valid against GitHub's
description. Also: the client against Prism's own example answers, REQUEST_CHANGES and its dismissal,
and a check that the validation catches a bad request at all."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from prscope.analysis.changeset import DiffSpec
from prscope.analysis.cli import main
from prscope.analysis.formats.common import RenderContext
from prscope.analysis.publish import PostOptions, PostResult, publish
from prscope.analysis.report import Report
from prscope.analysis.review import ReviewRequest, run_review

from tests.githubmock.fixtures import Contract
from tests.githubmock.prism import free_port
from tests.githubmock.server import FakeGitHub, Fault
from tests.githubmock.state import PullRequestState
from tests.publish_support import PullRequestRun, shop_repository

# The first test to use the GitHub contract installs its tools (npm, ~385 MB, cached) and starts Prism.
pytestmark = pytest.mark.timeout(900)


@dataclass
class Reviewed:
    pr: PullRequestRun
    report: Report
    context: RenderContext


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> Reviewed:
    root = tmp_path_factory.mktemp("failures")
    pr = PullRequestRun(shop_repository(root / "shop"), root)
    request = ReviewRequest(repo_path=pr.repo.root, spec=DiffSpec(base="main"), offline=True, record=False)
    result = asyncio.run(run_review(request))
    assert {f.rule for f in result.report.findings} == {"breaking-call", "debug-leftover"}
    return Reviewed(pr, result.report, RenderContext(sources=result.sources))


def _publish(reviewed: Reviewed, url: str, token: str | None = "bot-token", **options: bool) -> PostResult:
    env = reviewed.pr.env(url, token=token)
    return publish(
        reviewed.report, reviewed.context, reviewed.pr.repo.root, PostOptions("github", **options), env=env
    )


def _fake(contract: Contract, reviewed: Reviewed, *faults: Fault) -> FakeGitHub:
    fake = FakeGitHub(contract.prism, contract.schema, reviewed.pr.state())
    fake.faults += faults
    return fake


@pytest.mark.parametrize(
    ("token", "fault", "expected"),
    [
        ("wrong-token", None, "the token was rejected (401"),
        (
            "read-only-token",
            None,
            "not allowed (403: Resource not accessible by integration); grant the workflow",
        ),
        ("bot-token", Fault("GET", r"/issues/7/comments$", 404, "Not Found"), "not found (404"),
        (
            "bot-token",
            Fault("POST", r"/pulls/7/reviews$", 422, "Unprocessable"),
            "refused (422: Unprocessable)",
        ),
        (
            "bot-token",
            Fault(
                "GET",
                r"/issues/7/comments$",
                403,
                "API rate limit exceeded",
                headers={"x-ratelimit-remaining": "0", "x-ratelimit-reset": "1"},
            ),
            "rate limited (403",
        ),
        (
            "bot-token",
            Fault("POST", r"/issues/7/comments$", 502, "Bad Gateway", times=3),
            "the server failed (502",
        ),
    ],
)
def test_each_failure_is_one_warning(
    github_contract: Contract, reviewed: Reviewed, token: str, fault: Fault | None, expected: str
) -> None:
    with _fake(github_contract, reviewed, *([fault] if fault else [])) as fake:
        result = _publish(reviewed, fake.url, token)
    assert not result.posted and not result.skipped
    assert result.line.startswith("prscope: warning: not posted to octo/shop#7: ") and "\n" not in result.line
    assert expected in result.line, result.line
    if expected.startswith(("not allowed", "not found")):
        assert "pull-requests: write" in result.line
    assert fake.invalid() == []


def test_server_errors_are_tried_three_times(github_contract: Contract, reviewed: Reviewed) -> None:
    with _fake(github_contract, reviewed, Fault("POST", r"/issues/7/comments$", 502, times=2)) as fake:
        result = _publish(reviewed, fake.url)
    assert result.posted, result.line
    assert sum(1 for r in fake.recorded if r.method == "POST" and r.path.endswith("/issues/7/comments")) == 3


def test_a_later_step_failing_says_what_was_posted(github_contract: Contract, reviewed: Reviewed) -> None:
    with _fake(github_contract, reviewed, Fault("POST", r"/pulls/7/reviews$", 422, "Unprocessable")) as fake:
        result = _publish(reviewed, fake.url)
    assert "posting the review failed" in result.line and "(done before: the summary comment)" in result.line
    assert len(fake.state.issue_comments) == 1


def test_no_token_and_no_network(reviewed: Reviewed) -> None:
    result = _publish(reviewed, "http://127.0.0.1:9", token=None)
    assert result.line.startswith("prscope: warning: not posted to octo/shop#7: no GITHUB_TOKEN")
    assert "pull-requests: write" in result.line
    closed = f"http://127.0.0.1:{free_port()}"
    result = _publish(reviewed, closed)
    assert result.line.startswith("prscope: warning: not posted to octo/shop#7: reading the review threads")
    assert f"no answer from {closed}: ConnectError" in result.line


def test_auto_skips_fork_pull_requests_and_runs_outside_ci(reviewed: Reviewed, tmp_path: Path) -> None:
    env = reviewed.pr.env("http://127.0.0.1:9")
    event = json.loads(Path(env["GITHUB_EVENT_PATH"]).read_text(encoding="utf-8"))
    event["pull_request"]["head"]["repo"]["full_name"] = "someone/shop"
    fork_event = tmp_path / "fork.json"
    fork_event.write_text(json.dumps(event), encoding="utf-8")
    args = (reviewed.report, reviewed.context, reviewed.pr.repo.root, PostOptions("auto"))
    fork = publish(*args, env={**env, "GITHUB_EVENT_PATH": str(fork_event)})
    assert fork.skipped and "a pull request from a fork gets no token that can write" in fork.line
    assert "warning" not in fork.line
    outside = publish(*args, env={"PATH": env["PATH"]})
    assert outside.skipped and "not a pull-request run" in outside.line


def test_a_bug_while_posting_is_a_warning(
    github_contract: Contract, reviewed: Reviewed, monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*_args: object, **_kwargs: object) -> None:
        raise ZeroDivisionError("boom")

    monkeypatch.setattr("prscope.analysis.publish.run.build_publication", broken)
    result = _publish(reviewed, "http://127.0.0.1:9")
    assert (
        result.line == "prscope: warning: not posted to octo/shop#7: internal error ZeroDivisionError: boom"
    )


def test_require_post_and_exit_codes(
    github_contract: Contract,
    reviewed: Reviewed,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    root = str(reviewed.pr.repo.root)
    with _fake(github_contract, reviewed) as fake:
        for key, value in reviewed.pr.env(fake.url, token="read-only-token").items():
            monkeypatch.setenv(key, value)
        assert main(["review", root, "--base", "main", "--format", "json", "--post", "github"]) == 1
        assert main(["review", root, "--base", "main", "--fail-on", "never", "--post", "github"]) == 0
        code = main(
            ["review", root, "--base", "main", "--fail-on", "never", "--post", "github", "--require-post"]
        )
        assert code == 4
        assert main(["review", root, "--base", "main", "--require-post"]) == 2  # needs --post
    err = capsys.readouterr().err
    assert err.count("prscope: warning: not posted") == 3 and "read-only-token" not in err


def test_request_changes_then_dismissed_when_errors_are_gone(
    github_contract: Contract, reviewed: Reviewed
) -> None:
    with _fake(github_contract, reviewed) as fake:
        first = _publish(reviewed, fake.url, request_changes=True)
        assert first.posted and "changes requested" in first.line, first.line
        (review,) = fake.state.reviews.values()
        assert review.state == "CHANGES_REQUESTED"
        clean = reviewed.report.model_copy(
            update={"findings": [f for f in reviewed.report.findings if f.severity.value != "error"]}
        )
        fixed = publish(
            clean,
            reviewed.context,
            reviewed.pr.repo.root,
            PostOptions("github", request_changes=True),
            env=reviewed.pr.env(fake.url),
        )
        assert fixed.posted and "1 earlier change request dismissed" in fixed.line, fixed.line
        assert review.state == "DISMISSED" and len(fake.state.reviews) == 1
    assert fake.invalid() == []


def test_against_prisms_own_example_answers(github_contract: Contract, reviewed: Reviewed) -> None:
    """The spec-driven mock unchanged: the client reads and writes with the description's examples."""
    state = PullRequestState(7, reviewed.pr.repo.head(), reviewed.pr.state().diff)
    with FakeGitHub(github_contract.prism, github_contract.schema, state, answer_from_prism=True) as fake:
        result = _publish(reviewed, fake.url)
    assert result.posted, result.line
    assert "summary comment 1 created, 2 new inline comments" in result.line  # example ids are 1
    rest = [r for r in fake.recorded if r.kind == "rest"]
    assert [r.method for r in rest] == ["GET", "POST", "POST"] and fake.invalid() == []


def test_the_validation_catches_a_bad_request(github_contract: Contract, reviewed: Reviewed) -> None:
    with _fake(github_contract, reviewed) as fake:
        headers = {"Authorization": "token bot-token"}
        bad = {"commit_id": "x", "event": "SHOUT", "comments": [{"path": "a.py", "line": "nine"}]}
        httpx.post(f"{fake.url}/repos/octo/shop/pulls/7/reviews", json=bad, headers=headers)
        httpx.post(f"{fake.url}/graphql", json={"query": "{ viewer { logn } }"}, headers=headers)
        httpx.get(f"{fake.url}/repos/octo/shop/pulls/7/nonsense", headers=headers)
    problems = [violation for r in fake.invalid() for violation in r.violations]
    assert len(fake.invalid()) == 3, problems
    assert any("event" in p for p in problems) and any("logn" in p for p in problems)
