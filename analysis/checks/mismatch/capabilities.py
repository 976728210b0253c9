"""Capability flags: a base class that declares `supports_x = False` and a caller that passes the new
arguments only `if obj.supports_x:` (mopidy 12cc2ed3: `if library.add_supports_tags_and_duration:
library.add(track, tags=tags, duration=duration) else: library.add(track)`). An override whose class
leaves the flag off is never called so; the guarded call relies on nothing it lacks."""

from __future__ import annotations

import ast
from collections.abc import Iterable


def flags_left_off(base_class: ast.ClassDef | None, override_class: ast.ClassDef | None) -> frozenset[str]:
    """Names the base class body sets to `False` that the override's class does not set otherwise."""
    if base_class is None or override_class is None:
        return frozenset()
    off = {name for name, value in _class_assignments(base_class) if _is_false(value)}
    turned_on = {name for name, value in _class_assignments(override_class) if not _is_false(value)}
    return frozenset(off - turned_on)


def calls_under_flags(nodes: Iterable[ast.AST], flags: frozenset[str]) -> set[int]:
    """Ids of the nodes in the body of an `if <receiver>.<flag>:` (the `else:` runs for the override)."""
    inside: set[int] = set()
    if not flags:
        return inside
    for node in nodes:
        if isinstance(node, ast.If):
            receivers = _flag_receivers(node.test, flags)
            if receivers:
                inside.update(
                    id(n)
                    for statement in node.body
                    for n in ast.walk(statement)
                    if isinstance(n, ast.Call) and _receiver_dump(n) in receivers
                )
    return inside


def _class_assignments(node: ast.ClassDef) -> Iterable[tuple[str, ast.expr]]:
    for statement in node.body:
        if isinstance(statement, ast.Assign):
            targets, value = statement.targets, statement.value
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets, value = [statement.target], statement.value
        else:
            continue
        yield from ((target.id, value) for target in targets if isinstance(target, ast.Name))


def _is_false(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) and value.value is False


def _flag_receivers(test: ast.expr, flags: frozenset[str]) -> set[str]:
    """Dumps of `obj` in each `obj.<flag>` the test requires (alone or joined by `and`)."""
    operands = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    return {
        ast.dump(operand.value)
        for operand in operands
        if isinstance(operand, ast.Attribute) and operand.attr in flags
    }


def _receiver_dump(call: ast.Call) -> str | None:
    return ast.dump(call.func.value) if isinstance(call.func, ast.Attribute) else None
