"""False alarms of the real-history noise check left from round 32 (`bench/noise75-*`, issue 20), and
those of round 33 (`bench/noise76-*`), each rebuilt as a small repository of that shape."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

PLOTTER_BEFORE = """class StatisticPlotter:
    def __init__(self, frame):
        self.frame = frame

    def bar(self, x=None):
        return ("bar", x)

    def line(self, x=None):
        return ("line", x)
"""
PLOTTER_AFTER = """from functools import partial

CHART_TYPES = ["bar", "line", "area"]


class StatisticPlotter:
    def __init__(self, frame):
        self.frame = frame
        for chart_type in CHART_TYPES:
            setattr(self, chart_type, partial(self._chart, chart_type=chart_type))

    def _chart(self, chart_type, x=None):
        return (chart_type, x)
"""
PLOTTER_USE = """from pkg.plotter import StatisticPlotter


def test_charts():
    plotter = StatisticPlotter([1, 2])
    assert plotter.bar()[0] == "bar"
    assert plotter.line(x=1)[0] == "line"
"""


def test_methods_a_class_now_installs_on_its_instances_under_computed_names_are_still_there(
    git_repo: GitRepo,
) -> None:
    """PyPSA 5de997ae40 replaces `StatisticPlotter.bar`/`.line` by one `_chart` that `__init__` installs
    under each name of `CHART_TYPES` with `setattr(self, chart_type, ...)`: `plotter.bar()` still works.
    20 findings, every one false."""
    files = {"pkg/__init__.py": "", "pkg/plotter.py": PLOTTER_BEFORE, "tests/test_plot.py": PLOTTER_USE}
    run = review(git_repo, files, {"pkg/plotter.py": PLOTTER_AFTER})
    assert sites(run, "dangling-reference") == []


def test_a_name_the_caller_chooses_does_not_install_a_removed_method(git_repo: GitRepo) -> None:
    """The paired case: `__init__(self, **options)` sets `setattr(self, key, value)` for whatever the
    caller passes; nobody passes `bar`, so `plotter.bar()` is broken and reported."""
    after = PLOTTER_BEFORE.replace(
        "        self.frame = frame\n",
        "        self.frame = frame\n\n    def configure(self, **options):\n"
        "        for key, value in options.items():\n            setattr(self, key, value)\n",
        1,
    ).replace('    def bar(self, x=None):\n        return ("bar", x)\n\n', "")
    files = {"pkg/__init__.py": "", "pkg/plotter.py": PLOTTER_BEFORE, "tests/test_plot.py": PLOTTER_USE}
    run = review(git_repo, files, {"pkg/plotter.py": after})
    assert sites(run, "dangling-reference") == [("tests/test_plot.py", 6)]


NETWORK = """COMPONENTS = ["buses", "storage_units"]


class Network:
    def __init__(self):
        for list_name in COMPONENTS:
            setattr(self, list_name + "_t", {})
"""
BUS_BEFORE = """class Bus:
    def __init__(self, network):
        self.network = network

    def storage_units_t(self):
        return self.network.storage_units_t
"""
OPF = """def define_storage(network):
    return network.storage_units_t


def define_inflow(network):
    return network.storage_units_t["inflow"]
"""


def _bus_helper_removed(git_repo: GitRepo, network: str) -> list[tuple[str, int]]:
    files = {"pkg/__init__.py": "", "pkg/network.py": network, "pkg/bus.py": BUS_BEFORE, "pkg/opf.py": OPF}
    after = BUS_BEFORE.split("    def storage_units_t")[0].rstrip() + "\n"
    run = review(git_repo, files, {"pkg/bus.py": after})
    return sites(run, "dangling-reference")


def test_a_receiver_of_unknown_type_may_be_an_instance_given_that_name_under_a_computed_one(
    git_repo: GitRepo,
) -> None:
    """PyPSA dc21c27b35 removes the helper `Bus.storage_units_t()`. `network.storage_units_t` in
    `opf.py` reads a `Network`, which sets `setattr(self, list_name + "_t", ...)` for every component;
    `network` is an untyped parameter, and that name still exists on what it holds."""
    assert _bus_helper_removed(git_repo, NETWORK) == []


def test_a_computed_name_that_cannot_spell_the_removed_one_keeps_the_finding(git_repo: GitRepo) -> None:
    """The paired case: `Network` installs only names ending in `_frame`; `storage_units_t` is not one
    of them, and `network.storage_units_t` is reported as before."""
    network = NETWORK.replace('"_t"', '"_frame"')
    assert _bus_helper_removed(git_repo, network) == [("pkg/opf.py", 2), ("pkg/opf.py", 6)]


GRID_BEFORE = """class Plotter:
    def __init__(self, frame):
        self.frame = frame

    def line(self):
        return self.frame
