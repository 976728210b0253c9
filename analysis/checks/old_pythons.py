"""Code that only Pythons older than the project's minimum run: the `else:` of
`if sys.version_info >= (3, 8):` or the body of `if sys.version_info < (3, 8):` in a project that requires
Python 3.8, and the `except ImportError:` fallback of a `try:` that imports only what that minimum's
standard library has (`from typing import Protocol`). Nothing the project supports runs it, and type
checkers skip it too (setuptools d93d2e4c deletes a vendored `typing_extensions` that only such branches
of other vendored packages import).

Which standard-library names appeared when is known here for a few modules only, in full: a name of those
modules that this interpreter has and the table does not list was there by Python 3.7. Any other module's
names are unknown, and their fallbacks are taken to run.
"""

from __future__ import annotations

import ast
import importlib
import re
from functools import lru_cache

from prscope.analysis.checks.python2_branches import is_version_info

PythonVersion = tuple[int, int]
Span = tuple[int, int]

_BASELINE: PythonVersion = (3, 7)
"""The oldest minimum the tables below answer for."""
_NAMES_ADDED: dict[str, dict[str, PythonVersion]] = {
    "typing": {
        "OrderedDict": (3, 8), "ForwardRef": (3, 8),  # 3.7.2 and 3.7.4: not in every 3.7
        "Protocol": (3, 8), "Literal": (3, 8), "Final": (3, 8), "final": (3, 8), "TypedDict": (3, 8),
        "SupportsIndex": (3, 8), "runtime_checkable": (3, 8), "get_origin": (3, 8), "get_args": (3, 8),
        "Annotated": (3, 9),
        "ParamSpec": (3, 10), "ParamSpecArgs": (3, 10), "ParamSpecKwargs": (3, 10), "Concatenate": (3, 10),
        "TypeAlias": (3, 10), "TypeGuard": (3, 10), "is_typeddict": (3, 10),
        "Self": (3, 11), "LiteralString": (3, 11), "Never": (3, 11), "assert_never": (3, 11),
        "assert_type": (3, 11), "reveal_type": (3, 11), "dataclass_transform": (3, 11),
        "Required": (3, 11), "NotRequired": (3, 11), "TypeVarTuple": (3, 11), "Unpack": (3, 11),
        "get_overloads": (3, 11), "clear_overloads": (3, 11),
    },
    "functools": {"cached_property": (3, 8), "singledispatchmethod": (3, 8), "cache": (3, 9)},
    "contextlib": {"aclosing": (3, 10), "chdir": (3, 11)},
}  # fmt: skip
_MODULES_ADDED: dict[str, PythonVersion] = {
    "typing": _BASELINE, "functools": _BASELINE, "contextlib": _BASELINE, "dataclasses": _BASELINE,
    "contextvars": _BASELINE, "importlib.metadata": (3, 8), "zoneinfo": (3, 9), "graphlib": (3, 9),
    "tomllib": (3, 11),
}  # fmt: skip
_INDENTED_IMPORT = re.compile(
    r"^[ \t]+(?:from|import)[ \t]+(?:typing|functools|contextlib|dataclasses|contextvars|importlib|zoneinfo"
    r"|graphlib|tomllib)\b",
    re.M,
)


def may_gate_on_version(text: str) -> bool:
    """A cheap text test before any parse: the file tests `version_info`, or imports one of the modules
    above in an indented block (a `try:` body, most often)."""
    return "version_info" in text or _INDENTED_IMPORT.search(text) is not None


def older_pythons_only(tree: ast.AST, minimum: PythonVersion) -> list[Span]:
    """(first, last) line of each block that only Pythons older than `minimum` run."""
    spans: list[Span] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.IfExp):
            always = _always_on(node.test, minimum)
            block = node.orelse if always is True else node.body if always is False else None
            if isinstance(block, ast.expr):
                spans.append((block.lineno, block.end_lineno or block.lineno))
            elif block:
                spans.append(_lines_of(block))
        elif isinstance(node, ast.Try) and _only_imports_of(node.body, minimum):
            spans.extend(_lines_of(handler.body) for handler in node.handlers)
    return spans


