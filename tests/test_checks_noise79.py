"""False alarms of the real-history noise check from rounds 33 to 36 (`bench/noise76-*` to `noise79-*`,
issue 20), each rebuilt as a small repository of that shape, with a paired case still reported."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

WALRUS = "def first(xs):\n    if (n := len(xs)) > 0:\n        return n\n"

LAYERS = """class LoraLayer:
    def update_layer(self, adapter_name, r, init_weights, use_rslora, use_dora=False{extra}):
        return adapter_name, r, init_weights, use_rslora, use_dora


class AdaLoraLayer(LoraLayer):
    def update_layer(self, {override}):
        return adapter_name, r


def build(layer: LoraLayer):
    return layer.update_layer("default", 8, True, False, lora_bias=True)
"""


@pytest.mark.parametrize(
    ("override", "expected"),
    [
        ("adapter_name, r, init_weights", []),
        ("adapter_name, r, init_weights, use_rslora, use_dora=False", [7]),
    ],
)
def test_an_override_that_refused_every_call_of_the_base_before_is_called_its_own_way(
    git_repo: GitRepo, override: str, expected: list[int]
) -> None:
    """peft 943daf1de4: `AdaLoraLayer.update_layer` never took `use_rslora`, which every call of the base
    passes, so no call made to the base's signature ran on it; the base gaining `lora_bias` breaks none of
    its callers. An override that took every base parameter and now misses `lora_bias` is reported."""
    files = {"pkg/__init__.py": "", "pkg/layers.py": LAYERS.format(extra="", override=override)}
    after = LAYERS.format(extra=", lora_bias=False", override=override)
    run = review(git_repo, files, {"pkg/layers.py": after})
    assert [line for _path, line in sites(run, "override-mismatch")] == expected


ENSEMBLE = """from sklearn.ensemble import BaggingClassifier


class EasyEnsembleClassifier(BaggingClassifier):
    def fit(self, X, y):
        return super().fit(X, y)
{removed}"""
DECISION = """
{comment}    def decision_function(self, X):
        return sum(e.decision_function(X) for e in self.estimators_) / len(self.estimators_)
"""
USE = """from pkg.ensemble import EasyEnsembleClassifier


def test_decision(X, y):
    eec = EasyEnsembleClassifier().fit(X, y)
    assert eec.decision_function(X) is not None
"""


@pytest.mark.parametrize(
    ("comment", "expected"),
    [("    # TODO: remove when minimum supported version of scikit-learn is 1.1\n", []), ("", [6])],
)
def test_a_method_kept_until_a_library_version_has_it_is_still_there_in_the_base(
    git_repo: GitRepo, comment: str, expected: list[int]
) -> None:
    """imbalanced-learn d55e27d06f drops `EasyEnsembleClassifier.decision_function`, marked to be removed
    once scikit-learn 1.1 is the minimum: `BaggingClassifier` has it from then on. With no such mark the
    class defined the method itself and the base is trusted not to have it: reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/ensemble.py": ENSEMBLE.format(removed=DECISION.format(comment=comment)),
        "tests/test_ensemble.py": USE,
    }
    run = review(git_repo, files, {"pkg/ensemble.py": ENSEMBLE.format(removed="")})
    assert [line for _path, line in sites(run, "dangling-reference")] == expected


SERIALIZERS = """class Serializer:
    def deserialize(self, item{extra}):
        return {body}


class DataFrameSerializer(Serializer):
    def deserialize(self, item, force_bytes_to_unicode=False):
        return item.decode() if force_bytes_to_unicode else item


class SeriesSerializer(Serializer):
    def deserialize(self, item):
        return item
"""
STORE = """from pkg.serializers import {made}


class Store:
    SERIALIZER = {made}()

    def read(self, item):
        return self.SERIALIZER.deserialize(item, force_bytes_to_unicode=True)
"""


@pytest.mark.parametrize(("made", "expected"), [("DataFrameSerializer", []), ("Serializer", [12])])
def test_a_new_keyword_passed_only_to_a_sibling_class_relies_on_nothing_the_override_lacks(
    git_repo: GitRepo, made: str, expected: list[int]
) -> None:
    """arctic 6cdc3ad6bf gives `Serializer.deserialize` the `force_bytes_to_unicode` its
    `DataFrameSerializer` took; the one call passing it is on a `DataFrameSerializer`, never a
    `SeriesSerializer`. Passed to what may be any serializer, it may reach the override that lacks it."""
    files = {
        "pkg/__init__.py": "",
        "pkg/serializers.py": SERIALIZERS.format(extra="", body="item"),
        "pkg/store.py": STORE.format(made=made),
    }
    after = SERIALIZERS.format(
        extra=", force_bytes_to_unicode=False", body="item.decode() if force_bytes_to_unicode else item"
    )
    run = review(git_repo, files, {"pkg/serializers.py": after})
    assert [line for _path, line in sites(run, "override-mismatch")] == expected


