"""The inference: what an expression may hold, from what the code says.

Names are followed to their bindings (assignments, loop targets, `with` targets, imports, parameters),
calls to what the callee returns (its annotation, else its `return` statements), attributes to what the
class declares or assigns, containers to their elements. A parameter with nothing to say gets its type
from pytest fixtures or from every call site in the repository. Each step is memoised per node and
place; a budget of steps and of parsed parts keeps one inference cheap, and what is past the budget is
unknown (never guessed).
"""

from __future__ import annotations

import ast
import builtins
from typing import TYPE_CHECKING

from prscope.analysis.deadline import check_deadline
from prscope.analysis.intel.infer.annotations import annotation_types, instances
from prscope.analysis.intel.infer.code import CodeReader, CodeSource
from prscope.analysis.intel.infer.frames import Bind, FunctionNode, Place, is_method_frame
from prscope.analysis.intel.infer.keeps_result import keeps_result
from prscope.analysis.intel.infer.lambdas import lambda_parameter
from prscope.analysis.intel.infer.narrowing import Chain, IsinstanceTests, narrowing_chains
from prscope.analysis.intel.infer.operations import ROUTED_BUILTINS, Operations
from prscope.analysis.intel.infer.stdlib_calls import (
    STDLIB_FUNCTION,
    plain_stdlib_function,
    stdlib_module,
    stdlib_submodule,
)
from prscope.analysis.intel.infer.values import (
    FOREIGN_TYPES,
    NONE_TYPES,
    NOTHING,
    UNKNOWN,
    UNKNOWN_TYPES,
    ClassRef,
    ForeignClass,
    Func,
    Inst,
    Map,
    Mod,
    Seq,
    Types,
    union,
)
from prscope.analysis.intel.meaning import is_proxy, looks_like_class
from prscope.analysis.intel.resolve import Resolver, Value
from prscope.analysis.intel.scopes import Binding, dotted_chain, import_bindings

if TYPE_CHECKING:
    from prscope.analysis.intel.infer.callers import Callers
    from prscope.analysis.intel.infer.fixtures import Fixtures

MAX_STEPS = 6000
MAX_DEPTH = 48
"""Expressions under evaluation at once: deeper chains (an argument of an argument of...) are unknown."""
# Builtin classes whose instances are plain data (or exceptions): nothing of the repository's. Any other
# builtin (`type`, `super`, `zip`, `sorted`...) is applied by `builtin()`, which knows what it gives.
_DATA_NAMES = frozenset(
    {"str", "int", "float", "bool", "bytes", "bytearray", "complex", "list", "dict", "set", "frozenset",
     "tuple", "object", "memoryview", "range", "slice"}
)  # fmt: skip
_BUILTIN_CLASSES = frozenset(
    n
    for n in dir(builtins)
    if isinstance(getattr(builtins, n), type)
    and (n in _DATA_NAMES or issubclass(getattr(builtins, n), BaseException))
)
_BUILTIN_FUNCTIONS = frozenset(n for n in dir(builtins) if n not in _BUILTIN_CLASSES)
BUILTIN = "<builtin>"
# Functions from outside the repository whose result the inference knows from their arguments.
KNOWN_FOREIGN = {
    "functools.partial": "partial",
    "typing.cast": "cast",
    "typing_extensions.cast": "cast",
    "copy.copy": "copy",
    "copy.deepcopy": "copy",
    "dataclasses.replace": "copy",
    "attr.evolve": "copy",
    "attrs.evolve": "copy",
    "contextlib.contextmanager": "contextmanager",
    "contextlib.asynccontextmanager": "contextmanager",
    "contextlib.closing": "copy",
    "asyncio.coroutine": "coroutine",
    "types.coroutine": "coroutine",
}


