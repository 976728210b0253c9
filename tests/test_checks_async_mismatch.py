"""async-mismatch: callers left behind when a function becomes `async def` (or stops being one)."""

from __future__ import annotations

import pytest
from prscope.analysis.checks import ChecksConfig
from prscope.analysis.findings import Finding

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

SERVICE = """\
class Store:
    def load(self, key):
        return {"key": key}

    def keys(self):
        return ["a"]


def fetch(url):
    return url


async def ping(host):
    return host
"""

TO_ASYNC = SERVICE.replace("    def load(self, key)", "    async def load(self, key)").replace(
    "def fetch(url)", "async def fetch(url)"
)
TO_SYNC = SERVICE.replace("async def ping(host)", "def ping(host)")


def _run(git_repo: GitRepo, new_service: str, callers: dict[str, str]) -> list[Finding]:
    base = {"pkg/__init__.py": "", "pkg/service.py": SERVICE, **callers}
    run = review(git_repo, base, {"pkg/service.py": new_service})
    assert run.errors == []
    return [f for f in run.findings if f.rule == "async-mismatch"]


def _at(findings: list[Finding], path: str, line: int) -> Finding:
    matching = [f for f in findings if (f.path, f.line) == (path, line)]
    assert len(matching) == 1, [(f.path, f.line) for f in findings]
    return matching[0]


BROKEN_CALLERS = """\
from pkg.service import Store, fetch


def sync_job(store: Store):
    store.load(1)
    fetch("a")
    return fetch("b")


async def async_job(store: Store):
    store.load(2)
    value = store.load(3)["key"]
    result = fetch("c")
    if fetch("d"):
        return result.upper()
"""


def test_calls_that_never_await_the_new_coroutine_are_errors_on_the_callee(git_repo: GitRepo) -> None:
    findings = _run(git_repo, TO_ASYNC, {"jobs.py": BROKEN_CALLERS})

    assert sorted((f.path, f.line) for f in findings) == [
        ("jobs.py", 5),
        ("jobs.py", 6),
        ("jobs.py", 7),
        ("jobs.py", 11),
        ("jobs.py", 12),
        ("jobs.py", 13),
        ("jobs.py", 14),
    ]
    dropped = _at(findings, "jobs.py", 5)
    assert dropped.severity == "error"
    assert dropped.column == 11
    assert "never awaited" in dropped.message and "body of `Store.load` never runs" in dropped.message
    assert dropped.suggestion is None  # a plain function cannot simply await
    assert dropped.related[0].path == "pkg/service.py" and dropped.related[0].line == 2
    returned = _at(findings, "jobs.py", 7)
    assert "The plain function `sync_job` returns this call" in returned.message


def test_inside_an_async_def_the_fix_is_a_certain_await(git_repo: GitRepo) -> None:
    findings = _run(git_repo, TO_ASYNC, {"jobs.py": BROKEN_CALLERS})

    replacements = {f.line: f.suggestion.replacement for f in findings if f.suggestion is not None}
    assert replacements == {
        11: "    await store.load(2)",
        12: '    value = (await store.load(3))["key"]',
        13: '    result = await fetch("c")',
        14: '    if await fetch("d"):',
    }


FINE_CALLERS = """\
import asyncio
from typing import Awaitable

import anyio
import trio

from pkg import service
from pkg.service import Store, fetch


async def awaited(store: Store):
    first = await store.load(1)
    pending = fetch("x")
    return first, await pending


def runners(loop):
    asyncio.run(fetch("a"))
    loop.run_until_complete(fetch("b"))
    anyio.run(fetch, "c")
    trio.run(service.fetch, "d")


async def scheduled(nursery, group):
    task = asyncio.create_task(fetch("e"))
    future = asyncio.ensure_future(fetch("f"))
    both = await asyncio.gather(fetch("g"), fetch("h"))
    nursery.start_soon(fetch, "i")
    group.start_soon(service.fetch, "j")
    coroutines = [fetch(u) for u in "kl"]
    await asyncio.wait_for(fetch("m"), 1)
    return task, future, both, coroutines


async def forwarded() -> Awaitable[str]:
    return fetch("n")


def handed_on(runner):
    runner(fetch("o"))
    return [fetch("p")]


def unknown_receiver(store):
    store.load(1)
"""


