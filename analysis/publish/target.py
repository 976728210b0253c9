"""Which pull request (or merge request) to post on, read from the CI environment.

GitHub Actions: the event payload (`GITHUB_EVENT_PATH`, a `pull_request` or `pull_request_target`
event) gives the number, the head and base commits and whether the head lives in a fork;
`GITHUB_REPOSITORY`, `GITHUB_API_URL` (tests point it at a local server) and `GITHUB_SERVER_URL` (for
permalinks) the rest; the token is `GITHUB_TOKEN`. GitLab CI: the `CI_*` variables of a merge-request
pipeline; the token is `PRSCOPE_GITLAB_TOKEN` or `GITLAB_TOKEN` (a project access token with the `api`
scope: `CI_JOB_TOKEN` may not write notes).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote

Platform = Literal["github", "gitlab"]
GITHUB_GRANT = "grant the workflow `permissions: pull-requests: write`"
GITLAB_GRANT = "set PRSCOPE_GITLAB_TOKEN to a project access token with the `api` scope (Reporter or above)"


class NotPostable(Exception):
    """This run cannot post: one line saying why and what to do about it."""


@dataclass(frozen=True)
class PullRequest:
    platform: Platform
    api_url: str
    """GitHub: the REST base URL; GitLab: the server URL (the client adds /api/v4)."""
    web_url: str
    """The repository's page, for permalinks: https://github.com/o/r, a GitLab project URL."""
    repository: str
    """GitHub: "owner/name"; GitLab: the project id."""
    number: int
    head_sha: str | None
    base_sha: str | None
    token: str = field(repr=False)
    from_fork: bool = False
    run_url: str | None = None
    """This CI run's page (where the job summary and artifacts are)."""

    @property
    def label(self) -> str:
        return f"{self.repository}#{self.number}" if self.platform == "github" else f"!{self.number}"

    @property
    def grant(self) -> str:
        return GITHUB_GRANT if self.platform == "github" else GITLAB_GRANT

    @property
    def full_report(self) -> str:
        """Where every finding is, for a summary cut at the size limit."""
        where = f"[this run]({self.run_url})" if self.run_url else "the CI run"
        if self.platform == "github":
            return f"the job summary of {where} and its SARIF report (code scanning)"
        return f"the Code Quality report of {where}"

    def commit_url(self, sha: str) -> str:
        return f"{self.web_url}/{'commit' if self.platform == 'github' else '-/commit'}/{sha}"

    def require_token(self) -> None:
        if self.token:
            return
        if self.platform == "github":
            raise NotPostable(
                "no GITHUB_TOKEN in the environment (pass `GITHUB_TOKEN: ${{ github.token }}`) and "
                + GITHUB_GRANT
            )
        raise NotPostable("no PRSCOPE_GITLAB_TOKEN in the environment: " + GITLAB_GRANT)

    def permalink(self, sha: str, path: str, line: int, end_line: int) -> str:
        """The URL of lines `line..end_line` of `path` at commit `sha`."""
        blob = "blob" if self.platform == "github" else "-/blob"
        if end_line <= line:
            lines = f"L{line}"
        else:  # GitHub: #L3-L5, GitLab: #L3-5
            lines = f"L{line}-L{end_line}" if self.platform == "github" else f"L{line}-{end_line}"
        return f"{self.web_url}/{blob}/{sha}/{quote(path)}#{lines}"


def detect_platform(env: Mapping[str, str]) -> Platform | None:
    if env.get("GITHUB_ACTIONS") == "true" or env.get("GITHUB_EVENT_PATH"):
        return "github"
    if env.get("GITLAB_CI") == "true" or env.get("CI_MERGE_REQUEST_IID"):
        return "gitlab"
    return None


def pull_request_for(platform: Platform, env: Mapping[str, str]) -> PullRequest:
    return github_pull_request(env) if platform == "github" else gitlab_merge_request(env)


def github_pull_request(env: Mapping[str, str]) -> PullRequest:
    event = _event(env.get("GITHUB_EVENT_PATH", ""))
    pull = event.get("pull_request")
    if not isinstance(pull, dict) or not isinstance(pull.get("number"), int):
        name = env.get("GITHUB_EVENT_NAME") or "this"
        raise NotPostable(f"the {name} event is not a pull request (run on `pull_request`)")
    repository = env.get("GITHUB_REPOSITORY") or _dig(event, "repository", "full_name")
    if not repository or "/" not in repository:
        raise NotPostable("GITHUB_REPOSITORY is not set")
    head_repo = _dig(pull, "head", "repo", "full_name")
    server = env.get("GITHUB_SERVER_URL", "https://github.com").rstrip("/")
    return PullRequest(
        platform="github",
        api_url=env.get("GITHUB_API_URL", "https://api.github.com").rstrip("/"),
        web_url=f"{server}/{repository}",
        repository=repository,
        number=pull["number"],
        head_sha=_sha(_dig(pull, "head", "sha")),
        base_sha=_sha(_dig(pull, "base", "sha")),
        token=env.get("GITHUB_TOKEN", ""),
        from_fork=bool(head_repo) and head_repo != repository,
        run_url=f"{server}/{repository}/actions/runs/{run}" if (run := env.get("GITHUB_RUN_ID")) else None,
    )


def gitlab_merge_request(env: Mapping[str, str]) -> PullRequest:
    iid = env.get("CI_MERGE_REQUEST_IID", "")
    if not iid.isdigit():
        raise NotPostable("not a merge-request pipeline (CI_MERGE_REQUEST_IID is not set)")
    project = env.get("CI_PROJECT_ID", "")
    server = env.get("CI_SERVER_URL", "").rstrip("/")
    if not project or not server:
        raise NotPostable("CI_PROJECT_ID or CI_SERVER_URL is not set")
    source, target = env.get("CI_MERGE_REQUEST_SOURCE_PROJECT_ID"), env.get("CI_MERGE_REQUEST_PROJECT_ID")
    return PullRequest(
        platform="gitlab",
        api_url=server,
        web_url=env.get("CI_PROJECT_URL", f"{server}/{env.get('CI_PROJECT_PATH', project)}").rstrip("/"),
        repository=project,
        number=int(iid),
        head_sha=_sha(env.get("CI_COMMIT_SHA")),
        base_sha=_sha(env.get("CI_MERGE_REQUEST_DIFF_BASE_SHA")),
        token=env.get("PRSCOPE_GITLAB_TOKEN") or env.get("GITLAB_TOKEN", ""),
        from_fork=bool(source and target and source != target),
        run_url=env.get("CI_PIPELINE_URL") or None,
    )


def _event(path: str) -> dict[str, Any]:
    if not path:
        raise NotPostable("GITHUB_EVENT_PATH is not set (not a GitHub Actions run)")
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise NotPostable(f"cannot read the event payload {path}: {err}") from None
    return data if isinstance(data, dict) else {}


def _dig(data: object, *keys: str) -> str | None:
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data if isinstance(data, str) else None


def _sha(value: str | None) -> str | None:
    if value and len(value) == 40 and all(c in "0123456789abcdef" for c in value):
        return value
    return None