"""
GRID_AFTER = """class Plotter:
    def __init__(self, frame):
        self.frame = frame

    def lines(self):
        return self.frame
"""
IMPORTER = """from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from powerlib.auxiliary import powerNet


def import_net(net: powerNet) -> list:
    return list(net.line.index)
"""


def test_a_parameter_annotated_with_a_lowercase_outside_class_is_that_class(git_repo: GitRepo) -> None:
    """PyPSA 5de997ae40 (second shape): `net: pandapowerNet`, imported under `TYPE_CHECKING` from a
    library, holds pandapower's network, whose `.line` is a table, not the plotter's removed method.
    Outside an annotation a lowercase name from a library may be a function; in one it is a class."""
    files = {"pkg/__init__.py": "", "pkg/plotter.py": GRID_BEFORE, "pkg/io.py": IMPORTER}
    run = review(git_repo, files, {"pkg/plotter.py": GRID_AFTER})
    assert sites(run, "dangling-reference") == []


def test_an_unannotated_parameter_reading_the_removed_method_is_still_reported(git_repo: GitRepo) -> None:
    """The paired case: without the annotation `net` may be a `Plotter`; `net.line` is reported."""
    importer = IMPORTER.replace("net: powerNet", "net")
    files = {"pkg/__init__.py": "", "pkg/plotter.py": GRID_BEFORE, "pkg/io.py": importer}
    run = review(git_repo, files, {"pkg/plotter.py": GRID_AFTER})
    assert sites(run, "dangling-reference") == [("pkg/io.py", 10)]


SCRATCH = """class MyClass:
    def safely_stringify_for_pudb(self):
        return 1 / 0

    def other(self):
        return 0
"""
VAR_VIEW = """def stringify(value):
    if isinstance(value, int):
        return str(value)
    elif hasattr(type(value), "safely_stringify_for_pudb"):
        try:
            return value.safely_stringify_for_pudb()
        except Exception:
            return "!! failed !!"
    return repr(value)
"""


def test_a_read_behind_hasattr_of_the_receivers_type_says_nothing(git_repo: GitRepo) -> None:
    """pudb 8d683898cb removes the scratch class's `safely_stringify_for_pudb`; `var_view.py` calls that
    protocol hook on any object whose type has it, asked with `hasattr(type(value), ...)`."""
    files = {"pkg/__init__.py": "", "debug_me.py": SCRATCH, "pkg/var_view.py": VAR_VIEW}
    after = SCRATCH.split("    def safely")[0] + "    def other(self):\n        return 0\n"
    run = review(git_repo, files, {"debug_me.py": after})
    assert sites(run, "dangling-reference") == []


def test_a_hasattr_asked_of_another_objects_type_guards_nothing(git_repo: GitRepo) -> None:
    """The paired case: `hasattr(type(other), ...)` says nothing of `value`; the read is reported."""
    guarded = VAR_VIEW.replace("def stringify(value):", "def stringify(value, other=None):")
    guarded = guarded.replace("hasattr(type(value)", "hasattr(type(other)")
    files = {"pkg/__init__.py": "", "debug_me.py": SCRATCH, "pkg/var_view.py": guarded}
    after = SCRATCH.split("    def safely")[0] + "    def other(self):\n        return 0\n"
    run = review(git_repo, files, {"debug_me.py": after})
    assert sites(run, "dangling-reference") == [("pkg/var_view.py", 6)]


EMBED = """from .model import Model


@declare_dimensions(V="Vector width")
class Embed(Model):
    pass
"""
TAGGER = """from pkg.id2vec import Embed
from pkg.util import score_model

