"""False alarms of the real-history noise check from round 25 (`bench/noise68-*`, issue 20), each rebuilt
as a small repository of that shape."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

SIGNAL = """class Signal:
    def put(self, value, *, timestamp=None, force=False{new}, **kwargs):
        self.value = value
"""
SIM = """from pkg.signal import Signal


class SignalRO(Signal):
    def put(self, value, *, timestamp=None, force=False{own}):
        raise RuntimeError("read-only")


def update(signal: Signal) -> None:
    signal.put(1, metadata={{"severity": 0}})
"""


@pytest.mark.parametrize(("own", "expected"), [("", []), (", metadata=None", [5])])
def test_a_keyword_the_old_base_took_through_kwargs_and_the_override_refused(
    git_repo: GitRepo, own: str, expected: list[int]
) -> None:
    """ophyd 066ae2bd names `metadata=` in `Signal.put(self, value, *, timestamp=None, force=False,
    **kwargs)`, whose `**kwargs` took it before. A simulated signal's `put` took no `**kwargs`: it refused
    `put(v, metadata=m)` at the parent as it does now, and nothing the PR did breaks it. An override that
    took `metadata=` at the parent and that the PR changes to refuse it is still reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/signal.py": SIGNAL.format(new=""),
        "pkg/sim.py": SIM.format(own=own),
    }
    changes = {"pkg/signal.py": SIGNAL.format(new=", metadata=None")}
    if own:
        changes["pkg/sim.py"] = SIM.format(own="")
    run = review(git_repo, files, changes)
    assert [line for path, line in sites(run, "override-mismatch") if path == "pkg/sim.py"] == expected


FUNCTIONS = """def clear(session):
    return session
"""
VISA = """from .{folder}.constants import *
from pkg.wrapper import functions


class Instrument:
    def __init__(self, session):
        self.session = session

    def clear(self):
        functions.clear(self.session)
"""


@pytest.mark.parametrize(
    ("folder", "ignored", "expected"),
    [
        ("pkg.wrapper", "", []),
        ("pkg.wrapper", ".idea/*\n*.py[cod]\n", []),
        ("generated", "generated/\n", [10]),
        ("wrapper", "", [10]),
    ],
)
def test_a_file_whose_relative_import_names_a_package_no_commit_has(
    git_repo: GitRepo, folder: str, ignored: str, expected: list[int]
) -> None:
    """pyvisa 412661a5 gives every function of `pyvisa/wrapper/functions.py` a new first parameter. The
    calls in `pyvisa/visa.py` no longer fit, but that file could not be imported at the parent either: it
    kept `from .pyvisa.wrapper.vpp43_constants import *` after an earlier commit moved the wrapper, and
    `pyvisa/pyvisa/` never existed. A folder the `.gitignore` names may be written by a build, and an
    import of a folder that is there is fine: the calls are reported then. (That last case also holds a
    star import of a repository module for no import of a name `*` the module lacks.)"""
    files = {
        ".gitignore": ignored,
        "pkg/__init__.py": "",
        "pkg/wrapper/__init__.py": "",
        "pkg/wrapper/constants.py": "TIMEOUT = 1\n",
        "pkg/wrapper/functions.py": FUNCTIONS,
        "pkg/visa.py": VISA.format(folder=folder),
    }
    run = review(
        git_repo, files, {"pkg/wrapper/functions.py": "def clear(library, session):\n    return session\n"}
    )
    assert [line for path, line in sites(run, "breaking-call") if path == "pkg/visa.py"] == expected


DEVICE = """class Device:
    def __init__(self, prefix="", *, name{default}, parent=None):
        self.prefix = prefix
        self.name = name
"""
MOTOR_RELAY = """from pkg.device import Device


class EpicsMotor(Device):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.moving = False
"""
MOTOR_OWN = """from pkg.device import Device


class EpicsMotor(Device):
    def __init__(self, prefix="", *, name, parent=None):
        super().__init__(prefix=prefix, name=name, parent=parent)
        self.moving = False
"""
EXAMPLE = """from pkg.motor import EpicsMotor

m1 = EpicsMotor("XF:31IDA-OP{Tbl-Ax:X1}Mtr")
"""


