"""Issue 21's scenario, end to end through the CLI, against a stateful GitHub whose every request is
validated by Prism (GitHub's OpenAPI description) or GitHub's GraphQL schema:

1. first push: 1 summary comment, N inline comments, suggestion blocks where the fix is certain;
2. second push fixes one finding and adds one: the same summary comment edited (same id), 1 new inline
   comment, 1 thread resolved, 0 duplicates;
3. a run with a read-only token: the exit code of a run without posting, one warning line.

Along the way: comments of other users that carry prscope's markers (the summary marker, a finding's
fingerprint) are never edited, resolved or taken for prscope's own, and a dismissed finding's thread is
resolved.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from prscope.analysis.publish.markers import SUMMARY_MARKER, finding_marker, parse_finding_marker

from tests.githubmock.fixtures import Contract
from tests.githubmock.server import FakeGitHub
from tests.githubmock.state import AUTHOR, BOT, MALLORY, PullRequestState, Thread
from tests.publish_support import NEW_IN_PUSH_2, PullRequestRun, push_2, shop_repository

# The first test to use the GitHub contract installs its tools (npm, ~385 MB, cached) and starts Prism.
pytestmark = pytest.mark.timeout(900)


def _bot_summaries(state: PullRequestState) -> list[int]:
    return [c.id for c in state.issue_comments.values() if c.user == BOT]


def _bot_findings(state: PullRequestState) -> list[str]:
    marks = [parse_finding_marker(c.body) for c in state.comments_by(BOT)]
    return [mark.finding_id for mark in marks if mark is not None]


def _thread_of(state: PullRequestState, finding: str, user: str) -> Thread:
    for comment in state.review_comments.values():
        mark = parse_finding_marker(comment.body)
        if mark is not None and mark.finding_id == finding and comment.user.login == user:
            thread = state.thread_of(comment.id)
            assert thread is not None
            return thread
    raise AssertionError(f"no thread of {user} for {finding}")


def _seed_other_users(state: PullRequestState) -> None:
    """The author's comment impersonates the summary; mallory's review thread carries a fingerprint."""
    state.body = f"{SUMMARY_MARKER}\nPlease review. {finding_marker('0' * 20, 'check')}"
    state.add_issue_comment(AUTHOR, f"{SUMMARY_MARKER}\nlooks like prscope's summary, is not")


def _assert_all_validated(fake: FakeGitHub) -> None:
    assert fake.recorded, "no request reached the fake"
    assert fake.invalid() == [], [f"{r.method} {r.path}: {r.violations}" for r in fake.invalid()]
    kinds = {r.kind for r in fake.recorded}
    assert kinds == {"rest", "graphql"}


def test_three_runs_on_one_pull_request(tmp_path: Path, github_contract: Contract) -> None:
    pr = PullRequestRun(shop_repository(tmp_path / "shop"), tmp_path)
    state = pr.state()
    _seed_other_users(state)
    with FakeGitHub(github_contract.prism, github_contract.schema, state) as fake:
        plain = pr.review(pr.env(fake.url, token=None))
        assert plain.returncode == 1  # the exit code without posting: the breaking call is an error

        # 1. first push
        first = pr.review(pr.env(fake.url), "--post", "github")
        assert first.returncode == plain.returncode, first.stderr
        posted = [line for line in first.stderr.splitlines() if "posted to octo/shop#7" in line]
        assert len(posted) == 1 and "warning" not in first.stderr, first.stderr
        summaries = _bot_summaries(state)
        assert len(summaries) == 1
        summary = state.issue_comments[summaries[0]].body
        assert summary.startswith(SUMMARY_MARKER) and "Outside the changed lines (1)" in summary
        assert "shopkit/checkout.py" in summary and "changed definition" in summary
        inline = state.comments_by(BOT)
        assert len(inline) == 2 and {c.path for c in inline} == {"shopkit/cart.py", "shopkit/pricing.py"}
        assert all("```suggestion\n```" in c.body for c in inline)  # certain fixes: delete the line
        assert len(state.reviews) == 1 and next(iter(state.reviews.values())).state == "COMMENTED"
        assert "2 new inline comments (2 with a suggestion)" in posted[0]
        cart_id = next(
            m.finding_id
            for c in inline
            if c.path == "shopkit/cart.py" and (m := parse_finding_marker(c.body)) is not None
        )
        # mallory's threads carry the fingerprints of a finding that will be fixed and of one to come
        for finding in (cart_id, NEW_IN_PUSH_2):
            forged = {
                "path": "shopkit/pricing.py",
                "line": 5,
                "body": f"hm\n{finding_marker(finding, 'check')}",
            }
            state.add_review(MALLORY, "", "COMMENT", state.head_sha, [forged])

        # 2. second push: fixes the breakpoint() in cart.py, adds one in report.py
        push_2(pr.repo)
        pr.sync(state)
        second = pr.review(pr.env(fake.url), "--post", "github")
        assert second.returncode == 1, second.stderr
        assert _bot_summaries(state) == summaries  # the same comment, edited
        assert pr.repo.head()[:12] in state.issue_comments[summaries[0]].body
        found = _bot_findings(state)
        assert len(found) == 3 and len(set(found)) == 3  # one new inline comment, no duplicate
        assert NEW_IN_PUSH_2 in found
        assert _thread_of(state, cart_id, BOT.login).resolved
        assert not _thread_of(state, cart_id, MALLORY.login).resolved
        assert not _thread_of(state, NEW_IN_PUSH_2, MALLORY.login).resolved
        assert sum(t.resolved for t in state.threads.values()) == 1
        assert "1 new inline comment (1 with a suggestion), 1 thread resolved, 1 still open" in second.stderr
        author_comment = next(c for c in state.issue_comments.values() if c.user == AUTHOR)
        assert author_comment.body.endswith("is not")

        # the author dismisses the pdb.set_trace() finding: its thread is resolved, nothing is posted
        pricing_id = next(
            m.finding_id
            for c in state.comments_by(BOT)
            if c.path == "shopkit/pricing.py" and (m := parse_finding_marker(c.body)) is not None
        )
        env = pr.env(fake.url)
        assert pr.prscope(env, "dismiss", pricing_id, "--reason", "on purpose").returncode == 0
        dismissed = pr.review(env, "--post", "github")
        assert dismissed.returncode == 1, dismissed.stderr
        assert _thread_of(state, pricing_id, BOT.login).resolved
        assert len(_bot_findings(state)) == 3 and _bot_summaries(state) == summaries
        assert "1 dismissed finding not shown" in state.issue_comments[summaries[0]].body

        # 3. a read-only token (a fork's): same exit code, one warning line, nothing written
        before = len(fake.recorded)
        third = pr.review(pr.env(fake.url, token="read-only-token"), "--post", "github")
        assert third.returncode == plain.returncode
        warnings = [line for line in third.stderr.splitlines() if line.startswith("prscope: warning:")]
        assert len(warnings) == 1 and "pull-requests: write" in warnings[0], third.stderr
        assert "403" in warnings[0]
        assert _bot_summaries(state) == summaries and len(_bot_findings(state)) == 3
        assert all(r.status == 403 for r in fake.recorded[before:] if r.method != "GET" and r.kind == "rest")
    _assert_all_validated(fake)