class Inference(Operations):
    """One inference over the repository's current files; create one per query or check run."""

    def __init__(
        self,
        source: CodeSource,
        resolver: Resolver,
        *,
        callers: Callers | None = None,
        outside_results: bool = False,
    ) -> None:
        self.code = CodeReader(source)
        # Whether a function of a third-party module gives its own object, as a plain standard-library
        # function does: a question of provenance only (`made_outside`), never of a type a rule reports
        # on, since such a function may return anything (a loader, a registry).
        self.outside_results = outside_results
        self.resolver = resolver
        self._memo: dict[tuple[int, Place], Types] = {}
        self._active: set[tuple[int, Place]] = set()
        self._steps = 0
        self.callers = callers
        self._fixtures: Fixtures | None = None
        self._tests = IsinstanceTests()
        self._chains: dict[tuple[int, str], list[Chain]] = {}
        self._keeps_result: dict[int, bool] = {}

    @property
    def fixtures(self) -> Fixtures:
        if self._fixtures is None:
            from prscope.analysis.intel.infer.fixtures import Fixtures

            self._fixtures = Fixtures(self)
        return self._fixtures

    def receiver(self, path: str, line: int, col: int, word: str) -> Types | None:
        """What the receiver of the `<expr>.word` at (line, col) may hold; None when it is not found."""
        located = self.code.attribute_at(path, line, col, word)
        if located is None:
            return None
        node, place = located
        try:
            return self.expr(node.value, place)
        except RecursionError:
            return None  # code nested past what Python's stack allows: say nothing

    def member(self, path: str, line: int, col: int, word: str) -> Types | None:
        """What the `<expr>.word` at (line, col) itself holds (a method, a callback...)."""
        located = self.code.attribute_at(path, line, col, word)
        if located is None:
            return None
        node, place = located
        try:
            return self.expr(node, place)
        except RecursionError:
            return None

    def expr(self, node: ast.expr, place: Place) -> Types:
        key = (id(node), place)
        found = self._memo.get(key)
        if found is not None:
            return found
        if key in self._active or self._steps >= MAX_STEPS or len(self._active) >= MAX_DEPTH:
            return UNKNOWN_TYPES
        self._steps += 1
        if self._steps % 256 == 0:
            check_deadline()
        self._active.add(key)
        try:
            result = self._expr(node, place)
        finally:
            self._active.discard(key)
        self._memo[key] = result
        return result

    def _expr(self, node: ast.expr, place: Place) -> Types:
        if isinstance(node, ast.Name):
            return self.name(node.id, place, node.lineno, node.col_offset)
        if isinstance(node, ast.Attribute):
            return self.attribute(self.expr(node.value, place), node.attr)
        if isinstance(node, ast.Call):
            return self.call(node, place)
        if isinstance(node, ast.Await | ast.YieldFrom):
            return self.awaited(self.expr(node.value, place))
        if isinstance(node, ast.Subscript):
            return self.subscript(self.expr(node.value, place), node.slice)
        if isinstance(node, ast.Constant):
            return NONE_TYPES if node.value is None else FOREIGN_TYPES
        if isinstance(node, ast.JoinedStr | ast.Compare):
            return FOREIGN_TYPES
        if isinstance(node, ast.IfExp):
            return union(self.expr(node.body, place), self.expr(node.orelse, place))
        if isinstance(node, ast.BoolOp):
            return union(*(self.expr(v, place) for v in node.values))
        if isinstance(node, ast.NamedExpr | ast.Starred):
            return self.expr(node.value, place)
        if isinstance(node, ast.BinOp | ast.UnaryOp):
            return self.operator(node, place)
        return self.display(node, place)

    def name(self, name: str, place: Place, line: int, column: int = 0) -> Types:
        """What a name holds where it is read (`line` 0: nowhere in particular): the innermost scope
        binding it, else the module."""
        frames = place.frames
        index = len(frames) - 1
        while index >= 0:
            frame = frames[index]
            if isinstance(frame, ast.ClassDef) and index != len(frames) - 1:
                index -= 1  # a class body's names are not seen from the functions inside it
                continue
            binds = self.code.table(frame).names.get(name)
            if binds:
                kinds = {b.kind for b in binds}
                if "global" in kinds:
                    # The module's binding, and what this function itself assigns to it.
                    own = [b for b in binds if b.kind != "global"]
                    return union(self.module_name(name, place), self.binds(name, own, place.upto(index)))
                if kinds == {"nonlocal"}:
                    index -= 1
                    continue
                scope = place.upto(index)
                narrowed = self._tests.proven(frame, name, (line, column))
                if narrowed is not None:
                    return self.annotation(narrowed, scope)
                reaching = self._reaching_types(name, _reaching(binds, frame, line), frame, line, scope)
                return self._without_excluded(reaching, frame, name, (line, column), scope)
            index -= 1
        return self.module_name(name, place)

    def _without_excluded(
        self, types: Types, frame: ast.AST, name: str, read: tuple[int, int], scope: Place
    ) -> Types:
        """`types` less the instances of classes an `isinstance` test known false where the name is read
        rules out (zigpy 2cbb79f433: `... if isinstance(hdr, ZCLHeader) else hdr.is_reply` reads a header
        of another class). Nothing left: the code holds something the inference does not know."""
        if UNKNOWN in types:
            return types
        classes = self._tests.ruled_out(frame, name, read)
        ruled_out = [t.cls for cls in classes for t in self.annotation(cls, scope) if isinstance(t, Inst)]
        if not ruled_out:
            return types
        kept = frozenset(t for t in types if not (isinstance(t, Inst) and self._is_any(t.cls, ruled_out)))
        return kept or UNKNOWN_TYPES

    def _is_any(self, cls: Value, classes: list[Value]) -> bool:
        return any(self.resolver.is_subclass(cls, other) == "yes" for other in classes)

    def _reaching_types(self, name: str, binds: list[Bind], frame: ast.AST, line: int, scope: Place) -> Types:
        """What the bindings reaching a read give, those made before an `if` chain that lets them through
        only narrowed counting as the class it proves."""
        if not (isinstance(frame, FunctionNode) and line):
            return self.binds(name, binds, scope)
        key = (id(frame), name)
        chains = self._chains.get(key)
        if chains is None:
            chains = self._chains[key] = narrowing_chains(frame, name)
        before = [chain for chain in chains if chain[1] < line]
        if not before:
            return self.binds(name, binds, scope)
        chain_line, _end, narrowed = before[-1]
        earlier = [b for b in binds if b.kind == "param" or _line(b) < chain_line]
        if not earlier:
            return self.binds(name, binds, scope)
        later = self.binds(name, [b for b in binds if b not in earlier], scope)
        if UNKNOWN in later:
            return UNKNOWN_TYPES
        return union(self.annotation(narrowed, scope), later)

    def binds(self, name: str, binds: list[Bind], scope: Place) -> Types:
        found: list[Types] = []
        for bind in binds:
            types = self.bind(name, bind, scope)
            if UNKNOWN in types:
                return UNKNOWN_TYPES  # an unknown part poisons the union: the other bindings cannot help
            found.append(types)
        return union(*found)

    def bind(self, name: str, bind: Bind, scope: Place) -> Types:
        kind = bind.kind
        if kind == "param":
            assert isinstance(bind.node, ast.arg)
            return self.parameter(bind.node, scope)
        if kind in ("assign", "walrus") and bind.value is not None:
            return self.with_mutations(
                name, bind, scope, self.at_steps(self.expr(bind.value, scope), bind.steps)
            )
        if kind == "annotated":
            assert isinstance(bind.node, ast.AnnAssign)
            declared = self.annotation(bind.node.annotation, scope)
            return (
                declared if declared != UNKNOWN_TYPES or bind.value is None else self.expr(bind.value, scope)
            )
        if kind == "for" and bind.value is not None:
            return self.at_steps(self.elements(self.expr(bind.value, scope)), bind.steps)
        if kind == "with" and bind.value is not None:
            return self.at_steps(self.entered(self.expr(bind.value, scope), bind.is_async), bind.steps)
        if kind == "except":
            return self.raised(bind.value, scope)
        if kind == "import":
            return self.imported(name, bind, scope)
        if kind == "def":
            assert isinstance(bind.node, ast.FunctionDef | ast.AsyncFunctionDef)
            return frozenset({self.func_of(bind.node, scope)})
        if kind == "class":
            assert isinstance(bind.node, ast.ClassDef)
            return self.local_class(bind.node, scope)
        if kind in ("global", "nonlocal"):
            return NOTHING  # a declaration, not a value: the name's other bindings tell
        if kind in ("varargs", "kwargs"):
            # `*args` is a tuple and `**kwargs` a dict made by the call, whatever is passed: their own
            # methods are the builtin's (`kwargs.iteritems()` is no method of the repository's).
            assert isinstance(bind.node, ast.arg)
            items = self.annotation(bind.node.annotation, scope) if bind.node.annotation else UNKNOWN_TYPES
            return frozenset({Seq(items) if kind == "varargs" else Map(items)})
        return UNKNOWN_TYPES

    def parameter(self, arg: ast.arg, scope: Place) -> Types:
        """What a parameter holds: its annotation, `self` / `cls`, a pytest fixture, or what every call
        in the repository passes."""
        function = scope.frames[-1] if scope.frames else None
        if function is not None:
            passed = scope.argument(function, arg.arg)
            if passed is not None:
                return passed  # what the call being evaluated gives this parameter
        if arg.annotation is not None:
            declared = self.annotation(arg.annotation, scope.outer())
            if declared != UNKNOWN_TYPES:
                return declared
        if isinstance(function, ast.Lambda):
            return lambda_parameter(self, function, arg, scope)
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
            return UNKNOWN_TYPES
        own = self.own_parameter(function, arg, scope)
        if own is not None:
            return own
        from_fixture = self.fixtures.parameter(function, arg, scope)
        if from_fixture is not None:
            return from_fixture
        if self.callers is not None:
            passed = self.callers.parameter(self, function, arg, scope)
            if passed is not None:
                return passed
        return UNKNOWN_TYPES

    def own_parameter(self, function: FunctionNode, arg: ast.arg, scope: Place) -> Types | None:
        """`self` (or `cls`) of a method: the instance (or class) it is called on."""
        if not is_method_frame(scope, len(scope.frames) - 1):
            return None
        positional = [*function.args.posonlyargs, *function.args.args]
        if not positional or positional[0] is not arg:
            return None
        decorators = {_leaf(d) for d in function.decorator_list}
        if "staticmethod" in decorators:
            return None
        owner = self.owner_class(scope)
        if scope.self_types is not None:
            return scope.self_types
        if owner is None:
            return UNKNOWN_TYPES
        implicit = function.name in ("__new__", "__init_subclass__", "__class_getitem__")
        if "classmethod" in decorators or implicit:
            return frozenset({ClassRef(owner)})
        return frozenset({Inst(owner)})

    def owner_class(self, scope: Place) -> Value | None:
        """The class whose method the innermost function of `scope` is."""
        frames = scope.frames
        if len(frames) >= 2 and isinstance(frames[-2], ast.ClassDef):
            return self.class_of(frames[-2], Place(scope.path, scope.module, scope.is_package, frames[:-2]))
        if len(frames) == 1 and scope.unit_class is not None:
            return Value("member", scope.module, scope.unit_class)
        return None

    def class_of(self, node: ast.ClassDef, outside: Place) -> Value | None:
        """The value naming a class statement: top-level (or in the class a method unit belongs to), or
        a class defined once in a function of its file."""
        if not outside.frames and outside.unit_class is None:
            return Value("member", outside.module, node.name)
        functions = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)
        if any(isinstance(f, functions) for f in outside.frames):
            return Value("member", outside.module, f"{node.name}@{node.lineno}")  # a class made in a function
        return None

    def local_class(self, node: ast.ClassDef, scope: Place) -> Types:
        value = self.class_of(node, scope)
        return frozenset({ClassRef(value)}) if value is not None else UNKNOWN_TYPES

    def func_of(self, node: FunctionNode, scope: Place) -> Func:
        owner = None
        if scope.frames and isinstance(scope.frames[-1], ast.ClassDef):
            owner = self.class_of(scope.frames[-1], scope.outer())
        return Func(scope.path, node.lineno, node.name, owner)

    def imported(self, name: str, bind: Bind, scope: Place) -> Types:
        node = bind.node
        assert isinstance(node, ast.Import | ast.ImportFrom)
        values: list[Value] = []
        for bound, binding in import_bindings(node):
            if bound == name:
                values.extend(self.resolver.binding_values(scope.module, _absolute(binding), name))
        return self.value_types(tuple(values))

    def module_name(self, name: str, place: Place) -> Types:
        values = self.resolver.global_values(place.module, name)
        if values:
            return self.value_types(values)
        if self.resolver.source.star_imports(place.module):
            return UNKNOWN_TYPES
        if name in _BUILTIN_CLASSES and name not in ROUTED_BUILTINS:
            return frozenset({ForeignClass(name)})
        if name in _BUILTIN_FUNCTIONS or name in ROUTED_BUILTINS:
            return frozenset({Func(BUILTIN, 0, name)})
        return UNKNOWN_TYPES

    def value_types(self, values: tuple[Value, ...]) -> Types:
        """What resolved names denote: modules, classes, functions, module-level variables."""
        if not values:
            return UNKNOWN_TYPES
        return union(*(self._value_types(v) for v in values))

    def _value_types(self, value: Value) -> Types:
        if value.kind == "module":
            return frozenset({Mod(value.module)})
        source = self.resolver.source
        if not source.in_repo(value.module):
            known = KNOWN_FOREIGN.get(str(value))
            if known is not None:
                return frozenset({Func(BUILTIN, 0, known)})
            if looks_like_class(value) and not is_proxy(value):
                return frozenset({ForeignClass(str(value))})
            shadowed = source.in_repo(value.module.split(".")[0])
            if stdlib_submodule(value.module, value.name) and not shadowed:
                return frozenset({Mod(f"{value.module}.{value.name}")})  # waitress: `from http import client`
            if plain_stdlib_function(value.module, value.name) and not shadowed:
                return frozenset({Func(BUILTIN, 0, STDLIB_FUNCTION)})  # what its call gives: `builtin()`
            if self.outside_results and not shadowed and not stdlib_module(value.module):
                return frozenset({Func(BUILTIN, 0, STDLIB_FUNCTION)})
            return UNKNOWN_TYPES  # a foreign function's result, or a proxy standing for another object
        head, _, rest = value.name.partition(".")
        if rest:
            owner = self._value_types(Value("member", value.module, head))
            for attr in rest.split("."):
                owner = self.attribute(owner, attr)
            return owner
        if self.resolver.class_facts(value) is not None:
            return frozenset({Inst(value) if self.resolver.is_rebound_instance(value) else ClassRef(value)})
        path = self.code.source.module_path(value.module)
        if path is None:
            return UNKNOWN_TYPES
        binds = self.code.module_binds(path, value.name)
        if not binds:
            return UNKNOWN_TYPES
        module_place = self.code.module_place(path)
        return self.binds(value.name, binds, module_place)

    def annotation(self, node: ast.expr | None, place: Place) -> Types:
        own: Types | None = None
        owner = self.owner_class(place) if place.frames else None
        if owner is not None:
            own = frozenset({Inst(owner)})
        if own is not None and place.self_types and all(isinstance(t, Inst) for t in place.self_types):
            # `-> Self` called on a subclass's instance is that instance (elasticsearch-dsl 2c2d0f33).
            own = place.self_types
        return annotation_types(node, lambda chain: self.annotated_class(chain, place), own)

    def annotated_class(self, chain: tuple[str, ...], place: Place) -> Types:
        """What a dotted name in an annotation denotes. A name imported from outside the repository is a
        class there whatever its spelling (PyPSA's `net: pandapowerNet`, imported under `TYPE_CHECKING`):
        outside an annotation a lowercase foreign name may be a function whose result is unknown."""
        found = self.chain(chain, place)
        if found != UNKNOWN_TYPES:
            return found
        values = self.resolver.chain_values(place.module, chain, None)
        source = self.resolver.source
        foreign = values and all(v.kind != "module" and not source.in_repo(v.module) for v in values)
        if foreign and not any(is_proxy(v) for v in values):
            return frozenset({ForeignClass(str(v)) for v in values})
        return found

    def chain(self, chain: tuple[str, ...], place: Place) -> Types:
        """What a dotted name denotes where it is written."""
        found = self.name(chain[0], place, 0)
        for attr in chain[1:]:
            found = self.attribute(found, attr)
        return found

    def raised(self, node: ast.expr | None, scope: Place) -> Types:
        if node is None:
            return FOREIGN_TYPES
        return instances(self.expr(node, scope))

    def keeps_result(self, decorator: ast.expr, place: Place) -> bool:
        key = id(decorator)
        if key not in self._keeps_result:
            self._keeps_result[key] = False  # cycle guard
            self._keeps_result[key] = keeps_result(self, decorator, place)
        return self._keeps_result[key]

    def decorator_names(self, function: FunctionNode, place: Place) -> list[str]:
        """What each decorator is: a known function's role (`contextmanager`, `coroutine`) or its name."""
        names: list[str] = []
        for decorator in function.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            chain = dotted_chain(target)
            if chain is None:
                names.append("?")
                continue
            role = None
            for value in self.chain(chain, place):
                if isinstance(value, Func) and value.path == BUILTIN:
                    role = value.name
            names.append(role or chain[-1])
        return names


def _reaching(binds: list[Bind], frame: ast.AST, line: int) -> list[Bind]:
    """The bindings that can reach a read on `line`: in a function, those before it, from the last one
    made unconditionally in the function's own body (it replaces what came before)."""
    if not line or not isinstance(frame, ast.FunctionDef | ast.AsyncFunctionDef):
        return binds
    before = [b for b in binds if b.kind == "param" or _line(b) < line]
    if not before:
        return binds  # read in a loop before the assignment, or in a closure: every binding may reach
    body = {id(s) for s in frame.body}
    plain = [
        b for b in before if b.kind != "param" and id(b.node) in body and b.kind not in ("for", "except")
    ]
    if plain:
        last = max(_line(b) for b in plain)
        before = [b for b in before if b.kind != "param" and _line(b) >= last]
    return before


def _line(bind: Bind) -> int:
    return getattr(bind.node, "lineno", 0)


def _leaf(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    chain = dotted_chain(target)
    return chain[-1] if chain else ""


def _absolute(binding: Binding) -> Binding:
    return binding


__all__ = ["BUILTIN", "NOTHING", "Inference"]
