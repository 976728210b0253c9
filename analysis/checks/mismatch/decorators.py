"""Whether a decorator the repository defines keeps the parameters of what it decorates.

override-mismatch compares argument lists, so a decorated method is compared only when its decorators
keep the list: the known ones (`staticmethod`, `functools.wraps`...), and the repository's own decorators
that give back the function itself (`copy_doc`: sets `__doc__`, returns `func`) or a wrapper made with
`functools.wraps(func)` that takes `*args` (and `**kwargs`) and passes them on (`retry_connection`). A
decorator factory (`@copy_doc(Base.meth)`) is followed to the decorator it returns.
"""

from __future__ import annotations

import ast

from prscope.analysis.checks.mismatch.defs import (
    COROUTINE_DECORATORS,
    PARAMETER_KEEPING_DECORATORS,
    FunctionFacts,
)
from prscope.analysis.intel import CodeIndex
from prscope.analysis.intel.resolve import Resolver
from prscope.analysis.intel.scopes import dotted_chain

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


class DecoratorOracle:
    def __init__(self, index: CodeIndex) -> None:
        self.index = index
        self.resolver = Resolver(index)
        self._memo: dict[tuple[str, str, bool], bool] = {}

    def keeps_parameters(self, module: str, facts: FunctionFacts) -> bool:
        for decorator, name in zip(facts.node.decorator_list, facts.decorators, strict=True):
            if name in PARAMETER_KEEPING_DECORATORS or name in COROUTINE_DECORATORS:
                continue
            if not self._keeps(module, decorator):
                return False
        return True

    def _keeps(self, module: str, decorator: ast.expr) -> bool:
        factory = isinstance(decorator, ast.Call)
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        chain = dotted_chain(target)
        if chain is None:
            return False
        key = (module, ".".join(chain), factory)
        if key not in self._memo:
            self._memo[key] = self._defined_to_keep(module, chain, factory)
        return self._memo[key]

    def _defined_to_keep(self, module: str, chain: tuple[str, ...], factory: bool) -> bool:
        values = self.resolver.chain_values(module, chain, None)
        if len(values) != 1 or values[0].kind != "member":
            return False
        definitions = self.index.find_definitions(f"{values[0].module}.{values[0].name}")
        if len(definitions) != 1:
            return False
        located = self.index.unit_tree(definitions[0].path, definitions[0].line)
        if located is None:
            return False
        function = next(
            (
                n
                for n in ast.walk(located[1])
                if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.lineno == definitions[0].line
            ),
            None,
        )
        if function is None:
            return False
        if factory:
            function = _returned_function(function)
            if function is None:
                return False
        return _gives_back_the_function(function)


def _returned_function(function: FunctionNode) -> FunctionNode | None:
    """The nested function a decorator factory returns."""
    nested = {n.name: n for n in function.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    returned = [s.value for s in function.body if isinstance(s, ast.Return)]
    if len(returned) == 1 and isinstance(returned[0], ast.Name):
        return nested.get(returned[0].id)
    return None


def _gives_back_the_function(decorator: FunctionNode) -> bool:
    """Whether every `return` of a decorator gives its argument back, or a `functools.wraps(argument)`
    wrapper taking `*args, **kwargs`."""
    params = [*decorator.args.posonlyargs, *decorator.args.args]
    if len(params) != 1:
        return False
    given = params[0].arg
    nested = {n.name: n for n in ast.walk(decorator) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    returns = [s for s in decorator.body if isinstance(s, ast.Return)]
    if not returns:
        return False
    for statement in returns:
        value = statement.value
        if isinstance(value, ast.Name) and value.id == given:
            continue
        wrapper = nested.get(value.id) if isinstance(value, ast.Name) else None
        if wrapper is None or not _wraps(wrapper, given) or not _takes_anything(wrapper):
            return False
    return True


def _wraps(wrapper: FunctionNode, given: str) -> bool:
    for decorator in wrapper.decorator_list:
        if isinstance(decorator, ast.Call) and (dotted_chain(decorator.func) or ("",))[-1] == "wraps":
            return (
                bool(decorator.args)
                and isinstance(decorator.args[0], ast.Name)
                and decorator.args[0].id == given
            )
    return False


def _takes_anything(wrapper: FunctionNode) -> bool:
    # `(*args, **kwargs)`, or `(self, *args)`: every positional call reaches the function as it came (a
    # keyword call fails at the wrapper whatever the function takes, so positions are what compare).
    args = wrapper.args
    positional = [*args.posonlyargs, *args.args]
    return args.vararg is not None and not args.kwonlyargs and len(positional) <= 1
