"""How a call's arguments meet a function's parameters, read from the syntax alone."""

from __future__ import annotations

import ast

from prscope.analysis.intel.infer.frames import FunctionNode


def parameter_defaults(node: FunctionNode) -> dict[str, ast.expr]:
    """Each parameter's default expression."""
    positional = [*node.args.posonlyargs, *node.args.args]
    found = {
        arg.arg: default
        for arg, default in zip(
            positional[len(positional) - len(node.args.defaults) :], node.args.defaults, strict=True
        )
    }
    for arg, kw_default in zip(node.args.kwonlyargs, node.args.kw_defaults, strict=True):
        if kw_default is not None:
            found[arg.arg] = kw_default
    return found


def passed_argument(call: ast.Call, name: str, position: int) -> ast.expr | None:
    """The argument `call` passes for parameter `name` (by keyword, or at `position`; -1: keyword only)."""
    for keyword in call.keywords:
        if keyword.arg == name:
            return keyword.value
    if position < 0 or any(isinstance(a, ast.Starred) for a in call.args[: position + 1]):
        return None
    return call.args[position] if position < len(call.args) else None
