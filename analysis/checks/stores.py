"""Assignments to attributes, as the checks ask about them: whether a read of `<receiver>.name` reads
what the code itself stored there (`conn._x = Mock()`, `self.conn._x = ...` in `setUp`) rather than the
class's member."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import Site


class AttributeStores:
    """The attribute assignments of the files one check run reads (each file looked at once)."""

    def __init__(self, text: Callable[[str], str | None], tree: Callable[[str], ast.Module | None]) -> None:
        self._text = text
        self._tree = tree
        self._stores: dict[str, _FileStores | None] = {}
        self._stored_names: dict[tuple[str, str], bool] = {}

    def set_before_use(self, site: Site, name: str) -> bool:
        """Whether the code assigns `<receiver>.name` itself before this read (`conn._x = Mock()` and
        then `conn._x.foo()`, `self.conn._x = Mock()` in `setUp`): the attribute read is that value, not
        the class's method. Same function for a local receiver; anywhere in the file for one on `self`."""
        node = site.node
        if not isinstance(node, ast.Attribute):
            return False
        receiver = source_text(node.value)
        if not receiver or not self._may_store(site.path, name, isinstance(node.value, ast.Attribute)):
            return False
        stores = self._attribute_stores(site.path)
        if not stores:
            return False
        on_self = receiver.split(".")[0] in ("self", "cls")
        function = _innermost(stores.functions, site.line)

        def reaches(store: _Store) -> bool:
            return on_self or (store.function == function and store.line < site.line)

        if any(reaches(s) and s.line != site.line for s in stores.by_target.get((receiver, name), [])):
            return True
        # `conn._x = Mock()` then `conn._x.name(...)`: the receiver is a test double, whatever its
        # declared type says.
        if isinstance(node.value, ast.Attribute):
            outer = (source_text(node.value.value), node.value.attr)
            return any(reaches(s) and _is_mock(s.value) for s in stores.by_target.get(outer, []))
        return False

    def _may_store(self, path: str, name: str, nested: bool) -> bool:
        """A cheap look at the text: does the file assign `.name` (or call setattr), or, for a nested
        receiver, make a Mock at all? Spares parsing whole files for the common case."""
        text = self._text(path) or ""
        if nested and ("Mock" in text or "create_autospec" in text):
            return True
        key = (path, name)
        if key not in self._stored_names:
            word = re.escape(name)
            stored = re.search(rf"\.\s*{word}\s*(?::[^=\n]*)?=(?!=)|\bsetattr\(", text)
            self._stored_names[key] = stored is not None
        return self._stored_names[key]

    def _attribute_stores(self, path: str) -> _FileStores | None:
        """The file's assignments to attributes, by (receiver text, attribute); None when it has none a
        cheap look at its text can see."""
        if path not in self._stores:
            text = self._text(path) or ""
            found: _FileStores | None = None
            if _STORE_HINT.search(text):
                tree = self._tree(path)
                try:
                    found = _file_stores(tree) if tree is not None else None
                except RecursionError:
                    found = None
            self._stores[path] = found
        return self._stores[path]


def source_text(node: ast.expr) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, TypeError, RecursionError):
        return ""


@dataclass(frozen=True)
class _Store:
    line: int
    value: ast.expr | None
    """What is assigned, when the target has it alone (not a tuple unpacking)."""
    function: tuple[int, int] | None
    """(first, last) line of the innermost function holding the assignment."""


@dataclass
class _FileStores:
    by_target: dict[tuple[str, str], list[_Store]]
    functions: list[tuple[int, int]]


_STORE_HINT = re.compile(r"\.\s*\w+\s*(?::[^=\n]*)?=(?!=)|\bsetattr\(")


def _file_stores(tree: ast.Module) -> _FileStores:
    """Every `<receiver>.attr = value` (annotated, augmented, `setattr(receiver, "attr", value)`) of a file,
    with the function it is in."""
    stores = _FileStores({}, [])

    def add(
        receiver: ast.expr, attr: str, line: int, value: ast.expr | None, function: tuple[int, int] | None
    ) -> None:
        key = (source_text(receiver), attr)
        stores.by_target.setdefault(key, []).append(_Store(line, value, function))

    def visit(node: ast.AST, function: tuple[int, int] | None) -> None:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            function = (node.lineno, node.end_lineno or node.lineno)
            stores.functions.append(function)
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AnnAssign | ast.AugAssign):
            targets = [node.target]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr":
            args = node.args
            if len(args) >= 2 and isinstance(args[1], ast.Constant) and isinstance(args[1].value, str):
                add(args[0], args[1].value, node.lineno, args[2] if len(args) > 2 else None, function)
        value = getattr(node, "value", None) if targets else None
        for target in targets:
            elements = target.elts if isinstance(target, ast.Tuple | ast.List) else [target]
            for element in elements:
                if isinstance(element, ast.Attribute):
                    add(
                        element.value,
                        element.attr,
                        element.lineno,
                        value if elements == [target] else None,
                        function,
                    )
        for child in ast.iter_child_nodes(node):
            visit(child, function)

    visit(tree, None)
    return stores


def _innermost(functions: list[tuple[int, int]], line: int) -> tuple[int, int] | None:
    holding = [span for span in functions if span[0] <= line <= span[1]]
    return min(holding, key=lambda span: span[1] - span[0]) if holding else None


def _is_mock(value: ast.expr | None) -> bool:
    """`Mock()`, `mock.MagicMock(spec=...)`, `AsyncMock()`, `create_autospec(...)`: a test double, which
    takes any call."""
    if not isinstance(value, ast.Call):
        return False
    callee = source_text(value.func).rsplit(".", 1)[-1]
    return "Mock" in callee or callee in ("create_autospec", "mock")
