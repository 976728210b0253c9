"""Repros of the sites the shared inference (analysis/intel/infer) and the rules still miss on issue 20's new
case set (bench/README_rules_new.md), one small repository per root cause; bench/explain_site.py shows
each step. Every test asserts the site IS found: they fail until the cause is fixed. The site each one
stands for is named in its docstring (repository, commit, path:line of the mined set).

The probe is mostly async-mismatch (`Writer.send` becomes `async def`, or stops being async), which
reports only receivers whose type is known; property-mismatch where the mined site was a property."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

WRITER = """\
from typing import Any


class Writer:
    def __init__(self, path=None):
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


def _stale(git_repo: GitRepo, files: dict[str, str], rule: str = "async-mismatch") -> list[tuple[str, int]]:
    """`Writer.send` becomes `async def`; what the rule reports in `files`."""
    base = {"pkg/__init__.py": "", "pkg/writer.py": WRITER, **files}
    run = review(git_repo, base, {"pkg/writer.py": ASYNC_WRITER})
    assert run.errors == []
    return sites(run, rule)


def _no_longer_async(git_repo: GitRepo, files: dict[str, str]) -> list[tuple[str, int]]:
    """`Writer.send` stops being `async def`; what async-mismatch reports in `files`."""
    base = {"pkg/__init__.py": "", "pkg/writer.py": ASYNC_WRITER, **files}
    run = review(git_repo, base, {"pkg/writer.py": WRITER})
    assert run.errors == []
    return sites(run, "async-mismatch")


# --- Budgets and caches of the inference ----------------------------------------------------------------


def test_a_class_with_hundreds_of_methods_does_not_spend_the_parsed_parts_budget(git_repo: GitRepo) -> None:
    """mongo-python-driver 636603f893, 29 sites (test/asynchronous/test_collection.py:544 ...): one
    `find_usages` query reads the members of AsyncCollection, AsyncDatabase and the big test classes;
    `CodeReader.class_body` parses every method of every class on the way as a part of its own, the
    512-part budget of the query's inference is gone after a few classes, and every later site is
    `None` (site not found)."""
    methods = "".join(f"    def m{i}(self):\n        return {i}\n\n" for i in range(600))
    make = "    def make(self):\n        return Writer('a')\n"
    big = f"from pkg.writer import Writer\n\n\nclass Big:\n{methods}{make}"
    app = """\
from pkg.big import Big


def main():
    w = Big().make()
    w.send(b"x")
"""
    assert _stale(git_repo, {"pkg/big.py": big, "pkg/app.py": app}) == [("pkg/app.py", 6)]


def test_a_part_parsed_before_its_file_falls_back_to_one_tree_is_not_reused(git_repo: GitRepo) -> None:
    """mongo-python-driver 636603f893 test_client.py:2053 and :2116 (`client = await connected(...)`):
    a method with stacked decorators (`@classmethod` over `@x.deco`) is cut into a unit of its own by
    `units._class_units`, does not parse alone, and the file's scan falls back to one `whole` unit
    starting at line 0; `CodeReader.part` keys its cache by (path, unit start), so the `module` unit
    parsed before under (path, 0) is handed out as the whole file, and `connected` is not in it."""
    helpers = """\
from pkg.writer import Writer
from pkg import decorators

DEFAULT = None


def make_default():
    return Writer("d")


DEFAULT = make_default()


class Base:
    @classmethod
    @decorators.keep
    def setup_class(cls):
        pass

    def make(self):
        return Writer("m")


def connected(client):
    return client
"""
    decorators = "def keep(f):\n    return f\n"
    test = """\
from pkg.helpers import DEFAULT, Base, connected
from pkg.writer import Writer


class TestX(Base):
    def test_send(self):
        DEFAULT.send(b"a")
        self.make().send(b"b")
        connected(Writer("c")).send(b"c")
"""
    files = {"pkg/helpers.py": helpers, "pkg/decorators.py": decorators, "tests/test_x.py": test}
    assert _stale(git_repo, files) == [("tests/test_x.py", 7), ("tests/test_x.py", 8), ("tests/test_x.py", 9)]


