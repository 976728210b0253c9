"""breaking-call: stale call sites of changed signatures, and the near-misses that must stay quiet."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import only, review, sites

UTIL = """\
def fetch(url, timeout=10):
    return url, timeout


class Client:
    def __init__(self, host, port=80):
        self.host = host

    def send(self, payload, retries=3):
        return payload

    @staticmethod
    def build(name):
        return name

    @classmethod
    def create(cls, host):
        return cls(host)
"""


def _pr(git_repo: GitRepo, new_util: str, callers: dict[str, str]) -> list[tuple[str, int]]:
    base = {"pkg/__init__.py": "", "pkg/util.py": UTIL, **callers}
    run = review(git_repo, base, {"pkg/util.py": new_util})
    assert run.errors == []
    return sites(run, "breaking-call")


def test_new_required_positional_flags_each_stale_call_on_the_callee_line(git_repo: GitRepo) -> None:
    caller = "from pkg.util import fetch\n\nfetch('a')\nfetch('b', 5)\nfetch(url='c', timeout=1)\n"
    new = UTIL.replace("def fetch(url, timeout=10):", "def fetch(url, method, timeout=10):")
    base = {"pkg/__init__.py": "", "pkg/util.py": UTIL, "app.py": caller}
    run = review(git_repo, base, {"pkg/util.py": new})
    assert sites(run, "breaking-call") == [("app.py", 3), ("app.py", 4), ("app.py", 5)]
    finding = next(f for f in run.findings if f.line == 3)
    assert "Missing new required argument `method`" in finding.message
    assert finding.related and finding.related[0].path == "pkg/util.py"
    assert finding.related[0].line == 1
    assert finding.column == 1


def test_keyword_only_change_explains_how_to_fix(git_repo: GitRepo) -> None:
    caller = "import pkg.util as u\n\nu.fetch('a', 3)\nu.fetch('a', timeout=3)\n"
    new = UTIL.replace("def fetch(url, timeout=10):", "def fetch(url, *, timeout=10):")
    base = {"pkg/__init__.py": "", "pkg/util.py": UTIL, "app.py": caller}
    run = review(git_repo, base, {"pkg/util.py": new})
    finding = only(run, "breaking-call")
    assert (finding.path, finding.line, finding.column) == ("app.py", 3, 3)
    assert "passes 2 positional arguments but `fetch(url, *, timeout=10)` now takes 1" in finding.message
    assert "pass `timeout=` by keyword" in finding.message


def test_renamed_keyword_gets_a_certain_suggestion(git_repo: GitRepo) -> None:
    caller = "from pkg import util\n\nutil.fetch('a', timeout=3)\n"
    new = UTIL.replace("def fetch(url, timeout=10):", "def fetch(url, deadline=10):")
    base = {"pkg/__init__.py": "", "pkg/util.py": UTIL, "app.py": caller}
    run = review(git_repo, base, {"pkg/util.py": new})
    finding = only(run, "breaking-call")
    assert "renamed to `deadline=`" in finding.message
    assert finding.suggestion is not None
    assert finding.suggestion.replacement == "util.fetch('a', deadline=3)"


def test_positional_reorder_flags_calls_whose_arguments_land_elsewhere(git_repo: GitRepo) -> None:
    caller = "from pkg.util import fetch\n\nfetch('a', 5)\nfetch('a')\nfetch(url='a', timeout=5)\n"
    new = UTIL.replace("def fetch(url, timeout=10):", "def fetch(url, retries=0, timeout=10):")
    assert _pr(git_repo, new, {"app.py": caller}) == [("app.py", 3)]


def test_constructor_and_super_init_calls(git_repo: GitRepo) -> None:
    caller = (
        "from pkg.util import Client\n\n"
        "c = Client('h', 81)\n"
        "class Mine(Client):\n"
        "    def __init__(self):\n"
        "        super().__init__('h', 1)\n"
        "m = Mine()\n"
        "class Plain(Client):\n"
        "    pass\n"
        "p = Plain('x', 2)\n"
    )
    new = UTIL.replace("def __init__(self, host, port=80):", "def __init__(self, host):")
    assert _pr(git_repo, new, {"app.py": caller}) == [("app.py", 3), ("app.py", 6), ("app.py", 10)]


def test_bound_and_unbound_method_calls(git_repo: GitRepo) -> None:
    caller = (
        "from pkg.util import Client\n\n"
        "def go(client: Client):\n"
        "    client.send('x', 2)\n"
        "    Client.send(client, 'x', 2)\n"
        "    client.send('x')\n"
        "c = Client('h')\n"
        "c.send('p', 5)\n"
    )
    new = UTIL.replace("def send(self, payload, retries=3):", "def send(self, payload):")
    assert _pr(git_repo, new, {"app.py": caller}) == [("app.py", 4), ("app.py", 5), ("app.py", 8)]


def test_staticmethod_and_classmethod_bind_without_self(git_repo: GitRepo) -> None:
    caller = "from pkg.util import Client\n\nClient.build('n')\nClient.create('h')\nClient('h').build('n')\n"
    new = UTIL.replace("def build(name):", "def build(name, kind):").replace(
        "def create(cls, host):", "def create(cls, host, port):"
    )
    assert _pr(git_repo, new, {"app.py": caller}) == [("app.py", 3), ("app.py", 4), ("app.py", 5)]


def test_same_named_method_on_another_class_is_not_flagged(git_repo: GitRepo) -> None:
    caller = (
        "class Other:\n"
        "    def send(self, payload, retries=3):\n"
        "        return payload\n\n"
        "    def run(self):\n"
        "        self.send('x', 2)\n\n"
        "o = Other()\n"
        "o.send('y', 1)\n"
    )
    new = UTIL.replace("def send(self, payload, retries=3):", "def send(self, payload):")
    assert _pr(git_repo, new, {"other.py": caller}) == []


def test_calls_that_still_bind_star_args_and_kwargs_only_calls_are_quiet(git_repo: GitRepo) -> None:
    caller = (
        "from pkg.util import fetch\n\n"
        "def go(*args, **kwargs):\n"
        "    fetch(*args)\n"
        "    fetch('u', **kwargs)\n"
        "    fetch(url='u')\n"
        "    fetch('u')\n"
    )
    new = UTIL.replace("def fetch(url, timeout=10):", "def fetch(url, timeout=10, verbose=False):")
    assert _pr(git_repo, new, {"app.py": caller}) == []


def test_local_variable_shadowing_an_import_is_not_a_call_of_it(git_repo: GitRepo) -> None:
    caller = (
        "from pkg.util import fetch\n\ndef go():\n    fetch = lambda a, b, c: a\n    return fetch(1, 2, 3)\n"
    )
    new = UTIL.replace("def fetch(url, timeout=10):", "def fetch(url):")
    assert _pr(git_repo, new, {"app.py": caller}) == []


def test_unrelated_function_with_the_same_name_is_not_flagged(git_repo: GitRepo) -> None:
    caller = "from other import fetch\n\nfetch('a', 1, 2)\n"
    other = "def fetch(a, b, c):\n    return a\n"
    new = UTIL.replace("def fetch(url, timeout=10):", "def fetch(url):")
    assert _pr(git_repo, new, {"app.py": caller, "other.py": other}) == []


def test_common_method_names_through_unknown_receivers_do_not_flood(git_repo: GitRepo) -> None:
    util = "class Store:\n    def get(self, key):\n        return key\n"
    caller = "def go(d, store):\n    d.get('a')\n    store.get('b')\n"
    base = {"pkg/__init__.py": "", "pkg/store.py": util, "app.py": caller}
    run = review(
        git_repo, base, {"pkg/store.py": util.replace("def get(self, key)", "def get(self, key, default)")}
    )
    assert sites(run, "breaking-call") == []


def test_overload_stubs_are_ignored(git_repo: GitRepo) -> None:
    util = (
        "from typing import overload\n\n"
        "@overload\n"
        "def conv(x: int) -> int: ...\n"
        "@overload\n"
        "def conv(x: str) -> str: ...\n"
        "def conv(x):\n"
        "    return x\n"
    )
    caller = "from pkg.conv import conv\n\nconv(1)\n"
    base = {"pkg/__init__.py": "", "pkg/conv.py": util, "app.py": caller}
    new = util.replace("def conv(x: int) -> int: ...", "def conv(x: int, y: int) -> int: ...")
    run = review(git_repo, base, {"pkg/conv.py": new})
    assert sites(run, "breaking-call") == []


def test_re_exported_function_is_followed_through_the_package(git_repo: GitRepo) -> None:
    base = {
        "pkg/__init__.py": "from .util import fetch as fetch\n",
        "pkg/util.py": UTIL,
        "app.py": "import pkg\nfrom pkg import fetch\n\nfetch('a')\npkg.fetch('b')\n",
    }
    new = UTIL.replace("def fetch(url, timeout=10):", "def fetch(url, method, timeout=10):")
    run = review(git_repo, base, {"pkg/util.py": new})
    assert sites(run, "breaking-call") == [("app.py", 4), ("app.py", 5)]


def test_dataclass_field_added_without_default_breaks_constructor_calls(git_repo: GitRepo) -> None:
    model = (
        "from dataclasses import dataclass, field\n\n"
        "@dataclass\n"
        "class Point:\n"
        "    x: int\n"
        "    y: int = 0\n"
        "    tags: list = field(default_factory=list)\n"
    )
    new = model.replace("    y: int = 0\n", "    z: int\n    y: int = 0\n")
    caller = "from pkg.model import Point\n\nPoint(1)\nPoint(1, 2)\nPoint(x=1, z=2)\n"
    base = {"pkg/__init__.py": "", "pkg/model.py": model, "app.py": caller}
    run = review(git_repo, base, {"pkg/model.py": new})
    assert sites(run, "breaking-call") == [("app.py", 3), ("app.py", 4)]
    assert "`z`" in run.findings[0].message


def test_enum_member_lookup_is_not_a_constructor_call(git_repo: GitRepo) -> None:
    model = (
        "import enum\n\n"
        "class Color(enum.Enum):\n"
        "    RED = (1, 'r')\n\n"
        "    def __init__(self, number, code):\n"
        "        self.number = number\n"
    )
    new = model.replace("def __init__(self, number, code):", "def __init__(self, number, code, extra):")
    caller = "from pkg.model import Color\n\nColor((1, 'r'))\n"
    base = {"pkg/__init__.py": "", "pkg/model.py": model, "app.py": caller}
    run = review(git_repo, base, {"pkg/model.py": new})
    assert sites(run, "breaking-call") == []


def test_call_inside_a_raises_type_error_block_is_expected_to_fail(git_repo: GitRepo) -> None:
    caller = (
        "import pytest\n"
        "from pkg.util import fetch\n\n"
        "def test_it():\n"
        "    with pytest.raises(TypeError):\n"
        "        fetch('a', 1)\n"
        "    fetch('b', 5)\n"
    )
    new = UTIL.replace("def fetch(url, timeout=10):", "def fetch(url):")
    assert _pr(git_repo, new, {"test_app.py": caller}) == [("test_app.py", 7)]


def test_aliased_relative_and_module_attribute_calls_pair_with_their_call(git_repo: GitRepo) -> None:
    callers = {
        "pkg/views.py": "from .util import fetch as get_it\n\nget_it('a')\n",
        "app.py": "import pkg.util as u\n\nlabel = 'héllo'; u.fetch(label)\n",
        "other.py": "def fetch(url):\n    return url\n\nfetch('a')\n",
    }
    new = UTIL.replace("def fetch(url, timeout=10):", "def fetch(url, method, timeout=10):")
    base = {"pkg/__init__.py": "", "pkg/util.py": UTIL, **callers}
    run = review(git_repo, base, {"pkg/util.py": new})
    assert sites(run, "breaking-call") == [("app.py", 3), ("pkg/views.py", 3)]
    finding = next(f for f in run.findings if f.path == "app.py")
    assert finding.column == len("label = 'héllo'; u.") + 1


DB = "class DB:\n    def cacheMinimize(self, value):\n        return value\n"
CONVERT = "def convert(old):\n    old._p_jar.cacheMinimize(3)\n"


def _minimize_loses_value(git_repo: GitRepo, others: dict[str, str]) -> list[tuple[str, int]]:
    base = {"pkg/__init__.py": "", "pkg/db.py": DB, "convert.py": CONVERT, **others}
    run = review(
        git_repo, base, {"pkg/db.py": DB.replace("(self, value)", "(self)").replace("value\n", "0\n")}
    )
    assert run.errors == []
    return sites(run, "breaking-call")


def test_a_method_of_that_name_in_a_python_2_file_may_be_what_an_unknown_receiver_calls(
    git_repo: GitRepo,
) -> None:
    """ZODB 8356d18e: `DB.cacheMinimize(self, value)` loses `value`; `old._p_jar.cacheMinimize(3)` is a
    Connection's, whose `cacheMinimize(self, dt=0)` sits in a file only Python 2 parses."""
    connection = "class Connection:\n    def cacheMinimize(self, dt=0):\n        print 'minimized'\n"
    assert _minimize_loses_value(git_repo, {"legacy/connection.py": connection}) == []


def test_an_unknown_receiver_is_reported_when_no_file_defines_the_name_elsewhere(git_repo: GitRepo) -> None:
    assert _minimize_loses_value(git_repo, {"legacy/notes.py": "print 'cacheMinimize'\n"}) == [
        ("convert.py", 2)
    ]
