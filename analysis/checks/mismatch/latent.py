"""Which latent promises of a base method override-mismatch still reports, and what a base hands on.

An optional part of a base's signature that an override lacks, and that no call in the repository passes
yet, fails nothing today. Real history shows two kinds: an interface's public method (a stub body) gaining
a parameter its implementations must take, for callers outside the repository (opentelemetry's API, a
broker's `consume`): kept, as a note; and a working method gaining one for the subclass that needs it,
used only through it (sqlalchemy, coverage.py): not reported.
"""

from __future__ import annotations

import ast

from prscope.analysis.checks.context import CheckContext
from prscope.analysis.checks.mismatch.promises import CallSource, self_attribute_call
from prscope.analysis.checks.mismatch.resolution import MethodAt
from prscope.analysis.intel.scopes import hands_on, takes_only_splats
from prscope.analysis.intel.signatures import Signature


def still_reported(
    ctx: CheckContext, base: MethodAt, problems: dict[str, str], latent: frozenset[str], gated: bool
) -> dict[str, str]:
    """`problems` without the latent ones (keys in `latent`) that are no interface's promise. `gated`: the
    base puts the new arguments behind a capability flag the override leaves off."""
    # A working base that gains a parameter its own body never reads (astroid's
    # `NodeNG.bool_value(context=None)`, opentelemetry's no-op `Tracer.start_span`) declares it for its
    # implementations: that is the interface kind. So does an `@abstractmethod`, whatever its name: it
    # exists to be implemented (opentelemetry's `_instrument(self, **kwargs)`). And a new `**kw` that a
    # public method of the base's class already passes on from its own `**kw` (astroid's
    # `infer(**kwargs)` -> `self._infer(**kwargs)`): the API's callers may pass anything.
    public = not base.facts.name.startswith("_")
    # A base that gates the new arguments behind a capability flag its implementations opt in with
    # (mopidy's `add_supports_tags_and_duration = False`) asks nothing of an override that leaves it off.
    opted_out = bool(latent) and gated
    interface = public and base.facts.is_stub and not opted_out
    unread = _parameters_never_read(base.facts.node) if public else frozenset()
    abstract = "abstractmethod" in base.facts.decorators
    api_kwargs = "**kwargs" in latent and _kwargs_passed_on_by_api(ctx, base)
    return {
        key: text
        for key, text in problems.items()
        if key not in latent
        or (abstract and _declared_for_implementations(key))
        or (key == "**kwargs" and api_kwargs)
        or (not _private(key) and not opted_out and (interface or _parameter_of(key) in unread))
    }


def forwarded_keywords(ctx: CheckContext, base: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """Parameters of the methods a base passes its `**kw` on to (`self._set_parent(parent, **kw)`): a
    keyword a call gives the base for those (`allow_replacements=` for Column's `_set_parent`) is
    addressed to them, not a promise every override must keep."""
    kwarg = base.args.kwarg.arg if base.args.kwarg is not None else None
    if kwarg is None:
        return frozenset()
    targets = {
        node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
        for node in ast.walk(base)
        if isinstance(node, ast.Call) and any(_passes(k, kwarg) for k in node.keywords)
    }
    names: set[str] = set()
    for target in sorted(t for t in targets if t):
        for path, line in ctx.index.defines_elsewhere(target)[:_MAX_FORWARD_DEFS]:
            located = ctx.index.unit_tree(path, line)
            for node in ast.walk(located[1]) if located is not None else ():
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == target:
                    args = node.args
                    names.update(a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs))
    return frozenset(names)


_MAX_FORWARD_DEFS = 40


