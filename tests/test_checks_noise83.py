"""False alarms of the real-history noise check from round 40 on (`bench/noise83-*`, issue 20), each
rebuilt as a small repository of that shape, with a paired case still reported."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

BOUNDFIELD = """from formkit import boundfield


class BoundField(boundfield.BoundField):
    def css_classes(self):
        return "field"
{removed}"""
SUBWIDGETS = """
    @property
    def subwidgets(self):
{comment}        return [self.build_widget_attrs({{}})]
"""
USE_SUBWIDGETS = """from pkg.boundfield import BoundField


def count(bf: BoundField):
    return len(bf.subwidgets)
"""


@pytest.mark.parametrize(
    ("comment", "expected"),
    [
        ("        # Can be removed once fixed upstream; overrides super method to patch the widgets\n", []),
        ("        # the widgets, with their attributes\n", [5]),
    ],
)
def test_a_method_that_says_it_overrides_its_outside_base_leaves_the_bases_behind(
    git_repo: GitRepo, comment: str, expected: list[int]
) -> None:
    """django-formset d803ad07a9 drops `BoundField.subwidgets`, whose body began `# overrides super method`:
    the base has it, and `bf.subwidgets` now reaches that (Django's `BoundField` is also in the frameworks'
    table; here a library nothing tells about). A method with no such word was the
    class's own (the base outside the repository is trusted not to have it): reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/boundfield.py": BOUNDFIELD.format(removed=SUBWIDGETS.format(comment=comment)),
        "pkg/use.py": USE_SUBWIDGETS,
    }
    run = review(git_repo, files, {"pkg/boundfield.py": BOUNDFIELD.format(removed="")})
    assert [line for _path, line in sites(run, "dangling-reference")] == expected


FORM_TESTS = """def check_all_valid_forms(um, client{extra}):
    return um, client


def {runner}(um, client, db):
    check_all_valid_forms(um, client, db)
"""


@pytest.mark.parametrize(
    ("runner", "config", "expected"),
    [
        ("do_test_all_config_combinations", "[tool:pytest]\ntestpaths = tests\n", []),
        ("run_all_tests", "", []),
        ("do_test_all_config_combinations", "[nosetests]\nverbosity = 2\n", [6]),
        ("test_all_config_combinations", "", [6]),
    ],
)
def test_a_test_modules_function_no_runner_collects_never_runs(
    git_repo: GitRepo, runner: str, config: str, expected: list[int]
) -> None:
    """Flask-User 1247cee698 left `do_test_all_possible_config_combinations` and `run_all_tests` calling
    helpers with their old arguments: pytest collects neither (its functions begin with `test`) and nothing
    calls them. nose would collect both (`test` after a separator): where the project names nose, reported,
    as is a function pytest collects."""
    files = {
        "setup.cfg": config,
        "tests/__init__.py": "",
        "tests/test_forms.py": FORM_TESTS.format(extra=", db", runner=runner),
    }
    run = review(git_repo, files, {"tests/test_forms.py": FORM_TESTS.format(extra="", runner=runner)})
    assert [line for _path, line in sites(run, "breaking-call")] == expected


PACKAGE_INIT = """{mended}from .base_model import BaseModel
"""
META = """class McsArgs:
    pass
{removed}"""
FACTORY = """

class ModelMetaOptionsFactory:
    pass
"""
CUSTOM = """from pkg.meta_options import ModelMetaOptionsFactory


class CustomMetaOptions(ModelMetaOptionsFactory):
    pass
"""


@pytest.mark.parametrize(
    ("alembic", "expected"),
    [("class ReversibleOp:\n    pass\n", []), ("class MaterializedViewMigration:\n    pass\n", [1, 4])],
)
def test_a_module_of_a_package_whose_import_failed_at_the_parent_was_broken_before(
    git_repo: GitRepo, alembic: str, expected: list[int]
) -> None:
    """flask-unchained 1bda2c8f5c takes out the package's `from .alembic import MaterializedViewMigration`
    (an earlier commit had removed that class) and drops `ModelMetaOptionsFactory`: the test module
    importing it failed at the parent already, on importing the package. Where the parent's `alembic`
    still had the class, the package imported, and the dropped name is a break: reported."""
    mended = "from .alembic import MaterializedViewMigration\n"
    files = {
        "pkg/__init__.py": PACKAGE_INIT.format(mended=mended),
        "pkg/alembic.py": alembic,
        "pkg/base_model.py": "class BaseModel:\n    pass\n",
        "pkg/meta_options.py": META.format(removed=FACTORY),
        "tests/custom/base_model.py": CUSTOM,
    }
    after = {
        "pkg/__init__.py": PACKAGE_INIT.format(mended=""),
        "pkg/meta_options.py": META.format(removed=""),
    }
    run = review(git_repo, files, after)
    assert [line for _path, line in sites(run, "dangling-reference")] == expected


