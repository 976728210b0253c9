"""Structured function signatures from `ast`, and whether a call's arguments bind to them.

The deterministic checks use this to find call sites left stale by a signature change: a call binds when
Python would accept its arguments, fails when it certainly would not, and is undecidable when the call
unpacks `*args` / `**kwargs` whose contents cannot be known statically.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field, replace
from enum import StrEnum
from typing import Literal


class ParamKind(StrEnum):
    POSITIONAL_ONLY = "positional-only"
    POSITIONAL_OR_KEYWORD = "positional-or-keyword"
    VAR_POSITIONAL = "var-positional"
    KEYWORD_ONLY = "keyword-only"
    VAR_KEYWORD = "var-keyword"


MethodKind = Literal["function", "method", "staticmethod", "classmethod", "property"]


@dataclass(frozen=True)
class Parameter:
    name: str
    kind: ParamKind
    has_default: bool = False
    annotation: str | None = None
    default: str | None = None

    @property
    def accepts_positional(self) -> bool:
        return self.kind in (ParamKind.POSITIONAL_ONLY, ParamKind.POSITIONAL_OR_KEYWORD)

    @property
    def accepts_keyword(self) -> bool:
        return self.kind in (ParamKind.POSITIONAL_OR_KEYWORD, ParamKind.KEYWORD_ONLY)

    @property
    def required(self) -> bool:
        return not self.has_default and self.kind not in (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD)

    def render(self) -> str:
        prefix = {ParamKind.VAR_POSITIONAL: "*", ParamKind.VAR_KEYWORD: "**"}.get(self.kind, "")
        text = prefix + self.name
        if self.annotation is not None:
            text += f": {self.annotation}"
        if self.has_default:
            default = self.default if self.default is not None else "..."
            text += f" = {default}" if self.annotation is not None else f"={default}"
        return text


BindStatus = Literal["ok", "error", "undecidable"]


@dataclass
class BindResult:
    """The outcome of binding one call's arguments to a signature.

    `positional_to[i]` names the parameter the i-th positional argument of the call lands on (the
    var-positional parameter's name when it is absorbed there, None when it lands nowhere).
    """

    status: BindStatus
    errors: list[str] = field(default_factory=list)
    positional_to: list[str | None] = field(default_factory=list)
    keyword_to: dict[str, str] = field(default_factory=dict)
    missing: list[str] = field(default_factory=list)
    unknown_keywords: list[str] = field(default_factory=list)
    duplicate: list[str] = field(default_factory=list)
    too_many_positional: int = 0
    undecidable_reason: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    @property
    def message(self) -> str:
        if self.status == "undecidable":
            return self.undecidable_reason
        return "; ".join(self.errors)


@dataclass(frozen=True)
class Signature:
    name: str
    parameters: tuple[Parameter, ...]
    returns: str | None = None
    is_async: bool = False
    method_kind: MethodKind = "function"

    @classmethod
    def from_ast(
        cls, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, *, in_class: bool = False
    ) -> Signature:
        """A signature from a definition node; `in_class` marks methods (decorators tell which kind)."""
        args = node.args
        params: list[Parameter] = []
        positional = [*args.posonlyargs, *args.args]
        first_default = len(positional) - len(args.defaults)
        for index, arg in enumerate(positional):
            default = args.defaults[index - first_default] if index >= first_default else None
            kind = (
                ParamKind.POSITIONAL_ONLY
                if index < len(args.posonlyargs)
                else ParamKind.POSITIONAL_OR_KEYWORD
            )
            params.append(_parameter(arg, kind, default))
        if args.vararg is not None:
            params.append(_parameter(args.vararg, ParamKind.VAR_POSITIONAL, None))
        for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
            params.append(_parameter(arg, ParamKind.KEYWORD_ONLY, kw_default))
        if args.kwarg is not None:
            params.append(_parameter(args.kwarg, ParamKind.VAR_KEYWORD, None))
        if isinstance(node, ast.Lambda):
            return cls(name="<lambda>", parameters=tuple(params))
        returns = _unparse(node.returns) if node.returns is not None else None
        method_kind = _method_kind(node) if in_class else "function"
        return cls(
            name=node.name,
            parameters=tuple(params),
            returns=returns,
            is_async=isinstance(node, ast.AsyncFunctionDef),
            method_kind=method_kind,
        )

    @classmethod
    def parse(cls, source: str) -> Signature:
        """Parse a signature from source text such as `def f(a, *, b=1): ...` (handy in tests)."""
        module = ast.parse(source)
        for stmt in module.body:
            if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef):
                return cls.from_ast(stmt)
        raise ValueError("no function definition in source")

    def without_first(self) -> Signature:
        """The signature as seen through a bound receiver (`obj.meth(...)`, `Class(...)` for __init__)."""
        if not self.parameters or self.parameters[0].kind not in (
            ParamKind.POSITIONAL_ONLY,
            ParamKind.POSITIONAL_OR_KEYWORD,
        ):
            return self
        return replace(self, parameters=self.parameters[1:])

    def for_call(self, *, bound: bool) -> Signature:
        """The signature a call binds against: drop self when the callee is reached through a receiver, and
        a classmethod's cls always (`Cls.make(x)` and `obj.make(x)` alike)."""
        if self.method_kind == "staticmethod" or self.method_kind == "function":
            return self
        return self.without_first() if bound or self.method_kind == "classmethod" else self

    def param(self, name: str) -> Parameter | None:
        for parameter in self.parameters:
            if parameter.name == name:
                return parameter
        return None

    @property
    def has_var_positional(self) -> bool:
        return any(p.kind == ParamKind.VAR_POSITIONAL for p in self.parameters)

    @property
    def has_var_keyword(self) -> bool:
        return any(p.kind == ParamKind.VAR_KEYWORD for p in self.parameters)

    def render_params(self) -> str:
        parts: list[str] = []
        saw_keyword_marker = False
        last_posonly = max(
            (i for i, p in enumerate(self.parameters) if p.kind == ParamKind.POSITIONAL_ONLY), default=-1
        )
        for index, parameter in enumerate(self.parameters):
            if parameter.kind == ParamKind.VAR_POSITIONAL:
                saw_keyword_marker = True
            if parameter.kind == ParamKind.KEYWORD_ONLY and not saw_keyword_marker:
                parts.append("*")
                saw_keyword_marker = True
            parts.append(parameter.render())
            if index == last_posonly:
                parts.append("/")
        return ", ".join(parts)

    def render(self) -> str:
        """`def f(a, b=1, *args, c, **kw) -> R` (prefixed with `async` for coroutines)."""
        text = f"{'async ' if self.is_async else ''}def {self.name}({self.render_params()})"
        if self.returns is not None:
            text += f" -> {self.returns}"
        return text

    def binds(self, call: ast.Call, *, skip_first: bool = False) -> BindResult:
        """Whether `call`'s arguments bind to this signature, as Python would decide at run time.

        `skip_first` drops the first positional parameter (self/cls) for calls through a receiver.
        """
        signature = self.without_first() if skip_first else self
        return _bind(signature.parameters, call)


def _parameter(arg: ast.arg, kind: ParamKind, default: ast.expr | None) -> Parameter:
    return Parameter(
        name=arg.arg,
        kind=kind,
        has_default=default is not None,
        annotation=_unparse(arg.annotation) if arg.annotation is not None else None,
        default=_unparse(default) if default is not None else None,
    )


def _unparse(node: ast.AST) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, TypeError, RecursionError):
        return "..."