def test_awaited_scheduled_forwarded_or_unknown_calls_are_fine(git_repo: GitRepo) -> None:
    assert _run(git_repo, TO_ASYNC, {"fine.py": FINE_CALLERS}) == []


def test_a_coroutine_returned_unawaited_from_an_async_def_or_unpacked_is_a_value(git_repo: GitRepo) -> None:
    callers = """\
from pkg.service import fetch


async def forwarded():
    return fetch("n")


def unpacked(show):
    show(**fetch("o"))
    return Result(data=fetch("p"))


class Result:
    def __init__(self, data):
        self.data = data
"""
    findings = _run(git_repo, TO_ASYNC, {"more.py": callers})
    assert sorted(f.line for f in findings) == [5, 9, 10]
    returned = _at(findings, "more.py", 5)
    assert (
        returned.suggestion is not None
        and returned.suggestion.replacement.strip() == 'return await fetch("n")'
    )


def test_a_method_called_through_self_in_a_subclass(git_repo: GitRepo) -> None:
    caller = (
        "from pkg.service import Store\n\n\n"
        "class Cached(Store):\n"
        "    def get(self, key):\n"
        "        return self.load(key)\n\n"
        "    async def warm(self):\n"
        "        self.load('a')\n"
    )
    findings = _run(git_repo, TO_ASYNC, {"cache.py": caller})

    assert [(f.path, f.line) for f in findings] == [("cache.py", 6), ("cache.py", 9)]
    assert findings[1].suggestion is not None
    assert findings[1].suggestion.replacement == "        await self.load('a')"


def test_an_override_that_stays_sync_is_what_subclass_callers_reach(git_repo: GitRepo) -> None:
    caller = (
        "from pkg.service import Store\n\n\n"
        "class Memory(Store):\n"
        "    def load(self, key):\n"
        "        return key\n\n\n"
        "def use(store: Memory):\n"
        "    return store.load(1)\n"
    )
    assert _run(git_repo, TO_ASYNC, {"memory.py": caller}) == []


def test_await_on_what_became_a_plain_function_is_an_error_with_the_await_dropped(git_repo: GitRepo) -> None:
    caller = (
        "import asyncio\n\nimport trio\n\nfrom pkg.service import ping\n\n\n"
        "async def check(nursery):\n"
        "    alive = await ping('h')\n"
        "    nursery.start_soon(ping, 'h')\n"
        "    return alive\n\n\n"
        "def main():\n"
        "    asyncio.run(ping('h'))\n"
        "    trio.run(ping, 'h')\n"
        "    return ping('h')\n"
    )
    findings = _run(git_repo, TO_SYNC, {"check.py": caller})

    assert sorted((f.path, f.line) for f in findings) == [
        ("check.py", 9),
        ("check.py", 10),
        ("check.py", 15),
        ("check.py", 16),
    ]
    awaited = _at(findings, "check.py", 9)
    assert "can't be used in 'await' expression" in awaited.message
    assert awaited.suggestion is not None and awaited.suggestion.replacement == "    alive = ping('h')"
    assert "expects an async function" in _at(findings, "check.py", 10).title
    assert "expects a coroutine" in _at(findings, "check.py", 15).message


def test_a_plain_function_that_returns_an_awaitable_is_still_awaitable(git_repo: GitRepo) -> None:
    new = SERVICE.replace(
        "async def ping(host):\n    return host\n",
        "def ping(host) -> Awaitable[str]:\n    return _ping(host)\n\n\n"
        "async def _ping(host):\n    return host\n",
    )
    new = "from typing import Awaitable\n\n" + new
    caller = "from pkg.service import ping\n\n\nasync def check():\n    return await ping('h')\n"
    assert _run(git_repo, new, {"check.py": caller}) == []


