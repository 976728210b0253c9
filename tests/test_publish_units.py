"""The posting's pieces on their own: markers, anchoring on the diff, thread planning, comment bodies,
the summary's size limit, and reading the pull request from the CI environment."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from prscope.analysis.findings import Finding, Related, Severity, Suggestion
from prscope.analysis.formats.common import RenderContext
from prscope.analysis.publish.comments import inline_comment
from prscope.analysis.publish.diffmap import Anchor, DiffLines
from prscope.analysis.publish.markers import (
    SUMMARY_MARKER,
    finding_marker,
    is_summary,
    parse_finding_marker,
    same_user,
)
from prscope.analysis.publish.summary import COMMENT_LIMIT, SummaryInput, render_summary
from prscope.analysis.publish.sync import MAX_NEW_COMMENTS, PostedThread, judged_sources, plan_threads
from prscope.analysis.publish.target import NotPostable, github_pull_request, gitlab_merge_request
from prscope.analysis.report import AgentNode, Report, Usage

from tests.test_review_helpers import GITHUB_TOKEN

SHA = "a" * 40


def _finding(line: int = 3, **changes: object) -> Finding:
    base = Finding(
        id=f"{line:020x}",
        rule="debug-leftover",
        severity=Severity.WARNING,
        path="pkg/mod.py",
        line=line,
        end_line=line,
        title="Debugger call left in: `breakpoint()`",
        message="Remove it.",
        source="check",
        suggestion=Suggestion(start_line=line, end_line=line, replacement=""),
    )
    return base.model_copy(update=changes)


def _link(path: str, line: int, end_line: int) -> str:
    return f"https://example.test/{path}#L{line}-{end_line}"


# --- markers ---------------------------------------------------------------------------------------


def test_markers_count_only_in_their_place() -> None:
    marker = finding_marker("ab" * 10, "check")
    assert parse_finding_marker(f"text\n{marker}\n") is not None
    quoted = f"```python\n{marker}\n```\n{finding_marker('cd' * 10, 'model')}"
    assert parse_finding_marker(quoted) == parse_finding_marker(finding_marker("cd" * 10, "model"))
    assert parse_finding_marker(f"{marker}\ntext after it") is None
    assert parse_finding_marker("<!-- prscope:finding id=zz source=check -->") is None
    assert parse_finding_marker(finding_marker("ab" * 10, "check").replace("check", "human")) is None
    assert is_summary(f"{SUMMARY_MARKER}\n## prscope review") and not is_summary(f"hi\n{SUMMARY_MARKER}")


def test_bot_logins_match_across_rest_and_graphql() -> None:
    assert same_user("github-actions[bot]", "github-actions")
    assert same_user("Octo", "octo") and not same_user("octo", "octo-evil")


# --- where an inline comment can go ------------------------------------------------------------------


def test_anchors_stay_inside_one_hunk() -> None:
    diff = DiffLines({"pkg/mod.py": ((1, 8), (20, 26))}, {"pkg/mod.py": frozenset({3, 22})})
    assert diff.anchor(_finding(3)) == Anchor("pkg/mod.py", 3, None, covers_suggestion=True)
    spanning = _finding(5, end_line=7, suggestion=Suggestion(start_line=5, end_line=7, replacement="x\n"))
    assert diff.anchor(spanning) == Anchor("pkg/mod.py", 7, 5, covers_suggestion=True)
    across = _finding(7, end_line=21, suggestion=None)
    assert diff.anchor(across) == Anchor("pkg/mod.py", 7)  # first line only: the range leaves the hunk
    assert diff.anchor(_finding(12)) is None
    assert diff.anchor(_finding(3, path="other.py")) is None


# --- what a new push does to earlier threads ---------------------------------------------------------


def _thread(finding: str, source: str = "check", resolved: bool = False) -> PostedThread:
    return PostedThread(f"T_{finding}", 1, finding, source, resolved)  # type: ignore[arg-type]


def _comments(*lines: int) -> list:  # type: ignore[type-arg]
    return [inline_comment(_finding(n), f"{n:020x}", Anchor("pkg/mod.py", n), None) for n in lines]


def test_gone_dismissed_and_kept_threads() -> None:
    candidates = _comments(3, 4)
    posted = [
        _thread(f"{3:020x}"),
        _thread("gone-check"),
        _thread("gone-model", "model"),
        _thread("dismissed"),
    ]
    plan = plan_threads(
        candidates,
        posted,
        active_ids=frozenset({f"{3:020x}", f"{4:020x}"}),
        dismissed_ids=frozenset({"dismissed"}),
        judged=frozenset({"check"}),
        commit=SHA,
    )
    assert [c.finding_id for c in plan.new] == [f"{4:020x}"]  # 3 is already posted: never twice
    assert [(t.finding_id, why) for t, why in plan.resolve] == [
        ("gone-check", f"fixed in {SHA[:12]}"),
        ("dismissed", "dismissed"),
    ]
    assert plan.kept == 2  # the open thread of finding 3, and the model one an offline run cannot judge


def test_a_partial_review_resolves_nothing_and_new_comments_are_capped() -> None:
    report = Report(status="partial", status_reason="checks incomplete", mode="branch")
    assert judged_sources(report) == frozenset()
    assert judged_sources(report.model_copy(update={"status": "offline"})) == {"check"}
    assert judged_sources(report.model_copy(update={"status": "complete"})) == {"check", "model"}
    many = _comments(*range(1, MAX_NEW_COMMENTS + 6))
    plan = plan_threads(
        many,
        [_thread("old")],
        active_ids=frozenset(),
        dismissed_ids=frozenset(),
        judged=frozenset(),
        commit=SHA,
    )
    assert len(plan.new) == MAX_NEW_COMMENTS and plan.deferred == 5 and plan.resolve == [] and plan.kept == 1


def test_resolved_threads_are_not_reposted() -> None:
    plan = plan_threads(
        _comments(3),
        [_thread(f"{3:020x}", resolved=True)],
        active_ids=frozenset({f"{3:020x}"}),
        dismissed_ids=frozenset(),
        judged=frozenset({"check"}),
        commit=SHA,
    )
    assert plan.new == [] and plan.resolve == [] and plan.kept == 0


# --- the inline comment ----------------------------------------------------------------------------------


def test_suggestion_blocks_only_for_certain_unmasked_fixes() -> None:
    anchor = Anchor("pkg/mod.py", 3, None, covers_suggestion=True)
    deletion = inline_comment(_finding(3), "f" * 20, anchor, None)
    assert deletion.suggests and "```suggestion\n```" in deletion.body
    assert deletion.body.rstrip().endswith(finding_marker("f" * 20, "check"))
    model = _finding(
        3,
        source="model",
        confidence=0.8,
        suggestion=Suggestion(start_line=3, end_line=3, replacement="x = 1\n"),
    )
    shown = inline_comment(model, "e" * 20, anchor, None)
    assert not shown.suggests and "(model, confidence 0.80)" in shown.body and "x = 1" in shown.body
    secret = _finding(
        3,
        rule="secret",
        message=f"found {GITHUB_TOKEN}",
        suggestion=Suggestion(start_line=3, end_line=3, replacement=f'T = "{GITHUB_TOKEN}"\n'),
    )
    masked = inline_comment(secret, "d" * 20, anchor, None)
    assert not masked.suggests and GITHUB_TOKEN not in masked.body
    elsewhere = inline_comment(_finding(3), "c" * 20, Anchor("pkg/mod.py", 3), None)
    assert not elsewhere.suggests and "Fix: delete line 3" in elsewhere.body


# --- the summary -----------------------------------------------------------------------------------------


def _summary(report: Report, findings: list[Finding], **changes: object) -> str:
    data = SummaryInput(
        report=report,
        context=RenderContext(),
        findings=findings,
        on_diff=frozenset(),
        linker=_link,
        commit_url="https://example.test/commit/" + SHA,
        commit=SHA,
        run_id="run-1",
        full_report="the job summary",
        changed=lambda path, line: path == "pkg/def.py",
    )
    return render_summary(data.__class__(**{**data.__dict__, **changes}))


def test_summary_says_status_cost_confidence_and_run() -> None:
    report = Report(
        status="complete",
        mode="branch",
        usage=Usage(requests=3, input_tokens=12000, output_tokens=900),
        cost_usd=0.05,
        agents=[AgentNode(id="main", label="review", status="completed")],
    )
    model = _finding(
        8,
        rule="bug",
        source="model",
        confidence=0.72,
        related=[Related(path="pkg/def.py", line=2, message="`f` changed here")],
    )
    text = _summary(report, [model])
    assert text.startswith(SUMMARY_MARKER + "\n## prscope review")
    assert "**Status: complete**" in text and "(model, confidence 0.72)" in text
    assert "12,000 input" in text and "about $0.05" in text and "run `run-1`" in text
    assert "changed definition: [`pkg/def.py:2`](https://example.test/pkg/def.py#L2-2)" in text
    assert "Outside the changed lines (1)" in text


def test_summary_is_cut_to_the_comment_limit_and_says_so() -> None:
    findings = [_finding(n, message="long " * 400) for n in range(1, 400)]
    report = Report(status="offline", status_reason="no API key", mode="branch", findings=findings)
    text = _summary(report, findings)
    assert len(text) <= COMMENT_LIMIT
    shown = text.count("- 🟠 **warning**")
    assert 0 < shown < len(findings)
    assert f"**{len(findings) - shown} more findings not shown here** (the comment size limit)" in text
    assert "every finding is in the job summary" in text


def test_summary_without_inline_comments_is_one_list() -> None:
    report = Report(status="offline", mode="branch")
    text = _summary(report, [_finding(3)], inline=False)
    assert "### Findings" in text and "Outside the changed lines" not in text


# --- the pull request, from the CI environment -----------------------------------------------------


def _event(tmp_path: Path, head_repo: str) -> dict[str, str]:
    event = {
        "pull_request": {
            "number": 12,
            "head": {"sha": SHA, "repo": {"full_name": head_repo}},
            "base": {"sha": "b" * 40, "repo": {"full_name": "o/r"}},
        }
    }
    path = tmp_path / "event.json"
    path.write_text(json.dumps(event), encoding="utf-8")
    return {"GITHUB_EVENT_PATH": str(path), "GITHUB_REPOSITORY": "o/r", "GITHUB_TOKEN": "token-value-123"}


def test_github_pull_request_from_the_event(tmp_path: Path) -> None:
    pull = github_pull_request({**_event(tmp_path, "o/r"), "GITHUB_API_URL": "https://ghe.example/api/v3/"})
    assert (pull.number, pull.head_sha, pull.base_sha, pull.from_fork) == (12, SHA, "b" * 40, False)
    assert pull.api_url == "https://ghe.example/api/v3" and "token-value-123" not in repr(pull)
    assert pull.permalink(SHA, "a b/é.py", 3, 5) == f"https://github.com/o/r/blob/{SHA}/a%20b/%C3%A9.py#L3-L5"
    assert github_pull_request(_event(tmp_path, "fork/r")).from_fork
    with pytest.raises(NotPostable, match="no GITHUB_TOKEN"):
        github_pull_request({**_event(tmp_path, "o/r"), "GITHUB_TOKEN": ""}).require_token()
    (tmp_path / "push.json").write_text('{"ref": "refs/heads/main"}', encoding="utf-8")
    with pytest.raises(NotPostable, match="not a pull request"):
        github_pull_request({"GITHUB_EVENT_PATH": str(tmp_path / "push.json"), "GITHUB_EVENT_NAME": "push"})


def test_gitlab_merge_request_from_ci_variables() -> None:
    env = {
        "CI_MERGE_REQUEST_IID": "5",
        "CI_PROJECT_ID": "42",
        "CI_SERVER_URL": "https://gitlab.example",
        "CI_PROJECT_URL": "https://gitlab.example/g/p",
        "CI_COMMIT_SHA": SHA,
        "PRSCOPE_GITLAB_TOKEN": "glpat",
    }
    merge_request = gitlab_merge_request(env)
    assert (merge_request.number, merge_request.repository, merge_request.label) == (5, "42", "!5")
    assert merge_request.permalink(SHA, "x.py", 3, 5) == f"https://gitlab.example/g/p/-/blob/{SHA}/x.py#L3-5"
    with pytest.raises(NotPostable, match="PRSCOPE_GITLAB_TOKEN"):
        gitlab_merge_request({**env, "PRSCOPE_GITLAB_TOKEN": ""}).require_token()
    assert gitlab_merge_request(
        {**env, "CI_MERGE_REQUEST_SOURCE_PROJECT_ID": "7", "CI_MERGE_REQUEST_PROJECT_ID": "42"}
    ).from_fork
