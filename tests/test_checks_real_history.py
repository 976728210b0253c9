"""False alarms seen on real history (issue 13), each rebuilt as a small repository."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites


def test_a_leading_positional_only_parameter_before_star_args_breaks_only_empty_calls(
    git_repo: GitRepo,
) -> None:
    base = {
        "m.py": "def only(*fields):\n    return fields\n",
        "use.py": "from m import only\n\nonly('a', 'b')\nonly('a')\nonly(*names)\nonly()\n",
    }
    run = review(git_repo, base, {"m.py": "def only(field, /, *fields):\n    return fields\n"})
    assert sites(run, "breaking-call") == [("use.py", 6)]  # only the call with no argument at all


def test_a_name_a_function_binds_through_global_is_not_removed(git_repo: GitRepo) -> None:
    old = "counter = 0\n\n\ndef bump():\n    global counter\n    counter = 1\n"
    new = "def bump():\n    global counter\n    counter = 1\n"
    run = review(git_repo, {"g.py": old, "use.py": "import g\n\nprint(g.counter)\n"}, {"g.py": new})
    assert sites(run, "dangling-reference") == []


def test_a_global_declared_but_never_assigned_does_not_keep_a_removed_name(git_repo: GitRepo) -> None:
    old = "counter = 0\n\n\ndef read():\n    global counter\n    return counter\n"
    new = "def read():\n    global counter\n    return counter\n"
    run = review(git_repo, {"g.py": old, "use.py": "import g\n\nprint(g.counter)\n"}, {"g.py": new})
    assert sites(run, "dangling-reference") == [("g.py", 3), ("use.py", 3)]  # both now NameError


AIO = "def run(x):\n    return x\n\n\nclass Backend:\n    pass\n"
AIO_USE = "from pkg.aio import run, Backend\nfrom pkg import aio\n\nrun(1)\naio.run(2)\nBackend()\n"


def test_a_module_turned_into_a_package_that_re_exports_its_names_breaks_nothing(git_repo: GitRepo) -> None:
    base = {"pkg/__init__.py": "", "pkg/aio.py": AIO, "use.py": AIO_USE}
    pr = {
        "pkg/aio.py": None,
        "pkg/aio/backend.py": AIO,
        "pkg/aio/__init__.py": "from .backend import Backend, run\n\n__all__ = ['Backend', 'run']\n",
    }
    run = review(git_repo, base, pr)
    assert sites(run, "dangling-reference") == []


def test_a_module_turned_into_a_package_that_drops_a_name_still_breaks_its_users(git_repo: GitRepo) -> None:
    base = {"pkg/__init__.py": "", "pkg/aio.py": AIO, "use.py": AIO_USE}
    pr = {
        "pkg/aio.py": None,
        "pkg/aio/backend.py": AIO,
        "pkg/aio/__init__.py": "from .backend import Backend\n",
    }
    run = review(git_repo, base, pr)
    assert sites(run, "dangling-reference") == [("use.py", 1), ("use.py", 4), ("use.py", 5)]


RENAMED_OLD = (
    "def load(path: str, mode: str = 'r'):\n    return path, mode\n\n\n"
    "def save(path: str, data: bytes):\n    return path, data\n\n\n"
    "def scale(count: int, label: str):\n    return count, label\n\n\n"
    "def highlight(code: str, lexer_name: Optional[str] = None, *, lexer: Optional[Lexer] = None):\n"
    "    return code\n"
)
RENAMED_NEW = (
    "from pathlib import Path\nfrom typing import Optional\n\n\n"
    "def load(file: 'str | Path | None' = None, mode: str = 'r', *, path: str | None = None):\n"
    "    return file or path, mode\n\n\n"
    "def save(target: Optional[str], data: bytes):\n    return target, data\n\n\n"
    "def scale(label: str, name: str):\n    return label, name\n\n\n"
    "def highlight(code: str, lexer: Union[Lexer, str], *, theme: str = 'dark'):\n"
    "    return code\n"
)
RENAMED_USE = (
    "from io_helpers import highlight, load, save, scale\n\n"
    "load('a.txt')\n"
    "load('a.txt', 'rb')\n"
    "load(path='a.txt')\n"
    "save('out', b'')\n"
    "save(path='out', data=b'')\n"
    "scale(3, 'x')\n"
    "highlight('x = 1', 'python')\n"
    "highlight('x = 1', lexer_name='python')\n"
)


def test_a_parameter_renamed_in_place_breaks_keyword_callers_only(git_repo: GitRepo) -> None:
    run = review(
        git_repo, {"io_helpers.py": RENAMED_OLD, "use.py": RENAMED_USE}, {"io_helpers.py": RENAMED_NEW}
    )
    # load: `path` renamed `file` and kept as a keyword-only alias, so every call still works; save: the
    # old keyword is gone; scale: slot 1 now takes a `str` where it took an `int`, a different parameter;
    # highlight (rich 6c2510ed11): the keyword-only `lexer` took the slot of `lexer_name` and takes a str.
    assert sites(run, "breaking-call") == [("use.py", 7), ("use.py", 8), ("use.py", 10)]


HOOK_BASE = (
    "class Handler:\n"
    "    def handle_event(self, event):\n"
    "        raise NotImplementedError\n\n"
    "    def describe(self, event):\n"
    "        return str(event)\n\n"
    "    def run(self, event):\n"
    "        self.describe(event)\n"
    "        return self.handle_event(event)\n"
)
HOOK_BASE_NEW = HOOK_BASE.replace("(self, event)", "(self, event, context)")
HOOK_SUB = (
    "from hooks import Handler\n\n\n"
    "class Printer(Handler):\n"
    "    def handle_event(self, event, verbose=False):\n"
    "        return event\n\n"
    "    def describe(self, event, verbose=False):\n"
    "        return event\n"
)
HOOK_SUB_NEW = HOOK_SUB.replace("(self, event, verbose=False)", "(self, event, context=None, verbose=False)")
HOOK_USE = "def dispatch(handler, event):\n    handler.handle_event(event)\n    handler.describe(event)\n"


def test_a_base_method_whose_overrides_all_still_take_the_call_is_no_false_alarm(git_repo: GitRepo) -> None:
    base = {"hooks.py": HOOK_BASE, "printer.py": HOOK_SUB, "use.py": HOOK_USE}
    run = review(git_repo, base, {"hooks.py": HOOK_BASE_NEW, "printer.py": HOOK_SUB_NEW})
    # handle_event's base body never runs and Printer's override takes (event): no call breaks. The
    # receiver in use.py may be a Printer. describe's base body does run: `self.describe(event)` breaks.
    assert sites(run, "breaking-call") == [("hooks.py", 9)]


def test_an_abstract_base_method_with_an_override_that_refuses_the_call_still_breaks_it(
    git_repo: GitRepo,
) -> None:
    strict = HOOK_SUB_NEW.replace("context=None", "context")
    base = {"hooks.py": HOOK_BASE, "printer.py": HOOK_SUB}
    run = review(git_repo, base, {"hooks.py": HOOK_BASE_NEW, "printer.py": strict})
    assert sites(run, "breaking-call") == [("hooks.py", 9), ("hooks.py", 10)]


SCAFFOLD = (
    "class Scaffold:\n"
    "    def send_static_file(self, name):\n"
    "        return name\n\n"
    "    def open_resource(self, name):\n"
    "        return name\n\n\n"
    "class SansioBlueprint(Scaffold):\n"
    "    def register(self):\n"
    "        return self.send_static_file\n\n"
    "    def read(self):\n"
    "        return self.open_resource('x')\n"
)
SCAFFOLD_NEW = (
    "class Scaffold:\n"
    "    pass\n\n\n"
    "class SansioBlueprint(Scaffold):\n"
    "    def register(self):\n"
    "        return self.send_static_file  # type: ignore[attr-defined]\n\n"
    "    def read(self):\n"
    "        return self.open_resource('x')\n"
)
IO_BLUEPRINT = (
    "from sansio import SansioBlueprint\n\n\n"
    "class Blueprint(SansioBlueprint):\n"
    "    def send_static_file(self, name):\n"
    "        return name\n"
)


def test_a_method_moved_down_into_the_subclasses_is_still_there_for_self(git_repo: GitRepo) -> None:
    base = {"sansio.py": SCAFFOLD, "io_blueprint.py": "from sansio import SansioBlueprint\n"}
    run = review(git_repo, base, {"sansio.py": SCAFFOLD_NEW, "io_blueprint.py": IO_BLUEPRINT})
    # `self` in SansioBlueprint is always an io Blueprint when send_static_file is used; open_resource is
    # gone from every class.
    assert sites(run, "dangling-reference") == [("sansio.py", 10)]


CONNECT_OLD = "def connect(url, io_loop=None, callback=None, timeout=10):\n    return url\n"
CONNECT_NEW = "def connect(url, callback=None, timeout=10):\n    return url\n"
CONNECT_USE = (
    "from client import connect\n\n"
    "connect('ws://a', None)\n"
    "connect('ws://a', None, compression=None) if False else None\n"
    "connect('ws://a', None, print)\n"
    "connect('ws://a', 0)\n"
)


def test_a_shifted_argument_equal_to_both_defaults_changes_nothing(git_repo: GitRepo) -> None:
    run = review(git_repo, {"client.py": CONNECT_OLD, "use.py": CONNECT_USE}, {"client.py": CONNECT_NEW})
    # tornado 547e0f98: `websocket_connect(url, None)` once io_loop=None is gone: None lands on
    # callback=None. Line 4 passes an unknown keyword (an error either way), line 5 shifts `print`
    # onto timeout, line 6 passes 0 where both defaults are None.
    assert sites(run, "breaking-call") == [("use.py", 5), ("use.py", 6)]


def test_a_call_the_same_commit_already_updated_is_not_reported(git_repo: GitRepo) -> None:
    base = {
        "geo.py": "def move(x, y):\n    return x, y\n",
        "use.py": "from geo import move\n\nmove(1, 2)\nmove(3, 4)\n",
    }
    pr = {
        "geo.py": "def move(y, x):\n    return x, y\n",
        "use.py": "from geo import move\n\nmove(2, 1)\nmove(3, 4)\n",
    }
    run = review(git_repo, base, pr)
    # Line 3 was rewritten for the reordered parameters; line 4 still passes x first.
    assert sites(run, "breaking-call") == [("use.py", 4)]


def test_a_call_the_same_commit_trimmed_is_not_reported(git_repo: GitRepo) -> None:
    """fastapi-users 3bdae948 drops `user_db_model` from `get_oauth_router` and deletes the `UserDB,` line
    of the test's call: the remaining arguments move one slot up, as the author meant. A call left as it
    was still shifts."""
    trimmed = "route(\n    c,\n    a,\n    s,\n    u,\n)\n"
    left = "route(c, Model, a, s)\n"
    base = {
        "router.py": "def route(client, model, auth, secret, url=None):\n    return client\n",
        "use.py": "from router import route\n\n" + trimmed.replace("c,\n", "c,\n    Model,\n") + left,
    }
    pr = {
        "router.py": "def route(client, auth, secret, url=None):\n    return client\n",
        "use.py": "from router import route\n\n" + trimmed + left,
    }
    run = review(git_repo, base, pr)
    assert sites(run, "breaking-call") == [("use.py", 9)]


LINT_CASE = (
    "if type(res) == type(42):\n    pass\n#: Okay\nfrom . import custom_types as types\n\nred = types.RED\n"
)


def test_a_file_whose_own_top_level_code_reads_an_unbound_name_is_data(git_repo: GitRepo) -> None:
    """pycodestyle 5df259bf deletes `testsuite/custom_types.py`; `testsuite/E72.py` imports it, but that
    file is a lint case the tests read as text: its first line reads `res`, which nothing binds, so it
    never imports or runs. `testsuite/real.py`, which reads only what it binds, is code."""
    base = {
        "testsuite/__init__.py": "",
        "testsuite/custom_types.py": "RED = 1\n",
        "testsuite/E72.py": LINT_CASE,
        "testsuite/real.py": "import sys\n\nif sys.argv:\n    from . import custom_types\n",
    }
    run = review(git_repo, base, {"testsuite/custom_types.py": None})
    assert sites(run, "dangling-reference") == [("testsuite/real.py", 4)]


def test_a_test_file_pytest_collects_by_a_path_pattern_is_code(git_repo: GitRepo) -> None:
    """sqlalchemy's `python_files = test/*test_*.py` matches paths, as pytest does for a pattern with a
    `/`: `test/orm/test_query.py` is collected, so its stale import is reported even though its top level
    reads a name nothing binds; `test/orm/cases.py` is not collected and is data."""
    body = "from pkg.gone import RED\n\nif config:\n    pass\n"
    base = {
        "setup.cfg": "[tool:pytest]\npython_files = test/*test_*.py\n",
        "pkg/__init__.py": "",
        "pkg/gone.py": "RED = 1\n",
        "test/orm/test_query.py": body,
        "test/orm/cases.py": body,
    }
    run = review(git_repo, base, {"pkg/gone.py": None})
    assert sites(run, "dangling-reference") == [("test/orm/test_query.py", 1)]


DATASET = "class Dataset:\n    def csv(self):\n        pass\n\n    def dict(self):\n        return {}\n"
REGISTRY = """\
from tablib.core import Dataset


