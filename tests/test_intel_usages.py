from __future__ import annotations

from pathlib import Path

import pytest
from prscope.analysis.intel import CodeIndex, Reference, UsageResult

from tests.gitrepo import GitRepo

INIT = """\
from .models import Cart as Cart
from .util import helper

__all__ = ["Cart", "helper"]
"""

MODELS = '''\
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .util import Helper


class Base:
    def save(self, force=False):
        return force


class Cart(Base):
    """A shopping cart."""

    def __init__(self, owner, *, currency="EUR"):
        self.owner = owner

    def add(self, item, qty=1):
        """Add an item."""
        return item, qty

    def total(self) -> int:
        self.add("x")
        return 0

    def assistant(self) -> Helper:
        raise NotImplementedError

    def later(self) -> "Helper":
        raise NotImplementedError


class Wishlist:
    def add(self, item):
        return item


class BigCart(Cart):
    def checkout(self):
        self.add("y")


class GiftCart(Cart):
    def __init__(self, owner):
        super().__init__(owner, currency="USD")

    def add(self, item, qty=1):
        return item
'''

UTIL = '''\
def helper(x):
    """Help with x."""
    return x


class Helper:
    pass
'''

APP = """\
import shop.util
import shop.util as su
from . import models
from .models import Cart as C, Wishlist
from .util import helper, gone_function


def run(cart: C, wish: Wishlist):
    c = C("me")
    c.add("a")
    cart.add("b")
    wish.add("c")
    models.Cart("x").add("d")
    helper(1)
    shop.util.helper(2)
    su.helper(3)
    gone_function()
    c.old_method()
    return models.BigCart("big")


def shadow(helper):
    return helper(5)


def unknown(obj):
    obj.add("z")
"""

DEEP = """\
from ..util import helper as h


def go():
    return h(7)
"""

TEST_SHOP = """\
from shop import Cart, helper


def test_cart():
    assert isinstance(Cart("a"), Cart)
    helper(3)


@helper
def decorated():
    pass
"""


def make_repo(root: Path) -> GitRepo:
    repo = GitRepo(root)
    repo.write("src/shop/__init__.py", INIT)
    repo.write("src/shop/models.py", MODELS)
    repo.write("src/shop/util.py", UTIL)
    repo.write("src/shop/app.py", APP)
    repo.write("src/shop/sub/__init__.py", "")
    repo.write("src/shop/sub/deep.py", DEEP)
    repo.write("src/shop/broken.py", "from .util import helper\ndef oops(:\n    helper(1)\n")
    repo.write("src/shop/latin.py", b"# caf\xe9\nfrom shop.util import helper\nhelper(9)  # \xe9t\xe9\n")
    repo.write("tests/test_shop.py", TEST_SHOP)
    repo.commit("initial")
    return repo


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return make_repo(tmp_path / "shop-repo")


def lines_of(result: UsageResult, path: str) -> list[int]:
    return sorted({r.line for r in result.references if r.path == path})


def find(result: UsageResult, path: str, line: int) -> Reference:
    matches = [r for r in result.references if r.path == path and r.line == line]
    assert matches, f"no reference at {path}:{line} in {[(r.path, r.line) for r in result.references]}"
    return matches[0]


def test_module_names_follow_packages_and_src_layout(repo: GitRepo) -> None:
    repo.write("scripts/tool.py", "print('x')\n")  # untracked, not ignored
    index = CodeIndex(repo.root)
    files = index.python_files()
    assert "scripts/tool.py" in files
    assert index.module_name("src/shop/models.py") == "shop.models"
    assert index.module_name("src/shop/__init__.py") == "shop"
    assert index.module_name("src/shop/sub/deep.py") == "shop.sub.deep"
    assert index.module_name("tests/test_shop.py") == "test_shop"


def test_function_usages_through_imports_reexports_aliases_and_relative_imports(repo: GitRepo) -> None:
    result = CodeIndex(repo.root).find_usages("shop.util.helper")
    assert lines_of(result, "src/shop/__init__.py") == [2]
    # `from .util import helper`, helper(1), shop.util.helper(2), su.helper(3); not the shadowing param
    assert lines_of(result, "src/shop/app.py") == [5, 14, 15, 16]
    assert lines_of(result, "src/shop/sub/deep.py") == [1, 5]  # alias `h` through `from ..util`
    assert lines_of(result, "tests/test_shop.py") == [1, 6, 9]  # re-export, call, decorator
    assert find(result, "tests/test_shop.py", 9).kind == "decorator"
    assert find(result, "src/shop/app.py", 15).kind == "call"
    assert find(result, "src/shop/app.py", 5).kind == "import"
    assert all(r.confidence == "exact" for r in result.references)


