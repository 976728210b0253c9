"""Shapes from the misses of issue 20's new rule set: a base that declares a parameter for its
implementations (astroid's `bool_value(context=None)`, opentelemetry's `Tracer`), an abstract hook gaining
`**kwargs`, overrides behind a decorator with a wrapper of its own (tortoise's `translate_exceptions`), an
abstract declaration whose every implementation became a coroutine (discord's `_get_channel`), `yield from`
on what became a plain function (websockets), and a test suite's `run(coro)` helper (aiortc)."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

BASE = """\
class Node:
    def bool_value(self):
        return True
"""
OVERRIDE = """\
from pkg.base import Node


class Module(Node):
    def bool_value(self):
        return False
"""
USE = "def go(node):\n    return node.bool_value()\n"


def _overrides(
    git_repo: GitRepo, base: dict[str, str], head: dict[str, str]
) -> tuple[list[tuple[str, int]], list[str]]:
    run = review(git_repo, {"pkg/__init__.py": "", **base}, head)
    assert run.errors == []
    found = [f for f in run.findings if f.rule == "override-mismatch"]
    return sites(run, "override-mismatch"), [f.severity.value for f in found]


def test_a_parameter_the_base_never_reads_is_declared_for_the_overrides(git_repo: GitRepo) -> None:
    new = BASE.replace("def bool_value(self):", "def bool_value(self, context=None):")
    found, severities = _overrides(
        git_repo, {"pkg/base.py": BASE, "pkg/module.py": OVERRIDE, "pkg/use.py": USE}, {"pkg/base.py": new}
    )
    assert found == [("pkg/module.py", 5)]
    assert severities == ["note"]  # nothing fails today: no call passes `context` yet


def test_a_parameter_the_base_reads_itself_is_its_own_business(git_repo: GitRepo) -> None:
    # coverage.py's `get_source(shell, retries=5)`: the base uses it; the overrides never need it
    new = BASE.replace(
        "def bool_value(self):\n        return True",
        "def bool_value(self, context=None):\n        return context is None",
    )
    found, _ = _overrides(
        git_repo, {"pkg/base.py": BASE, "pkg/module.py": OVERRIDE, "pkg/use.py": USE}, {"pkg/base.py": new}
    )
    assert found == []


def test_a_private_method_reading_nothing_is_still_not_an_interface(git_repo: GitRepo) -> None:
    base = BASE.replace("bool_value", "_bool_value")
    new = base.replace("def _bool_value(self):", "def _bool_value(self, context=None):")
    override = OVERRIDE.replace("bool_value", "_bool_value")
    found, _ = _overrides(git_repo, {"pkg/base.py": base, "pkg/module.py": override}, {"pkg/base.py": new})
    assert found == []


ABSTRACT = """\
from abc import ABC, abstractmethod


class BaseInstrumentor(ABC):
    @abstractmethod
    def _instrument(self):
        \"\"\"Instrument\"\"\"

    def instrument(self):
        return self._instrument()
"""
INSTRUMENTOR = """\
from pkg.base import BaseInstrumentor


def test_protect():
    class Instrumentor(BaseInstrumentor):
        def _instrument(self):
            return "instrumented"

    assert Instrumentor().instrument() == "instrumented"
"""


def test_an_abstract_hook_gaining_kwargs_asks_every_implementation(git_repo: GitRepo) -> None:
    new = ABSTRACT.replace("def _instrument(self):", "def _instrument(self, **kwargs):").replace(
        "def instrument(self):\n        return self._instrument()",
        "def instrument(self, **kwargs):\n        return self._instrument(**kwargs)",
    )
    found, severities = _overrides(
        git_repo, {"pkg/base.py": ABSTRACT, "tests/test_inst.py": INSTRUMENTOR}, {"pkg/base.py": new}
    )
    assert found == [("tests/test_inst.py", 6)]
    assert severities == ["note"]


CLIENT_BASE = """\
class BaseClient:
    async def execute_query(self, query):
        raise NotImplementedError()
"""
CLIENTS = """\
from functools import wraps

from pkg.base import BaseClient


def translate_exceptions(func):
    @wraps(func)
    async def wrapped(self, query):
        try:
            return await func(self, query)
        except KeyError as exc:
            raise ValueError(exc)

    return wrapped


def forward_exceptions(func):
    @wraps(func)
    async def forwarded(self, query, *args):
        try:
            return await func(self, query, *args)
        except KeyError as exc:
            raise ValueError(exc)

    return forwarded


