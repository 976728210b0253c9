"""Where the repository (at the reviewed head) still refers to a symbol: imports, names, calls, methods.

Every occurrence comes from the code index (`git grep` for the word, then only the parts of each file
that mention it are parsed) and gets its meaning from the index's one resolver
(`analysis/intel/meaning.py`), the same that answers `find_usages`. This module pairs occurrences with
their syntax (the call whose arguments are bound, the import statement) and grades method receivers. A
colliding name (`get`, `update`) only counts where the imports say it is ours.
"""

from __future__ import annotations

import ast
import re
import threading
import warnings
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Literal

from analysis.checks.defs import ModuleDefs, collect
from analysis.checks.resolve import ModuleNames, Names, flat_body, stdlib_class_has
from analysis.intel.meaning import ReceiverType, attribute_values, import_values, name_values, receiver_type
from analysis.intel.resolve import Value
from analysis.intel.scan import Occurrence
from analysis.intel.scopes import guards_imports
from analysis.intel.signatures import Signature

if TYPE_CHECKING:
    from analysis.intel import CodeIndex

__all__ = [
    "COMMON_METHOD_NAMES",
    "RepoView",
    "Site",
    "byte_to_char_col",
    "provided_elsewhere",
    "site_name",
    "stdlib_class_has",
]

Evidence = Literal["exact", "probable"]
SiteKind = Literal["import", "call", "attribute", "name", "decorator"]

# Method names that builtin and everyday stdlib objects also have: a call through an unknown receiver
# (`d.get(k)`, `s.replace(a, b)`) is far more likely to be one of those than the repository's method.
_COMMON_OBJECTS: tuple[type, ...] = (
    dict,
    list,
    str,
    bytes,
    bytearray,
    set,
    frozenset,
    tuple,
    int,
    float,
    object,
)
COMMON_METHOD_NAMES = frozenset(
    {name for kind in _COMMON_OBJECTS for name in dir(kind)}
    | {
        "read", "write", "close", "open", "flush", "seek", "readline", "readlines", "info", "debug",
        "warning", "error", "exception", "critical", "log", "run", "start", "stop", "join", "send", "recv",
        "put", "submit", "result", "cancel", "exists", "match", "search", "sub", "group", "groups", "get",
        "set", "add", "update", "remove", "delete", "execute", "fetchone", "fetchall", "commit", "parse",
        "load", "loads", "dump", "dumps", "render", "emit", "wait", "acquire", "release", "keys", "values",
        "items", "setdefault", "pop", "clear", "copy", "reset", "name", "value", "resolve", "mkdir",
        "unlink", "iterdir", "glob", "stat", "encode", "decode", "format", "strip", "split",
    }
)  # fmt: skip

_MAX_NODE_FILES = 64
_IMPORT_STATEMENT = re.compile(
    r"^[ \t]*(?:from[ \t]+[.\w]+[ \t]+)?import[ \t]+(?:\([^)]*\)|[^\n]*(?:\\\n[^\n]*)*)", re.MULTILINE
)
_IDENTIFIER = re.compile(r"\*|[A-Za-z_]\w*")
_CLASS_HEADER = re.compile(r"^[ \t]*class\s+\w+\s*\(([^)]*)", re.MULTILINE)
_BASE_WORD = re.compile(r"[A-Za-z_]\w*")
_EXPLICIT_INIT = re.compile(r"([A-Za-z_]\w*)\s*\.\s*__init__\b")
_MAX_ALIAS_ROUNDS = 4
_MAX_REACH = 64


@dataclass(frozen=True)
class Site:
    path: str
    line: int
    col: int
    """1-based, code points."""
    kind: SiteKind
    node: ast.AST
    call: ast.Call | None
    evidence: Evidence = "exact"
    bound: bool = True
    """For method calls: reached through an instance or class binding (self/cls not passed explicitly)."""
    guarded: bool = False
    owner: str | None = None
    """For `self.name` sites: the dotted class whose method the access is in."""


def byte_to_char_col(line_text: str, byte_offset: int) -> int:
    encoded = line_text.encode("utf-8")
    return len(encoded[:byte_offset].decode("utf-8", errors="ignore")) + 1


