"""Receiver types the shared inference (analysis/intel/infer) works out, each from a small repository of
that shape (issue 20). The probe is async-mismatch, which reports only receivers whose type is known:
`Writer.send` becomes `async def`, and every caller that still calls it the old way is found."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

WRITER = """\
class Writer:
    def __init__(self, path):
        self.path = path

    def send(self, data):
        return len(data)


class Other:
    def send(self, data):
        return 0
"""
ASYNC_WRITER = WRITER.replace(
    "    def send(self, data):\n        return len(data)",
    "    async def send(self, data):\n        return len(data)",
)


def _stale(git_repo: GitRepo, files: dict[str, str]) -> list[tuple[str, int]]:
    base = {"pkg/__init__.py": "", "pkg/writer.py": WRITER, **files}
    run = review(git_repo, base, {"pkg/writer.py": ASYNC_WRITER})
    assert run.errors == []
    return sites(run, "async-mismatch")


def test_a_fixture_of_the_same_module(git_repo: GitRepo) -> None:
    test = """\
import pytest
from pkg.writer import Writer


@pytest.fixture
def writer():
    return Writer("a")


def test_send(writer):
    writer.send(b"x")
"""
    assert _stale(git_repo, {"tests/test_w.py": test}) == [("tests/test_w.py", 11)]


def test_a_conftest_fixture_with_a_name_a_yield_and_another_fixture(git_repo: GitRepo) -> None:
    conftest = """\
import pytest
from pkg.writer import Writer


@pytest.fixture
def path(tmp_path):
    return tmp_path / "out"


@pytest.fixture(name="w")
def make_writer(path):
    made = Writer(path)
    yield made


@pytest.fixture
def wrapped(w):
    return w
"""
    test = """\
def test_send(w, wrapped, tmp_path):
    w.send(b"x")
    wrapped.send(b"y")
    (tmp_path / "f").write_bytes(b"z")
"""
    found = _stale(git_repo, {"tests/conftest.py": conftest, "tests/unit/test_w.py": test})
    assert found == [("tests/unit/test_w.py", 2), ("tests/unit/test_w.py", 3)]


def test_an_annotated_fixture_and_an_iterator_fixture(git_repo: GitRepo) -> None:
    test = """\
from collections.abc import Iterator

import pytest
from pkg import writer as wmod


@pytest.fixture
def a() -> wmod.Writer:
    return make()


@pytest.fixture
def b() -> Iterator[wmod.Writer]:
    yield make()


def make():
    return object()


class TestSend:
    @pytest.fixture
    def c(self):
        return wmod.Writer("c")

    def test_send(self, a, b, c):
        a.send(1)
        b.send(2)
        c.send(3)
"""
    found = _stale(git_repo, {"tests/test_w.py": test})
    assert found == [("tests/test_w.py", 27), ("tests/test_w.py", 28), ("tests/test_w.py", 29)]


def test_an_untyped_parameter_whose_callers_all_pass_one_class(git_repo: GitRepo) -> None:
    code = """\
from pkg.writer import Other, Writer


def flush(sink, data):
    sink.send(data)


def mixed(sink):
    sink.send(1)


def main():
    flush(Writer("a"), b"x")
    flush(sink=Writer("b"), data=b"y")
    mixed(Other())
"""
    assert _stale(git_repo, {"pkg/app.py": code}) == [("pkg/app.py", 5)]


def test_an_attribute_set_from_a_parameter_in_init(git_repo: GitRepo) -> None:
    code = """\
from pkg.writer import Writer


class Service:
    def __init__(self, writer):
        self._writer = writer

    def run(self):
        self._writer.send(b"x")


class Typed:
    _writer: Writer

    def run(self):
        self._writer.send(b"y")


def main():
    return Service(Writer("a"))
"""
    assert _stale(git_repo, {"pkg/service.py": code}) == [("pkg/service.py", 9), ("pkg/service.py", 16)]


def test_unannotated_returns_and_containers(git_repo: GitRepo) -> None:
    code = """\
import contextlib
import functools

from pkg.writer import Writer


def make():
    return Writer("a")


@contextlib.contextmanager
def opened():
    yield Writer("b")