class FixedClient(BaseClient):
    @translate_exceptions
    async def execute_query(self, query, values=None):
        return query


class ForwardingClient(BaseClient):
    @forward_exceptions
    async def execute_query(self, query):
        return query


class ForwardingWithValues(BaseClient):
    @forward_exceptions
    async def execute_query(self, query, values=None):
        return query
"""


def test_an_override_is_what_its_decorator_s_wrapper_accepts(git_repo: GitRepo) -> None:
    new = CLIENT_BASE.replace(
        "def execute_query(self, query):", "def execute_query(self, query, values=None):"
    )
    found, _ = _overrides(
        git_repo, {"pkg/base.py": CLIENT_BASE, "pkg/clients.py": CLIENTS}, {"pkg/base.py": new}
    )
    # the fixed wrapper `(self, query)` drops `values` whatever the method takes; the forwarding wrapper
    # passes positions on, so the method's own parameters decide
    assert found == [("pkg/clients.py", 30), ("pkg/clients.py", 36)]


MESSAGEABLE = """\
import abc


class Messageable(metaclass=abc.ABCMeta):
    @abc.abstractmethod
    def _get_channel(self):
        raise NotImplementedError

    def send(self, content):
        channel = self._get_channel()
        return channel.post(content)
"""
CHANNELS = """\
from pkg.abc import Messageable


class TextChannel(Messageable):
    def _get_channel(self):
        return self


class DMChannel(Messageable):
    def _get_channel(self):
        return self
"""


def _async_sites(git_repo: GitRepo, base: dict[str, str], head: dict[str, str]) -> list[tuple[str, int]]:
    run = review(git_repo, {"pkg/__init__.py": "", **base}, head)
    assert run.errors == []
    return sites(run, "async-mismatch")


def test_every_implementation_became_a_coroutine_so_calls_through_the_declaration_break(
    git_repo: GitRepo,
) -> None:
    both = CHANNELS.replace("    def _get_channel", "    async def _get_channel")
    found = _async_sites(
        git_repo, {"pkg/abc.py": MESSAGEABLE, "pkg/channel.py": CHANNELS}, {"pkg/channel.py": both}
    )
    assert found == [("pkg/abc.py", 10)]


def test_one_implementation_still_plain_leaves_calls_through_the_declaration_alone(git_repo: GitRepo) -> None:
    one = CHANNELS.replace(
        "    def _get_channel(self):\n        return self\n\n\nclass DM",
        "    async def _get_channel(self):\n        return self\n\n\nclass DM",
    )
    found = _async_sites(
        git_repo, {"pkg/abc.py": MESSAGEABLE, "pkg/channel.py": CHANNELS}, {"pkg/channel.py": one}
    )
    assert found == []


PROTOCOL = """\
import asyncio


class Protocol:
    @asyncio.coroutine
    def fail_connection(self, code=1006):
        yield from asyncio.sleep(0)

    @asyncio.coroutine
    def frames(self):
        yield from asyncio.sleep(0)
        return [1]


class ServerProtocol(Protocol):
    @asyncio.coroutine
    def handler(self):
        yield from self.fail_connection(1011)
        data = yield from self.frames()
        return data
"""


def test_yield_from_on_what_became_a_plain_function_returning_none(git_repo: GitRepo) -> None:
    new = PROTOCOL.replace(
        "    @asyncio.coroutine\n    def fail_connection(self, code=1006):\n"
        "        yield from asyncio.sleep(0)",
        "    def fail_connection(self, code=1006):\n        self.code = code",
    ).replace(
        "    @asyncio.coroutine\n    def frames(self):\n"
        "        yield from asyncio.sleep(0)\n        return [1]",
        "    def frames(self):\n        return [1]",
    )
    found = _async_sites(git_repo, {"pkg/protocol.py": PROTOCOL}, {"pkg/protocol.py": new})
    # `yield from self.frames()` iterates the list the plain function now returns: not certainly broken
    assert found == [("pkg/protocol.py", 15)]


NACK = """\
class NackGenerator:
    async def add(self, packet):
        return packet
"""
HELPERS = """\
import asyncio


def run(coro):
    return asyncio.get_event_loop().run_until_complete(coro)


def show(value):
    return repr(value)
"""
TESTS = """\
from pkg.nack import NackGenerator
from tests.utils import run, show


def test_add():
    generator = NackGenerator()
    run(generator.add(1))
    show(generator.add(2))
