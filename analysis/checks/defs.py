"""Definitions of one module, old side against new side: changed signatures and removed names."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Literal

from prscope.analysis.checks.stdlib_names import star_names
from prscope.analysis.intel.scopes import nested_statements, stored_targets, target_names
from prscope.analysis.intel.signatures import Parameter, ParamKind, Signature

DefKind = Literal["function", "method", "class", "property"]
_PROPERTY_DECORATORS = frozenset(
    {"property", "cached_property", "setter", "getter", "deleter", "abstractproperty"}
)


@dataclass
class DefInfo:
    qualname: str
    """Inside the module: `f`, `Cls`, `Cls.meth`, `Outer.Inner.meth`."""
    name: str
    kind: DefKind
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef
    class_qualname: str | None = None
    signature: Signature | None = None
    count: int = 1
    """How many times the module defines it (conditional definitions make the signature uncertain)."""

    @property
    def line(self) -> int:
        return self.node.lineno


@dataclass
class ModuleDefs:
    defs: dict[str, DefInfo] = field(default_factory=dict)
    module_names: set[str] = field(default_factory=set)
    """Every name bound at module level (definitions, assignments, imports)."""
    defined_names: dict[str, int] = field(default_factory=dict)
    """Names the module itself defines at top level (def, class, assignment): first line."""
    class_members: dict[str, set[str]] = field(default_factory=dict)
    """Per class qualname: names defined in its body or assigned as `self.X` in its methods."""
    class_bases: dict[str, list[ast.expr]] = field(default_factory=dict)
    star_import: bool = False
    star_names: set[str] | None = field(default_factory=set)
    """What the module's star imports bind, when every one is of a standard-library module read from
    source (`from ast import *`); None when any of them is unknown."""
    module_getattr: bool = False
    """A module-level `__getattr__`, or a module that fills its own namespace (`locals().update(...)`):
    it may have any attribute."""
    class_getattr: set[str] = field(default_factory=set)
    installs_modules: bool = False
    """The module writes `sys.modules[<computed name>]`: its submodules may come from anywhere."""


def decorator_names(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef) -> set[str]:
    names: set[str] = set()
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        if isinstance(target, ast.Name):
            names.add(target.id)
        elif isinstance(target, ast.Attribute):
            names.add(target.attr)
    return names


def collect(tree: ast.Module, text: str | None = None) -> ModuleDefs:
    """What the module defines; `text`, when given, is the source `tree` was parsed from."""
    result = ModuleDefs()
    for stmt in _flatten(tree.body):
        _collect_module_stmt(stmt, result)
    if text is None or "global" in text:  # (a `global` statement needs the word in the source)
        result.module_names |= _assigned_through_global(tree)
    _add_members_assigned_from_outside(tree, result)
    _forget_signatures_given_defaults(tree, result)
    return result


_FUNCTION_DEFAULTS = frozenset({"__defaults__", "__kwdefaults__"})


def _forget_signatures_given_defaults(tree: ast.Module, result: ModuleDefs) -> None:
    """A function or class whose defaults are set after its definition ran (`Settings.__new__.__defaults__
    = (False,)`: all-repos e0b38ff159 moves a NamedTuple's defaults there to support Python 3.6.0) has a
    signature its definition does not tell: it is not judged."""
    for stmt in _flatten(tree.body):
        for target in stmt.targets if isinstance(stmt, ast.Assign) else []:
            if not (isinstance(target, ast.Attribute) and target.attr in _FUNCTION_DEFAULTS):
                continue
            for qualname in _functions_named(target.value):
                info = result.defs.get(qualname)
                if info is not None:
                    result.defs[qualname] = replace(info, signature=None)


def _functions_named(function: ast.expr) -> list[str]:
    """`f` for `f`; `Cls.__init__` (the constructor a call of the class runs) for `Cls.__new__` and
    `Cls.__init__`; `Cls.m` for `Cls.m`."""
    if isinstance(function, ast.Name):
        return [function.id]
    if not (isinstance(function, ast.Attribute) and isinstance(function.value, ast.Name)):
        return []
    owner = function.value.id
    if function.attr == "__new__":
        return [f"{owner}.__new__", f"{owner}.__init__"]
    return [f"{owner}.{function.attr}"]


def _add_members_assigned_from_outside(tree: ast.Module, result: ModuleDefs) -> None:
    """Members a class gets after its body ran: `Cls.name = f` at module level, or `cls.name = ...` in a
    class decorator the module defines (`@native_dict` assigning `cls.keys`). Such a member is not gone."""
    for stmt in _flatten(tree.body):
        if isinstance(stmt, ast.ClassDef) and stmt.name in result.class_members:
            for function in class_decorators_defined_in(tree, stmt):
                stored = attributes_stored_on(function, function.args.args[0].arg)
                result.class_members[stmt.name] |= {name for name in stored if name is not None}
        for target in stmt.targets if isinstance(stmt, ast.Assign) else []:
            if isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name):
                members = result.class_members.get(target.value.id)
                if members is not None:
                    members.add(target.attr)


def class_decorators_defined_in(
    tree: ast.Module, node: ast.ClassDef
) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The class's decorators that are functions the module defines, each taking the class first."""
    functions = {
        stmt.name: stmt
        for stmt in _flatten(tree.body)
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef)
    }
    found = [functions.get(d.id) for d in node.decorator_list if isinstance(d, ast.Name)]
    return [function for function in found if function is not None and function.args.args]


