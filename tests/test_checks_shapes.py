"""Shapes of Python code the stale-reference checks must resolve (issue 13), each a small repository."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

SLUG = "def slug(text):\n    return text\n"
SLUG_SEP = "def slug(text, sep):\n    return text + sep\n"


def test_a_namespace_package_under_src_is_named_as_it_is_imported(git_repo: GitRepo) -> None:
    base = {
        "src/acme/tools/__init__.py": "",
        "src/acme/tools/text.py": SLUG,
        "app.py": "from acme.tools.text import slug\nimport acme.tools.text as t\n\nslug('a')\nt.slug('b')\n",
    }
    run = review(git_repo, base, {"src/acme/tools/text.py": SLUG_SEP})
    assert sites(run, "breaking-call") == [("app.py", 4), ("app.py", 5)]


def test_a_removed_name_of_a_namespace_package_is_found(git_repo: GitRepo) -> None:
    base = {
        "src/acme/tools/__init__.py": "",
        "src/acme/tools/text.py": SLUG + "\n\ndef other():\n    pass\n",
        "app.py": "from acme.tools.text import slug\n\nslug('a')\n",
    }
    run = review(git_repo, base, {"src/acme/tools/text.py": "def other():\n    pass\n"})
    assert sites(run, "dangling-reference") == [("app.py", 1), ("app.py", 3)]


def test_a_docs_example_tree_without_packages_is_imported_by_its_path(git_repo: GitRepo) -> None:
    base = {
        "docs_src/body/tutorial001.py": SLUG,
        "tests/test_tutorial/test_body/test_tutorial001.py": (
            "from docs_src.body.tutorial001 import slug\n\n\ndef test_slug():\n    assert slug('a')\n"
        ),
    }
    run = review(git_repo, base, {"docs_src/body/tutorial001.py": SLUG_SEP})
    assert sites(run, "breaking-call") == [("tests/test_tutorial/test_body/test_tutorial001.py", 5)]


TUTORIALS = {
    "docs_src/first/tutorial007.py": SLUG + "\n\nslug('x')\n",
    "docs_src/second/tutorial007.py": SLUG + "\n\nslug('x')\n",
    "docs_src/second/test_it.py": "from tutorial007 import slug\n\nslug('y')\n",
}


def test_files_with_one_name_in_different_directories_are_different_modules(git_repo: GitRepo) -> None:
    run = review(git_repo, TUTORIALS, {"docs_src/first/tutorial007.py": SLUG_SEP + "\n\nslug('x', '-')\n"})
    assert sites(run, "breaking-call") == []


def test_a_script_imports_the_module_beside_it(git_repo: GitRepo) -> None:
    run = review(git_repo, TUTORIALS, {"docs_src/second/tutorial007.py": SLUG_SEP + "\n\nslug('x', '-')\n"})
    assert sites(run, "breaking-call") == [("docs_src/second/test_it.py", 3)]


def test_a_package_importing_its_own_submodule_exports_the_module(git_repo: GitRepo) -> None:
    base = {
        "pkg/__init__.py": "from pkg import sub\n",
        "pkg/sub.py": SLUG,
        "use.py": "from pkg import sub\nimport pkg\n\nsub.slug('a')\npkg.sub.slug('b')\n",
    }
    run = review(git_repo, base, {"pkg/sub.py": SLUG_SEP})
    assert sites(run, "breaking-call") == [("use.py", 4), ("use.py", 5)]


SHIM = """\
try:
    from ._speedups import parse as _parse
except ImportError:
    _parse = None
from ._impl import ReaderImpl, parse_impl

Reader = ReaderImpl
if _parse is None:
    parse = parse_impl
else:
    parse = _parse
