"""dangling-reference: removed or renamed names still used, and the look-alikes that must stay quiet."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import only, review, sites

HELPERS = """\
LIMIT = 5


def slugify(text):
    return text.lower()


def unused():
    return 1


class Widget:
    def render(self):
        return "w"

    def resize(self, factor):
        return factor
"""

MYPY = "[tool.mypy]\nstrict = true\n"
"""A project that type-checks: references that never run still break its checks."""


def _run(
    git_repo: GitRepo, new_helpers: str, others: dict[str, str], init: str = ""
) -> list[tuple[str, int]]:
    base = {"pkg/__init__.py": init, "pkg/helpers.py": HELPERS, **others}
    run = review(git_repo, base, {"pkg/helpers.py": new_helpers})
    assert run.errors == []
    return sites(run, "dangling-reference")


def test_removed_function_import_and_every_use_are_flagged(git_repo: GitRepo) -> None:
    user = "from pkg.helpers import slugify\n\n\ndef title(t):\n    return slugify(t)\n\nx = slugify\n"
    new = HELPERS.replace("def slugify(text):\n    return text.lower()\n", "")
    base = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "app.py": user}
    run = review(git_repo, base, {"pkg/helpers.py": new})
    assert sites(run, "dangling-reference") == [("app.py", 1), ("app.py", 5), ("app.py", 7)]
    imported = next(f for f in run.findings if f.line == 1)
    assert "ImportError" in imported.message and imported.column == 25
    assert imported.related[0].path == "pkg/helpers.py"


def test_an_import_and_a_use_on_one_line_are_one_finding(git_repo: GitRepo) -> None:
    user = "from pkg.helpers import slugify; slugify('A')\n"
    new = HELPERS.replace("def slugify(text):\n    return text.lower()\n", "")
    base = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "app.py": user}
    run = review(git_repo, base, {"pkg/helpers.py": new})
    finding = only(run, "dangling-reference")
    assert finding.line == 1 and "also used on this line" in finding.message


def test_renamed_function_message_suggests_the_new_name(git_repo: GitRepo) -> None:
    user = "import pkg.helpers as h\n\nh.slugify('A')\n"
    new = HELPERS.replace("def slugify(text):", "def make_slug(text):")
    base = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "app.py": user}
    run = review(git_repo, base, {"pkg/helpers.py": new})
    finding = only(run, "dangling-reference")
    assert (finding.path, finding.line, finding.column) == ("app.py", 3, 3)
    assert "renamed to `make_slug`" in finding.message


def test_removed_class_used_as_base_and_annotation(git_repo: GitRepo) -> None:
    user = (
        "from __future__ import annotations\n"
        "from pkg import helpers\n\n"
        "class Fancy(helpers.Widget):\n"
        "    pass\n\n"
        "def show(w: helpers.Widget) -> None:\n"
        "    pass\n"
    )
    new = HELPERS[: HELPERS.index("class Widget")]
    # The annotation is never evaluated: it breaks only the type checker the project runs.
    assert _run(git_repo, new, {"ui.py": user, "pyproject.toml": MYPY}) == [("ui.py", 4), ("ui.py", 7)]


def test_re_export_line_and_package_level_users(git_repo: GitRepo) -> None:
    new = HELPERS.replace("def slugify(text):\n    return text.lower()\n", "")
    user = "from pkg import slugify\n"
    assert _run(git_repo, new, {"app.py": user}, init="from .helpers import slugify as slugify\n") == [
        ("app.py", 1),
        ("pkg/__init__.py", 1),
    ]


def test_removed_method_used_through_self_and_unknown_receivers(git_repo: GitRepo) -> None:
    user = (
        "from pkg.helpers import Widget\n\n"
        "class Big(Widget):\n"
        "    def go(self):\n"
        "        return self.resize(2)\n\n"
        "def use(w):\n"
        "    return w.resize(3)\n"
    )
    new = HELPERS.replace("    def resize(self, factor):\n        return factor\n", "")
    assert _run(git_repo, new, {"big.py": user}) == [("big.py", 5), ("big.py", 8)]


def test_method_defined_by_another_class_needs_receiver_evidence(git_repo: GitRepo) -> None:
    other = "class Image:\n    def resize(self, factor):\n        return factor\n"
    user = "from pkg.helpers import Widget\n\ndef use(w, img):\n    img.resize(2)\n    Widget().resize(3)\n"
    new = HELPERS.replace("    def resize(self, factor):\n        return factor\n", "")
    assert _run(git_repo, new, {"image.py": other, "user.py": user}) == [("user.py", 5)]


def test_method_still_provided_by_a_base_class_is_not_dangling(git_repo: GitRepo) -> None:
    helpers = HELPERS.replace(
        "class Widget:", "class Base:\n    def render(self):\n        return 'b'\n\n\nclass Widget(Base):"
    )
    user = "def use(w):\n    return w.render()\n"
    new = helpers.replace('    def render(self):\n        return "w"\n', "")
    base = {"pkg/__init__.py": "", "pkg/helpers.py": helpers, "user.py": user}
    run = review(git_repo, base, {"pkg/helpers.py": new})
    assert sites(run, "dangling-reference") == []


def test_name_reintroduced_by_import_or_shadowed_locally_is_quiet(git_repo: GitRepo) -> None:
    moved = "def slugify(text):\n    return text.lower()\n"
    new = HELPERS.replace("def slugify(text):\n    return text.lower()\n", "from pkg.text import slugify\n")
    user = "from pkg.helpers import slugify\n\nslugify('x')\n"
    shadow = "from pkg import helpers\n\ndef f(slugify):\n    return slugify('y')\n"
    assert _run(git_repo, new, {"pkg/text.py": moved, "a.py": user, "b.py": shadow}) == []


def test_same_name_from_another_module_is_not_a_reference(git_repo: GitRepo) -> None:
    other = "def slugify(text):\n    return text\n"
    user = "from other import slugify\n\nslugify('x')\n"
    new = HELPERS.replace("def slugify(text):\n    return text.lower()\n", "")
    assert _run(git_repo, new, {"other.py": other, "a.py": user}) == []


def test_guarded_import_with_fallback_is_not_flagged(git_repo: GitRepo) -> None:
    user = (
        "try:\n"
        "    from pkg.helpers import slugify\n"
        "except ImportError:\n"
        "    def slugify(text):\n"
        "        return text\n\n"
        "slugify('x')\n"
    )
    new = HELPERS.replace("def slugify(text):\n    return text.lower()\n", "")
    assert _run(git_repo, new, {"a.py": user}) == []


def test_use_inside_the_changed_file_itself(git_repo: GitRepo) -> None:
    new = HELPERS.replace("def unused():\n    return 1\n", "").replace(
        "def slugify(text):\n    return text.lower()\n", "def slugify(text):\n    return unused() or text\n"
    )
    base = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS}
    run = review(git_repo, base, {"pkg/helpers.py": new})
    finding = only(run, "dangling-reference")
    assert finding.path == "pkg/helpers.py"


def test_deleted_module_names_are_dangling(git_repo: GitRepo) -> None:
    base = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "app.py": "from pkg.helpers import LIMIT\n"}
    run = review(git_repo, base, {"pkg/helpers.py": None})
    assert sites(run, "dangling-reference") == [("app.py", 1)]


def test_tests_that_expect_the_import_to_fail_are_quiet(git_repo: GitRepo) -> None:
    user = (
        "import pytest\n\n"
        "def test_gone():\n"
        "    with pytest.raises(ImportError):\n"
        "        from pkg.helpers import slugify\n"
    )
    new = HELPERS.replace("def slugify(text):\n    return text.lower()\n", "")
    assert _run(git_repo, new, {"test_gone.py": user}) == []


def test_forward_reference_in_a_string_annotation_is_a_use(git_repo: GitRepo) -> None:
    user = (
        "from typing import TYPE_CHECKING, Literal\n\n"
        "if TYPE_CHECKING:\n"
        "    from pkg.helpers import Widget\n\n"
        'def show(w: "Widget", mode: Literal["Widget"]) -> "list[Widget]":\n'
        "    return [w]\n"
    )
    new = HELPERS[: HELPERS.index("class Widget")]
    assert _run(git_repo, new, {"ui.py": user, "pyproject.toml": MYPY}) == [("ui.py", 4), ("ui.py", 6)]


def test_a_type_checking_import_is_not_said_to_fail_at_runtime(git_repo: GitRepo) -> None:
    user = "from typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    from pkg.helpers import Widget\n"
    new = HELPERS[: HELPERS.index("class Widget")]
    base = {"pkg/__init__.py": "", "pkg/helpers.py": HELPERS, "ui.py": user, "pyproject.toml": MYPY}
    run = review(git_repo, base, {"pkg/helpers.py": new})
    finding = only(run, "dangling-reference")
    assert "type checkers now reject this `TYPE_CHECKING` import" in finding.message
    assert "ImportError" not in finding.message


def test_a_mixin_s_removed_override_that_called_super_leaves_the_method_there(git_repo: GitRepo) -> None:
    # peewee 9c910c5e: `PooledDatabase(object).get_conn` called `super().get_conn()`; it is mixed into
    # `PooledPostgres(PooledDatabase, Postgres)`, whose other base still has `get_conn` and the moved
    # `execution_context`
    db = """\
