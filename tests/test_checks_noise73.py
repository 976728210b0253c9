"""False alarms of the real-history noise check from round 30 (`bench/noise73-*`, issue 20), each rebuilt
as a small repository of that shape."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

PAULI_BEFORE = """from typing import Mapping, Optional


class PauliString:
    def __init__(self, qubit_pauli_map: Optional[Mapping[str, str]] = None, coefficient: complex = 1):
        self.paulis = dict(qubit_pauli_map or {})
        self.coefficient = coefficient


class SingleQubitPauli(PauliString):
    def __init__(self, pauli, qubit):
        PauliString.__init__(self, {qubit: pauli})
"""
PAULI_AFTER = """from typing import Iterable, Mapping, Optional, Union

PAULI_STRING_LIKE = Union[complex, "OP_TREE", Mapping[str, str], Iterable]


class PauliString:
    def __init__(
        self,
        *contents: PAULI_STRING_LIKE,
        qubit_pauli_map: Optional[Mapping[str, str]] = None,
        coefficient: complex = 1,
    ):
        self.paulis = dict(qubit_pauli_map or {})
        self.coefficient = coefficient
        for item in contents:
            self.paulis.update(item) if isinstance(item, dict) else self.scale(item)

    def scale(self, factor):
        self.coefficient *= factor


class SingleQubitPauli(PauliString):
    def __init__(self, pauli, qubit):
        PauliString.__init__(self, {qubit: pauli})
"""
PAULI_TEST = """from pkg.pauli import PauliString


def test_strings():
    assert PauliString({"q0": "X"}).paulis
    assert PauliString({"q0": "X"}, -1).coefficient == -1
"""


def test_a_definition_made_variadic_takes_every_positional_argument_into_its_new_args(
    git_repo: GitRepo,
) -> None:
    """Cirq 61e19e5b0c generalises `PauliString(qubit_pauli_map=None, coefficient=1)` into
    `PauliString(*contents, qubit_pauli_map=None, coefficient=1)`, where `contents` takes mappings and
    numbers. `PauliString({q: X}, -1)` and `PauliString.__init__(self, {q: X})` still mean what they
    did; 250 calls were reported as shifted onto `contents`."""
    files = {"pkg/__init__.py": "", "pkg/pauli.py": PAULI_BEFORE, "tests/test_pauli.py": PAULI_TEST}
    run = review(git_repo, files, {"pkg/pauli.py": PAULI_AFTER})
    assert sites(run, "breaking-call") == []


def test_calls_of_the_variadic_definition_are_still_judged_on_their_keywords(git_repo: GitRepo) -> None:
    """The paired case: the same change, renaming `coefficient` to `factor` too. The call passing
    `coefficient=` now fails and is reported; the positional one beside it is not."""
    files = {"pkg/__init__.py": "", "pkg/pauli.py": PAULI_BEFORE, "tests/test_pauli.py": PAULI_TEST}
    files["tests/test_scaled.py"] = PAULI_TEST.replace('{"q0": "X"}, -1', '{"q0": "X"}, coefficient=-1')
    run = review(git_repo, files, {"pkg/pauli.py": PAULI_AFTER.replace("coefficient", "factor")})
    assert sites(run, "breaking-call") == [("tests/test_scaled.py", 6)]


MODELS = """class ArchiveResult:
    pass


class File:
    pass
"""
FILE_MIGRATIONS = """{future}from typing import Optional

from pkg.models import ArchiveResult, File


def wrapper(file: File) -> None:
    pass


def result_for(file: File) -> {annotation}:
    return None
"""


@pytest.mark.parametrize(
    ("future", "annotation", "expected"),
    [
        ("", "'ArchiveResult' | None", []),
        ("", "Optional['ArchiveResult']", [3, 6, 10]),
        ("from __future__ import annotations\n\n", "'ArchiveResult' | None", [5]),
    ],
)
def test_a_module_whose_annotation_joins_a_quoted_name_and_none_never_imported(
    git_repo: GitRepo, future: str, annotation: str, expected: list[int]
) -> None:
    """ArchiveBox a851ad4c87 removes `File` from `filestore/models.py`; `file_migrations.py` still
    imports it. That module never imported at the parent either: `-> 'ArchiveResult' | None` is evaluated
    at the `def` and raises TypeError (`str | None`). Spelled with `Optional[...]`, or not evaluated under
    `from __future__ import annotations`, the module imported and its import of `File` is reported (and,
    where annotations are evaluated, its uses)."""
    path = "pkg/file_migrations.py"
    files = {
        "pkg/__init__.py": "",
        "pkg/models.py": MODELS,
        path: FILE_MIGRATIONS.format(future=future, annotation=annotation),
    }
    run = review(git_repo, files, {"pkg/models.py": MODELS.replace("\n\nclass File:\n    pass\n", "")})
    assert [line for found, line in sites(run, "dangling-reference") if found == path] == expected


def test_a_quoted_union_the_pr_wrote_is_the_prs_own_break(git_repo: GitRepo) -> None:
    """The paired case: the PR itself writes `-> 'ArchiveResult' | None` while removing `File`. The module
    imported at the parent, so what it refers to is judged."""
    path = "pkg/file_migrations.py"
    files = {
        "pkg/__init__.py": "",
        "pkg/models.py": MODELS,
        path: FILE_MIGRATIONS.format(future="", annotation="Optional['ArchiveResult']"),
    }
    after = {
        "pkg/models.py": MODELS.replace("\n\nclass File:\n    pass\n", ""),
        path: FILE_MIGRATIONS.format(future="", annotation="'ArchiveResult' | None"),
    }
    run = review(git_repo, files, after)
    assert [line for found, line in sites(run, "dangling-reference") if found == path] == [3, 6, 10]


COUNT_MODELS = """class CountModel:
    def predict(self, params, exog=None, which="mean", linear=None):
        return params


