"""False alarms of the ninth and tenth fresh rounds of real history (issue 20), each rebuilt as a small
repository beside the case that must still be reported: paths the flagged line is never on, and names
something else still provides."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

COMPAT_OLD = "import sys\n\nPY3 = sys.version_info[0] >= 3\nif PY3:\n    unicode = str\n"
COMPAT_NEW = "import sys\n\nPY3 = sys.version_info[0] >= 3\n"


def test_a_python2_builtin_read_where_only_python2_runs_is_bound_there(git_repo: GitRepo) -> None:
    """pexpect a4b8165d removes `if PY3: unicode = str` and keeps `unicode(s)` in the `else:` of
    `if PY3:`, where Python 2's own `unicode` answers. The read outside that branch is broken."""
    body = (
        "\n\ndef show(s):\n    if PY3:\n        return str(s)\n    else:\n        return unicode(s)\n"
        "\n\ndef old(s):\n    if sys.version_info < (3,):\n        return unicode(s)\n    return unicode(s)\n"
    )
    run = review(git_repo, {"t.py": COMPAT_OLD + body}, {"t.py": COMPAT_NEW + body})
    assert sites(run, "dangling-reference") == [("t.py", 16)]


def test_a_branch_on_a_newer_python_3_is_not_a_python2_branch(git_repo: GitRepo) -> None:
    body = (
        "\n\ndef show(s):\n    if sys.version_info >= (3, 6):\n        return str(s)\n    return unicode(s)\n"
    )
    run = review(git_repo, {"t.py": COMPAT_OLD + body}, {"t.py": COMPAT_NEW + body})
    assert sites(run, "dangling-reference") == [("t.py", 9)]  # Python 3.5 runs it too


def test_a_guarded_import_leaves_what_a_star_import_bound(git_repo: GitRepo) -> None:
    """funcy c6ccccd2 drops `lwhere`; its tests import `*` from the module, then try `from funcy.colls
    import lwhere as where` under `except ImportError: pass`: `where` stays the star import's."""
    colls = "def where(xs):\n    return list(xs)\n\n\ndef lwhere(xs):\n    return list(xs)\n"
    test = "from pkg.colls import *\n\ntry:\n    from pkg.colls import lwhere as where\nexcept ImportError:\n"
    test += "    pass\n\n\ndef test_where():\n    assert where([1]) == [1]\n"
    bare = "try:\n    from pkg.colls import lwhere as where\nexcept ImportError:\n    pass\n\n\n"
    bare += "def test_where():\n    assert where([1]) == [1]\n"
    files = {"pkg/__init__.py": "", "pkg/colls.py": colls, "tests/test_c.py": test, "tests/test_d.py": bare}
    new = "def where(xs):\n    return list(xs)\n"
    run = review(git_repo, files, {"pkg/colls.py": new})
    assert sites(run, "dangling-reference") == [("tests/test_d.py", 8)]  # nothing else binds `where`


DEVICE = """class Device:
    def render(self, state, seq):
        return


class TextDevice(Device):
    def render(self, state, seq):
        return seq
"""
TEXT_DEVICE_NOW = "    def render(self, state, seq, ncs, gs):\n        return seq\n"


@pytest.mark.parametrize(
    ("call", "expected"), [("1, seq, 'gray', {}", []), ("1, seq", [("pkg/device.py", 7)])]
)
def test_an_override_of_a_do_nothing_default_that_every_call_fits_breaks_nothing(
    git_repo: GitRepo, call: str, expected: list[tuple[str, int]]
) -> None:
    """pdfminer 2231f089 makes `PDFTextDevice.render_string` take `ncs, graphicstate`; the base
    `PDFDevice.render_string(self, textstate, seq): return` is a default that does nothing, and the one
    call, the interpreter's, passes all four. A call of the base's shape would fail on the override."""
    use = f"from pkg.device import Device\n\n\ndef run(device: Device, seq):\n    device.render({call})\n"
    new = DEVICE.replace("    def render(self, state, seq):\n        return seq\n", TEXT_DEVICE_NOW)
    files = {"pkg/__init__.py": "", "pkg/device.py": DEVICE, "pkg/use.py": use}
    run = review(git_repo, files, {"pkg/device.py": new})
    assert sites(run, "override-mismatch") == expected


