"""What the two use-site rules share: the PR's changed functions one by one, and a finding on a use."""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Protocol, TypeVar

from prscope.analysis.checks.context import CheckContext, make_finding
from prscope.analysis.checks.mismatch.defs import ChangedFile, FunctionFacts, changed_python_files
from prscope.analysis.checks.mismatch.nodes import FileNodes, NodeCache
from prscope.analysis.checks.mismatch.resolution import Hierarchy
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
    hierarchy: Hierarchy, files: NodeCache, dotted: str
) -> Iterator[tuple[FileNodes, Reference, ast.Name | ast.Attribute]]:
    """Uses of `dotted` that read it (not assignments), through receivers the index resolved, with the
    expression each one is."""
    for reference in hierarchy.exact_uses(dotted):
        nodes = files.get(reference.path)
        node = nodes.at(reference) if nodes is not None else None
        if nodes is not None and node is not None and isinstance(node.ctx, ast.Load):
            yield nodes, reference, node


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
