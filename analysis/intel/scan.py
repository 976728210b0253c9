"""Per-file scanning: module-level facts (bindings, classes, `__all__`, star imports) and the occurrences
of one word, each extracted from only the units that need parsing. Results are keyed by content digest.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

from analysis.intel.models import ReferenceKind
from analysis.intel.scopes import (
    Binding,
    alias_chain,
    annotation_chain,
    constructor_chain,
    dotted_chain,
    element_chain,
    function_bindings,
    guards_imports,
    import_bindings,
    target_names,
)
from analysis.intel.units import Segmentation, Unit, column_in_file, parse_unit, segment, sparse_source

# ast.parse raises RecursionError / MemoryError on pathologically nested code instead of SyntaxError.
_PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)
_STAR_IMPORT = re.compile(r"[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\*")


@dataclass
class ClassFacts:
    name: str
    line: int
    end_line: int
    bases: list[tuple[str, ...] | None] = field(default_factory=list)
    members: set[str] = field(default_factory=set)
    # `attr: C` in the class body, `self.attr = C(...)` / `self.attr = param` (param: C) in __init__
    attribute_types: dict[str, tuple[str, ...]] = field(default_factory=dict)


@dataclass
class ModuleFacts:
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    star_imports: list[tuple[str, int]] = field(default_factory=list)
    all_names: set[str] | None = None
    classes: dict[str, ClassFacts] = field(default_factory=dict)
    syntax_error: str | None = None

    def add(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)


class FileScan:
    """One file version, split into units; parses units on demand and never keeps their trees."""

    def __init__(self, path: str, text: str, digest: str) -> None:
        self.path = path
        self.digest = digest
        self.seg: Segmentation = segment(text)
        self.whole = False
        self.syntax_error: str | None = None
        self._star_imports: list[tuple[str, int]] | None = None

    def star_imports(self) -> list[tuple[str, int]]:
        """(module, level) of each `from module import *` (found by text, anywhere at statement start)."""
        if self._star_imports is None:
            found: list[tuple[str, int]] = []
            for line in self.seg.lines:
                if "*" in line and "import" in line:
                    match = _STAR_IMPORT.match(line)
                    if match is not None:
                        found.append((match.group(2), len(match.group(1))))
            self._star_imports = found
        return self._star_imports

    @property
    def lines(self) -> list[str]:
        return self.seg.lines

    def line_text(self, line: int) -> str:
        if 1 <= line <= len(self.seg.lines):
            return self.seg.lines[line - 1].rstrip("\r\n")
        return ""

    def _fall_back_to_whole(self) -> ast.Module | None:
        """A unit did not parse alone: parse the whole file (and record a genuine syntax error)."""
        self.whole = True
        self.seg.units = [Unit("whole", 0, len(self.seg.lines))]
        try:
            return ast.parse("".join(self.seg.lines))
        except _PARSE_ERRORS as exc:
            self.syntax_error = _describe_syntax_error(exc)
            self.seg.units = []
            return None

    def trees(
        self, wanted: list[Unit], sparse: dict[int, set[int]] | None = None
    ) -> Iterator[tuple[Unit, ast.Module]]:
        """Parsed trees of the wanted units; on a unit that does not parse alone, the whole file's tree.

        `sparse` maps a unit's start line to the file lines (0-based) the caller needs: such a unit is
        parsed with its other body statements blanked out when that is safe.
        """
        parsed: list[tuple[Unit, ast.Module]] = []
        for unit in wanted:
            keep = sparse.get(unit.start) if sparse else None
            if keep is not None and unit.kind in ("function", "method"):
                text = sparse_source(self.seg, unit, keep)
                if text is not None:
                    try:
                        parsed.append((unit, ast.parse(text)))
                        continue
                    except _PARSE_ERRORS:
                        pass
            try:
                parsed.append((unit, parse_unit(self.seg.lines, unit)))
            except _PARSE_ERRORS as exc:
                if unit.kind == "whole":
                    self.syntax_error = self.syntax_error or _describe_syntax_error(exc)
                    return
                tree = self._fall_back_to_whole()
                if tree is not None:
                    yield self.seg.units[0], tree
                return
        yield from parsed

    def whole_tree(self) -> ast.Module | None:
        try:
            return ast.parse("".join(self.seg.lines))
        except _PARSE_ERRORS as exc:
            self.syntax_error = _describe_syntax_error(exc)
            return None


def _describe_syntax_error(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"line {exc.lineno}: {exc.msg}"
    if isinstance(exc, RecursionError | MemoryError):
        return "nested too deeply to parse"
    return str(exc) or type(exc).__name__


def module_facts(scan: FileScan) -> ModuleFacts:
    """Module-level bindings, star imports and `__all__`; classes only when the whole file was parsed
    (otherwise `class_facts` parses one class header on demand)."""
    facts = ModuleFacts()
    structural = [u for u in scan.seg.units if u.kind in ("module", "whole")]
    for unit in scan.seg.units:
        if unit.kind == "function" and unit.name:
            facts.add(unit.name, Binding("def", line=unit.start + 1))
        elif unit.kind == "class-header" and unit.name:
            facts.add(unit.name, Binding("class", line=unit.start + 1))
    for unit, tree in scan.trees(structural):
        offset = unit.start
        _collect_module_level(tree.body, facts, offset, unit)
    if scan.syntax_error is not None:
        facts.syntax_error = scan.syntax_error
        return facts
    return facts


def class_facts(scan: FileScan, name: str) -> ClassFacts | None:
    """Bases and members of the top-level class `name`, parsing only its header unit."""
    headers = [u for u in scan.seg.units if u.kind == "class-header" and u.name == name]
    if scan.whole or not headers:
        if not scan.whole:
            return None
        facts = ModuleFacts()
        tree = scan.whole_tree()
        if tree is not None:
            _collect_module_level(tree.body, facts, 0, scan.seg.units[0])
        return facts.classes.get(name)
    facts = ModuleFacts()
    for unit, tree in scan.trees(headers[-1:]):
        _collect_module_level(tree.body, facts, unit.start, unit)
    if scan.whole:
        return class_facts(scan, name)
    found = facts.classes.get(name)
    if found is not None:
        for unit in scan.seg.units:
            if unit.kind == "method" and unit.class_name == name and unit.name:
                found.members.add(unit.name)
                found.end_line = max(found.end_line, unit.end)
        inits = [
            u for u in scan.seg.units if u.kind == "method" and u.class_name == name and u.name == "__init__"
        ]
        for _unit, tree in scan.trees(inits[-1:]):
            for stmt in tree.body:
                if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                    _init_attribute_types(stmt, found.attribute_types)
        if scan.whole:
            return class_facts(scan, name)
    return found


def _init_attribute_types(
    node: ast.FunctionDef | ast.AsyncFunctionDef, types: dict[str, tuple[str, ...]]
) -> None:
    positional = [*node.args.posonlyargs, *node.args.args]
    if not positional:
        return
    receiver = positional[0].arg
    params: dict[str, tuple[str, ...]] = {}
    for arg in [*positional[1:], *node.args.kwonlyargs]:
        annotated = annotation_chain(arg.annotation)
        if annotated is not None:
            params[arg.arg] = annotated
    stack: list[ast.stmt] = list(node.body)
    while stack:
        stmt = stack.pop()
        targets: list[ast.expr] = []
        chain: tuple[str, ...] | None = None
        if isinstance(stmt, ast.Assign):
            targets = stmt.targets
            value = stmt.value
            chain = constructor_chain(value) or (
                params.get(value.id) if isinstance(value, ast.Name) else None
            )
        elif isinstance(stmt, ast.AnnAssign):
            targets = [stmt.target]
            chain = annotation_chain(stmt.annotation) or constructor_chain(stmt.value)
        for target in targets:
            if (
                chain is not None
                and isinstance(target, ast.Attribute)
                and isinstance(target.value, ast.Name)
                and target.value.id == receiver
            ):
                types.setdefault(target.attr, chain)
        for block_name in ("body", "orelse", "finalbody"):
            block = getattr(stmt, block_name, None)
            if isinstance(block, list):
                stack.extend(block)


def _collect_module_level(
    body: list[ast.stmt], facts: ModuleFacts, offset: int, unit: Unit, *, guarded: bool = False
) -> None:
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            for name, binding in import_bindings(node, guarded=guarded):
                facts.add(name, binding)
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                facts.star_imports.append((node.module or "", node.level))
        elif isinstance(node, ast.ClassDef):
            facts.add(node.name, Binding("class", line=node.lineno + offset))
            facts.classes[node.name] = _class_facts_of(node, offset)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            facts.add(node.name, Binding("def", line=node.lineno + offset))
        elif isinstance(node, ast.Try | ast.TryStar):
            _collect_module_level(node.body, facts, offset, unit, guarded=guarded or guards_imports(node))
            for block in [*[h.body for h in node.handlers], node.orelse, node.finalbody]:
                _collect_module_level(block, facts, offset, unit, guarded=guarded)
        elif isinstance(node, ast.If | ast.With | ast.For | ast.While):
            for block in _blocks(node):
                _collect_module_level(block, facts, offset, unit, guarded=guarded)
        else:
            for name in _statement_names(node):
                if name == "__all__":
                    facts.all_names = (facts.all_names or set()) | _all_names(node)
                    continue
                facts.add(name, module_assignment(node, name, node.lineno + offset))


def module_assignment(node: ast.stmt, name: str, line: int) -> Binding:
    """How a module-level assignment binds `name`: an alias (`X = XImpl`), an instance (`app = Flask()`,
    kept as "other" with the constructor's chain), or something else."""
    value = getattr(node, "value", None)
    single = isinstance(node, ast.Assign | ast.AnnAssign) and target_names(_first_target(node)) == [name]
    if single and isinstance(_first_target(node), ast.Name):
        aliased = alias_chain(value)
        if aliased is not None:
            return Binding("alias", chain=aliased, line=line)
    return Binding("other", chain=constructor_chain(value) or (), line=line)


def _first_target(node: ast.stmt) -> ast.expr:
    if isinstance(node, ast.Assign):
        return node.targets[0] if len(node.targets) == 1 else ast.Tuple(elts=[])
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return node.target
    return ast.Tuple(elts=[])


def _class_facts_of(node: ast.ClassDef, offset: int) -> ClassFacts:
    cls = ClassFacts(node.name, node.lineno + offset, (node.end_lineno or node.lineno) + offset)
    # `Base[T]`, `List[Entry]`: the class is derived from the subscripted one.
    cls.bases = [dotted_chain(base.value if isinstance(base, ast.Subscript) else base) for base in node.bases]
    for stmt in node.body:
        cls.members.update(_statement_names(stmt))
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            annotated = annotation_chain(stmt.annotation)
            if annotated is not None:
                cls.attribute_types.setdefault(stmt.target.id, annotated)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == "__init__":
            _init_attribute_types(stmt, cls.attribute_types)
    return cls


def _blocks(node: ast.If | ast.With | ast.For | ast.While) -> list[list[ast.stmt]]:
    if isinstance(node, ast.With):
        return [node.body]
    return [node.body, node.orelse]


def _statement_names(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [n for target in node.targets for n in target_names(target)]
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return target_names(node.target)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [name for name, _ in import_bindings(node)]
    return []


def _all_names(node: ast.stmt) -> set[str]:
    value = getattr(node, "value", None)
    if isinstance(value, ast.List | ast.Tuple):
        return {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


OccurrenceKind = Literal["name", "attr", "import", "def", "import-module"]
ReceiverKind = Literal["self", "self-attr", "super", "chain", "instance", "unknown"]


@dataclass(frozen=True)
class Receiver:
    kind: ReceiverKind
    chain: tuple[str, ...] = ()
    head_local: tuple[Binding, ...] | None = None  # bindings of chain[0] in enclosing functions; None: module
    class_ctx: str | None = None


@dataclass(frozen=True)
class Occurrence:
    line: int  # 1-based, in the file
    col: int  # 0-based code points, in the file line
    kind: OccurrenceKind
    role: ReferenceKind
    local: tuple[Binding, ...] | None = None  # bindings of the word in enclosing functions; None: module
    receiver: Receiver | None = None
    import_module: str = ""
    import_level: int = 0
    import_name: str = ""
    import_asname: str | None = None
    class_ctx: str | None = None  # for defs: the class (dotted) the def is directly in
    scope_depth: int = 0  # number of enclosing functions
    store: bool = False  # an attribute assigned or deleted (`x.word = ...`), not read


@dataclass
class WordScan:
    occurrences: list[Occurrence]
    syntax_error: str | None = None
    module_bindings: list[Binding] = field(default_factory=list)  # how the module itself binds the word


def scan_word(scan: FileScan, word: str, grep_lines: list[int] | None) -> WordScan:
    """Every occurrence of `word` in code (names, attributes, imports, definitions) in the file."""
    pattern = re.compile(r"(?<![\w])" + re.escape(word) + r"(?![\w])")
    if grep_lines is None:
        grep_lines = [i + 1 for i, line in enumerate(scan.lines) if word in line and pattern.search(line)]
    code_lines = [n for n in grep_lines if not _is_doctest_or_comment(scan.line_text(n))]
    occurrences: list[Occurrence] = []
    module_bindings: list[Binding] = []
    if not code_lines:
        return WordScan(occurrences)
    wanted = _units_containing(scan, code_lines)
    sparse = _sparse_plan(scan, wanted, code_lines, word)
    for unit, tree in scan.trees(wanted, sparse):
        relevant = {n - unit.start for n in code_lines if unit.start < n <= unit.end}
        if unit.kind == "whole":
            relevant = set(code_lines)
        walker = _Walker(scan, unit, word, relevant)
        try:
            walker.walk_module(tree)
            found = walker.finish()
        except RecursionError:
            return WordScan([], f"line {unit.start + 1}: expression nested too deeply to analyse")
        occurrences.extend(found)
        module_bindings.extend(walker.module_scope.word_bindings)
    if scan.syntax_error is not None:
        return WordScan([], scan.syntax_error)
    occurrences.sort(key=lambda o: (o.line, o.col))
    return WordScan(occurrences, module_bindings=module_bindings)


_DOCTEST = re.compile(r"[ \t]*(?:>>>|\.\.\.|#)")


def _sparse_plan(scan: FileScan, wanted: list[Unit], code_lines: list[int], word: str) -> dict[int, set[int]]:
    """Lines to keep when parsing function and method units sparsely: those mentioning the word, and
    for `receiver.word` those mentioning the receiver's head name too (they hold its bindings). A
    receiver that is not a plain dotted name (`f(x).word`) needs the whole unit."""
    attribute = re.compile(r"(\S?)\s*\.\s*" + re.escape(word) + r"(?![\w])")
    plan: dict[int, set[int]] = {}
    for unit in wanted:
        if unit.kind not in ("function", "method"):
            continue
        keep = {n - 1 for n in code_lines if unit.start < n <= unit.end}
        heads: set[str] = set()
        whole = False
        for number in keep:
            text = scan.lines[number]
            for match in attribute.finditer(text):
                head = _receiver_head(text, match.start(0) + len(match.group(1)))
                if head is None:
                    whole = True
                elif head not in ("self", "cls"):
                    heads.add(head)
        if whole:
            continue
        if heads:
            pattern = re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, sorted(heads))) + r")(?![\w])")
            keep |= {n for n in range(unit.start, unit.end) if pattern.search(scan.lines[n])}
        plan[unit.start] = keep
    return plan