def _lines_of(block: list[ast.stmt]) -> Span:
    return block[0].lineno, max(s.end_lineno or s.lineno for s in block)


def _always_on(test: ast.expr, minimum: PythonVersion) -> bool | None:
    """True when the test holds on every Python from `minimum` on, False when it holds on none of them,
    None when that depends (or the test is not a version comparison)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _always_on(test.operand, minimum)
        return None if inner is None else not inner
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and is_version_info(test.left)):
        return None
    lowest = _lowest_version_info(test.left, minimum)
    bound = _int_tuple(test.comparators[0])
    if lowest is None or bound is None:
        return None
    op = test.ops[0]
    # version_info only grows, so a `>=` / `>` test true on the lowest release is true on all later ones,
    # and a `<` / `<=` test false on it is false on all of them.
    if isinstance(op, ast.GtE | ast.Gt):
        return True if _compare(op, lowest, bound) else None
    if isinstance(op, ast.Lt | ast.LtE):
        return False if not _compare(op, lowest, bound) else None
    return None


def _compare(op: ast.cmpop, left: tuple[int, ...], right: tuple[int, ...]) -> bool:
    if isinstance(op, ast.GtE):
        return left >= right
    if isinstance(op, ast.Gt):
        return left > right
    if isinstance(op, ast.Lt):
        return left < right
    return left <= right


def _lowest_version_info(node: ast.expr, minimum: PythonVersion) -> tuple[int, ...] | None:
    """What the tested expression reads on the first release of `minimum`: `sys.version_info` itself
    (whose later fields make `(3, 8, 0, ...) > (3, 8)`), or a `[:2]` / `[:3]` slice of it."""
    whole = (*minimum, 0)
    if not isinstance(node, ast.Subscript):
        return whole if isinstance(node, ast.Name | ast.Attribute) else None
    part = node.slice
    if not isinstance(part, ast.Slice) or part.step is not None:
        return None
    start = part.lower.value if isinstance(part.lower, ast.Constant) else 0 if part.lower is None else None
    stop = part.upper.value if isinstance(part.upper, ast.Constant) else None
    if start != 0 or stop not in (2, 3):
        return None
    return whole[:stop] if isinstance(stop, int) else None


def _int_tuple(node: ast.expr) -> tuple[int, ...] | None:
    """`(3, 8)` as ints: at most three fields, so the comparison never reaches `releaselevel`."""
    if not isinstance(node, ast.Tuple) or not 1 <= len(node.elts) <= 3:
        return None
    values = [e.value for e in node.elts if isinstance(e, ast.Constant) and type(e.value) is int]
    return tuple(values) if len(values) == len(node.elts) else None


def _only_imports_of(body: list[ast.stmt], minimum: PythonVersion) -> bool:
    """Whether the `try:` body only imports what the standard library of `minimum` has: then it does not
    fail, and its ImportError handler never runs."""
    if minimum < _BASELINE or not body:
        return False
    return all(_available(statement, minimum) for statement in body)


def _available(statement: ast.stmt, minimum: PythonVersion) -> bool:
    if isinstance(statement, ast.Import):
        return all(_module_by(alias.name, minimum) for alias in statement.names)
    if isinstance(statement, ast.ImportFrom) and statement.level == 0 and statement.module:
        module = statement.module
        return all(
            _module_by(f"{module}.{alias.name}", minimum) or _name_by(module, alias.name, minimum)
            for alias in statement.names
        )
    return False


def _module_by(module: str, minimum: PythonVersion) -> bool:
    added = _MODULES_ADDED.get(module)
    return added is not None and added <= minimum


def _name_by(module: str, name: str, minimum: PythonVersion) -> bool:
    """Whether `from module import name` works on `minimum`: a module whose additions the table lists in
    full, and a name this interpreter has that appeared by then."""
    added = _NAMES_ADDED.get(module)
    if added is None or not _module_by(module, minimum) or name == "*":
        return False
    return added.get(name, _BASELINE) <= minimum and name in _names_here(module)


@lru_cache(maxsize=8)
def _names_here(module: str) -> frozenset[str]:
    """The names the module has in this interpreter (one of the standard-library modules listed above)."""
    return frozenset(dir(importlib.import_module(module)))
