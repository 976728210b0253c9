"""Writes `analysis/checks/framework_members.json`: the members of the classes projects most often derive
from in Django, Django REST framework and Flask, read by importing those frameworks (run it in an
environment that has them: `pip install django djangorestframework flask`).

The checks cannot import a reviewed project's dependencies, so a base outside the repository is unknown
to them; for these classes a table says which names such a base certainly has (a removed override of
`GenericAPIView.get_object` leaves the framework's own)."""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata
import json
import sys
from pathlib import Path

MODULES = {
    "django": [
        "django.views.generic",
        "django.views.generic.base",
        "django.views.generic.detail",
        "django.views.generic.list",
        "django.views.generic.edit",
        "django.views.generic.dates",
        "django.db.models",
        "django.forms",
        "django.forms.boundfield",
        "django.forms.widgets",
        "django.forms.formsets",
        "django.forms.models",
        "django.contrib.admin",
        "django.contrib.admin.options",
        "django.contrib.auth.models",
        "django.contrib.auth.base_user",
        "django.contrib.auth.backends",
        "django.contrib.auth.mixins",
        "django.contrib.auth.forms",
        "django.contrib.syndication.views",
        "django.contrib.sitemaps",
        "django.core.management.base",
        "django.core.files.storage",
        "django.core.cache.backends.base",
        "django.template",
        "django.template.base",
        "django.http",
        "django.test",
        "django.apps",
        "django.utils.deprecation",
    ],
    "rest_framework": [
        "rest_framework.views",
        "rest_framework.generics",
        "rest_framework.viewsets",
        "rest_framework.mixins",
        "rest_framework.serializers",
        "rest_framework.fields",
        "rest_framework.relations",
        "rest_framework.permissions",
        "rest_framework.pagination",
        "rest_framework.authentication",
        "rest_framework.renderers",
        "rest_framework.parsers",
        "rest_framework.filters",
        "rest_framework.routers",
        "rest_framework.test",
        "rest_framework.throttling",
    ],
    "flask": [
        "flask",
        "flask.app",
        "flask.blueprints",
        "flask.views",
        "flask.testing",
        "flask.wrappers",
        "flask.sansio.scaffold",
        "flask.sansio.app",
        "flask.sansio.blueprints",
    ],
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    default = Path(__file__).parents[1] / "analysis/checks/framework_members.json"
    parser.add_argument("--out", type=Path, default=default)
    args = parser.parse_args()
    _configure_django()
    paths: dict[str, type] = {}
    for top, modules in MODULES.items():
        for module_name in modules:
            for class_name, cls in vars(importlib.import_module(module_name)).items():
                if _tabled(top, class_name, cls):
                    paths[f"{module_name}.{class_name}"] = cls
    keys = {cls: f"{cls.__module__}.{cls.__qualname__}" for cls in paths.values()}
    members = {keys[cls]: _own_members(cls, keys) for cls in keys}
    public = {path: keys[cls] for path, cls in sorted(paths.items()) if path != keys[cls]}
    versions = {d: importlib.metadata.version(d) for d in ("django", "djangorestframework", "flask")}
    table = {key: {"bases": bases, "names": names} for key, (bases, names) in sorted(members.items())}
    document = {"read_from": versions, "paths": public, "classes": table}
    args.out.write_text(json.dumps(document, indent=0) + "\n")
    print(f"{len(members)} classes, {len(public)} public paths, written to {args.out} ({versions})")


_LEFT_OUT_MODULES = (
    "django.db.models.functions",
    "django.db.models.lookups",
    "django.db.models.expressions",
    "django.db.models.aggregates",
    "django.db.models.constraints",
    "django.db.models.indexes",
)


def _tabled(top: str, class_name: str, cls: object) -> bool:
    """A public class of the framework that projects may derive from (not an exception, not one of the
    ORM's many expression and lookup classes)."""
    return (
        isinstance(cls, type)
        and cls.__module__.split(".")[0] == top
        and not class_name.startswith("_")
        and not issubclass(cls, BaseException)
        and not cls.__module__.startswith(_LEFT_OUT_MODULES)
    )


def _own_members(cls: type, keys: dict[type, str]) -> tuple[list[str], list[str]]:
    """(tabled bases not already below another tabled base of the class, names the class has that no
    tabled base gives it), dunder names left out."""
    tabled = [base for base in cls.__mro__[1:] if base in keys]
    below = {inner for base in tabled for inner in base.__mro__[1:]}
    inherited = {name for base in tabled for name in dir(base)}
    names = [n for n in dir(cls) if not (n.startswith("__") and n.endswith("__")) and n not in inherited]
    return [keys[base] for base in tabled if base not in below], sorted(names)


def _configure_django() -> None:
    from django.conf import settings

    settings.configure(
        INSTALLED_APPS=[
            "django.contrib.auth",
            "django.contrib.contenttypes",
            "django.contrib.admin",
            "rest_framework",
        ],
        DATABASES={"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": ":memory:"}},
    )
    import django

    django.setup()


if __name__ == "__main__":
    sys.exit(main())
