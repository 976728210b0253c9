"""Comparing parameter annotations as written, without a type checker: enough to tell a renamed
parameter (`path: str` -> `file: str | Path`) from a different one (`count: int` -> `name: str`)."""

from __future__ import annotations

import ast

_ANYTHING = frozenset({"Any", "object"})
_PREFIXES = ("typing.", "typing_extensions.", "t.")


def annotation_accepts(new: str | None, old: str | None, *, passed: bool = False) -> bool:
    """Whether a parameter annotated `new` accepts every value `old` did, as far as the text tells; an
    absent annotation says nothing against it. `passed`: only values a caller passes explicitly count,
    and those are not the `None` of an `Optional` (that is what leaving the argument out means)."""
    if new is None or old is None:
        return True
    new_types, old_types = union_members(new), union_members(old)
    if new_types is None or old_types is None:
        return new.replace(" ", "") == old.replace(" ", "")
    if passed and old_types != {"None"}:
        old_types = old_types - {"None"}
    return bool(new_types & _ANYTHING) or old_types <= new_types


def union_members(annotation: str) -> frozenset[str] | None:
    """`str | None`, `Optional[str]`, `Union[str, None]`, `"str"` -> {"str", "None"}; None if unparsable."""
    try:
        node = ast.parse(annotation.strip(), mode="eval").body
    except (SyntaxError, ValueError, RecursionError):
        return None
    return frozenset(_members(node))


def _members(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        inner = union_members(node.value)
        return sorted(inner) if inner is not None else [node.value]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _members(node.left) + _members(node.right)
    if isinstance(node, ast.Subscript):
        head = _plain(ast.unparse(node.value))
        if head == "Optional":
            return [*_members(node.slice), "None"]
        if head == "Union":
            parts = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return [member for part in parts for member in _members(part)]
    return [_plain(ast.unparse(node))]


def _plain(text: str) -> str:
    for prefix in _PREFIXES:
        if text.startswith(prefix):
            return text[len(prefix) :]
    return text