model = Embed()
print(score_model(model))
"""


def _thinc_examples(git_repo: GitRepo, embed: str) -> list[tuple[str, int]]:
    files = {
        "pkg/__init__.py": "",
        "pkg/_classes/__init__.py": "",
        "pkg/_classes/model.py": "class Model:\n    pass\n",
        "pkg/_classes/embed.py": embed,
        "pkg/id2vec.py": "from ._classes.embed import Embed\n",
        "pkg/util.py": "def score_model(model):\n    return 1.0\n\n\ndef other():\n    return 0\n",
        "examples/tagger.py": TAGGER,
    }
    run = review(git_repo, files, {"pkg/util.py": "def other():\n    return 0\n"})
    return sites(run, "dangling-reference")


def test_a_script_importing_a_module_that_never_imported_was_already_broken(git_repo: GitRepo) -> None:
    """thinc f30b274b55 removes `score_model`; the examples that import it first import `Embed`, whose
    class is decorated with a `declare_dimensions` nothing defines, at the parent as at the commit: they
    stopped with a NameError before reaching `score_model`, and still do."""
    assert _thinc_examples(git_repo, EMBED) == []


def test_a_script_importing_a_module_that_imports_is_still_reported(git_repo: GitRepo) -> None:
    """The paired case: `declare_dimensions` is imported by the class's module; the example ran at the
    parent, and its `score_model` lines are reported."""
    defined = "from .model import Model\n\n\ndef declare_dimensions(**dims):\n"
    defined += "    return lambda cls: cls\n\n\n"
    assert _thinc_examples(git_repo, defined + EMBED.split("\n\n\n", 1)[1]) == [
        ("examples/tagger.py", 2),
        ("examples/tagger.py", 5),
    ]


OPTIONS_BEFORE = """class Options:
    def _process_data(self, frame, kind):
        return (frame, kind)

    def _option_from_url(self, url):
        calls = self._process_data(url, "call")
        return calls

    def get_call_data(self, url):
        frame_name = "_frames" + url
        if hasattr(self, frame_name):
            return getattr(self, frame_name)
        return self._load_data(url)

    def _load_data(self, url):
        return self._process_data(url, "call")
"""


def _options_review(git_repo: GitRepo, lookup: str) -> list[tuple[str, int]]:
    after = OPTIONS_BEFORE.replace(
        "def _process_data(self, frame, kind):\n        return (frame, kind)",
        "def _process_data(self, frame):\n        return frame",
    ).replace('return self._process_data(url, "call")\n', "return self._process_data(url)\n")
    after = after.replace('frame_name = "_frames" + url', f"frame_name = {lookup}")
    files = {"pkg/__init__.py": "", "pkg/options.py": OPTIONS_BEFORE}
    run = review(git_repo, files, {"pkg/options.py": after})
    return sites(run, "breaking-call")


def test_a_call_in_a_private_method_nothing_refers_to_never_runs(git_repo: GitRepo) -> None:
    """pandas-datareader 91d09a0834 moves `Options` onto `_load_data` and leaves `_option_from_url`,
    which nothing calls, with its old `self._process_data(url, "call")`. The `getattr` of the module
    reads names starting `_frames`, never that one."""
    assert _options_review(git_repo, '"_frames" + url') == []


def test_a_getattr_that_may_spell_the_private_method_keeps_the_finding(git_repo: GitRepo) -> None:
    """The paired case: `getattr(self, "_option_" + url)` may call `_option_from_url`."""
    assert _options_review(git_repo, '"_option_" + url') == [("pkg/options.py", 6)]


def test_a_class_setting_any_name_of_its_own_table_does_not_hide_unknown_receivers(git_repo: GitRepo) -> None:
    """The paired case of the computed names, from the 605's sqlalchemy eee7a3add9: a class that sets
    `setattr(self, key, None)` for each key of its own table may set any name, and so says nothing of an
    untyped `network.storage_units_t`; only a name with a spelled part (`list_name + "_t"`) tells."""
    network = NETWORK.replace('list_name + "_t"', "list_name")
    assert _bus_helper_removed(git_repo, network) == [("pkg/opf.py", 2), ("pkg/opf.py", 6)]
