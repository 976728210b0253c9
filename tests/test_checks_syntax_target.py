"""syntax-error judges code under the Python the project targets, and never blames a PR for a file that
did not parse before it (issue 13, class 18)."""

from __future__ import annotations

import pytest
from prscope.analysis.checks import ChecksConfig
from prscope.analysis.checks.pyversion import lowest_admitted

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
        (">=2.7, !=3.0.*, !=3.1.*", ((3, 2), False)),
        (">=3.6, !=3.6.1", ((3, 6), False)),
        ("==2.7.*", ((3, 0), True)),
        (">=2.6, <3", ((3, 0), True)),
        ("<4", None),
        ("nonsense", None),
    ],
)
def test_lowest_admitted_version(spec: str, expected: tuple[tuple[int, int], bool] | None) -> None:
    assert lowest_admitted(spec) == expected


CLASSIFIERS_2_AND_3 = (
    "from setuptools import setup\nsetup(name='demo', classifiers=[\n"
    "    'Programming Language :: Python :: 2.7',\n    'Programming Language :: Python :: 3',\n])\n"
)


def test_a_project_listing_python_2_classifiers_is_not_judged(git_repo: GitRepo) -> None:
    """requests 31d10c0b (2012): a `print r` in a project that supported 2.6/2.7 and declared no
    python_requires, only classifiers."""
    base = {"setup.py": CLASSIFIERS_2_AND_3, "tool.py": "def show(r):\n    return r\n"}
    run = review(git_repo, base, {"tool.py": "def show(r):\n    print r\n    return r\n"})
    assert sites(run, "syntax-error") == []


def test_python_2_code_in_a_project_that_declares_nothing_is_not_judged(git_repo: GitRepo) -> None:
    """werkzeug 1f35c8a2 (2009): `except KeyError, e:` in a Python 2 project with no declaration."""
    base = {"lookup.py": "def get(d, k):\n    return d[k]\n"}
    py2 = "def get(d, k):\n    try:\n        return d[k]\n    except KeyError, e:\n        return None\n"
    run = review(git_repo, base, {"lookup.py": py2})
    assert sites(run, "syntax-error") == []


@pytest.mark.parametrize(
    "line",
    [
        "title = ur'Mako Documentation'",
        "shown = `value`",
        "same = 1 <> 2",
        "def bind(self, (ip, port)):\n    return ip",
        "same = lambda (a, b): a == b",  # enaml a510e6a4 (2014)
        "def get(self, name):\n    raise AttributeError, name",
    ],
)
def test_python_2_tokens_in_a_project_declaring_nothing_are_not_judged(git_repo: GitRepo, line: str) -> None:
    """mako 5d4575af (2010): a new Sphinx `conf.py` with `ur'Mako Documentation'`; the project ran 2to3 for
    Python 3 and declared only a bare `Python :: 3` classifier."""
    run = review(git_repo, {"app.py": "value = 1\n"}, {"doc/conf.py": f"value = 1\n{line}\n"})
    assert sites(run, "syntax-error") == []


def test_the_same_tokens_beside_python_3_syntax_are_a_syntax_error(git_repo: GitRepo) -> None:
    head = "def show(value) -> str:\n    return `value`\n"
    run = review(git_repo, {"app.py": "value = 1\n"}, {"app.py": head})
    assert sites(run, "syntax-error") == [("app.py", 2)]


def test_a_print_statement_in_a_python_3_file_is_still_a_syntax_error(git_repo: GitRepo) -> None:
    base = {"app.py": "def greet(name: str) -> str:\n    return f'hi {name}'\n"}
    head = "def greet(name: str) -> str:\n    print name\n    return f'hi {name}'\n"
    run = review(git_repo, base, {"app.py": head})
    assert sites(run, "syntax-error") == [("app.py", 2)]


def test_a_stub_is_parsed_with_the_current_grammar(git_repo: GitRepo) -> None:
    """attrs 2f6fd851: a .pyi stub with annotations, in a project whose python_requires admits 2.7."""
    base = {"setup.cfg": "[options]\npython_requires = >=2.7\n", "pkg/__init__.py": "X = 1\n"}
    run = review(git_repo, base, {"pkg/__init__.pyi": "X: int\n", "pkg/new.py": "y: int = 1\n"})
    assert sites(run, "syntax-error") == [("pkg/new.py", 1)]  # the module itself still runs on 2.7