def test_reference_positions_are_one_based_code_points(repo: GitRepo) -> None:
    result = CodeIndex(repo.root).find_usages("shop.util.helper")
    call = find(result, "src/shop/app.py", 15)
    assert call.text == "    shop.util.helper(2)"
    assert call.text[call.col - 1 : call.end_col - 1] == "helper"
    latin = find(result, "src/shop/latin.py", 3)
    assert latin.text.startswith("helper(9)")
    assert "\ufffd" in latin.text  # undecodable bytes replaced, never a crash
    assert (latin.col, latin.end_col) == (1, 7)


def test_syntax_error_file_is_skipped_with_a_note(repo: GitRepo) -> None:
    result = CodeIndex(repo.root).find_usages("shop.util.helper")
    assert "src/shop/broken.py" in result.skipped_files
    assert "syntax error" in result.note and "src/shop/broken.py" in result.note
    assert lines_of(result, "src/shop/broken.py") == []


def test_results_are_sorted_by_path_then_line(repo: GitRepo) -> None:
    result = CodeIndex(repo.root).find_usages("shop.util.helper")
    keys = [(r.path, r.line, r.col) for r in result.references]
    assert keys == sorted(keys)
    assert result.candidate_files >= 6 and result.files_scanned >= 6


def test_class_usages_include_annotations_isinstance_and_module_attributes(repo: GitRepo) -> None:
    result = CodeIndex(repo.root).find_usages("shop.models.Cart")
    assert lines_of(result, "src/shop/__init__.py") == [1]
    assert lines_of(result, "src/shop/models.py") == [40, 45]  # base classes
    assert lines_of(result, "src/shop/app.py") == [4, 8, 9, 13]
    assert find(result, "src/shop/app.py", 8).kind == "annotation"
    assert lines_of(result, "tests/test_shop.py") == [1, 5]
    assert len([r for r in result.references if r.path == "tests/test_shop.py" and r.line == 5]) == 2


def test_method_usages_are_filtered_by_receiver(repo: GitRepo) -> None:
    result = CodeIndex(repo.root).find_usages("shop.models.Cart.add")
    exact = {(r.path, r.line) for r in result.exact}
    assert ("src/shop/models.py", 25) in exact  # self.add inside Cart
    assert ("src/shop/models.py", 42) in exact  # self.add in a subclass that inherits add
    assert ("src/shop/app.py", 10) in exact  # c = C(...); c.add
    assert ("src/shop/app.py", 11) in exact  # parameter annotated with the class
    assert ("src/shop/app.py", 13) in exact  # models.Cart(...).add
    assert ("src/shop/app.py", 12) not in {(r.path, r.line) for r in result.references}  # Wishlist.add
    probable = find(result, "src/shop/app.py", 27)
    assert probable.confidence == "probable"
    assert "other `def add`" in probable.note
    assert "other definition" in result.note


def test_defines_elsewhere_lists_other_definitions(repo: GitRepo) -> None:
    index = CodeIndex(repo.root)
    others = index.defines_elsewhere("add", "src/shop/models.py")
    assert others == []
    everywhere = index.defines_elsewhere("add")
    assert {path for path, _ in everywhere} == {"src/shop/models.py"}
    assert len(everywhere) == 3


def test_constructor_usages_include_class_calls_subclasses_and_super_init(repo: GitRepo) -> None:
    result = CodeIndex(repo.root).find_usages("shop.models.Cart.__init__")
    found = {(r.path, r.line): r for r in result.references}
    assert found[("src/shop/app.py", 9)].kind == "call"  # C("me")
    assert ("src/shop/app.py", 13) in found  # models.Cart("x")
    assert ("src/shop/app.py", 19) in found  # models.BigCart inherits Cart.__init__
    assert ("tests/test_shop.py", 5) in found  # Cart("a"), not the isinstance argument
    assert found[("src/shop/models.py", 47)].confidence == "exact"  # super().__init__ in GiftCart
    assert ("src/shop/app.py", 8) not in found  # annotations are not calls
    assert ("src/shop/__init__.py", 1) not in found


