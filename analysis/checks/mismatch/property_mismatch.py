"""`property-mismatch`: the PR turns a method into a property (or the reverse) and a use site still uses
the old form.

`obj.m()` on what is now a property calls its value (TypeError: 'str' object is not callable); `obj.p` on
what is now a method is a bound method: always true, never the value, and no error to say so. Uses are
found through the code index with the receiver resolved; unknown receivers are not reported.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from prscope.analysis.checks.context import CheckContext
from prscope.analysis.checks.defs import attributes_stored_on, class_decorators_defined_in
from prscope.analysis.checks.mismatch.defs import ChangedFile, FunctionFacts, own_body_nodes, returned_types
from prscope.analysis.checks.mismatch.edits import add_call_parentheses, drop_call_parentheses
from prscope.analysis.checks.mismatch.nodes import FileNodes, NodeCache
from prscope.analysis.checks.mismatch.resolution import Hierarchy, MethodAt
from prscope.analysis.checks.mismatch.uses import Problem, changed_functions, read_uses, use_finding
from prscope.analysis.findings import Finding, Severity
from prscope.analysis.intel import Reference

RULE = "property-mismatch"
SEVERITY = Severity.ERROR

_CALLABLE_TYPES = frozenset({"Callable", "type", "Type", "partial", "Any"})
_CLASS_NAME = re.compile(r"^_?[A-Z][A-Za-z0-9]*[a-z][A-Za-z0-9]*$")
_SIMPLE_TYPES = frozenset({"str", "int", "float", "bool", "bytes", "list", "dict", "tuple", "set"})


@dataclass(frozen=True)
class PropertyChange:
    file: ChangedFile
    old: FunctionFacts
    new: FunctionFacts

    @property
    def to_property(self) -> bool:
        return self.new.kind == "property"

    @property
    def display(self) -> str:
        return self.new.qualname

    @property
    def dotted(self) -> str:
        return f"{self.file.module}.{self.new.qualname}"


def check_property_mismatch(ctx: CheckContext, _view: object = None) -> list[Finding]:
    hierarchy, files = Hierarchy(ctx.index), NodeCache(ctx.index)
    findings: list[Finding] = []
    for change in changed_functions(ctx, RULE, property_change):
        findings.extend(_stale_uses(hierarchy, files, change))
    return findings


def property_change(changed: ChangedFile, old: FunctionFacts, new: FunctionFacts) -> PropertyChange | None:
    if new.class_qualname is None or (old.kind == "property") == (new.kind == "property"):
        return None
    method = old if new.kind == "property" else new
    if not method.plain_decorators:
        return None  # a decorator may make the method something else again
    if _class_decorator_sets_members(changed.old_tree, old) or _class_decorator_sets_members(
        changed.new_tree, new
    ):
        return None
    if new.kind == "property" and _may_return_callable(changed, new):
        return None  # `obj.handler(x)` still works when the property hands out a function
    return PropertyChange(changed, old, new)


def _may_return_callable(changed: ChangedFile, facts: FunctionFacts) -> bool:
    """Whether the property may hand out something callable: a class (`TaskConsumer` named like one, or
    `return SomeClass`), a function of the module, a lambda, a partial, or a declared `Callable` / `type`."""
    if _CLASS_NAME.match(facts.name) or not _CALLABLE_TYPES.isdisjoint(returned_types(facts.node)):
        return True
    if _hands_back_what_was_set(facts):
        return True
    functions = {f.name for f in changed.new.values() if f.class_qualname is None}
    for node in own_body_nodes(facts.node):
        if not isinstance(node, ast.Return) or node.value is None:
            continue
        value = node.value
        if isinstance(value, ast.Lambda):
            return True
        returned = _name_of(value.func) if isinstance(value, ast.Call) else _name_of(value)
        if isinstance(value, ast.Call) and returned in ("partial", "partialmethod", "type"):
            return True
        if isinstance(value, ast.Name | ast.Attribute) and (
            _CLASS_NAME.match(returned) or returned in functions
        ):
            return True
    return False


def _hands_back_what_was_set(facts: FunctionFacts) -> bool:
    """A property that returns what its own setter stored (paho.mqtt 4af8776b: `on_connect` returns
    `self._on_connect`, which `@on_connect.setter` set to the user's callback): the value is whatever
    users assign, a callback as often as not, so `self.on_connect(...)` may be the intended use."""
    setter = facts.setter
    if setter is None or len(setter.args.args) < 2:
        return False
    value_name = setter.args.args[1].arg
    stored = {
        _self_attribute(target)
        for node in own_body_nodes(setter)
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Name) and node.value.id == value_name
        for target in node.targets
    }
    returned = {
        _self_attribute(node.value) for node in own_body_nodes(facts.node) if isinstance(node, ast.Return)
    }
    return not (stored & returned) <= {None}


def _self_attribute(node: ast.expr | None) -> str | None:
    """`x` of `self.x`."""
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


def _name_of(node: ast.expr) -> str:
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def _stale_uses(hierarchy: Hierarchy, files: NodeCache, change: PropertyChange) -> list[Finding]:
    findings: list[Finding] = []

    def same(override: MethodAt) -> bool:
        return (override.facts.kind == "property") == change.to_property

    for nodes, reference, node in read_uses(hierarchy, files, change.dotted, same):
        if not isinstance(node, ast.Attribute):
            continue
        if _CLASS_NAME.match(_name_of(node.value)) and not hierarchy.is_rebound_instance(
            nodes.path, node.value
        ):
            continue  # `Cls.name`: the property or function object itself, not an instance's value
        call = nodes.called(node)
        if change.to_property and call is not None:
            findings.append(_called_property(nodes, reference, change, call))
        elif not change.to_property and call is None and not _is_receiver_of_call(nodes, node):
            probed = _value_discarded(nodes, node) and _returns_nothing(change.old.node)
            if not probed:
                findings.append(_uncalled_method(nodes, reference, change, node))
    return findings


def _is_receiver_of_call(nodes: FileNodes, node: ast.Attribute) -> bool:
    """`obj.name.fget(...)`, `obj.name.__doc__`: the descriptor object itself is used on purpose."""
    parent = nodes.parent(node)
    return isinstance(parent, ast.Attribute) and parent.attr in (
        "fget",
        "fset",
        "fdel",
        "__func__",
        "__doc__",
    )


def _value_discarded(nodes: FileNodes, node: ast.Attribute) -> bool:
    """A read on a line of its own (keyring's `viable` probes `cls.priority` inside a context that records
    exceptions): only whether it raises counts, and a property whose body does nothing never did, as a
    method never does."""
    return isinstance(nodes.parent(node), ast.Expr)


def _returns_nothing(node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """A body of a docstring, `pass`, `...` or a bare `return` / `return None`: reading it raises nothing."""
    return all(_does_nothing(statement) for statement in node.body)


def _does_nothing(statement: ast.stmt) -> bool:
    if isinstance(statement, ast.Pass):
        return True
    if isinstance(statement, ast.Expr):
        return isinstance(statement.value, ast.Constant)  # a docstring, `...`
    if isinstance(statement, ast.Return):
        value = statement.value
        return value is None or (isinstance(value, ast.Constant) and value.value is None)
    return False


def _called_property(
    nodes: FileNodes, reference: Reference, change: PropertyChange, call: ast.Call
) -> Finding:
    returns = ast.unparse(change.new.node.returns) if change.new.node.returns is not None else ""
    kind = f"'{returns}'" if returns in _SIMPLE_TYPES else "'...'"
    suggestion = drop_call_parentheses(nodes, call)
    message = (
        f"This PR made `{change.display}` a property: `.{change.new.name}` already evaluates it, and the "
        f"parentheses then call its value (`TypeError: {kind} object is not callable`)."
    )
    if suggestion is not None:
        message += " Drop the parentheses."
    title = f"`{change.display}` is now a property, but this code calls it"
    return _finding(nodes, reference, change, Problem(title, message, suggestion))


def _uncalled_method(
    nodes: FileNodes, reference: Reference, change: PropertyChange, node: ast.Attribute
) -> Finding:
    needs_arguments = any(p.required for p in change.new.signature.for_call(bound=True).parameters)
    suggestion = None if needs_arguments else add_call_parentheses(nodes, node)
    message = (
        f"This PR made `{change.display}` a plain method: `.{change.new.name}` is now a bound method, not "
        "its value. It is always true and compares unequal to everything, so the code goes wrong silently."
    )
    message += " Call it." if suggestion is not None else " Call it with the arguments it now takes."
    title = f"`{change.display}` is now a method, but this code reads it as a property"
    return _finding(nodes, reference, change, Problem(title, message, suggestion))


def _finding(nodes: FileNodes, reference: Reference, change: PropertyChange, problem: Problem) -> Finding:
    now = "a property" if change.to_property else "a method"
    return use_finding(RULE, SEVERITY, nodes, reference, change, problem, now)


def _class_decorator_sets_members(tree: ast.Module, facts: FunctionFacts) -> bool:
    """Whether a decorator of the method's class, a function of the same module, sets attributes on the
    class it is given under a computed name or the method's own (bokeh e74a50ea3e: `@_autoprop` turns
    each palette method into a property with `setattr(cls, k, property(v))`): what the body spells is not
    what the class has."""
    owner = _class_node(tree, facts.class_qualname or "")
    return owner is not None and any(
        stored is None or stored == facts.name
        for function in class_decorators_defined_in(tree, owner)
        for stored in attributes_stored_on(function, function.args.args[0].arg)
    )


def _class_node(tree: ast.Module, qualname: str) -> ast.ClassDef | None:
    body: list[ast.stmt] = tree.body
    found: ast.ClassDef | None = None
    for part in qualname.split("."):
        found = next((s for s in body if isinstance(s, ast.ClassDef) and s.name == part), None)
        if found is None:
            return None
        body = found.body
    return found