@dataclass
class FileNodes:
    """One parsed file's syntax, by position: what an index occurrence points at."""

    tree: ast.Module
    at: dict[tuple[int, int], ast.Name | ast.Attribute] = field(default_factory=dict)
    """Names and attribute accesses by (line, 1-based column of the identifier)."""
    call_of: dict[int, ast.Call] = field(default_factory=dict)
    """Calls by the id of their callee expression."""
    decorators: set[int] = field(default_factory=set)
    imports: dict[tuple[int, int], tuple[ast.Import | ast.ImportFrom, bool]] = field(default_factory=dict)
    """Imported names by (line, 1-based column): the statement and whether a handler catches ImportError."""
    attribute_stores: set[str] = field(default_factory=set)
    """Attribute names assigned anywhere (`x.name = ...`)."""


def _file_nodes(tree: ast.Module, lines: list[str]) -> FileNodes:
    nodes = FileNodes(tree)

    def text(line: int) -> str:
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def visit(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, ast.Try | ast.TryStar):
            catches = guards_imports(node)
            for child in node.body:
                visit(child, guarded or catches)
            for rest in (*node.handlers, *node.orelse, *node.finalbody):
                visit(rest, guarded)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            for alias in node.names:
                line = getattr(alias, "lineno", node.lineno)
                col = byte_to_char_col(text(line), getattr(alias, "col_offset", node.col_offset))
                nodes.imports[(line, col)] = (node, guarded)
            return
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            for decorator in node.decorator_list:
                nodes.decorators.add(id(decorator.func if isinstance(decorator, ast.Call) else decorator))
        if isinstance(node, ast.Call):
            nodes.call_of[id(node.func)] = node
        elif isinstance(node, ast.Name):
            nodes.at[(node.lineno, byte_to_char_col(text(node.lineno), node.col_offset))] = node
        elif isinstance(node, ast.Attribute):
            line = node.end_lineno or node.lineno
            col = byte_to_char_col(text(line), node.end_col_offset or 0) - len(node.attr)
            nodes.at[(line, col)] = node
            if not isinstance(node.ctx, ast.Load):
                nodes.attribute_stores.add(node.attr)
        for inner in ast.iter_child_nodes(node):
            visit(inner, guarded)

    for statement in tree.body:
        visit(statement, False)
    return nodes