"""
IMPL = (
    "class ReaderImpl:\n    def __init__(self, path):\n        self.path = path\n\n\n"
    "def parse_impl(text):\n    return text\n"
)


def test_assignment_re_exports_are_followed_like_imports(git_repo: GitRepo) -> None:
    base = {
        "pkg/__init__.py": SHIM,
        "pkg/_impl.py": IMPL,
        "use.py": "from pkg import Reader, parse\n\nReader('p')\nparse('t')\n",
    }
    new_impl = IMPL.replace("(self, path)", "(self, path, mode)").replace(
        "parse_impl(text)", "parse_impl(text, strict)"
    )
    run = review(git_repo, base, {"pkg/_impl.py": new_impl})
    assert sites(run, "breaking-call") == [("use.py", 3), ("use.py", 4)]


RENDERERS = """\
class Renderer:
    def draw(self, x):
        return x


class Canvas:
    def draw(self, x):
        return x
"""
COMPAT = """\
try:
    from pkg.fast import Renderer
except ImportError:
    Renderer = None


def paint():
    r = Renderer()
    r.draw(1)
"""


def test_a_name_bound_by_an_import_and_its_fallback_resolves_to_the_import(git_repo: GitRepo) -> None:
    base = {"pkg/__init__.py": "", "pkg/fast.py": RENDERERS, "pkg/compat.py": COMPAT}
    run = review(git_repo, base, {"pkg/fast.py": RENDERERS.replace("draw(self, x):", "draw(self, x, y):", 1)})
    assert sites(run, "breaking-call") == [("pkg/compat.py", 9)]


GENERIC_BASE = """\
from typing import Generic, TypeVar

T = TypeVar("T")


class Base(Generic[T]):
    def run(self, x):
        return x
"""


def test_a_subclass_of_a_subscripted_base_is_in_the_family(git_repo: GitRepo) -> None:
    base = {
        "pkg/__init__.py": "",
        "pkg/base.py": GENERIC_BASE,
        "pkg/impl.py": "from pkg.base import Base\n\n\nclass Impl(Base[int]):\n    pass\n",
        "use.py": "from pkg.impl import Impl\n\nImpl().run(2)\n",
    }
    run = review(git_repo, base, {"pkg/base.py": GENERIC_BASE.replace("run(self, x)", "run(self, x, y)")})
    assert sites(run, "breaking-call") == [("use.py", 3)]


def test_a_base_named_through_a_package_re_export_is_inspected(git_repo: GitRepo) -> None:
    child = "from pkg import Base\n\n\nclass Child(Base):\n    def helper(self):\n        return 1\n"
    base = {
        "pkg/__init__.py": "from .base import Base, Mixin\n",
        "pkg/base.py": "class Base:\n    pass\n\n\nclass Mixin:\n    def other(self):\n        return 0\n",
        "pkg/child.py": child,
        "use.py": "from pkg.child import Child\n\nChild().helper()\n",
    }
    moved = "from pkg import Base, Mixin\n\n\nclass Child(Base, Mixin):\n    pass\n"
    run = review(git_repo, base, {"pkg/child.py": moved})
    assert sites(run, "dangling-reference") == [("use.py", 3)]


def test_a_subclass_reached_through_a_re_exported_name_is_in_the_family(git_repo: GitRepo) -> None:
    base = {
        "pkg/__init__.py": "from .impl import Impl\n",
        "pkg/base.py": "class Base:\n    def run(self, x):\n        return x\n",
        "pkg/impl.py": "from pkg.base import Base\n\n\nclass Impl(Base):\n    pass\n",
        "use.py": "from pkg import Impl\n\nImpl().run(2)\n",
    }
    run = review(git_repo, base, {"pkg/base.py": "class Base:\n    def run(self, x, y):\n        return x\n"})
    assert sites(run, "breaking-call") == [("use.py", 3)]


ENGINES = """\
class Engine:
    def ignite(self, key):
        return key


class Torch:
    def ignite(self, key):
        return key
