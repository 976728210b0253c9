"""False alarms of the real-history noise check from round 29 (`bench/noise72-*`, issue 20), each rebuilt
as a small repository of that shape."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

EXTRACT = """class Dispatcher:
    def add(self, function):
        return function


def {name}(matrix):
    return matrix


extract = Dispatcher()
{documented}.__doc__ = "Return the representation of the matrix."
extract.add(get_dense)
"""


@pytest.mark.parametrize(
    ("folder", "documented", "expected"),
    [("pkg", "get", []), ("pkg", "extract", [12]), ("scripts", "get", [12])],
)
def test_a_package_module_whose_top_level_read_a_name_nothing_binds_before_and_after(
    git_repo: GitRepo, folder: str, documented: str, expected: list[int]
) -> None:
    """qutip d1154d05 renames `get_dense` to `extract_dense` and leaves `extract.add_specialisations([...,
    get_dense])` behind. The module never imported at the parent either: a line above reads `get.__doc__`,
    and the dispatcher is named `extract` (a NameError, then as now). A module that documents the name it
    binds is reported, and so is a file outside a package: a host may run it with names of its own (Sphinx's
    `conf.py` reads `tags`)."""
    path = f"{folder}/extract.py"
    files = {"pkg/__init__.py": "", path: EXTRACT.format(name="get_dense", documented=documented)}
    run = review(git_repo, files, {path: EXTRACT.format(name="extract_dense", documented=documented)})
    assert [line for found, line in sites(run, "dangling-reference") if found == path] == expected


WORKSPACE = """class Workspace:
    def put_document(self, uri, source{new}):
        self.documents = {{uri: source}}
"""
FIXTURES = """from {module} import LanguageServer
from pkg.workspace import Workspace


def server():
    return Workspace()
"""
TEST = """from .fixtures import server


def test_put():
    server().put_document("file:///a", "TEXT")
"""


@pytest.mark.parametrize(
    ("module", "expected"),
    [("pkg.ls", []), ("pkg.protocol", [5]), ("lsprotocol.ls", [5])],
)
def test_a_test_whose_fixtures_module_imports_a_module_the_package_never_had(
    git_repo: GitRepo, module: str, expected: list[int]
) -> None:
    """pygls c9df5e2d changes `Workspace.put_document`; `tests/test_workspace.py` imports `.fixtures`,
    which kept `from pygls.ls import LanguageServer` after an earlier commit removed `pygls/ls.py`. The
    test module failed on import at the parent as it does now. An import of a module the package has, or
    of another distribution's module, proves nothing: the call is reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/protocol.py": "class LanguageServer:\n    pass\n",
        "pkg/workspace.py": WORKSPACE.format(new=""),
        "tests/__init__.py": "",
        "tests/fixtures.py": FIXTURES.format(module=module),
        "tests/test_workspace.py": TEST,
    }
    run = review(git_repo, files, {"pkg/workspace.py": WORKSPACE.format(new=", version")})
    found = sites(run, "breaking-call")
    assert [line for path, line in found if path == "tests/test_workspace.py"] == expected
