"""The functions and methods of a changed file, on both sides of the PR, as the mismatch rules see them."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Literal

from prscope.analysis.changeset import FileChange, FileStatus
from prscope.analysis.checks.context import CheckContext, is_python_path
from prscope.analysis.intel.signatures import Signature

CallableKind = Literal["function", "method", "staticmethod", "classmethod", "property"]

# Decorators that leave what a call returns alone: an `async def` behind them still returns a coroutine.
TRANSPARENT_DECORATORS = frozenset(
    {"staticmethod", "classmethod", "abstractmethod", "override", "final", "cache", "lru_cache", "wraps"}
)
# Generator-based coroutines: `@asyncio.coroutine`, `@types.coroutine`, tornado's `@gen.coroutine`.
COROUTINE_DECORATORS = frozenset({"coroutine"})
# ... and decorators that keep the parameters while changing the result (`with obj.m(x):`).
PARAMETER_KEEPING_DECORATORS = TRANSPARENT_DECORATORS | {"contextmanager", "asynccontextmanager"}
_PROPERTY_SUFFIX = "property"
_ACCESSORS = frozenset({"setter", "getter", "deleter"})


def decorator_name(node: ast.expr) -> str:
    """`property`, `cached_property`, `setter`, `lru_cache`: the last name of a decorator expression."""
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return ""


@dataclass(frozen=True)
class FunctionFacts:
    qualname: str
    """`f`, `Cls.meth`, `Outer.Inner.meth`."""
    class_qualname: str | None
    node: ast.FunctionDef | ast.AsyncFunctionDef
    setter: ast.FunctionDef | ast.AsyncFunctionDef | None = field(default=None, compare=False)
    """A property's `@name.setter` in the same class body."""

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def line(self) -> int:
        return self.node.lineno

    @cached_property
    def decorators(self) -> tuple[str, ...]:
        return tuple(decorator_name(d) for d in self.node.decorator_list)

    @property
    def is_async(self) -> bool:
        """An `async def`, or a generator-based coroutine (calling either gives an awaitable)."""
        return isinstance(self.node, ast.AsyncFunctionDef) or self.is_generator_coroutine

    @cached_property
    def is_generator_coroutine(self) -> bool:
        return not COROUTINE_DECORATORS.isdisjoint(self.decorators)

    @cached_property
    def runs_eagerly(self) -> bool:
        """Tornado's `@gen.coroutine`: calling it runs the body at once and hands back a Future, awaited
        or not (kernel_gateway d5a6f57900's handlers call `self._handle_request()` without `yield`)."""
        return any(
            ast.unparse(d.func if isinstance(d, ast.Call) else d).endswith("gen.coroutine")
            for d in self.node.decorator_list
        )

    @cached_property
    def is_generator(self) -> bool:
        if self.is_generator_coroutine:
            return False  # its `yield from` awaits: calling it gives a coroutine, not an iterator
        return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in own_body_nodes(self.node))

    @cached_property
    def kind(self) -> CallableKind:
        if self.class_qualname is None:
            return "function"
        names = set(self.decorators)
        if any(is_property_decorator(name) for name in names):
            return "property"
        if "staticmethod" in names:
            return "staticmethod"
        if "classmethod" in names:
            return "classmethod"
        return "method"

    @property
    def plain_decorators(self) -> bool:
        """Only decorators known not to change what calling the function returns."""
        return all(name in TRANSPARENT_DECORATORS or name in COROUTINE_DECORATORS for name in self.decorators)

    @property
    def keeps_parameters(self) -> bool:
        """Only decorators known to keep the parameter list (what override compatibility compares)."""
        return all(
            name in PARAMETER_KEEPING_DECORATORS or name in COROUTINE_DECORATORS for name in self.decorators
        )

    @cached_property
    def is_stub(self) -> bool:
        """A method that only declares what implementations do: `@abstractmethod`, or a body that is a
        docstring, `pass`, `...` or `raise NotImplementedError` (or the slip `raise NotImplemented(...)`,
        which raises TypeError and says the same: Mailpile's `LookupHandler._lookup`)."""
        return "abstractmethod" in self.decorators or all(
            _placeholder(statement)
            or (isinstance(statement, ast.Raise) and "NotImplemented" in ast.unparse(statement))
            for statement in self.node.body
        )

    @cached_property
    def does_nothing(self) -> bool:
        """A stub, or a default that only returns None (pdfminer's `PDFDevice.render_string(self,
        textstate, seq): return`, which every real device overrides)."""
        return self.is_stub or all(
            _placeholder(statement)
            or (
                isinstance(statement, ast.Return)
                and (statement.value is None or ast.unparse(statement.value) == "None")
            )
            for statement in self.node.body
        )

    @cached_property
    def signature(self) -> Signature:
        signature = Signature.from_ast(self.node, in_class=self.class_qualname is not None)
        return replace(signature, is_async=True) if self.is_generator_coroutine else signature