PY3_CLASSIFIERS = (
    '[project]\nname = "demo"\nclassifiers = [\n    "Programming Language :: Python :: 3 :: Only",\n'
    '    "Programming Language :: Python :: 3.7",\n    "Programming Language :: Python :: 3.6",\n]\n'
)


def test_python_3_classifiers_target_the_oldest_release_they_list(git_repo: GitRepo) -> None:
    """fastapi (2019-2023): `async def` and annotations are fine under the 3.6 the classifiers list,
    not Python 3.0; the walrus is not."""
    base = {"pyproject.toml": PY3_CLASSIFIERS, "app.py": "X = 1\n"}
    head = "async def get(x: int) -> int:\n    return x\n\n\nif (y := 2):\n    pass\n"
    run = review(git_repo, base, {"app.py": head})
    assert [(f.line, "3.6" in f.message) for f in run.findings if f.rule == "syntax-error"] == [(5, True)]


@pytest.mark.parametrize(
    "pyproject",
    [
        '[tool.flit.metadata]\nmodule = "demo"\nrequires-python = ">=3.6"\n',
        '[tool.poetry.dependencies]\npython = "^3.6"\n',
    ],
)
def test_flit_and_poetry_declarations_are_read(git_repo: GitRepo, pyproject: str) -> None:
    base = {"pyproject.toml": pyproject, "app.py": "X = 1\n"}
    run = review(git_repo, base, {"app.py": "async def get(x: int) -> int:\n    return (y := x)\n"})
    assert [f.line for f in run.findings if f.rule == "syntax-error"] == [2]


def test_a_bare_python_3_classifier_sets_no_target(git_repo: GitRepo) -> None:
    """flask 0b2556f3 (2015): setup.py listed only `Python :: 3` while flask still ran on 2.6/2.7; a
    scratch script's `print red.dumps()` is Python 2 code, not a broken Python 3 file."""
    setup = "from setuptools import setup\nsetup(classifiers=['Programming Language :: Python :: 3'])\n"
    base = {"setup.py": setup, "scripts/migrate.py": "X = 1\n"}
    run = review(git_repo, base, {"scripts/migrate.py": "def show(red):\n    print red.dumps()\n"})
    assert sites(run, "syntax-error") == []


CONFTEST = (
    "import sys\n\ncollect_ignore = []\nif sys.version_info[:2] < (3, 6):\n"
    "    collect_ignore.extend(['tests/test_hooks.py'])\n"
)


def test_a_test_file_pytest_ignores_below_its_syntax_is_not_judged_by_the_old_target(
    git_repo: GitRepo,
) -> None:
    """attrs 0eae613c: annotations in a new test file that conftest.py ignores below Python 3.6."""
    base = {"setup.cfg": "[options]\npython_requires = >=2.7\n", "conftest.py": CONFTEST, "a.py": "X = 1\n"}
    new = "import attr\n\n\nclass C:\n    z: float = attr.ib()\n"
    run = review(git_repo, base, {"tests/test_hooks.py": new, "tests/test_other.py": new})
    assert sites(run, "syntax-error") == [("tests/test_other.py", 5)]


def test_the_docs_own_code_is_judged_under_the_docs_build_s_python(git_repo: GitRepo) -> None:
    # falcon 28cf4237: a Sphinx extension with an f-string in a project that admits Python 3.5, whose docs
    # are built by tox's `[testenv:docs]` with python3.8; the package's own files still get 3.5
    tox = (
        "[tox]\nenvlist = py35\n\n[testenv:docs]\nbasepython = python3.8\ncommands = sphinx-build docs out\n"
    )
    base = {"setup.cfg": "[options]\npython_requires = >=3.5\n", "tox.ini": tox, "docs/conf.py": "x = 1\n"}
    fstring = "def label(x):\n    return f'{x}'\n"
    run = review(git_repo, base, {"docs/ext/private_args.py": fstring, "pkg.py": fstring})
    assert sites(run, "syntax-error") == [("pkg.py", 2)]