def test_a_value_that_flows_back_into_its_own_container(git_repo: GitRepo) -> None:
    """Telethon 04ba2e1fc7 downloads.py:284 and 9cbc088b76 downloads.py:271 (`sender =
    await self._borrow_exported_sender(dc_id)`): the borrowed sender is read from a dict the same
    method fills with it; `Inference.expr` answers a cycle with UNKNOWN and memoises every step above
    it, so the one real source (`Writer(key)`) is lost."""
    code = """\
from pkg.writer import Writer


class Pool:
    def __init__(self):
        self._borrowed = {}

    def borrow(self, key):
        w = self._borrowed[key] if key in self._borrowed else Writer(key)
        self._borrowed[key] = w
        return w


def main(pool: Pool):
    w = pool.borrow("a")
    w.send(b"x")
"""
    assert _stale(git_repo, {"pkg/pool.py": code}) == [("pkg/pool.py", 16)]


def test_dict_get_with_a_default_gives_the_default_not_none(git_repo: GitRepo) -> None:
    """The same Telethon sites: `n, sender = self._borrowed_senders.get(dc_id, (0, None))`;
    `Members._container_method` answers `.get` with the values or None whatever the call passes, and
    unpacking None is unknown."""
    code = """\
from pkg.writer import Writer


class Pool:
    def __init__(self):
        self._borrowed = {}

    def lend(self, key):
        self._borrowed[key] = (1, Writer(key))

    def borrow(self, key):
        n, w = self._borrowed.get(key, (0, None))
        return w


def main(pool: Pool):
    w = pool.borrow("a")
    w.send(b"x")
"""
    assert _stale(git_repo, {"pkg/pool.py": code}) == [("pkg/pool.py", 18)]


# --- Shapes the engine does not follow ------------------------------------------------------------------


def test_overloads_are_chosen_by_the_call_not_the_first_stub(git_repo: GitRepo) -> None:
    """textual b5689b1f69 examples/dictionary.py:38, :53 (`self.query_one("#results", Markdown)`) and
    abaa2d2f4e tests/test_data_table.py:274 ... (`table = app.query_one(DataTable)`), 8 sites:
    `Members.instance_attribute` returns the first `def query_one` of the class body, the first
    `@overload` stub (`-> Widget`), so the receiver is a Widget (known, and wrong: nothing reported)."""
    code = """\
from typing import TypeVar, overload

from pkg.writer import Writer

T = TypeVar("T")


class Node:
    @overload
    def query_one(self, selector: str) -> "Node": ...

    @overload
    def query_one(self, selector: type[T]) -> T: ...

    @overload
    def query_one(self, selector: str, expect_type: type[T]) -> T: ...

    def query_one(self, selector, expect_type=None):
        raise NotImplementedError


def use(node: Node):
    node.query_one(Writer).send(b"a")
    node.query_one("#w", Writer).send(b"b")
"""
    assert _stale(git_repo, {"pkg/node.py": code}) == [("pkg/node.py", 23), ("pkg/node.py", 24)]


def test_a_bound_method_kept_as_another_objects_callback(git_repo: GitRepo) -> None:
    """Telethon 3dd8b7c6d1 mtprotosender.py:216, 7d21b40401 :299, d2de0f3aca :298, :383, :527 (5 sites):
    `self._auth_key_callback(...)` in MTProtoSender calls the client's bound method it was given in
    its constructor. The inference knows the attribute holds `Bound(TelegramBaseClient._auth_key_callback)`,
    but `CodeIndex._receiver_relation` only asks whether the receiver (`self`, a Sender) reaches the
    method: "no"."""
    client = """\
from pkg.sender import Sender


class Client:
    def __init__(self):
        self._sender = Sender(callback=self._on_key)

    def _on_key(self, key):
        return key
"""
    sender = """\
class Sender:
    def __init__(self, callback=None):
        self._on_key = callback

    def run(self):
        if self._on_key:
            self._on_key(1)
"""
    async_client = client.replace("    def _on_key(self, key):", "    async def _on_key(self, key):")
    base = {"pkg/__init__.py": "", "pkg/client.py": client, "pkg/sender.py": sender}
    run = review(git_repo, base, {"pkg/client.py": async_client})
    assert run.errors == []
    assert sites(run, "async-mismatch") == [("pkg/sender.py", 7)]


