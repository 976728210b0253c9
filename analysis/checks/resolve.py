"""Import-aware name resolution inside one module, for finding what still refers to a changed symbol.

Every name a module uses is resolved, scope by scope, to a dotted path: `from pkg.mod import X as Y`
makes `Y` mean `pkg.mod.X`, `import pkg.mod as m` makes `m.X` mean `pkg.mod.X`, a module-level `def X`
in `pkg.mod` is `pkg.mod.X`. Modules and their members share one dotted namespace, so "which lines
still refer to `pkg.mod.X`" is a comparison of strings. Bindings are collected flow-insensitively; a
name bound in more than one way in the same scope (an import and an assignment, say) is ambiguous and
resolves to nothing, so a shadowing local or a fallback definition never produces a finding.
"""

from __future__ import annotations

import ast
import builtins
from dataclasses import dataclass, field
from typing import Literal

from analysis.intel.resolve import absolute_module

LOCAL = "<local>"
CLASS_MEMBER = "<class>"
_BUILTIN_NAMES = frozenset(dir(builtins))
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})

ScopeKind = Literal["module", "function", "class", "comprehension"]


@dataclass(eq=False)
class Scope:
    kind: ScopeKind
    node: ast.AST
    parent: Scope | None
    bindings: dict[str, set[str]] = field(default_factory=dict)
    declared_global: set[str] = field(default_factory=set)
    star_imports: list[str] = field(default_factory=list)
    class_node: ast.ClassDef | None = None
    """For a method's scope: the class it is defined in."""
    class_qualname: str = ""
    receiver: str | None = None
    """For a method's scope: the name of its first parameter (`self`, `cls`)."""
    is_static: bool = False
    local_types: dict[str, set[str]] = field(default_factory=dict)
    """Function-local names whose class is known (annotation or `x = Cls(...)`): dotted class paths."""

    def bind(self, name: str, value: str) -> None:
        self.bindings.setdefault(name, set()).add(value)


@dataclass(frozen=True)
class ImportSite:
    """One imported name: `from base import name as bound` or `import dotted as bound`."""

    node: ast.Import | ImportFrom
    alias: ast.alias
    target: str
    bound: str
    guarded: bool
    """Inside `try:` with an `except ImportError` (or broader) handler: a missing name is handled."""


ImportFrom = ast.ImportFrom


