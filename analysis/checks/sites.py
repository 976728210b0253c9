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
import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Literal

from prscope.analysis.checks.call_text import call_from_text
from prscope.analysis.checks.class_tree import ClassTree
from prscope.analysis.checks.defs import ModuleDefs, collect
from prscope.analysis.checks.file_nodes import (
    FileNodes,
    ImportSite,
    byte_to_char_col,
    expected_message,
    file_nodes,
    import_sites,
    pattern_finds,
    raises_block,
)
from prscope.analysis.checks.parent_imports import ParentImports
from prscope.analysis.checks.project_tools import ProjectTools, Read
from prscope.analysis.checks.pyversion import target_version
from prscope.analysis.checks.reach import Reach
from prscope.analysis.checks.receivers import COMMON_METHOD_NAMES, Evidence, Grader
from prscope.analysis.checks.resolve import ModuleNames, Names, stdlib_class_has
from prscope.analysis.checks.stores import AttributeStores
from prscope.analysis.checks.tree_memo import TreeMemo
from prscope.analysis.intel.files import attribute_spelling
from prscope.analysis.intel.infer import inference_for, made_outside
from prscope.analysis.intel.infer.values import NONE, ClassRef, Inst, known
from prscope.analysis.intel.lru import Lru
from prscope.analysis.intel.meaning import attribute_values, import_values, name_values
from prscope.analysis.intel.resolve import Value
from prscope.analysis.intel.scan import Occurrence

if TYPE_CHECKING:
    from prscope.analysis.intel import CodeIndex

__all__ = [
    "COMMON_METHOD_NAMES",
    "RepoView",
    "Site",
    "byte_to_char_col",
    "site_name",
    "stdlib_class_has",
]

SiteKind = Literal["import", "call", "attribute", "name", "decorator"]

_MAX_NODE_FILES = 1024
_IMPORT_STATEMENT = re.compile(
    r"^[ \t]*(?:from[ \t]+[.\w]+[ \t]+)?import[ \t]+(?:\([^)]*\)|[^\n]*(?:\\\n[^\n]*)*)", re.MULTILINE
)
_IDENTIFIER = re.compile(r"\*|[A-Za-z_]\w*")
_INIT_ATTRIBUTE = re.compile(r"\.\s*__init__\b")
_NAME_AT_END = re.compile(r"([A-Za-z_]\w*)\s*\Z")
_MAX_ALIAS_ROUNDS = 4


def _names_before_init(text: str) -> set[str]:
    """The names spelled just before `.__init__` in `text`. Found from each `.__init__` backwards: one
    pattern tried at every identifier of a large module took seconds on sqlalchemy."""
    names: set[str] = set()
    for attribute in _INIT_ATTRIBUTE.finditer(text):
        before = _NAME_AT_END.search(text, max(0, attribute.start() - 200), attribute.start())
        if before:
            names.add(before.group(1))
    return names


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
    annotation: bool = False
    """Inside an annotation (Python may never evaluate it: `from __future__ import annotations`)."""

    @property
    def in_string(self) -> bool:
        """A name inside a string annotation (`x: "Flask"`): no node of the tree stands for it."""
        return isinstance(self.node, ast.Name) and self.node.id == ""