@pytest.mark.parametrize(
    ("body", "expected"), [("_listed(host)", []), ("[host]", [("check.py", 5)])], ids=["coroutine", "plain"]
)
def test_a_plain_function_handing_on_a_helper_s_coroutine_keeps_its_old_declaration_harmlessly(
    git_repo: GitRepo, body: str, expected: list[tuple[str, int]]
) -> None:
    """aiodocker 5a6cbfbc: `async def pull(...) -> Mapping` becomes a plain `def` that returns
    `self._handle_response(cm, stream)`, whose non-streaming branch returns an `async def`'s coroutine;
    `await images.pull(...)` still works. A helper that returns a plain value is still a change."""
    helper = (
        f"def _respond(host, stream):\n    if stream:\n        return _lines(host)\n    return {body}\n\n\n"
    )
    lines = "async def _lines(host):\n    yield host\n\n\n"
    listed = "async def _listed(host):\n    return [host]\n"
    new = SERVICE.replace(
        "async def ping(host):\n    return host\n",
        "def ping(host, stream=False) -> str:\n    return _respond(host, stream)\n\n\n"
        + helper
        + lines
        + listed,
    )
    caller = "from pkg.service import ping\n\n\nasync def check():\n    return await ping('h')\n"
    findings = _run(git_repo, new, {"check.py": caller})
    assert [(f.path, f.line) for f in findings] == expected


def test_decorated_functions_and_generators_are_left_alone(git_repo: GitRepo) -> None:
    service = (
        "def task(f):\n    return f\n\n\n@task\ndef job():\n    return 1\n\n\ndef rows():\n    yield 1\n"
    )
    new = service.replace("@task\ndef job", "@task\nasync def job").replace(
        "def rows():\n    yield", "async def rows():\n    yield"
    )
    caller = "from pkg.service import job, rows\n\njob()\nlist(rows())\n"
    run = review(
        git_repo,
        {"pkg/__init__.py": "", "pkg/service.py": service, "use.py": caller},
        {"pkg/service.py": new},
    )
    assert sites(run, "async-mismatch") == []


def test_the_rule_can_be_switched_off(git_repo: GitRepo) -> None:
    base = {"pkg/__init__.py": "", "pkg/service.py": SERVICE, "jobs.py": BROKEN_CALLERS}
    config = ChecksConfig(enabled={"async-mismatch": False})
    run = review(git_repo, base, {"pkg/service.py": TO_ASYNC}, config)
    assert sites(run, "async-mismatch") == []
    assert "async-mismatch" not in run.timings


def test_a_declared_awaitable_result_that_becomes_a_plain_value(git_repo: GitRepo) -> None:
    service = (
        "from typing import Any, Coroutine\n\n\n"
        "def deadline() -> Coroutine[Any, Any, float]:\n    return backend().deadline()\n"
    )
    new = "def deadline() -> float:\n    return backend().deadline()\n"
    caller = "from pkg.service import deadline\n\n\nasync def check():\n    return await deadline() > 1\n"
    base = {"pkg/__init__.py": "", "pkg/service.py": service, "use.py": caller}
    run = review(git_repo, base, {"pkg/service.py": new})
    (finding,) = [f for f in run.findings if f.rule == "async-mismatch"]
    assert (finding.path, finding.line) == ("use.py", 5)
    assert finding.suggestion is not None and finding.suggestion.replacement == "    return deadline() > 1"


def test_a_function_that_returned_an_awaitable_and_becomes_async_breaks_only_dropped_calls(
    git_repo: GitRepo,
) -> None:
    service = (
        "class Writer:\n"
        "    def write(self, chunk):\n"
        "        self.buffer = chunk\n"
        "        return self.drain()\n\n"
        "    async def drain(self):\n"
        "        return None\n"
    )
    new = service.replace("    def write(self, chunk):", "    async def write(self, chunk):").replace(
        "return self.drain()", "await self.drain()"
    )
    caller = (
        "from pkg.service import Writer\n\n\n"
        "async def send(writer: Writer):\n"
        "    writer.write(b'a')\n"
        "    pending = writer.write(b'b')\n"
        "    await pending\n"
        "    return writer.write(b'c')\n"
    )
    base = {"pkg/__init__.py": "", "pkg/service.py": service, "send.py": caller}
    run = review(git_repo, base, {"pkg/service.py": new})
    assert sites(run, "async-mismatch") == [("send.py", 5)]


