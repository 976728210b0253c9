"""`async-mismatch`: the PR turns `def f` into `async def f` (or back) and a caller still uses it the old way.

A call of what is now a coroutine function only creates a coroutine: left alone, used as a value, or
returned from a plain function, the body never runs. `await` on what is now a plain function raises
TypeError. Calls awaited, handed to an event-loop runner, or returned from an `async def` are fine, and so
is any callee that might await the coroutine later (only receivers the index resolves are judged).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from prscope.analysis.checks.context import CheckContext
from prscope.analysis.checks.mismatch.awaiting import (
    callee_name,
    declared_awaitable,
    declared_awaitable_class,
    is_runner_call,
    scope_is_async,
    use_of,
)
from prscope.analysis.checks.mismatch.defs import ChangedFile, FunctionFacts, own_body_nodes, returned_types
from prscope.analysis.checks.mismatch.edits import drop_await, insert_await
from prscope.analysis.checks.mismatch.nodes import FileNodes, NodeCache
from prscope.analysis.checks.mismatch.resolution import Hierarchy, MethodAt
from prscope.analysis.checks.mismatch.uses import Problem, changed_functions, read_uses, use_finding
from prscope.analysis.findings import Finding, Severity
from prscope.analysis.intel import Reference

RULE = "async-mismatch"
SEVERITY = Severity.ERROR

# Calls that run a function they are given in a worker thread, as a plain function: (callee, argument slot).
_THREAD_RUNNERS = {"run_in_executor": 1, "to_thread": 0, "run_sync": 0, "submit": 0}
# Calls that expect an async function (not a coroutine object) as their first argument.
_ASYNC_FUNCTION_TAKERS = frozenset({"start_soon"})
# Callees whose result is awaitable: asyncio's own, and names that say so.
_AWAITABLE_CALLEES = frozenset(
    {"create_task", "gather", "wait_for", "sleep", "shield", "run_in_executor", "to_thread", "maybeDeferred"}
)
_AWAITABLE_CALLEE_WORDS = ("future", "coro", "deferred", "async", "awaitable")


@dataclass(frozen=True)
class AsyncChange:
    file: ChangedFile
    old: FunctionFacts
    new: FunctionFacts
    became_async: bool
    only_dropped: bool = False
    """The old function already returned an awaitable: only calls that drop the result break."""

    @property
    def display(self) -> str:
        return self.new.qualname

    @property
    def dotted(self) -> str:
        return f"{self.file.module}.{self.new.qualname}"


def check_async_mismatch(ctx: CheckContext, _view: object = None) -> list[Finding]:
    hierarchy, files = Hierarchy(ctx.index), NodeCache(ctx.index)
    findings: list[Finding] = []
    for change in changed_functions(ctx, RULE, async_change):
        findings.extend(_stale_uses(hierarchy, files, change))
    return findings


def async_change(changed: ChangedFile, old: FunctionFacts, new: FunctionFacts) -> AsyncChange | None:
    """The change when calling `new` defers its body (`def` -> `async def`) or gives an awaitable where
    `old` gave a plain value, or the reverse: what `old` gave was awaitable and `new` gives a plain value."""
    if not (old.is_async or new.is_async) and (old.node.returns is None or new.node.returns is None):
        return None  # between plain functions only a changed declaration says the result changed kind
    if old.is_generator or new.is_generator:
        return None  # async generators are iterated, not awaited: another protocol
    if not (old.plain_decorators and new.plain_decorators) or "property" in (old.kind, new.kind):
        return None  # a decorator may wrap the call (sync_to_async, fixtures, routes)
    before, after = _gives_awaitable(changed.old, old), _gives_awaitable(changed.new, new)
    if new.is_async and not old.is_async:
        # The body no longer runs on the call. When the old result was awaitable already, only the calls
        # that dropped it break: using or returning it as an awaitable still works.
        concrete = declared_awaitable_class(old.node)  # a Future / Task / Deferred is not a coroutine
        return AsyncChange(
            changed, old, new, became_async=True, only_dropped=before is not False and not concrete
        )
    if before is None or after is None or before == after:
        return None
    return AsyncChange(changed, old, new, became_async=after)


def _gives_awaitable(functions: dict[str, FunctionFacts], facts: FunctionFacts) -> bool | None:
    """True for a coroutine function or a `def` declared to return `Awaitable` / `Coroutine`; False for
    a plain result; None when that cannot be told (`-> Any`, `-> Task` (asyncio's or another library's),
    a plain `def` returning what may be awaitable: `return self._fetch()`)."""
    if facts.is_async:
        return True
    declared = declared_awaitable(facts.node)
    if declared is not None or (facts.node.returns is not None and returned_types(facts.node) != {"Any"}):
        return declared  # `-> Any` says nothing: what the body returns does
    coroutine_names = {f.name for f in functions.values() if f.is_async}
    for node in own_body_nodes(facts.node):
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Call):
            name = callee_name(node.value)
            lowered = name.lower()
            if (
                name in coroutine_names
                or name in _AWAITABLE_CALLEES
                or any(word in lowered for word in _AWAITABLE_CALLEE_WORDS)
            ):
                return None
    return False


def _stale_uses(hierarchy: Hierarchy, files: NodeCache, change: AsyncChange) -> list[Finding]:
    findings: list[Finding] = []

    def same(override: MethodAt) -> bool:
        return override.facts.is_async == change.new.is_async

    for nodes, reference, node in read_uses(hierarchy, files, change.dotted, same):
        call = nodes.called(node)
        if call is not None:
            problem = (
                _judge_to_async(nodes, call, change)
                if change.became_async
                else _judge_to_sync(nodes, call, change)
            )
        else:
            problem = _judge_handed_function(nodes, node, change)
        if problem is not None:
            findings.append(_finding(nodes, reference, change, problem))
    return findings


def _judge_to_async(nodes: FileNodes, call: ast.Call, change: AsyncChange) -> Problem | None:
    use = use_of(nodes, call, was_awaitable=change.only_dropped)
    if change.only_dropped and use != "dropped":
        return None
    name = change.new.name
    title = f"`{change.display}` is now async, and this call does not await it"
    if use == "dropped":
        message = (
            f"This call now only creates a coroutine, and nothing awaits it: the body of `{change.display}` "
            f"never runs (Python warns \"coroutine '{name}' was never awaited\")."
        )
    elif use == "value":
        message = (
            f"This call now returns a coroutine object, not the result of `{change.display}`, and the code "
            "uses it as a value: the body never runs, and the value is wrong (a coroutine is always true; "
            "indexing or iterating it raises TypeError)."
        )
    elif use == "returned":
        scope = nodes.scope(call)
        owner = f"`{scope.name}`" if isinstance(scope, ast.FunctionDef) else "this function"
        message = (
            f"The plain function {owner} returns this call, which is now a coroutine: its callers get a "
            f"coroutine object instead of the result, and unless they await it the body of "
            f"`{change.display}` never runs."
        )
    else:
        return None
    suggestion = None
    if use in ("dropped", "value") and scope_is_async(nodes, call):
        parent = nodes.parent(call)
        wrap = isinstance(parent, ast.Attribute | ast.Subscript) or (
            isinstance(parent, ast.Call) and parent.func is call
        )
        suggestion = insert_await(nodes, call, parenthesise=wrap)
        message += " Add `await`."
    elif use in ("dropped", "value"):
        message += (
            " The enclosing function is not async: make it `async def` (and await it), or run the coroutine."
        )
    return Problem(title, message, suggestion)


def _judge_to_sync(nodes: FileNodes, call: ast.Call, change: AsyncChange) -> Problem | None:
    parent = nodes.parent(call)
    title = f"`{change.display}` is no longer async, and this call still treats it as a coroutine"
    if isinstance(parent, ast.Await) and parent.value is call:
        return Problem(
            title,
            f"This PR made `{change.display}` a plain function: it returns its result directly, and awaiting "
            "that raises `TypeError: object ... can't be used in 'await' expression`. Drop the `await`.",
            drop_await(nodes, parent, call),
        )
    if isinstance(parent, ast.Call) and call in parent.args and is_runner_call(parent):
        runner = callee_name(parent)
        return Problem(
            title,
            f"`{runner}()` expects a coroutine, but `{change.display}` is now a plain function: this "
            f"call runs it at once and hands its result to `{runner}()`, which raises TypeError (or "
            "ValueError). Call it directly.",
        )
    return None


def _judge_handed_function(nodes: FileNodes, node: ast.expr, change: AsyncChange) -> Problem | None:
    """`loop.run_in_executor(None, f)` after f became async; `nursery.start_soon(f)` after it stopped
    being async."""
    parent = nodes.parent(node)
    if not isinstance(parent, ast.Call) or node not in parent.args:
        return None
    runner = callee_name(parent)
    slot = parent.args.index(node)
    if change.became_async and _THREAD_RUNNERS.get(runner) == slot:
        return Problem(
            f"`{change.display}` is now async, but `{runner}()` runs it as a plain function",
            f"`{runner}()` calls `{change.display}` in a worker thread as a plain function; now that it is "
            "`async def`, that only creates a coroutine which is never awaited: the body never runs.",
        )
    if not change.became_async and slot == 0 and _takes_async_function(parent, runner):
        return Problem(
            f"`{change.display}` is no longer async, but `{runner}()` expects an async function",
            f"`{runner}()` expects an async function; `{change.display}` is now a plain function, so it "
            "raises TypeError when it tries to run it.",
        )
    return None


def _takes_async_function(call: ast.Call, runner: str) -> bool:
    if runner in _ASYNC_FUNCTION_TAKERS:
        return True
    func = call.func
    return (
        runner == "run"
        and isinstance(func, ast.Attribute)
        and (
            (isinstance(func.value, ast.Name) and func.value.id in ("anyio", "trio"))
            or (isinstance(func.value, ast.Attribute) and func.value.attr == "from_thread")
        )
    )


def _finding(nodes: FileNodes, reference: Reference, change: AsyncChange, problem: Problem) -> Finding:
    if change.became_async:
        now = "now declared to return an awaitable"
        if change.new.is_async:
            now = "now a coroutine" if change.new.is_generator_coroutine else "now `async def`"
    else:
        now = "now a plain function" if not change.old.is_async else "now a plain `def`"
    return use_finding(RULE, SEVERITY, nodes, reference, change, problem, now)