SCAFFOLD = """from {module} import {base}


class ScaffoldOverride:
    def route(self, rule, **options):
        return rule, options
{removed}

class App(ScaffoldOverride, {base}):  # type: ignore
    pass
"""
SHORTCUT = """
    def get(self, rule, **options):
        return self.route(rule, methods=["GET"], **options)
"""
ROUTES = """from pkg.app import App

app = App(__name__)


@app.get("/docs", include_in_openapi=False)
def docs():
    return "docs"
"""


@pytest.mark.parametrize(
    ("module", "base", "expected"), [("flask", "Flask", []), ("quart_like", "Scaffolding", [6])]
)
def test_a_method_a_frameworks_base_has_is_still_there_once_a_mixin_drops_it(
    git_repo: GitRepo, module: str, base: str, expected: list[int]
) -> None:
    """flask-jeroboam c3738f7ec0 drops the route shortcuts `get`, `post`... from the mixin its `Flask` and
    `Blueprint` subclasses put before Flask's classes: Flask's `Scaffold` has every one of them, and
    `@app.get(...)` reaches it (114 findings of one commit). A base outside the repository that nothing
    tells about is still trusted not to have the name: reported."""
    files = {
        "pkg/__init__.py": "",
        "pkg/app.py": SCAFFOLD.format(module=module, base=base, removed=SHORTCUT),
        "pkg/routes.py": ROUTES,
    }
    run = review(git_repo, files, {"pkg/app.py": SCAFFOLD.format(module=module, base=base, removed="")})
    assert [line for _path, line in sites(run, "dangling-reference")] == expected


VIEWSET = """from rest_framework import viewsets


class ResourceViewSet(viewsets.ModelViewSet):
{removed}
    def retrieve(self, request, pk=None):
        return self.{name}()
"""


@pytest.mark.parametrize(("name", "expected"), [("get_object", []), ("get_resource", [7])])
def test_a_dropped_override_of_a_framework_method_leaves_the_frameworks(
    git_repo: GitRepo, name: str, expected: list[int]
) -> None:
    """django-ansible-base 5d9db2d0f5 drops `ResourceViewSet.get_object`: Django REST framework's
    `GenericAPIView` has it, so `self.get_object()` still runs. A method of the class's own (no
    framework class has `get_resource`) is reported."""
    removed = f"    def {name}(self):\n        return None\n"
    files = {"pkg/__init__.py": "", "pkg/views.py": VIEWSET.format(removed=removed, name=name)}
    run = review(git_repo, files, {"pkg/views.py": VIEWSET.format(removed="", name=name)})
    assert [line for _path, line in sites(run, "dangling-reference")] == expected


SESSION_STORE = """class SessionStore:
    def __init__(self, {params}):
        self.user_agent = user_agent
        self.ip = ip
        self.session_key = session_key


def decode(data):
    return SessionStore({arguments}).user_agent
"""


@pytest.mark.parametrize(
    ("arguments", "expected"), [("None, None", []), ('"curl", None', [9]), ("None, None, None", [])]
)
def test_a_call_whose_every_parameter_gets_what_it_got_before_is_not_shifted(
    git_repo: GitRepo, arguments: str, expected: list[int]
) -> None:
    """django-user-sessions 567688664e reorders `SessionStore(user_agent, ip, session_key=None)` into
    `(session_key=None, user_agent=None, ip=None)`: `SessionStore(None, None)` gives all three None as
    before. A call passing a user agent now hands it to `session_key`: reported."""
    before = SESSION_STORE.format(params="user_agent, ip, session_key=None", arguments=arguments)
    after = SESSION_STORE.format(params="session_key=None, user_agent=None, ip=None", arguments=arguments)
    run = review(git_repo, {"pkg/__init__.py": "", "pkg/models.py": before}, {"pkg/models.py": after})
    assert [line for _path, line in sites(run, "breaking-call")] == expected