def test_adding_type_hints_is_not_a_change_of_kind(git_repo: GitRepo) -> None:
    service = "def current_task():\n    return _running()\n\n\ndef _running():\n    return None\n"
    new = service.replace("def current_task():", "def current_task() -> Task[Any] | trio.lowlevel.Task:")
    caller = "from pkg.service import current_task\n\n\ndef check():\n    return current_task()\n"
    base = {"pkg/__init__.py": "", "pkg/service.py": service, "use.py": caller}
    assert sites(review(git_repo, base, {"pkg/service.py": new}), "async-mismatch") == []


def test_a_deferred_that_becomes_a_coroutine_breaks_callers_returning_it_as_a_deferred(
    git_repo: GitRepo,
) -> None:
    service = (
        "from twisted.internet.defer import Deferred\n\n\n"
        "class Manager:\n"
        "    def chain(self, item) -> Deferred[Any]:\n"
        "        return process_chain(item)\n"
    )
    new = service.replace(
        "    def chain(self, item) -> Deferred[Any]:", "    async def chain(self, item):"
    ).replace("return process_chain(item)", "return await process_chain(item)")
    caller = (
        "from pkg.service import Manager\n\n\n"
        "class Pipelines(Manager):\n"
        "    def process_item(self, item) -> Deferred[Any]:\n"
        "        return self.chain(item)\n\n"
        "    async def process_async(self, item):\n"
        "        return await self.chain(item)\n"
    )
    base = {"pkg/__init__.py": "", "pkg/service.py": service, "pipes.py": caller}
    assert sites(review(git_repo, base, {"pkg/service.py": new}), "async-mismatch") == [("pipes.py", 6)]


def test_an_abstract_method_declared_to_return_none_is_no_longer_async(git_repo: GitRepo) -> None:
    service = "class Event:\n    async def set(self) -> None:\n        '''Set the flag.'''\n"
    new = service.replace("async def set", "def set")
    caller = "from pkg.service import Event\n\n\nasync def finish(event: Event):\n    await event.set()\n"
    base = {"pkg/__init__.py": "", "pkg/service.py": service, "use.py": caller}
    assert sites(review(git_repo, base, {"pkg/service.py": new}), "async-mismatch") == [("use.py", 5)]


def test_a_method_that_returns_an_awaitable_wrapper_class_stays_awaitable(git_repo: GitRepo) -> None:
    service = "class Request:\n    async def form(self):\n        return {}\n"
    new = (
        "class Request:\n"
        "    async def _get_form(self):\n        return {}\n\n"
        "    def form(self) -> AwaitableOrContextManager[dict]:\n"
        "        return AwaitableOrContextManagerWrapper(self._get_form())\n"
    )
    caller = (
        "from pkg.service import Request\n\n\n"
        "async def view(request: Request):\n    return await request.form()\n"
    )
    base = {"pkg/__init__.py": "", "pkg/service.py": service, "view.py": caller}
    assert sites(review(git_repo, base, {"pkg/service.py": new}), "async-mismatch") == []


def test_a_function_now_returning_a_class_that_defines_await_stays_awaitable(git_repo: GitRepo) -> None:
    # websockets 8b5e7679: `async def unix_serve(...)` became `def unix_serve(...) -> Server`, and Server
    # defines `__await__`: `await unix_serve(handler)` still works
    service = (
        "class Server:\n    def __await__(self):\n        yield\n        return self\n\n\n"
        "async def unix_serve(handler) -> 'Server':\n    return Server()\n"
    )
    new = service.replace("async def unix_serve(handler) -> 'Server':", "def unix_serve(handler) -> Server:")
    caller = "from pkg.server import unix_serve\n\n\nasync def main():\n    await unix_serve(print)\n"
    base = {"pkg/__init__.py": "", "pkg/server.py": service, "main.py": caller}
    assert sites(review(git_repo, base, {"pkg/server.py": new}), "async-mismatch") == []