def test_python2_implicit_relative_imports_inside_a_package(git_repo: GitRepo) -> None:
    """mongo-python-driver 3262cfc215 pymongo/bson.py:299, 396d4ded9d bson.py:352, :353,
    database.py:353 (4 sites): `from dbref import DBRef` in pymongo/bson.py is Python 2's implicit
    relative import of pymongo/dbref.py; `ModuleIndex.sibling_module` refuses siblings inside a package,
    so `DBRef` is read as a class from outside the repository (foreign) and the receiver is not ours."""
    code = """\
from writer import Writer


def encode(value):
    if isinstance(value, Writer):
        return value.send(b"x")
    return None


def direct():
    w = Writer("a")
    w.send(b"y")
"""
    assert _stale(git_repo, {"pkg/encode.py": code}) == [("pkg/encode.py", 6), ("pkg/encode.py", 12)]


def test_a_function_result_follows_the_arguments_of_this_call(git_repo: GitRepo) -> None:
    """twisted b3e33bdee0 test_worker.py:90 (`worker, server, pump = connectedServerAndClient(
    LocalWorkerAMP, WorkerProtocol)`; also :121 and test_workerreporter.py:30 with the rule's
    `successResultOf(d)`): a parameter is the union of what every call in the repository passes, never
    what this call passes, so `server_cls()` is every class anyone passes (and unknown where one
    passes an unknown value). The same union is wrong the other way: `b` below would be reported."""
    code = """\
from pkg.writer import Other, Writer


def connected_pair(server_cls, client_cls):
    return client_cls(), server_cls()


def test_pair():
    client, server = connected_pair(Writer, Other)
    server.send(b"x")
    a, b = connected_pair(Other, Other)
    b.send(b"y")


def elsewhere(factory):
    return connected_pair(factory, Other)
"""
    assert _stale(git_repo, {"tests/test_pair.py": code}) == [("tests/test_pair.py", 10)]


def test_run_until_complete_gives_what_the_coroutine_returns(git_repo: GitRepo) -> None:
    """asyncpg 01273d9fa7 asyncpg/_testbase.py:63 and 12ebf17a1a tests/test_prepare.py:83
    (`self.con = self.loop.run_until_complete(asyncpg.connect(...))`; aiopg 9bf175299d engine.py:63 too):
    `loop` is asyncio's, so `loop.run_until_complete(...)` is a foreign call whose result is unknown;
    it is the awaited value of its argument."""
    code = """\
import asyncio

from pkg.writer import Writer


async def connect():
    return Writer("a")


class Case:
    def setUp(self):
        self.loop = asyncio.new_event_loop()
        self.w = self.loop.run_until_complete(connect())

    def test_send(self):
        self.w.send(b"x")


def main():
    w = asyncio.run(connect())
    w.send(b"y")
"""
    assert _stale(git_repo, {"tests/test_case.py": code}) == [
        ("tests/test_case.py", 16),
        ("tests/test_case.py", 21),
    ]


def test_a_global_statement_is_not_a_value_of_the_name(git_repo: GitRepo) -> None:
    """asyncpg 12ebf17a1a tests/test_prepare.py:83 (`_default_cluster`, set in `_start_cluster` under
    `global`): `scopes._bind_block` walks into the function's body and the module table gets the
    `global` statement as a binding of the name, which `Inference.bind` answers UNKNOWN."""
    code = """\
from pkg.writer import Writer

_default = None


def get_default():
    global _default
    if _default is None:
        _default = Writer("d")
    return _default


def main():
    get_default().send(b"x")
"""
    assert _stale(git_repo, {"pkg/defaults.py": code}) == [("pkg/defaults.py", 14)]


def test_yield_from_a_generator_based_coroutine(git_repo: GitRepo) -> None:
    """aiopg 9bf175299d aiopg/sa/engine.py:63 (`conn = yield from self.engine.acquire()` in
    `@asyncio.coroutine` tests and library): `yield from` is not evaluated at all (unknown), and a
    generator-based coroutine's call is `Awaitable(UNKNOWN)` instead of what its `return` gives."""
    code = """\
import asyncio

from pkg.writer import Writer


@asyncio.coroutine
def connect():
    yield from asyncio.sleep(0)
    return Writer("a")


@asyncio.coroutine
def main():
    w = yield from connect()
    w.send(b"x")
"""
    assert _stale(git_repo, {"pkg/legacy.py": code}) == [("pkg/legacy.py", 15)]


