"""Whether a repository decorator hands back what the decorated function returns.

A decorator the inference does not know may return anything, so a decorated function's result is
unknown. A repository decorator is read instead when its wrapper returns only the wrapped function's own
result: `return func(*args)`, a name bound to that call, or a cache entry the wrapper fills with it
(jedi's `_memoize_default`: `rv = function(obj, *args); memo[key] = rv; ... return memo[key]`). A
decorator factory (`@cache(default=None)`) is followed to the decorator it returns, and a decorator that
is itself another factory's decorator applied to the function (`return _memoize_default(...)(func)`) to
that one, a few levels deep.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from prscope.analysis.intel.infer.frames import FunctionNode, Place, own_nodes
from prscope.analysis.intel.infer.values import Func
from prscope.analysis.intel.scopes import dotted_chain

if TYPE_CHECKING:
    from prscope.analysis.intel.infer.engine import Inference

_MAX_DEPTH = 3


def keeps_result(engine: Inference, decorator: ast.expr, place: Place) -> bool:
    """Whether `@decorator` (written at `place`) leaves the decorated function's result as it is."""
    is_factory = isinstance(decorator, ast.Call)
    target = decorator.func if isinstance(decorator, ast.Call) else decorator
    return _applied_keeps(engine, target, place, is_factory, 0)


def _applied_keeps(engine: Inference, target: ast.expr, place: Place, is_factory: bool, depth: int) -> bool:
    located = _repository_function(engine, target, place)
    if located is None or depth > _MAX_DEPTH:
        return False
    node, module_place = located
    decorator = _returned_function(node) if is_factory else node
    return decorator is not None and _decorator_keeps(engine, decorator, module_place, depth)


def _repository_function(
    engine: Inference, target: ast.expr, place: Place
) -> tuple[FunctionNode, Place] | None:
    chain = dotted_chain(target)
    if chain is None:
        return None
    found = engine.chain(chain, place)
    if len(found) != 1:
        return None
    func = next(iter(found))
    if not isinstance(func, Func) or not func.line or func.owner is not None:
        return None
    located = engine.code.function(func)
    if located is None:
        return None
    return located[0], engine.code.module_place(func.path)


def _returned_function(factory: FunctionNode) -> FunctionNode | None:
    """The function a decorator factory defines and returns (`def decorator(func): ...; return decorator`)."""
    nested = _nested_functions(factory)
    returned = [n.value for n in own_nodes(factory) if isinstance(n, ast.Return)]
    names = {v.id for v in returned if isinstance(v, ast.Name)}
    if len(returned) != 1 or len(names) != 1:
        return None
    return nested.get(names.pop())


def _nested_functions(function: FunctionNode) -> dict[str, FunctionNode]:
    """The functions a function defines in its own body, by name."""
    return {n.name: n for n in own_nodes(function) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}


def _decorator_keeps(engine: Inference, decorator: FunctionNode, module_place: Place, depth: int) -> bool:
    positional = [*decorator.args.posonlyargs, *decorator.args.args]
    if len(positional) != 1:
        return False
    wrapped = positional[0].arg
    nested = _nested_functions(decorator)
    returned = [n.value for n in own_nodes(decorator) if isinstance(n, ast.Return)]
    if not returned:
        return False
    for value in returned:
        if isinstance(value, ast.Name) and value.id == wrapped:
            continue  # a decorator that registers the function and returns it unchanged
        if isinstance(value, ast.Name) and value.id in nested:
            if not _wrapper_keeps(nested[value.id], wrapped):
                return False
            continue
        if not _passes_on(engine, value, wrapped, module_place, depth):
            return False
    return True


def _passes_on(engine: Inference, value: ast.expr | None, wrapped: str, place: Place, depth: int) -> bool:
    """`return other(func)` / `return other_factory(...)(func)`: another decorator that keeps the result."""
    if not (isinstance(value, ast.Call) and len(value.args) == 1 and not value.keywords):
        return False
    argument = value.args[0]
    if not (isinstance(argument, ast.Name) and argument.id == wrapped):
        return False
    applied = value.func
    if isinstance(applied, ast.Call):
        return _applied_keeps(engine, applied.func, place, True, depth + 1)
    return _applied_keeps(engine, applied, place, False, depth + 1)


def _wrapper_keeps(wrapper: FunctionNode, wrapped: str) -> bool:
    """Every `return` of the wrapper gives the wrapped function's result (directly, through a name bound
    only to it, or from a cache filled with it)."""
    if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in own_nodes(wrapper)):
        return False
    returned = [n.value for n in own_nodes(wrapper) if isinstance(n, ast.Return)]
    if isinstance(wrapper, ast.AsyncFunctionDef):
        # `async def wrapper` makes a coroutine of whatever it returns: only `return await func(...)`
        # (the wrapped function is a coroutine function too) keeps the result as it was
        return bool(returned) and all(isinstance(v, ast.Await) and _calls(v.value, wrapped) for v in returned)
    results = _names_bound_to_calls_of(wrapper, wrapped)
    caches = _caches_filled_with(wrapper, wrapped, results)
    if not returned:
        return False
    for value in returned:
        if _calls(value, wrapped) or (isinstance(value, ast.Name) and value.id in results):
            continue
        if (
            isinstance(value, ast.Subscript)
            and isinstance(value.value, ast.Name)
            and value.value.id in caches
        ):
            continue
        return False
    return True


def _calls(node: ast.expr | None, wrapped: str) -> bool:
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == wrapped


def _names_bound_to_calls_of(wrapper: FunctionNode, wrapped: str) -> set[str]:
    """Names every assignment of which (in the wrapper's own code) is a call of the wrapped function."""
    assigned: dict[str, bool] = {}
    for node in own_nodes(wrapper):
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            value = node.value
            for target in targets:
                if isinstance(target, ast.Name):
                    ok = not isinstance(node, ast.AugAssign) and _calls(value, wrapped)
                    assigned[target.id] = assigned.get(target.id, True) and ok
        elif isinstance(node, ast.For | ast.AsyncFor | ast.NamedExpr | ast.withitem):
            stored = node.optional_vars if isinstance(node, ast.withitem) else node.target
            for stored_node in ast.walk(stored) if stored is not None else ():
                if isinstance(stored_node, ast.Name):
                    assigned[stored_node.id] = False
    return {name for name, ok in assigned.items() if ok}


def _caches_filled_with(wrapper: FunctionNode, wrapped: str, results: set[str]) -> set[str]:
    """`memo` of `memo[key] = rv` where `rv` is the wrapped function's result."""
    caches: set[str] = set()
    for node in own_nodes(wrapper):
        if not isinstance(node, ast.Assign):
            continue
        value = node.value
        fills = _calls(value, wrapped) or (isinstance(value, ast.Name) and value.id in results)
        for target in node.targets:
            if fills and isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                caches.add(target.value.id)
    return caches