class GeneralizedPoisson(CountModel):
    def predict(self, params, exog=None, which="mean"{extra}):
        return params


def fitted(model: CountModel, params):
    return model.predict(params, linear=True)
"""


@pytest.mark.parametrize(("before", "expected"), [("", []), (", linear=None", [7])])
def test_an_override_that_refused_a_base_parameter_before_refuses_its_keyword_as_before(
    git_repo: GitRepo, before: str, expected: list[int]
) -> None:
    """statsmodels b16c508caa gives `GeneralizedPoisson.predict` a `y_values` in the slot where
    `CountModel.predict` has `linear`. The override never took `linear`, by position or by keyword: a call
    passing `linear=` failed on it before and fails now. Where the override did take `linear` and the PR
    renames it, that call is newly broken."""
    files = {"pkg/__init__.py": "", "pkg/models.py": COUNT_MODELS.format(extra=before)}
    run = review(git_repo, files, {"pkg/models.py": COUNT_MODELS.format(extra=", y_values=None")})
    assert [line for _path, line in sites(run, "override-mismatch")] == expected


MANAGER = """try:
    import patsy_missing_here

    class NAAction(patsy_missing_here.NAAction):
        pass

except ImportError:

    class NAAction:
        def __init__(self, {parameters}):
            pass


def na_action(action, types):
    return NAAction(on_NA=action, NA_types=types)
"""


@pytest.mark.parametrize(("stand_in", "expected"), [(True, []), (False, [7])])
def test_a_stand_in_class_for_a_missing_dependency_is_not_the_only_definition_calls_reach(
    git_repo: GitRepo, stand_in: bool, expected: list[int]
) -> None:
    """statsmodels 1af1160688 renames the parameters of the `except ImportError:` stand-in `NAAction`;
    `NAAction(on_NA=..., NA_types=...)` builds patsy's subclass wherever patsy is installed. With one
    definition only, the call is reported."""
    text = MANAGER if stand_in else MANAGER.split("except ImportError:\n\n")[1].replace("    ", "", 1)
    before = text.format(parameters='on_NA="", NA_types=("",)')
    after = text.format(parameters='on_na="", na_types=("",)')
    files = {"pkg/__init__.py": "", "pkg/manager.py": before}
    run = review(git_repo, files, {"pkg/manager.py": after})
    assert [line for _path, line in sites(run, "breaking-call")] == expected


LINK = """class Link:
    def __init__(self, snapshot):
        self.snapshot = snapshot

    @property
    def snapshot_old_id(self):
        return self.snapshot
"""
MIGRATION = """from django.db import migrations


def update_snapshot_ids(apps, schema_editor):
    ArchiveResult = apps.get_model("core", "ArchiveResult")
    for result in ArchiveResult.objects.all().iterator():
        assert result.snapshot_old_id


class Migration(migrations.Migration):
    operations = [{operation}]
"""


@pytest.mark.parametrize(
    ("operation", "expected"),
    [
        ("migrations.RunPython(update_snapshot_ids, migrations.RunPython.noop)", []),
        ("migrations.RunPython(code=update_snapshot_ids)", []),
        ("", [7]),
    ],
)
def test_a_data_migration_reads_the_models_of_its_own_state(
    git_repo: GitRepo, operation: str, expected: list[int]
) -> None:
    """ArchiveBox 68a39b7392 removes `Link.snapshot_old_id` and is told that old migrations still read
    `result.snapshot_old_id`. A function handed to `RunPython` gets the registry of the migration's state:
    `result` is a historical `ArchiveResult`, whose `snapshot_old_id` is its foreign key's column. The same
    function that no migration runs is judged by the name, as before."""
    path = "core/migrations/0040_archiveresult_snapshot.py"
    files = {
        "core/__init__.py": "",
        "core/schema.py": LINK,
        "core/migrations/__init__.py": "",
        path: MIGRATION.format(operation=operation),
    }
    after = LINK.split("\n    @property")[0] + "\n"
    run = review(git_repo, files, {"core/schema.py": after})
    assert [line for found, line in sites(run, "dangling-reference") if found == path] == expected


LOG_BEFORE = """def log(message: str, level: int = 20):
    return (level, message)