def _kwargs_passed_on_by_api(ctx: CheckContext, base: MethodAt) -> bool:
    """Whether a public method of the base's own class takes `**kw` and passes it on to the base method
    through `self` (`def infer(self, context=None, **kwargs): ... self._infer(context=context, **kwargs)`)."""
    tree = ctx.tree("new", base.path)
    owner = (
        next(
            (
                n
                for n in ast.walk(tree)
                if isinstance(n, ast.ClassDef)
                and n.name == base.class_name
                and n.lineno <= base.facts.line <= (n.end_lineno or n.lineno)
            ),
            None,
        )
        if tree is not None
        else None
    )
    for member in owner.body if owner is not None else []:
        if not isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef) or member.name.startswith("_"):
            continue
        kwarg = member.args.kwarg.arg if member.args.kwarg is not None else None
        for node in ast.walk(member) if kwarg is not None else ():
            if (
                isinstance(node, ast.Call)
                and self_attribute_call(node) == base.facts.name
                and any(_passes(k, kwarg or "") for k in node.keywords)
            ):
                return True
    return False


def _parameters_never_read(node: ast.FunctionDef | ast.AsyncFunctionDef) -> frozenset[str]:
    """The named parameters (and `**kw`) the function's body (nested functions included) never reads; none
    when it reads its frame wholesale (`locals()`, `vars()`)."""
    args = node.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs, *filter(None, [args.kwarg]))}
    read: set[str] = set()
    for statement in node.body:
        for child in ast.walk(statement):
            if isinstance(child, ast.Name):
                read.add(child.id)
    if {"locals", "vars"} & read:
        return frozenset()
    return frozenset(names - read)


def kwargs_never_read(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the function takes `**kw` and its body never reads `kw` (nor its frame wholesale)."""
    kwarg = node.args.kwarg
    return kwarg is not None and kwarg.arg in _parameters_never_read(node)


def _parameter_of(key: str) -> str:
    """The parameter a `positional:x` / `keyword:x` promise is about ("" for the others)."""
    kind, _, name = key.partition(":")
    return name if kind in ("positional", "keyword") else ""


def _declared_for_implementations(key: str) -> bool:
    """What an abstract method's new signature asks of every implementation: a parameter of a public
    name, or `*args` / `**kw` (not a renamed positional: only calls by the new name would tell)."""
    kind, _, name = key.partition(":")
    return key in ("*args", "**kwargs") or (kind in ("positional", "keyword") and not name.startswith("_"))


def _private(key: str) -> bool:
    """A parameter named `_x` is the implementation's own business, not a promise to callers; so is a new
    `*args` / `**kw` nothing passes yet (a pass-through added for one subclass)."""
    kind, _, name = key.partition(":")
    return key in ("*args", "**kwargs") or kind == "named" or name.startswith("_")


def _passes(keyword: ast.keyword, kwarg: str) -> bool:
    return keyword.arg is None and isinstance(keyword.value, ast.Name) and keyword.value.id == kwarg


def forwards_everything_to(calls: CallSource, base: MethodAt) -> Signature | None:
    """The signature (without `self`) of the method of the base's own class that the base, `def
    name(self, *args, **kw)`, only hands all its arguments on to (scapy's `_PacketList.show`: `return
    self.nsummary(*args, **kargs)`), when that method takes no `*args` / `**kw` of its own and no class of
    the family redefines it."""
    node = base.facts.node
    args = node.args
    if not takes_only_splats(args) or args.vararg is None or args.kwarg is None:
        return None
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    if len(body) != 1 or not isinstance(body[0], ast.Return | ast.Expr):
        return None
    call = body[0].value
    target = self_attribute_call(call)
    if (
        target is None
        or not isinstance(call, ast.Call)
        or not hands_on(call, args.vararg.arg, args.kwarg.arg)
    ):
        return None
    found = calls.class_node(f"{base.module}.{base.class_name}")
    defs = _own_methods(found[1], target) if found is not None else []
    if found is None or len(defs) != 1 or defs[0].decorator_list:
        return None
    for subclass in calls.subclasses({f"{base.module}.{base.class_name}"}):
        located = calls.class_node(subclass)
        if located is None or (located[1] is not found[1] and _own_methods(located[1], target)):
            return None
    signature = Signature.from_ast(defs[0], in_class=True).without_first()
    return None if signature.has_var_positional or signature.has_var_keyword else signature


def _own_methods(owner: ast.ClassDef, name: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    return [n for n in owner.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name]
