"""GitLab: the summary as one merge-request note, edited in place through python-gitlab, and the Code
Quality report from the same run, end to end through the CLI in a merge-request pipeline's environment."""

from __future__ import annotations

import json
from pathlib import Path

import jsonschema
from prscope.analysis.publish.markers import SUMMARY_MARKER

from tests.gitlabfake import BOT, OTHER, FakeGitLab
from tests.publish_support import PullRequestRun, push_2, shop_repository

SCHEMA = json.loads(
    (Path(__file__).parent / "data" / "gitlab" / "codeclimate.json").read_text(encoding="utf-8")
)


def _env(pr: PullRequestRun, url: str, token: str = "glpat-bot") -> dict[str, str]:
    env = pr.env("http://127.0.0.1:9", token=None)
    for name in [key for key in env if key.startswith("GITHUB_")]:
        del env[name]
    return env | {
        "GITLAB_CI": "true",
        "CI_SERVER_URL": url,
        "CI_PROJECT_ID": "42",
        "CI_PROJECT_URL": f"{url}/shop/shopkit",
        "CI_MERGE_REQUEST_IID": "5",
        "CI_MERGE_REQUEST_TARGET_BRANCH_NAME": "main",
        "CI_MERGE_REQUEST_DIFF_BASE_SHA": pr.base,
        "CI_COMMIT_SHA": pr.repo.head(),
        "CI_PIPELINE_URL": f"{url}/shop/shopkit/-/pipelines/8",
        "PRSCOPE_GITLAB_TOKEN": token,
    }


def test_note_is_edited_in_place_and_the_code_quality_report_is_valid(tmp_path: Path) -> None:
    pr = PullRequestRun(shop_repository(tmp_path / "shop"), tmp_path)
    report = tmp_path / "gl-code-quality-report.json"
    with FakeGitLab() as gitlab:
        impostor = gitlab.add_note(OTHER, f"{SUMMARY_MARKER}\nnot prscope's")
        system = gitlab.add_note(BOT, f"{SUMMARY_MARKER}\nsystem note", system=True)
        for number in range(120):  # the summary ends up on the second page of notes
            gitlab.add_note(OTHER, f"comment {number}")
        args = ("--post", "auto", "--also", f"codequality={report}")
        first = pr.review(_env(pr, gitlab.url), *args)
        assert first.returncode == 1, first.stderr
        (line,) = [row for row in first.stderr.splitlines() if "posted to !5" in row]
        ours = [n for n in gitlab.notes.values() if n.author == BOT and not n.system]
        assert len(ours) == 1 and f"summary note {ours[0].id} created" in line
        assert ours[0].body.startswith(SUMMARY_MARKER) and "### Findings" in ours[0].body
        assert f"{gitlab.url}/shop/shopkit/-/blob/" in ours[0].body  # GitLab permalinks
        issues = json.loads(report.read_text(encoding="utf-8"))
        assert {i["check_name"] for i in issues} == {"breaking-call", "debug-leftover"}
        for issue in issues:
            jsonschema.validate(issue, SCHEMA)

        push_2(pr.repo)
        second = pr.review(_env(pr, gitlab.url), *args)
        assert f"summary note {ours[0].id} updated" in second.stderr, second.stderr
        assert [n.id for n in gitlab.notes.values() if n.author == BOT and not n.system] == [ours[0].id]
        assert pr.repo.head()[:12] in gitlab.notes[ours[0].id].body
        assert impostor.body.endswith("not prscope's") and system.body.endswith("system note")
        assert not any(
            r.method == "PUT" and r.path.endswith((f"/{impostor.id}", f"/{system.id}"))
            for r in gitlab.recorded
        )

        reader = pr.review(_env(pr, gitlab.url, token="glpat-reader"), "--post", "gitlab")
        assert reader.returncode == first.returncode
        (warning,) = [row for row in reader.stderr.splitlines() if row.startswith("prscope: warning:")]
        assert "not allowed (403" in warning and "PRSCOPE_GITLAB_TOKEN" in warning
    assert gitlab.recorded and gitlab.invalid() == [], [(r.path, r.violations) for r in gitlab.invalid()]
