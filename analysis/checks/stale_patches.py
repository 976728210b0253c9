"""Tests under a `mock.patch` of an attribute the repository does not have: `patch("pkg.mod.Cls.ATTR",
value)` raises AttributeError as the test starts (unless `create=True`), before anything in it runs.
paperless-ng d15405ef56: every test of `test_date.py` patches `RasterisedDocumentParser.SCRATCH`, which an
earlier commit had removed; they failed at the parent and fail now, whatever the PR changed below."""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from prscope.analysis.intel.scopes import dotted_chain

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import RepoView

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def under_a_stale_patch(view: RepoView, path: str, line: int) -> bool:
    """Whether the function whose `def` is on `line` of the file patches a missing attribute (the whole
    file is read: the patched path may be a constant of the class around the test)."""
    text = view.text(path) or ""
    tree = view.tree(path) if "patch(" in text else None
    if tree is None:
        return False
    function = next((n for n in ast.walk(tree) if isinstance(n, FunctionNode) and n.lineno == line), None)
    return function is not None and patches_a_missing_attribute(view, tree, function)


def patches_a_missing_attribute(view: RepoView, tree: ast.Module, function: FunctionNode) -> bool:
    """Whether a decorator of the function (or of the class around it) patches, by its dotted path, an
    attribute a repository module or class lacks, and lacked at the parent too."""
    owner = _class_around(tree, function)
    decorators = [*function.decorator_list, *(owner.decorator_list if owner is not None else [])]
    for decorator in decorators:
        target = _patched_path(decorator, owner, tree)
        if target is not None and _missing(view, target):
            return True
    return False


def _class_around(tree: ast.Module, function: FunctionNode) -> ast.ClassDef | None:
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and function in node.body:
            return node
    return None


def _patched_path(decorator: ast.expr, owner: ast.ClassDef | None, tree: ast.Module) -> str | None:
    """The dotted path a `patch(...)` / `mock.patch(...)` decorator replaces, when it is a string the code
    spells (directly, or as a constant of the class or module); None for anything else, or with
    `create=...` (the patch may add what is missing)."""
    if not isinstance(decorator, ast.Call) or not decorator.args:
        return None
    chain = dotted_chain(decorator.func)
    if chain is None or chain[-1] != "patch" or any(k.arg == "create" for k in decorator.keywords):
        return None
    first: ast.expr | None = decorator.args[0]
    if isinstance(first, ast.Name):
        scopes = [owner.body] if owner is not None else []
        first = _constant_of(first.id, [*scopes, tree.body])
    if isinstance(first, ast.Constant) and isinstance(first.value, str) and "." in first.value:
        return first.value
    return None


def _constant_of(name: str, blocks: list[list[ast.stmt]]) -> ast.expr | None:
    """The value of the one plain assignment of `name` in the first block that assigns it."""
    for block in blocks:
        values = [
            statement.value
            for statement in block
            if isinstance(statement, ast.Assign)
            and any(isinstance(t, ast.Name) and t.id == name for t in statement.targets)
        ]
        if values:
            return values[0] if len(values) == 1 else None
    return None


def _missing(view: RepoView, target: str) -> bool:
    """Whether the longest repository module the path starts with lacks the rest: a module-level name, or
    a class's attribute (`pkg.mod.Cls.ATTR`), at the head and in the module's parent text."""
    parts = target.split(".")
    for cut in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:cut])
        path = view.module_path(module)
        if path is None:
            continue
        rest = parts[cut:]
        if len(rest) == 1:
            defs = view.defs(path)
            lacks = defs is not None and not defs.module_getattr and not defs.star_import
            lacks = lacks and defs is not None and rest[0] not in defs.module_names
            lacks = lacks and view.module_path(f"{module}.{rest[0]}") is None  # not a submodule
        elif len(rest) == 2:
            owner = f"{module}.{rest[0]}"
            lacks = view.class_node(owner) is not None and view.provides(owner, rest[1], set()) is False
        else:
            return False
        return lacks and not _spelled_at_the_parent(view, path, rest[-1])
    return False


def _spelled_at_the_parent(view: RepoView, path: str, name: str) -> bool:
    parent = view.parent
    old = parent.old_text(path) if parent is not None else None
    return old is None or re.search(rf"\b{re.escape(name)}\b", old) is not None
