"""Reads of a name the code makes only where `hasattr(receiver, "name")` held."""

from __future__ import annotations

import ast

from prscope.analysis.checks.sites import RepoView, Site


def asked_hasattr_first(view: RepoView, site: Site, name: str) -> bool:
    """Whether the read runs only where `hasattr(receiver, "name")` held: an `if` body, the operands after
    it in an `and`, a conditional expression's first branch (zigpy 89ec72f83a: `hasattr(s, "optional")
    and s.optional`). The code reads the name only on objects that have it."""
    if not isinstance(site.node, ast.Attribute) or "hasattr(" not in (view.text(site.path) or ""):
        return False
    nodes = view.nodes(site.path, site.line)
    if nodes is None:
        return False
    receiver = ast.unparse(site.node.value)
    for guarded in _hasattr_guarded(nodes.tree, receiver, name):
        for node in ast.walk(guarded):
            if (
                isinstance(node, ast.Attribute)
                and node.attr == name
                and node.lineno == site.line
                and ast.unparse(node.value) == receiver
            ):
                return True
    return False


def _hasattr_guarded(tree: ast.AST, receiver: str, name: str) -> list[ast.AST]:
    """What runs only where `hasattr(receiver, "name")` held."""
    found: list[ast.AST] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.If | ast.IfExp) and _asks_hasattr(node.test, receiver, name):
            found.extend(node.body if isinstance(node.body, list) else [node.body])
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            for index, value in enumerate(node.values):
                if _asks_hasattr(value, receiver, name):
                    found.extend(node.values[index + 1 :])
                    break
    return found


def _asks_hasattr(test: ast.expr, receiver: str, name: str) -> bool:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return any(_asks_hasattr(value, receiver, name) for value in test.values)
    return (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "hasattr"
        and len(test.args) == 2
        and isinstance(test.args[1], ast.Constant)
        and test.args[1].value == name
        and _asked_of(test.args[0]) == receiver
    )


def _asked_of(argument: ast.expr) -> str:
    """The object whose attributes `hasattr` tells of: `type(value)` and `value.__class__` tell of
    `value`'s methods (pudb 8d683898cb: `hasattr(type(value), "safely_stringify_for_pudb")`)."""
    if _is_type_of_one(argument):
        assert isinstance(argument, ast.Call)
        return ast.unparse(argument.args[0])
    if isinstance(argument, ast.Attribute) and argument.attr == "__class__":
        return ast.unparse(argument.value)
    return ast.unparse(argument)


def _is_type_of_one(node: ast.expr) -> bool:
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "type"
        and len(node.args) == 1
        and not node.keywords
    )
