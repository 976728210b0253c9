"""What `from <standard-library module> import *` binds, read from the module's source (never imported)."""

from __future__ import annotations

import ast
import importlib
import sys
import sysconfig
from functools import lru_cache
from importlib.machinery import PathFinder
from pathlib import Path

from prscope.analysis.intel.scopes import statement_names, target_names

_MAX_SOURCE_BYTES = 2_000_000


@lru_cache(maxsize=64)
def star_names(module: str) -> frozenset[str] | None:
    """Names a star import of the top-level standard-library `module` binds: its `__all__` when it spells
    one out as a literal, else its public top-level names. None when that is not knowable (a dotted or
    non-standard name, an `__all__` changed after its assignment, a star import of something unknown)."""
    found = _standard_module(module)
    if found is None:
        return None
    compiled_in, tree = found
    if compiled_in:
        return _public_names_of_builtin(module)
    return _exported(tree) if tree is not None else None


@lru_cache(maxsize=64)
def standard_module_binds(module: str, name: str) -> bool:
    """Whether the top-level standard-library `module` binds `name` at import (any name, private too),
    as its source or, for a module compiled into the interpreter, the module itself says. False when
    that is not knowable."""
    found = _standard_module(module)
    if found is None:
        return False
    compiled_in, tree = found
    if compiled_in:
        try:
            return hasattr(importlib.import_module(module), name)
        except ImportError:
            return False
    return tree is not None and any(name in _bound_names(node) for node in _module_level(tree))


@lru_cache(maxsize=64)
def _standard_module(module: str) -> tuple[bool, ast.Module | None] | None:
    """Whether the top-level standard-library `module` is compiled into the interpreter, and its parsed
    source otherwise (None when unreadable); None when `module` is no such module."""
    if "." in module or module not in sys.stdlib_module_names:
        return None
    spec = PathFinder.find_spec(module, [sysconfig.get_paths()["stdlib"]])
    if spec is None and module in sys.builtin_module_names:
        return True, None
    source = _stdlib_source(spec.origin if spec is not None else None)
    if source is None:
        return False, None
    try:
        return False, ast.parse(source)
    except (SyntaxError, ValueError, RecursionError):
        return False, None


def _public_names_of_builtin(module: str) -> frozenset[str] | None:
    # A module compiled into the interpreter (`_ast`, `sys`): nothing of the repository can run by
    # importing it, and it has no source to read.
    try:
        imported = importlib.import_module(module)
    except ImportError:
        return None
    exported = getattr(imported, "__all__", None)
    if exported is not None:
        return frozenset(str(name) for name in exported)
    return frozenset(name for name in dir(imported) if not name.startswith("_"))


def _stdlib_source(origin: str | None) -> str | None:
    # Searched only in the standard library's directory: the reviewed repository (perhaps the working
    # directory, so on sys.path) may hold its own `ast.py`, and nothing here may import or run it.
    if origin is None or not origin.endswith(".py"):
        return None
    path = Path(origin)
    try:
        if path.stat().st_size > _MAX_SOURCE_BYTES:
            return None
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _exported(tree: ast.Module) -> frozenset[str] | None:
    all_statements = [node for node in _module_level(tree) if _mentions_all(node)]
    if all_statements:
        only = all_statements[0]
        if len(all_statements) > 1 or not isinstance(only, ast.Assign):
            return None  # `__all__.extend(...)`, `__all__ += ...`: built at run time
        return _literal_strings(only.value)
    names: set[str] = set()
    for node in _module_level(tree):
        if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
            inner = star_names(node.module or "") if node.level == 0 else None
            if inner is None:
                return None
            names |= inner
        names.update(_bound_names(node))
    return frozenset(n for n in names if not n.startswith("_"))


def _module_level(tree: ast.Module) -> list[ast.stmt]:
    """Every statement that runs at import, looking into if/try/with/for but not into def or class."""
    found: list[ast.stmt] = []
    pending: list[ast.AST] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.stmt):
            found.append(node)
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.expr):
            pending.extend(child for child in ast.iter_child_nodes(node) if not isinstance(child, ast.expr))
    return found


def _mentions_all(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return False
    own = [c for c in ast.iter_child_nodes(stmt) if isinstance(c, ast.expr)]
    return any(isinstance(n, ast.Name) and n.id == "__all__" for c in own for n in ast.walk(c))


def _literal_strings(node: ast.expr) -> frozenset[str] | None:
    if not isinstance(node, ast.List | ast.Tuple):
        return None
    values = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return frozenset(values) if len(values) == len(node.elts) else None


def _bound_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.For | ast.AsyncFor):
        return target_names(stmt.target)
    if isinstance(stmt, ast.With | ast.AsyncWith):
        return [n for item in stmt.items if item.optional_vars for n in target_names(item.optional_vars)]
    return statement_names(stmt)