class RepoView:
    """Cached lookups over the code index for one check run: files, texts, occurrences and classes."""

    def __init__(self, index: CodeIndex) -> None:
        self.index = index
        self.names = Names(index)
        self._lock = threading.Lock()
        self._files: list[str] | None = None
        self._file_set: set[str] = set()
        self._defs: dict[str, ModuleDefs | None] = {}
        self._parses: dict[str, bool] = {}
        self._imports: dict[str, set[str]] = {}
        self._nodes: OrderedDict[tuple[str, int], FileNodes | None] = OrderedDict()
        self._lines: dict[str, list[str]] = {}
        self._word_hits: dict[str, dict[str, list[int]]] = {}
        self._raises_blocks: dict[tuple[str, int, tuple[str, ...]], list[tuple[int, int, str | None]]] = {}
        self._ancestors: dict[frozenset[str], set[str]] = {}
        self.added_lines: dict[str, set[int]] = {}
        """Per path, the lines the PR adds (a call written in the PR is written for the new signature)."""

    def files(self) -> list[str]:
        if self._files is None:
            self._files = [p for p in self.index.python_files() if p.endswith((".py", ".pyi"))]
            self._file_set = set(self._files)
        return self._files

    def text(self, path: str) -> str | None:
        try:
            return self.index.source(path)
        except Exception:
            return None

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            self._lines[path] = (self.text(path) or "").splitlines()
        return self._lines[path]

    def line_text(self, path: str, line: int) -> str:
        lines = self.lines(path)
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def module(self, path: str) -> str | None:
        try:
            return self.index.module_name(path)
        except Exception:
            return None

    def tree(self, path: str) -> ast.Module | None:
        return self.index.parse(path)

    def nodes(self, path: str, line: int) -> FileNodes | None:
        """The syntax around `line` (the function, method or statements holding it), by position; the
        most recently used parts are kept."""
        unit = self.index.unit_at(path, line)
        if unit is None:
            return None
        key = (path, unit.start)
        if key in self._nodes:
            self._nodes.move_to_end(key)
            return self._nodes[key]
        located = self.index.unit_tree(path, line)
        if located is None:
            return None
        key = (path, located[0].start)  # the whole file, when the part did not parse alone
        try:
            found: FileNodes | None = _file_nodes(located[1], self.lines(path))
        except RecursionError:
            found = None
        self._nodes[key] = found
        while len(self._nodes) > _MAX_NODE_FILES:
            self._nodes.popitem(last=False)
        return found

    def parses(self, path: str) -> bool:
        """Whether the whole file parses: nothing is reported in one that does not (Python 2 code of a
        project that supported it then, a broken file), as its other parts may mean something else."""
        if path not in self._parses:
            self._parses[path] = compiles(self.text(path) or "", path)
        return self._parses[path]

    def defs(self, path: str) -> ModuleDefs | None:
        if path not in self._defs:
            tree = self.index.parse(path)
            self._defs[path] = collect(tree) if tree is not None else None
        return self._defs[path]

    def expects_error(self, site: Site, *names: str, messages: list[str] | None = None) -> bool:
        """Whether the site sits in `with pytest.raises(E)` / `with self.assertRaises(E)` for E in `names`:
        test code that exercises the failure on purpose. With `messages` (what the call now fails with),
        a block that asks for a message (`match=`, `assertRaisesRegex`) expects this failure only when
        its pattern finds one of them."""
        nodes = self.nodes(site.path, site.line)
        if nodes is None:
            return False
        key = (site.path, id(nodes), names)
        blocks = self._raises_blocks.get(key)
        if blocks is None:
            blocks = []
            for node in ast.walk(nodes.tree):
                if isinstance(node, ast.With | ast.AsyncWith):
                    for item in node.items:
                        if _raises(item.context_expr, names):
                            span = (node.lineno, node.end_lineno or node.lineno)
                            blocks.append((*span, _expected_message(item.context_expr)))
            self._raises_blocks[key] = blocks
        return any(
            start <= site.line <= end and (messages is None or _pattern_finds(pattern, messages))
            for start, end, pattern in blocks
        )

    def word_hits(self, word: str) -> dict[str, list[int]]:
        """Files that mention `word` as a whole word, with the lines."""
        if word not in self._word_hits:
            self.files()
            try:
                self._word_hits[word] = self.index.word_lines(word, self._file_set)
            except Exception:
                self._word_hits[word] = {}
        return self._word_hits[word]

    def files_with_word(self, word: str) -> list[str]:
        return sorted(self.word_hits(word))

    def files_calling_init(self, class_names: set[str]) -> set[str]:
        """Files that spell `Name.__init__` for one of `class_names` (an explicit constructor call)."""
        found: set[str] = set()
        for path in self.word_hits("__init__"):  # the index's grep finds `.__init__` only
            if any(m.group(1) in class_names for m in _EXPLICIT_INIT.finditer(self.text(path) or "")):
                found.add(path)
        return found

    def module_path(self, module: str) -> str | None:
        try:
            return self.index.module_path(module)
        except Exception:
            return None

    def is_repo_module(self, dotted: str) -> bool:
        """Whether a dotted path starts inside the repository (a package or module it holds)."""
        return self.module_path(dotted.split(".")[0]) is not None or self.index.is_package(
            dotted.split(".")[0]
        )

    def aliases(self, dotted: str) -> set[str]:
        """The dotted paths that denote the object `dotted` names: its canonical path (re-exports followed)
        and `dotted` itself. Every site this view reports is resolved to canonical paths."""
        return {dotted, self.names.canonical(dotted)}

    def _occurrences(self, word: str, path: str) -> tuple[str, bool, list[Occurrence]]:
        module, is_package = self.index.file_module(path)
        found = self.index.occurrences(path, word, self.word_hits(word).get(path))
        return module, is_package, found or []

    def references(self, aliases: set[str]) -> list[Site]:
        """Import lines, names and attribute accesses anywhere that resolve to one of `aliases` (every use
        of a name that means only that symbol; a name that may also mean something else is left out).
        `from m import X as Y` makes the uses of `Y` references too."""
        targets = {v for a in aliases if (v := self.names.value(a)) is not None}
        sites: list[Site] = []
        words = {_leaf(t) for t in targets}
        done: set[str] = set()
        for _round in range(_MAX_ALIAS_ROUNDS):
            renamed: set[str] = set()
            for word in sorted(words - done):
                done.add(word)
                sites.extend(self._references_by_word(word, targets, renamed))
            words = renamed - done
            if not words:
                break
        return sites

    def _references_by_word(self, word: str, targets: set[Value], renamed: set[str]) -> list[Site]:
        resolver = self.names.resolver
        sites: list[Site] = []
        for path in self.files_with_word(word):
            if not self._may_refer_to(path, word, targets):
                continue
            module, is_package, occurrences = self._occurrences(word, path)
            for occurrence in occurrences:
                if occurrence.kind == "import":
                    values = import_values(resolver, module, is_package, occurrence)
                elif occurrence.kind == "name":
                    values = name_values(resolver, module, word, occurrence)
                elif occurrence.kind == "attr" and not occurrence.store:
                    values = attribute_values(resolver, module, word, occurrence)
                else:
                    continue
                if not values or not set(values) <= targets:
                    continue
                if occurrence.kind == "import" and occurrence.import_asname:
                    renamed.add(occurrence.import_asname)
                if occurrence.kind == "name" and occurrence.scope_depth == 0:
                    renamed.update(self.index.assigned_aliases(path, {word}))
                site = self._site(path, occurrence)
                if site is not None:
                    sites.append(site)
        return sites

    def _may_refer_to(self, path: str, word: str, targets: set[Value]) -> bool:
        """Whether a file can name one of `targets`: it is the target's module, or its imports name the
        word, a package on the target's module path, or import everything (`*`). A cheap text test that
        spares parsing the many files a common word (`add`, `columns`) appears in."""
        words = self._import_words(path)
        if word in words or "*" in words:
            return True
        module, _ = self.index.file_module(path)
        return any(t.module == module or words.intersection(t.module.split(".")) for t in targets)

    def _import_words(self, path: str) -> set[str]:
        if path not in self._imports:
            found: set[str] = set()
            for match in _IMPORT_STATEMENT.finditer(self.text(path) or ""):
                found.update(_IDENTIFIER.findall(match.group(0)))
            self._imports[path] = found
        return self._imports[path]

    def _site(
        self, path: str, occurrence: Occurrence, *, evidence: Evidence = "exact", bound: bool = True
    ) -> Site | None:
        nodes = self.nodes(path, occurrence.line)
        if nodes is None or not self.parses(path):
            return None
        position = (occurrence.line, occurrence.col + 1)
        if occurrence.kind == "import":
            imported = nodes.imports.get(position)
            if imported is None:
                return None
            statement, guarded = imported
            return Site(path, occurrence.line, occurrence.col + 1, "import", statement, None, guarded=guarded)
        node = nodes.at.get(position)
        if node is None:
            if occurrence.role != "annotation":
                return None
            # A name inside a string annotation (`x: "Flask"`): no node of the tree stands for it.
            return Site(path, occurrence.line, occurrence.col + 1, "name", ast.Name(id=""), None, evidence)
        call = nodes.call_of.get(id(node))
        kind: SiteKind
        if id(node) in nodes.decorators:
            kind = "decorator"
        elif call is not None:
            kind = "call"
        else:
            kind = "attribute" if isinstance(node, ast.Attribute) else "name"
        return Site(path, occurrence.line, occurrence.col + 1, kind, node, call, evidence, bound)

    def call_sites(self, dotted: str) -> list[Site]:
        """Calls of module-level function (or constructor) `dotted`, found by the code index's
        `find_usages` and paired with their call expressions (for binding the arguments)."""
        try:
            result = self.index.find_usages(dotted)
        except Exception:
            return []
        sites: list[Site] = []
        for reference in result.references:
            if reference.kind != "call":
                continue
            nodes = self.nodes(reference.path, reference.line)
            if nodes is None or not self.parses(reference.path):
                continue
            node = nodes.at.get((reference.line, reference.col))
            call = nodes.call_of.get(id(node)) if node is not None else None
            if call is not None and node is not None:
                sites.append(Site(reference.path, reference.line, reference.col, "call", node, call))
        return sites

    def subclasses(self, class_aliases: set[str], *, depth: int = 5) -> set[str]:
        """`class_aliases` plus the repository's classes inheriting from them (up to `depth` levels)."""
        family = {self.names.canonical(c) for c in class_aliases} | set(class_aliases)
        frontier = set(family)
        self.files()
        for _round in range(depth):
            words = {d.rsplit(".", 1)[-1] for d in frontier}
            new: set[str] = set()
            for path in sorted(self.index.files_with_any_word(words, self._file_set)):
                if not any(
                    set(_BASE_WORD.findall(m.group(1))) & words
                    for m in _CLASS_HEADER.finditer(self.text(path) or "")
                ):
                    continue
                new |= self._classes_deriving(path, frontier) - family
            if not new:
                break
            family |= new
            frontier = new
        return family

    def _classes_deriving(self, path: str, frontier: set[str]) -> set[str]:
        module, _ = self.index.file_module(path)
        tree = self.index.parse(path)
        if tree is None:
            return set()
        names = ModuleNames(self.names, module, path)
        found: set[str] = set()
        for qualname, node in _classes(tree.body, ""):
            if any(names.dotted(base) in frontier for base in node.bases):
                found.add(f"{module}.{qualname}")
        return found

    def class_members(self, dotted: str) -> set[str] | None:
        """Names a repository class defines (body, methods and `self.X = ...`), looked up by its dotted
        path."""
        value = self.names.class_value(dotted)
        if value is None:
            return None
        if "." not in value.name:
            return self.index.class_member_names(value.module, value.name)
        path = self.module_path(value.module)  # a nested class: read its whole module
        defs = self.defs(path) if path is not None else None
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
            return stdlib_class_has(dotted, name)
        names, node = found
        members = self.class_members(dotted) or set()
        if name in members:
            return True
        return self.bases_provide(names, node, name, stop, depth - 1)

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
        for base in node.bases:
            if isinstance(base, ast.Name) and base.id == "object":
                continue
            if isinstance(base, ast.Subscript):
                base = base.value
            dotted = names.dotted(base)
            result: bool | None
            if dotted is None:
                if isinstance(base, ast.Name | ast.Attribute) and _base_name(base) in _NEUTRAL_BASES:
                    continue
                result = None
            elif dotted.rsplit(".", 1)[-1] in _NEUTRAL_BASES and dotted.split(".")[0] in ("typing", "abc"):
                continue
            else:
                result = self.provides(dotted, name, stop, depth)
            if result:
                return True
            if result is None and _source(base) not in trusted:
                unknown = True
        return None if unknown else False

    def other_definitions(
        self, name: str, exclude_classes: set[str]
    ) -> list[tuple[str, str, Signature | None]]:
        """Functions, methods and class attributes named `name` outside `exclude_classes` (dotted), and
        attributes of that name assigned anywhere (`x.name = ...`). Only the parts of files that define
        the name are parsed."""
        found: list[tuple[str, str, Signature | None]] = []
        exclude = exclude_classes | {self.names.canonical(c) for c in exclude_classes}
        word = re.escape(name)
        defined = re.compile(
            rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{word}\b|^[ \t]+{word}[ \t]*(?::[^=\n]*)?=(?!=)", re.M
        )
        stored = re.compile(rf"\.\s*{word}\s*(?::[^=\n]*)?=(?!=)")
        for path in self.files_with_word(name):
            text = self.text(path) or ""
            module, _ = self.index.file_module(path)
            for match in defined.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                for qualname, owner, signature in self._definitions_at(path, line, name):
                    if owner is None or f"{module}.{owner}" not in exclude:
                        found.append((path, qualname, signature))
            if stored.search(text):
                found.append((path, f"<attribute {name}>", None))
        return found

    def _definitions_at(
        self, path: str, line: int, name: str
    ) -> list[tuple[str, str | None, Signature | None]]:
        """The definition of `name` on `line`: a function, a method or a class attribute."""
        unit = self.index.unit_at(path, line)
        nodes = self.nodes(path, line)
        if unit is None or nodes is None:
            return []
        # A method's part is parsed without its class around it.
        owner = unit.class_name if unit.kind == "method" else None
        prefix = f"{owner}." if owner else ""
        return [
            (qualname, in_class, signature)
            for at, qualname, in_class, signature in _definitions_named(nodes.tree.body, name, prefix, owner)
            if at == line
        ]

    def method_sites(
        self,
        name: str,
        family: set[str],
        super_family: set[str] | None = None,
        *,
        within: set[str] | None = None,
    ) -> list[Site]:
        """`<expr>.name` reads, graded by what is known about the receiver.

        exact: `self.name` in a class of `family`, `Cls.name`, `Cls(...).name`, `super().name` in a subclass,
        or a variable whose annotation / constructor is a family class. Accesses whose receiver is known to
        be something else are dropped; the rest are probable (none for a name as common as `get`: both
        checks drop those). `within` limits the files searched.
        """
        grader = _Grader(self, name, family, super_family or family)
        sites: list[Site] = []
        attribute = re.compile(rf"\.\s*{re.escape(name)}\b")
        # Only exact sites count for a name as common as `add`: those name a class of the family (its
        # own methods, `Cls.add`, `x: Cls`, `Cls().add`), so files that name none are not read.
        naming: set[str] | None = None
        if grader.skip_probable:
            self.files()
            leaves = {c.rsplit(".", 1)[-1] for c in grader.family}
            naming = self.index.files_with_any_word(leaves, self._file_set)
        for path in self.files_with_word(name):
            if (within is not None and path not in within) or (naming is not None and path not in naming):
                continue
            if not attribute.search(self.text(path) or ""):
                continue
            module, _, occurrences = self._occurrences(name, path)
            for occurrence in occurrences:
                if occurrence.kind != "attr" or occurrence.store or occurrence.receiver is None:
                    continue
                graded = grader.grade(module, occurrence)
                if graded is None:
                    continue
                evidence, bound, owner = graded
                site = self._site(path, occurrence, evidence=evidence, bound=bound)
                if site is not None:
                    sites.append(replace(site, owner=owner) if owner is not None else site)
        return sites