class Database:
    def get_conn(self):
        return 1
"""
    pool = """\
class PooledDatabase(object):
    def get_conn(self):
        return super(PooledDatabase, self).get_conn()

    def execution_context(self):
        return None

    def connect(self):
        return self.get_conn()
"""
    pooled = """\
from pkg.db import Database
from pkg.pool import PooledDatabase


class PooledPostgres(PooledDatabase, Database):
    pass


def test_pool():
    db = PooledPostgres()
    db.get_conn()
    db.execution_context()
"""
    moved = db + "\n    def execution_context(self):\n        return None\n"
    run = review(
        git_repo,
        {"pkg/__init__.py": "", "pkg/db.py": db, "pkg/pool.py": pool, "pkg/pooled.py": pooled},
        {
            "pkg/db.py": moved,
            "pkg/pool.py": pool.split("    def get_conn")[0] + pool.split("return None\n\n")[1],
        },
    )
    assert sites(run, "dangling-reference") == []


def test_a_method_moved_down_into_every_subclass_is_there_for_their_subclasses(git_repo: GitRepo) -> None:
    # peewee 6beef064: `server_side_cursor` moved from the adapter base into both adapters; the
    # extension's adapters derive from those
    base = """\
class Adapter(object):
    def cursor(self, conn):
        return conn


