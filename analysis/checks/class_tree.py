"""Class hierarchies as the checks ask about them: a class's family (its subclasses), its members, its
bases and what they provide, answered through the index's resolver and class facts.
"""

from __future__ import annotations

import ast
import re
import sys
from typing import TYPE_CHECKING

from prscope.analysis.checks.framework_members import framework_class_has
from prscope.analysis.checks.resolve import ModuleNames, stdlib_class_has
from prscope.analysis.checks.stores import source_text
from prscope.analysis.intel.scopes import class_bases

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import RepoView

_CLASS_HEADER = re.compile(r"^[ \t]*class\s+\w+\s*\(([^)]*)", re.MULTILINE)
_BASE_WORD = re.compile(r"[A-Za-z_]\w*")
_NEUTRAL_BASES = frozenset({"object", "Generic", "Protocol", "ABC", "NamedTuple", "TypedDict"})


class ClassTree:
    """The hierarchy questions of one check run (memoised with the view's resolver)."""

    def __init__(self, view: RepoView, *, python2: bool = False) -> None:
        self.view = view
        self.python2 = python2
        """The project may run under Python 2, whose builtins had more methods (`dict.iteritems`)."""
        self.names = view.names
        self.index = view.index
        self._ancestors: dict[frozenset[str], set[str]] = {}
        self._families: dict[tuple[frozenset[str], int], set[str]] = {}
        self._class_headers: dict[str, list[tuple[int, frozenset[str]]]] = {}
        self._header_words: tuple[dict[str, set[str]], set[str]] | None = None
        self._local: dict[str, tuple[ModuleNames, ast.ClassDef]] = {}
        """Classes defined inside functions that `subclasses` found, by dotted path (`m.f.<locals>.C`):
        the index has no entry for them."""

    def subclasses(self, class_aliases: set[str], *, depth: int = 5) -> set[str]:
        """`class_aliases` plus the repository's classes inheriting from them (up to `depth` levels);
        remembered for the check run (a PR changing ten methods of one class asks ten times)."""
        key = (frozenset(class_aliases), depth)
        if key not in self._families:
            self._families[key] = self._subclasses(class_aliases, depth)
        return set(self._families[key])

    def _subclasses(self, class_aliases: set[str], depth: int) -> set[str]:
        family = {self.names.canonical(c) for c in class_aliases} | set(class_aliases)
        frontier = set(family)
        self.view.files()
        for _round in range(depth):
            words = {d.rsplit(".", 1)[-1] for d in frontier}
            new: set[str] = set()
            for path in sorted(self._files_deriving_from(words)):
                headers = {line for line, bases in self._headers(path) if not bases.isdisjoint(words)}
                if headers:
                    new |= self._classes_deriving(path, frontier, headers) - family
            if not new:
                break
            family |= new
            frontier = new
        return family

    def _files_deriving_from(self, words: set[str]) -> set[str]:
        """Files whose class headers may name one of `words` as a base. From one read of every `class`
        line per run (sympy's `Expr` family: five rounds of hundreds of names each, a grep apiece, cost
        seconds); a header spanning lines names its bases below, so its file is always a candidate."""
        if self._header_words is None:
            self._header_words = _header_words(self.index.class_header_rows(), self.view.file_set)
        by_word, spanning = self._header_words
        found = set(spanning)
        for word in words:
            found |= by_word.get(word, set())
        return found

    def _headers(self, path: str) -> list[tuple[int, frozenset[str]]]:
        """The file's `class X(...)` headers: (1-based line, the words of its bases), read once per run."""
        if path not in self._class_headers:
            self._class_headers[path] = _class_headers(self.view.text(path) or "")
        return self._class_headers[path]

    def _classes_deriving(self, path: str, frontier: set[str], header_lines: set[int]) -> set[str]:
        module, _ = self.index.file_module(path)
        parts = self.index.parts_at(path, header_lines)
        if parts is None:
            tree = self.index.parse(path)
            parts = [("", tree)] if tree is not None else []
        names = ModuleNames(self.names, module, path)
        found: set[str] = set()
        for prefix, tree in parts:
            for qualname, node in _classes(tree.body, prefix):
                if any(names.dotted(base) in frontier for base in class_bases(node)):
                    found.add(f"{module}.{qualname}")
                    if "<locals>" in qualname:
                        self._local[f"{module}.{qualname}"] = (names, node)
        return found

    def local_class(self, dotted: str) -> tuple[ModuleNames, ast.ClassDef] | None:
        """A class defined inside a function, as `subclasses` found it (its module's names, its node)."""
        return self._local.get(dotted)

    def class_members(self, dotted: str) -> set[str] | None:
        """Names a repository class defines (body, methods and `self.X = ...`), looked up by its dotted
        path."""
        value = self.names.class_value(dotted)
        if value is None:
            return None
        if "." not in value.name:
            return self.index.class_member_names(value.module, value.name)
        path = self.view.module_path(value.module)  # a nested class: read its whole module
        defs = self.view.defs(path) if path is not None else None
        return defs.class_members.get(value.name) if defs is not None else None

    def class_node(self, dotted: str) -> tuple[ModuleNames, ast.ClassDef] | None:
        return self.names.locate(dotted)

    def ancestors(self, classes: set[str]) -> set[str]:
        """Dotted paths of the repository base classes of `classes` (transitively)."""
        key = frozenset(classes)
        cached = self._ancestors.get(key)
        if cached is not None:
            return cached
        found: set[str] = set()
        frontier = set(classes)
        for _depth in range(8):
            bases = {b for d in frontier for b in self.names.base_values(d) if b is not None} - found
            found |= bases
            frontier = bases
            if not frontier:
                break
        self._ancestors[key] = found
        return found

    def provides(self, dotted: str, name: str, stop: set[str], depth: int = 8) -> bool | None:
        """Whether class `dotted` or an ancestor (not passing through `stop`) has `name`; None if unknown."""
        if dotted in stop or self.names.canonical(dotted) in stop:
            return False
        if depth <= 0:
            return None
        found = self.class_node(dotted)
        if found is None:
            known = stdlib_class_has(dotted, name, python2=self.python2)
            return True if known is None and framework_class_has(dotted, name) else known
        names, node = found
        members = self.class_members(dotted) or set()
        if name in members or answers_any_name(node):
            return True
        return self.bases_provide(names, node, name, stop, depth - 1)

    def outside_bases(self, names: ModuleNames, node: ast.ClassDef, depth: int = 8) -> set[str]:
        """Dotted names of the third-party classes `node` derives from, directly or through its repository
        bases."""
        found: set[str] = set()
        for base in class_bases(node):
            dotted = names.dotted(base.value if isinstance(base, ast.Subscript) else base)
            if dotted is None or dotted.split(".")[0] in sys.stdlib_module_names or dotted == "object":
                continue
            inner = self.class_node(dotted)
            if inner is not None:
                found |= self.outside_bases(*inner, depth - 1) if depth > 0 else set()
            elif not self.names.resolver.source.in_repo(dotted.rsplit(".", 1)[0]):
                found.add(dotted)
        return found

    def bases_provide(
        self,
        names: ModuleNames,
        node: ast.ClassDef,
        name: str,
        stop: set[str],
        depth: int = 8,
        *,
        trusted: frozenset[str] = frozenset(),
    ) -> bool | None:
        """Whether a base of `node` has `name`: True, False, or None when a base cannot be inspected.

        `trusted` holds the source text of bases whose members are taken not to include `name` when they
        cannot be inspected (bases the class already had while it defined `name` itself).
        """
        unknown = False
        for base in class_bases(node):
            if isinstance(base, ast.Name) and base.id == "object":
                continue
            if isinstance(base, ast.Subscript):
                base = base.value
            dotted = names.dotted(base)
            result: bool | None
            if dotted is None:
                if isinstance(base, ast.Name | ast.Attribute) and _base_name(base) in _NEUTRAL_BASES:
                    continue
                if any(self.provides(c, name, stop, depth) for c in names.candidates(base)):
                    return True  # one of the classes the name is bound to has it (cloudpickle 2da4c243)
                result = None
            elif dotted.rsplit(".", 1)[-1] in _NEUTRAL_BASES and dotted.split(".")[0] in ("typing", "abc"):
                continue
            else:
                result = self.provides(dotted, name, stop, depth)
            if result:
                return True
            if result is None and source_text(base) not in trusted:
                unknown = True
        return None if unknown else False