def _decorator_name(node: ast.expr) -> str:
    target = node.func if isinstance(node, ast.Call) else node
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Attribute):
        return target.attr
    return ""


def _method_kind(node: ast.FunctionDef | ast.AsyncFunctionDef) -> MethodKind:
    names = {_decorator_name(d) for d in node.decorator_list}
    if "staticmethod" in names:
        return "staticmethod"
    if "classmethod" in names:
        return "classmethod"
    if names & {"property", "cached_property", "setter", "getter", "deleter"}:
        return "property"
    return "method"


def has_splat(call: ast.Call) -> bool:
    """Whether the call passes `*x` or `**x`: what it binds cannot be read from the source."""
    return any(isinstance(a, ast.Starred) for a in call.args) or any(k.arg is None for k in call.keywords)


def _bind(parameters: tuple[Parameter, ...], call: ast.Call) -> BindResult:
    result = BindResult(status="ok")
    star_positional = any(isinstance(arg, ast.Starred) for arg in call.args)
    star_keyword = any(kw.arg is None for kw in call.keywords)
    positional_slots = [p for p in parameters if p.accepts_positional]
    var_positional = next((p for p in parameters if p.kind == ParamKind.VAR_POSITIONAL), None)
    var_keyword = next((p for p in parameters if p.kind == ParamKind.VAR_KEYWORD), None)

    filled: set[str] = set()
    explicit_positional = call.args
    if star_positional:
        # Positions after the first *unpacking are unknown; only those before it can be placed.
        first_star = next(i for i, arg in enumerate(call.args) if isinstance(arg, ast.Starred))
        explicit_positional = call.args[:first_star]
    for index, _arg in enumerate(explicit_positional):
        if index < len(positional_slots):
            slot = positional_slots[index]
            result.positional_to.append(slot.name)
            filled.add(slot.name)
        elif var_positional is not None:
            result.positional_to.append(var_positional.name)
        else:
            result.positional_to.append(None)
            result.too_many_positional += 1
    if star_positional:
        result.positional_to.extend(None for _ in call.args[len(explicit_positional) :])

    for keyword in call.keywords:
        if keyword.arg is None:
            continue
        target = next((p for p in parameters if p.name == keyword.arg and p.accepts_keyword), None)
        if target is None:
            if var_keyword is not None:
                result.keyword_to[keyword.arg] = var_keyword.name
                continue
            result.unknown_keywords.append(keyword.arg)
            continue
        if target.name in filled:
            result.duplicate.append(target.name)
        filled.add(target.name)
        result.keyword_to[keyword.arg] = target.name

    if result.too_many_positional:
        result.errors.append(
            f"takes {len(positional_slots)} positional argument{'s' if len(positional_slots) != 1 else ''} "
            f"but {len(explicit_positional)} {'were' if len(explicit_positional) != 1 else 'was'} given"
        )
    for name in result.unknown_keywords:
        result.errors.append(f"got an unexpected keyword argument '{name}'")
    for name in result.duplicate:
        result.errors.append(f"got multiple values for argument '{name}'")

    # A parameter an unpacked *args / **kwargs could fill is not known to be missing.
    missing = [
        p.name
        for p in parameters
        if p.required
        and p.name not in filled
        and not (star_positional and p.accepts_positional)
        and not (star_keyword and p.accepts_keyword)
    ]
    if missing:
        result.missing = missing
        quoted = ", ".join(f"'{name}'" for name in missing)
        result.errors.append(f"missing required argument{'s' if len(missing) > 1 else ''}: {quoted}")

    if result.errors:
        result.status = "error"
    elif star_positional or star_keyword:
        result.status = "undecidable"
        unpacked = "*args" if star_positional else "**kwargs"
        result.undecidable_reason = f"the call unpacks {unpacked}; its arguments cannot be bound statically"
    return result