class Pool:
    def __init__(self):
        self._conn = Writer("c")
        self._writers = []
        self._by_name = {}

    def add(self, name):
        self._writers.append(Writer(name))
        self._by_name[name] = Writer(name)

    def conn(self):
        return self._conn

    def run(self):
        for w in self._writers:
            w.send(1)
        self._by_name["a"].send(2)
        for name, w in self._by_name.items():
            w.send(3)
        self.conn().send(4)


def main():
    x = make()
    x.send(5)
    with opened() as y:
        y.send(6)
    partial = functools.partial(Writer, "d")
    partial().send(7)
"""
    found = _stale(git_repo, {"pkg/pool.py": code})
    assert found == [("pkg/pool.py", line) for line in (31, 32, 34, 35, 40, 42, 44)]


def test_a_class_defined_inside_a_test_function(git_repo: GitRepo) -> None:
    test = """\
from pkg.writer import Writer


def test_subclass():
    class Loud(Writer):
        def shout(self):
            self.send(b"!")

    loud = Loud("a")
    loud.send(b"x")
"""
    assert _stale(git_repo, {"tests/test_sub.py": test}) == [
        ("tests/test_sub.py", 7),
        ("tests/test_sub.py", 10),
    ]


def test_another_class_with_a_method_of_the_same_name_is_not_the_changed_class(git_repo: GitRepo) -> None:
    code = """\
import subprocess

import pytest
from pkg.writer import Other


@pytest.fixture
def other():
    return Other()


def test_other(other, tmp_path):
    other.send(1)
    proc = subprocess.Popen(["true"])
    proc.send_signal(2)
    (tmp_path / "f").send(3)
"""
    assert _stale(git_repo, {"tests/test_o.py": code}) == []


def test_isinstance_getattr_and_a_generic_result(git_repo: GitRepo) -> None:
    code = """\
from typing import TypeVar

from pkg.writer import Writer

T = TypeVar("T")


class Hub:
    def __getattr__(self, name) -> Writer:
        return Writer(name)

    def query_one(self, selector, kind: type[T]) -> T:
        return kind(selector)


def narrowed(value):
    if isinstance(value, Writer):
        value.send(1)


def dynamic(hub: Hub):
    hub.logs.send(2)
    hub.query_one("#w", Writer).send(3)
"""
    assert _stale(git_repo, {"pkg/hub.py": code}) == [
        ("pkg/hub.py", 18),
        ("pkg/hub.py", 22),
        ("pkg/hub.py", 23),
    ]


def test_a_lambda_whose_body_is_a_conditional_expression(git_repo: GitRepo) -> None:
    # sympy b9aadd8f: `lambda x: f(x) if c else g(x)` crashed the scope table (an `IfExp` body is no block)
    use = """\
from pkg.writer import Writer


def go(flag):
    pick = lambda w: w.send(b"x") if flag else None
    writer = Writer("p")
    writer.send(b"y")
    return pick(writer)
"""
    assert _stale(git_repo, {"pkg/use.py": use}) == [("pkg/use.py", 7)]


def test_a_lambda_handed_to_a_function_that_calls_it_on_each_element(git_repo: GitRepo) -> None:
    # discord's `utils.find(lambda r: r.is_everyone(), self.roles)`: `find` calls its predicate with each
    # element of its sequence, so `r` is one of the writers; the builtins that do the same are read alike.
    # The probe compares the result (a lambda returning the coroutine would hand it on)
    utils = """\
def find(predicate, seq):
    for element in seq:
        if predicate(element):
            return element
    return None


def first(seq, predicate):
    return predicate(seq)
"""
    use = """\
from pkg import utils
from pkg.writer import Other, Writer


class Hub:
    def __init__(self):
        self.writers = [Writer(p) for p in "ab"]
        self.others = [Other() for _ in "ab"]

    def busy(self):
        utils.find(lambda w: w.send(b"?") > 0, self.writers)
        utils.find(predicate=lambda w: w.send(b"?") > 0, seq=self.writers)
        list(filter(lambda w: w.send(b"?") > 0, self.writers))
        sorted(self.writers, key=lambda w: w.send(b"?") > 0)
        utils.find(lambda o: o.send(b"?") > 0, self.others)
        utils.first(self.writers, lambda w: w.send(b"?") > 0)
        utils.find(lambda a, b: a.send(b) > 0, self.writers)
