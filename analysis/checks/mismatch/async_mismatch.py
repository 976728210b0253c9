"""`async-mismatch`: the PR turns `def f` into `async def f` (or back) and a caller still uses it the old way.

A call of what is now a coroutine function only creates a coroutine: left alone, used as a value, or
returned from a plain function, the body never runs. `await` on what is now a plain function raises
TypeError. Calls awaited, handed to an event-loop runner, or returned from an `async def` are fine, and so
is any callee that might await the coroutine later (only receivers the index resolves are judged).
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from prscope.analysis.checks.context import CheckContext
from prscope.analysis.checks.mismatch.awaiting import (
    declared_awaitable,
    declared_awaitable_class,
    is_runner_call,
    scope_is_async,
    use_of,
)
from prscope.analysis.checks.mismatch.defs import ChangedFile, FunctionFacts, own_body_nodes, returned_types
from prscope.analysis.checks.mismatch.edits import drop_await, insert_await
from prscope.analysis.checks.mismatch.nodes import FileNodes, NodeCache
from prscope.analysis.checks.mismatch.resolution import FunctionNode, Hierarchy, MethodAt, defined_function
from prscope.analysis.checks.mismatch.uses import Problem, changed_functions, read_uses, use_finding
from prscope.analysis.findings import Finding, Severity
from prscope.analysis.intel import CodeIndex, Reference
from prscope.analysis.intel.resolve import Resolver
from prscope.analysis.intel.scopes import callee_name, dotted_chain, statement_names

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
    through: str = ""
    """The abstract declaration whose calls are judged, when every implementation changed alike."""

    @property
    def display(self) -> str:
        return f"{self.through} (each implementation)" if self.through else self.new.qualname

    @property
    def dotted(self) -> str:
        return f"{self.file.module}.{self.new.qualname}"


def check_async_mismatch(ctx: CheckContext, _view: object = None) -> list[Finding]:
    hierarchy, files = Hierarchy(ctx.index), NodeCache(ctx.index)
    wrappers = RunnerWrappers(ctx.index)
    findings: list[Finding] = []
    seen: set[tuple[str, int, int | None]] = set()
    judged: set[str] = set()
    awaitable = functools.cache(lambda: awaitable_class_names(ctx.index))
    makers = functools.cache(functools.partial(declared_to_make_awaitable, ctx.index, awaitable))
    detect = functools.partial(async_change, awaitable=awaitable, makers=makers)
    for change in changed_functions(ctx, RULE, detect):
        for dotted, judged_change in ((change.dotted, change), *_placeholders_of(hierarchy, change)):
            if dotted in judged:
                continue
            judged.add(dotted)
            for finding in _stale_uses(hierarchy, files, judged_change, dotted, wrappers):
                key = (finding.path, finding.line, finding.column)
                if key not in seen:
                    seen.add(key)
                    findings.append(finding)
    return findings


def _placeholders_of(hierarchy: Hierarchy, change: AsyncChange) -> list[tuple[str, AsyncChange]]:
    """The abstract declaration the changed method implements, when every implementation of it in the
    repository changed the same way (discord's `Messageable._get_channel`, a stub, while each channel's
    `_get_channel` became a coroutine): `self._get_channel()` in the base then gets a coroutine too."""
    class_name = change.new.class_qualname
    if class_name is None or "." in class_name:
        return []
    base = hierarchy.overridden(change.file.module, class_name, change.new.name)
    if base is None or not base.facts.is_stub or base.facts.is_async == change.new.is_async:
        return []
    implementations = hierarchy.overrides(base.module, base.class_name, change.new.name)
    if not implementations or any(m.facts.is_async != change.new.is_async for m in implementations):
        return []
    return [(f"{base.module}.{base.facts.qualname}", replace(change, through=base.facts.qualname))]


def async_change(
    changed: ChangedFile,
    old: FunctionFacts,
    new: FunctionFacts,
    awaitable: Callable[[], frozenset[str]] = frozenset,
    makers: Callable[[str], bool] = lambda _name: False,
) -> AsyncChange | None:
    """The change when calling `new` defers its body (`def` -> `async def`) or gives an awaitable where
    `old` gave a plain value, or the reverse: what `old` gave was awaitable and `new` gives a plain value.
    `awaitable()`: names of the repository's classes that define `__await__`; `makers(name)`: whether a
    function of that name is declared to return one."""
    if not (old.is_async or new.is_async) and (
        old.node.returns is None or new.node.returns is None or _same(old.node.returns, new.node.returns)
    ):
        return None  # between plain functions only a changed declaration says the result changed kind
    if old.is_generator or new.is_generator:
        return None  # async generators are iterated, not awaited: another protocol
    if not (old.plain_decorators and new.plain_decorators) or "property" in (old.kind, new.kind):
        return None  # a decorator may wrap the call (sync_to_async, fixtures, routes)
    if old.is_async == new.is_async:
        makers = _no_maker  # the callee's declaration is read for a function that turned plain (or async)
    before = _gives_awaitable(changed.old, old, awaitable, makers)
    # Only for a function that turned plain: is what it returns now still awaited fine (edgedb-python
    # 49c72ab8ef)? Read on the old side too, it hid asyncpg 12ebf17a1a's `stmt = PreparedStatement(...)`.
    turned_plain = old.is_async and not new.is_async
    after = _gives_awaitable(changed.new, new, awaitable, makers, read_locals=turned_plain)
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


def _gives_awaitable(
    functions: dict[str, FunctionFacts],
    facts: FunctionFacts,
    awaitable: Callable[[], frozenset[str]],
    makers: Callable[[str], bool],
    *,
    read_locals: bool = False,
) -> bool | None:
    """True for a coroutine function or a `def` declared to return `Awaitable` / `Coroutine`; False for
    a plain result; None when that cannot be told (`-> Any`, `-> Task` (asyncio's or another library's),
    a plain `def` returning what may be awaitable: `return self._fetch()`, `return Statement(...)` of a
    class with `__await__`)."""
    if facts.is_async:
        return True

    def awaitable_class(name: str) -> bool:
        return f"{name}.__await__" in functions or name in awaitable()

    declared = declared_awaitable(facts.node)
    if declared is False and any(awaitable_class(name) for name in returned_types(facts.node)):
        # `-> Server` whose class defines `__await__` (websockets' `serve`): awaitable, but a class of the
        # other side may have it through a base (tortoise's `BulkUpdateQuery`): cannot tell a change
        return None
    returned_calls = _returned_calls(facts.node)
    if declared is False and any(makers(callee_name(call)) for call in returned_calls):
        # `-> UpdateResult` over `return cls.find_all().update_many(...)`, where `update_many` is declared
        # `-> UpdateMany`, a class with `__await__` (beanie 1fd9bcfd): the declaration names what awaiting
        # the result gives, not the result
        return None
    if declared is not True and _hands_on_a_coroutine(functions, returned_calls, _HAND_ON_DEPTH):
        # `def pull(...) -> Mapping: return self._handle_response(cm, stream)`, a helper returning
        # `self._handle_list(cm)`, an `async def` (aiodocker 5a6cbfbc): the declaration kept from the
        # `async def` says a plain value, the body hands on a coroutine; the calls' `await` still works
        return None
    if declared is not None or (facts.node.returns is not None and returned_types(facts.node) != {"Any"}):
        return declared  # `-> Any` says nothing: what the body returns does
    if read_locals and any(
        awaitable_class(callee_name(c)) for c in _calls_behind_returned_locals(facts.node)
    ):
        return None  # an object of a class with `__await__`: awaiting it still works
    coroutine_names = {f.name for f in functions.values() if f.is_async}
    for call in returned_calls:
        name = callee_name(call)
        lowered = name.lower()
        if (
            name in coroutine_names
            or awaitable_class(name)
            or name in _AWAITABLE_CALLEES
            or any(word in lowered for word in _AWAITABLE_CALLEE_WORDS)
        ):
            return None
    return False


_HAND_ON_DEPTH = 3


def _hands_on_a_coroutine(functions: dict[str, FunctionFacts], calls: list[ast.Call], depth: int) -> bool:
    """Whether one of the returned `calls` is of a coroutine function of the file, or of a plain one of the
    file that itself returns such a call (up to `depth` plain functions deep)."""
    for call in calls:
        name = callee_name(call)
        for callee in (f for f in functions.values() if f.name == name):
            if callee.is_async and not callee.is_generator:
                return True
            deeper = not callee.is_async and depth > 1
            if deeper and _hands_on_a_coroutine(functions, _returned_calls(callee.node), depth - 1):
                return True
    return False


def _returned_calls(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    return [
        n.value
        for n in own_body_nodes(function)
        if isinstance(n, ast.Return) and isinstance(n.value, ast.Call)
    ]


def _calls_behind_returned_locals(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.Call]:
    """For `return pool` after the one assignment `pool = AsyncIOPool(...)` of the function's own body
    (edgedb-python 49c72ab8ef), that call."""
    nodes = list(own_body_nodes(function))
    assigned: dict[str, list[ast.expr | None]] = {}
    for node in nodes:
        if isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
    calls: list[ast.Call] = []
    for node in nodes:
        if isinstance(node, ast.Return) and isinstance(node.value, ast.Name):
            values = assigned.get(node.value.id, [])
            if len(values) == 1 and isinstance(values[0], ast.Call):
                calls.append(values[0])
    return calls


def _same(old: ast.expr, new: ast.expr) -> bool:
    return ast.dump(old) == ast.dump(new)


def _no_maker(_name: str) -> bool:
    return False


def declared_to_make_awaitable(index: CodeIndex, awaitable: Callable[[], frozenset[str]], name: str) -> bool:
    """Whether a function `name` of the repository is declared to return a class that defines
    `__await__` (beanie's `FindMany.update_many(...) -> UpdateMany`)."""
    classes = awaitable()
    if not name or not classes:
        return False
    spelled = re.compile(rf"\bdef[ \t]+{re.escape(name)}\b")
    for path in index.word_lines(name, set(index.python_files())):
        if not spelled.search(index.source(path) or ""):
            continue  # no `def name` in the file: nothing to parse it for
        tree = index.parse(path)
        for node in ast.walk(tree) if tree is not None else ():
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) or node.name != name:
                continue
            if not classes.isdisjoint(returned_types(node)):
                return True
    return False