def attributes_stored_on(function: ast.FunctionDef | ast.AsyncFunctionDef, name: str) -> list[str | None]:
    """Attributes the function sets on its parameter `name`: `name.attr = ...` or `setattr(name, "attr",
    ...)`; None for each `setattr(name, <computed>, ...)`, which may set any."""
    found: list[str | None] = []
    for node in ast.walk(function):
        if isinstance(node, ast.Attribute) and isinstance(node.ctx, ast.Store) and _is_name(node.value, name):
            found.append(node.attr)
        elif (
            isinstance(node, ast.Call)
            and _is_name(node.func, "setattr")
            and len(node.args) >= 2
            and _is_name(node.args[0], name)
        ):
            key = node.args[1]
            found.append(key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None)
    return found


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name


def _assigned_through_global(tree: ast.Module) -> set[str]:
    """Module names a function binds with `global NAME` and an assignment: they exist once it has run."""
    names: set[str] = set()
    if not any(isinstance(node, ast.Global) for node in nested_statements(tree.body)):
        return names  # no `global` statement: nothing below can add a name (one walk, not one per function)
    # A nested function's globals and assignments are its outer function's too: the outermost suffice.
    for function in _outermost_functions(tree):
        declared = {
            name
            for node in nested_statements(function.body)
            if isinstance(node, ast.Global)
            for name in node.names
        }
        if declared:
            nodes = list(ast.walk(function))
            names |= {
                node.id
                for node in nodes
                if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store) and node.id in declared
            }
            names |= {
                bound
                for node in nodes
                if isinstance(node, ast.Import | ast.ImportFrom)
                for alias in node.names
                if (bound := alias.asname or alias.name.split(".")[0]) in declared
            }
    return names