_HEAD = re.compile(r"([A-Za-z_][\w]*)((?:\s*\.\s*[A-Za-z_]\w*)*)\s*$")


def _receiver_head(text: str, dot: int) -> str | None:
    """The first name of the dotted receiver ending just before `dot` (None when it is not a name)."""
    match = _HEAD.search(text[:dot])
    if match is None:
        return None
    head = match.group(1)
    before = text[: match.start(1)].rstrip()
    if before.endswith(".") or head in ("super",):
        return None
    return head


def _is_doctest_or_comment(line: str) -> bool:
    return _DOCTEST.match(line) is not None


def _units_containing(scan: FileScan, code_lines: list[int]) -> list[Unit]:
    units = scan.seg.units
    wanted: list[Unit] = []
    index = 0
    for line in sorted(code_lines):
        zero = line - 1
        while index < len(units) and units[index].end <= zero:
            index += 1
        if (
            index < len(units)
            and units[index].start <= zero
            and (not wanted or wanted[-1] is not units[index])
        ):
            wanted.append(units[index])
    return wanted


@dataclass
class _Scope:
    kind: Literal["module", "function", "class", "comprehension"]
    node: ast.AST | None
    parent: _Scope | None
    class_name: str | None = None  # dotted class path for class scopes
    word_bindings: list[Binding] = field(default_factory=list)
    first_param: str | None = None
    is_static: bool = False


