"""How an expression's value is used where it stands: awaited, handed on, used as a plain value, or dropped.

This is what tells a call of a function that became `async def` apart: `await f()`, `asyncio.run(f())`
and `return f()` inside an `async def` are fine; `f()` alone, `f().x`, `if f():` and `x = f()` with `x`
only ever read as a value are not.
"""

from __future__ import annotations

import ast
from typing import Literal

from prscope.analysis.checks.mismatch.defs import returned_types
from prscope.analysis.checks.mismatch.nodes import FileNodes, Scope
from prscope.analysis.intel.scopes import callee_name

Use = Literal["awaited", "handed", "value", "dropped", "returned"]
"""awaited: awaited or given to an event-loop runner. handed: given to code that may await it (unknown
callees, containers, attributes, `return` from an async def, `yield`). value: used as the plain result.
dropped: discarded. returned: returned from a plain (sync) function."""

# Event-loop entry points that take a coroutine object.
COROUTINE_RUNNERS = frozenset(
    {
        "run_until_complete",
        "create_task",
        "ensure_future",
        "gather",
        "wait_for",
        "shield",
        "run_coroutine_threadsafe",
        "as_completed",
        "wait",
        "timeout_at",
    }
)
_ASYNC_LIBRARIES = frozenset({"asyncio", "anyio", "trio"})
# Callees that use an argument as a plain value; any other callee might be a runner (`sync(coro)`).
_VALUE_USERS = frozenset(
    {
        "print", "len", "str", "repr", "int", "float", "bool", "bytes", "list", "tuple", "set",
        "frozenset", "dict", "sorted", "reversed", "sum", "min", "max", "any", "all", "abs", "round",
        "isinstance", "getattr", "hasattr", "next", "iter", "enumerate", "zip", "map", "filter", "format",
    }
)  # fmt: skip
# Calls that run what they are given in a worker thread, as a plain callable: a coroutine object handed to
# them is used as a value (and fails: it is not callable).
_THREAD_RUNNERS = frozenset({"run_in_executor", "submit", "to_thread", "run_sync", "apply_async", "Thread"})
# Methods that drive or discard a coroutine object by hand.
_COROUTINE_METHODS = frozenset({"send", "throw", "close", "__await__", "cr_frame", "cr_code", "cr_running"})
AWAITABLE_TYPES = frozenset({"Awaitable", "Coroutine", "Future", "Task", "Deferred"})
_AWAITABLE_WORDS = ("Awaitable", "Coroutine", "Future", "Deferred")
# What a coroutine object may be returned as: a Future, Task or Deferred is something else.
_COROUTINE_TYPES = frozenset({"Awaitable", "Coroutine", "Any"})
_MAX_FLOW_DEPTH = 2


