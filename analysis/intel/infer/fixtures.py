"""pytest fixtures: what a test's (or a fixture's) parameter holds when pytest fills it.

A parameter named in `@pytest.mark.parametrize` holds the listed values. Otherwise pytest looks up a
fixture of that name: in the test's class, in its module, in each `conftest.py` from the test's folder up
to the repository's root, in the modules those list in `pytest_plugins`, then among pytest's own
(`tmp_path` is a `pathlib.Path`: nothing of the repository). A fixture gives what its annotation says
(the yielded type for `Iterator[X]`), else what it returns or yields.
"""

from __future__ import annotations

import ast
import posixpath
from typing import TYPE_CHECKING

from prscope.analysis.intel.infer.annotations import yielded
from prscope.analysis.intel.infer.frames import FunctionNode, Place, own_nodes
from prscope.analysis.intel.infer.values import FOREIGN_TYPES, UNKNOWN_TYPES, Types, or_unknown, union
from prscope.analysis.intel.scopes import dotted_chain

if TYPE_CHECKING:
    from prscope.analysis.intel.infer.engine import Inference

# pytest's own fixtures (and the common plugins'): objects from outside the repository.
_BUILTIN = frozenset(
    {
        "tmp_path", "tmp_path_factory", "tmpdir", "tmpdir_factory", "monkeypatch", "capsys", "capsysbinary",
        "capfd", "capfdbinary", "caplog", "recwarn", "pytestconfig", "record_property",
        "record_xml_attribute", "record_testsuite_property", "testdir", "pytester", "cache", "mocker",
        "event_loop", "benchmark", "httpserver", "unused_tcp_port", "anyio_backend", "doctest_namespace",
    }
)  # fmt: skip
Definition = tuple[FunctionNode, Place]