class ModuleResolver:
    """Scopes, bindings and dotted resolution for one parsed module."""

    def __init__(self, tree: ast.Module, module: str | None, *, is_package: bool) -> None:
        self.tree = tree
        self.module = module or "__main__"
        self.is_package = is_package
        self.imports: list[ImportSite] = []
        self.scope_of: dict[int, Scope] = {}
        self.classes: list[tuple[ast.ClassDef, str, Scope]] = []
        """Every class: node, qualname inside the module, the scope it is defined in."""
        self.root = Scope("module", tree, None)
        self._dotted_cache: dict[int, str | None] = {}
        self._guard_depth = 0
        self._keepalive: list[ast.AST] = []
        self.by_word: dict[str, list[ast.Name | ast.Attribute]] = {}
        """Every Name and Attribute node, by identifier / attribute name."""
        self.call_of: dict[int, ast.Call] = {}
        """Call nodes keyed by the id of their `func` expression."""
        self.decorators: set[int] = set()
        self._typed: list[tuple[Scope, ast.stmt]] = []
        self._walk_body(tree.body, self.root, "")
        self._collect_local_types()

    def _bind_value(self, scope: Scope, name: str) -> str:
        if scope.kind == "module":
            return f"{self.module}.{name}"
        if scope.kind == "class":
            return CLASS_MEMBER
        return LOCAL

    def _bind(self, scope: Scope, name: str) -> None:
        target = scope
        if name in scope.declared_global:
            target = self.root
        target.bind(name, self._bind_value(target, name))

    def _walk_body(self, body: list[ast.stmt], scope: Scope, qual: str) -> None:
        for stmt in body:
            self._walk_stmt(stmt, scope, qual)

    def _walk_stmt(self, stmt: ast.stmt, scope: Scope, qual: str) -> None:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            self._walk_function(stmt, scope, qual)
        elif isinstance(stmt, ast.ClassDef):
            self._walk_class(stmt, scope, qual)
        elif isinstance(stmt, ast.Import | ast.ImportFrom):
            self._walk_import(stmt, scope)
        elif isinstance(stmt, ast.Global | ast.Nonlocal):
            scope.declared_global.update(stmt.names if isinstance(stmt, ast.Global) else ())
        elif isinstance(stmt, ast.Try | ast.TryStar):
            guarded = any(_catches_import_error(h) for h in stmt.handlers)
            self._guard_depth += guarded
            self._walk_body(stmt.body, scope, qual)
            self._guard_depth -= guarded
            for handler in stmt.handlers:
                if handler.type is not None:
                    self._visit_expr(handler.type, scope)
                if handler.name:
                    self._bind(scope, handler.name)
                self._walk_body(handler.body, scope, qual)
            self._walk_body(stmt.orelse, scope, qual)
            self._walk_body(stmt.finalbody, scope, qual)
        else:
            if isinstance(stmt, ast.AnnAssign):
                for constant in _string_annotations(stmt.annotation):
                    self._visit_string_annotation(constant, scope)
            if isinstance(stmt, ast.AnnAssign | ast.Assign) and scope.kind in ("module", "function"):
                self._typed.append((scope, stmt))
            self._walk_generic(stmt, scope, qual)

    def _walk_generic(self, node: ast.AST, scope: Scope, qual: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.stmt):
                self._walk_stmt(child, scope, qual)
            elif isinstance(child, ast.expr):
                self._visit_expr(child, scope)
            elif isinstance(child, ast.excepthandler | ast.match_case | ast.withitem | ast.comprehension):
                self._walk_generic(child, scope, qual)
            elif isinstance(child, ast.pattern):
                self._visit_pattern(child, scope)
            elif isinstance(child, ast.keyword | ast.arguments | ast.arg | ast.alias):
                self._walk_generic(child, scope, qual)

    def _visit_pattern(self, pattern: ast.pattern, scope: Scope) -> None:
        for node in ast.walk(pattern):
            name = getattr(node, "name", None)
            if isinstance(name, str) and isinstance(node, ast.MatchAs | ast.MatchStar):
                self._bind(scope, name)
            rest = getattr(node, "rest", None)
            if isinstance(rest, str):
                self._bind(scope, rest)
            if isinstance(node, ast.MatchValue | ast.MatchClass):
                expr = node.value if isinstance(node, ast.MatchValue) else node.cls
                self._visit_expr(expr, scope)

    def _walk_function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, scope: Scope, qual: str) -> None:
        for decorator in node.decorator_list:
            self.decorators.add(id(decorator.func if isinstance(decorator, ast.Call) else decorator))
            self._visit_expr(decorator, scope)
        self._visit_arguments_outer(node.args, scope)
        if node.returns is not None:
            self._visit_annotation(node.returns, scope)
        self._bind(scope, node.name)
        inner = Scope("function", node, scope)
        if scope.kind == "class" and isinstance(scope.node, ast.ClassDef):
            inner.class_node = scope.node
            inner.class_qualname = scope.class_qualname
            positional = [*node.args.posonlyargs, *node.args.args]
            decorators = {_decorator_name(d) for d in node.decorator_list}
            inner.is_static = "staticmethod" in decorators
            if positional and not inner.is_static:
                inner.receiver = positional[0].arg
        self.scope_of[id(node)] = inner
        for arg in _all_args(node.args):
            inner.bind(arg.arg, LOCAL)
            if arg.annotation is not None:
                self._visit_annotation(arg.annotation, scope)
        self._walk_body(node.body, inner, f"{qual}{node.name}.<locals>.")

    def _visit_arguments_outer(self, args: ast.arguments, scope: Scope) -> None:
        for default in [*args.defaults, *(d for d in args.kw_defaults if d is not None)]:
            self._visit_expr(default, scope)

    def _walk_class(self, node: ast.ClassDef, scope: Scope, qual: str) -> None:
        for decorator in node.decorator_list:
            self.decorators.add(id(decorator.func if isinstance(decorator, ast.Call) else decorator))
            self._visit_expr(decorator, scope)
        for base in node.bases:
            self._visit_expr(base, scope)
        for keyword in node.keywords:
            self._visit_expr(keyword.value, scope)
        self._bind(scope, node.name)
        inner = Scope("class", node, scope)
        inner.class_qualname = f"{qual}{node.name}"
        self.scope_of[id(node)] = inner
        self.classes.append((node, inner.class_qualname, scope))
        self._walk_body(node.body, inner, f"{qual}{node.name}.")

    def _walk_import(self, node: ast.Import | ast.ImportFrom, scope: Scope) -> None:
        guarded = self._guard_depth > 0
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    bound, target = alias.asname, alias.name
                else:
                    bound = target = alias.name.split(".")[0]
                scope.bind(bound, target)
                self.imports.append(ImportSite(node, alias, alias.name, bound, guarded))
            return
        base = absolute_module(self.module, self.is_package, node.level, node.module)
        if base is None:
            return
        for alias in node.names:
            if alias.name == "*":
                scope.star_imports.append(base)
                continue
            bound = alias.asname or alias.name
            target = f"{base}.{alias.name}"
            scope.bind(bound, target)
            self.imports.append(ImportSite(node, alias, target, bound, guarded))

    def _visit_annotation(self, node: ast.expr, scope: Scope) -> None:
        for constant in _string_annotations(node):
            self._visit_string_annotation(constant, scope)
        self._visit_expr(node, scope)

    def _visit_string_annotation(self, constant: ast.Constant, scope: Scope) -> None:
        """Names inside a string annotation (`x: "Flask"`), placed at their columns in the source line."""
        text = constant.value
        if not isinstance(text, str) or constant.lineno != constant.end_lineno or text != text.strip():
            return
        try:
            parsed = ast.parse(text, mode="eval").body
        except (SyntaxError, ValueError, RecursionError):
            return
        offset = constant.col_offset + 1  # the opening quote
        for inner in ast.walk(parsed):
            if isinstance(inner, ast.expr):
                inner.lineno = inner.end_lineno = constant.lineno
                inner.col_offset += offset
                inner.end_col_offset = (inner.end_col_offset or 0) + offset
        self._keepalive.append(parsed)
        self._visit_expr(parsed, scope)

    def _visit_expr(self, node: ast.expr, scope: Scope) -> None:
        if isinstance(node, ast.Lambda):
            self._visit_arguments_outer(node.args, scope)
            inner = Scope("function", node, scope)
            for arg in _all_args(node.args):
                inner.bind(arg.arg, LOCAL)
            self._visit_expr(node.body, inner)
            return
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp):
            inner = Scope("comprehension", node, scope)
            for index, generator in enumerate(node.generators):
                self._visit_expr(generator.iter, scope if index == 0 else inner)
                self._bind_targets(generator.target, inner)
                for condition in generator.ifs:
                    self._visit_expr(condition, inner)
            elements = [node.key, node.value] if isinstance(node, ast.DictComp) else [node.elt]
            for element in elements:
                self._visit_expr(element, inner)
            return
        if isinstance(node, ast.NamedExpr):
            owner = scope
            while owner.kind == "comprehension" and owner.parent is not None:
                owner = owner.parent
            self._bind(owner, node.target.id)
            self._visit_expr(node.value, scope)
            return
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Store | ast.Del):
                self._bind(scope, node.id)
            else:
                self.scope_of[id(node)] = scope
                self.by_word.setdefault(node.id, []).append(node)
            return
        if isinstance(node, ast.Attribute):
            self.scope_of[id(node)] = scope
            self.by_word.setdefault(node.attr, []).append(node)
        elif isinstance(node, ast.Call):
            self.call_of[id(node.func)] = node
        if isinstance(node, ast.Starred | ast.Tuple | ast.List) and isinstance(
            getattr(node, "ctx", None), ast.Store
        ):
            self._bind_targets(node, scope)
            return
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.expr):
                self._visit_expr(child, scope)
            elif isinstance(child, ast.keyword):
                self._visit_expr(child.value, scope)
            elif isinstance(child, ast.comprehension):
                self._visit_expr(child.iter, scope)

    def _bind_targets(self, target: ast.expr, scope: Scope) -> None:
        if isinstance(target, ast.Name):
            self._bind(scope, target.id)
        elif isinstance(target, ast.Tuple | ast.List):
            for element in target.elts:
                self._bind_targets(element, scope)
        elif isinstance(target, ast.Starred):
            self._bind_targets(target.value, scope)
        else:
            self._visit_expr(target, scope)

    def _collect_local_types(self) -> None:
        """Record what class a name holds, from annotations and `x = Cls(...)`, per function and module."""
        for node_id, scope in list(self.scope_of.items()):
            node = scope.node
            if id(node) != node_id or not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for arg in _all_args(node.args):
                if arg.annotation is not None:
                    self._record_type(scope, arg.arg, arg.annotation, scope.parent or scope)
        for scope, stmt in self._typed:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                self._record_type(scope, stmt.target.id, stmt.annotation, scope)
            elif (
                isinstance(stmt, ast.Assign)
                and len(stmt.targets) == 1
                and isinstance(stmt.targets[0], ast.Name)
                and isinstance(stmt.value, ast.Call)
            ):
                dotted = self.dotted(stmt.value.func)
                if dotted is not None:
                    scope.local_types.setdefault(stmt.targets[0].id, set()).add(dotted)

    def known_types(self, node: ast.Name) -> set[str] | None:
        """Classes the variable read by `node` is known to hold (where it is bound), if any."""
        current: Scope | None = self.scope_at(node)
        first = True
        while current is not None:
            if current.kind == "class" and not first:
                current = current.parent
                continue
            if node.id in current.bindings:
                return current.local_types.get(node.id)
            first = False
            current = current.parent
        return None

    def _record_type(self, scope: Scope, name: str, annotation: ast.expr, where: Scope) -> None:
        for candidate in _annotation_classes(annotation):
            self._keepalive.append(candidate)
            for inner in ast.walk(candidate):
                self.scope_of.setdefault(id(inner), where)
            dotted = self.dotted(candidate)
            if dotted is not None:
                scope.local_types.setdefault(name, set()).add(dotted)

    def lookup(self, scope: Scope, name: str) -> set[str] | None:
        """What `name` may denote where `scope` reads it; None when unbound (builtin or undefined)."""
        current: Scope | None = scope
        if name in scope.declared_global:
            current = self.root
        first = True
        while current is not None:
            if current.kind == "class" and not first:
                current = current.parent
                continue
            if name in current.bindings:
                return current.bindings[name]
            first = False
            current = current.parent
        return None

    def dotted(self, node: ast.expr) -> str | None:
        """The dotted path an expression denotes (`pkg.mod.X`, `pkg.mod.Cls.meth`), when it is certain."""
        key = id(node)
        if key in self._dotted_cache:
            return self._dotted_cache[key]
        result: str | None = None
        if isinstance(node, ast.Name):
            result = self._dotted_name(node)
        elif isinstance(node, ast.Attribute):
            base = self.dotted(node.value)
            result = f"{base}.{node.attr}" if base is not None else None
        self._dotted_cache[key] = result
        return result

    def _dotted_name(self, node: ast.Name) -> str | None:
        scope = self.scope_of.get(id(node), self.root)
        values = self.lookup(scope, node.id)
        if values is None:
            if node.id in _BUILTIN_NAMES or self.root.star_imports:
                return None
            return f"{self.module}.{node.id}"  # an unbound global: what the module would define
        if len(values) != 1:
            return None
        value = next(iter(values))
        return None if value.startswith("<") else value

    def scope_at(self, node: ast.AST) -> Scope:
        return self.scope_of.get(id(node), self.root)

    def enclosing_method(self, node: ast.AST) -> Scope | None:
        """The method scope a Name/Attribute is read in (through nested functions and comprehensions)."""
        scope: Scope | None = self.scope_at(node)
        while scope is not None and scope.kind == "comprehension":
            scope = scope.parent
        if scope is not None and scope.kind == "function" and scope.class_node is not None:
            return scope
        return None

    def nodes_named(self, word: str) -> list[ast.Name | ast.Attribute]:
        """Names and attribute accesses (any context) spelled `word`."""
        return self.by_word.get(word, [])