def _outermost_functions(tree: ast.Module) -> Iterator[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The functions no other function holds."""
    for statement in nested_statements(tree.body, into_functions=False):
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            yield statement


def _flatten(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a block, looking through if/try/with (conditional definitions still define)."""
    for stmt in body:
        if isinstance(stmt, ast.If | ast.For | ast.AsyncFor | ast.While | ast.With | ast.AsyncWith):
            if isinstance(stmt, ast.For | ast.AsyncFor | ast.With | ast.AsyncWith):
                yield stmt
            yield from _flatten(stmt.body)
            yield from _flatten(getattr(stmt, "orelse", []))
        elif isinstance(stmt, ast.Try | ast.TryStar):
            yield from _flatten(stmt.body)
            for handler in stmt.handlers:
                yield from _flatten(handler.body)
            yield from _flatten(stmt.orelse)
            yield from _flatten(stmt.finalbody)
        else:
            yield stmt


def _assigned_names(stmt: ast.stmt) -> list[str]:
    if isinstance(stmt, ast.Assign):
        return [n for t in stmt.targets for n in target_names(t)]
    if isinstance(stmt, ast.AnnAssign | ast.AugAssign | ast.For | ast.AsyncFor):
        return list(target_names(stmt.target))
    if isinstance(stmt, ast.With | ast.AsyncWith):
        # `with Session(engine) as session:` at module level binds `session` for the rest of the module.
        return [n for item in stmt.items if item.optional_vars for n in target_names(item.optional_vars)]
    return []


def _collect_module_stmt(stmt: ast.stmt, result: ModuleDefs) -> None:
    if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
        result.module_names.add(stmt.name)
        result.defined_names.setdefault(stmt.name, stmt.lineno)
        if stmt.name == "__getattr__" or _fills_the_module_namespace(stmt):
            result.module_getattr = True
        if "overload" not in decorator_names(stmt):
            _add_def(
                result, DefInfo(stmt.name, stmt.name, "function", stmt, signature=Signature.from_ast(stmt))
            )
    elif isinstance(stmt, ast.ClassDef):
        result.module_names.add(stmt.name)
        result.defined_names.setdefault(stmt.name, stmt.lineno)
        _collect_class(stmt, stmt.name, result)
    elif isinstance(stmt, ast.Import):
        for alias in stmt.names:
            result.module_names.add(alias.asname or alias.name.split(".")[0])
    elif isinstance(stmt, ast.ImportFrom):
        for alias in stmt.names:
            if alias.name == "*":
                result.star_import = True
                _add_star_names(result, stmt)
            else:
                result.module_names.add(alias.asname or alias.name)
    else:
        for name in _assigned_names(stmt):
            result.module_names.add(name)
            result.defined_names.setdefault(name, stmt.lineno)
        if isinstance(stmt, ast.For | ast.AsyncFor | ast.With | ast.AsyncWith):
            return  # its body comes separately from _flatten
        for node in ast.walk(stmt):
            if isinstance(node, ast.NamedExpr):
                result.module_names.add(node.target.id)
            elif _installs_modules(node):
                result.module_getattr = result.installs_modules = True  # any module and name may be there
            elif _fills_its_namespace(node) or _hands_itself_over(node):
                result.module_getattr = True  # any name may be bound: none is certainly gone


def _fills_its_namespace(node: ast.AST) -> bool:
    """`locals().update(...)`, `globals().update(...)`, `vars().update(...)` or `globals()[name] = ...`
    at module level: the module binds names the code does not spell (toolz.curried binds every curried
    function so)."""
    return _namespace_filled(node) is not None


def _fills_the_module_namespace(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A module-level function writing to `globals()` (`globals()[k] = p.__dict__[k]`): in any function of
    the module that is the module's namespace (tensorpack e9a6a5afeb's `train/__init__.py` copies each
    submodule's `__all__` in so)."""
    return any(_namespace_filled(node) == "globals" for node in ast.walk(function))


def _namespace_filled(node: ast.AST) -> str | None:
    """`locals`, `globals` or `vars` when the node updates or assigns into what that call returns."""
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "update":
        target = node.func.value
    elif isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
        target = node.value
    else:
        return None
    if (
        isinstance(target, ast.Call)
        and isinstance(target.func, ast.Name)
        and target.func.id in ("locals", "globals", "vars")
        and not target.args
    ):
        return target.func.id
    return None


def _hands_itself_over(node: ast.AST) -> bool:
    """`sys.modules[__name__] = Wrapper(...)`, `sys.modules[__name__].__class__ = ...`, or a bare
    `Wrapper(__name__)` at module level: the module is replaced by an object whose class may serve any
    name (markdown d81207a6 keeps `version` as a deprecated property of its `_ModuleWrap`)."""
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        call = node.value
        leaf = call.func.id if isinstance(call.func, ast.Name) else getattr(call.func, "attr", "")
        named = any(isinstance(a, ast.Name) and a.id == "__name__" for a in call.args)
        return named and leaf.lstrip("_")[:1].isupper()
    if isinstance(node, ast.Assign):
        return any(_this_module_entry(t) for t in node.targets) or any(
            isinstance(t, ast.Attribute) and t.attr == "__class__" and _this_module_entry(t.value)
            for t in node.targets
        )
    return False


def _installs_modules(node: ast.AST) -> bool:
    return isinstance(node, ast.Assign) and any(_computed_module_entry(t) for t in node.targets)


def _computed_module_entry(node: ast.expr) -> bool:
    """`sys.modules[<a computed name>] = ...`: the module installs other modules under names it computes,
    its own and its submodules' among them (elasticsearch-dsl 9e525956 points every
    `elasticsearch_dsl...` name at the `elasticsearch.dsl` module of the same path)."""
    return (
        isinstance(node, ast.Subscript)
        and not isinstance(node.slice, ast.Constant)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "modules"
        and isinstance(node.value.value, ast.Name)
        and node.value.value.id == "sys"
    )


def _this_module_entry(node: ast.expr) -> bool:
    """`sys.modules[__name__]`."""
    return (
        isinstance(node, ast.Subscript)
        and isinstance(node.slice, ast.Name)
        and node.slice.id == "__name__"
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "modules"
    )


def _add_star_names(result: ModuleDefs, stmt: ast.ImportFrom) -> None:
    provided = star_names(stmt.module or "") if stmt.level == 0 else None
    if provided is None or result.star_names is None:
        result.star_names = None
    else:
        result.star_names |= provided


def _add_def(result: ModuleDefs, info: DefInfo) -> None:
    existing = result.defs.get(info.qualname)
    if existing is None:
        result.defs[info.qualname] = info
    else:
        existing.count += 1


def _collect_class(node: ast.ClassDef, qualname: str, result: ModuleDefs) -> None:
    _add_def(result, DefInfo(qualname, node.name, "class", node))
    generated = synthesized_init(node)
    if generated is not None:
        init = DefInfo(
            f"{qualname}.__init__", "__init__", "method", node, class_qualname=qualname, signature=generated
        )
        _add_def(result, init)
    members: set[str] = set()
    result.class_members[qualname] = members
    result.class_bases[qualname] = list(node.bases)
    for stmt in _flatten(node.body):
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
            members.add(stmt.name)
            if stmt.name == "__getattr__" or stmt.name == "__getattribute__":
                result.class_getattr.add(qualname)
            decorators = decorator_names(stmt)
            if "overload" in decorators:
                continue
            kind: DefKind = "property" if decorators & _PROPERTY_DECORATORS else "method"
            signature = Signature.from_ast(stmt, in_class=True)
            _add_def(
                result,
                DefInfo(
                    f"{qualname}.{stmt.name}",
                    stmt.name,
                    kind,
                    stmt,
                    class_qualname=qualname,
                    signature=signature,
                ),
            )
            members.update(_self_assignments(stmt))
        elif isinstance(stmt, ast.ClassDef):
            members.add(stmt.name)
            _collect_class(stmt, f"{qualname}.{stmt.name}", result)
        else:
            members.update(_assigned_names(stmt))


_DATACLASS_DECORATORS = frozenset({"dataclass", "define", "frozen", "mutable"})
_FIELD_CALLS = frozenset({"field", "ib", "attrib"})


def _decorator_options(node: ast.ClassDef) -> dict[str, bool] | None:
    """Keyword options of a dataclass-style decorator (`@dataclass(kw_only=True)`), None if there is none."""
    for decorator in node.decorator_list:
        target = decorator.func if isinstance(decorator, ast.Call) else decorator
        name = target.id if isinstance(target, ast.Name) else getattr(target, "attr", "")
        if name not in _DATACLASS_DECORATORS:
            continue
        options: dict[str, bool] = {}
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if (
                    keyword.arg
                    and isinstance(keyword.value, ast.Constant)
                    and isinstance(keyword.value.value, bool)
                ):
                    options[keyword.arg] = keyword.value.value
        return options
    return None


def _is_named_tuple(node: ast.ClassDef) -> bool:
    return any(
        (isinstance(b, ast.Name) and b.id == "NamedTuple")
        or (isinstance(b, ast.Attribute) and b.attr == "NamedTuple")
        for b in node.bases
    )


def synthesized_init(node: ast.ClassDef) -> Signature | None:
    """The `__init__` a @dataclass (or attrs class, or NamedTuple) gets from its fields, when certain."""
    named_tuple = _is_named_tuple(node)
    options = _decorator_options(node)
    if options is None and not named_tuple:
        return None
    if options is not None and (not options.get("init", True) or node.bases):
        return None  # inherited fields come first and are not visible here
    kw_only_all = bool(options and options.get("kw_only"))
    parameters = [Parameter("self", ParamKind.POSITIONAL_OR_KEYWORD)]
    kw_only_marker = False
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name in ("__init__", "__new__"):
            return None
        if not isinstance(stmt, ast.AnnAssign) or not isinstance(stmt.target, ast.Name):
            continue
        annotation = ast.unparse(stmt.annotation)
        if "InitVar" in annotation:
            return None
        if "ClassVar" in annotation:
            continue
        if annotation.endswith("KW_ONLY"):
            kw_only_marker = True
            continue
        has_default, init, kw_only = stmt.value is not None, True, kw_only_all or kw_only_marker
        if isinstance(stmt.value, ast.Call):
            func = stmt.value.func
            called = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
            if called in _FIELD_CALLS:
                words = {k.arg: k.value for k in stmt.value.keywords if k.arg}
                has_default = bool({"default", "default_factory", "factory"} & set(words))
                init_flag = words.get("init")
                init = not (isinstance(init_flag, ast.Constant) and init_flag.value is False)
                flag = words.get("kw_only")
                kw_only = kw_only or (isinstance(flag, ast.Constant) and flag.value is True)
        if not init:
            continue
        kind = ParamKind.KEYWORD_ONLY if kw_only and not named_tuple else ParamKind.POSITIONAL_OR_KEYWORD
        parameters.append(Parameter(stmt.target.id, kind, has_default=has_default))
    positional = [p for p in parameters if p.kind is ParamKind.POSITIONAL_OR_KEYWORD]
    keyword = [p for p in parameters if p.kind is ParamKind.KEYWORD_ONLY]
    seen_default = False
    for parameter in positional[1:]:
        if seen_default and not parameter.has_default:
            return None  # not a valid dataclass: leave it to Python to complain
        seen_default = seen_default or parameter.has_default
    return Signature(name="__init__", parameters=tuple(positional + keyword), method_kind="method")


def _self_assignments(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional:
        return set()
    receiver = positional[0].arg
    names: set[str] = set()
    # Only statements' targets store: walking them, not every expression, is several times cheaper.
    for statement in nested_statements(method.body):
        for target in stored_targets(statement):
            for node in ast.walk(target):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.ctx, ast.Store)
                    and isinstance(node.value, ast.Name)
                    and node.value.id == receiver
                ):
                    names.add(node.attr)
    return names


@dataclass
class SignatureChange:
    qualname: str
    old: DefInfo
    new: DefInfo

    @property
    def old_signature(self) -> Signature:
        assert self.old.signature is not None
        return self.old.signature

    @property
    def new_signature(self) -> Signature:
        assert self.new.signature is not None
        return self.new.signature


def _shape(signature: Signature) -> tuple[object, ...]:
    return (
        signature.method_kind,
        tuple((p.name, p.kind, p.has_default) for p in signature.parameters),
    )


_DISPATCHERS = frozenset({"singledispatch", "singledispatchmethod"})
# Command-line frameworks make the function a command object whose call parses the command line (click's
# and typer's `@command()`, `@group()`), or hand it arguments of their own (`@click.pass_context` passes
# `ctx` first): pifpaf 123538eb30's `main()` under `@click.group()` and `@click.pass_context`.
_COMMAND_MAKERS = frozenset({"command", "group", "pass_context", "pass_obj"})
# Deprecation shims that move positional arguments onto keyword-only parameters (dipy's
# `warning_for_keywords`, scikit-learn's `_deprecate_positional_args`, pandas'
# `deprecate_nonkeyword_arguments`): a call the bare signature rejects still works through them.
_POSITIONAL_SHIM = re.compile(r"keyword|positional|kwonly", re.IGNORECASE)
"""A call whose first argument is of a registered type goes to another implementation, with its own
parameters (pyomo 60753457cb reorders `Estimator.__init__`, a `@singledispatchmethod`; the old-style
calls pass a model first and reach `@__init__.register(Callable)`'s `_deprecated_init`)."""


def signature_changes(old: ModuleDefs, new: ModuleDefs) -> list[SignatureChange]:
    changes: list[SignatureChange] = []
    for qualname, old_def in old.defs.items():
        new_def = new.defs.get(qualname)
        if new_def is None or old_def.kind not in ("function", "method") or new_def.kind != old_def.kind:
            continue
        if old_def.count != 1 or new_def.count != 1 or _class_defined_twice(old, new, new_def):
            continue
        if old_def.signature is None or new_def.signature is None:
            continue
        if _decorators_rewrite_calls(old_def, new_def):
            continue
        if _shape(old_def.signature) != _shape(new_def.signature) and could_break(
            old_def.signature, new_def.signature
        ):
            changes.append(SignatureChange(qualname, old_def, new_def))
    return changes


def _class_defined_twice(old: ModuleDefs, new: ModuleDefs, method: DefInfo) -> bool:
    """Whether the method's class is one of two definitions of its name in the module (a `try:` import
    and its `except ImportError:` stand-in): which one a call builds depends on the machine (statsmodels
    1af1160688 renames the parameters of the stand-in `NAAction` used only without patsy, while the other
    `NAAction` takes patsy's `on_NA=`)."""
    owner = method.class_qualname
    if owner is None:
        return False
    return any(defs.defs[owner].count != 1 for defs in (old, new) if owner in defs.defs)


def _decorators_rewrite_calls(old: DefInfo, new: DefInfo) -> bool:
    """Whether a decorator may send a call elsewhere (either side), or binds the new signature's arguments
    its own way. A decorator only the old side had made old calls work that the new signature may reject
    (sunpy 4f40dd1d03 drops `@deprecated_renamed_argument("pattern", None)` with `pattern` itself, and
    `Scraper(pattern=url)` fails now): those calls are judged."""
    if (_DISPATCHERS | _COMMAND_MAKERS) & (decorator_names(old.node) | decorator_names(new.node)):
        return True
    if any(_POSITIONAL_SHIM.search(name) for name in decorator_names(new.node)):
        return True  # dipy 098e4a581a adds `@warning_for_keywords()` as it makes parameters keyword-only
    signatures = [s for s in (old.signature, new.signature) if s is not None]
    return _decorator_names_a_parameter(
        new.node, {p.name for signature in signatures for p in signature.parameters}
    )


def _decorator_names_a_parameter(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, names: set[str]
) -> bool:
    """Whether a decorator is given a parameter's name as a string (scikit-image 32eadf6949:
    `@deprecate_parameter("image2", new_name="image1")` hands `image2=` on as `image1`): it rewrites how
    calls bind that parameter, so the signature alone does not tell which calls fit."""
    for decorator in node.decorator_list:
        if not isinstance(decorator, ast.Call):
            continue
        for value in [*decorator.args, *(k.value for k in decorator.keywords)]:
            if isinstance(value, ast.Constant) and value.value in names:
                return True
    return False


def could_break(old: Signature, new: Signature) -> bool:
    """False when every call fitting `old` surely fits `new`, its arguments landing on the same parameters."""
    if old.method_kind != new.method_kind:
        return True
    if old.has_var_positional and not new.has_var_positional:
        return True
    if old.has_var_keyword and not new.has_var_keyword:
        return True
    old_slots = [p.name for p in old.parameters if p.accepts_positional]
    new_slots = [p.name for p in new.parameters if p.accepts_positional]
    if new_slots[: len(old_slots)] != old_slots:
        return True
    if len(new_slots) > len(old_slots) and old.has_var_positional:
        return True  # extra positional arguments used to go to *args and now fill the new slot
    for parameter in old.parameters:
        if parameter.kind.value.startswith("var-"):
            continue
        counterpart = new.param(parameter.name)
        if counterpart is None or (parameter.accepts_keyword and not counterpart.accepts_keyword):
            return True
        if parameter.has_default and not counterpart.has_default:
            return True
    return any(p.required and old.param(p.name) is None for p in new.parameters)


@dataclass
class RemovedName:
    qualname: str
    """`name` for a top-level name, `Cls.meth` for a member."""
    name: str
    kind: Literal["function", "class", "variable", "method"]
    old_line: int
    class_qualname: str | None = None
    renamed_to: str | None = None


def removed_names(old: ModuleDefs, new: ModuleDefs, *, is_package: bool) -> list[RemovedName]:
    removed: list[RemovedName] = []
    if not new.module_getattr and (not new.star_import or new.star_names is not None):
        still_bound = new.module_names | (new.star_names or set())
        added_top = [n for n in new.defined_names if n not in old.module_names]
        for name, line in old.defined_names.items():
            if name in still_bound or name.startswith("__"):
                continue
            old_def = old.defs.get(name)
            kind: Literal["function", "class", "variable", "method"] = (
                "variable" if old_def is None else ("class" if old_def.kind == "class" else "function")
            )
            removed.append(
                RemovedName(name, name, kind, line, renamed_to=_rename_guess(name, added_top, old, new))
            )
    for class_qualname, members in old.class_members.items():
        new_members = new.class_members.get(class_qualname)
        if new_members is None or class_qualname in new.class_getattr:
            continue
        added = [m for m in new_members if m not in members]
        for member in sorted(members - new_members):
            if member.startswith("__") and member.endswith("__"):
                continue
            old_def = old.defs.get(f"{class_qualname}.{member}")
            if old_def is None or old_def.kind not in ("method", "property"):
                continue
            removed.append(
                RemovedName(
                    f"{class_qualname}.{member}",
                    member,
                    "method",
                    old_def.line,
                    class_qualname=class_qualname,
                    renamed_to=added[0] if len(added) == 1 else None,
                )
            )
    return removed


def _rename_guess(name: str, added: list[str], old: ModuleDefs, new: ModuleDefs) -> str | None:
    old_def = old.defs.get(name)
    same_kind = [a for a in added if (new.defs.get(a) is None) == (old_def is None)]
    if old_def is not None:
        same_kind = [a for a in same_kind if (d := new.defs.get(a)) is not None and d.kind == old_def.kind]
    return same_kind[0] if len(same_kind) == 1 else None
