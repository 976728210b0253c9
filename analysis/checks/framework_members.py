"""Members of the classes projects most often derive from in Django, Django REST framework and Flask, read
from `framework_members.json` (written by `bench/framework_members_gen.py` from the installed frameworks,
not by hand). The checks cannot import a reviewed project's dependencies; for these bases the table says
which names they certainly have: a removed override of `GenericAPIView.get_object`, or of `Flask.get` in
a mixin, leaves the framework's own. Used only to say a base has a name, never that it lacks one (another
version of the framework may have more)."""

from __future__ import annotations

import json
from functools import cache
from importlib import resources


@cache
def _table() -> dict[str, dict[str, list[str]]]:
    text = resources.files(__package__).joinpath("framework_members.json").read_text(encoding="utf-8")
    classes: dict[str, dict[str, list[str]]] = json.loads(text)["classes"]
    return classes


@cache
def _members(key: str) -> frozenset[str]:
    entry = _table().get(key)
    if entry is None:
        return frozenset()
    found = set(entry["names"])
    for base in entry["bases"]:
        found |= _members(base)
    return frozenset(found)


def framework_class_has(dotted: str, name: str) -> bool:
    """Whether `dotted` (as a module imports it: `rest_framework.viewsets.ModelViewSet`) names a tabled
    class, by its top-level package and its own name, and that class has `name`."""
    top, _, rest = dotted.partition(".")
    return bool(rest) and name in _members(f"{top}.{rest.rpartition('.')[2]}")