SERVER = """class Server:
    def handle(self, environ, start):
        return self._connect(environ, start, "polling")

    def _connect(self, environ, start, transport, b64=False):
        return transport


class AsyncServer(Server):
{handle}
    def _connect(self, environ, transport, b64=False):
        return transport
"""
OWN_HANDLE = """    def handle(self, environ):
        return self._connect(environ, "polling")
"""
HANDING_ON = """    def handle(self, environ):
        return super().handle(environ, None)
"""


@pytest.mark.parametrize(
    ("handle", "expected"),
    [(OWN_HANDLE, []), ("", [("pkg/server.py", 11)]), (HANDING_ON, [("pkg/server.py", 13)])],
)
def test_an_override_whose_class_overrides_every_caller_of_the_base_is_never_called_through_it(
    git_repo: GitRepo, handle: str, expected: list[tuple[str, int]]
) -> None:
    """python-engineio 36a15987: the private base method's only caller is one of the base's own methods,
    and the subclass overrides that caller too, so the base's calls never run on its instances. A
    subclass that inherits the caller, or whose caller hands on to it through `super()` (litestar
    2497aaf7's `on_registration`), gets the base's call."""
    old = SERVER.format(handle=handle)
    new = old.replace(
        "b64=False):\n        return transport\n\n\n",
        "b64=False, jsonp=None):\n        return transport\n\n\n",
        1,
    )
    new = new.replace('start, "polling")', 'start, "polling", False, 1)')
    run = review(git_repo, {"pkg/__init__.py": "", "pkg/server.py": old}, {"pkg/server.py": new})
    assert sites(run, "override-mismatch") == expected


def test_a_package_that_installs_modules_under_computed_names_may_still_provide_any(
    git_repo: GitRepo,
) -> None:
    """elasticsearch-dsl 9e525956 deletes its code and points every `elasticsearch_dsl.*` entry of
    `sys.modules` at the installed `elasticsearch.dsl.*` module."""
    redirect = "import sys\n\nfrom other import dsl\n\nfor mod in list(sys.modules):\n"
    redirect += "    if mod.startswith('other.dsl'):\n"
    redirect += "        sys.modules[mod.replace('other.dsl', 'pkg')] = sys.modules[mod]\n"
    files = {
        "pkg/__init__.py": "from pkg.search import Search\n",
        "pkg/search.py": "class Search:\n    pass\n",
        "use.py": "from pkg.search import Search\nfrom pkg import Search as S\n",
    }
    run = review(git_repo, files, {"pkg/__init__.py": redirect, "pkg/search.py": None})
    assert [f for f in run.findings if f.rule == "dangling-reference"] == []


BUS = """class BusABC:
    def __init__(self, channel, **config):
        self.channel = channel


class Bus(BusABC):
    def __new__(cls, channel=None, *args, **config):
        return VirtualBus(channel)


class VirtualBus(BusABC):
    pass
"""


def test_a_call_of_a_subclass_with_its_own_new_is_not_judged_by_the_changed_init(git_repo: GitRepo) -> None:
    """python-can 51e8c4fe makes `BusABC.__init__` require `channel`; `Bus(bustype='virtual')` goes to
    `Bus.__new__`, which fills `channel` and builds the backend's bus. A plain subclass still breaks."""
    old = BUS.replace("def __init__(self, channel, **config)", "def __init__(self, channel=None, **config)")
    use = "from pkg.bus import Bus, VirtualBus\n\nBus(bustype='virtual')\nVirtualBus(bustype='virtual')\n"
    files = {"pkg/__init__.py": "", "pkg/bus.py": old, "use.py": use}
    run = review(git_repo, files, {"pkg/bus.py": BUS})
    assert sites(run, "breaking-call") == [("use.py", 4)]


def test_a_base_bound_in_two_branches_provides_what_either_class_has(git_repo: GitRepo) -> None:
    """cloudpickle 2da4c243 drops its own `save_reduce`: `Pickler` is `pickle.Pickler` on Python 2 and
    `pickle._Pickler` on Python 3, whose pure-Python class has `save_reduce`."""
    head = "import sys\n\nif sys.version < '3':\n    from pickle import Pickler\nelse:\n"
    head += "    from pickle import _Pickler as Pickler\n\n\nclass CloudPickler(Pickler):\n"
    old = head + "    def save_reduce(self, func, args):\n        return func\n\n"
    old += "    def save_thing(self, obj):\n        self.save_reduce(type(obj), ())\n"
    new = head + "    def save_thing(self, obj):\n        self.save_reduce(type(obj), ())\n"
    run = review(git_repo, {"cp.py": old}, {"cp.py": new})
    assert sites(run, "dangling-reference") == []