FILLING_INIT = """import os
from pkgutil import walk_packages


def global_import(name):
    p = __import__(name, globals(), locals(), level=1)
    for k in p.__all__:
        globals()[k] = p.__dict__[k]


for _, module_name, _ in walk_packages([os.path.dirname(__file__)]):
    global_import(module_name)
"""
NAMING_INIT = """from .config import Other
"""
CLASSES = "class TrainConfig:\n    pass\n\n\nclass Other:\n    pass\n"


@pytest.mark.parametrize(("init", "expected"), [(FILLING_INIT, []), (NAMING_INIT, [1, 3])])
def test_a_package_filling_its_namespace_from_a_function_may_hold_any_name(
    git_repo: GitRepo, init: str, expected: list[int]
) -> None:
    """tensorpack e9a6a5afeb turns `train.py` into a package whose `__init__.py` copies every submodule's
    `__all__` into its namespace through `globals()` in a helper function: `TrainConfig` is still there.
    A package naming what it imports no longer has it."""
    files = {
        "pkg/__init__.py": "",
        "pkg/train.py": CLASSES,
        "example.py": "from pkg.train import TrainConfig\n\nconfig = TrainConfig()\n",
    }
    after = {
        "pkg/train.py": None,
        "pkg/train/__init__.py": init,
        "pkg/train/config.py": "__all__ = ['TrainConfig', 'Other']\n\n\n" + CLASSES,
    }
    run = review(git_repo, files, after)
    assert [line for _path, line in sites(run, "dangling-reference")] == expected


ENTITY = """class BaseEntity:
    def __init__(self, df):
        self.df = df
{head}"""
HEAD = """
    def head(self, n=5):
        return self.df.head(n)
"""
SELECTION = """{imports}

def categorical_ratio(df):
    numeric_columns = df.head()._get_numeric_data().columns
    return [f for f in df if f not in numeric_columns]
"""


@pytest.mark.parametrize(("imports", "expected"), [("import pandas as pd\n", []), ("import os\n", [5])])
def test_a_pandas_method_name_on_an_unknown_receiver_in_pandas_code_is_a_frames(
    git_repo: GitRepo, imports: str, expected: list[int]
) -> None:
    """featuretools f3577d0e8d drops `BaseEntity.head`; `df.head()` in a file that imports pandas is a
    DataFrame's. In a file that has nothing to do with pandas, the receiver of unknown type may well be
    an entity."""
    files = {
        "pkg/__init__.py": "",
        "pkg/entity.py": ENTITY.format(head=HEAD),
        "pkg/selection.py": SELECTION.format(imports=imports),
    }
    run = review(git_repo, files, {"pkg/entity.py": ENTITY.format(head="")})
    assert [line for _path, line in sites(run, "dangling-reference")] == expected


ENV_BEFORE = """class Env:
    def configure(self, *args, **kwargs):
        return self._configure(*args, **kwargs)

    def _configure(self, *args, **kwargs):
        return None


class CartPoleEnv(Env):
    pass
"""
ENV_AFTER = """class Env:
    def configure(self, *args, **kwargs):
        raise NotImplementedError


class CartPoleEnv(Env):
    pass
"""
WRAPPER = """from pkg.core import CartPoleEnv, Env


class PredictActionsCartpoleEnv(Env):
    def __init__(self):
        self.cartpole = CartPoleEnv()

    def _configure(self, *n, **kw):
        return self.cartpole._configure(*n, **kw)
"""


@pytest.mark.parametrize(
    ("caller", "expected"), [("", []), ("def setup(env):\n    return env._configure()\n", [9])]
)
def test_a_private_method_spelled_only_in_its_own_overrides_never_runs(
    git_repo: GitRepo, caller: str, expected: list[int]
) -> None:
    """gym 387f14d381 drops `Env._configure`; what is left of the name is a wrapper's `_configure` handing
    on to its inner environment's. Nothing calls `_configure` any more, so the wrapper's never runs. While
    something still calls it, the wrapper's call is reported."""
    files = {"pkg/__init__.py": "", "pkg/core.py": ENV_BEFORE, "pkg/wrapper.py": WRAPPER}
    if caller:
        files["pkg/setup.py"] = caller
    run = review(git_repo, files, {"pkg/core.py": ENV_AFTER})
    assert [line for path, line in sites(run, "dangling-reference") if path == "pkg/wrapper.py"] == expected


