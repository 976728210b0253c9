"""Module names for the repository's files: the name each file is imported by, unique per file.

A file's name comes from walking up through package directories (those with `__init__.py`). Where that
walk stops below the repository root, the top directory may be a namespace package (no `__init__.py`:
`src/poetry/console/...`, `docs_src/body/tutorial007.py`): the name is then extended upwards to the
first directory the repository's own imports use as a top-level name, unless they import the walk's own
top. Files that would still share a name (`docs_src/a/tutorial007.py`, `docs_src/b/tutorial007.py`)
are different modules: each is named by its whole path. Every other name a file may be imported by (its
walk name, its path from the root or below `src/`) stays an alias.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path

_CONVENTIONAL_ROOTS = ("src", "lib", "python")


def is_dotted_name(parts: Sequence[str]) -> bool:
    """Whether the pieces of `a.b.c` are all Python identifiers (so they are safe to put in a pattern)."""
    return bool(parts) and all(part.isidentifier() for part in parts)


def _walk(path: str, is_package: Callable[[list[str]], bool]) -> tuple[str | None, list[str]]:
    """(package-walk name, the directories above the walk's top package) for a `.py` path."""
    if not path.endswith(".py"):
        return None, []
    parts = path[:-3].split("/")
    if not parts[-1].isidentifier():
        return None, []
    directory = parts[:-1]
    name_parts = [] if parts[-1] == "__init__" else [parts[-1]]
    # A directory without __init__.py inside a package is a namespace portion of it (flask's
    # `src/flask/sansio/`): it still belongs to the dotted name. Directories above the package need
    # not be identifiers (a monorepo's `opentelemetry-sdk/src/opentelemetry/sdk/...`).
    while (
        directory
        and directory[-1].isidentifier()
        and (is_package(directory) or any(is_package(directory[:i]) for i in range(1, len(directory))))
    ):
        name_parts.insert(0, directory[-1])
        directory = directory[:-1]
    return (".".join(name_parts) or None), directory


def walk_module_name(path: str, file_set: set[str] | None, repo_root: Path | None = None) -> str | None:
    """Dotted module name from the package walk alone (directories that have `__init__.py`)."""

    def is_package(directory: list[str]) -> bool:
        init = "/".join([*directory, "__init__.py"])
        if file_set is not None:
            return init in file_set
        return repo_root is not None and (repo_root / init).is_file()

    return _walk(path, is_package)[0]


class ModuleNaming:
    """Names of every file (`module_of`), the table from each name and alias to a file (`modules`),
    the package names (`packages`), and the files that share a name (`same_name`)."""

    def __init__(self, files: list[str], imported_tops: Callable[[], set[str]]) -> None:
        file_set = set(files)
        self.module_of: dict[str, str | None] = {}
        self.modules: dict[str, str] = {}
        self.packages: set[str] = set()
        self.same_name: dict[str, list[str]] = {}

        def is_package(directory: list[str]) -> bool:
            return "/".join([*directory, "__init__.py"]) in file_set

        walks = {path: _walk(path, is_package) for path in files}
        tops: set[str] | None = None
        for path, (name, above) in walks.items():
            if name is None or not _needs_evidence(above):
                self.module_of[path] = name
                continue
            if tops is None:
                tops = imported_tops()
            self.module_of[path] = _extended(name, above, tops)
        self._separate_same_names()
        self._build_tables(walks)

    def _separate_same_names(self) -> None:
        holders: dict[str, list[str]] = {}
        for path, name in self.module_of.items():
            if name is not None:
                holders.setdefault(name, []).append(path)
        for paths in holders.values():
            if len(paths) < 2:
                continue
            for path in paths:
                whole = _path_name(path)
                if whole is not None:
                    self.module_of[path] = whole

    def _build_tables(self, walks: dict[str, tuple[str | None, list[str]]]) -> None:
        for path, name in self.module_of.items():
            if name:
                if _is_package_init(path):
                    # A package wins over a module of its name beside it, as Python's import finds it
                    # (django-constance 82e19cec empties `constance/backends.py`, adds `constance/backends/`).
                    self.modules[name] = path
                else:
                    self.modules.setdefault(name, path)
                self.same_name.setdefault(name, []).append(path)
        for path, name in self.module_of.items():
            for alias in [walks[path][0], *_path_aliases(path)]:
                if alias and alias != name:
                    self.modules.setdefault(alias, path)
            if name and _is_package_init(path):
                self.packages.add(name)
            if name:
                parts = name.split(".")
                for i in range(1, len(parts)):
                    self.packages.add(".".join(parts[:i]))
        for name in [*self.modules]:
            if name.endswith(".__init__"):
                self.modules.setdefault(name[: -len(".__init__")], self.modules[name])


def _is_package_init(path: str) -> bool:
    return path.endswith("/__init__.py") or path == "__init__.py"


def _needs_evidence(above: list[str]) -> bool:
    """Whether the walk stopped below the root, other than at a conventional source root (`src/`)."""
    return bool(above) and not (len(above) == 1 and above[0] in _CONVENTIONAL_ROOTS)


def _extended(name: str, above: list[str], tops: set[str]) -> str:
    """The walk's name, or the name extended up to the first directory that imports use as a top (not a
    standard-library name: a `tools/json/` directory is not what `import json` imports)."""
    if name.split(".")[0] in tops:
        return name
    for count in range(1, len(above) + 1):
        head = above[-count:]
        if head[0] in tops and head[0] not in sys.stdlib_module_names and is_dotted_name(head):
            return ".".join([*head, name])
    return name


def _path_name(path: str) -> str | None:
    """The dotted path of a file from the repository root (`docs_src/a/x.py` -> `docs_src.a.x`)."""
    stem = path[:-3]
    if stem.endswith("/__init__"):
        stem = stem[: -len("/__init__")]
    parts = stem.split("/")
    return ".".join(parts) if is_dotted_name(parts) else None


def _path_aliases(path: str) -> list[str]:
    """Names the file may be imported by besides its own: its path from the repository root, and from a
    conventional source root (`src/`, `lib/`)."""
    whole = _path_name(path)
    if whole is None:
        return []
    names = [whole]
    for root in _CONVENTIONAL_ROOTS:
        if whole.startswith(root + "."):
            names.append(whole[len(root) + 1 :])
    return names