SETUP_WITH_CLASSIFIERS = """from setuptools import setup

setup(
    name="icalevents",
    classifiers=[
        "Programming Language :: Python :: 3",
        "Programming Language :: Python :: 3.3",
        "Programming Language :: Python :: 3.5",
    ],
)
"""
WALRUS_PARSER = """def exdates(component):
    if exd_prop := component.get("exdate"):
        return exd_prop
    return None
"""


@pytest.mark.parametrize(("pipfile", "expected"), [('[requires]\npython_version = "3.9"\n', []), ("", [2])])
def test_classifiers_older_than_the_pipfiles_python_are_left_behind(
    git_repo: GitRepo, pipfile: str, expected: list[int]
) -> None:
    """icalevents 1df3dc1db2 writes `:=` while setup.py's classifiers list Python 3.3 to 3.5 and nothing
    declares `python_requires`; its Pipfile (and CI) run 3.9 only. With no Pipfile, the classifiers are
    all there is to go by: reported."""
    files = {
        "setup.py": SETUP_WITH_CLASSIFIERS,
        "icalevents/__init__.py": "",
        "icalevents/parser.py": "X = 1\n",
    }
    if pipfile:
        files["Pipfile"] = pipfile
    run = review(git_repo, files, {"icalevents/parser.py": WALRUS_PARSER})
    assert [line for _path, line in sites(run, "syntax-error")] == expected


BACKEND = """class QueuedStorage:
    def __init__(self, {params}):
        self.params = ({params_tuple})
"""
OLD_TESTS = """from queued_storage.backend import QueuedStorage


def test_storage():
    return QueuedStorage(local="a", remote="b")
"""


@pytest.mark.parametrize(("package", "expected"), [(True, []), (False, [5])])
def test_a_module_a_package_of_its_name_shadows_never_runs(
    git_repo: GitRepo, package: bool, expected: list[int]
) -> None:
    """django-queued-storage d391c6c5b8 renames `QueuedStorage`'s parameters and adds a package
    `queued_storage/tests/` beside the old `queued_storage/tests.py`: an import finds the package, so the
    old module's stale call never runs. With no such package the call is reported."""
    files = {
        "queued_storage/__init__.py": "",
        "queued_storage/backend.py": BACKEND.format(params="local, remote", params_tuple="local, remote"),
        "queued_storage/tests.py": OLD_TESTS,
    }
    after = {
        "queued_storage/backend.py": BACKEND.format(
            params="local_backend, remote_backend", params_tuple="local_backend, remote_backend"
        )
    }
    if package:
        after["queued_storage/tests/__init__.py"] = ""
        after["queued_storage/tests/test_backend.py"] = "def test_nothing():\n    pass\n"
    run = review(git_repo, files, after)
    assert [line for _path, line in sites(run, "breaking-call")] == expected


FIELD = """from django import {module}


class UpperField({module}.CharField):
    def get_prep_value(self, value):
        return value.upper()
"""
FIELD_AFTER = """from django import {module}


class UpperField({module}.CharField):
    pass
"""
USE_FIELD = """from pkg.fields import UpperField


def prepare(value):
    return UpperField().get_prep_value(value)
"""


@pytest.mark.parametrize(("module", "expected"), [("db.models", []), ("forms", [5])])
def test_django_form_and_model_fields_of_one_name_are_told_apart(
    git_repo: GitRepo, module: str, expected: list[int]
) -> None:
    """Django's model and form fields share their names (`CharField`): a model field has
    `get_prep_value`, so dropping the override leaves Django's; a form field has none, and the call is
    reported."""
    statement = "from django.db import models" if module == "db.models" else "from django import forms"
    short = "models" if module == "db.models" else "forms"
    before = FIELD.replace("from django import {module}", statement).format(module=short)
    after = FIELD_AFTER.replace("from django import {module}", statement).format(module=short)
    files = {"pkg/__init__.py": "", "pkg/fields.py": before, "pkg/use.py": USE_FIELD}
    run = review(git_repo, files, {"pkg/fields.py": after})
    assert [line for _path, line in sites(run, "dangling-reference")] == expected