class Psycopg2(Adapter):
    pass


class Psycopg3(Adapter):
    pass
"""
    moved = (
        base.replace("    def cursor(self, conn):\n        return conn\n", "    pass\n")
        .replace(
            "class Psycopg2(Adapter):\n    pass",
            "class Psycopg2(Adapter):\n    def cursor(self, conn):\n        return 2",
        )
        .replace(
            "class Psycopg3(Adapter):\n    pass",
            "class Psycopg3(Adapter):\n    def cursor(self, conn):\n        return 3",
        )
    )
    ext = """\
from pkg.adapters import Psycopg2, Psycopg3


class Ext2(Psycopg2):
    pass


class Ext3(Psycopg3):
    pass


class Database:
    def __init__(self, new):
        self._adapter = Ext3() if new else Ext2()

    def cursor(self, conn):
        return self._adapter.cursor(conn)
"""
    run = review(
        git_repo,
        {"pkg/__init__.py": "", "pkg/adapters.py": base, "pkg/ext.py": ext},
        {"pkg/adapters.py": moved},
    )
    assert sites(run, "dangling-reference") == []


def test_a_generator_s_own_throw_is_not_a_removed_method_of_the_same_name(git_repo: GitRepo) -> None:
    # litestar dcfb6748: `DependencyCleanupGroup.throw` removed; `gen.throw(exc)` over the group's
    # generators is the generator's own method
    group = "class Group:\n    def __init__(self, gens):\n        self._gens = gens\n\n"
    group += "    def throw(self, exc):\n        for gen in self._gens:\n            gen.throw(exc)\n"
    kept = group.replace("    def throw(self, exc):", "    def _throw(self, exc):")
    run = review(git_repo, {"pkg/__init__.py": "", "pkg/cleanup.py": group}, {"pkg/cleanup.py": kept})
    assert sites(run, "dangling-reference") == []


def test_a_method_moved_into_a_mixin_given_through_with_metaclass_is_still_there(git_repo: GitRepo) -> None:
    # jedi d5d9e51f: `py__call__` moved from FunctionContext into FunctionMixin, a base given as
    # `use_metaclass(CachedMetaClass, FunctionMixin, TreeContext)`
    base = """\