def _string_annotations(node: ast.expr) -> list[ast.Constant]:
    """String constants of an annotation that are forward references (not `Literal["..."]` values)."""
    if isinstance(node, ast.Constant):
        return [node] if isinstance(node.value, str) else []
    if isinstance(node, ast.Subscript):
        head = node.value
        head_name = head.attr if isinstance(head, ast.Attribute) else getattr(head, "id", "")
        if head_name in ("Literal", "Annotated"):
            return (
                _string_annotations(node.slice.elts[0])
                if head_name == "Annotated" and isinstance(node.slice, ast.Tuple)
                else []
            )
        return [*_string_annotations(node.value), *_string_annotations(node.slice)]
    if isinstance(node, ast.Tuple | ast.List):
        return [c for element in node.elts for c in _string_annotations(element)]
    if isinstance(node, ast.BinOp):
        return [*_string_annotations(node.left), *_string_annotations(node.right)]
    return []


def _catches_import_error(handler: ast.ExceptHandler) -> bool:
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(
        (isinstance(n, ast.Name) and n.id in _IMPORT_ERRORS)
        or (isinstance(n, ast.Attribute) and n.attr in _IMPORT_ERRORS)
        for n in names
    )


def _all_args(args: ast.arguments) -> list[ast.arg]:
    result = [*args.posonlyargs, *args.args, *args.kwonlyargs]
    if args.vararg is not None:
        result.append(args.vararg)
    if args.kwarg is not None:
        result.append(args.kwarg)
    return result


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return ""


def _annotation_classes(annotation: ast.expr) -> list[ast.expr]:
    """The class expressions an annotation names: `C`, `Optional[C]`, `C | None`, `"C"`."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            parsed = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return []
        for inner in ast.walk(parsed):
            ast.copy_location(inner, annotation)
        return _annotation_classes(parsed)
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        return [*_annotation_classes(annotation.left), *_annotation_classes(annotation.right)]
    if isinstance(annotation, ast.Subscript):
        head = annotation.value
        head_name = head.attr if isinstance(head, ast.Attribute) else getattr(head, "id", "")
        if head_name in ("Optional", "Union"):
            inner = annotation.slice
            elements = inner.elts if isinstance(inner, ast.Tuple) else [inner]
            return [c for e in elements for c in _annotation_classes(e)]
        return []
    if isinstance(annotation, ast.Name | ast.Attribute):
        return [annotation]
    return []
