"""The checks' questions about names and classes, answered by the code index's resolver.

There is one resolver (`analysis/intel/resolve.py`, with `analysis/intel/meaning.py` for what an
occurrence denotes); `find_usages` and the checks both use it, so a fix lands in both. The checks speak in
dotted strings (`pkg.mod.Cls`); here they become the index's canonical `Value`s (re-exports followed)
and back, and class hierarchies are read from the index's class facts.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import re
import sys
from typing import TYPE_CHECKING

from prscope.analysis.intel.resolve import Resolver, Value
from prscope.analysis.intel.scopes import class_bases, dotted_chain

if TYPE_CHECKING:
    from prscope.analysis.intel import CodeIndex

_BUILTIN_NAMES = frozenset(dir(builtins))
_MAX_DEPTH = 8
_CLASS_LINE = re.compile(r"^[ \t]*class\s+([A-Za-z_]\w*)", re.MULTILINE)


class ModuleNames:
    """Resolves expressions written at the top level of one module (a class's bases) to dotted paths."""

    def __init__(self, names: Names, module: str, path: str) -> None:
        self.names = names
        self.module = module
        self.path = path

    def dotted(self, node: ast.expr) -> str | None:
        """The dotted path `node` denotes (`pkg.mod.Base`, `builtins.dict`); None when not certain."""
        chain = dotted_chain(node.value if isinstance(node, ast.Subscript) else node)
        if chain is None:
            return None
        return self.names.chain_dotted(self.module, chain)

    def candidates(self, node: ast.expr) -> list[str]:
        """Every dotted path `node` may denote: a name bound in several branches (`from pickle import
        Pickler` for Python 2, `from pickle import _Pickler as Pickler` for Python 3) has one per binding."""
        chain = dotted_chain(node.value if isinstance(node, ast.Subscript) else node)
        if chain is None:
            return []
        return [str(value) for value in self.names.resolver.chain_values(self.module, chain, None)]


class Names:
    """Dotted paths and classes for one check run, over one memoising index resolver."""

    def __init__(self, index: CodeIndex) -> None:
        self.index = index
        self.resolver: Resolver = index.new_resolver()
        self._values: dict[str, Value | None] = {}
        self._located: dict[Value, tuple[ModuleNames, ast.ClassDef] | None] = {}
        self._classes_in: dict[str, dict[str, ast.ClassDef] | None] = {}
        self._class_line_counts: dict[str, dict[str, int]] = {}

    def value(self, dotted: str) -> Value | None:
        """The canonical value of a dotted symbol (re-exports followed)."""
        if dotted not in self._values:
            try:
                self._values[dotted] = self.index.symbol_value(dotted)
            except Exception:
                self._values[dotted] = None
        return self._values[dotted]

    def canonical(self, dotted: str) -> str:
        value = self.value(dotted)
        return str(value) if value is not None else dotted

    def chain_dotted(self, module: str, chain: tuple[str, ...]) -> str | None:
        """What `a.b.c` written at the top level of `module` denotes, when it is one thing."""
        if chain[0] in _BUILTIN_NAMES and not self.resolver.is_bound(module, chain[0]):
            return ".".join(("builtins", *chain))
        values = self.resolver.chain_values(module, chain, None)
        return str(values[0]) if len(values) == 1 else None

    def class_value(self, dotted: str) -> Value | None:
        value = self.value(dotted)
        return value if value is not None and value.kind == "member" else None

    def locate(self, dotted: str) -> tuple[ModuleNames, ast.ClassDef] | None:
        """The repository class `dotted` names: its module's names and its `class` statement."""
        value = self.class_value(dotted)
        if value is None:
            return None
        if value not in self._located:
            self._located[value] = self._locate(value)
        return self._located[value]

    def _locate(self, value: Value) -> tuple[ModuleNames, ast.ClassDef] | None:
        path = self.index.module_path(value.module)
        top = self._top_classes(path) if path is not None else None
        if top is None or path is None:
            return None
        first, *inner = value.name.split(".")
        found = top.get(first)
        for part in inner:
            if found is None:
                return None
            found = next(
                (n for n in flat_body(found.body) if isinstance(n, ast.ClassDef) and n.name == part), None
            )
        return (ModuleNames(self, value.module, path), found) if found is not None else None

    def _top_classes(self, path: str) -> dict[str, ast.ClassDef] | None:
        """The first top-level `class` statement of each name in the file (if/try looked into), read once
        per check run: a class family spans many classes of the same big modules, more than the index
        keeps parsed."""
        if path not in self._classes_in:
            tree = self.index.parse(path)
            classes: dict[str, ast.ClassDef] | None = None
            if tree is not None:
                classes = {}
                for node in flat_body(tree.body):
                    if isinstance(node, ast.ClassDef):
                        classes.setdefault(node.name, node)
            self._classes_in[path] = classes
        return self._classes_in[path]

    def base_values(self, dotted: str) -> list[str | None]:
        """Dotted paths of the class's bases (None for a base that cannot be resolved)."""
        located = self._header(dotted) or self.locate(dotted)
        if located is None:
            return []
        names, node = located
        return [names.dotted(base) for base in class_bases(node)]

    def _header(self, dotted: str) -> tuple[ModuleNames, ast.ClassDef] | None:
        """The `class` statement of a top-level class parsed from its header alone, when the file has
        exactly one `class Name` line and it heads a class unit: the same statement `locate` finds, with
        its bases, without parsing the whole (often huge) module. None: ask `locate`."""
        value = self.class_value(dotted)
        if value is None or "." in value.name or value in self._located:
            return None
        path = self.index.module_path(value.module)
        if path is None:
            return None
        headers = [
            u for u in self.index.file_units(path) if u.kind == "class-header" and u.name == value.name
        ]
        if len(headers) != 1 or self._class_lines(path).get(value.name) != 1:
            return None
        found = self.index.unit_tree(path, headers[0].start + 1)
        if found is None:
            return None
        node = next(
            (n for n in flat_body(found[1].body) if isinstance(n, ast.ClassDef) and n.name == value.name),
            None,
        )
        return (ModuleNames(self, value.module, path), node) if node is not None else None

    def _class_lines(self, path: str) -> dict[str, int]:
        """How many lines of the file start a `class Name` statement, per name."""
        if path not in self._class_line_counts:
            counts: dict[str, int] = {}
            for name in _CLASS_LINE.findall(self.index.source(path) or ""):
                counts[name] = counts.get(name, 0) + 1
            self._class_line_counts[path] = counts
        return self._class_line_counts[path]


def flat_body(body: list[ast.stmt]) -> list[ast.stmt]:
    """A block's statements, looking into if/try (a class defined under a condition is still defined)."""
    result: list[ast.stmt] = []
    for stmt in body:
        if isinstance(stmt, ast.If | ast.Try | ast.TryStar):
            result.extend(flat_body(stmt.body))
            for handler in getattr(stmt, "handlers", []):
                result.extend(flat_body(handler.body))
            result.extend(flat_body(stmt.orelse))
            result.extend(flat_body(getattr(stmt, "finalbody", [])))
        else:
            result.append(stmt)
    return result


_PYTHON2_ONLY = {
    "dict": frozenset(
        {"iteritems", "iterkeys", "itervalues", "has_key", "viewitems", "viewkeys", "viewvalues"}
    ),
    "str": frozenset({"decode"}),
    "file": frozenset({"xreadlines"}),
}
"""Methods Python 2's builtins had and Python 3's lack."""


def stdlib_class_has(dotted: str, name: str, *, python2: bool = False) -> bool | None:
    """Whether a standard-library (or builtin) class has attribute `name`; None when it cannot be told
    (with `python2`, a method only Python 2's builtin had: it depends on the Python that runs it).

    Only modules of the standard library are imported (they run no repository or third-party code).
    """
    module_name, _, class_name = dotted.rpartition(".")
    if not module_name or module_name.split(".")[0] not in sys.stdlib_module_names:
        return None
    if python2 and module_name == "builtins" and name in _PYTHON2_ONLY.get(class_name, ()):
        return None
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, class_name)
    except (ImportError, AttributeError, ValueError):
        return None
    return hasattr(cls, name) if isinstance(cls, type) else None


MAX_CLASS_DEPTH = _MAX_DEPTH