def _placeholder(statement: ast.stmt) -> bool:
    """`pass`, `...` or a docstring: a statement that does nothing."""
    return isinstance(statement, ast.Pass) or (
        isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant)
    )


def is_property_decorator(name: str) -> bool:
    """`property`, `cached_property`, `abstractproperty`, `hybrid_property`...: attribute access runs it."""
    return name.lower().endswith(_PROPERTY_SUFFIX)


def returned_types(function: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """The outer type names a return annotation declares: `Deferred[Any]` -> {Deferred},
    `Task[Any] | trio.lowlevel.Task` -> {Task}, `Optional[Awaitable[int]]` -> {Awaitable}."""
    return _heads(function.returns) if function.returns is not None else set()


def _heads(node: ast.expr) -> set[str]:
    if isinstance(node, ast.Constant) and node.value is None:
        return {"None"}
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return _heads(ast.parse(node.value, mode="eval").body)
        except SyntaxError:
            return set()
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return _heads(node.left) | _heads(node.right)
    if isinstance(node, ast.Subscript):
        head = _heads(node.value)
        if head & {"Optional", "Union"}:
            items = node.slice.elts if isinstance(node.slice, ast.Tuple) else [node.slice]
            return set().union(*(_heads(item) for item in items))
        return head
    if isinstance(node, ast.Attribute):
        return {node.attr}
    return {node.id} if isinstance(node, ast.Name) else set()


def own_body_nodes(node: ast.AST) -> Iterator[ast.AST]:
    """Nodes of a function's body, not descending into nested functions, lambdas or classes."""
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(child))


def collect_functions(tree: ast.Module) -> dict[str, FunctionFacts]:
    """Functions and methods defined directly in the module body or in class bodies, by qualname.

    A qualname defined twice (conditional definitions) is left out: which one runs is not known. Property
    accessors (`@x.setter`) and `@overload` stubs do not count as definitions of their own.
    """
    found: dict[str, FunctionFacts | None] = {}
    setters: dict[str, ast.FunctionDef | ast.AsyncFunctionDef] = {}

    def visit(body: list[ast.stmt], class_qualname: str | None) -> None:
        for statement in body:
            if isinstance(statement, ast.ClassDef):
                inner = f"{class_qualname}.{statement.name}" if class_qualname else statement.name
                visit(statement.body, inner)
            elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                names = {decorator_name(d) for d in statement.decorator_list}
                qualname = f"{class_qualname}.{statement.name}" if class_qualname else statement.name
                if "setter" in names:
                    setters[qualname] = statement
                if names & _ACCESSORS or "overload" in names:
                    continue
                found[qualname] = (
                    None if qualname in found else FunctionFacts(qualname, class_qualname, statement)
                )

    visit(tree.body, None)
    return {
        qualname: replace(facts, setter=setters.get(qualname))
        for qualname, facts in found.items()
        if facts is not None
    }


@dataclass(frozen=True)
class ChangedFile:
    path: str
    old_path: str
    module: str
    old: dict[str, FunctionFacts]
    new: dict[str, FunctionFacts]
    old_tree: ast.Module = field(repr=False, compare=False)
    new_tree: ast.Module = field(repr=False, compare=False)

    def pairs(self) -> Iterator[tuple[FunctionFacts, FunctionFacts]]:
        """(old, new) for every function or method defined on both sides."""
        for qualname, new in self.new.items():
            old = self.old.get(qualname)
            if old is not None:
                yield old, new


def changed_python_files(ctx: CheckContext) -> Iterator[ChangedFile]:
    """Modified or renamed Python files that parse on both sides and are importable modules (each one
    loaded once per review: the three mismatch rules ask for the same files)."""
    loaded_files: dict[tuple[str, str], ChangedFile | None] = ctx.memo.setdefault("mismatch.changed", {})
    for change in ctx.changed_files():
        if change.status not in (FileStatus.MODIFIED, FileStatus.RENAMED) or not is_python_path(change.path):
            continue
        key = (change.old_path or change.path, change.path)
        if key not in loaded_files:
            loaded_files[key] = _load(ctx, change)
        loaded = loaded_files[key]
        if loaded is not None:
            yield loaded


def _load(ctx: CheckContext, change: FileChange) -> ChangedFile | None:
    old_path = change.old_path or change.path
    old_tree, new_tree = ctx.tree("old", old_path), ctx.tree("new", change.path)
    try:
        module = ctx.index.module_name(change.path)
    except Exception:
        module = None
    if old_tree is None or new_tree is None or not module:
        return None
    return ChangedFile(
        change.path,
        old_path,
        module,
        collect_functions(old_tree),
        collect_functions(new_tree),
        old_tree,
        new_tree,
    )
