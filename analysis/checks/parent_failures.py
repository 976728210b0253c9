"""Repository functions and classes that, at the PR's parent, always stopped on a NameError when called
(`unbound_names.always_fails_when_called`, read from the parent's text of their module): backtrader
7f9447e052's parent `Trade.__init__` set `self.historyon = historyon` with no `historyon` anywhere."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from prscope.analysis.checks.unbound_names import always_fails_when_called, may_bind_unseen
from prscope.analysis.intel.resolve import Value

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import RepoView


class ParentFailures:
    """Per review, with each answer cached."""

    def __init__(self, view: RepoView) -> None:
        self.view = view
        self._answers: dict[tuple[str, str], bool] = {}
        self._trees: dict[str, ast.Module | None] = {}
        """The parent's tree of each module asked about, parsed once (a big file is asked of many names)."""

    def always(self, value: Value) -> bool:
        """Whether calling the module-level member `value` always raised NameError at the parent."""
        if value.kind != "member" or not value.name or "." in value.name:
            return False
        path = self.view.module_path(value.module)
        if path is None:
            return False
        key = (path, value.name)
        if key not in self._answers:
            self._answers[key] = self._in_parent_text(path, value.name)
        return self._answers[key]

    def _in_parent_text(self, path: str, name: str) -> bool:
        if path not in self._trees:
            self._trees[path] = self._parent_tree(path)
        tree = self._trees[path]
        if tree is None:
            return False
        found = [
            s
            for s in tree.body
            if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) and s.name == name
        ]
        return len(found) == 1 and always_fails_when_called(tree, found[0])

    def _parent_tree(self, path: str) -> ast.Module | None:
        parent = self.view.parent
        text = parent.old_text(path) if parent is not None else None
        if text is None or may_bind_unseen(text):
            return None
        try:
            return ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
