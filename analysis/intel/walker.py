"""Walking one unit's syntax tree for the occurrences of one word: names, attributes with their receivers,
imports and definitions, with the bindings that give each its meaning (resolved later, per query).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal

from prscope.analysis.intel.models import ReferenceKind
from prscope.analysis.intel.scopes import (
    Binding,
    annotation_chain,
    constructor_chain,
    dotted_chain,
    function_bindings,
    guards_imports,
    import_bindings,
    isinstance_narrowing,
    local_assignment,
    module_assignment,
    narrowing_after,
    target_names,
    typed_chain,
)
from prscope.analysis.intel.units import Unit, column_in_file

if TYPE_CHECKING:
    from prscope.analysis.intel.scan import FileScan

_PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)


OccurrenceKind = Literal["name", "attr", "import", "def", "import-module"]
ReceiverKind = Literal["self", "self-attr", "super", "chain", "instance", "unknown"]


_BLOCKS = (ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith)


@dataclass(frozen=True)
class Receiver:
    """What comes before `.word`: `self` / `self.attr` / `super()` in a method of `class_ctx`, a dotted
    `chain`, or an `instance` of what `chain` names (a call's result, a variable typed or narrowed by
    `isinstance`). For chains and instances headed by the method's own first parameter (`self.a.b`,
    `self.make()`), `class_ctx` is the method's class too."""

    kind: ReceiverKind
    chain: tuple[str, ...] = ()
    head_local: tuple[Binding, ...] | None = None  # bindings of chain[0] in enclosing functions; None: module
    class_ctx: str | None = None
    called: bool = False  # an instance that is the result of calling `chain` right there (`f().word`)


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
    narrowed: tuple[tuple[str, tuple[str, ...]], ...] = ()


class Walker:
    """Walks one unit's tree, entering only statements on lines that mention the word."""

    def __init__(self, scan: FileScan, unit: Unit, word: str, relevant: set[int]) -> None:
        self.scan = scan
        self.unit = unit
        self.word = word
        self.relevant = relevant
        self.pending: list[_Pending] = []
        self._function_tables: dict[tuple[int, str], list[Binding] | None] = {}
        self._guard = 0
        self._branch = 0
        self._narrowed: list[dict[str, tuple[str, ...]]] = []

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
        depth = len(self._narrowed)
        for node in body:
            if self._mentions(node):
                self.statement(node, scope)
            narrowed = narrowing_after(node)
            if narrowed:
                self._narrowed.append(narrowed)  # `assert isinstance(x, C)`: x is a C from here on
        del self._narrowed[depth:]

    def _if(self, node: ast.If, scope: _Scope) -> None:
        self.expr(node.test, scope, "name")
        self._branch += 1
        self._narrowed.append(isinstance_narrowing(node.test))
        self.statements(node.body, scope)
        self._narrowed.pop()
        self.statements(node.orelse, scope)
        self._branch -= 1

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
                    scope.word_bindings.append(local_assignment(target, node.value, word))
        elif isinstance(node, ast.Try | ast.TryStar):
            self._try(node, scope)
            return
        elif isinstance(node, ast.If):
            self._if(node, scope)
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
        block = isinstance(node, _BLOCKS)  # its imports are Binding.branch, as the module scan marks them
        self._branch += block
        self.generic(node, scope, "name")
        self._branch -= block

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
        if receiver_node is not None and self._narrowed:
            pending.narrowed = tuple(item for layer in self._narrowed for item in layer.items())
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
                                branch=self._branch > 0,
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
            for name, binding in import_bindings(node, guarded=self._guard > 0, branch=self._branch > 0):
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
                return _unless_global(current.word_bindings)
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
                    return _unless_global(bindings)
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

    def _receiver(
        self, node: ast.expr, scope: _Scope, narrowed: tuple[tuple[str, tuple[str, ...]], ...] = ()
    ) -> Receiver:
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
            local = self._local_bindings_of(chain[0], scope)
            own = self._own_class(chain[0], local, scope)
            return Receiver("instance", chain, local, class_ctx=own, called=True)
        chain = dotted_chain(node)
        if chain is None:
            return Receiver("unknown")
        head = chain[0]
        local = self._local_bindings_of(head, scope)
        if len(chain) == 1 and narrowed:
            found = dict(narrowed).get(head)
            if found is not None:
                return Receiver("instance", found, self._local_bindings_of(found[0], scope))
        own = self._own_class(head, local, scope)
        if own is not None and len(chain) <= 2:
            if len(chain) == 2:
                return Receiver("self-attr", chain[1:], class_ctx=own)
            return Receiver("self", class_ctx=own)
        type_chain = typed_chain(local) if len(chain) == 1 and local is not None else None
        if type_chain is not None:
            type_local = self._local_bindings_of(type_chain[0], scope)
            own_type = self._own_class(type_chain[0], type_local, scope)  # `x = self.make()`
            return Receiver("instance", type_chain, type_local, class_ctx=own_type)
        return Receiver("chain", chain, local, class_ctx=own)

    def _own_class(self, head: str, local: tuple[Binding, ...] | None, scope: _Scope) -> str | None:
        """The method's class when `head` is the method's own first parameter (`self`, `cls`)."""
        method, class_ctx = self._method_scope(scope)
        if method is None or method.is_static or method.first_param != head:
            return None
        rebound = local is not None and any(b.kind not in ("param", "typed") for b in local)
        return None if rebound else class_ctx

    def finish(self) -> list[Occurrence]:
        results: list[Occurrence] = []
        for pending in self.pending:
            receiver = None
            local = None
            if pending.kind == "attr" and pending.receiver_node is not None:
                receiver = self._receiver(pending.receiver_node, pending.scope, pending.narrowed)
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


def _unless_global(bindings: list[Binding]) -> tuple[Binding, ...] | None:
    """A function's bindings of a name; None (the module's) when it declares the name `global`, unless
    the function imports it itself (`global x; from m import x`): that import is what the reads see."""
    if not any(b.kind == "global" for b in bindings):
        return tuple(bindings)
    imported = tuple(b for b in bindings if b.kind in ("import-from", "import-module"))
    return imported or None


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
