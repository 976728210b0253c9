"""The calls `x.method(...)` of a file that may reach a method of a class family: not through `super()`,
a module's function of that name, an object another class makes, the base class spelled out, or an
instance the base's own constructor made; handed on through `functools.partial` and the like; and
whether each call sits where its caller inspects the method (or retries on `TypeError`) first."""

from __future__ import annotations

import ast
from collections import Counter
from collections.abc import Iterable

from prscope.analysis.intel.files import attribute_spelling
from prscope.analysis.intel.scopes import constructor_chain, dotted_chain, is_super_call, nested_statements


def method_calls(
    tree: ast.Module,
    method: str,
    base_class: str,
    family: frozenset[str] = frozenset(),
    lines: frozenset[int] | None = None,
    modules: frozenset[str] = frozenset(),
    above: frozenset[str] = frozenset(),
) -> Iterable[tuple[ast.Call, ast.AST, bool]]:
    """Each call `x.method(...)` with its scope, and whether it sits in a branch that inspects the method
    first (then it is written for whatever signature the callee has). `lines`, when given, are the lines
    where the text spells `.method`: only the functions spanning one of them are walked (sqlalchemy's
    test files hold hundreds of functions, and one or two call the method). `modules`: names the file
    binds to modules otherwise (`from apprise import utils`), which only the repository can tell; `above`:
    names of the base class's ancestors (a call spelled on one runs that class's own function)."""
    known = _imported_modules(tree) | modules
    functions = [
        n
        for n in nested_statements(tree.body)
        if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and (lines is None or _spans_any(n, lines))
    ]
    for scope in [tree, *functions]:
        nodes = list(own_nodes(scope))
        calls = [
            n
            for n in nodes
            if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Attribute)
            and n.func.attr == method
            and not is_super_call(n.func.value)
            and not _module_function(n.func.value, known)
            and not _other_class_made(n.func.value, family)
            and not _spelled_on_the_base(n.func.value, base_class, above)
        ]
        plain = _made_by_constructor(nodes, base_class) if calls and base_class else set()
        retried = _tried_for_type_error(nodes) if calls else set()
        guarded = _guarded_by_inspection(nodes, method) if calls else set()
        for call in calls:
            receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
            if not (isinstance(receiver, ast.Name) and receiver.id in plain) and id(call) not in retried:
                yield call, scope, id(call) in guarded
        for node in nodes:
            if isinstance(node, ast.Call) and (handed := _handed_on_call(node, method)) is not None:
                yield handed, scope, False


FoundCalls = list[tuple[ast.Call, ast.AST, bool]]


def _handed_on_call(call: ast.Call, method: str) -> ast.Call | None:
    """The call a method handed on (not called) receives later, as far as `call` spells its keywords:
    `partial(obj.method, item=x)`, `Thread(target=obj.method, kwargs={"item": x})`, Twisted's
    `addCallbacks(obj.method, callbackKeywords={"item": x})`. Its positional arguments are unknown (none
    are counted); None when `call` hands no such method on or names no keyword for it."""
    handed = [
        value
        for value in [*call.args, *(k.value for k in call.keywords)]
        if isinstance(value, ast.Attribute) and value.attr == method and not is_super_call(value.value)
    ]
    if not handed:
        return None
    keywords = [
        ast.keyword(arg=key.value, value=item)
        for value in [*call.args, *(k.value for k in call.keywords)]
        if isinstance(value, ast.Dict)
        for key, item in zip(value.keys, value.values, strict=True)
        if isinstance(key, ast.Constant) and isinstance(key.value, str)
    ]
    if _is_partial(call.func) and call.args and call.args[0] is handed[0]:
        keywords += [k for k in call.keywords if k.arg is not None]
    if not keywords:
        return None
    return ast.Call(func=handed[0], args=[], keywords=keywords)


def _is_partial(func: ast.expr) -> bool:
    return (isinstance(func, ast.Name) and func.id == "partial") or (
        isinstance(func, ast.Attribute) and func.attr == "partial"
    )


def own_nodes(scope: ast.AST) -> Iterable[ast.AST]:
    """The scope's nodes, not those of the functions defined inside it (each is a scope of its own)."""
    pending = list(ast.iter_child_nodes(scope))
    while pending:
        node = pending.pop()
        yield node
        if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            pending.extend(ast.iter_child_nodes(node))


def spelled_on_lines(text: str, method: str) -> frozenset[int]:
    """The lines (1-based) where the text spells `.method` (the line of the name, as a call's node has it
    when the dot ends the line above)."""
    return frozenset(
        text.count("\n", 0, match.end()) + 1 for match in attribute_spelling(method).finditer(text)
    )


def _spans_any(function: ast.FunctionDef | ast.AsyncFunctionDef, lines: frozenset[int]) -> bool:
    """Whether one of `lines` is in the function, its decorators and defaults included (its own nodes)."""
    first = min([function.lineno, *(d.lineno for d in function.decorator_list)])
    last = function.end_lineno or function.lineno
    return any(first <= line <= last for line in lines)


def _imported_modules(tree: ast.Module) -> set[str]:
    """Names the file binds with `import x` / `import x.y` / `import x.y as z`: modules, not objects."""
    found: set[str] = set()
    for node in nested_statements(tree.body):
        if isinstance(node, ast.Import):
            found.update(alias.asname or alias.name.split(".")[0] for alias in node.names)
    return found


def from_imports(tree: ast.Module) -> Iterable[tuple[int, str | None, str, str]]:
    """(level, module, name, bound name) of each `from module import name` of the file (not `*`)."""
    for node in nested_statements(tree.body):
        if isinstance(node, ast.ImportFrom):
            for alias in node.names:
                if alias.name != "*":
                    yield node.level, node.module, alias.name, alias.asname or alias.name