@dataclass
class _Pending:
    line: int
    col: int
    kind: OccurrenceKind
    role: ReferenceKind
    scope: _Scope
    receiver_node: ast.expr | None = None
    import_module: str = ""
    import_level: int = 0
    import_name: str = ""
    import_asname: str | None = None
    class_ctx: str | None = None
    store: bool = False


class _Walker:
    """Walks one unit's tree, entering only statements on lines that mention the word."""

    def __init__(self, scan: FileScan, unit: Unit, word: str, relevant: set[int]) -> None:
        self.scan = scan
        self.unit = unit
        self.word = word
        self.relevant = relevant
        self.pending: list[_Pending] = []
        self._function_tables: dict[tuple[int, str], list[Binding] | None] = {}
        self._guard = 0

    def walk_module(self, tree: ast.Module) -> None:
        self.module_scope = _Scope("module", tree, None)
        root = self.module_scope
        if self.unit.kind == "method" and self.unit.class_name:
            # A method unit is parsed alone; its class body is represented by an empty class scope.
            root = _Scope("class", None, self.module_scope, class_name=self.unit.class_name)
        self.statements(tree.body, root)

    def _mentions(self, node: ast.stmt) -> bool:
        end = node.end_lineno or node.lineno
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and node.decorator_list:
            start = min(d.lineno for d in node.decorator_list)
            return any(start <= line <= end for line in self.relevant)
        return (
            any(node.lineno <= line <= end for line in self.relevant)
            if end - node.lineno > 8
            else any(line in self.relevant for line in range(node.lineno, end + 1))
        )

    def statements(self, body: list[ast.stmt], scope: _Scope) -> None:
        for node in body:
            if self._mentions(node):
                self.statement(node, scope)

    def statement(self, node: ast.stmt, scope: _Scope) -> None:
        word = self.word
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            for decorator in node.decorator_list:
                self.expr(decorator, scope, "decorator")
            self.arguments(node.args, scope)
            if node.returns is not None:
                self.expr(node.returns, scope, "annotation")
            if node.name == word:
                self._definition(node, scope)
                scope.word_bindings.append(Binding("def", line=node.lineno))
            inner = _Scope("function", node, scope)
            positional = [*node.args.posonlyargs, *node.args.args]
            inner.first_param = positional[0].arg if positional else None
            inner.is_static = any(dotted_chain(d) == ("staticmethod",) for d in node.decorator_list)
            for arg in [*positional, *node.args.kwonlyargs, node.args.vararg, node.args.kwarg]:
                if arg is not None and arg.arg == word:
                    chain = annotation_chain(arg.annotation)
                    inner.word_bindings.append(Binding("typed", chain=chain) if chain else Binding("param"))
            self.statements(node.body, inner)
            return
        if isinstance(node, ast.ClassDef):
            for decorator in node.decorator_list:
                self.expr(decorator, scope, "decorator")
            for base in node.bases:
                self.expr(base, scope, "name")
            for keyword in node.keywords:
                self.expr(keyword.value, scope, "name")
            if node.name == word:
                self._definition(node, scope)
                scope.word_bindings.append(Binding("class", line=node.lineno))
            outer = self._class_path(scope)
            inner = _Scope("class", node, scope, class_name=f"{outer}.{node.name}" if outer else node.name)
            self.statements(node.body, inner)
            return
        if isinstance(node, ast.Import | ast.ImportFrom):
            self._import(node, scope)
            return
        if isinstance(node, ast.Global | ast.Nonlocal):
            if word in node.names:
                scope.word_bindings.append(Binding("global"))
            return
        if isinstance(node, ast.AnnAssign):
            self.expr(node.annotation, scope, "annotation")
            self.expr(node.target, scope, "name")
            if node.value is not None:
                self.expr(node.value, scope, "name")
            if isinstance(node.target, ast.Name) and node.target.id == word:
                if scope.kind == "module":
                    scope.word_bindings.append(module_assignment(node, word, node.lineno))
                else:
                    chain = annotation_chain(node.annotation) or constructor_chain(node.value)
                    scope.word_bindings.append(Binding("typed", chain=chain) if chain else Binding("other"))
            return
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if word not in target_names(target):
                    continue
                if scope.kind == "module":
                    scope.word_bindings.append(module_assignment(node, word, node.lineno))
                else:
                    chain = element_chain(target, node.value, word)
                    scope.word_bindings.append(Binding("typed", chain=chain) if chain else Binding("other"))
        elif isinstance(node, ast.Try | ast.TryStar):
            self._try(node, scope)
            return
        elif isinstance(node, ast.For | ast.AsyncFor | ast.AugAssign):
            if word in target_names(node.target):
                scope.word_bindings.append(Binding("other"))
        elif isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None and word in target_names(item.optional_vars):
                    scope.word_bindings.append(Binding("other"))
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                if word in target_names(target):
                    scope.word_bindings.append(Binding("other"))
        self.generic(node, scope, "name")

    def _try(self, node: ast.Try | ast.TryStar, scope: _Scope) -> None:
        """The body's imports are guarded when a handler catches ImportError (its fallback binds too)."""
        for handler in node.handlers:
            if handler.name == self.word:
                scope.word_bindings.append(Binding("other"))
        guard = guards_imports(node)
        self._guard += guard
        self.statements(node.body, scope)
        self._guard -= guard
        for handler in node.handlers:
            self.child(handler, scope, "name", "handlers")
        self.statements(node.orelse, scope)
        self.statements(node.finalbody, scope)

    def generic(self, node: ast.AST, scope: _Scope, role: ReferenceKind) -> None:
        for field_name, value in ast.iter_fields(node):
            if isinstance(value, list):
                if value and isinstance(value[0], ast.stmt):
                    self.statements(value, scope)
                    continue
                for item in value:
                    if isinstance(item, ast.AST):
                        self.child(item, scope, role, field_name)
            elif isinstance(value, ast.AST):
                self.child(value, scope, role, field_name)

    def child(self, node: ast.AST, scope: _Scope, role: ReferenceKind, field_name: str) -> None:
        if isinstance(node, ast.expr):
            self.expr(node, scope, role)
        elif isinstance(node, ast.stmt):
            if self._mentions(node):
                self.statement(node, scope)
        elif isinstance(node, ast.ExceptHandler):
            if node.type is not None:
                self.expr(node.type, scope, "name")
            if node.name == self.word:
                scope.word_bindings.append(Binding("other"))
            self.statements(node.body, scope)
        elif isinstance(node, ast.arguments):
            self.arguments(node, scope)
        elif isinstance(node, ast.match_case):
            self.generic(node, scope, role)
        else:
            self.generic(node, scope, role)

    def arguments(self, args: ast.arguments, scope: _Scope) -> None:
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None and arg.annotation is not None:
                self.expr(arg.annotation, scope, "annotation")
        for default in [*args.defaults, *args.kw_defaults]:
            if default is not None:
                self.expr(default, scope, "name")

    def expr(self, node: ast.expr, scope: _Scope, role: ReferenceKind) -> None:
        word = self.word
        if isinstance(node, ast.Name):
            if node.id == word:
                if isinstance(node.ctx, ast.Load):
                    self._add(node.lineno, node.col_offset, "name", role, scope)
                elif isinstance(node.ctx, ast.Store) and scope.kind == "comprehension":
                    scope.word_bindings.append(Binding("other"))
                elif isinstance(node.ctx, ast.Store) and scope.kind == "function":
                    pass  # recorded by the statement that binds it
            return
        if isinstance(node, ast.Attribute):
            if node.attr == word:
                end_line = node.end_lineno or node.lineno
                end_col = node.end_col_offset or 0
                line_text = self._unit_line(end_line)
                col = _attr_col(line_text, end_col, word)
                attr_role: ReferenceKind = (
                    role if role in ("call", "decorator", "annotation") else "attribute"
                )
                self._add(
                    end_line,
                    col,
                    "attr",
                    attr_role,
                    scope,
                    receiver_node=node.value,
                    store=not isinstance(node.ctx, ast.Load),
                )
            self.expr(node.value, scope, "annotation" if role == "annotation" else "name")
            return
        if isinstance(node, ast.Call):
            self.expr(node.func, scope, "decorator" if role == "decorator" else "call")
            for arg in node.args:
                self.expr(arg, scope, "name")
            for keyword in node.keywords:
                self.expr(keyword.value, scope, "name")
            return
        if isinstance(node, ast.Constant):
            if role == "annotation" and isinstance(node.value, str) and word in node.value:
                self._string_annotation(node, scope)
            return
        if isinstance(node, ast.Lambda):
            inner = _Scope("function", node, scope)
            for lambda_arg in [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]:
                if lambda_arg.arg == word:
                    inner.word_bindings.append(Binding("param"))
            for default in [*node.args.defaults, *node.args.kw_defaults]:
                if default is not None:
                    self.expr(default, scope, "name")
            self.expr(node.body, inner, "name")
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            inner = _Scope("comprehension", node, scope)
            for generator in node.generators:
                for name in target_names(generator.target):
                    if name == word:
                        inner.word_bindings.append(Binding("other"))
            for index, generator in enumerate(node.generators):
                self.expr(generator.iter, scope if index == 0 else inner, "name")
                for condition in generator.ifs:
                    self.expr(condition, inner, "name")
            if isinstance(node, ast.DictComp):
                self.expr(node.key, inner, "name")
                self.expr(node.value, inner, "name")
            else:
                self.expr(node.elt, inner, "name")
            return
        if isinstance(node, ast.NamedExpr):
            if isinstance(node.target, ast.Name) and node.target.id == word:
                target_scope = scope
                while target_scope.kind == "comprehension" and target_scope.parent is not None:
                    target_scope = target_scope.parent
                target_scope.word_bindings.append(Binding("other"))
            self.expr(node.value, scope, role)
            return
        inner_role: ReferenceKind = "annotation" if role == "annotation" else "name"
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self.expr(child, scope, inner_role)
            elif isinstance(child, ast.AST):
                self.child(child, scope, inner_role, "")

    def _unit_line(self, unit_line: int) -> str:
        index = self.unit.start + unit_line - 1
        if 0 <= index < len(self.scan.lines):
            line = self.scan.lines[index]
            if self.unit.indent and line.startswith(self.unit.indent):
                return line[len(self.unit.indent) :]
            return line
        return ""

    def _file_position(self, unit_line: int, byte_col: int) -> tuple[int, int]:
        """(1-based file line, 0-based code-point column in the file line) for a unit position."""
        text = self._unit_line(unit_line)
        col = byte_col
        if not text.isascii():
            col = len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))
        return self.unit.start + unit_line, column_in_file(self.scan.lines, self.unit, unit_line, col)

    def _add(
        self,
        unit_line: int,
        byte_col: int,
        kind: OccurrenceKind,
        role: ReferenceKind,
        scope: _Scope,
        receiver_node: ast.expr | None = None,
        **extra: object,
    ) -> None:
        line, col = self._file_position(unit_line, byte_col)
        pending = _Pending(line, col, kind, role, scope, receiver_node=receiver_node)
        for key, value in extra.items():
            setattr(pending, key, value)
        self.pending.append(pending)

    def _definition(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, scope: _Scope) -> None:
        text = self._unit_line(node.lineno)
        keyword = "class" if isinstance(node, ast.ClassDef) else "def"
        match = re.search(rf"\b{keyword}\s+({re.escape(node.name)})\b", text)
        byte_col = len(text[: match.start(1)].encode("utf-8")) if match else node.col_offset
        class_ctx = self._class_path(scope) if scope.kind == "class" else None
        self._add(node.lineno, byte_col, "def", "definition", scope, class_ctx=class_ctx)

    def _class_path(self, scope: _Scope | None) -> str | None:
        while scope is not None:
            if scope.kind == "class":
                return scope.class_name
            scope = scope.parent
        return None

    def _import(self, node: ast.Import | ast.ImportFrom, scope: _Scope) -> None:
        word = self.word
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name == word or alias.asname == word:
                    if alias.name == word:
                        self._add(
                            alias.lineno,
                            alias.col_offset,
                            "import",
                            "import",
                            scope,
                            import_module=node.module or "",
                            import_level=node.level,
                            import_name=alias.name,
                            import_asname=alias.asname,
                        )
                    if (alias.asname or alias.name) == word:
                        scope.word_bindings.append(
                            Binding(
                                "import-from",
                                module=node.module or "",
                                level=node.level,
                                name=alias.name,
                                guarded=self._guard > 0,
                            )
                        )
            if node.module and word in node.module.split("."):
                self._add(
                    node.lineno,
                    node.col_offset,
                    "import-module",
                    "import",
                    scope,
                    import_module=node.module,
                    import_level=node.level,
                )
            return
        for alias in node.names:
            parts = alias.name.split(".")
            if word in parts:
                offset = len(".".join(parts[: parts.index(word)])) + (1 if parts.index(word) else 0)
                self._add(
                    alias.lineno,
                    alias.col_offset + offset,
                    "import-module",
                    "import",
                    scope,
                    import_module=alias.name,
                    import_asname=alias.asname,
                )
            for name, binding in import_bindings(node, guarded=self._guard > 0):
                if name == word and binding.module in (alias.name, parts[0]):
                    scope.word_bindings.append(binding)

    def _string_annotation(self, node: ast.Constant, scope: _Scope) -> None:
        if node.end_lineno != node.lineno or not isinstance(node.value, str):
            return
        try:
            inner = ast.parse(node.value.strip(), mode="eval")
        except _PARSE_ERRORS:
            return
        text = self._unit_line(node.lineno)
        start = len(text.encode("utf-8")[: node.col_offset].decode("utf-8", "replace"))
        for sub in ast.walk(inner):
            if isinstance(sub, ast.Name) and sub.id == self.word:
                match = re.compile(rf"(?<![\w]){re.escape(self.word)}(?![\w])").search(text, start)
                if match is not None:
                    byte_col = len(text[: match.start()].encode("utf-8"))
                    self._add(node.lineno, byte_col, "name", "annotation", scope)
                return

    def _function_bindings_of(self, node: ast.AST, name: str) -> list[Binding] | None:
        """The bindings of one name in one function, from the statements on lines that mention it."""
        key = (id(node), name)
        if key not in self._function_tables:
            assert isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            pattern = re.compile(r"(?<![\w])" + re.escape(name) + r"(?![\w])")
            start, end = node.lineno, node.end_lineno or node.lineno
            lines = {n for n in range(start, end + 1) if pattern.search(self._unit_line(n))}
            table = function_bindings(node, only=name, lines=lines)
            self._function_tables[key] = table.get(name)
        return self._function_tables[key]

    def _local_bindings_of_word(self, scope: _Scope) -> tuple[Binding, ...] | None:
        current: _Scope | None = scope
        first = True
        while current is not None and current.kind != "module":
            if current.kind == "class" and not first:
                current = current.parent
                continue
            if current.word_bindings:
                if any(b.kind == "global" for b in current.word_bindings):
                    return None
                return tuple(current.word_bindings)
            first = False
            current = current.parent
        return None

    def _local_bindings_of(self, name: str, scope: _Scope) -> tuple[Binding, ...] | None:
        current: _Scope | None = scope
        first = True
        while current is not None and current.kind != "module":
            if current.kind == "function" and current.node is not None:
                bindings = self._function_bindings_of(current.node, name)
                if bindings:
                    if any(b.kind == "global" for b in bindings):
                        return None
                    return tuple(bindings)
            elif current.kind == "class" and first and isinstance(current.node, ast.ClassDef):
                pass
            first = False
            current = current.parent
        return None

    def _method_scope(self, scope: _Scope) -> tuple[_Scope | None, str | None]:
        """The outermost function directly inside a class (or the unit's method), and that class."""
        current: _Scope | None = scope
        found: tuple[_Scope | None, str | None] = (None, None)
        while current is not None:
            if current.kind == "function" and current.parent is not None:
                parent = current.parent
                if parent.kind == "class":
                    return current, parent.class_name
            current = current.parent
        return found

    def _receiver(self, node: ast.expr, scope: _Scope) -> Receiver:
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "super"
            and not node.args
        ):
            _, class_ctx = self._method_scope(scope)
            return Receiver("super", class_ctx=class_ctx)
        if isinstance(node, ast.Call):
            chain = dotted_chain(node.func)
            if chain is None:
                return Receiver("unknown")
            return Receiver("instance", chain, self._local_bindings_of(chain[0], scope))
        chain = dotted_chain(node)
        if chain is None:
            return Receiver("unknown")
        head = chain[0]
        local = self._local_bindings_of(head, scope)
        if len(chain) <= 2:
            method, class_ctx = self._method_scope(scope)
            if method is not None and not method.is_static and method.first_param == head:
                rebound = local is not None and any(b.kind not in ("param", "typed") for b in local)
                if not rebound:
                    if len(chain) == 2:
                        return Receiver("self-attr", chain[1:], class_ctx=class_ctx)
                    return Receiver("self", class_ctx=class_ctx)
        if len(chain) == 1 and local is not None:
            typed = [b for b in local if b.kind == "typed" and b.chain]
            if typed and len(typed) == len(local):
                type_chain = typed[-1].chain
                return Receiver("instance", type_chain, self._local_bindings_of(type_chain[0], scope))
        return Receiver("chain", chain, local)

    def finish(self) -> list[Occurrence]:
        results: list[Occurrence] = []
        for pending in self.pending:
            receiver = None
            local = None
            if pending.kind == "attr" and pending.receiver_node is not None:
                receiver = self._receiver(pending.receiver_node, pending.scope)
            elif pending.kind in ("name", "def"):
                local = self._local_bindings_of_word(pending.scope)
            results.append(
                Occurrence(
                    line=pending.line,
                    col=pending.col,
                    kind=pending.kind,
                    role=pending.role,
                    local=local,
                    receiver=receiver,
                    import_module=pending.import_module,
                    import_level=pending.import_level,
                    import_name=pending.import_name,
                    import_asname=pending.import_asname,
                    class_ctx=pending.class_ctx,
                    scope_depth=_function_depth(pending.scope),
                    store=pending.store,
                )
            )
        return results


def _function_depth(scope: _Scope | None) -> int:
    depth = 0
    while scope is not None:
        if scope.kind == "function":
            depth += 1
        scope = scope.parent
    return depth


def _attr_col(line_text: str, end_byte_col: int, word: str) -> int:
    """Byte column where an attribute's name starts, given the byte column where the attribute ends."""
    encoded = line_text.encode("utf-8")
    start = end_byte_col - len(word.encode("utf-8"))
    if encoded[start:end_byte_col].decode("utf-8", "replace") == word:
        return start
    found = encoded.rfind(word.encode("utf-8"), 0, end_byte_col)
    return found if found >= 0 else max(start, 0)
