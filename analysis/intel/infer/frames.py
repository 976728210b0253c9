"""Where an expression is evaluated (`Place`: its file and the scopes around it), and how each scope
binds its names (`Bind`), read from the syntax tree of the part of the file that holds it.

Scopes follow Python's rules: a function sees its own names, then those of the functions around it
(never a class body's), then the module's; a comprehension has its own targets; `global` sends a name to
the module and `nonlocal` to the function around.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

from prscope.analysis.intel.infer.values import Types

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
ScopeNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef | ast.comprehension
COMPREHENSIONS = (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)
Step = int | Literal["*"]


@dataclass(frozen=True)
class Place:
    """An expression's surroundings: the file, its module, the scopes around it (outermost first:
    classes, functions, lambdas and comprehensions), and the class a method's part of the file belongs
    to (a method is parsed without its class statement). `self_types` is what the method's first
    parameter holds when a bound method is evaluated for a known receiver."""

    path: str
    module: str
    is_package: bool
    frames: tuple[ast.AST, ...] = ()
    unit_class: str | None = None
    self_types: Types | None = None
    arguments: tuple[tuple[int, str, Types], ...] = ()
    """What the call being evaluated passes: (id of the called function's node, parameter, type)."""

    def inner(self, frame: ast.AST) -> Place:
        return replace(self, frames=(*self.frames, frame))

    def outer(self) -> Place:
        return replace(self, frames=self.frames[:-1])

    def upto(self, index: int) -> Place:
        """The place of frames[index] (the scope a name read here is bound in)."""
        return replace(self, frames=self.frames[: index + 1])

    def with_self(self, types: Types | None) -> Place:
        return replace(self, self_types=types)

    def with_arguments(self, arguments: tuple[tuple[int, str, Types], ...]) -> Place:
        return replace(self, arguments=arguments)

    def argument(self, function: ast.AST, name: str) -> Types | None:
        key = id(function)
        return next((types for node, param, types in self.arguments if node == key and param == name), None)


BindKind = Literal[
    "param", "assign", "annotated", "for", "with", "except", "import", "def", "class", "global", "nonlocal",
    "walrus", "varargs", "kwargs", "unknown",
]  # fmt: skip


@dataclass(frozen=True)
class Bind:
    """One way a scope binds a name: `value` is the expression the name is taken from (the assigned
    value, the iterable, the context manager, the exception class); `steps` is where the name sits in
    the target (`a, (b, c) = ...` binds c at (1, 1); `*rest` at "*")."""

    kind: BindKind
    node: ast.AST
    value: ast.expr | None = None
    steps: tuple[Step, ...] = ()
    is_async: bool = False


@dataclass
class ScopeTable:
    names: dict[str, list[Bind]] = field(default_factory=dict)

    def add(self, name: str, bind: Bind) -> None:
        self.names.setdefault(name, []).append(bind)


def scope_table(frame: ast.AST) -> ScopeTable:
    """How a function, lambda, class body or comprehension binds each of its names."""
    table = ScopeTable()
    if isinstance(frame, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        _parameters(frame, table)
        body: list[ast.AST] = [frame.body] if isinstance(frame, ast.Lambda) else list(frame.body)
        _bind_block(body, table)
    elif isinstance(frame, ast.ClassDef):
        _bind_block(list(frame.body), table)
    elif isinstance(frame, COMPREHENSIONS):
        for generator in frame.generators:
            for name, steps in target_steps(generator.target):
                table.add(name, Bind("for", generator, generator.iter, steps, bool(generator.is_async)))
    return table


def _parameters(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, table: ScopeTable) -> None:
    args = node.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        table.add(arg.arg, Bind("param", arg))
    if args.vararg is not None:
        table.add(args.vararg.arg, Bind("varargs", args.vararg))
    if args.kwarg is not None:
        table.add(args.kwarg.arg, Bind("kwargs", args.kwarg))


def _bind_block(body: list[ast.AST], table: ScopeTable) -> None:
    stack = list(reversed(body))
    while stack:
        node = stack.pop()
        _bind_statement(node, table)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue  # its body is a scope of its own
        # Only statement lists: a lambda's body is an expression, whose `body` may be one too (`IfExp`).
        nested = [
            child
            for name in _BLOCKS
            if isinstance(block := getattr(node, name, None), list)
            for child in block
        ]
        stack.extend(reversed(nested))


_BLOCKS = ("body", "orelse", "finalbody", "handlers", "cases")


def _bind_statement(node: ast.AST, table: ScopeTable) -> None:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        table.add(node.name, Bind("def", node))
        return
    if isinstance(node, ast.ClassDef):
        table.add(node.name, Bind("class", node))
        return
    if isinstance(node, ast.Import | ast.ImportFrom):
        for alias in node.names:
            if alias.name != "*":
                bound = alias.asname or alias.name.split(".")[0]
                table.add(bound, Bind("import", node))
        return
    if isinstance(node, ast.Global | ast.Nonlocal):
        kind: BindKind = "global" if isinstance(node, ast.Global) else "nonlocal"
        for name in node.names:
            table.add(name, Bind(kind, node))
        return
    if isinstance(node, ast.Assign):
        for target in node.targets:
            for name, steps in target_steps(target):
                table.add(name, Bind("assign", node, node.value, steps))
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        table.add(node.target.id, Bind("annotated", node, node.value))
    elif isinstance(node, ast.AugAssign):
        pass  # `x += y` keeps x's kind of object (a list stays a list, a count a number)
    elif isinstance(node, ast.For | ast.AsyncFor):
        for name, steps in target_steps(node.target):
            table.add(name, Bind("for", node, node.iter, steps, isinstance(node, ast.AsyncFor)))
    elif isinstance(node, ast.With | ast.AsyncWith):
        for item in node.items:
            if item.optional_vars is not None:
                for name, steps in target_steps(item.optional_vars):
                    bind = Bind("with", node, item.context_expr, steps, isinstance(node, ast.AsyncWith))
                    table.add(name, bind)
    elif isinstance(node, ast.ExceptHandler) and node.name:
        table.add(node.name, Bind("except", node, node.type))
    elif isinstance(node, ast.Delete):
        return
    elif isinstance(node, ast.match_case):
        for sub in ast.walk(node.pattern):
            if isinstance(sub, ast.MatchAs | ast.MatchStar) and sub.name:
                table.add(sub.name, Bind("unknown", sub))
    for walrus in _walruses(node):
        if isinstance(walrus.target, ast.Name):
            table.add(walrus.target.id, Bind("walrus", walrus, walrus.value))


def _walruses(node: ast.AST) -> Iterator[ast.NamedExpr]:
    """`:=` in the statement's own expressions (not in nested statements, scopes or comprehensions, whose
    targets Python binds in the enclosing function too; rare enough to leave unknown)."""
    for name, value in ast.iter_fields(node):
        if name in _BLOCKS:
            continue
        items = value if isinstance(value, list) else [value]
        for item in items:
            if isinstance(item, ast.expr):
                for sub in ast.walk(item):
                    if isinstance(sub, ast.NamedExpr):
                        yield sub


def target_steps(target: ast.expr, steps: tuple[Step, ...] = ()) -> list[tuple[str, tuple[Step, ...]]]:
    """Each name an assignment target binds, with where it sits in the assigned value."""
    if isinstance(target, ast.Name):
        return [(target.id, steps)]
    if isinstance(target, ast.Starred):
        return target_steps(target.value, (*steps, "*"))
    if isinstance(target, ast.Tuple | ast.List):
        found: list[tuple[str, tuple[Step, ...]]] = []
        starred = any(isinstance(e, ast.Starred) for e in target.elts)
        for index, element in enumerate(target.elts):
            if starred and not isinstance(element, ast.Starred):
                found.extend((name, (*s, "*")) for name, s in target_steps(element, steps))
            else:
                found.extend(
                    target_steps(element, steps if isinstance(element, ast.Starred) else (*steps, index))
                )
        return found
    return []


def enclosing_frames(tree: ast.Module, target: ast.AST) -> tuple[ast.AST, ...] | None:
    """The scopes around `target` in `tree`, outermost first; None when the tree does not hold it."""
    stack: list[tuple[ast.AST, tuple[ast.AST, ...]]] = [(tree, ())]
    while stack:
        node, frames = stack.pop()
        if node is target:
            return frames
        for child, inside in _children(node):
            stack.append((child, (*frames, node) if inside else frames))
    return None


def _children(node: ast.AST) -> Iterator[tuple[ast.AST, bool]]:
    """Child nodes, each with whether it is evaluated inside `node`'s own scope."""
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        yield from ((d, False) for d in node.decorator_list)
        yield node.args, True  # defaults and annotations are outside; their nodes are rarely receivers
        if node.returns is not None:
            yield node.returns, False
        yield from ((s, True) for s in node.body)
    elif isinstance(node, ast.ClassDef):
        yield from ((d, False) for d in node.decorator_list)
        yield from ((b, False) for b in node.bases)
        yield from ((k, False) for k in node.keywords)
        yield from ((s, True) for s in node.body)
    elif isinstance(node, ast.Lambda):
        yield node.args, False
        yield node.body, True
    elif isinstance(node, COMPREHENSIONS):
        for index, generator in enumerate(node.generators):
            yield generator.iter, index > 0
            yield generator.target, True
            yield from ((c, True) for c in generator.ifs)
        if isinstance(node, ast.DictComp):
            yield node.key, True
            yield node.value, True
        else:
            yield node.elt, True
    else:
        yield from ((child, False) for child in ast.iter_child_nodes(node))


def functions_named(tree: ast.Module, line: int) -> Iterator[FunctionNode]:
    """The `def` statements (at any depth) whose `def` line is `line`."""
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.lineno == line:
            yield node


def is_method_frame(place: Place, index: int) -> bool:
    """Whether frames[index] is a function directly in a class body (or the method a unit holds)."""
    frame = place.frames[index]
    if not isinstance(frame, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    if index > 0:
        return isinstance(place.frames[index - 1], ast.ClassDef)
    return place.unit_class is not None


def own_nodes(function: ast.AST) -> Iterator[ast.AST]:
    """The nodes of a function's own body: not those of the functions, lambdas and classes inside it."""
    stack: list[ast.AST] = list(getattr(function, "body", []))
    while stack:
        node = stack.pop()
        yield node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            continue
        stack.extend(ast.iter_child_nodes(node))
