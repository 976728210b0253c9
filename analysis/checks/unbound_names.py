"""Names a module's import-time code reads that nothing binds: importing the module stops there with a
NameError."""

from __future__ import annotations

import ast
import builtins
import re

from prscope.analysis.checks.mismatch.method_calls import own_nodes
from prscope.analysis.checks.python2_branches import PYTHON2_BUILTINS

_MAY_BIND_UNSEEN = re.compile(r"\bimport[ \t]*\*|\b(?:globals|exec|execfile)\b|builtins__|__getattr__")
_LOCALS = re.compile(r"\b(?:locals|vars)\b")
_ALWAYS_BOUND = frozenset(dir(builtins)) | PYTHON2_BUILTINS | {
    "__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__", "__path__", "__cached__",
    "__builtins__", "__annotations__", "_", "WindowsError",
}  # fmt: skip


def unbound_top_level_read(tree: ast.Module) -> bool:
    """Whether a statement at the module's top level (a simple statement, or the header of an `if`, `for`,
    `while` or `with`) reads a name bound nowhere in the module and not a builtin. Calls (`get_config()`,
    injected by the tool that runs the file), `try` blocks and `if __name__ == "__main__":` are left out."""
    return bool(unbound_top_level_names(tree))


def unbound_top_level_names(tree: ast.Module) -> set[str]:
    """The names `unbound_top_level_read` finds read."""
    bound = _names_bound_anywhere(tree)
    found: set[str] = set()
    for statement in tree.body:
        for expression in _evaluated_on_import(statement):
            for node in ast.walk(expression):
                if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                    bound.add(node.func.id)  # the callee: left out, see above
            known = bound | _ALWAYS_BOUND
            found |= {name for node in ast.walk(expression) if (name := _unknown_read(node, known))}
    return found


def unbound_in_classes(tree: ast.Module) -> set[str]:
    """The names the module's classes read while they are built, that nothing in the module binds and
    that are no builtins: a top-level class's bases (`class HelloHandler(Listener):` with no `Listener`)
    and decorators (thinc f30b274b55's `@declare_dimensions(...)`, defined nowhere), and the simple
    statements of its body (`response = HtmlResponse(url=...)` with no `HtmlResponse`). A host that runs
    a file with names of its own (Sphinx's `tags`, a MIB loader's `mibBuilder`, Jupyter's `c`) hands it
    objects to use at its top level, not names for its classes."""
    known = _names_bound_anywhere(tree) | _ALWAYS_BOUND
    read: list[ast.expr] = []
    classes = [s for s in tree.body if isinstance(s, ast.ClassDef)]
    while classes:
        node = classes.pop()
        read.extend([*node.bases, *node.decorator_list])
        for statement in node.body:
            if isinstance(statement, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign):
                read.extend([statement.value] if statement.value is not None else [])
            elif isinstance(statement, ast.ClassDef):
                classes.append(statement)
    return {
        name for expression in read for node in ast.walk(expression) if (name := _unknown_read(node, known))
    }


def _unknown_read(node: ast.AST, known: set[str] | frozenset[str]) -> str | None:
    """The name the node reads, when it is a name no binding or builtin gives."""
    if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load) and node.id not in known:
        return node.id
    return None


def may_bind_unseen(text: str) -> bool:
    """Whether the module may bind names no statement spells (`import *`, `globals()`, `exec`...).
    `locals()` and `vars()` are the module's namespace only outside functions (hyperopt's
    `self.helper_locals = locals()` in a method binds nothing of the module)."""
    if _MAY_BIND_UNSEEN.search(text) is not None:
        return True
    if _LOCALS.search(text) is None:
        return False
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return True
    nodes = list(own_nodes(tree))  # a function's locals() are its own
    callees = {id(node.func) for node in nodes if isinstance(node, ast.Call)}
    return any(_reads_namespace(node, callees) for node in nodes)