def _header_words(rows: list[tuple[str, str]], files: set[str]) -> tuple[dict[str, set[str]], set[str]]:
    """word -> files with a one-line class header naming it among its bases; and the files with a header
    whose base list continues on the next lines."""
    by_word: dict[str, set[str]] = {}
    spanning: set[str] = set()
    for path, text in rows:
        if path not in files or "(" not in text:
            continue
        bases, closed, _ = text.partition("(")[2].partition(")")
        if not closed:
            spanning.add(path)
        for word in _BASE_WORD.findall(bases):
            by_word.setdefault(word, set()).add(path)
    return by_word, spanning


def _class_headers(text: str) -> list[tuple[int, frozenset[str]]]:
    """(1-based line, words of the bases) of every `class X(...)` header of the text."""
    headers: list[tuple[int, frozenset[str]]] = []
    line, counted = 1, 0
    for match in _CLASS_HEADER.finditer(text):
        line += text.count("\n", counted, match.start())
        counted = match.start()
        headers.append((line, frozenset(_BASE_WORD.findall(match.group(1)))))
    return headers


def _classes(body: list[ast.stmt], prefix: str) -> list[tuple[str, ast.ClassDef]]:
    """Classes of a module with their qualnames (nested classes too; those inside functions as
    `f.<locals>.C`)."""
    found: list[tuple[str, ast.ClassDef]] = []
    for node in body:
        if isinstance(node, ast.ClassDef):
            qualname = f"{prefix}{node.name}"
            found.append((qualname, node))
            found.extend(_classes(node.body, f"{qualname}."))
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found.extend(_classes(node.body, f"{prefix}{node.name}.<locals>."))
        elif isinstance(node, ast.If | ast.Try | ast.TryStar | ast.With | ast.For | ast.While):
            for block in ("body", "orelse", "finalbody"):
                found.extend(_classes(getattr(node, block, []), prefix))
            for handler in getattr(node, "handlers", []):
                found.extend(_classes(handler.body, prefix))
    return found


def _base_name(node: ast.Name | ast.Attribute) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr


def answers_any_name(node: ast.ClassDef) -> bool:
    """Whether the class's own `__getattr__` answers every name it is asked, raising for none (oauthlib
    28cf20b3's grants forward what they no longer inherit to a `proxy_target`). One that raises for some
    names (transitions' `Machine`, which answers only `on_enter_<state>`-like callbacks) answers those."""
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef) and statement.name == "__getattr__":
            return not any(isinstance(inner, ast.Raise) for inner in ast.walk(statement))
    return False