def test_removed_function_and_method_still_found_by_import_path(repo: GitRepo) -> None:
    index = CodeIndex(repo.root)
    removed = index.find_usages("shop.util.gone_function")
    assert lines_of(removed, "src/shop/app.py") == [5, 17]
    method = index.find_usages("shop.models.Cart.old_method")
    assert [(r.path, r.line, r.confidence) for r in method.references] == [("src/shop/app.py", 18, "exact")]


def test_type_checking_import_and_string_annotation(repo: GitRepo) -> None:
    result = CodeIndex(repo.root).find_usages("shop.util.Helper")
    assert lines_of(result, "src/shop/models.py") == [6, 28, 31]
    assert find(result, "src/shop/models.py", 31).kind == "annotation"


def test_include_definitions(repo: GitRepo) -> None:
    result = CodeIndex(repo.root).find_usages("shop.models.Cart.add", include_definitions=True)
    definitions = [r for r in result.references if r.kind == "definition"]
    assert [(r.path, r.line) for r in definitions] == [("src/shop/models.py", 20)]


def test_edit_gives_a_fresh_result_and_unchanged_repeats_are_identical(repo: GitRepo) -> None:
    index = CodeIndex(repo.root)
    first = index.find_usages("shop.util.helper")
    again = index.find_usages("shop.util.helper")
    assert again.model_dump() == first.model_dump()
    repo.write("src/shop/sub/deep.py", DEEP + "\n\ndef more():\n    return h(8) + h(9)\n")
    edited = index.find_usages("shop.util.helper")
    assert lines_of(edited, "src/shop/sub/deep.py") == [1, 5, 9]
    repo.write("src/shop/extra.py", "from shop.util import helper\nhelper(0)\n")  # new untracked file
    added = index.find_usages("shop.util.helper")
    assert lines_of(added, "src/shop/extra.py") == [1, 2]


def test_source_override_reads_other_content(repo: GitRepo) -> None:
    def read(path: str) -> str | None:
        if path == "src/shop/app.py":
            return "from .util import helper\nhelper(100)\n"
        full = repo.root / path
        return full.read_text(encoding="utf-8", errors="replace") if full.exists() else None

    result = CodeIndex(repo.root, source=read).find_usages("shop.util.helper")
    assert lines_of(result, "src/shop/app.py") == [1, 2]


def test_bare_names_use_their_definitions(repo: GitRepo) -> None:
    result = CodeIndex(repo.root).find_usages("helper")
    assert lines_of(result, "tests/test_shop.py") == [1, 6, 9]
    assert [d.qualname for d in result.definitions] == ["shop.util.helper"]
    unknown = CodeIndex(repo.root).find_usages("no_such_name_anywhere")
    assert unknown.references == [] and "no definition" in unknown.note


def test_star_imports_resolve_through_all(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "star")
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/core.py", "__all__ = ['thing']\n\ndef thing():\n    pass\n\ndef _private():\n    pass\n")
    repo.write("pkg/api.py", "from pkg.core import *\n")
    repo.write("use.py", "from pkg.api import *\n\nthing()\n")
    repo.commit()
    result = CodeIndex(repo.root).find_usages("pkg.core.thing")
    assert lines_of(result, "use.py") == [3]


def test_concurrent_queries_agree(repo: GitRepo) -> None:
    from concurrent.futures import ThreadPoolExecutor

    index = CodeIndex(repo.root)
    targets = ["shop.util.helper", "shop.models.Cart", "shop.models.Cart.add"] * 3
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(index.find_usages, targets))
    fresh = {t: CodeIndex(repo.root).find_usages(t) for t in set(targets)}
    for target, result in zip(targets, results, strict=True):
        assert result.references == fresh[target].references


def test_namespace_package_imports_resolve(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "ns")
    repo.write("src/acme/tools/__init__.py", "")
    repo.write("src/acme/tools/text.py", "def slug(s):\n    return s\n")
    repo.write(
        "app.py", "from acme.tools.text import slug\nimport acme.tools.text as t\nslug('a')\nt.slug('b')\n"
    )
    repo.commit()
    result = CodeIndex(repo.root).find_usages("acme.tools.text.slug")
    assert lines_of(result, "app.py") == [1, 3, 4]