"""
NEW_ENGINES = ENGINES.replace("ignite(self, key):", "ignite(self, key, gear):", 1)


def test_a_self_attribute_assigned_a_constructor_in_init_types_the_receiver(git_repo: GitRepo) -> None:
    car = (
        "from pkg.engine import Engine\n\n\nclass Car:\n    def __init__(self):\n"
        "        self.engine = Engine()\n\n    def go(self):\n        self.engine.ignite('k')\n"
    )
    base = {"pkg/__init__.py": "", "pkg/engine.py": ENGINES, "pkg/car.py": car}
    run = review(git_repo, base, {"pkg/engine.py": NEW_ENGINES})
    assert sites(run, "breaking-call") == [("pkg/car.py", 9)]


def test_a_return_annotation_types_the_call_result(git_repo: GitRepo) -> None:
    use = (
        "from pkg.engine import Engine\n\n\ndef build() -> Engine:\n    return Engine()\n\n\n"
        "def go():\n    build().ignite('k')\n    engine = build()\n    engine.ignite('k')\n"
    )
    base = {"pkg/__init__.py": "", "pkg/engine.py": ENGINES, "pkg/use.py": use}
    run = review(git_repo, base, {"pkg/engine.py": NEW_ENGINES})
    assert sites(run, "breaking-call") == [("pkg/use.py", 9), ("pkg/use.py", 11)]


def test_isinstance_narrowing_types_the_receiver(git_repo: GitRepo) -> None:
    use = (
        "from pkg.engine import Engine\n\n\ndef go(thing):\n    if isinstance(thing, Engine):\n"
        "        thing.ignite('k')\n\n\ndef stop(thing):\n    assert isinstance(thing, Engine)\n"
        "    thing.ignite('k')\n"
    )
    base = {"pkg/__init__.py": "", "pkg/engine.py": ENGINES, "pkg/use.py": use}
    run = review(git_repo, base, {"pkg/engine.py": NEW_ENGINES})
    assert sites(run, "breaking-call") == [("pkg/use.py", 6), ("pkg/use.py", 11)]


def test_tuple_unpacking_types_each_name(git_repo: GitRepo) -> None:
    use = (
        "from pkg.engine import Engine, Torch\n\n\n"
        "def go():\n    engine, torch = Engine(), Torch()\n    engine.ignite('k')\n    torch.ignite('k')\n"
    )
    base = {"pkg/__init__.py": "", "pkg/engine.py": ENGINES, "pkg/use.py": use}
    run = review(git_repo, base, {"pkg/engine.py": NEW_ENGINES})
    assert sites(run, "breaking-call") == [("pkg/use.py", 6)]


STORE = """\
class Store:
    def write_bytes(self, data):
        return data

    def terminate(self):
        return None

    @property
    def rootdir(self):
        return "."

    async def arequest(self, method):
        return method
"""
FOREIGN_USES = """\
import argparse
import subprocess
from pathlib import Path

import httpcore


def save(path: Path, data):
    path.write_bytes(data)
    Path("x").write_bytes(data)


def kill():
    proc = subprocess.Popen(["x"])
    proc.terminate()


def main():
    parser = argparse.ArgumentParser()
    ns = parser.parse_args()
    return ns.rootdir


class Transport:
    def open(self):
        self._pool = httpcore.AsyncConnectionPool()

    async def send(self):
        return await self._pool.arequest("GET")
