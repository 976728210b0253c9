"""Django data migrations: the functions a migration hands to `RunPython` are given the app registry of the
migration's own state, and `apps.get_model("core", "ArchiveResult")` returns a model rebuilt from the
migrations, not the repository's class of that name. Its attributes are the fields the model had then
(`result.snapshot_old_id`, the column of a foreign key a later migration removed), whatever the PR does
to the classes of today."""

from __future__ import annotations

import ast

_RUN_PYTHON = "RunPython"


def data_migration_spans(tree: ast.Module) -> list[tuple[int, int]]:
    """(first, last) lines of the module's top-level functions some `RunPython(...)` call of the module
    is handed (`RunPython(forwards, backwards)`, `RunPython(code=forwards)`)."""
    handed = {
        argument.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and _names_run_python(node.func)
        for argument in [*node.args, *(keyword.value for keyword in node.keywords)]
        if isinstance(argument, ast.Name)
    }
    return [
        (node.lineno, node.end_lineno or node.lineno)
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name in handed
    ]


def may_hand_to_run_python(text: str) -> bool:
    """A cheap test before the module is parsed."""
    return _RUN_PYTHON in text


def _names_run_python(func: ast.expr) -> bool:
    if isinstance(func, ast.Attribute):
        return func.attr == _RUN_PYTHON
    return isinstance(func, ast.Name) and func.id == _RUN_PYTHON
