"""False alarms of round 16 of the real-history noise check (`bench/noise59-*.json`, issue 20), each rebuilt
as a small repository of that shape."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

CHANNEL = (
    "class Channel:\n    def unary_unary(self, method, request):\n        return method, request\n\n"
    "    def close(self):\n        return None\n"
)
STUB = (
    "class GreeterStub:\n    def __init__(self, channel):\n"
    "        self.say_hello = channel.unary_unary({arguments})\n"
)


def _unary_unary_removed(git_repo: GitRepo, arguments: str) -> list[tuple[str, int]]:
    """`Channel.unary_unary` removed, with a generated stub calling `channel.unary_unary(arguments)` on a
    parameter nothing types."""
    files = {
        "grpclib/__init__.py": "",
        "grpclib/client.py": CHANNEL,
        "example/stub_grpc.py": STUB.format(arguments=arguments),
    }
    after = CHANNEL.replace(
        "    def unary_unary(self, method, request):\n        return method, request\n\n", ""
    )
    return sites(review(git_repo, files, {"grpclib/client.py": after}), "dangling-reference")


def test_a_call_the_removed_method_never_took_is_on_another_class_s_object(git_repo: GitRepo) -> None:
    # grpclib 88d5bcc30f: grpcio's generated stubs call `channel.unary_unary(path, request_serializer=...)`
    assert _unary_unary_removed(git_repo, "'/Greeter/SayHello', request_serializer=str") == []


def test_a_call_the_removed_method_took_is_still_reported(git_repo: GitRepo) -> None:
    assert _unary_unary_removed(git_repo, "'/Greeter/SayHello', b''") == [("example/stub_grpc.py", 3)]


POOL = (
    "class Pool:\n    def __init__(self, dsn):\n        self.dsn = dsn\n\n"
    "    def __await__(self):\n        return self._start().__await__()\n\n"
    "    async def _start(self):\n        return self\n\n\n"
)
CREATE = "{kind} create_pool(dsn):\n    pool = Pool(dsn)\n    return {returned}\n"
USE = "from pkg.pool import create_pool\n\n\nasync def test_pool():\n    pool = await create_pool('x')\n"


def _create_pool_no_longer_async(git_repo: GitRepo, returned: str) -> list[tuple[str, int]]:
    before = POOL + CREATE.format(kind="async def", returned="await pool")
    after = POOL + CREATE.format(kind="def", returned=returned)
    files = {"pkg/__init__.py": "", "pkg/pool.py": before, "tests/test_pool.py": USE}
    return sites(review(git_repo, files, {"pkg/pool.py": after}), "async-mismatch")


def test_a_function_now_plain_returning_an_awaitable_object_is_still_awaited_fine(git_repo: GitRepo) -> None:
    # edgedb-python 49c72ab8ef: `pool = AsyncIOPool(...)`, `return pool`; AsyncIOPool defines __await__
    assert _create_pool_no_longer_async(git_repo, "pool") == []


def test_a_function_now_plain_returning_a_plain_value_is_reported(git_repo: GitRepo) -> None:
    assert _create_pool_no_longer_async(git_repo, "pool.dsn") == [("tests/test_pool.py", 5)]


SERVERS = (
    "class FTPServer:\n    def _log_start(self{new}):\n        return {returned}\n\n"
    "    def serve_forever(self, workers=None):\n        self._log_start({passed})\n\n\n"
    "class Spawner(FTPServer):\n    def _log_start(self):\n        return FTPServer._log_start(self)\n\n"
    "    def serve_forever(self):\n{body}"
)


def _log_start_gains_prefork(git_repo: GitRepo, body: str) -> list[tuple[str, int]]:
    """`FTPServer._log_start` gains `prefork=False`, which `FTPServer.serve_forever` passes; Spawner
    overrides both, its `serve_forever` being `body`."""
    before = SERVERS.format(new="", returned="1", passed="", body=body)
    after = SERVERS.format(new=", prefork=False", returned="prefork", passed="prefork=True", body=body)
    return sites(review(git_repo, {"servers.py": before}, {"servers.py": after}), "override-mismatch")


def test_a_call_in_a_method_the_override_s_class_replaces_never_reaches_it(git_repo: GitRepo) -> None:
    # pyftpdlib d20d518d95: only FTPServer.serve_forever passes `prefork`; _SpawnerBase replaces it
    assert _log_start_gains_prefork(git_repo, "        self._log_start()\n") == []


def test_a_call_in_a_method_the_override_s_class_extends_reaches_it(git_repo: GitRepo) -> None:
    body = "        super().serve_forever()\n        self._log_start()\n"
    assert _log_start_gains_prefork(git_repo, body) == [("servers.py", 10)]


COLLECTION = "class Collection:\n    def remove(self, {parameters}):\n{body}        return spec\n"
CALLER = "from coll import Collection\n\n\ndef drop(c: Collection):\n    c.remove({'name': 'bob'})\n"


def _remove_renamed(git_repo: GitRepo, body: str) -> list[tuple[str, int]]:
    before = COLLECTION.format(parameters="search_filter=None", body="        spec = search_filter\n")
    after = COLLECTION.format(parameters="spec_or_id=None, search_filter=None", body=body)
    run = review(git_repo, {"coll.py": before, "use.py": CALLER}, {"coll.py": after})
    return sites(run, "breaking-call")


def test_a_parameter_that_falls_back_on_the_one_it_displaced_means_the_same(git_repo: GitRepo) -> None:
    # mongomock 7475fbf3a6: `spec_or_id = search_filter if search_filter else {}`
    body = "        if spec_or_id is None:\n            spec_or_id = search_filter if search_filter else {}\n"
    assert _remove_renamed(git_repo, body + "        spec = spec_or_id\n") == []


def test_a_parameter_unrelated_to_the_one_it_displaced_is_a_shift(git_repo: GitRepo) -> None:
    body = "        spec = spec_or_id or {}\n        print(search_filter)\n"
    assert _remove_renamed(git_repo, body) == [("use.py", 5)]