def test_a_subclass_constructor_reached_through_base_init_calls_of_its_own_class_only(
    git_repo: GitRepo,
) -> None:
    """litestar 79a6d870dc tests/events/test_listener.py:119, :125 (`client.app.emit(...)` with `client`
    an AsyncTestClient): `self.app = app` is set in BaseTestClient.__init__, whose callers are
    `BaseTestClient.__init__(self, app=app)` in AsyncTestClient *and* in TestClient; for an
    AsyncTestClient only the first can run, but `Callers.parameter` unions both and TestClient's `app`
    is unknown."""
    code = """\
from pkg.writer import Writer


class Base:
    def __init__(self, app):
        self.app = app


class AsyncClient(Base):
    def __init__(self, app):
        Base.__init__(self, app=app)


class SyncClient(Base):
    def __init__(self, app):
        super().__init__(app)


def make_async():
    return AsyncClient(Writer("a"))


def make_sync(app):
    return SyncClient(app)


def test_emit():
    client = make_async()
    client.app.send(b"x")
"""
    assert _stale(git_repo, {"tests/test_clients.py": code}) == [("tests/test_clients.py", 29)]


def test_list_and_the_other_builtin_classes_applied_to_a_container(git_repo: GitRepo) -> None:
    """mongo-python-driver e51ad27d20 test_connection_monitoring.py:276 (`self.pool =
    list(client._topology._servers.values())[0].pool`): `list`, `tuple`, `set`, `frozenset`, `reversed`,
    `enumerate`, `zip`, `filter` and `type` are builtin *classes*: `Inference.module_name` makes them
    `ForeignClass` and `Operations.apply` answers a foreign object, so `Operations.builtin`'s handling
    of them never runs."""
    code = """\
from pkg.writer import Writer


class Registry:
    def __init__(self):
        self.servers = {"a": Writer("a")}

    def close(self):
        first = list(self.servers.values())[0]
        first.send(b"x")
        for index, w in enumerate(self.servers.values()):
            w.send(b"y")
"""
    assert _stale(git_repo, {"pkg/registry.py": code}) == [("pkg/registry.py", 10), ("pkg/registry.py", 12)]


def test_a_bare_container_annotation_does_not_hide_what_is_put_in(git_repo: GitRepo) -> None:
    """The same mongo site: `self.labels: dict = {}` then `self.labels[label] = conn` and `for conn in
    self.labels.values()`: `annotation_types` reads a bare `dict` as a foreign object (known), so
    `Members._assigned` never looks at the value and `_filled` never adds what is put in."""
    code = """\
from pkg.writer import Writer


class Registry:
    def __init__(self):
        self.labels: dict = {}

    def add(self, label):
        self.labels[label] = Writer(label)

    def close(self):
        for w in self.labels.values():
            w.send(b"x")
"""
    assert _stale(git_repo, {"pkg/registry.py": code}) == [("pkg/registry.py", 13)]


def test_callers_of_a_function_in_a_script_that_is_not_importable(git_repo: GitRepo) -> None:
    """aiortc 31abde4c7f examples/videostream-cli/cli.py:118 (`run(pc, ...)`): several example
    directories hold a `cli.py`; all but one are `<file>:` pseudo-modules, and `Callers._target` gives
    up on those, though their functions can only be called from the file itself."""
    script = """\
from pkg.writer import Writer


def run(w):
    w.send(b"x")


if __name__ == "__main__":
    run(Writer("a"))
"""
    files = {"examples/a-cli/cli.py": script, "examples/b-cli/cli.py": script}
    assert _stale(git_repo, files) == [("examples/a-cli/cli.py", 5), ("examples/b-cli/cli.py", 5)]


