"""The distributions a project declares it needs (requirements files, setup.py / setup.cfg, pyproject.toml,
tox deps), by normalised name: a module of that name is the installed distribution's."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

_REQUIREMENT_FILE = re.compile(r"(?:^|/)[\w.-]*requirements[\w.-]*\.(?:txt|in)$")
_PROJECT_FILES = ("setup.py", "setup.cfg", "pyproject.toml", "tox.ini", "Pipfile")
_MAX_DEPTH = 2
_LINE_NAME = re.compile(r"^[ \t]*([A-Za-z0-9][A-Za-z0-9._-]*)", re.M)
_QUOTED_NAME = re.compile(r"""["']([A-Za-z0-9][A-Za-z0-9._-]*)\s*(?:\[[^\]]*\])?\s*(?:[<>=!~;@ ]|["'])""")


def normalised(name: str) -> str:
    """PEP 503's form of a distribution name: `Sphinx_RTD.Theme` -> `sphinx-rtd-theme`."""
    return re.sub(r"[-_.]+", "-", name).lower()


def declared_distributions(paths: Iterable[str], read: Callable[[str], str | None]) -> frozenset[str]:
    """Normalised names the project's requirement files and packaging metadata mention as requirements
    (a name-shaped token at a requirements line's start, or quoted before a version or the quote's end)."""
    found: set[str] = set()
    for path in paths:
        if path.count("/") > _MAX_DEPTH:
            continue
        if _REQUIREMENT_FILE.search(path):
            text = read(path) or ""
            found.update(normalised(m) for m in _LINE_NAME.findall(text))
        elif path in _PROJECT_FILES:
            text = read(path) or ""
            found.update(normalised(m) for m in _QUOTED_NAME.findall(text))
            if path in ("setup.cfg", "tox.ini", "Pipfile"):
                found.update(normalised(m) for m in _LINE_NAME.findall(text))
    return frozenset(found)
