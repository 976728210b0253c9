"""What the inference does with a type once it has one: call it, await it, iterate it, enter it, index it,
unpack it, read an attribute of it. `Inference` (engine.py) supplies how names and expressions are
evaluated; class members come from `Members`.
"""

from __future__ import annotations

import ast
from abc import abstractmethod
from dataclasses import dataclass

from prscope.analysis.intel.infer.arguments import parameter_defaults, passed_argument
from prscope.analysis.intel.infer.frames import Bind, FunctionNode, Place, Step, own_nodes
from prscope.analysis.intel.infer.members import Members, filled
from prscope.analysis.intel.infer.stdlib_calls import STDLIB_FUNCTION, holds_repository_values
from prscope.analysis.intel.infer.values import (
    FOREIGN,
    FOREIGN_TYPES,
    NONE,
    NONE_TYPES,
    NOTHING,
    UNKNOWN,
    UNKNOWN_TYPES,
    AbstractValue,
    Awaitable,
    Bound,
    ClassRef,
    Entered,
    ForeignClass,
    Func,
    Inst,
    Map,
    Mod,
    Returns,
    Seq,
    Tup,
    Types,
    or_unknown,
    union,
)
from prscope.analysis.intel.signatures import Signature, has_splat

_TRANSPARENT = frozenset(
    {
        "staticmethod", "classmethod", "abstractmethod", "override", "final", "wraps", "lru_cache", "cache",
        "cached_property", "property", "abstractproperty", "overload", "no_type_check",
    }
)  # fmt: skip
_KEEPING = _TRANSPARENT | {"coroutine"}
_SEQ_BUILTINS = frozenset({"iter", "list", "tuple", "set", "frozenset", "sorted", "reversed"})
ROUTED_BUILTINS = _SEQ_BUILTINS | {"dict", "enumerate", "zip", "filter", "type", "next", "min", "max"}
"""Builtins whose result `builtin()` works out from the arguments (the other builtin classes give plain
data)."""
_SAME_BUILTINS = frozenset({"copy"})
_ELEMENT_BUILTINS = frozenset({"next", "min", "max"})
_FOREIGN_BUILTINS = frozenset(
    {"len", "isinstance", "issubclass", "hash", "id", "repr", "format", "abs", "round", "sum", "any", "all",
     "ord", "chr", "callable", "hasattr", "open", "print", "divmod", "pow", "bin", "hex", "oct", "ascii"}
)  # fmt: skip