def test_python_2_code_whose_docstrings_show_arrows_is_still_python_2(git_repo: GitRepo) -> None:
    # kombu 209b1f33 (2010, no declared Python): `except catch, exc:` in a file whose docstrings say
    # `partition(S, sep) -> (head, sep, tail)`; a real annotation would make it Python 3 code
    py2 = 'def partition(s, sep):\n    """partition(S, sep) -> (head, sep, tail)"""\n    return s\n'
    changed = (
        py2 + "\n\ndef retry(fun, catch):\n    try:\n        fun()\n    except catch, exc:\n        pass\n"
    )
    run = review(git_repo, {"utils.py": py2}, {"utils.py": changed})
    assert sites(run, "syntax-error") == []


def test_examples_and_tests_tox_runs_only_under_newer_pythons_are_not_judged_by_the_old_target(
    git_repo: GitRepo,
) -> None:
    """aiokafka 7a5e2e76 / asyncssh d0e904c9: `await` in examples of a project that lists Python 3.4;
    asyncssh 6adc6303: `tests_py35/`, which tox runs only in `py35,py36:` commands. A genuine syntax error
    in an example, and a 3.5 file the unconditional command also reads, are still reported."""
    tox = (
        "[tox]\nenvlist = py34, py35\n\n[testenv]\ncommands =\n"
        "    {envpython} -m unittest discover -s tests\n"
        "    py35,py36: {envpython} -m unittest discover -s tests_py35\n"
    )
    base = {"setup.cfg": "[options]\npython_requires = >=3.4\n", "tox.ini": tox, "pkg.py": "X = 1\n"}
    awaiting = "async def main(client):\n    await client.start()\n"
    run = review(
        git_repo,
        base,
        {
            "examples/batch_produce.py": awaiting,
            "examples/broken.py": "def main(:\n    pass\n",
            "tests_py35/test_process.py": awaiting,
            "tests/test_new.py": awaiting,
        },
    )
    assert sites(run, "syntax-error") == [("examples/broken.py", 1), ("tests/test_new.py", 2)]


def test_a_new_file_among_neighbours_that_already_need_a_newer_python_is_not_judged_by_the_old_target(
    git_repo: GitRepo,
) -> None:
    """aiopg 9fdf7b92: a new test with `await` among tests that all have it, while setup.py still lists
    Python 3.4. A package file whose neighbours all parse under 3.4 is still reported (aiomysql 83252b36,
    which moved the package to `await` while listing 3.3: fixed the same day by dropping old Pythons)."""
    base = {
        "setup.cfg": "[options]\npython_requires = >=3.4\n",
        "tests/test_old.py": "async def test_connect(conn):\n    await conn.ping()\n",
        "pkg/util.py": "def f(x):\n    return x\n",
    }
    awaiting = "async def main(client):\n    await client.start()\n"
    run = review(git_repo, base, {"tests/test_cursor.py": awaiting, "pkg/pool.py": awaiting})
    assert sites(run, "syntax-error") == [("pkg/pool.py", 2)]


def test_syntax_newer_than_the_running_python_is_not_called_an_error(git_repo: GitRepo) -> None:
    """loguru 3fb23a4f adds a test of Python 3.14's template strings (`t"Hello"`): this interpreter
    cannot parse them, which says nothing about the code. A genuine error is still reported."""
    template = 'def hello():\n    output = t"Hello" + t\' \' + t"""World"""\n    return output\n'
    broken = "def hello(:\n    return 1\n"
    run = review(git_repo, {"a.py": "X = 1\n"}, {"tests/modern/t_string.py": template, "b.py": broken})
    assert sites(run, "syntax-error") == [("b.py", 1)]