def register(title, export):
    setattr(Dataset, title, property(export))
"""


@pytest.mark.parametrize(
    ("registry", "expected"),
    [(REGISTRY, []), (REGISTRY.replace("title, property", "'tsv', property"), [("use.py", 3)])],
    ids=["computed-name", "constant-name"],
)
def test_a_class_that_gets_attributes_under_computed_names_may_still_have_a_removed_one(
    git_repo: GitRepo, registry: str, expected: list[tuple[str, int]]
) -> None:
    """tablib a9d9671b deletes the documentation stubs `def csv(self): pass` from `Dataset`; the real
    `csv` is installed at import by `setattr(Dataset, fmt.title, property(...))`, once per format. A
    `setattr` of a constant name installs only that name."""
    base = {
        "tablib/__init__.py": "",
        "tablib/core.py": DATASET,
        "tablib/formats.py": registry,
        "use.py": "from tablib.core import Dataset\n\nprint(Dataset().csv)\n",
    }
    new = DATASET.replace("    def csv(self):\n        pass\n\n", "")
    run = review(git_repo, base, {"tablib/core.py": new})
    assert sites(run, "dangling-reference") == expected


STORE = "class StoreMixin:\n    def __init__(self, storage=None):\n        self.store = storage\n"
PLUGIN = """\
from pkg.store import StoreMixin