def awaitable_class_names(index: CodeIndex) -> frozenset[str]:
    """Names of the repository's classes that define `__await__` (asyncpg's `PreparedStatement`, made by
    a plain `def prepare()`): `await` on what such a function returns works, sync or not."""
    files = set(index.python_files())
    names: set[str] = set()
    for path in index.word_lines("__await__", files):
        tree = index.parse(path)
        for node in ast.walk(tree) if tree is not None else ():
            if isinstance(node, ast.ClassDef) and any("__await__" in statement_names(s) for s in node.body):
                names.add(node.name)
    return frozenset(names)


def _stale_uses(
    hierarchy: Hierarchy, files: NodeCache, change: AsyncChange, dotted: str, wrappers: RunnerWrappers
) -> list[Finding]:
    findings: list[Finding] = []

    def same(override: MethodAt) -> bool:
        return override.facts.is_async == change.new.is_async

    for nodes, reference, node in read_uses(hierarchy, files, dotted, same):
        call = nodes.called(node)
        if call is not None:
            problem = (
                _judge_to_async(nodes, call, change)
                if change.became_async
                else _judge_to_sync(nodes, call, change, functools.partial(wrappers.runs, nodes))
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
    if use == "dropped" and change.new.runs_eagerly:
        return None  # the body runs anyway; only what it raises goes unseen
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


def _judge_to_sync(
    nodes: FileNodes, call: ast.Call, change: AsyncChange, runs: Callable[[ast.Call, ast.expr], bool]
) -> Problem | None:
    parent = nodes.parent(call)
    title = f"`{change.display}` is no longer async, and this call still treats it as a coroutine"
    if isinstance(parent, ast.Await) and parent.value is call:
        return Problem(
            title,
            f"This PR made `{change.display}` a plain function: it returns its result directly, and awaiting "
            "that raises `TypeError: object ... can't be used in 'await' expression`. Drop the `await`.",
            drop_await(nodes, parent, call),
        )
    if isinstance(parent, ast.YieldFrom) and parent.value is call and _returns_nothing(change.new):
        return Problem(
            title,
            f"This PR made `{change.display}` a plain function that returns None: `yield from` on its "
            "result raises `TypeError: 'NoneType' object is not iterable`. Call it directly.",
        )
    if (
        isinstance(parent, ast.Call)
        and call in parent.args
        and (is_runner_call(parent) or runs(parent, call))
    ):
        runner = callee_name(parent)
        return Problem(
            title,
            f"`{runner}()` expects a coroutine, but `{change.display}` is now a plain function: this "
            f"call runs it at once and hands its result to `{runner}()`, which raises TypeError (or "
            "ValueError). Call it directly.",
        )
    return None


class RunnerWrappers:
    """Repository functions that hand an argument straight to an event-loop runner: a test suite's
    `def run(coro): return asyncio.get_event_loop().run_until_complete(coro)`."""

    def __init__(self, index: CodeIndex) -> None:
        self.index = index
        self.resolver = Resolver(index)
        self._memo: dict[tuple[str, str, int], bool] = {}

    def runs(self, nodes: FileNodes, call: ast.Call, argument: ast.expr) -> bool:
        """Whether `call` (`run(x)`) is such a function called with `argument` in the slot it runs."""
        chain = dotted_chain(call.func)
        module = self.index.module_name(nodes.path)
        if chain is None or module is None or argument not in call.args:
            return False
        key = (module, ".".join(chain), call.args.index(argument))
        if key not in self._memo:
            function = defined_function(self.index, self.resolver, module, chain)
            self._memo[key] = function is not None and _hands_to_runner(function, key[2])
        return self._memo[key]


def _hands_to_runner(function: FunctionNode, slot: int) -> bool:
    positional = [*function.args.posonlyargs, *function.args.args]
    if slot >= len(positional):
        return False
    name = positional[slot].arg
    return any(
        isinstance(node, ast.Call)
        and is_runner_call(node)
        and any(isinstance(a, ast.Name) and a.id == name for a in node.args)
        for node in own_body_nodes(function)
    )


def _returns_nothing(facts: FunctionFacts) -> bool:
    """A plain function with no `return <value>` (and no `yield`): its call gives None."""
    return not facts.is_async and not any(
        isinstance(n, ast.Yield | ast.YieldFrom) or (isinstance(n, ast.Return) and n.value is not None)
        for n in own_body_nodes(facts.node)
    )


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
