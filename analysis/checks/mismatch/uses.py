"""What the two use-site rules share: the PR's changed functions one by one, and a finding on a use."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar

from prscope.analysis.checks.context import CheckContext, make_finding
from prscope.analysis.checks.mismatch.defs import ChangedFile, FunctionFacts, changed_python_files
from prscope.analysis.checks.mismatch.nodes import FileNodes, NodeCache
from prscope.analysis.checks.mismatch.resolution import Hierarchy, MethodAt
from prscope.analysis.findings import Finding, Related, Severity, Suggestion
from prscope.analysis.intel import Reference


class FunctionChange(Protocol):
    @property
    def file(self) -> ChangedFile: ...

    @property
    def new(self) -> FunctionFacts: ...

    @property
    def display(self) -> str: ...


Change = TypeVar("Change", bound=FunctionChange)


@dataclass(frozen=True)
class Problem:
    title: str
    message: str
    suggestion: Suggestion | None = None


def changed_functions(
    ctx: CheckContext, rule: str, detect: Callable[[ChangedFile, FunctionFacts, FunctionFacts], Change | None]
) -> Iterator[Change]:
    """The changes `detect` recognises among the functions defined on both sides of the PR; stops (with
    a note) when the checks' time budget runs out."""
    for changed in changed_python_files(ctx):
        for old, new in changed.pairs():
            change = detect(changed, old, new)
            if change is None:
                continue
            if ctx.out_of_time(rule, f"`{change.display}` in {changed.path}"):
                return
            yield change


def read_uses(
    hierarchy: Hierarchy, files: NodeCache, dotted: str, same_change: Callable[[MethodAt], bool] | None = None
) -> Iterator[tuple[FileNodes, Reference, ast.Name | ast.Attribute]]:
    """Uses of `dotted` that read it (not assignments), through receivers the index resolved, with the
    expression each one is. With `same_change`, `self.m` in a class one of whose subclasses overrides `m`
    in a way `same_change` does not accept is left out (the call may run that override)."""
    for reference in hierarchy.exact_uses(dotted):
        nodes = files.get(reference.path)
        node = nodes.at(reference) if nodes is not None else None
        if nodes is None or node is None or not isinstance(node.ctx, ast.Load):
            continue
        if same_change is not None and _dispatched_elsewhere(hierarchy, nodes, node, same_change):
            continue
        yield nodes, reference, node


def _dispatched_elsewhere(
    hierarchy: Hierarchy,
    nodes: FileNodes,
    node: ast.Name | ast.Attribute,
    same_change: Callable[[MethodAt], bool],
) -> bool:
    """`self.m()` in a class whose subclass overrides `m` without the change (a mixin's call runs the
    concrete class's plain `m`, not the base's placeholder that became async): not certainly stale."""
    if not isinstance(node, ast.Attribute) or not isinstance(node.value, ast.Name):
        return False
    owner = _method_class(nodes, node, node.value.id)
    module = hierarchy.index.module_name(nodes.path)
    if owner is None or module is None:
        return False
    return any(not same_change(m) for m in hierarchy.overrides(module, owner, node.attr))


def _method_class(nodes: FileNodes, node: ast.AST, receiver: str) -> str | None:
    """The top-level class whose method `node` is in, when `receiver` is that method's first parameter
    (read directly, or from a function nested in the method: `def decorator(func): self.add(func)`)."""
    scope = nodes.scope(node)
    while isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
        args = scope.args
        positional = [*args.posonlyargs, *args.args]
        owner = nodes.parent(scope)
        if positional and positional[0].arg == receiver and isinstance(owner, ast.ClassDef):
            return owner.name if nodes.parent(owner) is nodes.tree else None
        if receiver in {a.arg for a in (*positional, *args.kwonlyargs)}:
            return None  # a parameter of the nested function: another object
        scope = nodes.scope(scope)
    return None


def use_finding(
    rule: str,
    severity: Severity,
    nodes: FileNodes,
    reference: Reference,
    change: FunctionChange,
    problem: Problem,
    now: str,
) -> Finding:
    """A finding on the use `reference`, pointing back at the definition (`now` says what it became)."""
    return make_finding(
        rule=rule,
        severity=severity,
        path=reference.path,
        line=reference.line,
        column=reference.col,
        end_column=reference.end_col,
        title=problem.title,
        message=problem.message,
        anchor=nodes.line(reference.line),
        suggestion=problem.suggestion,
        related=[
            Related(path=change.file.path, line=change.new.line, message=f"`{change.display}` is {now} here")
        ],
    )