"""


def test_methods_of_standard_library_objects_are_not_the_projects(git_repo: GitRepo) -> None:
    base = {"pkg/__init__.py": "", "pkg/store.py": STORE, "pkg/use.py": FOREIGN_USES}
    changed = STORE.replace("write_bytes(self, data)", "write_bytes(self, data, mode)").replace(
        "    def terminate(self):\n        return None\n\n", ""
    )
    run = review(git_repo, base, {"pkg/store.py": changed})
    assert sites(run, "breaking-call") == []
    assert sites(run, "dangling-reference") == []


def test_attributes_of_foreign_objects_are_not_the_projects(git_repo: GitRepo) -> None:
    base = {"pkg/__init__.py": "", "pkg/store.py": STORE, "pkg/use.py": FOREIGN_USES}
    removed = STORE.split("    @property")[0]
    run = review(git_repo, base, {"pkg/store.py": removed})
    assert sites(run, "dangling-reference") == []


def test_a_raises_block_expects_the_call_to_fail_only_with_its_message(git_repo: GitRepo) -> None:
    tests = (
        "import pytest\n\nfrom pkg.m import f\n\n\ndef test_f():\n"
        "    with pytest.raises(TypeError, match='takes 1 positional'):\n        f(1, b=2)\n"
        "    with pytest.raises(TypeError, match='unexpected keyword'):\n        f(1, b=2)\n"
        "    with pytest.raises(TypeError):\n        f(1, b=2)\n"
    )
    base = {"pkg/__init__.py": "", "pkg/m.py": "def f(a, b=None):\n    return a\n", "tests/test_m.py": tests}
    run = review(git_repo, base, {"pkg/m.py": "def f(a):\n    return a\n"})
    assert sites(run, "breaking-call") == [("tests/test_m.py", 8)]


def test_nothing_is_reported_in_a_file_that_does_not_parse_as_a_whole(git_repo: GitRepo) -> None:
    legacy = (
        "from m import f, gone\n\n\ndef main():\n    f(1)\n    gone()\n\n\ndef report():\n    print 'done'\n"
    )
    base = {"m.py": "def f(a):\n    return a\n\n\ndef gone():\n    pass\n", "legacy.py": legacy}
    run = review(git_repo, base, {"m.py": "def f(a, b):\n    return a\n"})
    assert sites(run, "breaking-call") == []
    assert sites(run, "dangling-reference") == []


def test_a_variable_first_set_to_none_is_typed_by_its_constructor(git_repo: GitRepo) -> None:
    use = (
        "from pkg.engine import Engine\n\n\ndef go(flag):\n    engine = None\n    if flag:\n"
        "        engine = Engine()\n    if engine:\n        engine.ignite('k')\n"
    )
    base = {"pkg/__init__.py": "", "pkg/engine.py": ENGINES, "pkg/use.py": use}
    run = review(git_repo, base, {"pkg/engine.py": NEW_ENGINES})
    assert sites(run, "breaking-call") == [("pkg/use.py", 9)]


def test_a_guarded_import_without_a_fallback_still_names_the_removed_class(git_repo: GitRepo) -> None:
    test = (
        "try:\n    from pkg.reactor import Reactor\n    have_reactor = True\nexcept ImportError:\n"
        "    have_reactor = False\n\n\ndef test_it():\n    return Reactor()\n"
    )
    base = {
        "pkg/__init__.py": "",
        "pkg/reactor.py": "class Reactor:\n    pass\n\n\nclass Other:\n    pass\n",
        "tests/test_reactor.py": test,
    }
    run = review(git_repo, base, {"pkg/reactor.py": "class Other:\n    pass\n"})
    assert sites(run, "dangling-reference") == [("tests/test_reactor.py", 9)]


def test_a_name_imported_by_platform_from_one_of_two_modules_breaks_with_either(git_repo: GitRepo) -> None:
    auto = (
        "import os\n\nif os.name == 'nt':\n    from pkg.windows import set_close_exec\nelse:\n"
        "    from pkg.posix import set_close_exec\n"
    )
    helper = "def set_close_exec(fd):\n    return fd\n"
    base = {
        "pkg/__init__.py": "",
        "pkg/auto.py": auto,
        "pkg/windows.py": helper,
        "pkg/posix.py": helper + "\n\ndef other():\n    pass\n",
        "pkg/net.py": "from pkg.auto import set_close_exec\n\n\ndef bind(fd):\n    set_close_exec(fd)\n",
    }
    run = review(git_repo, base, {"pkg/posix.py": "def other():\n    pass\n"})
    assert sites(run, "dangling-reference") == [("pkg/auto.py", 6), ("pkg/net.py", 1), ("pkg/net.py", 5)]


def test_uses_after_a_multi_line_decorator_are_found(git_repo: GitRepo) -> None:
    test = (
        "import pytest\n\nfrom pkg import helpers\nfrom pkg.helpers import gone\n\n\n"
        "@pytest.mark.parametrize(\n    'value',\n    [1, 2],\n)\ndef test_first(value):\n"
        "    helpers.gone()\n"
    )
    base = {
        "pkg/__init__.py": "",
        "pkg/helpers.py": "def gone():\n    pass\n\n\ndef kept():\n    pass\n",
        "tests/test_first.py": test,
    }
    run = review(git_repo, base, {"pkg/helpers.py": "def kept():\n    pass\n"})
    assert sites(run, "dangling-reference") == [("tests/test_first.py", 4), ("tests/test_first.py", 12)]


def test_a_module_name_rebound_by_a_with_or_for_target_is_not_removed(git_repo: GitRepo) -> None:
    base = {
        "example.py": "from db import Session\n\nsession = Session()\nsession.add(1)\n"
        "row = None\nprint(row)\n",
        "db.py": "class Session:\n    def add(self, x):\n        pass\n",
        "other.py": "from example import session, row\n\nsession.add(2)\nprint(row)\n",
    }
    head = (
        "from db import Session\n\nwith Session() as session:\n    session.add(1)\n"
        "for row in range(3):\n    print(row)\n"
    )
    run = review(git_repo, base, {"example.py": head})
    assert sites(run, "dangling-reference") == []


def test_a_module_name_that_only_a_with_body_used_is_still_removed(git_repo: GitRepo) -> None:
    base = {
        "example.py": "session = object()\nlimit = 3\n",
        "other.py": "from example import limit\n\nprint(limit)\n",
    }
    head = "with open('x') as session:\n    pass\n"
    run = review(git_repo, base, {"example.py": head})
    assert sites(run, "dangling-reference") == [("other.py", 1), ("other.py", 3)]


DICT_VIEWS = """\
def native_views(cls):
    cls.items = cls._items
    setattr(cls, "keys", cls._keys)
    return cls


