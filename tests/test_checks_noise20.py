"""False alarms of the real-history noise check on repositories it was not tuned on (issue 20), each
rebuilt as a small repository of that shape."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import only, review, sites

NAMES = "def alpha():\n    return 1\n\n\ndef beta():\n    return 2\n\n\ndef gamma():\n    return 3\n"


def test_a_multi_line_import_of_removed_names_is_one_finding(git_repo: GitRepo) -> None:
    use = "from names import (\n    alpha,\n    beta,\n    gamma,\n)\n\nalpha()\n"
    run = review(git_repo, {"names.py": NAMES, "use.py": use}, {"names.py": "def gamma():\n    return 3\n"})
    assert sites(run, "dangling-reference") == [("use.py", 2), ("use.py", 7)]
    finding = next(f for f in run.findings if f.line == 2)
    assert finding.title == "Import of removed `alpha` and `beta`"
    assert (finding.end_line, finding.end_column) == (3, 9)  # the range covers both names
    assert "also names `beta` (line 3)" in finding.message


def test_a_multi_line_import_of_removed_modules_is_one_finding(git_repo: GitRepo) -> None:
    base = {
        "pkg/__init__.py": "",
        "pkg/one.py": "X = 1\n",
        "pkg/two.py": "Y = 2\n",
        "use.py": "from pkg import (\n    one,\n    two,\n)\n",
    }
    run = review(git_repo, base, {"pkg/one.py": None, "pkg/two.py": None})
    finding = only(run, "dangling-reference")
    assert (finding.line, finding.title) == (2, "Import of removed `pkg.one` and `pkg.two`")


WIDGETS = "class Widget:\n    pass\n\n\nclass Gadget:\n    pass\n"
NO_WIDGET = "class Gadget:\n    pass\n"
TYPED_USE = (
    "from __future__ import annotations\n\n"
    "from typing import TYPE_CHECKING\n\n"
    "import widgets\n\n"
    "if TYPE_CHECKING:\n"
    "    from widgets import Widget\n\n\n"
    "def show(w: Widget, other: widgets.Widget) -> widgets.Gadget:\n"
    "    return widgets.Gadget()\n"
)


def test_references_that_never_run_are_quiet_in_a_project_without_a_type_checker(git_repo: GitRepo) -> None:
    run = review(git_repo, {"widgets.py": WIDGETS, "use.py": TYPED_USE}, {"widgets.py": NO_WIDGET})
    assert sites(run, "dangling-reference") == []


def test_references_that_never_run_break_a_project_that_type_checks(git_repo: GitRepo) -> None:
    base = {
        "widgets.py": WIDGETS,
        "use.py": TYPED_USE,
        "tox.ini": "[testenv:typing]\ncommands = mypy src\n",
    }
    run = review(git_repo, base, {"widgets.py": NO_WIDGET})
    assert sites(run, "dangling-reference") == [("use.py", 8), ("use.py", 11)]


def test_a_file_outside_the_type_checkers_files_is_not_type_checked(git_repo: GitRepo) -> None:
    base = {
        "widgets.py": WIDGETS,
        "src/use.py": TYPED_USE,
        "tests/use.py": TYPED_USE,
        "pyproject.toml": '[tool.mypy]\nfiles = ["src"]\n',
    }
    run = review(git_repo, base, {"widgets.py": NO_WIDGET})
    assert [p for p, _ in sites(run, "dangling-reference")] == ["src/use.py"] * 2


def test_an_annotation_that_python_evaluates_is_a_use(git_repo: GitRepo) -> None:
    use = "import widgets\n\n\ndef show(w: widgets.Widget) -> None:\n    pass\n"
    run = review(git_repo, {"widgets.py": WIDGETS, "use.py": use}, {"widgets.py": NO_WIDGET})
    assert sites(run, "dangling-reference") == [("use.py", 4)]


DATA_USE = "from widgets import Widget\n\nWidget()\n"


def _data_review(git_repo: GitRepo, extra: dict[str, str]) -> list[tuple[str, int]]:
    base = {
        "widgets.py": WIDGETS,
        "tests/__init__.py": "",
        "tests/test_tool.py": "def test_tool():\n    assert open('tests/data/sample.py').read()\n",
        "tests/data/sample.py": DATA_USE,
        **extra,
    }
    return sites(review(git_repo, base, {"widgets.py": NO_WIDGET}), "dangling-reference")


def test_test_data_pytest_is_told_not_to_collect_is_not_code(git_repo: GitRepo) -> None:
    config = {"pyproject.toml": '[tool.pytest.ini_options]\nnorecursedirs = ["data", ".*"]\n'}
    assert _data_review(git_repo, config) == []


def test_test_data_a_conftest_ignores_is_not_code(git_repo: GitRepo) -> None:
    assert _data_review(git_repo, {"tests/conftest.py": 'collect_ignore = ["data"]\n'}) == []


def test_test_data_the_linters_skip_inside_the_testpaths_is_not_code(git_repo: GitRepo) -> None:
    config = {
        "setup.cfg": "[tool:pytest]\ntestpaths = tests\n\n[flake8]\nexclude = .git,tests/data\n",
    }
    assert _data_review(git_repo, config) == []


def test_a_skipped_file_is_code_when_it_is_not_configured_away_or_something_imports_it(
    git_repo: GitRepo,
) -> None:
    # A linter's exclude outside the testpaths (examples/ left unlinted are still run by people), and an
    # ignored folder whose module another file imports.
    config = {
        "setup.cfg": (
            "[tool:pytest]\ntestpaths = tests\nnorecursedirs = helpers\n\n[flake8]\nexclude = examples\n"
        ),
        "examples/demo.py": DATA_USE,
        "tests/helpers/__init__.py": "",
        "tests/helpers/maker.py": DATA_USE,
        "tests/test_maker.py": "from tests.helpers.maker import Widget\n",
    }
    found = _data_review(git_repo, config)
    assert ("examples/demo.py", 1) in found and ("tests/helpers/maker.py", 1) in found
    assert ("tests/data/sample.py", 1) in found  # nothing configured it away


LAZY_OLD = (
    "def lazy(f):\n    return property(f)\n\n\nclass Job:\n    @lazy\n    def data(self):\n        return 1\n"
)
LAZY_NEW = (
    "class Job:\n"
    "    def lazy(f):\n"
    "        return property(f)\n\n"
    "    @lazy\n"
    "    def data(self):\n"
    "        return 1\n\n"
    "    cached = lazy(lambda self: 2)\n\n"
    "    def later(self):\n"
    "        return lazy(self)\n\n"
    "    del lazy\n"
)


def test_a_name_the_class_body_binds_above_its_use_is_the_class_s_own(git_repo: GitRepo) -> None:
    # rq c898fe61: the decorator moved into the class body; only the method's body still reads the global.
    run = review(git_repo, {"job.py": LAZY_OLD}, {"job.py": LAZY_NEW})
    assert sites(run, "dangling-reference") == [("job.py", 12)]


MERGED_OLD = "def get_interpreter(key, try_first_with, app_data=None, env=None):\n    return key, app_data\n"
MERGED_NEW = (
    "def get_interpreter(key, try_first_with, cache=None, env=None, app_data=None):\n"
    "    return key, cache or app_data\n\n\n"
    "def connect(host, timeout=None, retries=None):\n"
    "    return host, timeout, retries\n"
)
MERGED_USE = (
    "from discovery import connect, get_interpreter\n\n"
    "get_interpreter('python3', [], session_app_data)\n"
    "connect('h', 5)\n"
)


def test_a_positional_argument_landing_on_a_parameter_merged_with_its_old_one_is_fine(
    git_repo: GitRepo,
) -> None:
    # virtualenv f89d46c0: the body passes `cache or app_data` on, so either slot means the same.
    swapped = "def connect(host, retries=None, timeout=None):\n    return host, timeout, retries\n"
    old = MERGED_OLD + "\n\n" + swapped
    run = review(git_repo, {"discovery.py": old, "use.py": MERGED_USE}, {"discovery.py": MERGED_NEW})
    assert sites(run, "breaking-call") == [("use.py", 4)]  # connect's swap is still reported


HERE_OLD = "here = None\n\n\ndef where():\n    return here\n"
HERE_NEW = "def where():\n    return here\n"


def test_a_module_global_a_test_sets_from_outside_is_not_removed(git_repo: GitRepo) -> None:
    setup = "import places\n\n\ndef setup_module():\n    places.here = '/tmp'\n\n\ndef test_where():\n"
    setup += "    assert places.where() == places.here\n"
    run = review(git_repo, {"places.py": HERE_OLD, "test_places.py": setup}, {"places.py": HERE_NEW})
    assert sites(run, "dangling-reference") == []


def test_a_module_global_set_through_an_alias_of_its_module_is_not_removed(git_repo: GitRepo) -> None:
    # Only files spelling the module's name are read for `<module>.here = ...`: an alias is imported by it.
    setup = "from pkg import places as p\n\n\ndef setup_module():\n    p.here = '/tmp'\n"
    files = {"pkg/__init__.py": "", "pkg/places.py": HERE_OLD, "test_places.py": setup}
    run = review(git_repo, files, {"pkg/places.py": HERE_NEW})
    assert sites(run, "dangling-reference") == []


def test_a_module_global_nobody_sets_is_still_removed(git_repo: GitRepo) -> None:
    user = "import places\n\nprint(places.here)\n"
    run = review(git_repo, {"places.py": HERE_OLD, "use.py": user}, {"places.py": HERE_NEW})
    assert sites(run, "dangling-reference") == [("places.py", 2), ("use.py", 3)]


CONN_OLD = (
    "class Reader:\n"
    "    def fetch(self, size):\n"
    "        return size\n\n\n"
    "class Conn:\n"
    "    def __init__(self):\n"
    "        self._reader: Reader = Reader()\n\n"
    "    def _flush(self):\n"
    "        return 1\n"
)
CONN_NEW = CONN_OLD.replace("    def fetch(self, size):", "    def fetch(self, size, timeout):").replace(
    "    def _flush(self):\n        return 1\n", "    pass\n"
)
CONN_TEST = (
    "from unittest import mock\n\nfrom conn import Conn\n\n\n"
    "def test_flush():\n"
    "    conn = Conn()\n"
    "    conn._flush = mock.Mock()\n"
    "    conn._flush()\n"
    "    conn._reader = mock.Mock()\n"
    "    conn._reader.fetch(3)\n\n\n"
    "def test_real():\n"
    "    conn = Conn()\n"
    "    conn._reader.fetch(3)\n"
    "    conn._flush()\n"
)


def test_an_attribute_the_test_sets_on_the_instance_before_using_it_is_that_value(git_repo: GitRepo) -> None:
    run = review(git_repo, {"conn.py": CONN_OLD, "test_conn.py": CONN_TEST}, {"conn.py": CONN_NEW})
    # Only the test that uses the real objects breaks.
    assert sites(run, "breaking-call") == [("test_conn.py", 16)]
    assert sites(run, "dangling-reference") == [("test_conn.py", 17)]


def test_a_call_the_same_commit_edited_in_place_is_not_reported_but_a_new_one_is(git_repo: GitRepo) -> None:
    base = {
        "shapes.py": "def area(width):\n    return width\n",
        "use.py": "from shapes import area\n\narea(\n    2,\n)\narea(3)\n",
    }
    pr = {
        # The PR edits the first call in place (the checks cannot tell what it meant: say nothing), leaves
        # the second alone and adds a third written against the old signature.
        "shapes.py": "def area(width, height):\n    return width * height\n",
        "use.py": "from shapes import area\n\narea(\n    2,  # height later\n)\narea(3)\narea(5)\n",
    }
    run = review(git_repo, base, pr)
    assert sites(run, "breaking-call") == [("use.py", 6), ("use.py", 7)]


def test_a_test_file_left_out_of_mypy_is_still_code(git_repo: GitRepo) -> None:
    # sphinx: tests/test_extensions/test_ext_napoleon_docstring.py is in mypy's exclude, and pytest runs it.
    config = {
        "pyproject.toml": (
            '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n'
            '[tool.mypy]\nexclude = ["^tests/test_tool\\\\.py$", "^tests/data/"]\n'
        ),
        "tests/test_tool.py": "from widgets import Widget\n",
    }
    assert _data_review(git_repo, config) == [("tests/test_tool.py", 1)]


def test_a_deprecated_parameter_handed_to_its_successor_keeps_its_slot_s_meaning(git_repo: GitRepo) -> None:
    # pluggy 6b296c23: `call_historic(proc=None, kwargs=None)` became `call_historic(result_callback=None,
    # kwargs=None, proc=None)` whose body says `result_callback = proc` when `proc` is given
    old = "def call_historic(proc=None, kwargs=None):\n    return proc, kwargs\n"
    new = (
        "def call_historic(result_callback=None, kwargs=None, proc=None):\n"
        "    if proc is not None:\n        result_callback = proc\n    return result_callback, kwargs\n"
    )
    use = "from hooks import call_historic\n\ncall_historic(print, {'arg': 1})\n"
    run = review(git_repo, {"hooks.py": old, "use.py": use}, {"hooks.py": new})
    assert sites(run, "breaking-call") == []


def test_arguments_named_like_the_parameter_they_now_land_on_were_wrong_before(git_repo: GitRepo) -> None:
    # astroid 8230d733 (a revert drops `parent`: `build("f", None, defaults)` is right again) and
    # 41a102e0 (`annotations` and `defaults` swapped: `fmt(self.kwonlyargs, self.kw_defaults)`); `span(0,
    # stop)` is named like the parameter it fed before the swap: that one breaks. quart 7e17234f: `bind(
    # server_name, scheme)` -> `bind(scheme, server_name)` under `bind(config['PREFERRED_URL_SCHEME'],
    # config['SERVER_NAME'])`
    old = (
        "def build(name, parent=None, args=None, defaults=None):\n    return name\n\n\n"
        "def fmt(args, annotations=None, defaults=None):\n    return args\n\n\n"
        "def span(start, stop=None, step=None):\n    return start\n\n\n"
        "def bind(server_name, scheme):\n    return scheme, server_name\n"
    )
    new = (
        "def build(name, args=None, defaults=None):\n    return name\n\n\n"
        "def fmt(args, defaults=None, annotations=None):\n    return args\n\n\n"
        "def span(start, step=None, stop=None):\n    return start\n\n\n"
        "def bind(scheme, server_name):\n    return scheme, server_name\n"
    )
    use = (
        "from nodes import bind, build, fmt, span\n\n\nclass Args:\n    def show(self, defaults, stop):\n"
        "        build('f', None, defaults)\n        fmt(self.kwonlyargs, self.kw_defaults)\n"
        "        span(0, stop)\n"
        "        bind(self.config['PREFERRED_URL_SCHEME'], self.config['SERVER_NAME'])\n"
    )
    run = review(git_repo, {"nodes.py": old, "use.py": use}, {"nodes.py": new})
    assert sites(run, "breaking-call") == [("use.py", 8)]
