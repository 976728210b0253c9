"""Members of the classes projects most often derive from in Django, Django REST framework and Flask, read
from `framework_members.json` (written by `bench/framework_members_gen.py` from the installed frameworks,
not by hand). The checks cannot import a reviewed project's dependencies; for these bases the table says
which names they certainly have: a removed override of `GenericAPIView.get_object`, or of `Flask.get` in
a mixin, leaves the framework's own. Used only to say a base has a name, never that it lacks one (another
version of the framework may have more).

A class is found by the path a module imports it under (`django.forms.CharField`, `rest_framework.viewsets.
ModelViewSet`), by where it is defined, or by its package and name when only one tabled class has them:
Django's form and model fields share their names (`CharField`), and a path under `django.db` is the
model's."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from importlib import resources


@dataclass(frozen=True)
class _Table:
    classes: dict[str, dict[str, list[str]]]
    """Defining path -> its tabled bases and the names it has beyond theirs."""
    paths: dict[str, str]
    """Public path a framework module exposes -> defining path."""
    by_name: dict[tuple[str, str], list[str]]
    """(top-level package, class name) -> every path, public or defining, of a class of that name."""


@cache
def _table() -> _Table:
    text = resources.files(__package__).joinpath("framework_members.json").read_text(encoding="utf-8")
    document = json.loads(text)
    classes: dict[str, dict[str, list[str]]] = document["classes"]
    paths: dict[str, str] = document["paths"]
    by_name: dict[tuple[str, str], list[str]] = {}
    for path in [*classes, *paths]:
        by_name.setdefault((path.partition(".")[0], path.rpartition(".")[2]), []).append(path)
    return _Table(classes, paths, by_name)


def _defining_path(dotted: str) -> str | None:
    table = _table()
    if dotted in table.classes:
        return dotted
    if dotted in table.paths:
        return table.paths[dotted]
    module, _, name = dotted.rpartition(".")
    known = table.by_name.get((dotted.partition(".")[0], name), [])
    near = [p for p in known if _related(module, p.rpartition(".")[0])]
    found = {table.paths.get(p, p) for p in near or known}
    return found.pop() if len(found) == 1 else None


def _related(module: str, other: str) -> bool:
    """Whether one module path is the other or lies below it (`django.db.models.fields` and `django.db`)."""
    return module == other or module.startswith(f"{other}.") or other.startswith(f"{module}.")


@cache
def _members(key: str) -> frozenset[str]:
    entry = _table().classes.get(key)
    if entry is None:
        return frozenset()
    found = set(entry["names"])
    for base in entry["bases"]:
        found |= _members(base)
    return frozenset(found)


def framework_class_has(dotted: str, name: str) -> bool:
    """Whether `dotted` (as a module imports it) names a tabled class, and that class has `name`."""
    if "." not in dotted:
        return False
    key = _defining_path(dotted)
    return key is not None and name in _members(key)
