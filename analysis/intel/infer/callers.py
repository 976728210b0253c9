"""A parameter with no annotation: what the repository's calls of its function pass.

The function's call sites come from the code index's import-aware `find_usages` (exact references only);
at each, the argument bound to the parameter is inferred where the call is written. The answer counts
only when every such call passes something the code tells. This costs a query per function, so an
inference asks for a bounded number of them, and an inference made for such a query asks for none
(callers of callers are not followed).
"""

from __future__ import annotations

import ast
import threading
from typing import TYPE_CHECKING, Protocol

from prscope.analysis.intel.infer.frames import FunctionNode, Place
from prscope.analysis.intel.infer.values import UNKNOWN_TYPES, ClassRef, Inst, Types, known, union
from prscope.analysis.intel.models import Reference, UsageResult
from prscope.analysis.intel.modules import PSEUDO_PREFIX

if TYPE_CHECKING:
    from prscope.analysis.intel.infer.engine import Inference

_MAX_QUERIES = 16
_MAX_CALLS = 40
_MAX_NAMING_FILES = 32
"""A function whose name more files than this mention is not asked about: reading every occurrence takes
seconds on a big repository (sympy's `symbols`: 665 files, 2 s; `matches`: 59 files, 1.2-1.9 s a query,
which spent a review's budget at 64), and such a name is either called more than `_MAX_CALLS` times or
shared with many other functions (`eval`, `__new__`), whose calls are not its."""
_nested = threading.local()


class UsageSource(Protocol):
    def find_usages(self, target: str) -> UsageResult: ...


def in_caller_query() -> bool:
    """Whether the current thread runs a query made to find a parameter's callers."""
    return bool(getattr(_nested, "depth", 0))


class Callers:
    def __init__(self, source: UsageSource) -> None:
        self.source = source
        self._queries = 0
        self._usages: dict[str, list[Reference] | None] = {}

    def parameter(
        self, engine: Inference, function: FunctionNode, arg: ast.arg, scope: Place
    ) -> Types | None:
        target = self._target(engine, function, scope)
        if target is None:
            return None
        references = self._calls(target)
        if not references:
            return None
        found: list[Types] = []
        for reference in references:
            if function.name == "__init__" and not self._constructs(engine, reference, scope):
                continue
            passed = self._passed(engine, reference, function, arg, scope, target)
            if passed is None or not known(passed):
                return UNKNOWN_TYPES
            found.append(passed)
        return union(*found)

    def _constructs(self, engine: Inference, reference: Reference, scope: Place) -> bool:
        """For an instance of a known class: whether this call of `__init__` can have made it (a
        constructor call of that very class, or `super().__init__` / `Base.__init__(self)` in a class of
        its hierarchy); the sibling classes' calls made other objects."""
        made = [v.cls for v in scope.self_types or () if isinstance(v, Inst)]
        if not made:
            return True
        word = reference.text[reference.col - 1 : reference.end_col - 1]
        located = engine.code.call_at(reference.path, reference.line, reference.col - 1, word)
        if located is None:
            return True
        call, place = located
        if word != "__init__":
            built = engine.expr(call.func, place)
            return any(isinstance(v, ClassRef) and v.cls in made for v in built) or not built
        owner = engine.owner_class(_method_place(place))
        return owner is None or any(owner in engine.linearize(cls)[0] for cls in made)

    def _target(self, engine: Inference, function: FunctionNode, scope: Place) -> str | None:
        """The dotted name `find_usages` knows the function by (module functions and methods of
        top-level classes only)."""
        if scope.module.startswith(PSEUDO_PREFIX):
            return None
        if len(scope.frames) == 1 and scope.unit_class is None:
            return f"{scope.module}.{function.name}"
        owner = engine.owner_class(scope)
        if owner is None or "." in owner.name or len(scope.frames) > 2:
            return None
        return f"{owner.module}.{owner.name}.{function.name}"

    def _calls(self, target: str) -> list[Reference] | None:
        """The exact call sites of `target`; None when the function is also used otherwise (handed
        around, so calls the index cannot see may pass anything) or when the budget is spent."""
        if target in self._usages:
            return self._usages[target]
        if self._queries >= _MAX_QUERIES:
            return None
        if self._named_widely(target):
            self._usages[target] = None
            return None
        self._queries += 1
        _nested.depth = getattr(_nested, "depth", 0) + 1
        try:
            result = self.source.find_usages(target)
        finally:
            _nested.depth -= 1
        calls: list[Reference] | None = []
        for reference in result.exact:
            if reference.kind in ("import", "definition"):
                continue
            if reference.kind != "call":
                calls = None
                break
            assert calls is not None
            calls.append(reference)
        if calls is not None and len(calls) > _MAX_CALLS:
            calls = None
        self._usages[target] = calls
        return calls

    def _named_widely(self, target: str) -> bool:
        """Whether more than `_MAX_NAMING_FILES` files mention the word the query would read (a
        constructor's: its class name)."""
        naming = getattr(self.source, "files_with_any_word", None)
        listing = getattr(self.source, "python_files", None)
        if naming is None or listing is None:
            return False
        parts = target.split(".")
        word = parts[-2] if parts[-1] == "__init__" and len(parts) >= 2 else parts[-1]
        return len(naming([word], set(listing()))) > _MAX_NAMING_FILES

    def _passed(
        self,
        engine: Inference,
        reference: Reference,
        function: FunctionNode,
        arg: ast.arg,
        scope: Place,
        target: str,
    ) -> Types | None:
        word = reference.text[reference.col - 1 : reference.end_col - 1]
        located = engine.code.call_at(reference.path, reference.line, reference.col - 1, word)
        if located is None:
            return None
        call, place = located
        expression = _argument(call, function, arg, _shift(engine, call, place, function, scope, target))
        if expression is None:
            default = _default(function, arg)
            return engine.expr(default, scope.outer()) if default is not None else None
        if not isinstance(expression, ast.expr):
            return None
        return engine.expr(expression, place)