class Operations(Members):
    outside_results = False

    @abstractmethod
    def keeps_result(self, decorator: ast.expr, place: Place) -> bool: ...

    @abstractmethod
    def expr(self, node: ast.expr, place: Place) -> Types: ...

    @abstractmethod
    def name(self, name: str, place: Place, line: int) -> Types: ...

    @abstractmethod
    def annotation(self, node: ast.expr | None, place: Place) -> Types: ...

    @abstractmethod
    def decorator_names(self, function: FunctionNode, place: Place) -> list[str]: ...

    def call(self, node: ast.Call, place: Place) -> Types:
        if _runs_a_coroutine(node):
            return self.awaited(self.expr(node.args[0], place))  # `loop.run_until_complete(make())`
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "get" and len(node.args) == 2:
            mapping = self.expr(func.value, place)
            if mapping and all(isinstance(v, Map) for v in mapping):  # `d.get(k, default)`
                values = union(*(v.values for v in mapping if isinstance(v, Map)))
                return union(values, self.expr(node.args[1], place))
        return self.apply(self.expr(func, place), node, place)

    def apply(self, callee: Types, node: ast.Call | None, place: Place) -> Types:
        """What calling something of type `callee` gives."""
        results: list[Types] = []
        for value in callee:
            if isinstance(value, ClassRef):
                results.append(frozenset({Inst(value.cls)}))
            elif isinstance(value, ForeignClass | Mod) or value is FOREIGN:
                results.append(FOREIGN_TYPES if not isinstance(value, Mod) else UNKNOWN_TYPES)
            elif isinstance(value, Func) and not value.line:
                results.append(self.builtin(value.name, node, place))
            elif isinstance(value, Func):
                results.append(self.returns(value, None, Call(node, place, 0) if node is not None else None))
            elif isinstance(value, Bound):
                call = Call(node, place, 1) if node is not None else None
                results.append(self.returns(value.func, value.receiver, call))
            elif isinstance(value, Returns):
                results.append(value.result)
            elif isinstance(value, Inst):
                results.append(self.apply(self.attribute(frozenset({value}), "__call__"), None, place))
            elif value is not NONE:
                results.append(UNKNOWN_TYPES)
        return or_unknown(union(*results))

    def builtin(self, name: str, node: ast.Call | None, place: Place) -> Types:
        """A builtin (or a known function from outside the repository) applied to the call's arguments."""
        args = node.args if node is not None else []

        def first() -> Types:
            return (
                self.expr(args[0], place) if args and not isinstance(args[0], ast.Starred) else UNKNOWN_TYPES
            )

        if name == "partial":
            return frozenset({Returns(self.apply(first(), None, place))}) if args else UNKNOWN_TYPES
        if name == "cast":
            return self.annotation(args[0], place) if args else UNKNOWN_TYPES
        if name in _SAME_BUILTINS:
            return first()
        if name in ("list", "tuple", "set", "frozenset") and not args:
            return frozenset({Seq(NOTHING)})
        if name in _SEQ_BUILTINS:
            return frozenset({Seq(self.elements(first()) if args else NOTHING)})
        if name in _ELEMENT_BUILTINS and len(args) == 1:
            return self.elements(first())
        if name == "enumerate":
            return frozenset({Seq(frozenset({Tup((FOREIGN_TYPES, self.elements(first())))}))})
        if name == "zip" and args:
            items = tuple(self.elements(self.expr(a, place)) for a in args)
            return frozenset({Seq(frozenset({Tup(items)}))})
        if name == "type" and len(args) == 1:
            return _classes_of(first())
        if name in ("filter",) and len(args) == 2:
            return frozenset({Seq(self.elements(self.expr(args[1], place)))})
        if name == "dict" and node is not None and not args:
            return frozenset({Map(union(*(self.expr(k.value, place) for k in node.keywords)))})
        if name in _FOREIGN_BUILTINS:
            return FOREIGN_TYPES
        if name == STDLIB_FUNCTION and node is not None:
            passed = [a.value if isinstance(a, ast.Starred) else a for a in args]
            passed += [k.value for k in node.keywords]
            handed_in = any(self._hands_in(self.expr(a, place)) for a in passed)
            return UNKNOWN_TYPES if handed_in else FOREIGN_TYPES  # `asyncio.new_event_loop()`
        return UNKNOWN_TYPES

    def _hands_in(self, argument: Types) -> bool:
        """Whether an argument may hand a repository object to the function called. Asked about
        provenance only (`outside_results`), an argument the code does not tell is taken for data (a
        file name, a mode)."""
        if self.outside_results:
            argument = argument - UNKNOWN_TYPES
        return holds_repository_values(argument)

    def returns(self, func: Func, receiver: Types | None, call: Call | None = None) -> Types:
        """What calling a repository function gives (for a method, called on `receiver`); `call` lets a
        generic function's result follow its arguments (`query_one(sel, Markdown)` -> a Markdown)."""
        if func.overloads and call is not None:
            chosen = self._overload(func, call)
            if chosen is not None:
                func = chosen
        located = self.code.function(func)
        if located is None:
            return UNKNOWN_TYPES
        node, inside = located
        if receiver is not None:
            inside = inside.with_self(receiver)
        if call is not None:
            inside = inside.with_arguments(self._arguments(node, call, inside.outer()))
        roles = self.decorator_names(node, inside.outer())
        if "contextmanager" in roles:
            return frozenset({Entered(self._yielded(node, inside))})
        unknown = [d for d, role in zip(node.decorator_list, roles, strict=True) if role not in _KEEPING]
        if any(not self.keeps_result(d, inside.outer()) for d in unknown):
            return UNKNOWN_TYPES  # a decorator the inference does not know may return anything
        awaitable = isinstance(node, ast.AsyncFunctionDef) or "coroutine" in roles
        if node.returns is not None and call is not None:
            generic = self._generic_result(node, inside, call)
            if generic is not None:
                return frozenset({Awaitable(generic)}) if awaitable and "coroutine" not in roles else generic
        if node.returns is not None:
            declared = self.annotation(node.returns, inside)
            if declared != UNKNOWN_TYPES:
                return (
                    frozenset({Awaitable(declared)}) if awaitable and "coroutine" not in roles else declared
                )
        if _is_generator(node) and "coroutine" not in roles:
            return frozenset({Seq(self._yielded(node, inside))})
        result = self._returned(node, inside)
        return frozenset({Awaitable(result)}) if awaitable else result

    def _arguments(
        self, node: FunctionNode, call: Call, defining: Place
    ) -> tuple[tuple[int, str, Types], ...]:
        """What this call gives each unannotated parameter the code tells: the argument it passes, or the
        parameter's default when it passes none and spreads nothing (`get_client()` of `def
        get_client(self, cls=redis.Redis)` makes a Redis, whatever other calls pass). The others keep
        what their annotation, a fixture or every caller says."""
        found: list[tuple[int, str, Types]] = []
        positional = [*node.args.posonlyargs, *node.args.args]
        defaults = parameter_defaults(node)
        spreads = has_splat(call.node)
        for index, arg in enumerate([*positional, *node.args.kwonlyargs]):
            if arg.annotation is not None or (arg in positional and index < call.shift):
                continue
            passed = passed_argument(call.node, arg.arg, index - call.shift if arg in positional else -1)
            if passed is not None:
                types = self.expr(passed, call.place)
            elif arg.arg in defaults and not spreads:
                types = self.expr(defaults[arg.arg], defining)
            else:
                continue
            if types and UNKNOWN not in types:
                found.append((id(node), arg.arg, types))
        return tuple(found)

    def _overload(self, func: Func, call: Call) -> Func | None:
        """The first `@overload` stub the call fits: its arguments bind, and a `type[...]` parameter gets a
        class."""
        for line in func.overloads:
            stub = Func(func.path, line, func.name, func.owner)
            located = self.code.function(stub)
            if located is None:
                continue
            node = located[0]
            signature = Signature.from_ast(node, in_class=func.owner is not None).for_call(
                bound=call.shift == 1
            )
            if signature.binds(call.node).status == "error":
                continue
            if self._fits_type_parameters(node, call):
                return stub
        return None

    def _fits_type_parameters(self, node: FunctionNode, call: Call) -> bool:
        """Whether the arguments fit what the stub's annotations ask: a class for `type[...]`, no class for
        `str`, `int`... (a selector string against a widget class)."""
        positional = [*node.args.posonlyargs, *node.args.args]
        for index, arg in enumerate([*positional, *node.args.kwonlyargs]):
            annotation = arg.annotation
            head = annotation.value if isinstance(annotation, ast.Subscript) else None
            wants_class = _plain_name(head) in ("type", "Type")
            wants_data = _plain_name(annotation) in ("str", "bytes", "int", "float", "bool")
            if not (wants_class or wants_data):
                continue
            passed = passed_argument(call.node, arg.arg, index - call.shift if arg in positional else -1)
            if passed is None:
                continue  # left to its default
            classes = [isinstance(v, ClassRef) for v in self.expr(passed, call.place)]
            if (wants_class and not (classes and all(classes))) or (wants_data and any(classes)):
                return False
        return True

    def _generic_result(self, node: FunctionNode, inside: Place, call: Call) -> Types | None:
        """`def f(cls: type[T]) -> T` / `def f(x: T) -> T`: the result is what the call passes there."""
        variable = _plain_name(node.returns)
        if variable is None or self.annotation(node.returns, inside) != UNKNOWN_TYPES:
            return None  # not a type variable: the annotation itself says what the result is
        positional = [*node.args.posonlyargs, *node.args.args]
        for index, arg in enumerate([*positional, *node.args.kwonlyargs]):
            wrapped = _type_of_variable(arg.annotation, variable)
            if wrapped is None:
                continue
            passed = passed_argument(call.node, arg.arg, index - call.shift if arg in positional else -1)
            if passed is None:
                return None
            found = self.expr(passed, call.place)
            if not wrapped:
                return found
            if not found or not all(isinstance(v, ClassRef) for v in found):
                return None
            return frozenset(Inst(v.cls) for v in found if isinstance(v, ClassRef))
        return None

    def _returned(self, node: FunctionNode, inside: Place) -> Types:
        values: list[Types] = []
        returns = [n for n in own_nodes(node) if isinstance(n, ast.Return)]
        for statement in returns:
            value = self.expr(statement.value, inside) if statement.value is not None else NONE_TYPES
            if UNKNOWN in value:
                return UNKNOWN_TYPES  # one unknown return poisons the rest: sympy's long functions
            values.append(value)
        if not returns:
            return UNKNOWN_TYPES if _only_raises_or_stub(node) else NONE_TYPES
        return or_unknown(union(*values))

    def _yielded(self, node: FunctionNode, inside: Place) -> Types:
        values = [
            self.expr(n.value, inside) if n.value is not None else NONE_TYPES
            for n in own_nodes(node)
            if isinstance(n, ast.Yield)
        ]
        return or_unknown(union(*values))

    def awaited(self, types: Types) -> Types:
        found: list[Types] = []
        for value in types:
            if isinstance(value, Awaitable):
                found.append(value.result)
            elif value is not NONE:
                found.append(UNKNOWN_TYPES)
        return or_unknown(union(*found))

    def elements(self, types: Types) -> Types:
        """What iterating an object of type `types` gives."""
        found: list[Types] = []
        for value in types:
            if isinstance(value, Seq):
                found.append(value.elements)
            elif isinstance(value, Tup):
                found.extend(value.items)
            elif isinstance(value, Inst):
                found.append(
                    self.elements(self.apply(self.attribute(frozenset({value}), "__iter__"), None, _NOWHERE))
                )
            elif value is not NONE:
                found.append(UNKNOWN_TYPES)
        return or_unknown(union(*found))

    def subscript(self, types: Types, index: ast.expr) -> Types:
        found: list[Types] = []
        for value in types:
            if isinstance(value, Seq):
                found.append(value.elements if not isinstance(index, ast.Slice) else frozenset({value}))
            elif isinstance(value, Tup):
                position = index.value if isinstance(index, ast.Constant) else None
                if isinstance(position, int) and -len(value.items) <= position < len(value.items):
                    found.append(value.items[position])
                else:
                    found.extend(value.items)
            elif isinstance(value, Map):
                found.append(value.values)
            elif isinstance(value, ClassRef):
                found.append(frozenset({value}))  # `Pool[Conn]`: the generic class itself
            elif isinstance(value, Inst):
                getter = self.attribute(frozenset({value}), "__getitem__")
                found.append(self.apply(getter, None, _NOWHERE))
            elif value is not NONE:
                found.append(UNKNOWN_TYPES)
        return or_unknown(union(*found))

    def entered(self, types: Types, is_async: bool) -> Types:
        """What `with <types> as x` binds x to."""
        found: list[Types] = []
        for value in types:
            if isinstance(value, Entered):
                found.append(value.value)
            elif isinstance(value, Inst):
                method = "__aenter__" if is_async else "__enter__"
                result = self.apply(self.attribute(frozenset({value}), method), None, _NOWHERE)
                found.append(self.awaited(result) if is_async else result)
            else:
                found.append(UNKNOWN_TYPES)
        return or_unknown(union(*found))

    def at_steps(self, types: Types, steps: tuple[Step, ...]) -> Types:
        """Where a target name sits in the assigned value: tuple items, starred rest."""
        for step in steps:
            if step == "*":
                types = frozenset({Seq(self.elements(types))})
                continue
            picked: list[Types] = []
            for value in types:
                if isinstance(value, Tup) and step < len(value.items):
                    picked.append(value.items[step])
                elif isinstance(value, Seq):
                    picked.append(value.elements)
                else:
                    picked.append(UNKNOWN_TYPES)
            types = or_unknown(union(*picked))
        return types

    def operator(self, node: ast.BinOp | ast.UnaryOp, place: Place) -> Types:
        """Arithmetic on objects from outside the repository stays outside (`tmp_path / "f"` is a
        Path); on the repository's own objects it may be anything their operators return."""
        if isinstance(node, ast.UnaryOp):
            return FOREIGN_TYPES if isinstance(node.op, ast.Not) else self.expr(node.operand, place)
        left = self.expr(node.left, place)
        if left and all(v is FOREIGN for v in left):
            return FOREIGN_TYPES
        if isinstance(node.op, ast.Add) and all(isinstance(v, Seq) for v in left):
            return frozenset({Seq(union(self.elements(left), self.elements(self.expr(node.right, place))))})
        return UNKNOWN_TYPES

    def display(self, node: ast.expr, place: Place) -> Types:
        """Containers written out: `[a, b]`, `(a, b)`, `{k: v}`, comprehensions, lambdas."""
        if isinstance(node, ast.List | ast.Set):
            return frozenset({Seq(self._items(node.elts, place))})
        if isinstance(node, ast.Tuple):
            if any(isinstance(e, ast.Starred) for e in node.elts):
                return frozenset({Seq(self._items(node.elts, place))})
            return frozenset({Tup(tuple(self.expr(e, place) for e in node.elts))})
        if isinstance(node, ast.Dict):
            values = [
                self.expr(v, place) if k is not None else _values_of(self.expr(v, place))
                for k, v in zip(node.keys, node.values, strict=True)
            ]
            return frozenset({Map(union(*values))})
        if isinstance(node, ast.ListComp | ast.SetComp | ast.GeneratorExp):
            return frozenset({Seq(self.expr(node.elt, place.inner(node)))})
        if isinstance(node, ast.DictComp):
            return frozenset({Map(self.expr(node.value, place.inner(node)))})
        if isinstance(node, ast.Lambda):
            return frozenset({Returns(self.expr(node.body, place.inner(node)))})
        return UNKNOWN_TYPES

    def _items(self, elements: list[ast.expr], place: Place) -> Types:
        return union(
            *(
                self.elements(self.expr(e.value, place))
                if isinstance(e, ast.Starred)
                else self.expr(e, place)
                for e in elements
            )
        )

    def with_mutations(self, name: str, bind: Bind, scope: Place, types: Types) -> Types:
        """A local container filled after it is made (`found = []` ... `found.append(Item(...))`)."""
        if not any(isinstance(v, Seq | Map) for v in types) or not scope.frames:
            return types
        return filled(types, self.added_to(scope.frames[-1], ("name", name), scope))