FUSION_TEST = """import unittest


class TestFusion(unittest.TestCase):
    def {name}(self):
        import pkg.cuda as cuda

        return cuda.CudaNdarray([1])

    def c_code(self, x):
        return "%(x)s * 2;" % locals()
"""


@pytest.mark.parametrize(("name", "expected"), [("speed_fusion_gpu", []), ("test_fusion_gpu", [6])])
def test_a_test_module_function_no_runner_collects_never_runs(
    git_repo: GitRepo, name: str, expected: list[int]
) -> None:
    """Theano 9dcf3f4c1c deletes `theano.sandbox.cuda`; `speed_fusion_gpu` in `test_opt.py` is a manual
    benchmark no test runner collects and nothing calls (a method formatting with `locals()` reads its
    own variables, not the module's functions). A test method using the module is reported."""
    assert (
        _lines_after_deleting_cuda(git_repo, "tests/test_opt.py", FUSION_TEST.format(name=name)) == expected
    )


LEAK_TESTS = """import sys

run_memory_usage_tests = {value}
if run_memory_usage_tests:

    def test_leak2():
        import pkg.cuda as cuda

        return cuda.CudaNdarray(sys.argv)
"""


@pytest.mark.parametrize(("value", "expected"), [("False", []), ("True", [7])])
def test_a_block_under_a_flag_the_module_sets_false_never_runs(
    git_repo: GitRepo, value: str, expected: list[int]
) -> None:
    """Theano's `test_vm.py` keeps its memory-leak tests under `run_memory_usage_tests = False`: the
    import of the deleted module in them never runs. Under a flag set true it is reported."""
    assert (
        _lines_after_deleting_cuda(git_repo, "tests/test_vm.py", LEAK_TESTS.format(value=value)) == expected
    )


def _lines_after_deleting_cuda(git_repo: GitRepo, path: str, text: str) -> list[int]:
    """The dangling-reference lines when the PR deletes `pkg/cuda.py`, which `path` uses."""
    files = {
        "pkg/__init__.py": "",
        "pkg/cuda.py": "class CudaNdarray:\n    def __init__(self, data):\n        self.data = data\n",
        path: text,
    }
    run = review(git_repo, files, {"pkg/cuda.py": None})
    return [line for _path, line in sites(run, "dangling-reference")]


BLAS = """import pkg


def synchronizes(c):
    return {guard}isinstance(c, pkg.cuda.CudaNdarray)
"""


@pytest.mark.parametrize(("guard", "expected"), [('hasattr(pkg, "cuda") and ', []), ("", [5])])
def test_a_use_of_a_deleted_module_behind_hasattr_of_its_package_runs_only_where_it_is(
    git_repo: GitRepo, guard: str, expected: list[int]
) -> None:
    """Theano 9dcf3f4c1c deletes `theano.sandbox.cuda`; `check_blas.py` reads `theano.sandbox.cuda.X`
    only after `hasattr(theano.sandbox, "cuda")`. Unguarded, the use is reported."""
    files = {
        "pkg/__init__.py": "try:\n    import pkg.cuda\nexcept ImportError:\n    pass\n",
        "pkg/cuda.py": "class CudaNdarray:\n    pass\n",
        "pkg/blas.py": BLAS.format(guard=guard),
    }
    run = review(git_repo, files, {"pkg/cuda.py": None})
    assert [line for path, line in sites(run, "dangling-reference") if path == "pkg/blas.py"] == expected


TRADE = """class Trade:
    def __init__(self, data=None{param}):
        self.data = data
        self.historyon = {historyon}

    def update(self, {order}size, price):
        return size * price
"""
TRADE_TEST = """from pkg import trade


def test_run():
    tr = trade.Trade(data=None)
    tr.update(size=10, price=10.0)
"""