def test_form_feeds_and_deep_nesting_do_not_shift_or_crash(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "odd")
    repo.write("lib.py", "def target():\n    pass\n")
    repo.write("ff.py", "from lib import target\n\x0c\ndef f():\n    return target()\n")
    deep = "x = " + " + ".join(["target"] * 5000) + "\n"
    repo.write("deep.py", "from lib import target\n" + deep)
    repo.commit()
    result = CodeIndex(repo.root).find_usages("lib.target")
    assert lines_of(result, "ff.py") == [1, 4]
    assert find(result, "ff.py", 4).text == "    return target()"
    assert lines_of(result, "deep.py") in ([], [1], [1, 2])
    if "deep.py" in result.skipped_files:
        assert "deep.py" in result.note


def test_members_of_a_deleted_module_are_still_found(repo: GitRepo) -> None:
    repo.write("src/shop/use_legacy.py", "from shop.legacy import old_helper\nold_helper()\n")
    result = CodeIndex(repo.root).find_usages("shop.legacy.old_helper")
    assert lines_of(result, "src/shop/use_legacy.py") == [1, 2]


def test_instance_attributes_typed_in_init_filter_receivers(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "attrs")
    repo.write("pkg/__init__.py", "")
    repo.write(
        "pkg/engine.py",
        "class Engine:\n    def start(self):\n        pass\n\n\n"
        "class Pump:\n    def start(self):\n        pass\n",
    )
    repo.write(
        "pkg/portion/car.py",  # a directory without __init__.py inside a package
        "from ..engine import Engine, Pump\n\n\n"
        "class Car:\n"
        "    pump: Pump\n\n"
        "    def __init__(self, engine: Engine):\n"
        "        self.engine = engine\n\n"
        "    def go(self):\n"
        "        self.engine.start()\n"
        "        self.pump.start()\n",
    )
    repo.commit()
    index = CodeIndex(repo.root)
    assert index.module_name("pkg/portion/car.py") == "pkg.portion.car"
    result = index.find_usages("pkg.engine.Engine.start")
    assert [(r.path, r.line, r.confidence) for r in result.references] == [
        ("pkg/portion/car.py", 11, "exact")
    ]


def test_files_sharing_a_module_name_resolve_their_own_imports(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "dupes")
    repo.write("lib.py", "def make():\n    pass\n")
    repo.write("a/conftest.py", "def other():\n    pass\n")
    repo.write("b/conftest.py", "from lib import make\n\nmake()\n")
    repo.commit()
    result = CodeIndex(repo.root).find_usages("lib.make")
    assert lines_of(result, "b/conftest.py") == [1, 3]


def test_untracked_environments_are_not_searched(repo: GitRepo) -> None:
    repo.write(".venv/lib/python3.11/site-packages/x/mod.py", "from shop.util import helper\nhelper(1)\n")
    repo.write("build/site-packages/y.py", "from shop.util import helper\nhelper(2)\n")
    index = CodeIndex(repo.root)
    assert not any("site-packages" in path for path in index.python_files())
    result = index.find_usages("shop.util.helper")
    assert not any("site-packages" in r.path for r in result.references)


def test_a_namespace_package_top_is_part_of_the_module_name(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "ns-top")
    repo.write("src/acme/tools/__init__.py", "")
    repo.write("src/acme/tools/text.py", "def slug(s):\n    return s\n")
    repo.write("app.py", "from acme.tools.text import slug\n\nslug('a')\n")
    repo.commit()
    index = CodeIndex(repo.root)
    assert index.module_name("src/acme/tools/text.py") == "acme.tools.text"
    assert lines_of(index.find_usages("tools.text.slug"), "app.py") == [1, 3]  # the walk's name still works


def test_a_submodule_a_package_imports_itself_and_assignment_aliases(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "shims")
    repo.write("pkg/__init__.py", "from . import sub\nfrom .sub import make as _make\n\nmake = _make\n")
    repo.write("pkg/sub.py", "def make():\n    return 1\n")
    repo.write("use.py", "import pkg\nfrom pkg import make\n\npkg.sub.make()\nmake()\n")
    repo.commit()
    result = CodeIndex(repo.root).find_usages("pkg.sub.make")
    assert lines_of(result, "use.py") == [2, 4, 5]