def test_a_query_class_awaitable_through_its_base_on_one_side_is_no_change(git_repo: GitRepo) -> None:
    # tortoise-orm 7f077c16: `QuerySet.bulk_update(...) -> "BulkUpdateQuery[MODEL]"` is unchanged, and
    # the commit gives BulkUpdateQuery an `__await__` of its own that it had through its base before
    service = (
        "class Awaitable:\n    def __await__(self):\n        yield\n\n\n"
        "class BulkUpdate(Awaitable):\n    pass\n\n\n"
        "class QuerySet:\n    def bulk_update(self, objects) -> 'BulkUpdate':\n        return BulkUpdate()\n"
    )
    new = service.replace(
        "class BulkUpdate(Awaitable):\n    pass",
        "class BulkUpdate(Awaitable):\n    def __await__(self):\n        yield",
    )
    caller = (
        "from pkg.query import QuerySet\n\n\ndef bulk(objects):\n    return QuerySet().bulk_update(objects)\n"
    )
    base = {"pkg/__init__.py": "", "pkg/query.py": service, "models.py": caller}
    assert sites(review(git_repo, base, {"pkg/query.py": new}), "async-mismatch") == []


def test_a_plain_def_returning_another_modules_class_that_defines_await_stays_awaitable(
    git_repo: GitRepo,
) -> None:
    # asyncpg 4259eec1: `async def prepare(self, query)` became `def prepare(self, query): return
    # prepared_stmt.PreparedStatement(self, query)`, and PreparedStatement (another module) defines
    # `__await__`: the 21 `await con.prepare(...)` still work. A class without `__await__` is still judged.
    statement = (
        "class PreparedStatement:\n    def __init__(self, con, query):\n        self.query = query\n\n"
        "    def __await__(self):\n        yield\n        return self\n\n\n"
        "class Plain:\n    def __init__(self, con, query):\n        self.query = query\n"
    )
    connection = (
        "from pkg import statement\n\n\n"
        "class Connection:\n"
        "    async def prepare(self, query):\n        return statement.PreparedStatement(self, query)\n\n"
        "    async def plain(self, query):\n        return statement.Plain(self, query)\n"
    )
    new = connection.replace("async def", "def")
    caller = (
        "from pkg.connection import Connection\n\n\n"
        "async def main(con: Connection):\n"
        "    st = await con.prepare('SELECT 1')\n"
        "    other = await con.plain('SELECT 2')\n"
        "    return st, other\n"
    )
    base = {
        "pkg/__init__.py": "",
        "pkg/statement.py": statement,
        "pkg/connection.py": connection,
        "main.py": caller,
    }
    assert sites(review(git_repo, base, {"pkg/connection.py": new}), "async-mismatch") == [("main.py", 6)]


def test_a_plain_declaration_over_a_call_declared_to_return_an_awaitable_class_says_nothing(
    git_repo: GitRepo,
) -> None:
    # beanie 1fd9bcfd: `async def update_all(cls, ...)` became `def update_all(cls, ...) -> UpdateResult:
    # return cls.find_all().update_many(...)`, and `update_many` is declared `-> UpdateMany`, a query class
    # with `__await__`: `await Document.update_all(...)` still works. `-> UpdateResult` names what awaiting
    # the result gives. A callee declared to return a plain class is still judged.
    queries = (
        "class UpdateResult:\n    pass\n\n\n"
        "class UpdateMany:\n    def __await__(self):\n        yield\n        return UpdateResult()\n\n\n"
        "class FindMany:\n"
        "    def update_many(self, *args) -> UpdateMany:\n        return UpdateMany()\n\n"
        "    def count_now(self) -> UpdateResult:\n        return UpdateResult()\n"
    )
    documents = (
        "from pkg.queries import FindMany, UpdateResult\n\n\n"
        "class Document:\n"
        "    @classmethod\n    def find_all(cls) -> FindMany:\n        return FindMany()\n\n"
        "    @classmethod\n    async def update_all(cls, *args) -> UpdateResult:\n"
        "        return cls.find_all().update_many(*args)\n\n"
        "    @classmethod\n    async def count_all(cls) -> UpdateResult:\n"
        "        return cls.find_all().count_now()\n"
    )
    new = documents.replace("async def", "def")
    caller = (
        "from pkg.documents import Document\n\n\n"
        "async def test_update():\n    await Document.update_all({})\n    await Document.count_all()\n"
    )
    base = {
        "pkg/__init__.py": "",
        "pkg/queries.py": queries,
        "pkg/documents.py": documents,
        "test_x.py": caller,
    }
    assert sites(review(git_repo, base, {"pkg/documents.py": new}), "async-mismatch") == [("test_x.py", 6)]
