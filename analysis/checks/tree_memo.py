"""What a check read from a file's tree, kept for one check run. override-mismatch asks the same question
of the same files once per override (dask-expr's 89 overrides of `_task`, apprise's 100 of `parse_url`),
and the index keeps only a few whole trees parsed. An answer kept with its tree is dropped with it when
the memo is full; an answer that holds no whole tree is kept for every file.
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
        self._answers: dict[tuple[str, Hashable], Any] = {}

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

    def answer(self, path: str, question: Hashable, answer: Callable[[ast.Module], T]) -> T | None:
        """`answer(tree)`, remembered by (path, question) without the tree for the whole run (a sweep of
        more files than the memo of trees holds would parse each of them again); None when the file does
        not parse. The answer must not keep the whole tree alive."""
        key = (path, question)
        if key not in self._answers:
            tree = self._tree(path)
            self._answers[key] = None if tree is None else answer(tree)
        found: T | None = self._answers[key]
        return found