def test_a_new_file_of_a_package_whose_other_modules_already_need_a_newer_python_is_not_judged(
    git_repo: GitRepo,
) -> None:
    """python-zeroconf e50b62bb moves a class to a new `zeroconf/services/types.py`, its type comment now a
    variable annotation, while setup.py still lists Python 3.5: `zeroconf/core.py` already had them. A
    package whose modules all parse under 3.5 is still judged."""
    base = {
        "setup.py": "from setuptools import setup\n\nsetup(python_requires='>=3.5')\n",
        "zeroconf/__init__.py": "",
        "zeroconf/core.py": "class Core:\n    def __init__(self):\n        self.names: list = []\n",
        "zeroconf/services/__init__.py": "",
        "plain/__init__.py": "",
        "plain/util.py": "def f(x):\n    return x\n",
        "plain/services/__init__.py": "",
    }
    annotated = "class Types:\n    def __init__(self):\n        self.found: set = set()\n"
    run = review(
        git_repo, base, {"zeroconf/services/types.py": annotated, "plain/services/types.py": annotated}
    )
    assert sites(run, "syntax-error") == [("plain/services/types.py", 3)]


def test_a_test_subpackage_is_judged_by_its_own_folder_only(git_repo: GitRepo) -> None:
    """aiomysql 83252b36 turns `tests/sa/` to `await` while setup.py lists Python 3.4 and `tests/` already
    holds `async def` tests: each test file runs on its own, so `tests/sa/` still ran on 3.4 until now."""
    base = {
        "setup.cfg": "[options]\npython_requires = >=3.4\n",
        "tests/__init__.py": "",
        "tests/test_async.py": "async def test_ping(conn):\n    await conn.ping()\n",
        "tests/sa/__init__.py": "",
    }
    awaiting = "async def test_connect(engine):\n    await engine.acquire()\n"
    run = review(git_repo, base, {"tests/sa/test_sa_connection.py": awaiting})
    assert sites(run, "syntax-error") == [("tests/sa/test_sa_connection.py", 2)]


@pytest.mark.parametrize(("oldest", "expected"), [("3.6", []), ("3.5", [("helpers.py", 2)])])
def test_a_requirement_older_than_every_classifier_is_taken_as_stale(
    git_repo: GitRepo, oldest: str, expected: list[tuple[str, int]]
) -> None:
    """django-axes b46e7cce drops Python 3.5 (its classifier, its tox environment) and leaves
    `python_requires='~=3.5'`: f-strings are what the project now means. While 3.5 is still listed, they
    are an error under it."""
    setup = (
        "from setuptools import setup\nsetup(name='demo', python_requires='~=3.5', classifiers=[\n"
        f"    'Programming Language :: Python :: {oldest}',\n"
        "    'Programming Language :: Python :: 3.7',\n])\n"
    )
    base = {"setup.py": setup, "helpers.py": "def show(x):\n    return x\n"}
    run = review(git_repo, base, {"helpers.py": "def show(x):\n    return f'{x}'\n"})
    assert sites(run, "syntax-error") == expected


def test_a_file_named_for_its_python_is_judged_by_that_python(git_repo: GitRepo) -> None:
    """wrapt 49c9f882: `tests/test_formatargspec_py38.py` has positional-only parameters in a project that
    admits 2.7; its conftest gives pytest an empty collector for `_py38` files below 3.8. A `_py35` file
    with 3.8 syntax is still reported: the Python its name promises cannot read it."""
    base = {"setup.cfg": "[options]\npython_requires = >=2.7\n", "a.py": "X = 1\n"}
    new = "def name1(p1, p2, /, p_or_kw, *, kw):\n    pass\n"
    pr = {"tests/test_formatargspec_py38.py": new, "tests/test_formatargspec_py35.py": new}
    run = review(git_repo, base, pr)
    assert sites(run, "syntax-error") == [("tests/test_formatargspec_py35.py", 1)]


def test_a_project_declaring_no_python_may_still_use_async_as_a_name(git_repo: GitRepo) -> None:
    """aiodocker 06d17912 (2014, no declared Python): `asyncio.async(...)` was valid until 3.7 made `async`
    a keyword. A genuine syntax error in the same PR is still reported."""
    base = {"pkg/__init__.py": "", "pkg/a.py": "X = 1\n"}
    pr = {"pkg/events.py": "import asyncio\n\nasyncio.async(x)\n", "pkg/broken.py": "def f(:\n    pass\n"}
    run = review(git_repo, base, pr)
    assert sites(run, "syntax-error") == [("pkg/broken.py", 1)]


