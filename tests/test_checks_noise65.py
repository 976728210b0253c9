"""False alarms of the real-history noise check left from rounds 20, 22 and 23 (`bench/noise63-*`,
`bench/noise65-*`, `bench/noise66-*`, issue 20), each rebuilt as a small repository of that shape."""

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


TIME_SHIM = """def strftime(fmt, t=None):
    return fmt


def ticks_ms():
    return 0
"""
COOKIES = """import time


def expires(when):
    return time.{call}("%a, %d %b %Y", when)
"""


@pytest.mark.parametrize(("call", "expected"), [("strftime", []), ("ticks_ms", [5])])
def test_a_deleted_module_named_like_a_standard_one_leaves_the_standard_one(
    git_repo: GitRepo, call: str, expected: list[int]
) -> None:
    """microdot 79452a4699 deletes `libs/micropython/time.py`, the copy of micropython-lib its MicroPython
    tests put on the path: `import time` now finds the standard library's module, which has
    `strftime`. A name the standard module lacks (`ticks_ms`, MicroPython's own) is still gone."""
    files = {
        "libs/micropython/time.py": TIME_SHIM,
        "src/microdot/__init__.py": "",
        "src/microdot/cookies.py": COOKIES.format(call=call),
    }
    run = review(git_repo, files, {"libs/micropython/time.py": None})
    found = [line for path, line in sites(run, "dangling-reference") if path == "src/microdot/cookies.py"]
    assert found == expected


TASKS = """class Task:
    def __init__(self, main_kwargs=None):
        self._main_kwargs = main_kwargs or {}

    def __call__(self):
        kwargs = dict(self._main_kwargs)
        return self._main(**kwargs)

    def _main(self, **kwargs):
        raise NotImplementedError("_main() must be implemented")
"""
DOWNLOAD = """from pkg.tasks import Task


class GetObjectTask(Task):
    def _main(self, client, bucket, key{extra}):
        return (client, bucket, key)


def run(client):
    return GetObjectTask({{"client": client, "bucket": "b", "key": "k"}})(){direct}
"""


@pytest.mark.parametrize(
    ("direct", "expected"),
    [("", []), ("\n\n\ndef peek(task):\n    return task._main(client=1, bucket=2, key=3)\n", [5])],
)
def test_a_stub_taking_only_keywords_called_with_a_built_dictionary(
    git_repo: GitRepo, direct: str, expected: list[int]
) -> None:
    """s3transfer 883903de19 gives `GetObjectTask._main` a required `io_executor`. The base
    `Task._main(self, **kwargs)` is a stub that names no parameter, and `Task.__call__` calls it with the
    task's own dictionary (`self._main(**kwargs)`), which the PR fills for the new parameter: nothing
    promised a call without it. A call written out without the new parameter is still reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/tasks.py": TASKS,
        "pkg/download.py": DOWNLOAD.format(extra="", direct=direct),
    }
    after = DOWNLOAD.format(extra=", io_executor", direct=direct)
    run = review(git_repo, files, {"pkg/download.py": after})
    assert [line for path, line in sites(run, "override-mismatch") if path == "pkg/download.py"] == expected


REQUEST = """class SlackRequest(object):
    @staticmethod
    def do(self, token, request="?", post_data=None):
        return (token, request, post_data)
"""
SERVER = """from pkg.request import SlackRequest


class Server:
    def __init__(self, token):
        self.token = token
        self.api_requester = SlackRequest()

    def connect(self):
        return self.api_requester.do({first}, "rtm.start")
"""


@pytest.mark.parametrize(("first", "expected"), [("self.token", []), ("self.secret", [10])])
def test_a_stray_self_dropped_from_a_static_method(
    git_repo: GitRepo, first: str, expected: list[int]
) -> None:
    """python-slack-sdk fe0ecb0a12 drops the stray `self` of the `@staticmethod`
    `do(self, token, request="?")`. `do(self.token, "rtm.start")` sent the token as `self` and the method
    name as the token; now each argument lands where its name says. An argument not named like its new
    parameter gives no such sign, and the shift is reported."""
    files = {"pkg/__init__.py": "", "pkg/request.py": REQUEST, "pkg/server.py": SERVER.format(first=first)}
    after = REQUEST.replace("def do(self, token", "def do(token")
    run = review(git_repo, files, {"pkg/request.py": after})
    assert [line for path, line in sites(run, "breaking-call") if path == "pkg/server.py"] == expected


COLLECTION = """class ItemCollection:
    def save(self, include_self_link=True):
        return include_self_link


class SingleFileSTAC(ItemCollection):
    def save(self, uri):
        return uri
"""
SAVING = """from pkg.collection import ItemCollection, SingleFileSTAC


def store(uri):
    SingleFileSTAC().save(uri)
    ItemCollection().save(False)
"""


def test_a_call_that_reached_the_override_the_pr_removes(git_repo: GitRepo) -> None:
    """pystac e798fbf5be drops `SingleFileSTAC.save(uri)` and gives the inherited
    `ItemCollection.save(include_self_link=True)` a leading `href`: `SingleFileSTAC().save(uri)` never met
    the old signature, and the path now lands on `href`, as meant. A call of the base class's own instance
    still shifts onto `href`, and is reported."""
    files = {"pkg/__init__.py": "", "pkg/collection.py": COLLECTION, "pkg/saving.py": SAVING}
    after = COLLECTION.replace(
        "def save(self, include_self_link=True):", "def save(self, href=None, include_self_link=True):"
    )
    after = after.replace("    def save(self, uri):\n        return uri\n", "    pass\n")
    run = review(git_repo, files, {"pkg/collection.py": after})
    assert [line for path, line in sites(run, "breaking-call") if path == "pkg/saving.py"] == [6]


QUOTING = """import re


