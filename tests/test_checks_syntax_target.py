"""syntax-error judges code under the Python the project targets, and never blames a PR for a file that
did not parse before it (issue 13, class 18)."""

from __future__ import annotations

import pytest

from analysis.checks import ChecksConfig
from analysis.checks.pyversion import lowest_admitted
from tests.gitrepo import GitRepo
from tests.test_checks_support import only, review, sites

PY2 = "def show(x):\n    print x\n"
MATCH = "def kind(x):\n    match x:\n        case 1:\n            return 'one'\n    return 'other'\n"
WALRUS = "def first(xs):\n    if (n := len(xs)) > 0:\n        return n\n"


def _pyproject(spec: str) -> str:
    return f'[project]\nname = "demo"\nrequires-python = "{spec}"\n'


def test_an_edit_to_a_file_that_never_parsed_is_not_a_syntax_error(git_repo: GitRepo) -> None:
    base = {"pyproject.toml": _pyproject(">=2.7"), "legacy.py": PY2}
    run = review(git_repo, base, {"legacy.py": "print 'loading'\n" + PY2})
    assert sites(run, "syntax-error") == []  # the first error is on the added line, but it was Python 2


def test_a_new_file_that_does_not_parse_is_a_syntax_error(git_repo: GitRepo) -> None:
    run = review(git_repo, {"pyproject.toml": _pyproject(">=2.7")}, {"legacy.py": PY2})
    assert sites(run, "syntax-error") == [("legacy.py", 2)]


def test_syntax_newer_than_requires_python_is_reported_with_the_target(git_repo: GitRepo) -> None:
    base = {"pyproject.toml": _pyproject(">=3.8, <4"), "kinds.py": "def kind(x):\n    return x\n"}
    run = review(git_repo, base, {"kinds.py": MATCH, "first.py": WALRUS})
    finding = only(run, "syntax-error")
    assert finding.path == "kinds.py"  # the walrus of first.py is fine under 3.8
    assert "Pattern matching is only supported in Python 3.10" in finding.message
    assert 'under Python 3.8 (requires-python ">=3.8, <4" in pyproject.toml)' in finding.message


def test_setup_cfg_and_the_configured_version(git_repo: GitRepo) -> None:
    base = {"setup.cfg": "[options]\npython_requires = >=3.6\n", "first.py": "x = 1\n"}
    config = ChecksConfig(python_version="3.10")
    run = review(git_repo, base, {"first.py": WALRUS, "kinds.py": MATCH}, config=config)
    assert sites(run, "syntax-error") == []  # the configuration wins over setup.cfg's 3.6


def test_setup_cfg_target_applies_without_configuration(git_repo: GitRepo) -> None:
    base = {"setup.cfg": "[options]\npython_requires = >=3.6\n", "first.py": "x = 1\n"}
    run = review(git_repo, base, {"first.py": WALRUS})
    assert sites(run, "syntax-error") == [("first.py", 2)]


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        (">=3.8", ((3, 8), False)),
        (">=3.8,<4", ((3, 8), False)),
        ("~=3.9", ((3, 9), False)),
        ("==3.10.*", ((3, 10), False)),
        (">3.7", ((3, 8), False)),
        (">=2.7, !=3.0.*, !=3.1.*", ((3, 0), False)),
        ("==2.7.*", ((3, 0), True)),
        (">=2.6, <3", ((3, 0), True)),
        ("<4", None),
        ("nonsense", None),
    ],
)
def test_lowest_admitted_version(spec: str, expected: tuple[tuple[int, int], bool] | None) -> None:
    assert lowest_admitted(spec) == expected