def test_excluded_python_3_series_raise_the_lowest_python_3(git_repo: GitRepo) -> None:
    """odmantic 7b55cb10: `python_requires=">=2.7, !=3.0.*, ..., !=3.4.*"` admits 3.5 first, not 3.0:
    `await` is fine, an f-string is not."""
    spec = ">=2.7, !=3.0.*, !=3.1.*, !=3.2.*, !=3.3.*, !=3.4.*"
    base = {"setup.cfg": f"[options]\npython_requires = {spec}\n", "a.py": "X = 1\n"}
    pr = {"b.py": "async def f(x):\n    await x\n", "c.py": "def f(x):\n    return f'{x}'\n"}
    run = review(git_repo, base, pr)
    found = [f for f in run.findings if f.rule == "syntax-error"]
    assert [(f.path, f.line) for f in found] == [("c.py", 2)]
    assert "under Python 3.5" in found[0].message


def test_a_changed_neighbour_that_already_needed_a_newer_python_tells_the_target_is_stale(
    git_repo: GitRepo,
) -> None:
    """odmantic 7b55cb10: `model.py` had variable annotations at the parent, under a target admitting 3.5;
    the PR changes it and adds an f-string to `exceptions.py` beside it."""
    base = {
        "setup.cfg": "[options]\npython_requires = >=3.5\n",
        "pkg/__init__.py": "",
        "pkg/model.py": "x: int = 1\n",
        "pkg/exceptions.py": "X = 1\n",
    }
    pr = {"pkg/model.py": "x: int = 2\n", "pkg/exceptions.py": "def f(x):\n    return f'{x}'\n"}
    run = review(git_repo, base, pr)
    assert sites(run, "syntax-error") == []


IPC = """class RemoteMethodCall(object):
    def __init__(self, methodname, args=None, async=False):
        self.methodname = methodname
        self.async = async

    def call(self, obj):
        if not hasattr(obj, self.methodname):
            raise AssertionError, 'BUG: Invalid method name: %s' % self.methodname
        try:
            return getattr(obj, self.methodname)()
        except Exception, error:
            return error
"""


@pytest.mark.parametrize(("trailer", "expected"), [("", []), ("\n\nasync def later():\n    pass\n", [2])])
def test_a_python_2_file_using_async_as_a_name_is_python_2_code(
    git_repo: GitRepo, trailer: str, expected: list[int]
) -> None:
    """zim ccf57379f2 (2012, Python 2 only, no declared Python): `zim/ipc.py` takes `async=False` and
    catches `except Exception, error:`. Python 3.6's grammar accepts the name and stops at the Python 2
    `raise E, message`: the file is Python 2 code. (`self.async = async` followed by a `def` on a later
    line is not `async def`.) With a real `async def` in it, the file is Python 3 and reported."""
    base = {"pkg/__init__.py": "", "pkg/a.py": "X = 1\n"}
    run = review(git_repo, base, {"pkg/ipc.py": IPC + trailer})
    assert [line for _path, line in sites(run, "syntax-error")] == expected


@pytest.mark.parametrize(("literal", "expected"), [("0L", []), ("0xffL", []), ("0lx", [3])])
def test_a_long_literal_is_python_2_code(git_repo: GitRepo, literal: str, expected: list[int]) -> None:
    """rdiff-backup 194cda32f6 (2003, no declared Python) adds a test passing `C.long2str(0L)`: Python 3
    calls it an invalid decimal literal, and it is Python 2's long. A literal no Python reads (`0lx`) is
    still reported."""
    base = {"pkg/__init__.py": "", "pkg/a.py": "X = 1\n"}
    test = f"def test_flush(C):\n    return C.long2str(\n        {literal})\n"
    run = review(git_repo, base, {"tests/test_flush.py": test})
    assert [line for _path, line in sites(run, "syntax-error")] == expected