def declared_awaitable(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool | None:
    """What the return annotation says: True for `Awaitable` / `Coroutine`, False for a plain type, None
    for no annotation, `Any`, or a name that may or may not be awaitable (`Task`, `Future`, `Deferred`:
    asyncio's are, trio's and celery's `Task` are not)."""
    if function.returns is None:
        return None
    names = returned_types(function)
    if names & {"Awaitable", "Coroutine"}:
        return True
    if not names or names & (AWAITABLE_TYPES | {"Any"}):
        return None
    if any(word in name for name in names for word in _AWAITABLE_WORDS):
        return None  # `AwaitableOrContextManager[T]`, `ConcurrentFuture`: a class of the project's own
    return False


def declared_awaitable_class(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the return annotation names an awaitable class with an API of its own (`Future`, `Task`,
    `Deferred`): callers may use that API, which a coroutine object does not have."""
    return not {"Future", "Task", "Deferred"}.isdisjoint(returned_types(function))


def is_runner_call(call: ast.Call) -> bool:
    """`asyncio.run(...)`, `loop.run_until_complete(...)`, `asyncio.gather(...)`, `tg.create_task(...)`."""
    func = call.func
    if isinstance(func, ast.Attribute):
        if func.attr in COROUTINE_RUNNERS:
            return True
        return func.attr == "run" and isinstance(func.value, ast.Name) and func.value.id == "asyncio"
    return isinstance(func, ast.Name) and func.id in COROUTINE_RUNNERS - {"wait", "as_completed"}


def use_of(nodes: FileNodes, expr: ast.expr, depth: int = 0, *, was_awaitable: bool = True) -> Use:
    """How the value of `expr` is used. `was_awaitable`: whether what the code used to get here was an
    awaitable already; when it was not, `x.close()` is a call of the old value's own `close`, not the
    coroutine's."""
    parent = nodes.parent(expr)
    if isinstance(parent, ast.Await):
        return "awaited"
    if isinstance(parent, ast.Expr):
        return "dropped"
    if isinstance(parent, ast.Call):
        return _use_in_call(parent, expr)
    if isinstance(parent, ast.keyword):
        call = nodes.parent(parent)
        if parent.arg is None:
            return "value"  # `f(**coro)`: unpacking a coroutine object raises TypeError
        use = _use_in_call(call, expr) if isinstance(call, ast.Call) else "handed"
        return "value" if use == "handed" and not _names_awaitable(parent.arg) else use
    if isinstance(parent, ast.Starred) and isinstance(nodes.parent(parent), ast.Call | ast.List | ast.Tuple):
        return "value"  # `f(*coro)`, `[*coro]`: iterating a coroutine object raises TypeError
    if isinstance(parent, ast.Starred | ast.IfExp | ast.NamedExpr) and _is_value_part(parent, expr):
        if isinstance(parent, ast.NamedExpr):
            return _flow(nodes, parent.target, nodes.scope(parent), depth, was_awaitable)
        return use_of(nodes, parent, depth, was_awaitable=was_awaitable)
    if isinstance(parent, ast.Attribute):
        return "handed" if parent.attr in _COROUTINE_METHODS and was_awaitable else "value"
    if isinstance(parent, ast.AugAssign) and parent.value is expr:
        return "value"  # `total += obj.decode(chunk)`
    if isinstance(parent, ast.Return):
        return _returned(nodes, parent)
    if isinstance(parent, ast.Assign | ast.AnnAssign) and parent.value is expr:
        return _assigned(nodes, parent, depth, was_awaitable)
    if _plain_value_context(parent, expr):
        return "value"
    return "handed"


def _is_value_part(parent: ast.AST, expr: ast.expr) -> bool:
    if isinstance(parent, ast.IfExp):
        return expr is parent.body or expr is parent.orelse
    if isinstance(parent, ast.NamedExpr):
        return expr is parent.value and isinstance(parent.target, ast.Name)
    return isinstance(parent, ast.Starred)


def _use_in_call(call: ast.Call, expr: ast.expr) -> Use:
    if call.func is expr:
        return "value"
    if is_runner_call(call):
        return "awaited"
    name = callee_name(call)
    if name in _THREAD_RUNNERS:
        return "value"  # run as a plain callable in a thread: a coroutine object is not one
    if isinstance(call.func, ast.Name) and name in _VALUE_USERS:
        return "value"
    if name.startswith("assert") and not name.startswith("assert_awaited"):
        return "value"
    if name[:1].isupper() and not _names_awaitable(name):
        return "value"  # a constructor keeps what it is given as data (`Result(data=fetch())`)
    return "handed"


def _names_awaitable(name: str) -> bool:
    """A callee or keyword whose name says it takes awaitables (`Task(...)`, `coro=`, `awaitable=`)."""
    lowered = name.lower()
    return any(word in lowered for word in ("coro", "task", "future", "await", "deferred", "callback"))


def _plain_value_context(parent: ast.AST | None, expr: ast.expr) -> bool:
    if isinstance(parent, ast.Subscript):
        return parent.value is expr
    if isinstance(parent, ast.For | ast.AsyncFor | ast.comprehension):
        return parent.iter is expr
    if isinstance(parent, ast.withitem):
        return parent.context_expr is expr
    if isinstance(parent, ast.If | ast.While | ast.Assert):
        return parent.test is expr
    if isinstance(parent, ast.IfExp):
        return parent.test is expr
    return isinstance(parent, ast.BoolOp | ast.Compare | ast.BinOp | ast.FormattedValue) or (
        isinstance(parent, ast.UnaryOp) and isinstance(parent.op, ast.Not | ast.USub | ast.Invert)
    )


def _returned(nodes: FileNodes, statement: ast.Return) -> Use:
    scope = nodes.scope(statement)
    if isinstance(scope, ast.AsyncFunctionDef):
        # Awaiting the async function now gives a coroutine object, not the result.
        return "handed" if not _COROUTINE_TYPES.isdisjoint(returned_types(scope)) else "value"
    if not isinstance(scope, ast.FunctionDef):
        return "handed"  # a lambda hands the coroutine to whoever calls it
    if not _COROUTINE_TYPES.isdisjoint(returned_types(scope)):
        return "handed"  # declared to return an awaitable a coroutine object is
    return "returned"


def _assigned(
    nodes: FileNodes, statement: ast.Assign | ast.AnnAssign, depth: int, was_awaitable: bool
) -> Use:
    targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
    if len(targets) > 1:  # `a = b = f()`: the most telling of the names' uses
        uses = {_assigned_to(nodes, statement, t, depth, was_awaitable) for t in targets}
        return next((u for u in ("awaited", "value", "returned", "dropped") if u in uses), "handed")
    return _assigned_to(nodes, statement, targets[0], depth, was_awaitable)


def _assigned_to(
    nodes: FileNodes, statement: ast.Assign | ast.AnnAssign, target: ast.expr, depth: int, was_awaitable: bool
) -> Use:
    if isinstance(target, ast.Tuple | ast.List):
        return "value"  # unpacking a coroutine object fails
    if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
        return _attribute_flow(nodes, target, nodes.scope(statement), depth, was_awaitable)
    if not isinstance(target, ast.Name):
        return "handed"
    return _flow(nodes, target, nodes.scope(statement), depth, was_awaitable)


def _attribute_flow(
    nodes: FileNodes, target: ast.Attribute, scope: Scope, depth: int, was_awaitable: bool
) -> Use:
    """`self.x = f()`: handed on (another method may await it), unless the same function reads it
    back and uses that as the plain value (`self.session = open_session(); self.session.get(...)`)."""
    if depth >= _MAX_FLOW_DEPTH or isinstance(scope, ast.Module):
        return "handed"
    holder = target.value.id if isinstance(target.value, ast.Name) else ""
    reads = [
        node
        for node in ast.walk(scope)
        if isinstance(node, ast.Attribute)
        and node.attr == target.attr
        and isinstance(node.value, ast.Name)
        and node.value.id == holder
        and isinstance(node.ctx, ast.Load)
        and (node.lineno, node.col_offset) > (target.lineno, target.col_offset)
    ]
    if not reads:
        return "handed"
    uses = {use_of(nodes, read, depth + 1, was_awaitable=was_awaitable) for read in reads}
    return "value" if "value" in uses and "awaited" not in uses else "handed"


def _flow(nodes: FileNodes, target: ast.expr, scope: Scope, depth: int, was_awaitable: bool) -> Use:
    """What happens to a local that holds the value: the most forgiving use of its later reads."""
    if not isinstance(target, ast.Name) or depth >= _MAX_FLOW_DEPTH or isinstance(scope, ast.Module):
        return "handed"  # module globals can be read anywhere
    reads = [
        node
        for node in ast.walk(scope)
        if isinstance(node, ast.Name)
        and node.id == target.id
        and isinstance(node.ctx, ast.Load)
        and (node.lineno, node.col_offset) > (target.lineno, target.col_offset)
    ]
    if not reads:
        return "dropped"
    uses = {use_of(nodes, read, depth + 1, was_awaitable=was_awaitable) for read in reads}
    # Awaited somewhere: fine. Otherwise one read as the plain value is a break, whatever else is done
    # with the local (handing it on as well does not await it).
    for use in ("awaited", "value", "returned"):
        if use in uses:
            return use
    return "handed"


def scope_is_async(nodes: FileNodes, node: ast.AST) -> bool:
    """Whether `await` may be written at `node` (inside an async def, not in a generator expression)."""
    scope = nodes.scope(node)
    return isinstance(scope, ast.AsyncFunctionDef) and not nodes.in_generator_expression(node, scope)
