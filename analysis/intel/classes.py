"""Classes as the index knows them: bases, members and the declared types of instance attributes, read
from the class's header unit (and `__init__`) without parsing the rest of its file; return annotations of
functions and methods; what a method assigns to `self.attr`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from prscope.analysis.intel.scopes import (
    annotation_chain,
    class_bases,
    constructor_chain,
    dotted_chain,
    import_bindings,
    statement_names,
)

if TYPE_CHECKING:
    from prscope.analysis.intel.scan import FileScan


@dataclass
class ClassFacts:
    name: str
    line: int
    end_line: int
    bases: list[tuple[str, ...] | None] = field(default_factory=list)
    members: set[str] = field(default_factory=set)
    # `attr: C` in the class body, `self.attr = C(...)` / `self.attr = param` (param: C) in __init__
    attribute_types: dict[str, tuple[str, ...]] = field(default_factory=dict)


def class_facts(scan: FileScan, name: str) -> ClassFacts | None:
    """Bases and members of the top-level class `name`, parsing only its header unit."""
    headers = [u for u in scan.seg.units if u.kind == "class-header" and u.name == name]
    if scan.whole or not headers:
        if not scan.whole:
            return None
        if scan.whole_classes is None:
            tree = scan.whole_tree()
            scan.whole_classes = _top_level_classes(tree.body) if tree is not None else {}
        return scan.whole_classes.get(name)
    found: ClassFacts | None = None
    for unit, tree in scan.trees(headers[-1:]):
        node = _top_level_class(tree.body, name)
        if node is not None:
            found = class_facts_of(node, unit.start)
    if scan.whole:
        return class_facts(scan, name)
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
                    attribute_assignments(stmt, found.attribute_types)
        if scan.whole:
            return class_facts(scan, name)
    return found


def attribute_assignments(
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


def _top_level_classes(body: list[ast.stmt]) -> dict[str, ClassFacts]:
    """Facts of each module-level class (the last of a name, looking into if/try/with blocks)."""
    return {node.name: class_facts_of(node, 0) for node in _module_level_classes(body)}


def _top_level_class(body: list[ast.stmt], name: str) -> ast.ClassDef | None:
    """The last module-level `class name` (looking into if/try/with blocks)."""
    found: ast.ClassDef | None = None
    for node in _module_level_classes(body):
        if node.name == name:
            found = node
    return found


def _module_level_classes(body: list[ast.stmt]) -> Iterator[ast.ClassDef]:
    """Module-level class statements in source order, those under if/try/with/for/while blocks too."""
    for node in body:
        if isinstance(node, ast.ClassDef):
            yield node
        elif isinstance(node, ast.If | ast.Try | ast.TryStar | ast.With | ast.For | ast.While):
            blocks = [node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])]
            blocks += [h.body for h in getattr(node, "handlers", [])]
            for block in blocks:
                yield from _module_level_classes(block)


def class_facts_of(node: ast.ClassDef, offset: int) -> ClassFacts:
    cls = ClassFacts(node.name, node.lineno + offset, (node.end_lineno or node.lineno) + offset)
    # `Base[T]`, `List[Entry]`: the class is derived from the subscripted one.
    cls.bases = [
        dotted_chain(base.value if isinstance(base, ast.Subscript) else base) for base in class_bases(node)
    ]
    for stmt in node.body:
        cls.members.update(statement_names(stmt))
        if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            annotated = annotation_chain(stmt.annotation)
            if annotated is not None:
                cls.attribute_types.setdefault(stmt.target.id, annotated)
        elif isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == "__init__":
            attribute_assignments(stmt, cls.attribute_types)
    return cls


SELF_RETURN = ("<Self>",)
"""What `function_returns` gives for a method annotated `-> Self`."""


def function_returns(scan: FileScan, qualname: str) -> tuple[str, ...] | None:
    """The class a function (`f`) or a top-level class's method (`Cls.meth`) is annotated to return."""
    class_name, _, name = qualname.rpartition(".")
    if "." in class_name:
        return None
    kind = "method" if class_name else "function"
    units = [
        u
        for u in scan.seg.units
        if (u.kind == kind and u.name == name and (u.class_name or "") == class_name) or u.kind == "whole"
    ]
    for _unit, tree in scan.trees(units[-1:]):
        body = tree.body
        if scan.whole and class_name:
            owner = _top_level_class(body, class_name)
            body = owner.body if owner is not None else []
        for node in body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                chain = annotation_chain(node.returns)
                if chain is not None and chain[-1] == "Self" and class_name:
                    return SELF_RETURN  # `-> Self`: an instance of the class it is called on
                return chain
    return None


