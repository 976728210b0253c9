"""A PR that deletes or renames a whole module or package while other files still import it (issue 13:
these were reported as "no findings")."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import only, review, sites

PACKAGE = {
    "pkg/__init__.py": "from pkg.x import helper\n",
    "pkg/x.py": "def helper():\n    return 1\n\n\nclass Thing:\n    pass\n",
    "pkg/sub/__init__.py": "",
    "pkg/sub/y.py": "Y = 1\n",
}
USERS = {
    "app/__init__.py": "",
    "app/one.py": "import pkg.x\n\npkg.x.helper()\n",
    "app/two.py": "from pkg import x\n\nx.helper()\n",
    "app/three.py": "from pkg.x import Thing\n\nThing()\n",
    "app/four.py": "import pkg\n\npkg.helper()\n",
    "app/five.py": "from pkg.sub import y\nimport pkg.sub.y as yy\n",
    "app/guarded.py": "try:\n    import pkg.x\nexcept ImportError:\n    pass\n",
}
EVERY_IMPORT = [
    ("app/five.py", 1),
    ("app/five.py", 2),
    ("app/four.py", 1),
    ("app/one.py", 1),
    ("app/three.py", 1),
    ("app/two.py", 1),
]


def test_deleting_a_package_directory_breaks_every_import_of_it(git_repo: GitRepo) -> None:
    run = review(git_repo, {**PACKAGE, **USERS}, dict.fromkeys(PACKAGE))
    assert sites(run, "dangling-reference") == EVERY_IMPORT


def test_renaming_a_package_breaks_the_imports_of_its_old_name(git_repo: GitRepo) -> None:
    renamed: dict[str, str | bytes | None] = dict.fromkeys(PACKAGE)
    renamed.update({"pkg2/" + path[4:]: text.replace("pkg.", "pkg2.") for path, text in PACKAGE.items()})
    run = review(git_repo, {**PACKAGE, **USERS}, renamed)
    assert sites(run, "dangling-reference") == EVERY_IMPORT
    message = next(f.message for f in run.findings if f.path == "app/one.py")
    assert "moves module `pkg.x` to `pkg2.x` (pkg/x.py -> pkg2/x.py)" in message


def test_a_deleted_submodule_reached_through_its_surviving_package(git_repo: GitRepo) -> None:
    base = {
        "pkg/__init__.py": "from . import x\n",
        "pkg/x.py": "V = 1\n",
        "use.py": "import pkg\n\nprint(pkg.x.V)\n",
    }
    run = review(git_repo, base, {"pkg/x.py": None, "pkg/__init__.py": ""})
    finding = only(run, "dangling-reference")
    assert (finding.path, finding.line) == ("use.py", 3)


def test_a_module_deleted_while_its_package_still_provides_the_name_breaks_nothing(git_repo: GitRepo) -> None:
    base = {"pkg/__init__.py": "", "pkg/x.py": "V = 1\n", "use.py": "from pkg import x\n"}
    run = review(git_repo, base, {"pkg/x.py": None, "pkg/__init__.py": "x = object()\n"})
    assert sites(run, "dangling-reference") == []


def test_a_relative_import_names_the_file_beside_it_not_another_of_the_same_name(git_repo: GitRepo) -> None:
    # pylint cb0b5561: hundreds of doc examples named bad.py under directories that are no identifiers
    # share one module name; deleting one of them breaks only the relative imports beside it
    examples = {
        "doc/msgs/cyclic-import/bad/bad.py": "def count_to_one():\n    return 1\n",
        "doc/msgs/cyclic-import/bad/bad2.py": "from .bad import count_to_one\n",
        "doc/msgs/no-member/bad.py": "import os\n",
        "doc/msgs/no-member/use.py": "from .bad import os\n",
    }
    run = review(git_repo, examples, {"doc/msgs/no-member/bad.py": None})
    assert sites(run, "dangling-reference") == [("doc/msgs/no-member/use.py", 1)]


def test_a_module_deleted_beside_its_package_of_the_same_name_is_not_gone(git_repo: GitRepo) -> None:
    # pyramid db221574: `tutorial/views.py` deleted beside the `tutorial/views/` package, which is what
    # `tutorial.views` imported all along
    files = {
        "tutorial/__init__.py": "",
        "tutorial/views.py": "def my_view():\n    return 1\n",
        "tutorial/views/__init__.py": "",
        "tutorial/views/default.py": "def my_view():\n    return 2\n",
        "tutorial/tests.py": "from .views.default import my_view\n",
    }
    run = review(git_repo, files, {"tutorial/views.py": None})
    assert sites(run, "dangling-reference") == []


def test_a_deleted_example_package_named_like_the_standard_library_is_not_what_imports_mean(
    git_repo: GitRepo,
) -> None:
    # opentelemetry-python 22497487: `docs/examples/http/` deleted; `from http import HTTPStatus` in the
    # tests is the standard library's
    files = {
        "docs/examples/http/__init__.py": "",
        "docs/examples/http/server.py": "PORT = 80\n",
        "tests/test_client.py": "from http import HTTPStatus\n\nOK = HTTPStatus.OK\n",
    }
    run = review(
        git_repo, files, {"docs/examples/http/__init__.py": None, "docs/examples/http/server.py": None}
    )
    assert sites(run, "dangling-reference") == []


def test_a_type_checking_import_of_a_deleted_module_says_type_checkers_reject_it(git_repo: GitRepo) -> None:
    """quart b60d6703 deletes `quart/routing.py`; `wrappers/base.py` still imports `Rule` from it under
    `if TYPE_CHECKING:`, in a project mypy checks: nothing fails at import, mypy does."""
    users = {
        "setup.cfg": "[mypy]\nstrict = True\n",
        "app/__init__.py": "",
        "app/hint.py": "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg.x import Thing\n",
        "app/one.py": "import pkg.x\n",
    }
    run = review(git_repo, {**PACKAGE, **users}, {"pkg/x.py": None})
    found = {f.path: f.message for f in run.findings if f.rule == "dangling-reference"}
    assert "type checkers now reject this `TYPE_CHECKING` import" in found["app/hint.py"]
    assert "fails with ModuleNotFoundError" in found["app/one.py"]


THEME = {
    "sphinx_rtd_theme/__init__.py": "def get_html_theme_path():\n    return 'x'\n",
    "docs/conf.py": "import sphinx_rtd_theme\n\nhtml_theme_path = [sphinx_rtd_theme.get_html_theme_path()]\n",
}


def test_a_vendored_package_given_up_for_the_distribution_the_project_requires_is_not_gone(
    git_repo: GitRepo,
) -> None:
    """mongoengine 894e9818 deletes its vendored `sphinx_rtd_theme` and adds `sphinx-rtd-theme==0.2.4` to
    requirements.txt: `import sphinx_rtd_theme` is the installed distribution's."""
    change: dict[str, str | bytes | None] = {"sphinx_rtd_theme/__init__.py": None}
    run = review(git_repo, THEME, {**change, "requirements.txt": "sphinx-rtd-theme==0.2.4\n"})
    assert sites(run, "dangling-reference") == []


