"""What is not a stale reference to the changed code (issue 20, item 6): objects of other classes with a
method of the same name, concrete classes that still define what an abstract base dropped, reads through
an alias of a removed name, a name a function binds again, and calls the change made right."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

BLOB = """\
class Blob:
    def write_bytes(self, data):
        return data

    def terminate(self):
        pass

    def keep(self):
        pass
"""
BLOB_NEW = """\
class Blob:
    def keep(self):
        pass
"""


def test_objects_of_other_classes_with_the_same_method(git_repo: GitRepo) -> None:
    test = """\
import subprocess

import pytest
from pkg.blob import Blob


@pytest.fixture
def server():
    proc = subprocess.Popen(["sleep", "1"])
    yield proc


def test_blob(tmp_path, server):
    (tmp_path / "f").write_bytes(b"x")
    server.terminate()
    Blob().write_bytes(b"y")
"""
    base = {"pkg/__init__.py": "", "pkg/blob.py": BLOB, "tests/test_blob.py": test}
    run = review(git_repo, base, {"pkg/blob.py": BLOB_NEW})
    assert sites(run, "dangling-reference") == [("tests/test_blob.py", 16)]


def test_a_method_an_abstract_base_dropped_that_every_concrete_class_defines(git_repo: GitRepo) -> None:
    base_module = """\
import abc


class Base(abc.ABC):
    @abc.abstractmethod
    def close(self):
        raise NotImplementedError

    def name(self):
        return "base"


class Concrete(Base):
    def close(self):
        pass
"""
    use = "from pkg.base import Base\n\n\ndef shutdown(x: Base):\n    x.close()\n"
    files = {"pkg/__init__.py": "", "pkg/base.py": base_module, "pkg/use.py": use}
    new = base_module.replace(
        "    @abc.abstractmethod\n    def close(self):\n        raise NotImplementedError\n\n", ""
    )
    run = review(git_repo, files, {"pkg/base.py": new})
    assert sites(run, "dangling-reference") == []


def test_reads_through_an_alias_of_a_removed_name_are_not_each_reported(git_repo: GitRepo) -> None:
    compat = "from pkg.util import helper\n\n_helper = helper\n\n\ndef run():\n    return _helper()\n"
    files = {
        "pkg/__init__.py": "",
        "pkg/util.py": "def helper():\n    return 1\n\n\ndef other():\n    return 2\n",
        "pkg/compat.py": compat,
        "pkg/user.py": "from pkg.compat import _helper\n\n_helper()\n",
    }
    run = review(git_repo, files, {"pkg/util.py": "def other():\n    return 2\n"})
    assert sites(run, "dangling-reference") == [("pkg/compat.py", 1), ("pkg/compat.py", 3)]


def test_a_name_a_function_binds_again_with_global_and_an_import(git_repo: GitRepo) -> None:
    old = "def helper():\n    return 1\n\n\ndef run():\n    return helper()\n"
    new = (
        "def init():\n    global helper\n    from pkg.fast import helper\n\n\n"
        "def run():\n    return helper()\n"
    )
    files = {
        "pkg/__init__.py": "",
        "pkg/fast.py": "def helper():\n    return 2\n",
        "pkg/m.py": old,
        "pkg/other.py": "from pkg.m import helper\n\nhelper()\n",
    }
    run = review(git_repo, files, {"pkg/m.py": new})
    assert sites(run, "dangling-reference") == []


def test_a_call_the_new_order_makes_right_is_not_reported(git_repo: GitRepo) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/net.py": "def connect(port, host):\n    return (host, port)\n",
        "pkg/use.py": (
            "from pkg.net import connect\n\n\ndef go(host, port, cfg):\n"
            "    connect(host, port)\n    connect(cfg.host, cfg.port)\n    connect(8080, 'h')\n"
        ),
    }
    run = review(git_repo, files, {"pkg/net.py": "def connect(host, port):\n    return (host, port)\n"})
    assert sites(run, "breaking-call") == [("pkg/use.py", 7)]


def test_a_proxy_of_a_foreign_library_may_stand_for_the_changed_class(git_repo: GitRepo) -> None:
    files = {
        "app/__init__.py": "from app.globals import request\n",
        "app/globals.py": "from werkzeug.local import LocalProxy\n\nrequest = LocalProxy(lambda: None)\n",
        "app/wrappers.py": (
            "class Request:\n    @property\n    def module(self):\n        return None\n\n"
            "    def keep(self):\n        pass\n"
        ),
        "tests/test_it.py": "import app\n\n\ndef test_module():\n    assert app.request.module is None\n",
    }
    run = review(git_repo, files, {"app/wrappers.py": "class Request:\n    def keep(self):\n        pass\n"})
    assert sites(run, "dangling-reference") == [("tests/test_it.py", 5)]