def _module_function(receiver: ast.expr, modules: set[str]) -> bool:
    """`luigi.run([...])`, `luigi.interface.run(...)`: a function of an imported module (a lowercase chain
    from the module's name), not a method of the class."""
    chain = dotted_chain(receiver)
    return chain is not None and chain[0] in modules and all(part.islower() for part in chain)


def _spelled_on_the_base(receiver: ast.expr, base_class: str, above: frozenset[str]) -> bool:
    """`tqdm.write(x, nolock=True)`: a call spelled on the base class itself runs the base's own function,
    never an override (tqdm da46cd43: the notebook's `write` lacks the new `nolock`); so does one spelled
    on a class above it (apprise 32992fa641: `NotifyBase.parse_url` hands `plus_to_space` on to
    `URLBase.parse_url`, and no plugin's `parse_url` runs there)."""
    name = base_class.rsplit(".", 1)[-1]
    spelled = receiver.id if isinstance(receiver, ast.Name) else getattr(receiver, "attr", None)
    return spelled is not None and ((bool(name) and spelled == name) or spelled in above)


def _other_class_made(receiver: ast.expr, family: frozenset[str]) -> bool:
    """`Runner().run(kind)`: an instance made right there of a class outside the base's family."""
    chain = constructor_chain(receiver)
    return bool(family) and chain is not None and chain[-1][:1].isupper() and chain[-1] not in family


def _tried_for_type_error(nodes: list[ast.AST]) -> set[int]:
    """Ids of the nodes in a `try:` body whose handler catches TypeError: luigi's worker calls
    `task.run(tracking_url_callback=...)` and, on "unexpected keyword argument", `task.run()` again. The
    caller is ready for an override that does not take the new argument."""
    inside: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.Try | ast.TryStar) and any(_catches_type_error(h) for h in node.handlers):
            inside.update(id(n) for statement in node.body for n in ast.walk(statement))
    return inside


def _guarded_by_inspection(nodes: list[ast.AST], method: str) -> set[int]:
    """Ids of the nodes under an `if` whose test hands the method itself to a function: webargs'
    `if len(get_func_args(self.handle_error)) > 3:` passes the new arguments, its `else:` the old ones.
    Such a caller adapts to the signature it finds, whichever the override has."""
    inside: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.If) and _inspects(node.test, method):
            inside.update(id(n) for statement in [*node.body, *node.orelse] for n in ast.walk(statement))
    return inside


def passed_only_when_given(nodes: list[ast.AST], method: str) -> set[int]:
    """Ids of the nodes under an `if v:` (`if v is not None:`) whose body calls the method passing `v`
    and whose `else:` calls it without (scapy b1bb1aec67's `AnsweringMachine.reply`: `if send_function:
    self.send_reply(reply, send_function=send_function)`, else `self.send_reply(reply)` "for
    retro-compatibility"). The caller keeps the old call for overrides written before the new argument."""
    inside: set[int] = set()
    for node in nodes:
        given = _tested_name(node.test) if isinstance(node, ast.If) and node.orelse else None
        if given is None or not isinstance(node, ast.If):
            continue
        passing = [c for c in _method_calls_under(node.body, method) if _passes_name(c, given)]
        without = [c for c in _method_calls_under(node.orelse, method) if not _passes_name(c, given)]
        if passing and without:
            inside.update(id(n) for statement in [*node.body, *node.orelse] for n in ast.walk(statement))
    return inside


def _tested_name(test: ast.expr) -> str | None:
    """`v` for the tests `v` and `v is not None`."""
    if isinstance(test, ast.Name):
        return test.id
    if (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and len(test.ops) == 1
        and isinstance(test.ops[0], ast.IsNot)
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value is None
    ):
        return test.left.id
    return None


def _method_calls_under(statements: list[ast.stmt], method: str) -> list[ast.Call]:
    return [
        n
        for statement in statements
        for n in ast.walk(statement)
        if isinstance(n, ast.Call) and isinstance(n.func, ast.Attribute) and n.func.attr == method
    ]


def _passes_name(call: ast.Call, name: str) -> bool:
    arguments = [*call.args, *(k.value for k in call.keywords)]
    return any(isinstance(a, ast.Name) and a.id == name for a in arguments)


def _inspects(test: ast.expr, method: str) -> bool:
    return any(
        isinstance(argument, ast.Attribute) and argument.attr == method
        for call in ast.walk(test)
        if isinstance(call, ast.Call)
        for argument in [*call.args, *(k.value for k in call.keywords)]
    )


def _catches_type_error(handler: ast.ExceptHandler) -> bool:
    caught = handler.type
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught] if caught is not None else []
    return any(isinstance(n, ast.Name) and n.id == "TypeError" for n in names)


def _made_by_constructor(nodes: list[ast.AST], class_name: str) -> set[str]:
    """Names a scope (its `nodes`) binds only by assignments of `class_name(...)` or `m.class_name(...)`."""
    stores = Counter(n.id for n in nodes if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store))
    made = Counter(
        n.targets[0].id
        for n in nodes
        if isinstance(n, ast.Assign)
        and len(n.targets) == 1
        and isinstance(n.targets[0], ast.Name)
        and _calls_class(n.value, class_name)
    )
    return {name for name, count in made.items() if stores[name] == count}


def _calls_class(value: ast.expr, class_name: str) -> bool:
    chain = constructor_chain(value)
    return chain is not None and chain[-1] == class_name
