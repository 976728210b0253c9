"""Posting on GitHub in the situations CI really produces: the merge commit actions/checkout makes for a
pull request, pull requests with hundreds of comments and threads, and a pull request that commits a
secret. Every request is validated as in the scenario."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from prscope.analysis.changeset import DiffSpec
from prscope.analysis.formats.common import RenderContext
from prscope.analysis.publish import PostOptions, publish
from prscope.analysis.publish.markers import SUMMARY_MARKER, finding_marker
from prscope.analysis.report import Report
from prscope.analysis.review import ReviewRequest, run_review

from tests.githubmock.diff import pull_request_lines
from tests.githubmock.fixtures import Contract
from tests.githubmock.server import FakeGitHub
from tests.githubmock.state import BOT, MALLORY
from tests.publish_support import PullRequestRun, shop_repository
from tests.test_review_helpers import GITHUB_TOKEN, secret_pr_repo

# The first test to use the GitHub contract installs its tools (npm, ~385 MB, cached) and starts Prism.
pytestmark = pytest.mark.timeout(900)


def _review(root: Path) -> tuple[Report, RenderContext]:
    request = ReviewRequest(repo_path=root, spec=DiffSpec(base="main"), offline=True, record=False)
    result = asyncio.run(run_review(request))
    return result.report, RenderContext(sources=result.sources)


def test_a_merge_commit_checkout_comments_at_the_pull_requests_head(
    tmp_path: Path, github_contract: Contract
) -> None:
    """actions/checkout checks out refs/pull/N/merge: line numbers are those of the merge commit. They are
    used at the head only for files the base branch did not change meanwhile."""
    pr = PullRequestRun(shop_repository(tmp_path / "shop"), tmp_path)
    repo = pr.repo
    head = repo.head()
    repo.checkout("main")
    cart = (repo.root / "shopkit" / "cart.py").read_text(encoding="utf-8")
    repo.write("shopkit/cart.py", "# Carts.\n" + cart)  # main moved on: cart.py's lines shift by one
    repo.commit("main moves on")
    base = repo.head()
    repo.git("checkout", "-q", "--detach", base)
    repo.git("merge", "-q", "--no-edit", head)  # what GitHub offers as refs/pull/7/merge
    merge = repo.head()
    report, context = _review(repo.root)
    assert report.head == merge
    state = pr.state()
    state.head_sha = head
    state.diff = pull_request_lines(repo.root, base, head)
    env = pr.env("unused")
    with FakeGitHub(github_contract.prism, github_contract.schema, state) as fake:
        env["GITHUB_API_URL"] = fake.url
        event = Path(env["GITHUB_EVENT_PATH"])
        event.write_text(
            event.read_text(encoding="utf-8").replace(merge, head).replace(pr.base, base), encoding="utf-8"
        )
        result = publish(report, context, repo.root, PostOptions("github"), env=env)
    assert result.posted, result.line
    (comment,) = state.comments_by(BOT)  # pricing.py is the same at both commits; cart.py is not
    assert comment.path == "shopkit/pricing.py" and comment.commit_id == head
    (review,) = state.reviews.values()
    assert review.commit_id == head
    summary = next(iter(state.issue_comments.values())).body
    assert f"/blob/{merge}/shopkit/cart.py#L" in summary and f"/blob/{head}/shopkit/pricing.py#L" in summary
    assert fake.invalid() == []


def test_own_comments_are_found_past_the_first_page(tmp_path: Path, github_contract: Contract) -> None:
    pr = PullRequestRun(shop_repository(tmp_path / "shop"), tmp_path)
    report, context = _review(pr.repo.root)
    state = pr.state()
    for number in range(130):  # older than prscope's: its summary and threads land on the second page
        state.add_issue_comment(MALLORY, f"{SUMMARY_MARKER}\ncomment {number}")
        forged = {
            "path": "shopkit/pricing.py",
            "line": 5,
            "body": f"x\n{finding_marker(f'{number:020x}', 'check')}",
        }
        state.add_review(MALLORY, "", "COMMENT", state.head_sha, [forged])
    with FakeGitHub(github_contract.prism, github_contract.schema, state) as fake:
        env = pr.env(fake.url)
        first = publish(report, context, pr.repo.root, PostOptions("github"), env=env)
        assert first.posted, first.line
        again = publish(report, context, pr.repo.root, PostOptions("github"), env=env)
        assert (
            again.posted and "updated, 0 new inline comments, 0 threads resolved, 2 still open" in again.line
        )
        assert sum(1 for c in state.issue_comments.values() if c.user == BOT) == 1
        assert len(state.comments_by(BOT)) == 2
        pages = [r.path for r in fake.recorded if r.kind == "rest" and "/issues/7/comments?" in r.path]
        assert any("page=2" in path for path in pages)
        graphql_pages = [r.body for r in fake.recorded if r.kind == "graphql"]
        assert any((body.get("variables") or {}).get("after") for body in graphql_pages)
    assert fake.invalid() == []


def test_a_committed_secret_never_reaches_the_pull_request(tmp_path: Path, github_contract: Contract) -> None:
    repo = secret_pr_repo(tmp_path / "r")
    pr = PullRequestRun(repo, tmp_path)
    report, context = _review(repo.root)
    assert {f.rule for f in report.findings} == {"secret"}
    state = pr.state()
    with FakeGitHub(github_contract.prism, github_contract.schema, state) as fake:
        result = publish(report, context, repo.root, PostOptions("github"), env=pr.env(fake.url))
    assert result.posted, result.line
    sent = " ".join(str(r.body) for r in fake.recorded)
    assert "secret" in sent and GITHUB_TOKEN not in sent and GITHUB_TOKEN[4:20] not in sent
    assert fake.invalid() == []
