"""What a method that only hands its arguments on to its base accepted in effect: the base's signature.

ophyd 276d391 replaces `EpicsMotor.__init__(self, *args, **kwargs)`, whose body only ran
`super().__init__(*args, **kwargs)`, by the signature of `Device.__init__(self, prefix='', *, name, ...)`
written out. `EpicsMotor(motor_record)` fits the old `*args, **kwargs` on paper, but `Device.__init__`
rejected it at the parent already (no `name=`): the call was broken before the PR, not by it.
"""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from prscope.analysis.checks.defs import DefInfo
from prscope.analysis.intel.scopes import class_bases, hands_on, is_super_call, takes_only_splats
from prscope.analysis.intel.signatures import Signature

if TYPE_CHECKING:
    from prscope.analysis.checks.context import CheckContext
    from prscope.analysis.checks.sites import RepoView

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def relayed_signature(
    ctx: CheckContext, view: RepoView, path: str, module: str, old: DefInfo
) -> Signature | None:
    """The parent's signature of the method that `old`, a method `def m(self, *args, **kwargs)` whose body
    passes both on to `super().m(...)` and reads them nowhere else, handed its calls to: the same method of
    the class's first base (the next class of the MRO), defined by that base itself, undecorated. None when
    `old` is no such relay or the base cannot be told."""
    node = old.node
    if not isinstance(node, FunctionNode) or old.class_qualname is None or not _only_relays(node):
        return None
    head_class = view.class_node(f"{module}.{old.class_qualname}")
    old_defs = ctx.defs("old", path)
    old_class = old_defs.defs.get(old.class_qualname) if old_defs is not None else None
    if head_class is None or old_class is None or not isinstance(old_class.node, ast.ClassDef):
        return None
    names, node_now = head_class
    bases = class_bases(old_class.node)
    if not bases or [ast.dump(b) for b in bases] != [ast.dump(b) for b in class_bases(node_now)]:
        return None  # the PR changed the bases: the head's names may not tell the parent's base
    dotted = names.dotted(bases[0])
    found = view.class_node(dotted) if dotted is not None else None
    if dotted is None or found is None:
        return None
    base_names, base_node = found
    return _parent_signature(ctx, base_names.path, base_names.module, dotted, base_node, node.name)


def _parent_signature(
    ctx: CheckContext, path: str, module: str, dotted: str, base_now: ast.ClassDef, name: str
) -> Signature | None:
    qualname = dotted.removeprefix(f"{module}.")
    changed = ctx.cs.get(path) is not None
    if changed:
        defs = ctx.defs("old", path)
        info = defs.defs.get(f"{qualname}.{name}") if defs is not None else None
        method = info.node if info is not None and info.count == 1 else None
    else:
        own = [n for n in base_now.body if isinstance(n, FunctionNode) and n.name == name]
        method = own[0] if len(own) == 1 else None
    if not isinstance(method, FunctionNode) or method.decorator_list:
        return None
    return Signature.from_ast(method, in_class=True)


def _only_relays(node: FunctionNode) -> bool:
    args = node.args
    if node.decorator_list or not takes_only_splats(args) or args.vararg is None or args.kwarg is None:
        return False
    splats = {args.vararg.arg, args.kwarg.arg}
    relays = [
        statement
        for statement in node.body
        if isinstance(statement, ast.Expr | ast.Return)
        and _is_super_relay(statement.value, node.name, args.vararg.arg, args.kwarg.arg)
    ]
    reads = [n for n in ast.walk(node) if isinstance(n, ast.Name) and n.id in splats]
    return len(relays) == 1 and len(reads) == 2


def _is_super_relay(value: ast.expr | None, name: str, vararg: str, kwarg: str) -> bool:
    """`super().name(*vararg, **kwarg)` (or `super(Cls, self).name(...)`), nothing else passed."""
    return (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and value.func.attr == name
        and is_super_call(value.func.value)
        and hands_on(value, vararg, kwarg)
    )