SEARCH = """from typing import Self


class SearchBase:
    def __getitem__(self, k) -> Self:
        return self

    def count(self):
        return 0


class Search(SearchBase):
    pass
"""


def test_self_returned_on_a_subclass_instance_is_that_subclass(git_repo: GitRepo) -> None:
    """elasticsearch-dsl 2c2d0f33 moves `count()` from `FacetedSearchBase` to its subclasses; `cs[0:20]`,
    through `__getitem__(self, k) -> Self`, is still the subclass's instance."""
    moved = SEARCH.replace(
        "    def count(self):\n        return 0\n\n\nclass Search(SearchBase):\n    pass\n", ""
    )
    moved += "\n\nclass Search(SearchBase):\n    def count(self):\n        return 0\n"
    use = "from pkg.search import Search, SearchBase\n\n\ndef run():\n    cs = Search()[0:20]\n"
    use += "    base = SearchBase()[0:1]\n    cs.count()\n    return base.count()\n"
    files = {"pkg/__init__.py": "", "pkg/search.py": SEARCH, "pkg/use.py": use}
    run = review(git_repo, files, {"pkg/search.py": moved})
    assert sites(run, "dangling-reference") == [("pkg/use.py", 8)]  # only the base's own instance


def test_a_queryset_method_on_a_receiver_of_unknown_type_is_not_taken_for_the_removed_one(
    git_repo: GitRepo,
) -> None:
    """django-cacheops 9043262c drops its queryset mixin's `all()`; `Post.objects.all()` is Django's."""
    mixin = "class QuerySetMixin:\n    def all(self):\n        return self\n\n    def nocache(self):\n"
    mixin += "        return self\n"
    use = "def run(model):\n    model.objects.all()\n    return model.objects.nocache()\n"
    files = {"pkg/__init__.py": "", "pkg/query.py": mixin, "pkg/use.py": use}
    new = mixin.replace("    def all(self):\n        return self\n\n", "").replace(
        "    def nocache", "    def nocache"
    )
    new = new.replace("def nocache(self):\n        return self\n", "def other(self):\n        return self\n")
    run = review(git_repo, files, {"pkg/query.py": new})
    assert sites(run, "dangling-reference") == [("pkg/use.py", 3)]  # `nocache` is only ours


def test_a_package_beside_a_module_of_its_name_is_what_imports_find(git_repo: GitRepo) -> None:
    """django-constance 82e19cec empties `constance/backends.py` and adds `constance/backends/`, whose
    `__init__.py` defines `Backend`: Python's import finds the package first."""
    backend = "class Backend:\n    pass\n"
    use = "from pkg.backends import Backend\n\n\nclass Redis(Backend):\n    pass\n"
    files = {"pkg/__init__.py": "", "pkg/backends.py": backend, "pkg/use.py": use}
    run = review(git_repo, files, {"pkg/backends.py": "", "pkg/backends/__init__.py": backend})
    assert sites(run, "dangling-reference") == []


MIXINS = """import unittest


class BlockingMixin:
    def setUp(self):
        self.blocked = False


class QueueMixin(BlockingMixin):
    def setUp(self):
        self.count = 0
        super().setUp()


class QueueTest(QueueMixin, unittest.TestCase):
    pass
"""


@pytest.mark.parametrize(("bases", "expected"), [("QueueMixin, unittest.TestCase", []), ("QueueMixin", [11])])
def test_a_mixin_s_super_call_reaches_what_every_class_using_it_gets_from_another_base(
    git_repo: GitRepo, bases: str, expected: list[int]
) -> None:
    """janus ec8592b9 drops `BlockingTestMixin.setUp`; `super().setUp()` in the queue mixin still reaches
    `unittest.TestCase.setUp` in every test class that uses it. Without that base it breaks."""
    old = MIXINS.replace("QueueMixin, unittest.TestCase", bases)
    new = old.replace("    def setUp(self):\n        self.blocked = False\n", "    pass\n")
    run = review(git_repo, {"tests/test_q.py": old}, {"tests/test_q.py": new})
    assert [line for _path, line in sites(run, "dangling-reference")] == expected