class BotPluginBase(StoreMixin):
    def __init__(self, bot):
        self.bot = bot
        super().__init__()


class BotPlugin(BotPluginBase):
    pass


class Webserver(BotPlugin):
    def __init__(self, bot):
        super().__init__(bot)


class Raw(StoreMixin):
    def __init__(self):
        super().__init__(None)
"""


def test_super_init_reaches_the_nearest_override_not_the_changed_base(git_repo: GitRepo) -> None:
    """errbot 2081529b: `StoreMixin.__init__(self, storage=None)` loses its parameter; `Webserver`'s
    `super().__init__(bot)` runs `BotPluginBase.__init__(self, bot)` (through `BotPlugin`, which defines
    none), which fits. `Raw`'s `super().__init__(None)` does reach `StoreMixin` and is reported."""
    base = {"pkg/__init__.py": "", "pkg/store.py": STORE, "pkg/plugin.py": PLUGIN}
    new = STORE.replace(
        "(self, storage=None):\n        self.store = storage", "(self):\n        self.store = None"
    )
    run = review(git_repo, base, {"pkg/store.py": new})
    assert sites(run, "breaking-call") == [("pkg/plugin.py", 21)]


GRANTS = """\
class Proxy:
    def __getattr__(self, attr):
        return getattr(self.proxy_target, attr)


class Target:
    def create(self, request):
        return request


class AuthCode(Proxy):
    def __init__(self):
        self.proxy_target = Target()

    def create(self, request):
        return self.proxy_target.create(request)
"""


