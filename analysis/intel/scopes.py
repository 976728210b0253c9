"""Local bindings: what a name means inside one function, as far as the function's own code says.

A binding is kept as data (an import, a constructor call, an annotation, anything else) and resolved
against the repository later, so the same scan serves every query for the same word.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

BindingKind = Literal[
    "import-module", "import-from", "typed", "alias", "none", "def", "class", "param", "global", "other"
]
_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException"})


@dataclass(frozen=True)
class Binding:
    """How a name is bound in a scope.

    import-module: `import a.b` (module "a") / `import a.b as m` (module "a.b");
    import-from: `from module import name` (module text, level for relative imports);
    typed: an instance whose class is the dotted `chain` (`x = C(...)`, `x: C`);
    alias: another name for what the dotted `chain` denotes (`X = XImpl`, `X = _impl.X` at module level);
    none: `x = None` in a function (an attribute read through `x` presupposes its other bindings);
    global: declared `global` in the function, so the module-level binding applies.
    """

    kind: BindingKind
    module: str = ""
    level: int = 0
    name: str = ""
    chain: tuple[str, ...] = ()
    line: int = 0
    guarded: bool = False
    """An import inside `try:` whose handler catches ImportError: when it fails, another binding applies."""
    branch: bool = False
    """An import inside an `if` / `else`, loop or `with` block at module level: it may or may not run,
    or be one of alternatives chosen at run time."""


def nested_statements(body: list[ast.stmt], *, into_functions: bool = True) -> Iterator[ast.stmt]:
    """Every statement of the block, at any depth (classes inside it too, and functions with their bodies
    unless `into_functions` is off); expressions are not walked, which makes this several times cheaper
    than `ast.walk` over a big module."""
    pending: list[ast.stmt] = list(body)
    while pending:
        statement = pending.pop()
        yield statement
        if not into_functions and isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for child in ast.iter_child_nodes(statement):
            if isinstance(child, ast.stmt):
                pending.append(child)
            elif isinstance(child, ast.ExceptHandler | ast.match_case):
                pending.extend(child.body)


def stored_targets(statement: ast.stmt) -> list[ast.expr]:
    """The targets a statement stores to (assignments, loop and `with` targets). Comprehension targets
    (`[... for self.x in xs]`) are not statements and are left out."""
    if isinstance(statement, ast.Assign):
        return statement.targets
    if isinstance(statement, ast.AugAssign | ast.AnnAssign | ast.For | ast.AsyncFor):
        return [statement.target]
    if isinstance(statement, ast.With | ast.AsyncWith):
        return [item.optional_vars for item in statement.items if item.optional_vars is not None]
    return []


def dotted_chain(node: ast.expr) -> tuple[str, ...] | None:
    """`a.b.c` -> ("a", "b", "c"); None for anything that is not a plain dotted name."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return tuple(reversed(parts))
    return None


def innermost_function(tree: ast.AST, line: int) -> ast.FunctionDef | ast.AsyncFunctionDef | None:
    """The innermost `def` whose lines hold `line`."""
    around = [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.lineno <= line <= (node.end_lineno or node.lineno)
    ]
    return max(around, key=lambda node: node.lineno, default=None)


def is_super_call(node: ast.expr) -> bool:
    """`super()` or `super(Cls, self)`: the receiver of a call that reaches the next class's method."""
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"


def takes_only_splats(args: ast.arguments) -> bool:
    """`(self, *args, **kwargs)`: a method that takes whatever it is given, to hand on."""
    return (
        args.vararg is not None
        and args.kwarg is not None
        and len(args.args) == 1
        and not args.posonlyargs
        and not args.kwonlyargs
    )


def hands_on(call: ast.Call, args: str, kwargs: str) -> bool:
    """`f(*args, **kwargs)`, exactly."""
    return (
        len(call.args) == 1
        and isinstance(call.args[0], ast.Starred)
        and isinstance(call.args[0].value, ast.Name)
        and call.args[0].value.id == args
        and len(call.keywords) == 1
        and call.keywords[0].arg is None
        and isinstance(call.keywords[0].value, ast.Name)
        and call.keywords[0].value.id == kwargs
    )


