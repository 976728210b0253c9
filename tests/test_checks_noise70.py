"""False alarms of the real-history noise check from round 27 (`bench/noise70-*`, issue 20), each rebuilt
as a small repository of that shape."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

H5FILE = """import tables


class H5File:
    def __init__(self, filename, mode="r"):
        self._h5 = tables.open_file(filename, mode=mode)

    def close(self):
        self._h5.close()
        self._h5 = None

    def create_array(self, node_path, array, {params}):
        path, name = node_path.rsplit("/", 1)
        return {hand_on}.create_array(path, name, array)

    def _store(self, path, name, array):
        return array
"""
DICT_NODE = """def array_proxy(pyt_file, group, key, array):
    pyt_file.create_array(group, key, array)
    return {"key": key}
"""


@pytest.mark.parametrize(("hand_on", "expected"), [("self._h5", []), ("self", [2])])
def test_a_wrapper_handing_its_method_on_to_a_third_party_object_of_the_same_name(
    git_repo: GitRepo, hand_on: str, expected: list[int]
) -> None:
    """apptools f25c43fa changes `H5File.create_array`, which hands the call on to the PyTables file
    `tables.open_file(...)` made. `pyt_file.create_array(group, key, array)` on a parameter of unknown type
    fitted PyTables' own `File.create_array`, and that is what the callers pass: the repository holds
    objects of a third-party class with that method name, and an unknown receiver may be one. A wrapper
    that does not hand the name on leaves its class the only one with it: reported."""
    store = "self._store" if hand_on == "self" else hand_on
    old = H5FILE.format(params="dtype=None", hand_on=store)
    files = {
        "pkg/__init__.py": "",
        "pkg/file.py": old.replace("self._store.create_array", "self._store"),
        "pkg/dict_node.py": DICT_NODE,
    }
    new = H5FILE.format(params="*, dtype=None", hand_on=store)
    changes = {"pkg/file.py": new.replace("self._store.create_array", "self._store")}
    run = review(git_repo, files, changes)
    assert [line for path, line in sites(run, "breaking-call") if path == "pkg/dict_node.py"] == expected


ADDER = """from traits.api import HasTraits


class AdderNode(HasTraits):
    def dialog_view(self):
        return self.trait_view()
{own}"""
OWN_VIEW = """
    def trait_view(self):
        return "adder"
"""
BASE = """from traits.ui.api import TreeNodeObject


class Base(TreeNodeObject):
    def trait_view(self, name=None, view_element=None):
        if name:
            return {reach}
        return "base"
"""


@pytest.mark.parametrize(
    ("reach", "expected"),
    [("super(Base, self).trait_view(name, view_element)", []), ("self.view_named(name)", [6])],
)
def test_a_method_another_class_reaches_on_a_base_of_the_same_third_party_package(
    git_repo: GitRepo, reach: str, expected: list[int]
) -> None:
    """mayavi f43f32fe drops `AdderNode(HasTraits).trait_view`, and `self.trait_view()` reaches traits'
    `HasTraits.trait_view` since. Nothing says the dropped method overrode one, but `Base(TreeNodeObject)`,
    built on another class of traits, calls `super(Base, self).trait_view(...)`: the package's classes have
    the method. Without such a call in the repository the name is taken to be gone: reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/adder.py": ADDER.format(own=OWN_VIEW),
        "pkg/base.py": BASE.format(reach=reach),
    }
    run = review(git_repo, files, {"pkg/adder.py": ADDER.format(own="")})
    assert [line for path, line in sites(run, "dangling-reference") if path == "pkg/adder.py"] == expected
