"""One finding per import statement: `from m import (a, b, c)` whose names the PR all removed is one edit
to make, so it is one finding (on the first name's line, naming the others), not one per continuation
line of the statement."""

from __future__ import annotations

import ast

from prscope.analysis.findings import Finding, Related

StatementKey = tuple[str, int, int]
"""(path, line, column) of an import statement."""
ImportStatements = dict[int, tuple[StatementKey, str]]
"""id() of an import finding -> (its statement, the name it imports), filled while the findings are made."""


def statement_key(path: str, node: ast.AST) -> StatementKey:
    return (path, getattr(node, "lineno", 0), getattr(node, "col_offset", 0))


def one_per_statement(findings: list[Finding], statements: ImportStatements) -> list[Finding]:
    """`findings` with the import findings of each statement merged into its first one."""
    groups: dict[StatementKey, list[tuple[Finding, str]]] = {}
    for finding in findings:
        entry = statements.get(id(finding))
        if entry is not None:
            groups.setdefault(entry[0], []).append((finding, entry[1]))
    merged: dict[int, Finding | None] = {}
    for group in groups.values():
        group.sort(key=lambda item: (item[0].line, item[0].column or 0))
        merged[id(group[0][0])] = _merged(group)
        for finding, _name in group[1:]:
            merged[id(finding)] = None
    result: list[Finding] = []
    for finding in findings:
        replacement = merged.get(id(finding), finding)
        if replacement is not None:
            result.append(replacement)
    return result


def _merged(group: list[tuple[Finding, str]]) -> Finding:
    first, first_name = group[0]
    others = [(finding, name) for finding, name in group[1:] if name != first_name]
    if not others:
        return first
    names = list(dict.fromkeys([first_name, *(name for _f, name in others)]))
    listed = ", ".join(f"`{name}` (line {finding.line})" for finding, name in others)
    related: list[Related] = []
    for finding, _name in group:
        related.extend(r for r in finding.related if r not in related)
    last = group[-1][0]
    return first.model_copy(
        update={
            # The finding spans the statement's removed names: one edit fixes them all.
            "end_line": last.line,
            "end_column": last.end_column if last.column is not None else None,
            "title": f"Import of removed {_enumerate(names)}",
            "message": f"{first.message} The same import statement also names {listed}, removed too.",
            "related": related,
        }
    )


def _enumerate(names: list[str]) -> str:
    quoted = [f"`{name}`" for name in names]
    return quoted[0] if len(quoted) == 1 else f"{', '.join(quoted[:-1])} and {quoted[-1]}"
