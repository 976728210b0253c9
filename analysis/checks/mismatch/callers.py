"""Whether any call in the repository can reach an override through its base at all.

A private base method may be called only by the base's own methods, `self._handle_connect(...)` in
`Server.handle_request`; when the override's class overrides each of those callers too (python-engineio
36a15987's `AsyncServer.handle_request`),
no call of the base's signature ever runs on the override's instances, whatever the two signatures say.
Any other use of the name (a callback `self.m` handed on, another receiver, a call outside a class) may
reach it: then nothing is concluded.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from prscope.analysis.checks.mismatch.promises import MAX_FILES_SCANNED, CallSource
from prscope.analysis.checks.mismatch.resolution import MethodAt
from prscope.analysis.intel.scopes import is_super_call

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def only_called_where_overridden(calls: CallSource, base: MethodAt, override: MethodAt) -> bool:
    """Whether the repository calls the method, and every call is `self.<name>(...)` in a method that the
    override's class (or a class between it and the caller's) overrides as well."""
    name = base.facts.name
    if not name.startswith("_") or name.startswith("__"):
        return False  # a public method's callers may be outside the repository (anyio's `acquire_nowait`)
    target = f"{override.module}.{override.class_name}"
    lineage = _Lineage(calls, target)
    if not lineage.known:
        return False
    files = calls.files_with_word(name)
    if len(files) > MAX_FILES_SCANNED:
        return False
    called = False
    for path in files:
        read = calls.tree_memo.read(path, ("uses", name), lambda tree: list(_uses_in(tree, name)))
        if read is None:
            return False
        for caller_class, caller, attribute, is_called in read[1]:
            if caller_class is None or caller is None or not is_called or not _self_call(attribute):
                return False
            if is_super_call(attribute.value):
                continue
            called = True
            if not lineage.skips(caller_class, caller, calls.module(path)):
                return False
    return called


class _Lineage:
    """The override's class with its ancestors and subclasses, by dotted path and by bare name."""

    def __init__(self, calls: CallSource, target: str) -> None:
        self.calls = calls
        self.target = target
        self.known = calls.class_node(target) is not None
        self.ancestors = calls.ancestors({target}) if self.known else set()
        self.family = self.ancestors | {target}
        named: dict[str, set[str]] = {}
        for dotted in self.family:
            named.setdefault(dotted.rsplit(".", 1)[-1], set()).add(dotted)
        # A bare name two of them share tells neither (anyio's BlockingPortal: the abc's and each backend's).
        self.by_name = {name: next(iter(dotted)) for name, dotted in named.items() if len(dotted) == 1}
        self.subclasses = calls.subclasses({target}) - {target} if self.known else set()
        self.subclass_names = {dotted.rsplit(".", 1)[-1] for dotted in self.subclasses}

    def skips(self, caller_class: str, caller: str, module: str | None) -> bool:
        """Whether `self.<name>(...)` in `caller_class.caller` (a class of `module`) never runs on the
        override's instances."""
        dotted = f"{module}.{caller_class}" if module else None
        if dotted in self.subclasses or (dotted not in self.family and caller_class in self.subclass_names):
            return False  # its instances are the override's too
        owner = dotted if dotted in self.family else self.by_name.get(caller_class)
        if owner is None:
            return True  # another class: its `self` is never the override's instance
        if owner == self.target:
            return True  # the override's own class: calls written for the override
        between = ({self.target} | self.ancestors) - ({owner} | self.calls.ancestors({owner}))
        return any(_defines(self.calls, dotted, caller) for dotted in between)


def _defines(calls: CallSource, dotted: str, method: str) -> bool:
    """Whether the class defines `method` itself and does not hand on to the base's (`super().method(...)`
    runs the base's body, calls and all: litestar's `on_registration`)."""
    found = calls.class_node(dotted)
    if found is None:
        return False
    own = [node for node in found[1].body if isinstance(node, _FunctionNode) and node.name == method]
    return bool(own) and not any(
        isinstance(node, ast.Attribute) and node.attr == method
        for function in own
        for node in ast.walk(function)
    )


def _uses_in(tree: ast.Module, name: str) -> Iterator[tuple[str | None, str | None, ast.Attribute, bool]]:
    """Each read of `.name` with the class and method around it (None outside a class's method), and
    whether it is called there."""
    placed: dict[int, tuple[str, str]] = {}  # the innermost: `ast.walk` meets outer classes first
    for klass in ast.walk(tree):
        if not isinstance(klass, ast.ClassDef):
            continue
        for method in klass.body:
            if isinstance(method, _FunctionNode):
                for node in ast.walk(method):
                    placed[id(node)] = (klass.name, method.name)
    called = {id(node.func) for node in ast.walk(tree) if isinstance(node, ast.Call)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == name and isinstance(node.ctx, ast.Load):
            klass_name, method_name = placed.get(id(node), (None, None))
            yield klass_name, method_name, node, id(node) in called


def _self_call(attribute: ast.Attribute) -> bool:
    value = attribute.value
    return (isinstance(value, ast.Name) and value.id == "self") or is_super_call(value)