def _method_place(place: Place) -> Place:
    """The place of the method a call is written in (its innermost function directly in a class)."""
    frames = place.frames
    for index in range(len(frames) - 1, -1, -1):
        if isinstance(frames[index], ast.FunctionDef | ast.AsyncFunctionDef):
            return place.upto(index)
    return place


def _shift(
    engine: Inference, call: ast.Call, place: Place, function: FunctionNode, scope: Place, target: str
) -> int:
    """How many leading parameters the call does not pass itself (the bound `self` or `cls`)."""
    if len(scope.frames) == 1 and scope.unit_class is None:
        return 0
    decorators = {getattr(d, "id", getattr(d, "attr", "")) for d in function.decorator_list}
    if "staticmethod" in decorators:
        return 0
    if "classmethod" in decorators:
        return 1
    func = call.func
    if isinstance(func, ast.Attribute) and func.attr == function.name:
        receiver = engine.expr(func.value, place)
        if receiver and all(isinstance(v, ClassRef) for v in receiver):
            # `Cls.meth(obj, ...)`, `Base.__init__(self, parser, tree)`: the instance is passed by hand
            # (html5lib 6d7e57c6 read each phase's `tree` as its `parser`, one argument early)
            return 0
    return 1


def _argument(call: ast.Call, function: FunctionNode, arg: ast.arg, shift: int) -> ast.expr | bool | None:
    """The expression the call binds to `arg`: None when it passes nothing (the default applies),
    False when it cannot be told (`*args`, `**kwargs`)."""
    for keyword in call.keywords:
        if keyword.arg == arg.arg:
            return keyword.value
    positional = [*function.args.posonlyargs, *function.args.args]
    if arg in positional:
        index = positional.index(arg) - shift
        for position, value in enumerate(call.args):
            if isinstance(value, ast.Starred):
                return False
            if position == index:
                return value
    if any(k.arg is None for k in call.keywords):
        return False
    return None


def _default(function: FunctionNode, arg: ast.arg) -> ast.expr | None:
    args = function.args
    positional = [*args.posonlyargs, *args.args]
    if arg in positional:
        offset = len(positional) - len(args.defaults)
        index = positional.index(arg) - offset
        return args.defaults[index] if index >= 0 else None
    if arg in args.kwonlyargs:
        return args.kw_defaults[args.kwonlyargs.index(arg)]
    return None


__all__ = ["Callers", "in_caller_query"]