class Fixtures:
    def __init__(self, engine: Inference) -> None:
        self.engine = engine
        self._found: dict[tuple[str, str, str | None], Definition | str | None] = {}

    def parameter(self, function: FunctionNode, arg: ast.arg, scope: Place) -> Types | None:
        """What pytest passes for `arg`; None when `function` is no test or fixture, or when no fixture
        of that name is found."""
        if not (function.name.startswith("test") or is_fixture(function)):
            return None
        listed = self._parametrized(function, arg.arg, scope.outer())
        if listed is not None:
            return listed
        found = self._find(arg.arg, scope)
        if found == "builtin":
            return FOREIGN_TYPES
        if not isinstance(found, tuple):
            return None
        node, inside = found
        if node is function:
            return None  # a fixture asking for the one it overrides (`def client(client)`)
        return self.value(node, inside)

    def value(self, node: FunctionNode, inside: Place) -> Types:
        generator = any(isinstance(n, ast.Yield | ast.YieldFrom) for n in own_nodes(node))
        if node.returns is not None:
            declared = self.engine.annotation(node.returns, inside)
            if declared != UNKNOWN_TYPES:
                return yielded(declared) if generator else declared
        if generator:
            values = [
                self.engine.expr(n.value, inside)
                for n in own_nodes(node)
                if isinstance(n, ast.Yield) and n.value
            ]
            return or_unknown(union(*values))
        returned = [
            self.engine.expr(n.value, inside)
            for n in own_nodes(node)
            if isinstance(n, ast.Return) and n.value
        ]
        return or_unknown(union(*returned))

    def _find(self, name: str, scope: Place) -> Definition | str | None:
        owner = self._test_class(scope)
        key = (scope.path, name, owner)
        if key not in self._found:
            self._found[key] = self._search(name, scope, owner)
        return self._found[key]

    def _search(self, name: str, scope: Place, owner: str | None) -> Definition | str | None:
        code = self.engine.code
        if owner is not None:
            for statement, place in code.class_body(scope.path, owner):
                found = _fixture_named(statement, name)
                if found is not None:
                    return found, place.inner(found)
        for path in self._fixture_files(scope.path):
            _table, statements = code.module_table(path)
            for statement in statements:
                found = _fixture_named(statement, name)
                if found is not None:
                    return found, code.module_place(path).inner(found)
        return "builtin" if name in _BUILTIN else None

    def _fixture_files(self, path: str) -> list[str]:
        """The test's module, each conftest.py above it (nearest first), then the plugins they list."""
        files = [path]
        directory = posixpath.dirname(path)
        while True:
            conftest = posixpath.join(directory, "conftest.py") if directory else "conftest.py"
            if conftest != path and self.engine.code.source.has_python_file(conftest):
                files.append(conftest)
            if not directory:
                break
            directory = posixpath.dirname(directory)
        plugins = [p for f in files if f.endswith("conftest.py") for p in self._plugins(f)]
        return files + [p for p in plugins if p not in files]

    def _plugins(self, conftest: str) -> list[str]:
        """Modules a conftest names in `pytest_plugins = [...]`."""
        code = self.engine.code
        found: list[str] = []
        for bind in code.module_binds(conftest, "pytest_plugins"):
            value = bind.value
            names = (
                value.elts
                if isinstance(value, ast.List | ast.Tuple)
                else [value]
                if value is not None
                else []
            )
            for item in names:
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    path = code.source.module_path(item.value)
                    if path is not None:
                        found.append(path)
        return found

    def _test_class(self, scope: Place) -> str | None:
        if scope.unit_class is not None and len(scope.frames) == 1:
            return scope.unit_class
        if len(scope.frames) == 2 and isinstance(scope.frames[0], ast.ClassDef):
            return scope.frames[0].name
        return None

    def _parametrized(self, function: FunctionNode, name: str, outside: Place) -> Types | None:
        """The values `@pytest.mark.parametrize` lists for `name` (unknown when it lists them indirectly)."""
        for decorator in function.decorator_list:
            if (
                not isinstance(decorator, ast.Call)
                or _leaf(decorator.func) != "parametrize"
                or len(decorator.args) < 2
            ):
                continue
            names = _argnames(decorator.args[0])
            if name not in names:
                continue
            if any(k.arg == "indirect" for k in decorator.keywords):
                return UNKNOWN_TYPES
            values = decorator.args[1]
            if not isinstance(values, ast.List | ast.Tuple):
                return UNKNOWN_TYPES
            position = names.index(name)
            found: list[Types] = []
            for item in values.elts:
                parts = _listed(item, len(names))
                if parts is None:
                    return UNKNOWN_TYPES
                found.append(self.engine.expr(parts[position], outside))
            return or_unknown(union(*found))
        return None


def is_fixture(function: FunctionNode) -> bool:
    return any(
        _leaf(d.func if isinstance(d, ast.Call) else d) in ("fixture", "yield_fixture")
        for d in function.decorator_list
    )


def _fixture_named(statement: ast.stmt, name: str) -> FunctionNode | None:
    if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) or not is_fixture(statement):
        return None
    for decorator in statement.decorator_list:
        if isinstance(decorator, ast.Call):
            for keyword in decorator.keywords:
                if keyword.arg == "name" and isinstance(keyword.value, ast.Constant):
                    return statement if keyword.value.value == name else None
    return statement if statement.name == name else None


def _leaf(node: ast.expr) -> str:
    chain = dotted_chain(node)
    return chain[-1] if chain else ""


def _argnames(node: ast.expr) -> list[str]:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return [n.strip() for n in node.value.split(",") if n.strip()]
    if isinstance(node, ast.List | ast.Tuple):
        return [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)]
    return []


def _listed(item: ast.expr, count: int) -> list[ast.expr] | None:
    """The values one entry of a parametrize list gives each name (`pytest.param(a, b, id=...)` lists
    them as its arguments)."""
    if isinstance(item, ast.Call) and _leaf(item.func) == "param":
        parts = list(item.args)
    elif count > 1 and isinstance(item, ast.Tuple | ast.List):
        parts = list(item.elts)
    else:
        parts = [item]
    return parts if len(parts) == count and not any(isinstance(p, ast.Starred) for p in parts) else None