def test_a_deleted_package_nothing_declares_is_gone(git_repo: GitRepo) -> None:
    run = review(git_repo, THEME, {"sphinx_rtd_theme/__init__.py": None, "requirements.txt": "sphinx\n"})
    assert sites(run, "dangling-reference") == [("docs/conf.py", 1)]


def test_a_module_of_the_project_s_own_distribution_is_still_gone(git_repo: GitRepo) -> None:
    files = {**PACKAGE, **USERS, "setup.py": "from setuptools import setup\n\nsetup(name='pkg')\n"}
    run = review(git_repo, files, {"pkg/x.py": None})
    assert ("app/one.py", 1) in sites(run, "dangling-reference")


def test_imports_after_code_on_their_line_and_relative_ones_are_read_others_sharing_a_leaf_are_not(
    git_repo: GitRepo,
) -> None:
    # The files are chosen from their text before they are parsed: an import written after `if x:` on its
    # line and a relative import count; `cast` from another package is not the deleted `pkg.sub.cast`.
    base = {
        "pkg/__init__.py": "",
        "pkg/sub/__init__.py": "",
        "pkg/sub/cast.py": "V = 1\n",
        "pkg/other.py": "import os\nif os.name: import pkg.sub.cast\n",
        "pkg/sub/near.py": "from .cast import V\n",
        "app.py": "from sqlalchemy import cast\n\ncast(1)\n",
    }
    run = review(git_repo, base, {"pkg/sub/cast.py": None})
    assert sites(run, "dangling-reference") == [("pkg/other.py", 2), ("pkg/sub/near.py", 1)]