class RepoView:
    """Cached lookups over the code index for one check run: files, texts, occurrences and classes."""

    def __init__(self, index: CodeIndex, read: Read | None = None) -> None:
        """`read` gives any file of the reviewed revision by path (the project's configuration)."""
        self.index = index
        self.names = Names(index)
        self._files: list[str] | None = None
        self.file_set: set[str] = set()
        """The repository's Python files (filled by `files()`)."""
        self._defs: dict[str, ModuleDefs | None] = {}
        self._parses: dict[str, bool] = {}
        self._imports: dict[str, set[str]] = {}
        self._nodes: Lru[tuple[str, int, int], FileNodes | None] = Lru(_MAX_NODE_FILES)
        self._lines: dict[str, list[str]] = {}
        self._word_hits: dict[str, dict[str, list[int]]] = {}
        self._raises_blocks: dict[tuple[str, int, tuple[str, ...]], list[tuple[int, int, str | None]]] = {}
        self._explicit_inits: dict[str, set[str]] | None = None
        self.mixin_answers: dict[tuple[str, str], bool] = {}
        """Per changed class and name: whether every subclass gets the name from another base."""
        self.tree_memo = TreeMemo(self.tree)
        """What override-mismatch read from each file's tree (a method's calls, its uses)."""
        self.stores = AttributeStores(self.text, self.tree)
        target = target_version(None, read or _nothing)
        self.minimum_python = target.version if target is not None else None
        """The oldest Python the project declares it supports; None when it declares none, or Python 2."""
        self.python2 = self.minimum_python is None
        """The project may still run under Python 2 (it declares no Python 3-only target)."""
        self.classes = ClassTree(self, python2=self.python2)
        self.added_lines: dict[str, set[int]] = {}
        """Per path, the lines the PR adds (a call written in the PR is written for the new signature)."""
        self.rewritten_lines: dict[str, set[int]] = {}
        """Per path, the added lines that replace removed ones (a call the PR edited in place)."""
        self.trimmed_lines: dict[str, set[int]] = {}
        """Per path, the lines right after a run of lines the PR only deletes (a call it trimmed)."""
        self.parent: ParentImports | None = None
        """Which files already failed on import at the PR's parent (set for a review)."""
        self.reach = Reach(self, ProjectTools(read or _nothing, self.files))
        """Which references nobody would see break (never run and not type-checked; data files)."""

    def files(self) -> list[str]:
        if self._files is None:
            self._files = [p for p in self.index.python_files() if p.endswith((".py", ".pyi"))]
            self.file_set = set(self._files)
        return self._files

    def has_file(self, path: str) -> bool:
        self.files()
        return path in self.file_set

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

    def receiver_classes(self, path: str, call: ast.Call) -> frozenset[str] | None:
        """What the receiver of `x.name(...)` holds, by the shared inference: the dotted classes of the
        repository it may be an instance (or the class) of, `<foreign>` for anything else; None when the
        code does not tell it whole."""
        at = self._called_attribute(path, call)
        types = inference_for(self.names.resolver).receiver(path, *at) if at is not None else None
        if types is None or not known(types):
            return None
        return frozenset(
            str(value.cls) if isinstance(value, Inst | ClassRef) else "<foreign>"
            for value in types
            if value is not NONE
        )

    def receiver_made_outside(self, path: str, call: ast.Call) -> bool:
        """Whether the receiver of `x.name(...)` only holds objects code from outside the repository made
        (`intel.infer.made_outside`)."""
        at = self._called_attribute(path, call)
        return at is not None and made_outside(self.names.resolver, path, *at)

    def _called_attribute(self, path: str, call: ast.Call) -> tuple[int, int, str] | None:
        """(line, column, word) of the `.name` a method call reads, as the inference locates it."""
        func = call.func
        if not isinstance(func, ast.Attribute) or func.end_lineno is None:
            return None
        line = func.end_lineno
        end = byte_to_char_col(self.line_text(path, line), func.end_col_offset or 0) - 1
        return line, end - len(func.attr), func.attr

    def nodes(self, path: str, line: int) -> FileNodes | None:
        """The syntax around `line` (the function, method or statements holding it), by position; the
        most recently used parts are kept."""
        unit = self.index.unit_at(path, line)
        if unit is None:
            return None
        key = (path, unit.start, unit.end)
        if key in self._nodes:
            return self._nodes.recall(key)
        located = self.index.unit_tree(path, line)
        if located is None:
            return None
        key = (path, located[0].start, located[0].end)  # the whole file, when the part did not parse alone
        try:
            found: FileNodes | None = file_nodes(located[1], self.lines(path))
        except RecursionError:
            found = None
        self._nodes.put(key, found)
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
            self._defs[path] = collect(tree, self.text(path)) if tree is not None else None
        return self._defs[path]

    def expects_error(self, site: Site, *names: str, messages: list[str] | None = None) -> bool:
        """Whether the site sits in `with pytest.raises(E)` / `with self.assertRaises(E)` for E in `names`:
        test code that exercises the failure on purpose. With `messages` (what the call now fails with),
        a block that asks for a message (`match=`, `assertRaisesRegex`) expects this failure only when
        its pattern finds one of them."""
        if "aises" not in (self.text(site.path) or ""):
            return False  # neither `raises` nor `assertRaises...` anywhere in the file
        nodes = self.nodes(site.path, site.line)
        if nodes is None:
            return False
        key = (site.path, id(nodes), names)
        blocks = self._raises_blocks.get(key)
        if blocks is None:
            blocks = []
            body = nodes.tree.body
            first, last = (body[0].lineno, body[-1].end_lineno or body[-1].lineno) if body else (1, 0)
            unit_text = self.lines(site.path)[first - 1 : last]
            walked = ast.walk(nodes.tree) if any("aises" in line for line in unit_text) else ()
            for node in walked:
                if isinstance(node, ast.With | ast.AsyncWith):
                    for item in node.items:
                        if raises_block(item.context_expr, names):
                            span = (node.lineno, node.end_lineno or node.lineno)
                            blocks.append((*span, expected_message(item.context_expr)))
            self._raises_blocks[key] = blocks
        return any(
            start <= site.line <= end and (messages is None or pattern_finds(pattern, messages))
            for start, end, pattern in blocks
        )

    def word_hits(self, word: str) -> dict[str, list[int]]:
        """Files that mention `word` as a whole word, with the lines."""
        if word not in self._word_hits:
            self.files()
            try:
                self._word_hits[word] = self.index.word_lines(word, self.file_set)
            except Exception:
                self._word_hits[word] = {}
        return self._word_hits[word]

    def files_with_word(self, word: str) -> list[str]:
        return sorted(self.word_hits(word))

    def files_calling_init(self, class_names: set[str]) -> set[str]:
        """Files that spell `Name.__init__` for one of `class_names` (an explicit constructor call)."""
        if self._explicit_inits is None:
            # Read once per review: every changed constructor asks, and the files are the same.
            self._explicit_inits = {
                path: _names_before_init(self.text(path) or "")
                for path in self.word_hits("__init__")  # the index's grep finds `.__init__` only
            }
        return {path for path, names in self._explicit_inits.items() if names & class_names}

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

    def word_occurrences(self, word: str, path: str) -> tuple[str, bool, list[Occurrence]]:
        """(the file's module, whether it is a package, the occurrences of `word` in its code)."""
        module, is_package = self.index.file_module(path)
        found = self.index.occurrences(path, word, self.word_hits(word).get(path))
        return module, is_package, found or []

    def references(self, aliases: set[str]) -> list[Site]:
        """Import lines, names and attribute accesses anywhere that may resolve to one of `aliases`: a name
        bound by imports chosen at run time (`if os.name == "nt": from .windows import X else: ...`)
        breaks where the removed one is chosen (a guarded import whose handler binds a fallback is not a
        meaning: the resolver drops it). `from m import X as Y` makes the uses of `Y` references too; an
        assignment `Y = X` does not (it is the line that fails, and every read of `Y` fails with it)."""
        targets = {v for a in aliases if (v := self.names.value(a)) is not None}
        sites: list[Site] = []
        words = {leaf(t) for t in targets}
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

    def set_before_use(self, site: Site, name: str) -> bool:
        """Whether the code assigns `<receiver>.name` itself before this read (see `AttributeStores`)."""
        return self.stores.set_before_use(site, name)

    def _references_by_word(self, word: str, targets: set[Value], renamed: set[str]) -> list[Site]:
        resolver = self.names.resolver
        sites: list[Site] = []
        for path in self.files_with_word(word):
            if not self._may_refer_to(path, word, targets):
                continue
            module, is_package, occurrences = self.word_occurrences(word, path)
            for occurrence in occurrences:
                if occurrence.kind == "import":
                    values = import_values(resolver, module, is_package, occurrence)
                elif occurrence.kind == "name":
                    values = name_values(resolver, module, word, occurrence)
                elif occurrence.kind == "attr" and not occurrence.store:
                    values = attribute_values(resolver, module, word, occurrence)
                else:
                    continue
                if not set(values) & targets:
                    continue
                if occurrence.kind == "import" and occurrence.import_asname:
                    renamed.add(occurrence.import_asname)
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

    def imports_word(self, path: str, word: str) -> bool:
        """Whether the file's import statements name `word` (or import everything)."""
        words = self._import_words(path)
        return word in words or "*" in words

    def _import_words(self, path: str) -> set[str]:
        if path not in self._imports:
            found: set[str] = set()
            for match in _IMPORT_STATEMENT.finditer(self.text(path) or ""):
                found.update(_IDENTIFIER.findall(match.group(0)))
            self._imports[path] = found
        return self._imports[path]

    def _reference_accepted(self, path: str, line: int, col: int, accept: Callable[[ast.Call], bool]) -> bool:
        """Whether the call at (line, 1-based col) may be accepted: False only when its own text shows a
        call `accept` rejects."""
        lines = self.lines(path)
        word = _IDENTIFIER.match(lines[line - 1], col - 1) if 0 < line <= len(lines) else None
        call_alone = call_from_text(lines, line, col - 1, word.group()) if word is not None else None
        return call_alone is None or accept(call_alone)

    def _call_accepted(
        self, path: str, occurrence: Occurrence, name: str, accept: Callable[[ast.Call], bool]
    ) -> bool:
        # The call's own text tells its arguments: the function around it is parsed only when needed.
        call_alone = call_from_text(self.lines(path), occurrence.line, occurrence.col, name)
        if call_alone is not None:
            return accept(call_alone)
        nodes = self.nodes(path, occurrence.line)
        node = nodes.at.get((occurrence.line, occurrence.col + 1)) if nodes is not None else None
        call = nodes.call_of.get(id(node)) if nodes is not None and node is not None else None
        return call is not None and accept(call)

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
            return Site(
                path,
                occurrence.line,
                occurrence.col + 1,
                "name",
                ast.Name(id=""),
                None,
                evidence,
                annotation=True,
            )
        call = nodes.call_of.get(id(node))
        kind: SiteKind
        if id(node) in nodes.decorators:
            kind = "decorator"
        elif call is not None:
            kind = "call"
        else:
            kind = "attribute" if isinstance(node, ast.Attribute) else "name"
        annotation = occurrence.role == "annotation"
        return Site(
            path,
            occurrence.line,
            occurrence.col + 1,
            kind,
            node,
            call,
            evidence,
            bound,
            annotation=annotation,
        )

    def import_sites(self, path: str) -> list[ImportSite]:
        """The file's imported names with the dotted paths they import (empty when it does not parse)."""
        tree = self.index.parse(path)
        if tree is None:
            return []
        module, is_package = self.index.file_module(path)
        return import_sites(tree, module, is_package)

    def module_attribute_uses(self, path: str, dotted: str) -> list[Site]:
        """`pkg.mod` read as an attribute (`import pkg` then `pkg.mod.f()`) where it denotes `dotted`."""
        word = dotted.rsplit(".", 1)[-1]
        module, _, occurrences = self.word_occurrences(word, path)
        sites: list[Site] = []
        for occurrence in occurrences:
            if occurrence.kind != "attr" or occurrence.store:
                continue
            values = attribute_values(self.names.resolver, module, word, occurrence)
            if any(str(value) == dotted for value in values):
                site = self._site(path, occurrence)
                if site is not None:
                    sites.append(site)
        return sites

    def call_sites(self, dotted: str, *, calls: Callable[[ast.Call], bool] | None = None) -> list[Site]:
        """Calls of module-level function (or constructor) `dotted`, found by the code index's
        `find_usages` and paired with their call expressions (for binding the arguments). `calls` keeps
        only calls it accepts, judged from the call's own text before the code around it is parsed
        (sqlalchemy's `String(...)`, called 2,000 times)."""
        try:
            result = self.index.find_usages(dotted)
        except Exception:
            return []
        sites: list[Site] = []
        for reference in result.references:
            if reference.kind != "call":
                continue
            if calls is not None and not self._reference_accepted(
                reference.path, reference.line, reference.col, calls
            ):
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
        return self.classes.subclasses(class_aliases, depth=depth)

    def class_members(self, dotted: str) -> set[str] | None:
        """Names a repository class defines (body, methods and `self.X = ...`)."""
        return self.classes.class_members(dotted)

    def class_node(self, dotted: str) -> tuple[ModuleNames, ast.ClassDef] | None:
        return self.names.locate(dotted)

    def ancestors(self, classes: set[str]) -> set[str]:
        """Dotted paths of the repository base classes of `classes` (transitively)."""
        return self.classes.ancestors(classes)

    def provides(self, dotted: str, name: str, stop: set[str], depth: int = 8) -> bool | None:
        """Whether class `dotted` or an ancestor (not passing through `stop`) has `name`; None if unknown."""
        return self.classes.provides(dotted, name, stop, depth)

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
        """Whether a base of `node` has `name`: True, False, or None when a base cannot be inspected (see
        `ClassTree.bases_provide` for `trusted`)."""
        return self.classes.bases_provide(names, node, name, stop, depth, trusted=trusted)

    def method_sites(
        self,
        name: str,
        family: set[str],
        super_family: set[str] | None = None,
        *,
        within: set[str] | None = None,
        exact_only: bool = False,
        calls: Callable[[ast.Call], bool] | None = None,
    ) -> list[Site]:
        """`<expr>.name` reads, graded by what is known about the receiver.

        exact: `self.name` in a class of `family`, `Cls.name`, `Cls(...).name`, `super().name` in a subclass,
        or a variable whose annotation / constructor is a family class. Accesses whose receiver is known to
        be something else are dropped; the rest are probable (none for a name as common as `get`: both
        checks drop those). `within` limits the files searched; `exact_only` drops the probable ones
        before their syntax is looked at (a caller that would drop them anyway: `table.c` is read in
        thousands of places). `calls` keeps only calls it accepts, before their receiver is looked at
        (sqlalchemy's `self.assert_compile(...)`, called 9,000 times, none with the arguments a new
        parameter in the middle would shift).
        """
        grader = Grader(self, name, family, super_family or family, exact_only=exact_only)
        sites: list[Site] = []
        attribute = attribute_spelling(name)
        # Only exact sites count for a name as common as `add` (and receivers declared as a base class of
        # the family): those name a class of the family or a base of it (its own methods, `Cls.add`,
        # `x: Cls`, `Cls().add`, `x: Base`), so files that name none are not read.
        naming: set[str] | None = None
        if grader.skip_probable:
            self.files()
            named = grader.family if exact_only else grader.family | self.ancestors(grader.family)
            leaves = {c.rsplit(".", 1)[-1] for c in named}
            naming = self.index.files_with_any_word(leaves, self.file_set)
        for path in self.files_with_word(name):
            if (within is not None and path not in within) or (naming is not None and path not in naming):
                continue
            if not attribute.search(self.text(path) or ""):
                continue
            module, _, occurrences = self.word_occurrences(name, path)
            for occurrence in occurrences:
                if occurrence.kind != "attr" or occurrence.store or occurrence.receiver is None:
                    continue
                if calls is not None and not self._call_accepted(path, occurrence, name, calls):
                    continue
                graded = grader.grade(module, path, occurrence)
                if graded is None:
                    continue
                evidence, bound, owner = graded
                site = self._site(path, occurrence, evidence=evidence, bound=bound)
                if site is not None:
                    sites.append(replace(site, owner=owner) if owner is not None else site)
        return sites


def _nothing(_path: str) -> str | None:
    return None


def compiles(text: str, path: str) -> bool:
    """Whether Python accepts the source (compiled, not turned into an AST: no large tree is kept)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            compile(text, path, "exec", dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def leaf(value: Value) -> str:
    return (value.name or value.module).rsplit(".", 1)[-1]


def site_name(site: Site) -> str:
    """The identifier a site points at (the callee's name for calls)."""
    node = site.node
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Name):
        return node.id
    return ""