@pytest.mark.parametrize(("default", "expected"), [("", []), ('="motor"', [3])])
def test_a_relay_to_the_base_whose_base_rejected_the_call(
    git_repo: GitRepo, default: str, expected: list[int]
) -> None:
    """ophyd 276d391 writes out `EpicsMotor.__init__`'s signature, which was `(self, *args, **kwargs)`
    handed on to `super().__init__`. `EpicsMotor(record)` fits that on paper, but `Device.__init__` wants
    `name=`: the call failed at the parent already. When the base took the call (`name` had a default),
    the PR breaks it, and it is reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/device.py": DEVICE.format(default=default),
        "pkg/motor.py": MOTOR_RELAY,
        "examples/motor.py": EXAMPLE,
    }
    run = review(git_repo, files, {"pkg/motor.py": MOTOR_OWN})
    assert [line for path, line in sites(run, "breaking-call") if path == "examples/motor.py"] == expected


API_V1 = """class Chart:
    @classmethod
    def from_dict(cls, spec):
        return cls()
{load}"""
LOAD_EXAMPLE = """
    @classmethod
    def load_example(cls, name):
        return cls.from_dict(name)
"""
TEST_API = """from ..api import Chart
from ..{module} import iter_examples


def test_chart_load_example():
    name = next(iter_examples())
    assert Chart.load_example(name)
"""


@pytest.mark.parametrize(
    ("module", "extra", "expected"),
    [("examples", {}, []), ("examples", {"src/speedups.c": "int x;\n"}, [7]), ("_version", {}, [7])],
)
def test_a_file_whose_relative_import_names_a_module_no_commit_has(
    git_repo: GitRepo, module: str, extra: dict[str, str], expected: list[int]
) -> None:
    """altair ad60c1ee removes `Chart.load_example` from its v1 API, which a v1 test still calls; but that
    test imports `from ..examples import iter_examples`, and `v1/examples` never existed: it failed on
    import at the parent. A repository that compiles extension modules may build one of that name, and
    `_version` is what builds usually write: the call is reported then."""
    files = {
        "pkg/__init__.py": "",
        "pkg/v1/__init__.py": "",
        "pkg/v1/api.py": API_V1.format(load=LOAD_EXAMPLE),
        "pkg/v1/tests/__init__.py": "",
        "pkg/v1/tests/test_api.py": TEST_API.format(module=module),
        **extra,
    }
    run = review(git_repo, files, {"pkg/v1/api.py": API_V1.format(load="")})
    assert [
        line for path, line in sites(run, "dangling-reference") if path.endswith("test_api.py")
    ] == expected


@pytest.mark.parametrize(("init", "expected"), [(True, []), (False, [7])])
def test_a_missing_module_of_a_namespace_package_may_be_in_another_folder(
    git_repo: GitRepo, init: bool, expected: list[int]
) -> None:
    """flask's `sansio` folder has no `__init__.py` while files move into it: a namespace package, whose
    path may span folders of other distributions, so a module it lacks here may be found elsewhere (and
    urllib3's `.packages.six.moves` is a module `six.py` installs). Only a regular package is certain."""
    files = {
        "pkg/__init__.py": "",
        "pkg/v1/api.py": API_V1.format(load=LOAD_EXAMPLE),
        "pkg/v1/tests/__init__.py": "",
        "pkg/v1/tests/test_api.py": TEST_API.format(module="examples"),
    }
    if init:
        files["pkg/v1/__init__.py"] = ""
    run = review(git_repo, files, {"pkg/v1/api.py": API_V1.format(load="")})
    assert [
        line for path, line in sites(run, "dangling-reference") if path.endswith("test_api.py")
    ] == expected


BANDIT = """class Bandit:
    def __init__(self, template{new}):
        self.template = template
"""
GM = """from pkg.bandit import Bandit


class GM_BanditAlgo(TheanoBanditAlgo):
    def __init__(self, bandit):
        self.helper_locals = {namespace}()

    def build(self):
        return Bandit("template")
"""


@pytest.mark.parametrize(("namespace", "expected"), [("locals", []), ("globals", [9])])
def test_locals_inside_a_method_binds_no_name_of_the_module(
    git_repo: GitRepo, namespace: str, expected: list[int]
) -> None:
    """hyperopt ec29b0d0ea: `class GM_BanditAlgo(TheanoBanditAlgo):` names a base the module never binds,
    so importing it raised NameError before the PR as after, and its calls never ran. A method's
    `self.helper_locals = locals()` binds nothing of the module; `globals()` may, and then the call is
    reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/bandit.py": BANDIT.format(new=""),
        "pkg/theano_gm.py": GM.format(namespace=namespace),
    }
    run = review(git_repo, files, {"pkg/bandit.py": BANDIT.format(new=", algo")})
    assert [line for path, line in sites(run, "breaking-call") if path == "pkg/theano_gm.py"] == expected