class _Grader:
    """How sure a `<receiver>.name` read is to reach a method of one of `family`'s classes."""

    def __init__(self, view: RepoView, name: str, family: set[str], super_family: set[str]) -> None:
        self.view = view
        self.name = name
        self.family = {view.names.canonical(c) for c in family} | family
        self.super_family = {view.names.canonical(c) for c in super_family} | super_family
        self.skip_probable = name in COMMON_METHOD_NAMES or name == "__init__"

    def grade(self, module: str, occurrence: Occurrence) -> tuple[Evidence, bool, str | None] | None:
        assert occurrence.receiver is not None
        found = receiver_type(self.view.names.resolver, module, occurrence.receiver)
        if found.kind == "super":
            assert found.owner is not None
            return ("exact", True, None) if str(found.owner) in self.super_family else None
        if found.kind == "self":
            assert found.owner is not None
            owner = str(found.owner)
            if owner in self.family:
                return "exact", True, owner
            reach = self._reach(found.owner)
            if reach == "yes":
                return "exact", True, owner
            return None if reach == "no" else self._probable(owner)
        return self._typed(found)

    def _reach(self, own: Value) -> Literal["yes", "no", "unknown"]:
        """Whether `self.name` in class `own` reaches the family: "yes" through its bases, "no" when the
        class or a repository base on the way defines `name` itself, "unknown" otherwise (a mixin that
        relies on the class it is mixed into, a base from outside the repository)."""
        resolver = self.view.names.resolver
        frontier = [own]
        seen = {own}
        defined = False
        for _step in range(_MAX_REACH):
            if not frontier:
                break
            cls = frontier.pop()
            facts = resolver.class_facts(cls)
            if facts is None:
                continue
            if self.name in (self.view.class_members(str(cls)) or facts.members):
                defined = True
                continue
            for base in facts.bases:
                for value in resolver.chain_values(cls.module, base, None) if base is not None else ():
                    if str(value) in self.family:
                        return "yes"
                    if value not in seen:
                        seen.add(value)
                        frontier.append(value)
        return "no" if defined else "unknown"

    def _probable(self, owner: str | None = None) -> tuple[Evidence, bool, str | None] | None:
        return None if self.skip_probable else ("probable", True, owner)

    def _typed(self, found: ReceiverType) -> tuple[Evidence, bool, str | None] | None:
        instances = {str(v) for v in found.instances}
        classes = {str(v) for v in found.classes}
        if instances & self.family:
            return "exact", True, None
        if classes & self.family:
            return "exact", False, None
        if instances & self.view.ancestors(self.family):
            return self._probable()  # declared as a base class: it may hold one of ours
        if instances or classes or found.modules or found.foreign or found.opaque_call:
            # Something else, or an untyped call result (`current_app.jinja_env.get_template(n).module`).
            return None
        return self._probable()


