"""override-mismatch: the decisions issue 20 asks for (a base's new `**kw`; a positional parameter renamed
in the base) and overrides in classes defined inside test functions."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

BASE = """\
class Sink:
    def send(self, data):
        return data
"""
OVERRIDE = """\
from pkg.base import Sink


class FileSink(Sink):
    def send(self, data):
        return data
"""


def _overrides(git_repo: GitRepo, new_base: str, extra: dict[str, str]) -> list[tuple[str, int]]:
    base = {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/file.py": OVERRIDE, **extra}
    run = review(git_repo, base, {"pkg/base.py": new_base})
    assert run.errors == []
    return sites(run, "override-mismatch")


def test_a_new_kw_no_call_uses_is_not_reported(git_repo: GitRepo) -> None:
    new = BASE.replace("def send(self, data)", "def send(self, data, **kw)")
    assert _overrides(git_repo, new, {"pkg/use.py": "def go(s):\n    s.send(1)\n"}) == []


def test_a_new_kw_a_call_uses_is_reported(git_repo: GitRepo) -> None:
    new = BASE.replace("def send(self, data)", "def send(self, data, **kw)")
    use = "from pkg.base import Sink\n\n\ndef go(s: Sink):\n    s.send(1, flush=True)\n"
    assert _overrides(git_repo, new, {"pkg/use.py": use}) == [("pkg/file.py", 5)]


def test_a_renamed_parameter_is_reported_only_when_a_call_passes_the_new_name(git_repo: GitRepo) -> None:
    new = BASE.replace(
        "def send(self, data):\n        return data", "def send(self, payload):\n        return payload"
    )
    positional = (
        "from pkg.base import Sink\n\n\ndef go(s: Sink, kwargs):\n    s.send(1)\n    s.send(**kwargs)\n"
    )
    assert _overrides(git_repo, new, {"pkg/use.py": positional}) == []


def test_a_renamed_parameter_passed_by_its_new_name(git_repo: GitRepo) -> None:
    new = BASE.replace(
        "def send(self, data):\n        return data", "def send(self, payload):\n        return payload"
    )
    named = "from pkg.base import Sink\n\n\ndef go(s: Sink):\n    s.send(payload=1)\n"
    assert _overrides(git_repo, new, {"pkg/use.py": named}) == [("pkg/file.py", 5)]


def test_an_override_in_a_class_defined_inside_a_test(git_repo: GitRepo) -> None:
    test = """\
from pkg.base import Sink


def test_sink():
    class Quiet(Sink):
        def send(self, data):
            return None

    assert Quiet().send(1) is None
"""
    new = BASE.replace("def send(self, data)", "async def send(self, data)")
    found = _overrides(git_repo, new, {"tests/test_sink.py": test})
    assert found == [("pkg/file.py", 5), ("tests/test_sink.py", 6)]


def test_an_override_with_a_repository_decorator_that_keeps_its_parameters(git_repo: GitRepo) -> None:
    utils = """\
import functools


def copy_doc(original):
    def decorator(func):
        func.__doc__ = original.__doc__
        return func

    return decorator


def retry(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


def reshape(func):
    def other(x):
        return func(x, 1)

    return other
"""
    overrides = """\
from pkg.base import Sink
from pkg.utils import copy_doc, reshape, retry


class Documented(Sink):
    @copy_doc(Sink.send)
    def send(self, data):
        return data


class Retried(Sink):
    @retry
    def send(self, data):
        return data


class Reshaped(Sink):
    @reshape
    def send(self, data, extra):
        return data
"""
    new = BASE.replace("def send(self, data)", "async def send(self, data)")
    found = _overrides(git_repo, new, {"pkg/utils.py": utils, "pkg/more.py": overrides})
    assert found == [("pkg/file.py", 5), ("pkg/more.py", 7), ("pkg/more.py", 13)]


def test_an_args_override_of_a_parameter_a_call_passes_by_keyword(git_repo: GitRepo) -> None:
    override = (
        "from pkg.base import Sink\n\n\nclass Star(Sink):\n    def send(self, *args):\n        return args\n"
    )
    new = BASE.replace("def send(self, data)", "def send(self, data, flush=False)")
    use = "from pkg.base import Sink\n\n\ndef go(s: Sink):\n    s.send(1, flush=True)\n"
    found = _overrides(git_repo, new, {"pkg/star.py": override, "pkg/use.py": use})
    assert ("pkg/star.py", 5) in found
