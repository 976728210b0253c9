from __future__ import annotations

import os
from pathlib import Path

import pytest
from prscope.analysis.intel import CodeIndex

from tests.gitrepo import GitRepo
from tests.test_intel_usages import make_repo


@pytest.fixture
def repo(tmp_path: Path) -> GitRepo:
    return make_repo(tmp_path / "shop-repo")


def test_bare_name_definition_with_signature_and_doc_head(repo: GitRepo) -> None:
    [helper] = CodeIndex(repo.root).find_definitions("helper")
    assert (helper.path, helper.line, helper.kind) == ("src/shop/util.py", 1, "function")
    assert helper.qualname == "shop.util.helper"
    assert helper.signature == "def helper(x)"
    assert helper.doc_head == "Help with x."


def test_class_dot_method_and_dotted_qualname(repo: GitRepo) -> None:
    index = CodeIndex(repo.root)
    [add] = index.find_definitions("shop.models.Cart.add")
    assert (add.kind, add.line, add.signature) == ("method", 20, "def add(self, item, qty=1)")
    assert add.doc_head == "Add an item."
    short = index.find_definitions("Cart.add")
    assert [d.qualname for d in short] == ["shop.models.Cart.add"]
    every_add = index.find_definitions("add")
    assert [d.qualname for d in every_add] == [
        "shop.models.Cart.add",
        "shop.models.Wishlist.add",
        "shop.models.GiftCart.add",
    ]


def test_class_definition_mentions_constructor(repo: GitRepo) -> None:
    [cart] = CodeIndex(repo.root).find_definitions("shop.models.Cart")
    assert cart.kind == "class"
    assert cart.signature == "class Cart(Base)  # __init__(owner, *, currency='EUR')"
    assert cart.doc_head == "A shopping cart."


def test_reexported_qualname_finds_the_real_definition(repo: GitRepo) -> None:
    [cart] = CodeIndex(repo.root).find_definitions("shop.Cart")
    assert (cart.path, cart.qualname) == ("src/shop/models.py", "shop.models.Cart")


def test_modules_and_variables(repo: GitRepo) -> None:
    index = CodeIndex(repo.root)
    [module] = index.find_definitions("shop.util")
    assert (module.kind, module.path) == ("module", "src/shop/util.py")
    [variable] = index.find_definitions("shop.__all__")
    assert variable.kind == "variable" and variable.line == 4


def test_unknown_names_give_nothing(repo: GitRepo) -> None:
    index = CodeIndex(repo.root)
    assert index.find_definitions("nothing_like_this") == []
    assert index.find_definitions("shop.models.Nope") == []
    assert index.find_definitions("") == []


def test_parse_and_source_are_cached_and_tolerant(repo: GitRepo) -> None:
    index = CodeIndex(repo.root)
    tree = index.parse("src/shop/util.py")
    assert tree is not None and index.parse("src/shop/util.py") is tree
    assert index.parse("src/shop/broken.py") is None
    assert index.parse("missing.py") is None
    source = index.source("src/shop/latin.py")
    assert source is not None and "caf\ufffd" in source


def test_symlinks_leaving_the_repository_are_not_read(repo: GitRepo, tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("from shop.util import helper\nhelper('secret')\n")
    os.symlink(outside, repo.root / "src" / "shop" / "escape.py")
    index = CodeIndex(repo.root)
    assert index.source("src/shop/escape.py") is None
    result = index.find_usages("shop.util.helper")
    assert all(r.path != "src/shop/escape.py" for r in result.references)


def test_not_a_repository_is_a_clear_error(tmp_path: Path) -> None:
    from prscope.analysis.errors import RepositoryError

    plain = tmp_path / "plain"
    plain.mkdir()
    with pytest.raises(RepositoryError) as raised:
        CodeIndex(plain)
    assert "\n" not in str(raised.value) and "git" in str(raised.value)


def test_deleted_tracked_files_are_not_listed(repo: GitRepo) -> None:
    repo.delete("src/shop/latin.py")
    files = CodeIndex(repo.root).python_files()
    assert "src/shop/latin.py" not in files and "src/shop/util.py" in files
