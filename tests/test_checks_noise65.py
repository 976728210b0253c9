"""False alarms of the real-history noise check left from rounds 20 and 22 (`bench/noise63-*`,
`bench/noise65-*`, issue 20), each rebuilt as a small repository of that shape."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

SETUP_CFG = """[metadata]
name = pkg

[options]
python_requires = {requires}
"""
GATED = """import sys

if sys.version_info >= (3, 8):
    from typing import Literal
else:
    from pkg.typing_extensions import Literal
"""
FALLBACK = """try:
    from typing import Protocol
except ImportError:
    from pkg.typing_extensions import Protocol
"""
BACKPORT = """Literal = object()
Protocol = object()
"""


@pytest.mark.parametrize(
    ("requires", "expected"),
    [(">=3.8", []), (">=3.7", [("pkg/gated.py", 6), ("pkg/fallback.py", 4)])],
)
def test_an_import_only_pythons_older_than_the_minimum_run(
    git_repo: GitRepo, requires: str, expected: list[tuple[str, int]]
) -> None:
    """setuptools d93d2e4ccc deletes a vendored `typing_extensions` that two other vendored packages
    still import, in the `else:` of `if sys.version_info >= (3, 8):` and in the `except ImportError:` of
    `try: from typing import Protocol`. The project requires Python 3.8, where neither runs. A project
    that still supports 3.7 runs both, which are reported."""
    files = {
        "setup.cfg": SETUP_CFG.format(requires=requires),
        "pkg/__init__.py": "",
        "pkg/typing_extensions.py": BACKPORT,
        "pkg/gated.py": GATED,
        "pkg/fallback.py": FALLBACK,
    }
    run = review(git_repo, files, {"pkg/typing_extensions.py": None})
    assert sorted(sites(run, "dangling-reference")) == sorted(expected)


UNKNOWN_NAME = """try:
    from typing import Protocol, Literal
    from collections import OrderedDict
except ImportError:
    from pkg.typing_extensions import Protocol
"""
SLICED = """import sys

if sys.version_info[:2] < (3, 8):
    from pkg.typing_extensions import Literal
if sys.version_info > (3, 7):
    from typing import Literal
else:
    from pkg.typing_extensions import Literal
"""


def test_a_fallback_whose_try_may_fail_and_a_gate_the_minimum_passes_through(git_repo: GitRepo) -> None:
    """The `try:` also imports from a module whose history the table does not know (`collections`): the
    fallback may run. `version_info > (3, 7)` holds on every 3.7 release (`(3, 7, 0, ...) > (3, 7)`), so
    with a minimum of 3.7 its `else:` never runs; `version_info[:2] < (3, 8)` holds on 3.7."""
    files = {
        "setup.cfg": SETUP_CFG.format(requires=">=3.7"),
        "pkg/__init__.py": "",
        "pkg/typing_extensions.py": BACKPORT,
        "pkg/unknown.py": UNKNOWN_NAME,
        "pkg/sliced.py": SLICED,
    }
    run = review(git_repo, files, {"pkg/typing_extensions.py": None})
    assert sorted(sites(run, "dangling-reference")) == [("pkg/sliced.py", 4), ("pkg/unknown.py", 5)]
