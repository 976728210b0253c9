"""Whether a decorator the repository defines keeps the parameters of what it decorates.

override-mismatch compares argument lists, so a decorated method is compared only when its decorators
keep the list: the known ones (`staticmethod`, `functools.wraps`...), and the repository's own decorators
that give back the function itself (`copy_doc`: sets `__doc__`, returns `func`) or a wrapper made with
`functools.wraps(func)` that takes `*args` (and `**kwargs`) and passes them on (`retry_connection`). A
decorator factory (`@copy_doc(Base.meth)`) is followed to the decorator it returns. A `wraps(func)`
wrapper with an argument list of its own (tortoise's `translate_exceptions`: `wrapped(self, query)`) is
what callers get: the method is compared with the wrapper's parameters.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import replace

from prscope.analysis.checks.mismatch.defs import (
    COROUTINE_DECORATORS,
    PARAMETER_KEEPING_DECORATORS,
    FunctionFacts,
)
from prscope.analysis.checks.mismatch.resolution import FunctionNode, defined_function
from prscope.analysis.intel import CodeIndex
from prscope.analysis.intel.resolve import Resolver
from prscope.analysis.intel.scopes import dotted_chain


class DecoratorOracle:
    def __init__(self, index: CodeIndex) -> None:
        self.index = index
        self.resolver = Resolver(index)
        self._memo: dict[tuple[str, str, bool], bool | ast.arguments | None] = {}

    def keeps_parameters(self, module: str, facts: FunctionFacts) -> bool:
        return self.as_called(module, facts) is facts

    def as_called(self, module: str, facts: FunctionFacts) -> FunctionFacts | None:
        """The method as its callers see it: itself when its decorators keep its parameters; with a
        fixed-signature wrapper's parameters when one decorator gives such a wrapper; None when unknown."""
        if facts.keeps_parameters:
            return facts
        wrapper: ast.arguments | None = None
        for decorator, name in zip(facts.node.decorator_list, facts.decorators, strict=True):
            if name in PARAMETER_KEEPING_DECORATORS or name in COROUTINE_DECORATORS:
                continue
            kept = self._keeps(module, decorator)
            if kept is None or (isinstance(kept, ast.arguments) and wrapper is not None):
                return None
            if isinstance(kept, ast.arguments):
                wrapper = kept
        if wrapper is None:
            return facts
        node = copy.copy(facts.node)
        node.args = wrapper
        return replace(facts, node=node)

    def _keeps(self, module: str, decorator: ast.expr) -> bool | ast.arguments | None:
        factory = isinstance(decorator, ast.Call)
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        chain = dotted_chain(target)
        if chain is None:
            return None
        key = (module, ".".join(chain), factory)
        if key not in self._memo:
            self._memo[key] = self._defined_to_keep(module, chain, factory)
        return self._memo[key]

    def _defined_to_keep(
        self, module: str, chain: tuple[str, ...], factory: bool
    ) -> bool | ast.arguments | None:
        """True: the decorator keeps the parameters; arguments: it gives a wrapper taking these; None:
        unknown."""
        function = defined_function(self.index, self.resolver, module, chain)
        if function is None:
            return None
        if factory:
            function = _returned_function(function)
            if function is None:
                return None
        return _gives_back_the_function(function)


def _returned_function(function: FunctionNode) -> FunctionNode | None:
    """The nested function a decorator factory returns."""
    nested = {n.name: n for n in function.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    returned = [s.value for s in function.body if isinstance(s, ast.Return)]
    if len(returned) == 1 and isinstance(returned[0], ast.Name):
        return nested.get(returned[0].id)
    return None


def _gives_back_the_function(decorator: FunctionNode) -> bool | ast.arguments | None:
    """True when every `return` of a decorator gives its argument back, or a `functools.wraps(argument)`
    wrapper taking `*args, **kwargs`; the wrapper's arguments when its one `return` gives a `wraps`
    wrapper with an argument list of its own; None otherwise."""
    params = [*decorator.args.posonlyargs, *decorator.args.args]
    if len(params) != 1:
        return None
    given = params[0].arg
    nested = {n.name: n for n in ast.walk(decorator) if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)}
    returns = [s for s in decorator.body if isinstance(s, ast.Return)]
    if not returns:
        return None
    fixed: list[ast.arguments] = []
    for statement in returns:
        value = statement.value
        if isinstance(value, ast.Name) and value.id == given:
            continue
        wrapper = nested.get(value.id) if isinstance(value, ast.Name) else None
        if wrapper is None or not _wraps(wrapper, given):
            return None
        if not _takes_anything(wrapper, given):
            fixed.append(wrapper.args)
    if not fixed:
        return True
    return fixed[0] if len(returns) == 1 and _plain(fixed[0]) else None


def _plain(arguments: ast.arguments) -> bool:
    """A fixed argument list (no `*args` / `**kw`): what the wrapper accepts is all callers may pass."""
    return arguments.vararg is None and arguments.kwarg is None


def _wraps(wrapper: FunctionNode, given: str) -> bool:
    for decorator in wrapper.decorator_list:
        if isinstance(decorator, ast.Call) and (dotted_chain(decorator.func) or ("",))[-1] == "wraps":
            return (
                bool(decorator.args)
                and isinstance(decorator.args[0], ast.Name)
                and decorator.args[0].id == given
            )
    return False


def _takes_anything(wrapper: FunctionNode, given: str) -> bool:
    # `(*args, **kwargs)`, `(self, *args)`, or `(self, query, *args)` calling `func(self, query, *args)`:
    # every positional call reaches the function as it came (a keyword call fails at the wrapper whatever
    # the function takes, so positions are what compare).
    args = wrapper.args
    positional = [*args.posonlyargs, *args.args]
    if args.vararg is None or args.kwonlyargs:
        return False
    return len(positional) <= 1 or _forwards_in_order(
        wrapper, given, [a.arg for a in positional], args.vararg.arg
    )


def _forwards_in_order(wrapper: FunctionNode, given: str, positional: list[str], rest: str) -> bool:
    """Whether the wrapper calls `given(p1, p2, ..., *rest)` with its own positionals, in order."""
    for node in ast.walk(wrapper):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == given):
            continue
        if not node.args:
            continue
        *named, last = node.args
        if (
            [n.id if isinstance(n, ast.Name) else None for n in named] == positional
            and isinstance(last, ast.Starred)
            and isinstance(last.value, ast.Name)
            and last.value.id == rest
        ):
            return True
    return False