def _definitions_named(
    body: list[ast.stmt], name: str, prefix: str, owner: str | None = None
) -> list[tuple[int, str, str | None, Signature | None]]:
    """(line, qualname, owning class, signature) of the functions, methods and class attributes named
    `name` in a module's top level and its classes (through if/try blocks)."""
    found: list[tuple[int, str, str | None, Signature | None]] = []
    for node in flat_body(body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            signature = Signature.from_ast(node, in_class=owner is not None)
            found.append((node.lineno, f"{prefix}{name}", owner, signature))
        elif isinstance(node, ast.ClassDef):
            qualname = f"{prefix}{node.name}"
            found.extend(_definitions_named(node.body, name, f"{qualname}.", qualname))
        elif owner is not None and isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                found.append((node.lineno, f"{prefix}{name}", owner, None))
    return found


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


_NEUTRAL_BASES = frozenset({"object", "Generic", "Protocol", "ABC", "NamedTuple", "TypedDict"})


_RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})


def _raises(expr: ast.expr, names: tuple[str, ...]) -> bool:
    if not isinstance(expr, ast.Call) or not expr.args:
        return False
    func = expr.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    first = expr.args[0]
    expected = first.elts if isinstance(first, ast.Tuple) else [first]
    return called in _RAISES and any(getattr(n, "id", getattr(n, "attr", "")) in names for n in expected)