def test_a_module_instance_that_rebinds_its_class_name(git_repo: GitRepo) -> None:
    """jedi d86f180d2e jedi/evaluate/representation.py:387, :390 (`builtin.Builtin.magic_function_scope`
    after `Builtin = Builtin()` in builtin.py): the resolver (and `Inference._value_types`, which asks
    `class_facts` first) take the name for the class, so the access reads as `Cls.p`, which
    property-mismatch leaves alone; the module's last binding makes it an instance."""
    registry = """\
class Registry:
    @property
    def scope(self):
        return {}


Registry = Registry()
"""
    use = """\
from pkg import registry


def names():
    return registry.Registry.scope.keys()
"""
    to_method = registry.replace("    @property\n    def scope(self):", "    def scope(self):")
    base = {"pkg/__init__.py": "", "pkg/registry.py": registry, "pkg/use.py": use}
    run = review(git_repo, base, {"pkg/registry.py": to_method})
    assert run.errors == []
    assert sites(run, "property-mismatch") == [("pkg/use.py", 5)]


def test_a_lambda_parameter_fed_by_the_function_it_is_given_to(git_repo: GitRepo) -> None:
    """discord.py de1c74a399 discord/server.py:154 (`utils.find(lambda r: r.is_everyone(), self.roles)`):
    `Inference.parameter` answers UNKNOWN for every lambda parameter; `find(predicate, seq)` calls
    `predicate(element)` for each element of `seq` (and the builtins `filter`, `map`, `sorted(key=)`,
    `min`/`max(key=)` do the same)."""
    code = """\
from pkg.writer import Writer


def find(predicate, seq):
    for element in seq:
        if predicate(element):
            return element
    return None


def main():
    writers = [Writer("a"), Writer("b")]
    find(lambda w: w.send(b"x") > 0, writers)
    sorted(writers, key=lambda w: w.send(b"y") + 1)
"""
    assert _stale(git_repo, {"pkg/finder.py": code}) == [("pkg/finder.py", 13), ("pkg/finder.py", 14)]


def test_a_repository_decorator_that_returns_a_wrapper_calling_the_function(git_repo: GitRepo) -> None:
    """jedi f43d144e23 jedi/inference/compiled/mixed.py:287 (`create_cached_compiled_object(...)`,
    decorated with `@_normalize_create_args` and a cache): `Operations.returns` gives UNKNOWN for any
    decorator it does not know, even a wrapper whose only `return` is `func(...)`."""
    code = """\
import functools

from pkg.writer import Writer


def normalize(func):
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)
    return wrapper


def cached(func):
    @functools.wraps(func)
    def wrapper(*args):
        return func(*args)
    return wrapper


@normalize
@cached
def create(path):
    return Writer(path)


def main():
    w = create("a")
    w.send(b"x")
"""
    assert _stale(git_repo, {"pkg/factory.py": code}) == [("pkg/factory.py", 27)]


# --- async-mismatch's own decisions (the reference is exact; the rule judges the use fine) --------------


def test_a_value_use_of_a_local_is_not_undone_by_handing_it_on_too(git_repo: GitRepo) -> None:
    """litestar 7bf0a51f10 request.py:267, ee11ac699c routes/http.py:172, websocket.py:72 (`kwargs =
    parameter_model.to_kwargs(...)`, then `"data" in kwargs` and `resolve_dependencies(request,
    kwargs)`), tortoise-orm 96860542fb test_two_databases.py:12, :14 (`self.db = self.getDB()`, then
    `await self.db.create_connection()` and `generate_schema(self.db)`), and 7bf0a51f10
    extractors.py:343 (`connection.scope["_form"] = form_values = (... if ... else
    parse_multipart_form(...))`, then `form_values.values()`), 6 sites: `awaiting._flow` and
    `_attribute_flow` answer the most forgiving use ("handed" beats "value") and `_assigned` answers
    "handed" for a chained assignment. A coroutine object used as a value fails whatever else is done
    with it."""
    code = """\
from pkg.writer import Writer


def register(value):
    return value


async def local(w: Writer):
    result = w.send(b"x")
    register(result)
    return result.upper()


class Case:
    async def setUp(self, w: Writer):
        self.db = w.send(b"y")
        await self.db.connect()
        register(self.db)


async def chained(w: Writer, scope):
    scope["form"] = form = w.send(b"z") if scope else None
    return form.values()
"""
    assert _stale(git_repo, {"pkg/flows.py": code}) == [
        ("pkg/flows.py", 9),
        ("pkg/flows.py", 16),
        ("pkg/flows.py", 22),
    ]