def type_error_messages(signature: Signature, result: BindResult) -> list[str]:
    """The TypeError messages CPython gives for a call that does not bind (`f() missing 1 required
    positional argument: 'x'`), one per problem, so a test's `match=` pattern can be tried on them.
    Counts of positional parameters may differ by one from CPython's for methods (it counts `self`)."""
    name = f"{signature.name}()"
    messages: list[str] = []
    if result.too_many_positional:
        slots = [p for p in signature.parameters if p.accepts_positional]
        required = sum(1 for p in slots if not p.has_default)
        given = len(result.positional_to)
        takes = f"{len(slots)}" if required == len(slots) else f"from {required} to {len(slots)}"
        plural = "s" if len(slots) != 1 else ""
        were = "were" if given != 1 else "was"
        messages.append(f"{name} takes {takes} positional argument{plural} but {given} {were} given")
    messages.extend(f"{name} got an unexpected keyword argument '{k}'" for k in result.unknown_keywords)
    messages.extend(f"{name} got multiple values for argument '{k}'" for k in result.duplicate)
    for keyword_only in (False, True):
        names = [
            n
            for n in result.missing
            if (param := signature.param(n)) is not None
            and (param.kind is ParamKind.KEYWORD_ONLY) == keyword_only
        ]
        if names:
            kind = "keyword-only" if keyword_only else "positional"
            plural = "s" if len(names) > 1 else ""
            messages.append(f"{name} missing {len(names)} required {kind} argument{plural}: {_listed(names)}")
    return messages


def _listed(names: list[str]) -> str:
    quoted = [f"'{n}'" for n in names]
    if len(quoted) <= 2:
        return " and ".join(quoted)
    return ", ".join(quoted[:-1]) + ", and " + quoted[-1]
