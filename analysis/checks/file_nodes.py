"""The syntax around an occurrence, by position: the call it is the callee of, the import statement it
names, the raises-blocks around it. Built from one part of a file (the index parses parts, not files).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field

from prscope.analysis.intel.resolve import absolute_module
from prscope.analysis.intel.scopes import guards_imports


@dataclass(frozen=True)
class ImportSite:
    """One imported name: `from base import name as bound` or `import dotted as bound`."""

    node: ast.Import | ast.ImportFrom
    alias: ast.alias
    target: str
    """The dotted path imported (`pkg.mod` for `import pkg.mod`, `pkg.mod.name` for `from pkg.mod import
    name`), relative imports made absolute."""
    bound: str
    guarded: bool
    """Inside `try:` with an `except ImportError` (or broader) handler: a missing name is handled."""


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


def file_nodes(tree: ast.Module, lines: list[str]) -> FileNodes:
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


_RAISES = frozenset({"raises", "assertRaises", "assertRaisesRegex", "assertRaisesRegexp"})


def raises_block(expr: ast.expr, names: tuple[str, ...]) -> bool:
    if not isinstance(expr, ast.Call) or not expr.args:
        return False
    func = expr.func
    called = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
    first = expr.args[0]
    expected = first.elts if isinstance(first, ast.Tuple) else [first]
    return called in _RAISES and any(getattr(n, "id", getattr(n, "attr", "")) in names for n in expected)


def expected_message(expr: ast.expr) -> str | None:
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


def pattern_finds(pattern: str | None, messages: list[str]) -> bool:
    if not pattern:
        return True  # no message asked for (or one that cannot be read): the error is expected
    try:
        compiled = re.compile(pattern)
    except re.error:
        return True
    return any(compiled.search(message) for message in messages)


def import_sites(tree: ast.Module, module: str | None, is_package: bool) -> list[ImportSite]:
    """Every import statement's names in a module (star imports and imports climbing above the top
    package left out)."""
    found: list[ImportSite] = []

    def visit(node: ast.AST, guarded: bool) -> None:
        if isinstance(node, ast.Try | ast.TryStar):
            for tried in node.body:
                visit(tried, guarded or guards_imports(node))
            for rest in (*node.handlers, *node.orelse, *node.finalbody):
                visit(rest, guarded)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                bound = alias.asname or alias.name.split(".")[0]
                found.append(ImportSite(node, alias, alias.name, bound, guarded))
        elif isinstance(node, ast.ImportFrom):
            base = absolute_module(module, is_package, node.level, node.module)
            for alias in node.names if base is not None else []:
                if alias.name != "*":
                    found.append(
                        ImportSite(node, alias, f"{base}.{alias.name}", alias.asname or alias.name, guarded)
                    )
        else:
            for inner in ast.iter_child_nodes(node):
                if isinstance(inner, ast.stmt | ast.excepthandler | ast.match_case):  # imports are statements
                    visit(inner, guarded)

    for statement in tree.body:
        visit(statement, False)
    return found
