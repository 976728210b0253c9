"""docs/ci.md's examples are valid YAML and agree with what they configure: the GitHub workflows that post
grant `pull-requests: write`, the action inputs they name exist, the GitLab job hands GitLab the Code
Quality file prscope writes, and the pre-commit example names the hook the repository declares."""

from __future__ import annotations

import re
from typing import Any

import yaml

from tests.test_review_helpers import ROOT

DOC = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
BLOCKS = [yaml.safe_load(block) for block in re.findall(r"```yaml\n(.*?)```", DOC, re.S)]
ACTION = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))


def _steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow.get("jobs", {}).values() for step in job.get("steps", [])]


def test_every_example_parses_and_action_workflows_may_post() -> None:
    assert len(BLOCKS) >= 6
    workflows = [b for b in BLOCKS if isinstance(b, dict) and "jobs" in b]
    using_action = [
        w for w in workflows if any(s.get("uses", "").startswith("prscope/prscope@") for s in _steps(w))
    ]
    assert len(using_action) >= 2
    for workflow in using_action:
        assert workflow["permissions"]["pull-requests"] == "write"
        for step in _steps(workflow):
            if step.get("uses", "").startswith("prscope/prscope@"):
                assert set(step.get("with", {})) <= set(ACTION["inputs"]), step


def test_post_inputs_table_matches_the_action() -> None:
    for name in ("post-review", "require-post", "request-changes", "github-token"):
        assert f"| `{name}` | `{ACTION['inputs'][name]['default']}` |" in DOC


def test_gitlab_job_reports_the_file_prscope_writes() -> None:
    (job,) = [b["prscope"] for b in BLOCKS if isinstance(b, dict) and "prscope" in b]
    script = " ".join(job["script"])
    output = re.search(r"--format codequality --output (\S+)", script)
    assert output is not None and job["artifacts"]["reports"]["codequality"] == output.group(1)
    assert "--post auto" in script and "prscope[post]" in script


def test_pre_commit_example_names_the_declared_hook() -> None:
    (config,) = [b for b in BLOCKS if isinstance(b, dict) and "repos" in b]
    (hook,) = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    assert config["repos"][0]["hooks"][0]["id"] == hook["id"]
