"""Where the repository (at the reviewed head) still refers to a symbol: imports, names, calls, methods.

Built on the code index: calls of functions and constructors come from its import-aware `find_usages`
(paired here with their call expressions); the other references (removed names, methods reached through
`self` or a typed receiver) still go through `ModuleResolver`. Either way a colliding name (`get`,
`update`) only counts where the imports say it is ours.
"""

from __future__ import annotations

import ast
import importlib
import re
import sys
import threading
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from analysis.checks.context import parse_python
from analysis.checks.defs import ModuleDefs, collect
from analysis.checks.resolve import ModuleResolver
from analysis.intel.resolve import absolute_module
from analysis.intel.signatures import Signature

if TYPE_CHECKING:
    from analysis.intel import CodeIndex

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


_IMPORT_STATEMENT = re.compile(
    r"^[ \t]*(?:from[ \t]+[.\w]+[ \t]+)?import[ \t]+(?:\([^)]*\)|[^\n]*(?:\\\n[^\n]*)*)", re.MULTILINE
)
_IDENTIFIER = re.compile(r"\*|[A-Za-z_]\w*")


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


class RepoView:
    """Cached per-file resolvers and text lookups over the code index."""

    def __init__(self, index: CodeIndex) -> None:
        self.index = index
        self._lock = threading.Lock()
        self._files: list[str] | None = None
        self._resolvers: dict[str, ModuleResolver | None] = {}
        self._defs: dict[str, ModuleDefs | None] = {}
        self._import_words: dict[str, set[str]] = {}
        self._top_imports: dict[str, list[tuple[str, str]]] = {}
        self._ancestors: dict[frozenset[str], set[str]] = {}
        self._lines: dict[str, list[str]] = {}
        self._word_hits: dict[str, list[str]] = {}
        self._module_map: dict[str, str] | None = None
        self._raises_blocks: dict[tuple[str, tuple[str, ...]], list[tuple[int, int]]] = {}
        self.added_lines: dict[str, set[int]] = {}
        """Per path, the lines the PR adds (a call written in the PR is written for the new signature)."""
        self._top_packages: set[str] | None = None
        self._call_positions: dict[str, dict[tuple[int, int], ast.Call]] = {}

    def files(self) -> list[str]:
        if self._files is None:
            self._files = [p for p in self.index.python_files() if p.endswith((".py", ".pyi"))]
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
        text = self.text(path)
        return parse_python(text, path) if text is not None else None

    def resolver(self, path: str) -> ModuleResolver | None:
        if path not in self._resolvers:
            tree = self.tree(path)
            resolver = None
            if tree is not None:
                try:
                    resolver = ModuleResolver(
                        tree, self.module(path), is_package=path.endswith("__init__.py")
                    )
                except RecursionError:
                    resolver = None
            self._resolvers[path] = resolver
        return self._resolvers[path]

    def defs(self, path: str) -> ModuleDefs | None:
        if path not in self._defs:
            resolver = self.resolver(path)
            self._defs[path] = collect(resolver.tree) if resolver is not None else None
        return self._defs[path]

    def expects_error(self, site: Site, *names: str) -> bool:
        """Whether the site sits in `with pytest.raises(E)` / `with self.assertRaises(E)` for E in `names`:
        test code that exercises the failure on purpose."""
        key = (site.path, names)
        spans = self._raises_blocks.get(key)
        if spans is None:
            spans = []
            resolver = self.resolver(site.path)
            for node in ast.walk(resolver.tree) if resolver is not None else []:
                if isinstance(node, ast.With | ast.AsyncWith) and any(
                    _raises(item.context_expr, names) for item in node.items
                ):
                    spans.append((node.lineno, node.end_lineno or node.lineno))
            self._raises_blocks[key] = spans
        return any(start <= site.line <= end for start, end in spans)

    def import_words(self, path: str) -> set[str]:
        """Identifiers written in the file's import statements (a cheap filter before parsing it)."""
        if path not in self._import_words:
            words: set[str] = set()
            for match in _IMPORT_STATEMENT.finditer(self.text(path) or ""):
                words.update(_IDENTIFIER.findall(match.group(0)))
            self._import_words[path] = words
        return self._import_words[path]

    def may_refer_to(self, path: str, aliases: set[str]) -> bool:
        """Whether the file can refer to one of `aliases` (imports the name or its module, or is it)."""
        module = self.module(path)
        words = self.import_words(path)
        if "*" in words:
            return True
        for alias in aliases:
            owner, _, name = alias.rpartition(".")
            if owner == module or name in words or owner.rsplit(".", 1)[-1] in words:
                return True
        return False

    def files_with_word(self, word: str) -> list[str]:
        if word not in self._word_hits:
            pattern = re.compile(rf"\b{re.escape(word)}\b")
            hits = []
            for path in self.files():
                text = self.text(path)
                if text is not None and word in text and pattern.search(text):
                    hits.append(path)
            self._word_hits[word] = hits
        return self._word_hits[word]

    def module_path(self, module: str) -> str | None:
        if self._module_map is None:
            table: dict[str, str] = {}
            for path in self.files():
                name = self.module(path)
                if name is not None:
                    table.setdefault(name, path)
            self._module_map = table
        return self._module_map.get(module)

    def is_repo_module(self, dotted: str) -> bool:
        """Whether a dotted path starts inside the repository (a package or module it holds)."""
        self.module_path("")
        assert self._module_map is not None
        if self._top_packages is None:
            self._top_packages = {name.split(".")[0] for name in self._module_map}
        return dotted.split(".")[0] in self._top_packages

    def site_for(
        self,
        resolver: ModuleResolver,
        path: str,
        node: ast.AST,
        *,
        evidence: Evidence = "exact",
        bound: bool = True,
    ) -> Site:
        call = resolver.call_of.get(id(node))
        if isinstance(node, ast.Attribute):
            line = node.end_lineno or node.lineno
            end_col = node.end_col_offset or 0
            text = self.line_text(path, line)
            col = byte_to_char_col(text, end_col) - len(node.attr)
        else:
            line = getattr(node, "lineno", 1)
            col = byte_to_char_col(self.line_text(path, line), getattr(node, "col_offset", 0))
        kind: SiteKind
        if id(node) in resolver.decorators:
            kind = "decorator"
        elif call is not None:
            kind = "call"
        else:
            kind = "attribute" if isinstance(node, ast.Attribute) else "name"
        return Site(path, line, max(1, col), kind, node, call, evidence, bound)

    def aliases(self, dotted: str) -> set[str]:
        """Every dotted path that denotes the same object: the definition plus re-exports of it
        (module-level imports of it in other modules, followed a few levels)."""
        found = {dotted}
        frontier = {dotted}
        for _round in range(4):
            names = {d.rsplit(".", 1)[-1] for d in frontier}
            new: set[str] = set()
            for name in names:
                for path in self.files_with_word(name):
                    if name not in self.import_words(path):
                        continue
                    module = self.module(path)
                    if module is None:
                        continue
                    for target, bound in self.top_level_imports(path):
                        alias = f"{module}.{bound}"
                        if target in frontier and alias not in found:
                            new.add(alias)
            if not new:
                break
            found |= new
            frontier = new
        return found

    def top_level_imports(self, path: str) -> list[tuple[str, str]]:
        """(target, bound name) of a module's top-level imports, parsed statement by statement."""
        if path not in self._top_imports:
            module = self.module(path)
            result: list[tuple[str, str]] = []
            for match in _IMPORT_STATEMENT.finditer(self.text(path) or ""):
                statement = match.group(0)
                if statement[:1].isspace():
                    continue  # indented: inside a function, class or TYPE_CHECKING block
                try:
                    node = ast.parse(statement).body[0]
                except (SyntaxError, IndexError, ValueError):
                    continue
                if isinstance(node, ast.ImportFrom):
                    base = absolute_module(module, path.endswith("__init__.py"), node.level, node.module)
                    if base is None:
                        continue
                    result.extend(
                        (f"{base}.{a.name}", a.asname or a.name) for a in node.names if a.name != "*"
                    )
                elif isinstance(node, ast.Import):
                    result.extend((a.name, a.asname) for a in node.names if a.asname)
            self._top_imports[path] = result
        return self._top_imports[path]

    def references(self, aliases: set[str]) -> list[Site]:
        """Import lines, names and attribute accesses anywhere that resolve to one of `aliases`."""
        sites: list[Site] = []
        words = {a.rsplit(".", 1)[-1] for a in aliases}
        paths: set[str] = set()
        for word in words:
            paths.update(self.files_with_word(word))
        for path in sorted(paths):
            if not self.may_refer_to(path, aliases):
                continue
            resolver = self.resolver(path)
            if resolver is None:
                continue
            for imported in resolver.imports:
                if imported.target in aliases:
                    line = getattr(imported.alias, "lineno", imported.node.lineno)
                    col = byte_to_char_col(
                        self.line_text(path, line), getattr(imported.alias, "col_offset", 0)
                    )
                    sites.append(
                        Site(path, line, col, "import", imported.node, None, guarded=imported.guarded)
                    )
            for word in words:
                for node in resolver.nodes_named(word):
                    if isinstance(node.ctx, ast.Load) and resolver.dotted(node) in aliases:
                        sites.append(self.site_for(resolver, path, node))
        return sites

    def call_sites(self, dotted: str) -> list[Site]:
        """Calls of module-level function `dotted`, found by the code index's import-aware `find_usages`
        and paired with their call expressions (for binding the arguments)."""
        try:
            result = self.index.find_usages(dotted)
        except Exception:
            return []
        sites: list[Site] = []
        for reference in result.references:
            if reference.kind != "call":
                continue
            call = self._calls_at(reference.path).get((reference.line, reference.col))
            if call is not None:
                sites.append(Site(reference.path, reference.line, reference.col, "call", call.func, call))
        return sites

    def _calls_at(self, path: str) -> dict[tuple[int, int], ast.Call]:
        """The file's calls of plain or dotted names, by where the callee's name starts (line, column)."""
        if path not in self._call_positions:
            positions: dict[tuple[int, int], ast.Call] = {}
            try:
                tree = self.index.parse(path)
            except Exception:
                tree = None
            for node in ast.walk(tree) if tree is not None else []:
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name | ast.Attribute):
                    func = node.func
                    if isinstance(func, ast.Attribute):
                        line = func.end_lineno or func.lineno
                        col = byte_to_char_col(self.line_text(path, line), func.end_col_offset or 0)
                        positions[(line, col - len(func.attr))] = node
                    else:
                        col = byte_to_char_col(self.line_text(path, func.lineno), func.col_offset)
                        positions[(func.lineno, col)] = node
            self._call_positions[path] = positions
        return self._call_positions[path]

    def subclasses(self, class_aliases: set[str], *, depth: int = 5) -> set[str]:
        """`class_aliases` plus the repository's classes inheriting from them (up to `depth` levels)."""
        family = set(class_aliases)
        frontier = set(class_aliases)
        for _round in range(depth):
            words = {d.rsplit(".", 1)[-1] for d in frontier}
            new: set[str] = set()
            alternatives = "|".join(sorted(re.escape(w) for w in words))
            class_text = re.compile(rf"^[ \t]*class\s+\w+\s*\([^)]*\b(?:{alternatives})\b", re.MULTILINE)
            for word in words:
                for path in self.files_with_word(word):
                    if not self.may_refer_to(path, frontier) or not class_text.search(self.text(path) or ""):
                        continue
                    resolver = self.resolver(path)
                    module = self.module(path)
                    if resolver is None or module is None:
                        continue
                    for node, qualname, _scope in resolver.classes:
                        if any(resolver.dotted(base) in frontier for base in node.bases):
                            dotted = f"{module}.{qualname}"
                            if dotted not in family:
                                new.add(dotted)
            if not new:
                break
            family |= new
            frontier = new
        return family

    def class_members(self, dotted: str) -> set[str] | None:
        """Names a repository class defines (body and `self.X = ...`), looked up by its dotted path."""
        module, _, qualname = dotted.rpartition(".")
        leaf = re.compile(rf"^[ \t]*class[ \t]+{re.escape(dotted.rsplit('.', 1)[-1])}\b", re.MULTILINE)
        while module:
            path = self.module_path(module)
            if path is not None and leaf.search(self.text(path) or ""):
                defs = self.defs(path)
                if defs is not None and qualname in defs.class_members:
                    return defs.class_members[qualname]
            module, _, head = module.rpartition(".")
            qualname = f"{head}.{qualname}"
        return None

    def class_node(self, dotted: str) -> tuple[ModuleResolver, ast.ClassDef] | None:
        module, _, qualname = dotted.rpartition(".")
        leaf = re.compile(rf"^[ \t]*class[ \t]+{re.escape(dotted.rsplit('.', 1)[-1])}\b", re.MULTILINE)
        while module:
            path = self.module_path(module)
            has_class = path is not None and leaf.search(self.text(path) or "") is not None
            resolver = self.resolver(path) if path is not None and has_class else None
            if resolver is not None:
                for node, class_qualname, _scope in resolver.classes:
                    if class_qualname == qualname:
                        return resolver, node
            module, _, head = module.rpartition(".")
            qualname = f"{head}.{qualname}"
        return None

    def ancestors(self, classes: set[str]) -> set[str]:
        """Dotted paths of the repository base classes of `classes` (transitively)."""
        key = frozenset(classes)
        cached = self._ancestors.get(key)
        if cached is not None:
            return cached
        found: set[str] = set()
        frontier = set(classes)
        for _depth in range(8):
            bases: set[str] = set()
            for dotted in frontier:
                located = self.class_node(dotted)
                if located is None:
                    continue
                resolver, node = located
                for base in node.bases:
                    base_dotted = resolver.dotted(base.value if isinstance(base, ast.Subscript) else base)
                    if base_dotted is not None and base_dotted not in found:
                        bases.add(base_dotted)
            found |= bases
            frontier = bases
            if not frontier:
                break
        self._ancestors[key] = found
        return found

    def provides(self, dotted: str, name: str, stop: set[str], depth: int = 8) -> bool | None:
        """Whether class `dotted` or an ancestor (not passing through `stop`) has `name`; None if unknown."""
        if dotted in stop:
            return False
        if depth <= 0:
            return None
        found = self.class_node(dotted)
        if found is None:
            return stdlib_class_has(dotted, name)
        resolver, node = found
        members = self.class_members(dotted) or set()
        if name in members:
            return True
        return self.bases_provide(resolver, node, name, stop, depth - 1)

    def bases_provide(
        self,
        resolver: ModuleResolver,
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
            dotted = resolver.dotted(base)
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
        """Functions, methods and class attributes named `name` outside `exclude_classes` (dotted)."""
        found: list[tuple[str, str, Signature | None]] = []
        definition_text = re.compile(rf"\bdef\s+{re.escape(name)}\b|\b{re.escape(name)}\s*[:=]")
        for path in self.files_with_word(name):
            if not definition_text.search(self.text(path) or ""):
                continue
            defs = self.defs(path)
            module = self.module(path) or path
            if defs is None:
                continue
            for qualname, info in defs.defs.items():
                if info.name != name or info.kind == "class":
                    continue
                owner = f"{module}.{info.class_qualname}" if info.class_qualname else None
                if owner is not None and owner in exclude_classes:
                    continue
                found.append((path, qualname, info.signature))
            for class_qualname, members in defs.class_members.items():
                owner = f"{module}.{class_qualname}"
                if (
                    name in members
                    and owner not in exclude_classes
                    and f"{class_qualname}.{name}" not in defs.defs
                ):
                    found.append((path, f"{class_qualname}.{name}", None))
            resolver = self.resolver(path)
            if resolver is not None and any(
                isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
                for n in resolver.nodes_named(name)
            ):
                found.append((path, f"<attribute {name}>", None))
        return found

    def method_sites(
        self,
        name: str,
        family: set[str],
        super_family: set[str] | None = None,
        *,
        within: set[str] | None = None,
    ) -> list[Site]:
        """`<expr>.name` accesses, graded by what is known about the receiver.

        exact: `self.name` in a class of `family`, `Cls.name`, `Cls(...).name`, `super().name` in a subclass,
        or a variable whose annotation / constructor is a family class. Accesses whose receiver is known to
        be something else are dropped; the rest are probable. `within` limits the files searched.
        """
        sites: list[Site] = []
        attribute = re.compile(rf"\.\s*{re.escape(name)}\b")
        for path in self.files_with_word(name):
            if within is not None and path not in within:
                continue
            if not attribute.search(self.text(path) or ""):
                continue
            resolver = self.resolver(path)
            module = self.module(path)
            if resolver is None:
                continue
            for node in resolver.nodes_named(name):
                if not isinstance(node, ast.Attribute) or not isinstance(node.ctx, ast.Load):
                    continue
                graded = self._grade(resolver, module, node, family, super_family or family)
                if graded is None:
                    continue
                evidence, bound = graded
                site = self.site_for(resolver, path, node, evidence=evidence, bound=bound)
                method = resolver.enclosing_method(node)
                if (
                    method is not None
                    and module is not None
                    and isinstance(node.value, ast.Name)
                    and node.value.id == method.receiver
                ):
                    site = replace(site, owner=f"{module}.{method.class_qualname}")
                sites.append(site)
        return sites

    def _grade(
        self,
        resolver: ModuleResolver,
        module: str | None,
        node: ast.Attribute,
        family: set[str],
        super_family: set[str],
    ) -> tuple[Evidence, bool] | None:
        value = node.value
        types = resolver.known_types(value) if isinstance(value, ast.Name) else None
        if types:
            if types & family:
                return "exact", True
            if types & self.ancestors(family):
                return "probable", True  # declared as a base class: it may hold one of ours
            if any(self.class_node(t) is not None for t in types):
                return None
        dotted = resolver.dotted(node)
        if dotted is not None:
            owner = dotted.rsplit(".", 1)[0]
            if owner in family:
                return "exact", False
            if not self.is_repo_module(owner) or self.module_path(owner) is not None:
                return None  # an external module's attribute, or a module-level function of ours
            if self.class_members(owner) is not None:
                return None  # another class of the repository
            return "probable", True  # a module-level instance
        method = resolver.enclosing_method(node)
        if isinstance(value, ast.Name):
            if method is not None and value.id == method.receiver and module is not None:
                values = resolver.lookup(resolver.scope_at(node), value.id)
                if values == {"<local>"}:
                    own_class = f"{module}.{method.class_qualname}"
                    if own_class in family:
                        return "exact", True
                    members = self.class_members(own_class)
                    if members is not None and node.attr in members:
                        return None
                    return "probable", True
            return "probable", True
        if isinstance(value, ast.Call):
            func = value.func
            if (
                isinstance(func, ast.Name)
                and func.id == "super"
                and method is not None
                and module is not None
            ):
                own_class = f"{module}.{method.class_qualname}"
                return ("exact", True) if own_class in super_family else None
            called = resolver.dotted(func)
            if called is not None:
                return ("exact", True) if called in family else None
        return "probable", True


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


def stdlib_class_has(dotted: str, name: str) -> bool | None:
    """Whether a standard-library class has attribute `name`; None when it cannot be told.

    Only modules of the standard library are imported (they run no repository or third-party code).
    """
    module_name, _, class_name = dotted.rpartition(".")
    if not module_name or module_name.split(".")[0] not in sys.stdlib_module_names:
        return None
    try:
        module = importlib.import_module(module_name)
        cls = getattr(module, class_name)
    except (ImportError, AttributeError, ValueError):
        return None
    return hasattr(cls, name) if isinstance(cls, type) else None


def provided_elsewhere(view: RepoView, site: Site, name: str, class_aliases: set[str]) -> bool:
    """For `self.name` in a subclass: whether another base of that class (not the changed one) has `name`."""
    if site.owner is None or site.owner in class_aliases:
        return False
    found = view.class_node(site.owner)
    if found is None:
        return False
    return view.bases_provide(found[0], found[1], name, class_aliases) is not False
