"""False alarms of the real-history noise check from round 28 (`bench/noise71-*`, issue 20), each rebuilt
as a small repository of that shape."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

LEGACY_CRS = """def from_epsg(code):
    return {"init": f"epsg:{code}"}
"""
USER = """from pkg.crs import from_epsg


def layer_crs():
    return from_epsg(4326)
"""


@pytest.mark.parametrize(("beside", "expected"), [("pkg/crs.pyx", []), ("pkg/crs.pyi", [1])])
def test_a_python_module_deleted_beside_the_compiled_module_of_its_name(
    git_repo: GitRepo, beside: str, expected: list[int]
) -> None:
    """Fiona f47e27fe deletes the legacy `fiona/crs.py` and keeps `fiona/crs.pyx`, which Cython builds into
    the module `fiona.crs` (an extension module wins over a source file of its name, so it was the one
    imported at the parent too). Neither the module nor its names are gone. A stub (`.pyi`) is no module:
    the imports of a deleted module beside one are reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/crs.py": LEGACY_CRS,
        beside: "def from_epsg(code): ...\n",
        "pkg/user.py": USER,
    }
    run = review(git_repo, files, {"pkg/crs.py": None})
    found = sites(run, "dangling-reference")
    assert sorted(line for path, line in found if path == "pkg/user.py") == expected