@native_views
class Bag:
    def _items(self):
        return []

    def _keys(self):
        return []
{extra}

def use(bag: Bag):
    return bag.items(), bag.keys()
"""


def test_members_a_class_decorator_or_a_module_assignment_sets_are_not_removed(git_repo: GitRepo) -> None:
    old = DICT_VIEWS.format(
        extra="\n    def items(self):\n        return []\n\n    def keys(self):\n        return []\n"
    )
    run = review(git_repo, {"bag.py": old}, {"bag.py": DICT_VIEWS.format(extra="")})
    assert sites(run, "dangling-reference") == []


def test_a_member_no_decorator_sets_is_still_removed(git_repo: GitRepo) -> None:
    old = DICT_VIEWS.format(extra="\n    def values(self):\n        return []\n") + "\nBag().values()\n"
    run = review(git_repo, {"bag.py": old}, {"bag.py": DICT_VIEWS.format(extra="") + "\nBag().values()\n"})
    assert sites(run, "dangling-reference") == [("bag.py", 19)]


STD_AST = (
    "import ast\nfrom ast import *\n\n\n"
    "def get_child_nodes(node):\n    return list(ast.iter_child_nodes(node))\n"
)


def test_a_name_removed_from_a_module_that_star_imports_the_standard_library_is_found(
    git_repo: GitRepo,
) -> None:
    base = {
        "proj/__init__.py": "",
        "proj/ast.py": STD_AST + "\n\ndef walk_names(node):\n    return []\n",
        "proj/use.py": "from proj import ast\n\nast.get_child_nodes(None)\n"
        "ast.walk(None)\nast.walk_names(None)\n",
    }
    run = review(git_repo, base, {"proj/ast.py": STD_AST.replace("get_child_nodes", "child_nodes")})
    # rope d6baf622: `get_child_nodes` left rope/base/ast.py, which keeps `from ast import *`; the
    # standard ast has no get_child_nodes. `walk_names` is gone too, `walk` is the standard library's.
    assert sites(run, "dangling-reference") == [("proj/use.py", 3), ("proj/use.py", 5)]


def test_a_star_import_of_a_project_module_still_hides_removals(git_repo: GitRepo) -> None:
    base = {
        "proj/__init__.py": "",
        "proj/base.py": "def helper():\n    pass\n",
        "proj/api.py": "from proj.base import *\n\n\ndef old():\n    pass\n",
        "proj/use.py": "from proj import api\n\napi.old()\n",
    }
    run = review(git_repo, base, {"proj/api.py": "from proj.base import *\n"})
    assert sites(run, "dangling-reference") == []
