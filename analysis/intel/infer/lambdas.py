"""A lambda's parameter: what the function the lambda is handed to calls it with.

`utils.find(lambda r: r.is_everyone(), self.roles)`: `find(predicate, seq)` calls `predicate(element)`
for each `element in seq`, so `r` is an element of `self.roles`. The same holds for the builtins that
call a function on each element of an iterable (`filter`, `map`, `sorted(key=)`, `min` / `max(key=)`).
Only a lambda of one positional parameter, written directly as the call's argument, is read this way.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from prscope.analysis.intel.infer.arguments import passed_argument
from prscope.analysis.intel.infer.frames import FunctionNode, Place, own_nodes
from prscope.analysis.intel.infer.values import UNKNOWN_TYPES, Bound, Func, Types

if TYPE_CHECKING:
    from prscope.analysis.intel.infer.engine import Inference

_EACH_OF_SECOND = frozenset({"filter", "map"})
"""Builtins called as `f(function, iterable)`."""
_KEYED = frozenset({"sorted", "min", "max"})
"""Builtins called as `f(iterable, key=function)`."""


def lambda_parameter(engine: Inference, function: ast.Lambda, arg: ast.arg, scope: Place) -> Types:
    positional = [*function.args.posonlyargs, *function.args.args]
    if len(positional) != 1 or positional[0] is not arg or not scope.frames[:-1]:
        return UNKNOWN_TYPES
    outer = scope.outer()
    found = _call_taking(outer.frames[-1], function)
    if found is None:
        return UNKNOWN_TYPES
    call, position, keyword = found
    iterable = _iterable_for(engine, call, position, keyword, outer)
    if iterable is None:
        return UNKNOWN_TYPES
    return engine.elements(engine.expr(iterable, outer))


def _call_taking(frame: ast.AST, function: ast.Lambda) -> tuple[ast.Call, int, str | None] | None:
    """The call in `frame`'s own code that gets the lambda as an argument: (call, position, keyword)."""
    for node in own_nodes(frame):
        if not isinstance(node, ast.Call):
            continue
        for position, argument in enumerate(node.args):
            if argument is function:
                return node, position, None
        for keyword in node.keywords:
            if keyword.value is function and keyword.arg is not None:
                return node, -1, keyword.arg
    return None


def _iterable_for(
    engine: Inference, call: ast.Call, position: int, keyword: str | None, place: Place
) -> ast.expr | None:
    """The argument of `call` whose elements the lambda is called with."""
    callees = engine.expr(call.func, place)
    if len(callees) != 1:
        return None
    callee = next(iter(callees))
    if isinstance(callee, Func) and not callee.line:
        return _builtin_iterable(callee.name, call, position, keyword)
    if isinstance(callee, Func):
        return _repository_iterable(engine, callee, call, position, keyword, 0)
    if isinstance(callee, Bound):
        return _repository_iterable(engine, callee.func, call, position, keyword, 1)
    return None


def _builtin_iterable(name: str, call: ast.Call, position: int, keyword: str | None) -> ast.expr | None:
    if name in _EACH_OF_SECOND and position == 0 and len(call.args) == 2:
        return call.args[1]
    if name in _KEYED and keyword == "key" and len(call.args) == 1:
        return call.args[0]
    return None


def _repository_iterable(
    engine: Inference, func: Func, call: ast.Call, position: int, keyword: str | None, shift: int
) -> ast.expr | None:
    """`def find(predicate, seq): for element in seq: if predicate(element): ...`: the argument passed
    for `seq` when the lambda is passed for `predicate`."""
    located = engine.code.function(func)
    if located is None:
        return None
    node, _inside = located
    parameters = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
    if keyword is not None:
        predicate = keyword
    elif 0 <= position + shift < len(parameters) and not _starred_before(call, position):
        predicate = parameters[position + shift]
    else:
        return None
    sequence = _looped_with(node, predicate)
    if sequence is None or sequence not in parameters:
        return None
    return passed_argument(call, sequence, parameters.index(sequence) - shift)


def _looped_with(function: FunctionNode, predicate: str) -> str | None:
    """The parameter whose elements the function calls `predicate` with (`for x in seq: predicate(x)`)."""
    loops: dict[str, str] = {}
    for node in own_nodes(function):
        if (
            isinstance(node, ast.For)
            and isinstance(node.target, ast.Name)
            and isinstance(node.iter, ast.Name)
        ):
            loops[node.target.id] = node.iter.id
    sequences: set[str] = set()
    for node in own_nodes(function):
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == predicate
            and len(node.args) == 1
            and isinstance(node.args[0], ast.Name)
        ):
            sequence = loops.get(node.args[0].id)
            if sequence is None:
                return None
            sequences.add(sequence)
    return sequences.pop() if len(sequences) == 1 else None


def _starred_before(call: ast.Call, position: int) -> bool:
    return any(isinstance(a, ast.Starred) for a in call.args[: position + 1])