"""
LOG_AFTER = """def log(message: str, *args: str, level: int = 20):
    return (level, message % args)
"""
LOG_CALLER = """from pkg.log import log


def main():
    log("started", {level})
"""


@pytest.mark.parametrize(("level", "expected"), [("10", [5]), ("level=10", [])])
def test_a_call_that_keeps_a_named_parameter_and_sends_the_rest_into_new_args_is_reported(
    git_repo: GitRepo, level: str, expected: list[int]
) -> None:
    """The paired case of the variadic generalisation: `log("started", 10)` keeps its message where it
    was and sends the level into the new `*args`, where it becomes a format argument. That is the shift
    the rule reports."""
    files = {"pkg/__init__.py": "", "pkg/log.py": LOG_BEFORE, "pkg/run.py": LOG_CALLER.format(level=level)}
    run = review(git_repo, files, {"pkg/log.py": LOG_AFTER})
    assert [line for path, line in sites(run, "breaking-call") if path == "pkg/run.py"] == expected


METRICS = """{decorator}def magn(xyz, {star}n=1):
    return xyz * n
"""
CURVATURE = """from pkg.metrics import magn


def curvature(xyz):
    return magn(xyz, 3)
"""


@pytest.mark.parametrize(
    ("decorator", "expected"),
    [
        ("@warning_for_keywords()\n", []),
        ("@_deprecate_positional_args\n", []),
        ("@lru_cache\n", [5]),
        ("", [5]),
    ],
)
def test_a_shim_moving_positionals_onto_keywords_keeps_old_calls_working(
    git_repo: GitRepo, decorator: str, expected: list[int]
) -> None:
    """dipy 098e4a581a makes `magn(xyz, n=1)` into `magn(xyz, *, n=1)` and decorates it with
    `@warning_for_keywords()`, which moves a positional `3` onto `n` (with a deprecation warning): 33 calls
    were reported. Without such a shim, or under an unrelated decorator, `magn(xyz, 3)` fails."""
    files = {
        "pkg/__init__.py": "",
        "pkg/metrics.py": METRICS.format(decorator="", star=""),
        "pkg/use.py": CURVATURE,
    }
    run = review(git_repo, files, {"pkg/metrics.py": METRICS.format(decorator=decorator, star="*, ")})
    assert [line for path, line in sites(run, "breaking-call") if path == "pkg/use.py"] == expected


VIEWS = """class UsersViewSet:
    def login(self, request=None, **kwargs):
        return request

    def logout(self, request):
        return request
"""
IMPORTS = """from django.test import TestCase

from pkg.views import UsersViewSet


class LocalCase:
    pass
"""
USER_TESTS = """{imports}


class UsersTestCase({base}):
    def setUp(self):
{setup}

    def test_login(self):
        ok = self.client.login(username="test1", password="test")
        assert ok
"""


@pytest.mark.parametrize(
    ("base", "setup", "expected"),
    [
        ("TestCase", "        self.user = 'test1'", []),
        ("TestCase", "        self.client = UsersViewSet()", ["reported"]),
        ("LocalCase", "        self.user = 'test1'", ["reported"]),
    ],
)
def test_self_attribute_a_third_party_base_provides_holds_that_librarys_object(
    git_repo: GitRepo, base: str, setup: str, expected: list[str]
) -> None:
    """taiga-back 701220b21d removes `UsersViewSet.login`, and `self.client.login(...)` in a Django
    `TestCase` is the test client's. No class of the repository assigns `client`: Django's base makes
    it. Where the test assigns `self.client` itself, or its base is the repository's own, the receiver is
    still judged by the name."""
    imports = IMPORTS
    text = USER_TESTS.format(imports=imports, base=base, setup=setup)
    line = next(n for n, code in enumerate(text.splitlines(), 1) if "self.client.login" in code)
    files = {
        "pkg/__init__.py": "",
        "pkg/views.py": VIEWS,
        "pkg/tests.py": text,
    }
    run = review(
        git_repo,
        files,
        {
            "pkg/views.py": VIEWS.replace(
                "    def login(self, request=None, **kwargs):\n        return request\n\n", ""
            )
        },
    )
    found = [found_line for path, found_line in sites(run, "dangling-reference") if path == "pkg/tests.py"]
    assert found == [line] * len(expected)