@pytest.mark.parametrize(
    ("getattr_body", "expected"),
    [
        ("return getattr(self.proxy_target, attr)", []),
        (
            "if attr.startswith('on_'):\n            return print\n        raise AttributeError(attr)",
            [("use.py", 3)],
        ),
    ],
    ids=["forwards-every-name", "raises-for-others"],
)
def test_a_class_whose_getattr_forwards_names_may_still_answer_a_removed_method(
    git_repo: GitRepo, getattr_body: str, expected: list[tuple[str, int]]
) -> None:
    """oauthlib 28cf20b3 makes the OpenID Connect grants proxies: their `create_authorization_response`
    goes, and `OpenIDConnectBase.__getattr__` forwards it to `proxy_target`. A `__getattr__` that raises
    for names it does not know (transitions' `Machine`) answers only those it knows."""
    grants = GRANTS.replace("return getattr(self.proxy_target, attr)", getattr_body)
    use = "from pkg.grants import AuthCode\n\nAuthCode().create(1)\n"
    base = {"pkg/__init__.py": "", "pkg/grants.py": grants, "use.py": use}
    new = grants.replace(
        "\n    def create(self, request):\n        return self.proxy_target.create(request)\n", ""
    )
    run = review(git_repo, base, {"pkg/grants.py": new})
    assert sites(run, "dangling-reference") == expected