def callee_name(call: ast.Call) -> str:
    """The name a call spells for its callee: `f` of `f(...)`, `m` of `x.m(...)` ("" for anything else)."""
    func = call.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def annotation_chain(node: ast.expr | None) -> tuple[str, ...] | None:
    """The class named by an annotation: `C`, `mod.C`, `"C"`, `Optional[C]` / `C | None`."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value.strip(), mode="eval").body
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            return None
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        left, right = node.left, node.right
        if isinstance(right, ast.Constant) and right.value is None:
            return annotation_chain(left)
        if isinstance(left, ast.Constant) and left.value is None:
            return annotation_chain(right)
        return None
    if isinstance(node, ast.Subscript):
        chain = dotted_chain(node.value)
        if chain and chain[-1] == "Optional":
            return annotation_chain(node.slice)
        return None
    return dotted_chain(node)


def element_chain(target: ast.expr, value: ast.expr | None, name: str) -> tuple[str, ...] | None:
    """The constructor that gives `name` its value in `target = value`, tuples unpacked element by
    element (`a, b = A(), B()`)."""
    if isinstance(target, ast.Name):
        return constructor_chain(value) if target.id == name else None
    if isinstance(target, ast.Tuple | ast.List) and isinstance(value, ast.Tuple | ast.List):
        if len(target.elts) != len(value.elts) or any(isinstance(e, ast.Starred) for e in target.elts):
            return None
        for element, element_value in zip(target.elts, value.elts, strict=True):
            if name in target_names(element):
                return element_chain(element, element_value, name)
    return None


def local_assignment(target: ast.expr, value: ast.expr | None, name: str, line: int = 0) -> Binding:
    """How `target = value` in a function binds `name`: typed by a constructor, None, or other."""
    chain = element_chain(target, value, name)
    if chain:
        return Binding("typed", chain=chain, line=line)
    if isinstance(target, ast.Name) and isinstance(value, ast.Constant) and value.value is None:
        return Binding("none", line=line)
    return Binding("other", line=line)


def typed_chain(bindings: tuple[Binding, ...]) -> tuple[str, ...] | None:
    """The class a variable holds when every binding of it is typed (or None): the last typed one."""
    typed = [b for b in bindings if b.kind == "typed" and b.chain]
    if typed and all(b.kind in ("typed", "none") for b in bindings):
        return typed[-1].chain
    return None


def constructor_chain(value: ast.expr | None) -> tuple[str, ...] | None:
    if isinstance(value, ast.Call):
        chain = dotted_chain(value.func)
        if chain is not None:
            return chain
    return None


def alias_chain(value: ast.expr | None) -> tuple[str, ...] | None:
    """`X = XImpl` / `X = _impl.X`: the dotted name assigned, when the value is nothing else."""
    if isinstance(value, ast.Name | ast.Attribute):
        return dotted_chain(value)
    return None


def catches_import_error(handler: ast.ExceptHandler) -> bool:
    return catches(handler, _IMPORT_ERRORS)


def catches(handler: ast.ExceptHandler, exceptions: frozenset[str] | set[str]) -> bool:
    """Whether the handler catches one of `exceptions` (by name; a bare `except:` catches all)."""
    if handler.type is None:
        return True
    names = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(
        (isinstance(n, ast.Name) and n.id in exceptions)
        or (isinstance(n, ast.Attribute) and n.attr in exceptions)
        for n in names
    )


def guards_imports(node: ast.Try | ast.TryStar) -> bool:
    """Whether a failing import in the `try:` body is handled (a handler catches ImportError)."""
    return any(catches_import_error(handler) for handler in node.handlers)


def import_bindings(
    node: ast.Import | ast.ImportFrom, *, guarded: bool = False, branch: bool = False
) -> list[tuple[str, Binding]]:
    bindings: list[tuple[str, Binding]] = []
    if isinstance(node, ast.Import):
        for alias in node.names:
            module = alias.name if alias.asname else alias.name.split(".")[0]
            binding = Binding(
                "import-module", module=module, line=node.lineno, guarded=guarded, branch=branch
            )
            bindings.append((alias.asname or module, binding))
        return bindings
    for alias in node.names:
        if alias.name == "*":
            continue
        bound = alias.asname or alias.name
        bindings.append(
            (
                bound,
                Binding(
                    "import-from",
                    module=node.module or "",
                    level=node.level,
                    name=alias.name,
                    line=node.lineno,
                    guarded=guarded,
                    branch=branch,
                ),
            )
        )
    return bindings


def target_names(target: ast.expr) -> list[str]:
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Tuple | ast.List):
        names: list[str] = []
        for element in target.elts:
            names.extend(target_names(element))
        return names
    if isinstance(target, ast.Starred):
        return target_names(target.value)
    return []


ScopeNode = ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda


def function_bindings(
    node: ScopeNode, *, only: str | None = None, lines: set[int] | None = None
) -> dict[str, list[Binding]]:
    """Names bound in the function's own scope (nested functions and classes are not entered).

    With `only` and `lines` (the lines that mention that name), just that name's bindings, found by
    entering only the statements on those lines.
    """
    table: dict[str, list[Binding]] = {}

    def add(name: str, binding: Binding) -> None:
        if only is None or name == only:
            table.setdefault(name, []).append(binding)

    args = node.args
    for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs]:
        chain = annotation_chain(arg.annotation)
        add(arg.arg, Binding("typed", chain=chain, line=arg.lineno) if chain else Binding("param"))
    for extra in (args.vararg, args.kwarg):
        if extra is not None:
            add(extra.arg, Binding("param"))
    body: list[ast.AST] = [node.body] if isinstance(node, ast.Lambda) else list(node.body)
    stack = body
    while stack:
        current = stack.pop()
        if lines is not None and isinstance(current, ast.stmt) and not _touches(current, lines):
            continue
        _bind_statement(current, add, stack)
    return table


def _touches(node: ast.stmt, lines: set[int]) -> bool:
    end = node.end_lineno or node.lineno
    if end - node.lineno > len(lines):
        return any(node.lineno <= line <= end for line in lines)
    return any(line in lines for line in range(node.lineno, end + 1))


def _bind_statement(node: ast.AST, adder: Callable[[str, Binding], None], stack: list[ast.AST]) -> None:
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        adder(node.name, Binding("def", line=node.lineno))
        stack.extend(node.decorator_list)
        return
    if isinstance(node, ast.ClassDef):
        adder(node.name, Binding("class", line=node.lineno))
        stack.extend(node.decorator_list)
        stack.extend(node.bases)
        return
    if isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
        return
    if isinstance(node, ast.Import | ast.ImportFrom):
        for name, binding in import_bindings(node):
            adder(name, binding)
        return
    if isinstance(node, ast.Global | ast.Nonlocal):
        for name in node.names:
            adder(name, Binding("global"))
        return
    if isinstance(node, ast.Assign):
        for target in node.targets:
            for name in target_names(target):
                adder(name, local_assignment(target, node.value, name, node.lineno))
    elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
        chain = annotation_chain(node.annotation) or constructor_chain(node.value)
        adder(node.target.id, Binding("typed", chain=chain, line=node.lineno) if chain else Binding("other"))
    elif isinstance(node, ast.AugAssign | ast.For | ast.AsyncFor):
        for name in target_names(node.target):
            adder(name, Binding("other"))
    elif isinstance(node, ast.With | ast.AsyncWith):
        for item in node.items:
            if item.optional_vars is not None:
                for name in target_names(item.optional_vars):
                    adder(name, Binding("other"))
    elif isinstance(node, ast.ExceptHandler) and node.name:
        adder(node.name, Binding("other"))
    elif isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
        adder(node.target.id, Binding("other"))
    elif isinstance(node, ast.MatchAs | ast.MatchStar) and node.name:
        adder(node.name, Binding("other"))
    elif isinstance(node, ast.Delete):
        for target in node.targets:
            for name in target_names(target):
                adder(name, Binding("other"))
    # Only nested statements bind in this scope (walrus targets inside expressions are not followed:
    # walking every expression node costs more than the rare `:=` is worth).
    for field_name in _BLOCK_FIELDS:
        block = getattr(node, field_name, None)
        if isinstance(block, list):
            stack.extend(block)


_BLOCK_FIELDS = ("body", "orelse", "finalbody", "handlers", "cases")


def module_assignment(node: ast.stmt, name: str, line: int) -> Binding:
    """How a module-level assignment binds `name`: an alias (`X = XImpl`), an instance (`app = Flask()`,
    kept as "other" with the constructor's chain), or something else."""
    value = getattr(node, "value", None)
    single = isinstance(node, ast.Assign | ast.AnnAssign) and target_names(_first_target(node)) == [name]
    if single and isinstance(_first_target(node), ast.Name):
        aliased = alias_chain(value)
        if aliased is not None:
            return Binding("alias", chain=aliased, line=line)
    return Binding("other", chain=constructor_chain(value) or (), line=line)


def _first_target(node: ast.stmt) -> ast.expr:
    if isinstance(node, ast.Assign):
        return node.targets[0] if len(node.targets) == 1 else ast.Tuple(elts=[])
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return node.target
    return ast.Tuple(elts=[])


def statement_names(node: ast.stmt) -> list[str]:
    if isinstance(node, ast.Assign):
        return [n for target in node.targets for n in target_names(target)]
    if isinstance(node, ast.AnnAssign | ast.AugAssign):
        return target_names(node.target)
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return [node.name]
    if isinstance(node, ast.Import | ast.ImportFrom):
        return [name for name, _ in import_bindings(node)]
    return []


def isinstance_calls(test: ast.expr) -> list[tuple[str, ast.expr]]:
    """The `isinstance(name, classinfo)` calls an `if` test holds, joined by `and`, in order: (name,
    classinfo)."""
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And):
        return [call for value in test.values for call in isinstance_calls(value)]
    if (
        isinstance(test, ast.Call)
        and isinstance(test.func, ast.Name)
        and test.func.id == "isinstance"
        and len(test.args) == 2
        and isinstance(test.args[0], ast.Name)
    ):
        return [(test.args[0].id, test.args[1])]
    return []