STORAGE = """import abc
import asyncio


class AbstractStorage(metaclass=abc.ABCMeta):
{decorators}    def save_session(self, response):
        pass


class Simple(AbstractStorage):
    @asyncio.coroutine
    def save_session(self, request, response):
        yield from request
"""


def test_a_method_s_stacked_decorators_are_all_read(git_repo: GitRepo) -> None:
    """aiohttp-session 683588e4: the base `save_session` is under `@asyncio.coroutine` and
    `@abc.abstractmethod`; the code index split the method after its first decorator and read the base as a
    plain `def`, so the coroutine override looked async against a plain base."""
    old = STORAGE.format(decorators="    @asyncio.coroutine\n    @abc.abstractmethod\n")
    new = old.replace("(self, response):", "(self, request, response, session):")
    new = new.replace(
        "(self, request, response):\n        yield from request",
        "(self, request, response, session):\n        return 1",
    )
    run = review(git_repo, {"s.py": old}, {"s.py": new})
    assert sites(run, "override-mismatch") == []


CONNECTION = """\
class AbstractConnection:
    def close(self):
        raise NotImplementedError


class Connection(AbstractConnection):
    def close(self):
        return None

    def drain(self):
        return None

    def copy_modified(self):
        return self


class Other(AbstractConnection):
    def copy_modified(self):
        return self
"""
CHANNEL = """\
from pkg.conn import AbstractConnection


class Channel:
    def __init__(self, connection: AbstractConnection, writer):
        self.connection = connection
        self.writer = writer

    def ack(self):
        return self.connection.drain()

    def flush(self):
        return self.writer.drain()

    def copy(self):
        return self.connection.copy_modified()
"""


def test_a_common_name_on_a_receiver_declared_as_a_base_of_ours_is_still_ours(git_repo: GitRepo) -> None:
    """aiormq e0dc5ce6 removes `Connection.drain`: `self.connection.drain()` on an `AbstractConnection`
    is reported though `drain` is an asyncio `StreamWriter`'s name too; `self.writer.drain()`, of unknown
    type, is not. mypy bc39f1714e: `copy_modified`, which another subclass of the base still defines, is
    not reported on a receiver declared as the base."""
    base = {"pkg/__init__.py": "", "pkg/conn.py": CONNECTION, "pkg/channel.py": CHANNEL}
    new = CONNECTION.replace("    def drain(self):\n        return None\n\n", "").replace(
        "    def copy_modified(self):\n        return self\n\n\nclass Other", "\n\nclass Other"
    )
    run = review(git_repo, base, {"pkg/conn.py": new})
    assert sites(run, "dangling-reference") == [("pkg/channel.py", 10)]


PORTAL_BASE = """class Portal:
    def call(self, func, *args):
        return self._spawn(func, args, {name})

    def _spawn(self, func, args{parameter}):
        return func(*args)
"""
PORTAL_BACKEND = """from pkg import abc


class Portal(abc.Portal):
    def _spawn(self, func, args):
        return func(*args)
"""


def test_a_subclass_sharing_its_base_class_name_is_judged_the_same_whatever_the_hash_seed(
    git_repo: GitRepo,
) -> None:
    """anyio 6172cebac2: `BlockingPortal` in the abc and in each backend. The bare name told the caller's
    class apart from the override's in set order, so the override was reported or not from one run to
    the next. The base's own `call` runs on the backend's instances: the override no longer fits it."""
    git_repo.write("pkg/__init__.py", "")
    git_repo.write("pkg/abc.py", PORTAL_BASE.format(name="", parameter=""))
    git_repo.write("pkg/backend.py", PORTAL_BACKEND)
    git_repo.commit("base")
    git_repo.write("pkg/abc.py", PORTAL_BASE.format(name="None", parameter=", name=None"))
    git_repo.commit("the base's _spawn takes a name, which its caller passes")
    found = set()
    for seed in range(6):
        done = subprocess.run(
            [sys.executable, "-m", "prscope", "review", "--base", "HEAD^", "--offline", "--format", "json"],
            cwd=git_repo.root,
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            check=False,
        )
        report = json.loads(done.stdout)
        found.add(
            tuple((f["path"], f["line"]) for f in report["findings"] if f["rule"] == "override-mismatch")
        )
    assert found == {(("pkg/backend.py", 5),)}
