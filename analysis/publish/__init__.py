"""Posting a review on the pull request itself (GitHub) or merge request (GitLab).

    result = publish(report, context, repo, PostOptions(target="auto"), run_id=run_id)
    print(result.line, file=sys.stderr)

- `target`: which pull request, from the CI environment;
- `publication`: what to post (summary text, the inline comments the diff allows), host-agnostic,
  built from `summary`, `comments`, `diffmap`;
- `sync`: what a new push does to earlier threads (never a duplicate; resolve what is fixed or
  dismissed); `markers`: how a run finds what an earlier one posted;
- `github` (githubkit) and `gitlab` (python-gitlab): the hosts; imported only when posting, so a
  review without `--post` never loads their clients;
- `failures`: every failure as one warning line naming what to grant.
"""

from prscope.analysis.publish.run import PostOptions, PostResult, publish

__all__ = ["PostOptions", "PostResult", "publish"]