def _reads_namespace(node: ast.AST, callees: set[int]) -> bool:
    """`locals()` or `vars()` with no argument, or either name handed on uncalled (`f = locals`)."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("locals", "vars"):
        return not node.args
    return isinstance(node, ast.Name) and node.id in ("locals", "vars") and id(node) not in callees


def _names_bound_anywhere(tree: ast.Module) -> set[str]:
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            bound.update(node.names)
        elif isinstance(node, ast.ExceptHandler | ast.MatchAs | ast.MatchStar) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
    return bound


def _evaluated_on_import(statement: ast.stmt) -> list[ast.expr]:
    if isinstance(statement, ast.If):
        return [] if _is_main_test(statement.test) else [statement.test]
    if isinstance(statement, ast.For | ast.AsyncFor):
        return [statement.iter]
    if isinstance(statement, ast.While):
        return [statement.test]
    if isinstance(statement, ast.With | ast.AsyncWith):
        return [item.context_expr for item in statement.items]
    if isinstance(statement, ast.AnnAssign):
        return [statement.value] if statement.value is not None else []  # annotations may go unevaluated
    if isinstance(statement, ast.Expr | ast.Assign | ast.AugAssign | ast.Assert | ast.Raise):
        return [child for child in ast.iter_child_nodes(statement) if isinstance(child, ast.expr)]
    return []  # definitions, imports, `try` (it may catch the NameError)


def _is_main_test(test: ast.expr) -> bool:
    return "__main__" in ast.dump(test)


def unbound_on_import(tree: ast.Module, in_package: bool) -> set[str]:
    """Names read on import that nothing binds: by the module's classes, and, in a module of a package
    (not a script or a configuration file a host runs with names of its own, as Sphinx's `conf.py` reads
    `tags`), by its top-level statements (qutip d1154d056b: `get.__doc__ = ...` where the dispatcher is
    named `extract`)."""
    found = unbound_in_classes(tree)
    return found | unbound_top_level_names(tree) if in_package else found


def unbound_on_import_of(text: str | None, in_package: bool) -> set[str]:
    """`unbound_on_import` of a module's text; empty when it may bind names unseen or does not parse."""
    if text is None or may_bind_unseen(text):
        return set()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return set()
    return unbound_on_import(tree, in_package)


def always_reads_unbound(tree: ast.Module, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a call of the module's `function` always stops on a NameError: a simple statement at the
    top of its body, before anything that may leave it, reads a name nothing in the module binds and no
    builtin gives (thinc 5a887ded85's parent `recurrent_lstm` reads `hidden.shape[1]` with no `hidden`
    anywhere; backtrader 7f9447e052's parent `Trade.__init__` sets `self.historyon = historyon`)."""
    known = _names_bound_anywhere(tree) | _ALWAYS_BOUND
    for statement in function.body:
        if not isinstance(statement, ast.Expr | ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Return):
            return False  # a branch, loop, `try` or definition: what follows may not run, or be caught
        value = statement.value
        if value is not None and any(_unknown_read(node, known) for node in _always_read(value)):
            return True
        if isinstance(statement, ast.Return):
            return False
    return False


def _always_read(expression: ast.expr) -> list[ast.AST]:
    """The nodes evaluated whenever the expression is: not lambdas, comprehensions, the branches of a
    conditional expression or what follows the first operand of `and` / `or`."""
    found: list[ast.AST] = []
    stack: list[ast.AST] = [expression]
    while stack:
        node = stack.pop()
        found.append(node)
        if isinstance(node, ast.Lambda | ast.ListComp | ast.SetComp | ast.DictComp | ast.GeneratorExp):
            continue
        if isinstance(node, ast.IfExp):
            stack.append(node.test)
        elif isinstance(node, ast.BoolOp):
            stack.append(node.values[0])
        elif isinstance(node, ast.NamedExpr):
            stack.append(node.value)
        else:
            stack.extend(ast.iter_child_nodes(node))
    return found


def always_fails_when_called(
    tree: ast.Module, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
) -> bool:
    """Whether calling the module's top-level function, or its class (through an `__init__` of its own,
    with no `__new__` or metaclass to take the call another way), always stops on a NameError
    (`always_reads_unbound`). A generator's or coroutine's body does not run when it is called."""
    function: ast.stmt | None = node
    if isinstance(node, ast.ClassDef):
        own = {s.name: s for s in node.body if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef)}
        function = None if node.keywords or "__new__" in own else own.get("__init__")
    if not isinstance(function, ast.FunctionDef) or function.decorator_list or node.decorator_list:
        return False
    if any(isinstance(n, ast.Yield | ast.YieldFrom) for n in own_nodes(function)):
        return False
    return always_reads_unbound(tree, function)
