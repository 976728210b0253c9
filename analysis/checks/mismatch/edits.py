"""Certain, minimal edits of a finding's lines: insert `await`, drop `await`, drop or add parentheses."""

from __future__ import annotations

import ast

from prscope.analysis.checks.mismatch.nodes import FileNodes
from prscope.analysis.findings import Suggestion


def _char(nodes: FileNodes, line: int, byte_offset: int) -> int:
    """0-based code-point index on `line` of a 0-based UTF-8 offset."""
    return nodes.column(line, byte_offset) - 1


def _replace_lines(
    nodes: FileNodes, first: int, last: int, edits: list[tuple[int, int, int, str]]
) -> Suggestion:
    """Apply (line, start, end, text) character edits to lines first..last; edits must not overlap."""
    lines = [nodes.line(number) for number in range(first, last + 1)]
    for line, start, end, text in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        row = lines[line - first]
        lines[line - first] = row[:start] + text + row[end:]
    return Suggestion(start_line=first, end_line=last, replacement="\n".join(lines))


def insert_await(nodes: FileNodes, call: ast.Call, *, parenthesise: bool) -> Suggestion | None:
    end_line = call.end_lineno
    if end_line is None or call.end_col_offset is None:
        return None
    start = _char(nodes, call.lineno, call.col_offset)
    edits = [(call.lineno, start, start, "(await " if parenthesise else "await ")]
    if parenthesise:
        end = _char(nodes, end_line, call.end_col_offset)
        edits.append((end_line, end, end, ")"))
    return _replace_lines(nodes, call.lineno, end_line, edits)


def drop_await(nodes: FileNodes, awaited: ast.Await, call: ast.Call) -> Suggestion | None:
    if awaited.lineno != call.lineno:
        return None
    start = _char(nodes, awaited.lineno, awaited.col_offset)
    end = _char(nodes, call.lineno, call.col_offset)
    if not nodes.line(call.lineno)[start:end].startswith("await"):
        return None
    return _replace_lines(nodes, call.lineno, call.lineno, [(call.lineno, start, end, "")])


def drop_call_parentheses(nodes: FileNodes, call: ast.Call) -> Suggestion | None:
    """`obj.name()` -> `obj.name` (only an empty argument list on one line)."""
    func = call.func
    if call.args or call.keywords or func.end_lineno != call.end_lineno or call.end_col_offset is None:
        return None
    line = call.end_lineno or call.lineno
    start = _char(nodes, line, func.end_col_offset or 0)
    end = _char(nodes, line, call.end_col_offset)
    if nodes.line(line)[start:end].replace(" ", "") != "()":
        return None
    return _replace_lines(nodes, call.lineno, line, [(line, start, end, "")])


def add_call_parentheses(nodes: FileNodes, attribute: ast.Attribute) -> Suggestion | None:
    """`obj.name` -> `obj.name()`."""
    line = attribute.end_lineno
    if line is None or attribute.end_col_offset is None:
        return None
    end = _char(nodes, line, attribute.end_col_offset)
    return _replace_lines(nodes, attribute.lineno, line, [(line, end, end, "()")])
