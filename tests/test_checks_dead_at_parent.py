"""A file that already failed on import at the PR's parent, in the middle of a rewrite (channels e7def7c2),
holds no break the PR made; every other file is judged as before."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

ROUTING = "class Router:\n    pass\n"
BASE = {
    "pkg/__init__.py": "",
    "pkg/routing.py": ROUTING,
    "pkg/consumers.py": "class Consumer:\n    pass\n",
    # `.sessions` was deleted by an earlier commit: importing `pkg.auth` already fails at the parent.
    "pkg/auth.py": "from .sessions import session_for\n\n\ndef login():\n    return session_for()\n",
    "pkg/generic.py": "from .auth import login\nfrom .routing import Router\n\nROUTER = Router()\n",
    # A comment inside the parentheses names nothing (sqlalchemy-utils 9a7f3b04's `from .types import (`).
    "pkg/include.py": "from .routing import (  # the router\n    Router,\n)\n\n\ndef include():\n"
    "    return Router()\n",
    "tests/__init__.py": "",
    "tests/test_routing.py": "from pkg.generic import ROUTER\nfrom pkg.routing import Router\n\nRouter()\n",
}
RENAMED = {"pkg/routing.py": ROUTING.replace("Router", "Routes")}


def test_files_whose_imports_already_failed_at_the_parent_are_not_reported(git_repo: GitRepo) -> None:
    """The PR renames `Router` and deletes `pkg/consumers.py` (the rewrite goes on). `pkg/generic.py`
    imports `pkg.auth`, which imported the missing `pkg.sessions` at the parent already, and the test
    imports `pkg.generic`: neither ran before the PR. `pkg/include.py` did, and breaks."""
    run = review(git_repo, BASE, {**RENAMED, "pkg/consumers.py": None})
    assert sites(run, "dangling-reference") == [("pkg/include.py", 2), ("pkg/include.py", 7)]


def _importing(module: str) -> str:
    return BASE["pkg/auth.py"].replace(
        "from .sessions import session_for", f"from .{module} import session_for"
    )


@pytest.mark.parametrize(
    ("pr", "extra"),
    [
        # No Python file deleted: no rewrite under way, and a module outside the repository's packages
        # may be any distribution's.
        ({}, {"pkg/auth.py": BASE["pkg/auth.py"].replace(".sessions", "web.sessions")}),
        ({}, {"pkg/config.py.example": "SESSION = None\n", "pkg/auth.py": _importing("config")}),
        ({}, {".gitignore": "local_settings.py\n", "pkg/auth.py": _importing("local_settings")}),
        ({}, {"proto/sessions.proto": "syntax = 'proto3';\n"}),
        ({}, {"pkg/__init__.py": "import sys\n\nsys.meta_path.append(object())\n"}),
        ({"pkg/consumers.py": None}, {"pkg/sessions.pyx": "# compiled at build time\n"}),
        ({"pkg/consumers.py": None, "pkg/auth.py": BASE["pkg/auth.py"].replace(".sessions", ".routing")}, {}),
    ],
    ids=[
        "no-deletion-another-distribution",
        "template",
        "gitignored",
        "proto",
        "import-hook",
        "compiled-module",
        "import-mended-by-the-pr",
    ],
)
def test_without_strong_evidence_of_a_dead_file_everything_is_reported(
    git_repo: GitRepo, pr: dict[str, str | None], extra: dict[str, str]
) -> None:
    """A missing module is taken as deleted only in a PR that deletes Python files of its package, or
    when a relative import names it in a repository that builds nothing; not when a build or the user
    makes it (`_sessions.pyx`, a `.proto` file, a `config.py.example` to copy, a `.gitignore`d
    `local_settings.py`) or the package may install it (an import hook), and not when the PR mends the
    import that failed."""
    run = review(git_repo, {**BASE, **extra}, {**RENAMED, **pr})
    expected = [("pkg/generic.py", 2), ("pkg/generic.py", 4), ("pkg/include.py", 2), ("pkg/include.py", 7)]
    expected += [("tests/test_routing.py", 2), ("tests/test_routing.py", 4)]
    assert sites(run, "dangling-reference") == expected