def use_metaclass(meta, *bases):
    return meta("Base", bases, {})


class Meta(type):
    pass


class Mixin(object):
    pass


class Function(use_metaclass(Meta, Mixin)):
    def call(self, arguments):
        return arguments


def run(f):
    return Function().call(arguments=f)
"""
    moved = base.replace(
        "class Mixin(object):\n    pass",
        "class Mixin(object):\n    def call(self, arguments):\n        return arguments",
    )
    moved = moved.replace(
        "class Function(use_metaclass(Meta, Mixin)):\n    def call(self, arguments):\n"
        + "        return arguments",
        "class Function(use_metaclass(Meta, Mixin)):\n    pass",
    )
    run = review(git_repo, {"pkg/__init__.py": "", "pkg/function.py": base}, {"pkg/function.py": moved})
    assert sites(run, "dangling-reference") == []


def test_a_method_a_code_generator_still_writes_is_not_gone_for_unknown_receivers(git_repo: GitRepo) -> None:
    """Telethon 91a5d20e: `TLObject.on_response` removed from the base, while the generator still writes
    `def on_response(self, reader):` into the request classes it makes at build time (not in the
    repository): `request.on_response(reader)` on a request of unknown type still works. A receiver
    known to be the base still breaks."""
    base = (
        "class TLObject:\n    def on_response(self, reader):\n        pass\n\n"
        "    def to_bytes(self):\n        return b''\n"
    )
    generator = (
        "def write(builder, is_function):\n"
        "    if is_function:\n"
        "        builder.writeln('def on_response(self, reader):')\n"
    )
    sender = (
        "from pkg.tlobject import TLObject\n\n\n"
        "def handle(request, reader):\n    request.on_response(reader)\n\n\n"
        "def plain(reader):\n    TLObject().on_response(reader)\n"
    )
    files = {
        "pkg/__init__.py": "",
        "pkg/tlobject.py": base,
        "gen/generator.py": generator,
        "pkg/sender.py": sender,
    }
    new = base.replace("    def on_response(self, reader):\n        pass\n\n", "")
    run = review(git_repo, files, {"pkg/tlobject.py": new})
    assert sites(run, "dangling-reference") == [("pkg/sender.py", 9)]


def test_a_dropped_override_the_pr_calls_anew_is_left_to_the_base_outside_the_repository(
    git_repo: GitRepo,
) -> None:
    """aiopg 2eae31c9: `APGCompiler(PGCompiler)` (SQLAlchemy's) drops its `construct_params` override and
    a new method of the same PR calls `self.construct_params(...)`: the author relies on the base's, and
    so may the older call. Without the new call, the older one is reported (the base was trusted not to
    have it: the class defined the method itself)."""
    old = (
        "from sqlalchemy.dialects.postgresql.psycopg2 import PGCompiler\n\n\n"
        "class APGCompiler(PGCompiler):\n"
        "    def construct_params(self, params=None):\n        return dict(params or {})\n\n"
        "    def old_user(self):\n        return self.construct_params({})\n"
    )
    new = (
        "from sqlalchemy.dialects.postgresql.psycopg2 import PGCompiler\n\n\n"
        "class APGCompiler(PGCompiler):\n"
        "    def old_user(self):\n        return self.construct_params({})\n\n"
        "    def aconstruct_params(self, params=None):\n        return self.construct_params(params)\n"
    )
    run = review(git_repo, {"pkg/__init__.py": "", "pkg/engine.py": old}, {"pkg/engine.py": new})
    assert sites(run, "dangling-reference") == []


def test_a_dropped_override_nothing_new_calls_is_gone(git_repo: GitRepo) -> None:
    old = (
        "from sqlalchemy.dialects.postgresql.psycopg2 import PGCompiler\n\n\n"
        "class APGCompiler(PGCompiler):\n"
        "    def construct_params(self, params=None):\n        return dict(params or {})\n\n"
        "    def old_user(self):\n        return self.construct_params({})\n"
    )
    override = "    def construct_params(self, params=None):\n        return dict(params or {})\n\n"
    new = old.replace(override, "")
    run = review(git_repo, {"pkg/__init__.py": "", "pkg/engine.py": old}, {"pkg/engine.py": new})
    assert sites(run, "dangling-reference") == [("pkg/engine.py", 6)]


def test_a_test_marked_to_fail_is_no_stale_reference(git_repo: GitRepo) -> None:
    """aiopg ca92b759: `Cursor.cast` commented out, and the same commit's `@unittest.expectedFailure`
    test calls it. A strict xfail fails loudly when the test passes, and a conditional one (flask's
    `xfail(on PyPy)`) runs normally elsewhere: their references count."""
    tests = (
        "import sys\nimport unittest\n\nimport pytest\n\nfrom pkg.helpers import Widget\n\n\n"
        "class T(unittest.TestCase):\n    @unittest.expectedFailure\n    def test_resize(self):\n"
        "        Widget().resize(2)\n\n\n"
        "@pytest.mark.xfail(reason='gone')\ndef test_loose():\n    Widget().resize(3)\n\n\n"
        "@pytest.mark.xfail(strict=True)\ndef test_strict():\n    Widget().resize(4)\n\n\n"
        "@pytest.mark.xfail(sys.platform == 'win32', reason='flaky')\ndef test_on_windows():\n"
        "    Widget().resize(5)\n"
    )
    new = HELPERS.replace("    def resize(self, factor):\n        return factor\n", "")
    assert _run(git_repo, new, {"tests/test_w.py": tests}) == [
        ("tests/test_w.py", 22),
        ("tests/test_w.py", 27),
    ]


def test_what_a_standard_library_function_returns_is_not_the_repository_s(git_repo: GitRepo) -> None:
    """arq edf964ae renames `Worker.run_forever`; `_loop = asyncio.new_event_loop()` then
    `_loop.run_forever()` is asyncio's. A function of a module that may return anything (`pickle.loads`)
    leaves the receiver unknown: still reported."""
    worker = "class Worker:\n    def run_forever(self):\n        return 1\n\n"
    worker += "    def close(self):\n        pass\n"
    use = (
        "import asyncio\nimport pickle\n\nfrom pkg.worker import Worker\n\n\n"
        "def loop_context():\n    _loop = asyncio.new_event_loop()\n    _loop.run_forever()\n\n\n"
        "def main(blob):\n    Worker().run_forever()\n"
        "    thing = pickle.loads(blob)\n    thing.run_forever()\n"
    )
    new = worker.replace("def run_forever(self)", "def run_until_complete(self)")
    files = {"pkg/__init__.py": "", "pkg/worker.py": worker, "tests/conftest.py": use}
    run = review(git_repo, files, {"pkg/worker.py": new})
    assert sites(run, "dangling-reference") == [("tests/conftest.py", 13), ("tests/conftest.py", 15)]


def _py2_dict_case(git_repo: GitRepo, setup_cfg: str) -> list[tuple[str, int]]:
    old = (
        "class DeclarationDict(object):\n    def __init__(self):\n        self._d = {}\n\n"
        "    def iteritems(self):\n        return iter(self._d.items())\n"
    )
    new = "class DeclarationDict(dict):\n    pass\n"
    use = (
        "from pkg.containers import DeclarationDict\n\n\n"
        "def update(**kwargs):\n    for k, v in kwargs.iteritems():\n        print(k, v)\n"
        "    for k, v in DeclarationDict().iteritems():\n        print(k, v)\n"
    )
    files = {"setup.cfg": setup_cfg, "pkg/__init__.py": "", "pkg/containers.py": old, "pkg/use.py": use}
    return sites(review(git_repo, files, {"pkg/containers.py": new}), "dangling-reference")


def test_a_class_now_deriving_from_dict_keeps_python_2_s_iteritems(git_repo: GitRepo) -> None:
    """factory_boy 41c68349 (2011, Python 2): DeclarationDict drops its own `iteritems` and derives from
    `dict`, whose Python 2 `iteritems` callers keep using; `kwargs.iteritems()` is a `**kwargs` dict's."""
    assert _py2_dict_case(git_repo, "[metadata]\nname = pkg\n") == []


def test_in_a_python_3_project_dict_has_no_iteritems(git_repo: GitRepo) -> None:
    assert _py2_dict_case(git_repo, "[options]\npython_requires = >=3.8\n") == [("pkg/use.py", 7)]


def test_a_module_that_fills_its_own_namespace_may_still_bind_a_removed_name(git_repo: GitRepo) -> None:
    """toolz 369b0d53 moves `merge_with` out of toolz/curried.py, which binds every curried function
    through `locals().update(...)`, the moved one included: `from toolz.curried import merge_with` works."""
    old = (
        "import toolz\n\n\ndef merge_with(func, *dicts):\n    return func(dicts)\n\n\n"
        "locals().update(dict(toolz.__dict__))\n"
    )
    moved_out = old.replace("def merge_with(func, *dicts):\n    return func(dicts)\n\n\n", "")
    files = {
        "pkg/__init__.py": "",
        "pkg/curried.py": old,
        "tests/test_curried.py": "from pkg.curried import merge_with\n\nmerge_with(sum)\n",
    }
    assert sites(review(git_repo, files, {"pkg/curried.py": moved_out}), "dangling-reference") == []


def test_a_name_that_became_a_submodule_of_the_new_package_is_still_there(git_repo: GitRepo) -> None:
    """python-dotenv 50941828 turns `dotenv.py` (with its `cli` click group) into a package whose
    `dotenv/cli.py` the `__init__` imports from: `dotenv.cli.set` is the submodule's command."""
    module = "import click\n\n\n@click.group()\ndef cli():\n    pass\n\n\ndef load_dotenv():\n    return 1\n"
    use = "import dotenv\n\n\ndef test_cli():\n    return dotenv.cli.set\n"
    change: dict[str, str | bytes | None] = {
        "dotenv.py": None,
        "dotenv/__init__.py": "from .cli import get_cli_string\nfrom .main import load_dotenv\n",
        "dotenv/cli.py": "def get_cli_string():\n    return ''\n\n\ndef set():\n    pass\n",
        "dotenv/main.py": "def load_dotenv():\n    return 1\n",
    }
    run = review(git_repo, {"dotenv.py": module, "tests/test_cli.py": use}, change)
    assert sites(run, "dangling-reference") == []


URL_CLASS = """\
from urllib.parse import SplitResult, urlsplit


class URL:
    def __init__(self, val):
        if isinstance(val, str):
            val = urlsplit(val)
        elif isinstance(val, SplitResult):
            pass
        else:
            raise TypeError("str or SplitResult expected")
        if not val.path:
            raise ValueError("no path")
        self._val = val

    @property
    def path(self):
        return self._val.path

    def __truediv__(self, name):
        return URL(self._val._replace(path=self._val.path + "/" + name))
"""


def _path_renamed(git_repo: GitRepo, cls: str) -> list[tuple[str, int]]:
    renamed = cls.replace(
        "    def path(self):\n        return self._val.path",
        "    def raw_path(self):\n        return self._val.path",
    )
    base = {
        "pkg/__init__.py": "",
        "pkg/url.py": cls,
        "app.py": "from pkg.url import URL\n\nprint(URL('/a').path)\n",
    }
    run = review(git_repo, base, {"pkg/url.py": renamed})
    assert run.errors == []
    return sites(run, "dangling-reference")


def test_a_parameter_an_if_chain_lets_through_only_narrowed_is_of_that_class(git_repo: GitRepo) -> None:
    """yarl cf95ea52 (`URL.path` renamed `path_parts`): `val` is a str made a SplitResult, or a SplitResult,
    or the constructor raises; `self._val = val` holds a SplitResult, whose `.path` is not the URL's."""
    assert _path_renamed(git_repo, URL_CLASS) == [("app.py", 3)]


def test_a_branch_that_lets_the_value_through_unproved_keeps_it_unknown(git_repo: GitRepo) -> None:
    loose = URL_CLASS.replace(
        '        else:\n            raise TypeError("str or SplitResult expected")\n', ""
    )
    sites_left = [("app.py", 3), ("pkg/url.py", 10), ("pkg/url.py", 16), ("pkg/url.py", 19)]
    assert _path_renamed(git_repo, loose) == sites_left


def test_a_parameter_past_an_if_not_isinstance_that_raises_is_of_that_class(git_repo: GitRepo) -> None:
    checked = URL_CLASS.replace(
        "        if isinstance(val, str):\n            val = urlsplit(val)\n"
        "        elif isinstance(val, SplitResult):\n            pass\n        else:\n",
        "        if not isinstance(val, SplitResult):\n",
    )
    assert _path_renamed(git_repo, checked) == [("app.py", 3)]


def test_a_class_of_a_standard_library_submodule_imported_by_from_is_not_the_repository_s(
    git_repo: GitRepo,
) -> None:
    """waitress 6d814e38: `SubprocessTests.getresponse` removed; `h = httplib.HTTPConnection(...)` with
    `from http import client as httplib` (a module, not a function of `http`) has its own."""
    tests = (
        "from http import client as httplib\n\n\n"
        "class SubprocessTests:\n    def getresponse(self, status=200):\n        return status\n\n"
        "    def test_many(self):\n        conns = []\n        for _ in range(2):\n"
        "            h = httplib.HTTPConnection('localhost', 80)\n            conns.append(h)\n"
        "        for h in conns:\n            h.getresponse()\n\n"
        "    def test_one(self, other):\n        return other.getresponse()\n"
    )
    removed = tests.replace("    def getresponse(self, status=200):\n        return status\n\n", "")
    run = review(
        git_repo,
        {"tests/__init__.py": "", "tests/test_functional.py": tests},
        {"tests/test_functional.py": removed},
    )
    assert run.errors == []
    assert sites(run, "dangling-reference") == [("tests/test_functional.py", 14)]


RELEASE = (
    "class ReleaseTag:\n    def expand(self, repl):\n        return repl\n\n"
    "    def mro(self, cls=None):\n        return [cls]\n"
)


def _release_methods_removed(git_repo: GitRepo, files: dict[str, str]) -> list[tuple[str, int]]:
    base = {"pkg/__init__.py": "", "pkg/segments.py": RELEASE, **files}
    run = review(git_repo, base, {"pkg/segments.py": "class ReleaseTag:\n    pass\n"})
    assert run.errors == []
    return sites(run, "dangling-reference")


def test_vendored_code_never_calls_the_repository_s_method_through_an_unknown_receiver(
    git_repo: GitRepo,
) -> None:
    """poetry-core 50364f16: `ReleaseTag.expand` removed; the vendored pyparsing's `tokens[0].expand(repl)`
    is a `re.Match`'s. The same line in the project's own code is reported (probable)."""
    use = "def sub(tokens, repl):\n    return tokens[0].expand(repl)\n"
    files = {"pkg/_vendor/__init__.py": "", "pkg/_vendor/pyparsing.py": use, "pkg/rules.py": use}
    assert _release_methods_removed(git_repo, files) == [("pkg/rules.py", 2)]


def test_a_method_every_class_object_has_is_not_the_repository_s(git_repo: GitRepo) -> None:
    """pdoc d59bb5e0: `Module.mro(self, cls)` removed; `self.cls.mro()` with `cls: type` is `type.mro`."""
    use = "class Doc:\n    def __init__(self, cls: type):\n        self.cls = cls\n"
    use += "        self.bases = self.cls.mro()\n"
    assert _release_methods_removed(git_repo, {"pkg/doc.py": use}) == []


def test_a_use_after_the_function_already_returned_never_runs(git_repo: GitRepo) -> None:
    """pdoc d59bb5e0: `lookup()` stubbed with `return None, None  # FIXME` above its old body, which
    still calls the removed `find_ident`; the same call before the `return` is reported."""
    user = (
        "def lookup(module, name):\n    return None, None\n    # FIXME\n    return module.resize(name)\n\n\n"
        "def other(module, name):\n    module.resize(name)\n    return None\n"
    )
    new = HELPERS.replace("    def resize(self, factor):\n        return factor\n", "")
    assert _run(git_repo, new, {"html.py": user}) == [("html.py", 8)]


ISOLATED_ENV = """\
import abc


class IsolatedEnv(metaclass=abc.ABCMeta):
    @abc.abstractmethod
    def install(self, requirements):
        raise NotImplementedError


class VenvEnv(IsolatedEnv):
    def install(self, requirements):
        return requirements


def make() -> IsolatedEnv:
    return VenvEnv()
"""
REDEFINED_ENV = ISOLATED_ENV.replace(
    "    @abc.abstractmethod\n    def install(self, requirements):\n        raise NotImplementedError\n",
    "    @abc.abstractmethod\n    def python_executable(self):\n        raise NotImplementedError\n",
).replace(
    "class VenvEnv(IsolatedEnv):\n", "class VenvEnv(IsolatedEnv):\n    python_executable = 'python'\n\n"
)
STILL_ABSTRACT_TEST = """\
import pytest

from pkg.env import IsolatedEnv, make


def test_install():
    make().install([])


def test_still_abstract():
    class Env(IsolatedEnv):
        def other(self):
            return 1

    with pytest.raises(TypeError):
        Env()
"""


def test_a_subclass_that_cannot_be_instantiated_does_not_lack_the_abstract_member(git_repo: GitRepo) -> None:
    """build cda46947: `IsolatedEnv.install` (abstract) removed from the ABC; the one concrete class still
    defines it; a test's `Env(IsolatedEnv)` lacks it, but also lacks the new abstract member, so no
    instance of it exists."""
    base = {"pkg/__init__.py": "", "pkg/env.py": ISOLATED_ENV, "tests/test_env.py": STILL_ABSTRACT_TEST}
    run = review(git_repo, base, {"pkg/env.py": REDEFINED_ENV})
    assert run.errors == []
    assert sites(run, "dangling-reference") == []


def test_a_concrete_subclass_without_the_member_still_lacks_it(git_repo: GitRepo) -> None:
    concrete = STILL_ABSTRACT_TEST.replace("        def other(self):", "        def python_executable(self):")
    base = {"pkg/__init__.py": "", "pkg/env.py": ISOLATED_ENV, "tests/test_env.py": concrete}
    run = review(git_repo, base, {"pkg/env.py": REDEFINED_ENV})
    assert run.errors == []
    assert sites(run, "dangling-reference") == [("tests/test_env.py", 7)]


WRAPPED_MODULE = (
    "import sys\n\n__version__ = '3.0'\n\n\nclass _ModuleWrap:\n    def __init__(self, name):\n"
    "        self._module = sys.modules[name]\n        sys.modules[name] = self\n\n"
    "    @property\n    def version(self):\n        return __version__\n\n\n_ModuleWrap(__name__)\n"
)


def _version_removed(git_repo: GitRepo, new: str) -> list[tuple[str, int]]:
    old = "import sys\n\n__version__ = '3.0'\nversion = __version__\n"
    files = {"pkg/__init__.py": old, "tests/test_api.py": "import pkg\n\nVERSION = pkg.version\n"}
    return sites(review(git_repo, files, {"pkg/__init__.py": new}), "dangling-reference")


def test_a_module_that_hands_itself_over_to_a_wrapper_may_still_serve_a_removed_name(
    git_repo: GitRepo,
) -> None:
    """markdown d81207a6 removes `version = __version__` and ends with `_ModuleWrap(__name__)`, whose
    `__init__` does `sys.modules[name] = self`; the wrapper's class serves `version` as a deprecated
    property."""
    assert _version_removed(git_repo, WRAPPED_MODULE) == []


def test_a_module_that_keeps_itself_has_lost_the_name(git_repo: GitRepo) -> None:
    assert _version_removed(git_repo, WRAPPED_MODULE.replace("\n\n_ModuleWrap(__name__)\n", "\n")) == [
        ("tests/test_api.py", 3)
    ]


@pytest.mark.parametrize(
    ("extra", "header", "expected"),
    [
        ({}, "", []),
        ({}, "from __future__ import absolute_import\n", [("steplib/steps.py", 2)]),
        ({"setup.cfg": "[options]\npython_requires = >=3.6\n"}, "", [("steplib/steps.py", 1)]),
    ],
    ids=["python-2", "absolute-import", "python-3-only"],
)
def test_a_python_2_import_finds_the_sibling_module_first(
    git_repo: GitRepo, extra: dict[str, str], header: str, expected: list[tuple[str, int]]
) -> None:
    """behave 700e729b moves `command_shell.py` and the steps that `import command_shell` from a steps
    folder into the `behave4cmd0` package; the top-level module is gone, but Python 2 imports the
    package's own `command_shell.py` first (unless the file asks for `absolute_import`)."""
    base = {
        "command_shell.py": "def run():\n    return 0\n",
        "steplib/__init__.py": "",
        "steplib/command_shell.py": "def run():\n    return 0\n",
        "steplib/steps.py": header + "import command_shell\n\ncommand_shell.run()\n",
        **extra,
    }
    run = review(git_repo, base, {"command_shell.py": None})
    assert sites(run, "dangling-reference") == expected
