"""async-mismatch on the shapes issue 20 lists: generator-based coroutines, `+=`, a coroutine object given
to a thread runner, and a method of the old result called on what is now a coroutine."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

CODEC = """\
import types


class Conn:
    def close(self):
        pass

    def start(self):
        pass


class Codec:
    def decode(self, chunk):
        return len(chunk)

    def connect(self):
        return Conn()

    @types.coroutine
    def fetch(self):
        yield
        return 1

    @types.coroutine
    def ping(self):
        yield
        return 2
"""
CODEC_NEW = (
    CODEC.replace("    def decode(self, chunk):", "    async def decode(self, chunk):")
    .replace("    def connect(self):", "    async def connect(self):")
    .replace(
        "    @types.coroutine\n    def fetch(self):\n        yield\n        return 1",
        "    def fetch(self):\n        return 1",
    )
    .replace(
        "    @types.coroutine\n    def ping(self):\n        yield\n        return 2",
        "    async def ping(self):\n        return 2",
    )
)
CALLERS = """\
import asyncio

from pkg.codec import Codec


def count(codec: Codec, chunks):
    total = 0
    for chunk in chunks:
        total += codec.decode(chunk)
    return total


async def threaded(codec: Codec):
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, codec.decode(b"x"))


def use_connection(codec: Codec):
    conn = codec.connect()
    conn.close()
    other = codec.connect()
    other.start()


async def awaits(codec: Codec):
    await codec.fetch()
    await codec.ping()
"""


def test_async_shapes(git_repo: GitRepo) -> None:
    base = {"pkg/__init__.py": "", "pkg/codec.py": CODEC, "pkg/use.py": CALLERS}
    run = review(git_repo, base, {"pkg/codec.py": CODEC_NEW})
    assert run.errors == []
    found = sites(run, "async-mismatch")
    # += on a coroutine; a coroutine object handed to a thread; `close()` / `start()` of the old result;
    # `await` on a generator-based coroutine that became a plain function. `ping` stays awaitable.
    assert found == [("pkg/use.py", line) for line in (9, 15, 19, 21, 26)]
    fetch = next(f for f in run.findings if f.line == 26)
    assert "no longer async" in fetch.title


def test_a_mixin_call_that_runs_the_concrete_classes_plain_method(git_repo: GitRepo) -> None:
    base = """\
class BaseClient:
    def resolve_peer(self, peer):
        raise NotImplementedError

    def send(self, data):
        raise NotImplementedError
"""
    methods = """\
from pkg.base import BaseClient


class GetChat(BaseClient):
    def get_chat(self, chat):
        self.send(chat)
        return self.resolve_peer(chat)
"""
    client = """\
from pkg.methods import GetChat


class Client(GetChat):
    def resolve_peer(self, peer):
        return peer
"""
    files = {"pkg/__init__.py": "", "pkg/base.py": base, "pkg/methods.py": methods, "pkg/client.py": client}
    new = base.replace("def resolve_peer", "async def resolve_peer").replace("def send", "async def send")
    run = review(git_repo, files, {"pkg/base.py": new})
    # `send` runs BaseClient's (now a coroutine); `resolve_peer` runs Client's plain one.
    assert sites(run, "async-mismatch") == [("pkg/methods.py", 6)]


def test_a_coroutine_stored_on_an_attribute_then_used_as_the_value(git_repo: GitRepo) -> None:
    callers = """\
from pkg.codec import Codec


class Request:
    def __init__(self, codec: Codec):
        self.conn = codec.connect()
        self.conn.start()
        self.later = codec.connect()
"""
    base = {"pkg/__init__.py": "", "pkg/codec.py": CODEC, "pkg/req.py": callers}
    run = review(git_repo, base, {"pkg/codec.py": CODEC_NEW})
    assert sites(run, "async-mismatch") == [("pkg/req.py", 6)]