def test_a_test_helper_that_runs_the_loop_is_a_runner(git_repo: GitRepo) -> None:
    """aiortc f6fc49d6e2 tests/test_rtcrtpreceiver.py:58, :71, :79 (`run(generator.add(packet))` with
    tests/utils.py `def run(coro): return asyncio.get_event_loop().run_until_complete(coro)`), 3 sites:
    the method stopped being async, so `run(...)` hands a plain result to `run_until_complete`;
    `awaiting.is_runner_call` knows only asyncio's names, not the repository's helper around them."""
    utils = """\
import asyncio


def run(coro):
    return asyncio.get_event_loop().run_until_complete(coro)
"""
    test = """\
from pkg.writer import Writer
from tests.utils import run


def test_send():
    w = Writer("a")
    run(w.send(b"x"))
"""
    files = {"tests/__init__.py": "", "tests/utils.py": utils, "tests/test_send.py": test}
    assert _no_longer_async(git_repo, files) == [("tests/test_send.py", 7)]


def test_a_plain_def_declared_to_return_any_did_not_return_an_awaitable(git_repo: GitRepo) -> None:
    """litestar c03b2195f1 tests/caching/test_simple_cache_backend.py:11 (`assert not
    backend.get("test")`): the old `def get(self, key) -> Any` makes `async_change` take the old result
    for a possible awaitable (`only_dropped`), so only dropped calls are reported; a body that returns
    plain values (no call of a coroutine function) says it was not."""
    typed = WRITER.replace(
        "    def send(self, data):\n        return len(data)",
        "    def send(self, data) -> Any:\n        return len(data)",
    )
    async_typed = typed.replace("    def send(self, data) -> Any:", "    async def send(self, data) -> Any:")
    test = """\
from pkg.writer import Writer


def test_send():
    w = Writer("a")
    assert not w.send(b"")
"""
    base = {"pkg/__init__.py": "", "pkg/writer.py": typed, "tests/test_any.py": test}
    run = review(git_repo, base, {"pkg/writer.py": async_typed})
    assert run.errors == []
    assert sites(run, "async-mismatch") == [("tests/test_any.py", 6)]


def test_a_coroutine_stored_on_self_and_used_as_the_value_in_another_method(git_repo: GitRepo) -> None:
    """quart 392613b9d7 quart/ctx.py:57 (`self.session = self.app.make_null_session()`, the session used
    by the other methods): `_attribute_flow` only reads the same function; with no read there the
    store is "handed"."""
    code = """\
from pkg.writer import Writer


class Context:
    def __init__(self, w: Writer):
        self.w = w
        self.size = None

    def enter(self):
        self.size = self.w.send(b"x")

    def report(self):
        return self.size + 1
"""
    assert _stale(git_repo, {"pkg/ctx.py": code}) == [("pkg/ctx.py", 10)]


def test_a_coroutine_stored_on_a_data_object_being_built(git_repo: GitRepo) -> None:
    """pyrogram 35096a28c3 message.py:426 (`parsed_message.reply_to_message = client.get_messages(...)`,
    the reference is exact): a store on an attribute of another object than `self` is "handed"."""
    code = """\
from pkg.writer import Writer


class Message:
    reply = None


def parse(w: Writer):
    message = Message()
    message.reply = w.send(b"x")
    return message
"""
    assert _stale(git_repo, {"pkg/parse.py": code}) == [("pkg/parse.py", 10)]


def test_a_coroutine_given_to_a_repository_function_that_uses_it_as_a_value(git_repo: GitRepo) -> None:
    """Telethon d2de0f3aca telethon/client/users.py:570 (`await self.get_entity(
    self.session.get_input_entity(string))`, the reference is exact), and twisted b3e33bdee0
    test_worker.py:121 / test_workerreporter.py:30 (`self.successResultOf(d)`): `_use_in_call` takes
    any callee for one that may await its argument; the repository's own callee can be read."""
    code = """\
from pkg.writer import Writer


def describe(entity):
    return entity.upper()


async def main(w: Writer):
    return describe(w.send(b"x"))
"""
    assert _stale(git_repo, {"pkg/describe.py": code}) == [("pkg/describe.py", 9)]