def quoted(result):
    return f'r"{re.sub(r'(?<!\\\\)"', r"\\"", result)}"'
"""


@pytest.mark.parametrize(("requires", "expected"), [(">=3.12", []), (">=3.8", [("pkg/quoting.py", 5)])])
def test_an_f_string_reusing_its_quotes_in_a_project_of_python_3_12(
    git_repo: GitRepo, requires: str, expected: list[tuple[str, int]]
) -> None:
    """TatSu c40c1329 writes `f'r"{re.sub(r'(?<!\\\\)"', ...)}"'`, which Python 3.12 parses (PEP 701) and
    this interpreter may not; the project requires 3.12. A project that requires 3.8 cannot run it."""
    files = {
        "pyproject.toml": f'[project]\nname = "pkg"\nrequires-python = "{requires}"\n',
        "pkg/__init__.py": "",
    }
    run = review(git_repo, files, {"pkg/quoting.py": QUOTING})
    assert sites(run, "syntax-error") == expected


URLBASE = """class URLBase:
    @staticmethod
    def parse_url(url, verify_host=True{extra}):
        return (url, verify_host)
"""
NOTIFYBASE = """from pkg.urlbase import URLBase


class NotifyBase(URLBase):
    @staticmethod
    def parse_url(url, verify_host=True{extra}):
        return URLBase.parse_url(url, verify_host=verify_host{passed})
"""
PLUGIN = """from pkg.notifybase import NotifyBase


class NotifyEmail(NotifyBase):
    @staticmethod
    def parse_url(url):
        return NotifyBase.parse_url(url, verify_host=False)
"""
UTILS = """def parse_url(url, plus_to_space=False):
    return url.replace("+", " ") if plus_to_space else url
"""
UTILS_TEST = """from pkg import utils


def test_parse_url():
    assert utils.parse_url("a+b", plus_to_space=True) == "a b"
"""
LOADER = """def load(plugin, url):
    return plugin.parse_url(url{argument})
"""


@pytest.mark.parametrize(("argument", "expected"), [("", []), (", plus_to_space=True", [6])])
def test_a_new_parameter_only_a_class_above_and_a_module_function_are_given(
    git_repo: GitRepo, argument: str, expected: list[int]
) -> None:
    """apprise 32992fa641 gives `URLBase.parse_url` and `NotifyBase.parse_url` a `plus_to_space`; the
    plugins' `parse_url(url)` overrides lack it. Nothing asks a plugin for it: `NotifyBase` hands it on to
    `URLBase.parse_url`, spelled on a class above it (no plugin runs there), and the test's
    `utils.parse_url(..., plus_to_space=True)` is a function of the module `from pkg import utils` binds.
    A call that asks a plugin for it is still reported. Also the review's speed: the 100 overrides used
    to parse every file again for each (the memo of trees held 64), and the review ran out of time."""
    files = {
        "pkg/__init__.py": "",
        "pkg/urlbase.py": URLBASE.format(extra=""),
        "pkg/notifybase.py": NOTIFYBASE.format(extra="", passed=""),
        "pkg/plugins.py": PLUGIN,
        "pkg/utils.py": UTILS,
        "pkg/loader.py": LOADER.format(argument=argument),
        "tests/test_utils.py": UTILS_TEST,
    }
    extra = ", plus_to_space=False"
    changes = {
        "pkg/urlbase.py": URLBASE.format(extra=extra),
        "pkg/notifybase.py": NOTIFYBASE.format(extra=extra, passed=", plus_to_space=plus_to_space"),
    }
    run = review(git_repo, files, changes)
    assert [line for path, line in sites(run, "override-mismatch") if path == "pkg/plugins.py"] == expected


SETTINGS = """from typing import NamedTuple


class Settings(NamedTuple):
    base_url: str
    fast_forward: bool = False
"""
MERGING = """from pkg.settings import Settings


def default_settings():
    return Settings("https://example.com")
"""


@pytest.mark.parametrize(("moved", "expected"), [(True, []), (False, [5])])
def test_named_tuple_defaults_set_after_the_class(
    git_repo: GitRepo, moved: bool, expected: list[int]
) -> None:
    """all-repos e0b38ff159 moves a NamedTuple's defaults out of the class body, for Python 3.6.0, and sets
    them right after it: `Settings.__new__.__defaults__ = (False,)`. `Settings(url)` still builds. A
    default dropped for good breaks the call, which is reported."""
    after = SETTINGS.replace("fast_forward: bool = False", "fast_forward: bool")
    if moved:
        after += "\n\nSettings.__new__.__defaults__ = (False,)\n"
    files = {"pkg/__init__.py": "", "pkg/settings.py": SETTINGS, "pkg/merging.py": MERGING}
    run = review(git_repo, files, {"pkg/settings.py": after})
    assert [line for path, line in sites(run, "breaking-call") if path == "pkg/merging.py"] == expected
