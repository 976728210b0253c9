"""What a Python file defines, and how calls bind to a signature, for the stale-reference miner.

Part of bench/mine_breaking.py. Everything here reads the `ast` of one file; nothing comes from the
checker (analysis/). Signatures are real `inspect.Signature` objects built from a def's parameters, so
Python's own `Signature.bind` decides whether a call's shape fits.
"""

from __future__ import annotations

import ast
import inspect
from dataclasses import dataclass, field

FuncNode = ast.FunctionDef | ast.AsyncFunctionDef
P = inspect.Parameter
POSITIONAL = (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)
ACCESSOR_DECORATORS = {"setter", "getter", "deleter"}


@dataclass
class ClassInfo:
    node: ast.ClassDef
    methods: dict[str, FuncNode | None] = field(default_factory=dict)
    """Methods by name; None when the name is defined more than once (overloads, conditional defs)."""
    members: set[str] = field(default_factory=set)
    """Every name bound in the class body (methods, attributes, nested classes) or assigned to `self.x`
    in its methods."""


@dataclass
class Summary:
    """The module-level names of one file and the defs whose signatures matter."""

    bindings: dict[str, str] = field(default_factory=dict)
    """name -> 'def' | 'class' | 'import' | 'var': a def or class wins over other bindings of the name
    (`f = _identity` in one branch, `def f` in the other), then the first kind seen."""
    getattr_strings: set[str] = field(default_factory=set)
    """String constants inside a module-level `__getattr__` (names the module still serves lazily)."""
    functions: dict[str, FuncNode | None] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)


def decorator_names(node: FuncNode | ast.ClassDef) -> set[str]:
    names = set()
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        names.add(ast.unparse(target).rsplit(".", 1)[-1])
    return names


def module_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Statements at module level, including those inside if / try / with / for blocks."""
    found: list[ast.stmt] = []
    for statement in body:
        found.append(statement)
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            continue
        for attr in ("body", "orelse", "finalbody"):
            found += module_level(getattr(statement, attr, []) or [])
        for handler in getattr(statement, "handlers", []) or []:
            found += module_level(handler.body)
    return found


def _targets(statement: ast.stmt) -> list[str]:
    if isinstance(statement, ast.Assign):
        nodes: list[ast.expr] = list(statement.targets)
    elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
        nodes = [statement.target]
    else:
        return []
    names = []
    for node in nodes:
        for inner in ast.walk(node):
            if isinstance(inner, ast.Name):
                names.append(inner.id)
    return names


def summarize(tree: ast.Module | None) -> Summary:
    summary = Summary()
    if tree is None:
        return summary
    for statement in module_level(tree.body):
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            _bind(summary, statement.name, "def")
            if statement.name == "__getattr__":
                summary.getattr_strings |= {
                    n.value
                    for n in ast.walk(statement)
                    if isinstance(n, ast.Constant) and isinstance(n.value, str)
                }
            if "overload" in decorator_names(statement):
                summary.functions[statement.name] = None
                continue
            unique = statement.name not in summary.functions
            summary.functions[statement.name] = statement if unique else None
        elif isinstance(statement, ast.ClassDef):
            _bind(summary, statement.name, "class")
            if statement.name in summary.classes:
                continue  # a conditional second definition: keep the first
            summary.classes[statement.name] = _class_info(statement)
        elif isinstance(statement, ast.Import | ast.ImportFrom):
            for alias in statement.names:
                if alias.name != "*":
                    bound = alias.asname or alias.name.split(".")[0]
                    _bind(summary, bound, "import")
        else:
            for name in _targets(statement):
                _bind(summary, name, "var")
    return summary


def _bind(summary: Summary, name: str, kind: str) -> None:
    if name not in summary.bindings or (
        kind in ("def", "class") and summary.bindings[name] not in ("def", "class")
    ):
        summary.bindings[name] = kind


def _class_info(node: ast.ClassDef) -> ClassInfo:
    info = ClassInfo(node)
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            info.members.add(statement.name)
            decorators = decorator_names(statement)
            if decorators & ACCESSOR_DECORATORS:
                continue
            if "overload" in decorators or statement.name in info.methods:
                info.methods[statement.name] = None
            else:
                info.methods[statement.name] = statement
        elif isinstance(statement, ast.ClassDef):
            info.members.add(statement.name)
        else:
            info.members.update(_targets(statement))
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            info.members |= _self_attributes(statement)
    return info


def _self_attributes(method: FuncNode) -> set[str]:
    """Names the method assigns as `self.name = ...` / `self.name: T = ...`."""
    assignments = [n for n in ast.walk(method) if isinstance(n, ast.Assign | ast.AnnAssign)]
    targets = [t for n in assignments for t in (n.targets if isinstance(n, ast.Assign) else [n.target])]
    return {
        t.attr
        for t in targets
        if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "self"
    }


def is_property(node: FuncNode) -> bool:
    return any(name.lower().endswith("property") for name in decorator_names(node))


def takes_receiver(node: FuncNode) -> bool:
    """Whether a method's first parameter is bound by the call (self or cls), i.e. not a staticmethod."""
    return "staticmethod" not in decorator_names(node)