def isinstance_narrowing(test: ast.expr) -> dict[str, tuple[str, ...]]:
    """Names an `if` test proves to be instances of one class: `isinstance(x, C)`, joined by `and`."""
    found: dict[str, tuple[str, ...]] = {}
    for name, classinfo in isinstance_calls(test):
        if isinstance(classinfo, ast.Tuple) and len(classinfo.elts) == 1:
            classinfo = classinfo.elts[0]
        chain = dotted_chain(classinfo)
        if chain is not None:
            found[name] = chain
    return found


LEAVING = (ast.Return, ast.Raise, ast.Continue, ast.Break)
"""Statements after which nothing more of their block runs."""


def leaves_block(body: list[ast.stmt]) -> bool:
    """Whether the block ends by leaving it (`return`, `raise`, `continue`, `break`)."""
    return bool(body) and isinstance(body[-1], LEAVING)


def narrowing_after(node: ast.stmt) -> dict[str, tuple[str, ...]]:
    """What holds after a statement: `assert isinstance(x, C)`, `if not isinstance(x, C): return`."""
    if isinstance(node, ast.Assert):
        return isinstance_narrowing(node.test)
    if (
        isinstance(node, ast.If)
        and not node.orelse
        and isinstance(node.test, ast.UnaryOp)
        and isinstance(node.test.op, ast.Not)
        and leaves_block(node.body)
    ):
        return isinstance_narrowing(node.test.operand)
    return {}


_METACLASS_HELPERS = frozenset({"with_metaclass", "use_metaclass"})


def class_bases(node: ast.ClassDef) -> list[ast.expr]:
    """The bases a class statement gives, with `with_metaclass(Meta, A, B)` (six, future, jedi's
    `use_metaclass`) read as its bases A and B."""
    bases: list[ast.expr] = []
    for base in node.bases:
        helper = base.func if isinstance(base, ast.Call) else None
        name = helper.attr if isinstance(helper, ast.Attribute) else getattr(helper, "id", None)
        if isinstance(base, ast.Call) and name in _METACLASS_HELPERS and base.args:
            bases.extend(base.args[1:])
        else:
            bases.append(base)
    return bases