@pytest.mark.parametrize(("historyon", "expected"), [("historyon", []), ("False", [6])])
def test_a_call_after_a_constructor_that_always_failed_at_the_parent_never_ran_there(
    git_repo: GitRepo, historyon: str, expected: list[int]
) -> None:
    """backtrader 7f9447e052 changes `Trade.update` and mends `Trade.__init__`, which at the parent read a
    `historyon` nothing bound: the test's `tr.update(...)` after `Trade(...)` never ran there. Where the
    parent's constructor worked, the call the PR broke is reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/trade.py": TRADE.format(param="", historyon=historyon, order=""),
        "tests/test_trade.py": TRADE_TEST,
    }
    after = TRADE.format(param=", historyon=False", historyon="historyon", order="order, ")
    run = review(git_repo, files, {"pkg/trade.py": after})
    assert [line for _path, line in sites(run, "breaking-call")] == expected


CLI = """import click


{decorators}def main({parameters}):
    return verbose


if __name__ == "__main__":
    main()
"""


@pytest.mark.parametrize(
    ("decorators", "expected"),
    [("@click.group()\n@click.option('--verbose/--quiet')\n@click.pass_context\n", []), ("", [9])],
)
def test_a_click_command_is_called_through_the_command_line(
    git_repo: GitRepo, decorators: str, expected: list[int]
) -> None:
    """pifpaf 123538eb30 makes `main` a click group taking `ctx`; `main()` parses the command line and click
    passes `ctx` itself. A plain function gaining a required `ctx` breaks that call."""
    before = CLI.format(decorators=decorators, parameters="verbose=False")
    after = CLI.format(decorators=decorators, parameters="ctx, verbose=False")
    files = {"pkg/__init__.py": "", "pkg/cli.py": before}
    run = review(git_repo, files, {"pkg/cli.py": after})
    assert [line for _path, line in sites(run, "breaking-call")] == expected


@pytest.mark.parametrize(("shebang", "expected"), [("python3.8", []), ("python3", [("scripts/first.py", 3)])])
def test_a_script_runs_under_the_python_its_shebang_names(
    git_repo: GitRepo, shebang: str, expected: list[tuple[str, int]]
) -> None:
    """python-devtools 0f9f375f writes a docs script pinned to `#!/usr/bin/env python3.6` in a project that
    admits 3.5; the script's syntax is that Python's. Under a bare `python3` it is the project's."""
    head = f"#!/usr/bin/env {shebang}\n"
    base = {"setup.cfg": "[options]\npython_requires = >=3.6\n", "scripts/first.py": head + "x = 1\n"}
    run = review(git_repo, base, {"scripts/first.py": head + WALRUS})
    assert sites(run, "syntax-error") == expected


PARSER = """class RasterisedDocumentParser:
{scratch}    def __init__(self, path):
        self.path = path

    def {method}(self):
        return None
"""
DATE_TEST = """from unittest import mock

from pkg.parsers import RasterisedDocumentParser


class TestDate:
    MOCK_SCRATCH = "pkg.parsers.RasterisedDocumentParser.SCRATCH"

    @mock.patch(MOCK_SCRATCH, "/tmp/scratch")
    def test_date_format_1(self):
        document = RasterisedDocumentParser("")
        assert document.get_date() is None
"""


@pytest.mark.parametrize(("scratch", "expected"), [("", []), ('    SCRATCH = "/tmp"\n\n', [12])])
def test_a_test_patching_an_attribute_the_class_lacks_never_gets_to_its_body(
    git_repo: GitRepo, scratch: str, expected: list[int]
) -> None:
    """paperless-ng d15405ef56 renames `get_date`; the tests calling it patch
    `RasterisedDocumentParser.SCRATCH`, which an earlier commit had removed: `mock.patch` raises
    AttributeError as each test starts, at the parent as now. Where the class has `SCRATCH`, the stale
    call is reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/parsers.py": PARSER.format(scratch=scratch, method="get_date"),
        "tests/test_date.py": DATE_TEST,
    }
    run = review(git_repo, files, {"pkg/parsers.py": PARSER.format(scratch=scratch, method="parse_date")})
    assert [line for _path, line in sites(run, "dangling-reference")] == expected


HANDLERS = """class LookupHandler:
    def _lookup(self, address{extra}):
        raise NotImplemented("Subclass and override _lookup")

    def lookup(self, address, strict_email_match=False):
        return self._lookup(address{passed})


class KeychainLookupHandler(LookupHandler):
    def _lookup(self, address{own}):
        return [address]
"""
MAILBOX = """from pkg.handlers import LookupHandler


class Mailbox({base}):
    def _lookup(self, key):
        return key

    def get(self, key):
        return self._lookup(key)