def signature(node: FuncNode, drop_first: bool) -> inspect.Signature | None:
    """The def's parameters as an inspect.Signature (defaults replaced by None), optionally without
    its first positional parameter (self / cls)."""
    args = node.args
    params: list[inspect.Parameter] = []
    positional = [*args.posonlyargs, *args.args]
    first_default = len(positional) - len(args.defaults)
    for index, arg in enumerate(positional):
        kind = P.POSITIONAL_ONLY if index < len(args.posonlyargs) else P.POSITIONAL_OR_KEYWORD
        default = None if index >= first_default else P.empty
        params.append(P(arg.arg, kind, default=default))
    if args.vararg:
        params.append(P(args.vararg.arg, P.VAR_POSITIONAL))
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params.append(P(arg.arg, P.KEYWORD_ONLY, default=P.empty if kw_default is None else None))
    if args.kwarg:
        params.append(P(args.kwarg.arg, P.VAR_KEYWORD))
    if drop_first:
        if not params or params[0].kind not in POSITIONAL:
            return None
        params = params[1:]
    try:
        return inspect.Signature(params)
    except ValueError:
        return None


def shape_key(sig: inspect.Signature) -> list[tuple[str, str, bool]]:
    """What callers can see of a signature: names, kinds and which have defaults (not annotations)."""
    return [(p.name, p.kind.name, p.default is not P.empty) for p in sig.parameters.values()]


@dataclass(frozen=True)
class CallShape:
    positional: int
    keywords: tuple[str, ...]


def call_shape(call: ast.Call, explicit_receiver: bool = False) -> CallShape | None:
    """How many positional arguments and which keywords a call passes; None with `*x` / `**x`."""
    if any(isinstance(arg, ast.Starred) for arg in call.args):
        return None
    if any(keyword.arg is None for keyword in call.keywords):
        return None
    count = len(call.args) + (1 if explicit_receiver else 0)
    return CallShape(count, tuple(keyword.arg for keyword in call.keywords if keyword.arg))


def landing(sig: inspect.Signature, shape: CallShape) -> list[str] | None:
    """The parameter each positional argument lands on, or None when the call does not bind."""
    try:
        sig.bind(*range(shape.positional), **dict.fromkeys(shape.keywords, 0))
    except TypeError:
        return None
    names = [p.name for p in sig.parameters.values() if p.kind in POSITIONAL]
    star = next((p.name for p in sig.parameters.values() if p.kind is P.VAR_POSITIONAL), "*")
    return [names[i] if i < len(names) else star for i in range(shape.positional)]


def renamed_in_place(old: inspect.Signature, new: inspect.Signature) -> dict[str, str]:
    """Positional parameters renamed in their own slot (old name gone, new name new): the same parameter
    to a positional caller."""
    old_slots = [n for n, p in old.parameters.items() if p.kind in POSITIONAL]
    new_slots = [n for n, p in new.parameters.items() if p.kind in POSITIONAL]
    return {
        o: n
        for o, n in zip(old_slots, new_slots, strict=False)
        if o != n and o not in new.parameters and n not in old.parameters
    }


def fits_old_breaks_new(old: inspect.Signature, new: inspect.Signature, shape: CallShape) -> bool | None:
    """True when the call binds the old signature and either fails the new one or a positional argument
    lands on another parameter than before while its old parameter still exists (a parameter removed
    or renamed in its slot does not count: the dev set's reading); False when it still works; None
    when it never fitted."""
    before = landing(old, shape)
    if before is None:
        return None
    after = landing(new, shape)
    if after is None:
        return True
    return any(was != now and was in new.parameters for was, now in zip(before, after, strict=True))


def breaking_reason(old: inspect.Signature, new: inspect.Signature) -> str | None:
    """The benchmark's label for a signature change that can break a caller, or None."""
    renames = renamed_in_place(old, new)
    old_params = {renames.get(n, n): p for n, p in old.parameters.items()}
    new_params = new.parameters
    named_old = {n for n, p in old_params.items() if p.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD)}
    takes_any_keyword = any(p.kind is P.VAR_KEYWORD for p in new_params.values())
    takes_any_positional = any(p.kind is P.VAR_POSITIONAL for p in new_params.values())

    def newly_required(p: inspect.Parameter) -> bool:
        return p.default is P.empty and (p.name not in named_old or old_params[p.name].default is not P.empty)

    required = [p for p in new_params.values() if p.kind not in (P.VAR_POSITIONAL, P.VAR_KEYWORD)]
    if any(newly_required(p) for p in required if p.kind in POSITIONAL):
        return "new required positional"
    if any(newly_required(p) for p in required if p.kind is P.KEYWORD_ONLY):
        return "new required keyword"
    gone = [n for n in named_old if n not in new_params and old_params[n].kind is not P.POSITIONAL_ONLY]
    if (gone and not takes_any_keyword) or (renames and not takes_any_keyword):
        return "param removed/renamed"
    old_slots = [n for n, p in old_params.items() if p.kind in POSITIONAL]
    new_slots = [n for n, p in new_params.items() if p.kind in POSITIONAL]
    old_star = any(p.kind is P.VAR_POSITIONAL for p in old_params.values())
    if (len(new_slots) < len(old_slots) and not takes_any_positional) or (
        old_star and not takes_any_positional
    ):
        return "positional slots reduced"
    if new_slots[: len(old_slots)] != old_slots[: len(new_slots)]:
        return "positional reorder"
    lost_keyword = [
        n
        for n in named_old
        if n in new_params
        and new_params[n].kind is P.POSITIONAL_ONLY
        and old_params[n].kind is not P.POSITIONAL_ONLY
    ]
    if lost_keyword:
        return "param removed/renamed"
    return None
