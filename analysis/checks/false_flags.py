"""Blocks under a condition that is always false: `if False:`, `if 0:`, or `if FLAG:` where the module
binds `FLAG` once, to `False`, `0` or `None`, and no other file spells it (nothing sets it from outside;
`Reach` asks only of a module that may not bind names unseen, through `globals()` and the like).
Theano's `test_vm.py` keeps its memory-leak tests under `run_memory_usage_tests = False`; a stale
reference in them breaks nothing anyone runs."""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Callable, Iterator

_MAY_TEST_A_FLAG = re.compile(r"^[ \t]*(?:el)?if[ \t]+(?:False|0|None|[A-Za-z_]\w*)[ \t]*:", re.M)


def may_hold_false_flags(text: str) -> bool:
    """A cheap test of the file's text, asked once per file: some `if` tests a bare name or constant."""
    return _MAY_TEST_A_FLAG.search(text) is not None


def never_entered_spans(tree: ast.Module, spelled_elsewhere: Callable[[str], bool]) -> list[tuple[int, int]]:
    """(first, last) line of the body of every `if` whose test is always false (its `else:` runs)."""
    flags = _false_flags(tree)
    flags = {name for name in flags if not spelled_elsewhere(name)} if flags else flags
    return [
        (node.body[0].lineno, max(s.end_lineno or s.lineno for s in node.body))
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and node.body and _always_false(node.test, flags)
    ]


def _always_false(test: ast.expr, flags: set[str]) -> bool:
    if isinstance(test, ast.Constant):
        return test.value is False or test.value is None or (type(test.value) is int and test.value == 0)
    return isinstance(test, ast.Name) and test.id in flags


def _false_flags(tree: ast.Module) -> set[str]:
    """Module-level names bound once in the whole module, at its top level, to `False`, `0` or `None`."""
    candidates = {name for name, value in _top_level_bindings(tree) if _always_false(value, set())}
    if not candidates:
        return set()
    bound = Counter(_every_binding(tree, candidates))
    return {name for name in candidates if bound[name] == 1}


def _top_level_bindings(tree: ast.Module) -> Iterator[tuple[str, ast.expr]]:
    for statement in tree.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target, value = statement.targets[0], statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            target, value = statement.target, statement.value
        else:
            continue
        if isinstance(target, ast.Name):
            yield target.id, value


def _every_binding(tree: ast.Module, names: set[str]) -> Iterator[str]:
    """Each binding of one of `names` anywhere in the module; a `global` declaration counts as one more
    (the function may rebind it)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in names and not isinstance(node.ctx, ast.Load):
            yield node.id
        elif isinstance(node, ast.Global | ast.Nonlocal):
            yield from (name for name in node.names if name in names)
        elif isinstance(node, ast.alias) and (node.asname or node.name).split(".")[0] in names:
            yield (node.asname or node.name).split(".")[0]
        elif isinstance(node, ast.arg) and node.arg in names:
            yield node.arg
