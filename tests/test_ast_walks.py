"""The cheaper walks the checks use answer as the whole-tree walks they replaced, over this project's own
source (real code: nested functions, classes in functions, try/with/match blocks, tuple targets)."""

from __future__ import annotations

import ast
from collections.abc import Iterable
from functools import cache
from pathlib import Path

import pytest
from prscope.analysis.checks.defs import _self_assignments
from prscope.analysis.checks.mismatch.method_calls import method_calls, spelled_on_lines
from prscope.analysis.intel.scopes import nested_statements

SOURCES = sorted((Path(__file__).parent.parent / "analysis").rglob("*.py"))
METHODS = ["append", "get", "add", "read", "parse", "format", "join", "items"]


@cache
def _trees() -> list[tuple[str, ast.Module]]:
    texts = [path.read_text(encoding="utf-8") for path in SOURCES]
    return [(text, ast.parse(text)) for text in texts]


def _self_assignments_by_walking_everything(method: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    positional = [*method.args.posonlyargs, *method.args.args]
    if not positional:
        return set()
    receiver = positional[0].arg
    return {
        node.attr
        for node in ast.walk(method)
        if isinstance(node, ast.Attribute)
        and isinstance(node.ctx, ast.Store)
        and isinstance(node.value, ast.Name)
        and node.value.id == receiver
    }


def test_there_is_enough_code_to_compare() -> None:
    assert len(SOURCES) > 100


def test_nested_statements_are_every_statement() -> None:
    for _text, tree in _trees():
        walked = {id(node) for node in ast.walk(tree) if isinstance(node, ast.stmt)}
        assert {id(node) for node in nested_statements(tree.body)} == walked


def test_attributes_a_method_sets_on_self_are_found_from_the_targets_alone() -> None:
    compared = 0
    for _text, tree in _trees():
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                assert _self_assignments(node) == _self_assignments_by_walking_everything(node), node.name
                compared += 1
    assert compared > 1000


def _identities(calls: Iterable[tuple[ast.Call, ast.AST, bool]]) -> list[tuple[int, int, bool]]:
    return sorted((id(call), id(scope), guarded) for call, scope, guarded in calls)


@pytest.mark.parametrize("method", METHODS)
def test_method_calls_read_from_the_functions_spelling_the_method_are_all_of_them(method: str) -> None:
    found = 0
    for text, tree in _trees():
        everywhere = _identities(method_calls(tree, method, ""))
        spelled = _identities(method_calls(tree, method, "", lines=spelled_on_lines(text, method)))
        assert spelled == everywhere
        found += len(everywhere)
    assert found > 0