"""


def test_a_test_suite_s_run_helper_is_a_runner(git_repo: GitRepo) -> None:
    new = NACK.replace("async def add", "def add")
    found = _async_sites(
        git_repo,
        {
            "pkg/nack.py": NACK,
            "tests/__init__.py": "",
            "tests/utils.py": HELPERS,
            "tests/test_nack.py": TESTS,
        },
        {"pkg/nack.py": new},
    )
    assert found == [("tests/test_nack.py", 7)]


MODEL = """\
class ObjectModel:
    def attributes(self):
        def make():
            from pkg import base

            class Bound(base.Node):
                def bool_value(self):
                    return None

            return Bound()

        return make()
"""


def test_a_local_class_whose_base_a_function_local_import_binds(git_repo: GitRepo) -> None:
    # astroid's objectmodel: `from astroid import bases` inside the method defining
    # `class DescriptorBoundMethod(bases.BoundMethod)`
    new = BASE.replace("def bool_value(self):", "def bool_value(self, context=None):")
    found, _ = _overrides(
        git_repo,
        {
            "pkg/base.py": BASE,
            "pkg/model.py": MODEL,
            "pkg/use.py": "def go(n):\n    n.bool_value(context=1)\n",
        },
        {"pkg/base.py": new},
    )
    assert found == [("pkg/model.py", 7)]


DBREF = """\
class DBRef(object):
    def __init__(self, collection):
        self.__collection = collection

    def collection(self):
        return self.__collection
"""
BSON = """\
from dbref import DBRef


def encode(value):
    if isinstance(value, DBRef):
        return value.collection()
    return None
"""
SHADOW = """\
from dbref import Redis


def connect(client: Redis):
    return client.collection()
"""


def test_a_python_2_implicit_relative_import(git_repo: GitRepo) -> None:
    # pymongo 2009: `from dbref import DBRef` inside pymongo/ is `pymongo.dbref`; a name the sibling does
    # not define (`Redis`) comes from an installed library, not from the sibling module
    new = DBREF.replace("    def collection(self):", "    @property\n    def collection(self):")
    run = review(
        git_repo,
        {"pkg/__init__.py": "", "pkg/dbref.py": DBREF, "pkg/bson.py": BSON, "pkg/shadow.py": SHADOW},
        {"pkg/dbref.py": new},
    )
    assert run.errors == []
    assert sites(run, "property-mismatch") == [("pkg/bson.py", 6)]


NODE_NG = """\
class NodeNG:
    def infer(self, context=None, **kwargs):
        return self._infer(context=context, **kwargs)

    def _infer(self, context=None):
        raise NotImplementedError
"""
OBJECTS = """\
from pkg.node import NodeNG


class Super(NodeNG):
    def _infer(self, context=None):
        return iter([self])
"""


def test_a_new_kw_a_public_method_passes_on_is_declared_for_the_overrides(git_repo: GitRepo) -> None:
    # astroid 20adb542: `_infer` gains `**kwargs`, which the public `infer(**kwargs)` already passes on:
    # whatever keywords the API's callers give reach every override (a note: none passes one yet). A
    # private forwarder is no API: sqlalchemy's `_set_parent_with_dispatch` (test_checks_override_mismatch)
    new = NODE_NG.replace("def _infer(self, context=None):", "def _infer(self, context=None, **kwargs):")
    found, severities = _overrides(
        git_repo, {"pkg/node.py": NODE_NG, "pkg/objects.py": OBJECTS}, {"pkg/node.py": new}
    )
    assert found == [("pkg/objects.py", 5)]
    assert severities == ["note"]


def test_a_module_instance_that_took_its_class_s_name_reads_the_property_as_an_instance(
    git_repo: GitRepo,
) -> None:
    # jedi's `Builtin = Builtin()`: `builtin.Builtin.magic_function_scope` reads the one instance's
    # property, not the property object of a class, so making it a plain method breaks the read
    base = """\
class Builtin:
    @property
    def scope(self):
        return 1


Builtin = Builtin()


class Plain:
    @property
    def scope(self):
        return 2
"""
    use = """\
from pkg import builtin


def names():
    return builtin.Builtin.scope + 1


def descriptor():
    return builtin.Plain.scope
"""
    head = base.replace(
        "    @property\n    def scope(self):\n        return 1", "    def scope(self):\n        return 1"
    )
    run = review(
        git_repo, {"pkg/__init__.py": "", "pkg/builtin.py": base, "pkg/use.py": use}, {"pkg/builtin.py": head}
    )
    assert run.errors == []
    assert sites(run, "property-mismatch") == [("pkg/use.py", 5)]