READER = """\
class Reader:
    def _set_cache_(self, attr):
        return self._set_cache_brute_(attr)

    def _set_cache_brute_(self, attr):
        return attr

    def read(self):
        return self._set_cache_brute_(1)
"""


def test_a_function_a_later_def_of_the_same_name_replaces_never_runs(git_repo: GitRepo) -> None:
    """GitPython 5d186859 renames `_set_cache_brute_` to a second `_set_cache_`, leaving the first one
    (which calls `_set_cache_brute_`) above it: the class keeps the second, so the first never runs.
    `read`, which runs, is reported."""
    new = READER.replace("def _set_cache_brute_(self, attr)", "def _set_cache_(self, attr)")
    run = review(git_repo, {"pkg/__init__.py": "", "pkg/reader.py": READER}, {"pkg/reader.py": new})
    assert sites(run, "dangling-reference") == [("pkg/reader.py", 9)]


def test_a_method_of_the_same_name_in_another_class_replaces_nothing(git_repo: GitRepo) -> None:
    """Two classes of one file each define `_set_cache_`: each runs, so the first one's stale read is
    reported (the test by text that spares a whole parse must not take them for one block)."""
    other = "\n\nclass Writer:\n    def _set_cache_(self, attr):\n        return attr\n"
    new = READER.replace("_set_cache_brute_(self, attr)", "_brute_(self, attr)") + other
    run = review(git_repo, {"pkg/__init__.py": "", "pkg/reader.py": READER}, {"pkg/reader.py": new})
    assert sites(run, "dangling-reference") == [("pkg/reader.py", 3), ("pkg/reader.py", 9)]


OPTIONAL = """\
class _NullToken:
    pass


_optionalNotMatched = _NullToken()


class Optional:
    def __init__(self, expr, default=_optionalNotMatched):
        self.default = default
"""


def test_a_default_value_reads_the_class_body_it_is_written_in(git_repo: GitRepo) -> None:
    """pyparsing 6f2441a1 moves `_optionalNotMatched` from the module into `class Optional`, above the
    `def __init__(self, expr, default=_optionalNotMatched)` that reads it: defaults are evaluated in the
    class body. A method's body does not see the class namespace: a read there is reported."""
    new = OPTIONAL.replace("\n_optionalNotMatched = _NullToken()\n\n", "").replace(
        "class Optional:\n", "class Optional:\n    _optionalNotMatched = _NullToken()\n\n"
    )
    new += "\n    def reset(self):\n        self.default = _optionalNotMatched\n"
    run = review(git_repo, {"pkg/__init__.py": "", "pkg/core.py": OPTIONAL}, {"pkg/core.py": new})
    assert sites(run, "dangling-reference") == [("pkg/core.py", 12)]


COMPAT = """\
class View:
    def on_change(self, form, model):
        pass

    def _on_change(self, form, model, created):
        try:
            self.on_change(form, model, created)
        except TypeError:
            self.on_change(form, model)
        self.on_change(form, model)

    def save(self, form, model):
        self._on_change(form, model, True)
"""


def test_an_old_call_kept_as_the_fallback_for_a_type_error_is_not_reported(git_repo: GitRepo) -> None:
    """flask-admin b6c8c836 gives `on_model_change` a third parameter and calls it with three, falling
    back to two under `except TypeError:` for subclasses written against the old signature. The call
    after the `try` is not a fallback, and breaks."""
    new = COMPAT.replace("def on_change(self, form, model):", "def on_change(self, form, model, created):")
    run = review(git_repo, {"pkg/__init__.py": "", "pkg/view.py": COMPAT}, {"pkg/view.py": new})
    assert sites(run, "breaking-call") == [("pkg/view.py", 10)]