_NOWHERE = Place("", "", False)


@dataclass(frozen=True)
class Call:
    """A call being evaluated: its node, where it is written, and how many leading parameters it does not
    pass itself (1 for a bound method's `self`)."""

    node: ast.Call
    place: Place
    shift: int


def _runs_a_coroutine(node: ast.Call) -> bool:
    """`loop.run_until_complete(coro)`, `asyncio.run(coro)`: the call gives what the coroutine returns."""
    func = node.func
    if not node.args or isinstance(node.args[0], ast.Starred) or not isinstance(func, ast.Attribute):
        return False
    return func.attr == "run_until_complete" or (
        func.attr == "run" and isinstance(func.value, ast.Name) and func.value.id == "asyncio"
    )


def _plain_name(node: ast.expr | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.isidentifier():
        return node.value
    return node.id if isinstance(node, ast.Name) else None


def _type_of_variable(annotation: ast.expr | None, variable: str) -> bool | None:
    """True for `type[T]` / `Type[T]`, False for `T` itself, None for anything else."""
    if _plain_name(annotation) == variable:
        return False
    if isinstance(annotation, ast.Subscript) and _plain_name(annotation.slice) == variable:
        head = annotation.value
        name = head.attr if isinstance(head, ast.Attribute) else getattr(head, "id", "")
        return True if name in ("type", "Type") else None
    return None


def _values_of(types: Types) -> Types:
    return or_unknown(union(*(v.values if isinstance(v, Map) else UNKNOWN_TYPES for v in types)))


def _classes_of(types: Types) -> Types:
    found: set[AbstractValue] = set()
    for value in types:
        if isinstance(value, Inst):
            found.add(ClassRef(value.cls))
        elif value is FOREIGN:
            found.add(ForeignClass("?"))
        else:
            found.add(UNKNOWN)
    return frozenset(found) or UNKNOWN_TYPES


def _is_generator(node: FunctionNode) -> bool:
    return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in own_nodes(node))


def _only_raises_or_stub(node: FunctionNode) -> bool:
    """A body that only raises, or is a stub (`...`, `pass`, a docstring): abstract, overridden."""
    for statement in node.body:
        if isinstance(statement, ast.Raise | ast.Pass):
            continue
        if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
            continue
        return False
    return True


__all__ = ["NONE", "UNKNOWN", "Operations"]
