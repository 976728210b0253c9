"""A parsed file with parent links: the expression a code-index reference points at, and its context."""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from prscope.analysis.intel import CodeIndex, Reference
from prscope.analysis.positions import column_from_utf8

Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.Module
_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.Module)


@dataclass
class FileNodes:
    path: str
    tree: ast.Module
    lines: list[str]
    parents: dict[int, ast.AST] = field(default_factory=dict)
    names: dict[tuple[int, int], ast.Name | ast.Attribute] = field(default_factory=dict)
    """Names and attributes by where their identifier starts (1-based line, 1-based code-point column)."""

    @classmethod
    def build(cls, path: str, tree: ast.Module, text: str) -> FileNodes:
        nodes = cls(path, tree, text.splitlines())
        for parent in ast.walk(tree):
            for child in ast.iter_child_nodes(parent):
                nodes.parents[id(child)] = parent
            if isinstance(parent, ast.Name):
                nodes.names[(parent.lineno, nodes.column(parent.lineno, parent.col_offset))] = parent
            elif isinstance(parent, ast.Attribute) and parent.end_lineno is not None:
                end = nodes.column(parent.end_lineno, parent.end_col_offset or 0)
                nodes.names[(parent.end_lineno, end - len(parent.attr))] = parent
        return nodes

    def line(self, number: int) -> str:
        return self.lines[number - 1] if 0 < number <= len(self.lines) else ""

    def column(self, line: int, byte_offset: int) -> int:
        """1-based code-point column of a 0-based UTF-8 offset on `line`."""
        return column_from_utf8(self.line(line), byte_offset + 1)

    def at(self, reference: Reference) -> ast.Name | ast.Attribute | None:
        return self.names.get((reference.line, reference.col))

    def parent(self, node: ast.AST) -> ast.AST | None:
        return self.parents.get(id(node))

    def called(self, node: ast.expr) -> ast.Call | None:
        """The call whose callee `node` is (`node(...)`)."""
        parent = self.parent(node)
        return parent if isinstance(parent, ast.Call) and parent.func is node else None

    def scope(self, node: ast.AST) -> Scope:
        """The innermost function, lambda or module around `node`."""
        current = self.parent(node)
        while current is not None and not isinstance(current, _SCOPES):
            current = self.parent(current)
        return current if current is not None else self.tree

    def in_generator_expression(self, node: ast.AST, scope: ast.AST) -> bool:
        current = self.parent(node)
        while current is not None and current is not scope:
            if isinstance(current, ast.GeneratorExp):
                return True
            current = self.parent(current)
        return False


class NodeCache:
    """FileNodes per path for one check run (files come from the code index: the reviewed head)."""

    def __init__(self, index: CodeIndex) -> None:
        self.index = index
        self._files: dict[str, FileNodes | None] = {}

    def get(self, path: str) -> FileNodes | None:
        if path not in self._files:
            self._files[path] = self._build(path)
        return self._files[path]

    def _build(self, path: str) -> FileNodes | None:
        try:
            tree = self.index.parse_tolerant(path)
            text = self.index.source(path)
        except Exception:
            return None
        if tree is None or text is None:
            return None
        return FileNodes.build(path, tree, text)