"""
    assert _stale(git_repo, {"pkg/utils.py": utils, "pkg/use.py": use}) == [
        ("pkg/use.py", 11),
        ("pkg/use.py", 12),
        ("pkg/use.py", 13),
        ("pkg/use.py", 14),
    ]


def test_a_memoizing_decorator_of_the_repository_keeps_the_result(git_repo: GitRepo) -> None:
    # jedi's `@inference_state_function_cache()`: a factory whose decorator hands the function to
    # `_memoize_default(...)`, whose wrapper returns the function's result or the cache entry it filled
    cache = """\
def _memoize(default=None):
    def func(function):
        def wrapper(*args):
            memo = {}
            key = args
            if key in memo:
                return memo[key]
            rv = function(*args)
            memo[key] = rv
            return rv
        return wrapper
    return func


def cached(default=None):
    def decorator(func):
        return _memoize(default)(func)
    return decorator


def listed(func):
    def wrapper(*args):
        return [func(*args)]
    return wrapper


def deferred(func):
    async def wrapper(*args):
        return func(*args)
    return wrapper
"""
    use = """\
from pkg.cache import cached, deferred, listed
from pkg.writer import Writer


@cached()
def make():
    return Writer("a")


@listed
def many():
    return Writer("b")


@deferred
def later():
    return Writer("c")


def go():
    make().send(b"x") > 0
    many().send(b"y") > 0
    later().send(b"z") > 0
"""
    assert _stale(git_repo, {"pkg/cache.py": cache, "pkg/use.py": use}) == [("pkg/use.py", 21)]


def test_a_module_that_does_not_parse_still_tells_what_its_functions_return(git_repo: GitRepo) -> None:
    # discord's utils.py of 2016 calls `asyncio.async(...)` (no longer Python) in one function: its `find`
    # still parses alone. The file's own calls are not reported (the file is listed as not parsed)
    helpers = """\
import asyncio

from pkg.writer import Writer


def spawn(coro):
    return asyncio.async(coro)


def make():
    return Writer("a")


def inside():
    make().send(b"z") > 0
"""
    use = """\
from pkg import helpers


def go():
    helpers.make().send(b"x") > 0
"""
    assert _stale(git_repo, {"pkg/helpers.py": helpers, "pkg/use.py": use}) == [("pkg/use.py", 5)]


def test_a_parameter_the_call_does_not_pass_holds_its_default(git_repo: GitRepo) -> None:
    # redis-py e2b66fdf: `self.client = self.get_client()` with `def get_client(self, cls=redis.Redis)`
    # is a Redis, though another test calls `get_client(redis.StrictRedis)`
    use = """\
from pkg.writer import Other, Writer


class Case:
    def get(self, cls=Other):
        return cls()

    def setUp(self):
        self.other = self.get()
        self.writer = self.get(Writer)

    def test(self):
        self.other.send(b"x") > 0
        self.writer.send(b"y") > 0
"""
    assert _stale(git_repo, {"pkg/use.py": use}) == [("pkg/use.py", 14)]


def test_a_base_initialiser_called_through_its_class_gets_the_instance_by_hand(git_repo: GitRepo) -> None:
    # html5lib 6d7e57c6: `Phase.__init__(self, parser, tree)` in each phase; the arguments were read one
    # slot early, so every phase's `self.tree` passed for the parser
    code = """\
from pkg.writer import Writer


class Phase:
    def __init__(self, owner, writer):
        self.owner = owner
        self.writer = writer


class Sending(Phase):
    def __init__(self, owner, writer):
        Phase.__init__(self, owner, writer)

    def run(self):
        self.writer.send(b"x")


class Owner:
    def __init__(self):
        self.phase = Sending(self, Writer("a"))

    def send(self, data):
        return data
"""
    assert _stale(git_repo, {"pkg/phases.py": code}) == [("pkg/phases.py", 15)]
