"""Shapes of real history the shared inference (analysis/intel/infer) and the rules missed on issue 20's new
case set (bench/README_rules_new.md), one small repository per root cause (bench/explain_site.py shows
each step of the inference at a site). The site each one stands for is named in its docstring
(repository, commit, path:line of the mined set).

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


def test_isinstance_narrows_the_later_operands_of_an_and_and_a_conditional_branch(git_repo: GitRepo) -> None:
    """The shape of mongo-python-driver 3262cfc215 examples/custom_type.py:143: `isinstance(value, Binary)
    and value.subtype() == 128` (a property since). That site stays missed: its file is Python 2, where
    nothing is reported."""
    use = """\
from pkg.writer import Other, Writer


def outgoing(son):
    for key, value in son.items():
        if isinstance(value, Writer) and value.send(1) == 128:
            pass
        total = (value.send(2) if isinstance(value, Writer) else 0) + 1
        isinstance(value, Other) and value.send(3)
        value.send(4) or isinstance(value, Writer)
        ready = (
            isinstance(value, Writer)
            and key
            and value.send(5)
        )
    return total, ready
"""
    assert _stale(git_repo, {"examples/custom.py": use}) == [
        ("examples/custom.py", 6),
        ("examples/custom.py", 8),
        ("examples/custom.py", 14),
    ]


def test_a_branch_where_an_isinstance_test_failed_holds_no_instance_of_that_class(git_repo: GitRepo) -> None:
    """zigpy 2cbb79f433: `... if isinstance(hdr, ZCLHeader) else hdr.is_reply` reads a header of another
    class; the `else` of an `if isinstance`, and the body of `if not isinstance`, likewise."""
    use = """\
from pkg.writer import Other, Writer


def make(flag):
    return Writer() if flag else Writer("b")


def outgoing(flag):
    value = make(flag)
    total = 0 if isinstance(value, Writer) else value.send(1)
    if isinstance(value, (Other, Writer)):
        pass
    else:
        total += value.send(2)
    if not isinstance(value, Writer):
        total += value.send(3)
    if isinstance(value, Other):
        total += 1
    else:
        total += value.send(4)
    return total + value.send(5)
"""
    assert _stale(git_repo, {"examples/custom.py": use}) == [
        ("examples/custom.py", 20),
        ("examples/custom.py", 21),
    ]
