"""What a check read from a file's tree, kept with that tree for one check run. override-mismatch asks the
same question of the same files once per override (dask-expr's 89 overrides of `_task`), and the index
keeps only a few whole trees parsed.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Hashable
from typing import Any, TypeVar

from prscope.analysis.intel.lru import Lru

T = TypeVar("T")


class TreeMemo:
    def __init__(self, tree: Callable[[str], ast.Module | None], limit: int = 64) -> None:
        self._tree = tree
        self._read: Lru[tuple[str, Hashable], tuple[ast.Module, Any] | None] = Lru(limit)

    def read(
        self, path: str, question: Hashable, answer: Callable[[ast.Module], T]
    ) -> tuple[ast.Module, T] | None:
        """The file's tree and `answer(tree)`, remembered by (path, question); None when the file does not
        parse. `question` must name everything `answer` depends on besides the tree."""
        key = (path, question)
        if key in self._read:
            return self._read.recall(key)
        tree = self._tree(path)
        found = None if tree is None else (tree, answer(tree))
        self._read.put(key, found)
        return found