"""


@pytest.mark.parametrize(("base", "expected"), [("object", []), ("LookupHandler", [10, 5])])
def test_an_argument_every_call_that_may_reach_the_override_passes_breaks_nothing(
    git_repo: GitRepo, base: str, expected: list[int]
) -> None:
    """Mailpile fef0260b9a gives the stub `LookupHandler._lookup` (it raises `NotImplemented`) a
    `strict_email_match` its one caller passes, and `KeychainLookupHandler._lookup` requires it. A
    mailbox's `self._lookup(key)` is its own class's, never a handler's. Were the mailbox a handler, its
    call would leave the parameter out (and its own `_lookup` would miss it too)."""
    files = {
        "pkg/__init__.py": "",
        "pkg/handlers.py": HANDLERS.format(extra="", passed="", own=""),
        "pkg/mailbox.py": MAILBOX.format(base=base),
    }
    after = HANDLERS.format(
        extra=", strict_email_match=False",
        passed=", strict_email_match=strict_email_match",
        own=", strict_email_match",
    )
    run = review(git_repo, files, {"pkg/handlers.py": after})
    assert [line for _path, line in sites(run, "override-mismatch")] == expected


HEATMAP = """def monthly_heatmap(returns, benchmark, {label}annot_size=10, figsize=(9, 5), cbar=1, square=0):
    return returns, benchmark, annot_size, figsize, cbar, square


def monthly_returns(returns, annot_size=10, figsize=(10, 5), cbar=True, square=False):
    return monthly_heatmap({arguments})
"""


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [("returns, annot_size, figsize, cbar, square", []), ("returns, None, annot_size, figsize", [6])],
)
def test_a_call_already_shifted_at_the_parent_is_not_the_prs_shift(
    git_repo: GitRepo, arguments: str, expected: list[int]
) -> None:
    """quantstats 2ef6f68ab4 adds a parameter to `monthly_heatmap`, whose call in `monthly_returns` had sent
    each argument one slot off since `benchmark` came in (`annot_size` to `benchmark`, `figsize` to
    `annot_size`...): the PR moves them onto what was wrong already. A call that was right is reported."""
    files = {"pkg/__init__.py": "", "pkg/wrappers.py": HEATMAP.format(label="", arguments=arguments)}
    after = HEATMAP.format(label="returns_label='Strategy', ", arguments=arguments)
    run = review(git_repo, files, {"pkg/wrappers.py": after})
    assert [line for _path, line in sites(run, "breaking-call")] == expected


@pytest.mark.parametrize(
    ("folder", "expected"),
    [("{{cookiecutter.project_slug}}/config", []), ("config", [("config/__init__.py", 1)])],
)
def test_a_file_under_a_templated_folder_is_a_template_not_python(
    git_repo: GitRepo, folder: str, expected: list[tuple[str, int]]
) -> None:
    """cookiecutter-django 895298c28f writes Jinja tags into `{{cookiecutter.project_slug}}/config/
    __init__.py`: the tool renders it into Python, nothing imports it as it is. The same text in a
    package's own folder is a syntax error."""
    path = f"{folder}/__init__.py"
    base = {path: "__version__ = '0.1'\n"}
    run = review(git_repo, base, {path: "{% if cookiecutter.use_celery == 'y' %}\nfrom .celery import app\n"})
    assert sites(run, "syntax-error") == expected


HANDLER = """from tornado import gen


class NotebookAPIHandler:
    {head}
        return 1

    @gen.coroutine
    def get(self):
        self._handle_request()
"""
PLAIN_HEAD = "def _handle_request(self):"


@pytest.mark.parametrize(
    ("head", "expected"),
    [("@gen.coroutine\n    " + PLAIN_HEAD, []), ("async " + PLAIN_HEAD, [10])],
)
def test_a_tornado_coroutine_called_without_yield_still_runs(
    git_repo: GitRepo, head: str, expected: list[int]
) -> None:
    """kernel_gateway d5a6f57900 makes `_handle_request` a tornado `@gen.coroutine`; `get()` calls it
    without `yield`, and tornado runs the body at once anyway. An `async def` so called never runs."""
    files = {"pkg/__init__.py": "", "pkg/handlers.py": HANDLER.format(head=PLAIN_HEAD)}
    run = review(git_repo, files, {"pkg/handlers.py": HANDLER.format(head=head)})
    assert [line for _path, line in sites(run, "async-mismatch")] == expected