def assigned_attribute(scan: FileScan, class_name: str, attr: str) -> tuple[str, ...] | None:
    """The class a top-level class's methods assign to `self.attr` (`self.pool = Pool(...)`), when one
    says so: any method, not only `__init__`."""
    pattern = re.compile(rf"\.\s*{re.escape(attr)}\s*(?::[^=]*)?=(?!=)")
    units = [
        u
        for u in scan.seg.units
        if u.kind == "method"
        and u.class_name == class_name
        and any(pattern.search(line) for line in scan.seg.lines[u.start : u.end])
    ]
    for _unit, tree in scan.trees(units):
        for node in tree.body:
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                found: dict[str, tuple[str, ...]] = {}
                attribute_assignments(node, found)
                if attr in found:
                    return found[attr]
    return None


def local_class_facts(scan: FileScan, name: str) -> ClassFacts | None:
    """A class defined inside a function (tests often subclass there), named `Name@line` (the line of its
    `class` statement: a file may define several local classes of one name), or `Name` when the file
    defines exactly one indented `class Name`."""
    bare, _, at = name.partition("@")
    pattern = re.compile(rf"[ \t]+class[ \t]+{re.escape(bare)}\b")
    if at:
        lines = [int(at) - 1] if at.isdigit() and pattern.match(scan.line_text(int(at))) else []
    else:
        lines = [i for i, text in enumerate(scan.lines) if pattern.match(text)]
    if len(lines) != 1:
        return None
    line = lines[0]
    units = [u for u in scan.seg.units if u.start <= line < u.end]
    for unit, tree in scan.trees(units[:1]):
        start = 0 if unit.kind == "whole" else unit.start
        for node, functions in _classes_with_enclosing_functions(tree):
            if node.name == bare and node.lineno + start == line + 1:
                facts = class_facts_of(node, start)
                imported = _imports_before(functions, node.lineno)
                facts.bases = [_imported_head(base, imported) for base in facts.bases]
                return facts
    return None


LOCAL_IMPORT = "<import>"
"""Head of a base chain whose first name a function-local import binds (`from astroid import bases` in
the function defining `class Bound(bases.BoundMethod)`): `<import>level:module:name`, read by the
resolver's `chain_values` as that import."""


def _classes_with_enclosing_functions(
    tree: ast.AST,
) -> list[tuple[ast.ClassDef, list[ast.FunctionDef | ast.AsyncFunctionDef]]]:
    found: list[tuple[ast.ClassDef, list[ast.FunctionDef | ast.AsyncFunctionDef]]] = []
    pending: list[tuple[ast.AST, list[ast.FunctionDef | ast.AsyncFunctionDef]]] = [(tree, [])]
    while pending:
        node, functions = pending.pop()
        if isinstance(node, ast.ClassDef):
            found.append((node, functions))
        inner = [*functions, node] if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) else functions
        pending.extend((child, inner) for child in ast.iter_child_nodes(node))
    return found


def _imports_before(functions: list[ast.FunctionDef | ast.AsyncFunctionDef], line: int) -> dict[str, str]:
    """Names the enclosing functions bind by imports above `line`, each as a `LOCAL_IMPORT` head."""
    bound: dict[str, str] = {}
    for function in functions:
        for statement in ast.walk(function):
            if isinstance(statement, ast.Import | ast.ImportFrom) and statement.lineno < line:
                for name, binding in import_bindings(statement):
                    bound[name] = f"{LOCAL_IMPORT}{binding.level}:{binding.module}:{binding.name}"
    return bound


def _imported_head(base: tuple[str, ...] | None, imported: dict[str, str]) -> tuple[str, ...] | None:
    if base is None or base[0] not in imported:
        return base
    return (imported[base[0]], *base[1:])