def compiles(text: str, path: str) -> bool:
    """Whether Python accepts the source (compiled, not turned into an AST: no large tree is kept)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _leaf(value: Value) -> str:
    return (value.name or value.module).rsplit(".", 1)[-1]


def _expected_message(expr: ast.expr) -> str | None:
    """The pattern a raises-block asks the message to match: `match="..."`, or the regex argument of
    `assertRaisesRegex`; "" when there is none, None when it is not a plain string."""
    assert isinstance(expr, ast.Call)
    called = expr.func.attr if isinstance(expr.func, ast.Attribute) else getattr(expr.func, "id", "")
    pattern: ast.expr | None = next(
        (k.value for k in expr.keywords if k.arg in ("match", "expected_regex")), None
    )
    if pattern is None and called.startswith("assertRaisesRegex") and len(expr.args) > 1:
        pattern = expr.args[1]
    if pattern is None:
        return ""
    if isinstance(pattern, ast.Constant) and isinstance(pattern.value, str):
        return pattern.value
    return None


def _pattern_finds(pattern: str | None, messages: list[str]) -> bool:
    if not pattern:
        return True  # no message asked for (or one that cannot be read): the error is expected
    try:
        compiled = re.compile(pattern)
    except re.error:
        return True
    return any(compiled.search(message) for message in messages)


def site_name(site: Site) -> str:
    """The identifier a site points at (the callee's name for calls)."""
    node = site.node
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""


def _source(node: ast.expr) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, TypeError, RecursionError):
        return ""


def _base_name(node: ast.Name | ast.Attribute) -> str:
    return node.id if isinstance(node, ast.Name) else node.attr


def provided_elsewhere(view: RepoView, site: Site, name: str, class_aliases: set[str]) -> bool:
    """For `self.name` in a subclass: whether another base of that class (not the changed one) has `name`."""
    if site.owner is None or site.owner in class_aliases:
        return False
    found = view.class_node(site.owner)
    if found is None:
        return False
    stop = class_aliases | {view.names.canonical(c) for c in class_aliases}
    return view.bases_provide(found[0], found[1], name, stop) is not False
