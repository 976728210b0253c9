"""Instance attributes installed under computed names: a method calling `setattr(self, <expression>,
...)` with a name the class chooses itself (PyPSA's `StatisticPlotter.__init__` installs a chart method per
entry of `CHART_TYPES`; `Network.__init__` sets `setattr(self, cls.list_name + "_t", ...)` for every
component). Such instances may have a name their class body never spells. A name the caller chooses
(`for k, v in kwargs.items(): setattr(self, k, v)`) is not counted: it holds whatever the caller passed."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import RepoView

_ANY = ".*"
_ON_SELF = re.compile(r"\bsetattr\(\s*self\s*,")


def installs_name_on_instances(node: ast.ClassDef, name: str) -> bool:
    """Whether a method of the class installs attributes on `self` under computed names `name` fits."""
    return any(pattern.fullmatch(name) for pattern in _computed_patterns(node))


def set_on_other_instances(view: RepoView, name: str, exclude_classes: set[str]) -> bool:
    """Whether a class outside `exclude_classes` (dotted) installs attributes on its instances under
    computed names with a spelled part that `name` fits (`list_name + "_t"`): a receiver of unknown type
    may be one of those instances."""
    exclude = exclude_classes | {view.names.canonical(c) for c in exclude_classes}
    for path in view.files_with_word("setattr"):
        if not _ON_SELF.search(view.text(path) or ""):
            continue
        module, _ = view.index.file_module(path)
        for qualname, patterns in view.tree_memo.answer(path, "spelled self names", _spelled_patterns) or []:
            if f"{module}.{qualname}" not in exclude and any(p.fullmatch(name) for p in patterns):
                return True
    return False


def _spelled_patterns(tree: ast.Module) -> list[tuple[str, list[re.Pattern[str]]]]:
    """(qualname, patterns) of the module's classes that install names with a spelled part on `self`.
    Only those tell: `setattr(self, key, value)` over the class's own table may set any name, and
    sqlalchemy has such a class (a read of `query(...).from_self()` would then never be reported)."""
    found = []
    for qualname, node in _classes(tree.body, ""):
        patterns = [p for p in _computed_patterns(node) if _spells_part(p)]
        if patterns:
            found.append((qualname, patterns))
    return found


def _spells_part(pattern: re.Pattern[str]) -> bool:
    return bool(pattern.pattern.replace(_ANY, ""))


def _classes(body: list[ast.stmt], prefix: str) -> Iterator[tuple[str, ast.ClassDef]]:
    for statement in body:
        if isinstance(statement, ast.ClassDef):
            qualname = f"{prefix}{statement.name}"
            yield qualname, statement
            yield from _classes(statement.body, f"{qualname}.")


def _computed_patterns(node: ast.ClassDef) -> Iterator[re.Pattern[str]]:
    for method in node.body:
        if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        positional = [*method.args.posonlyargs, *method.args.args]
        if not positional:
            continue
        own = positional[0].arg
        parameters = {a.arg for a in [*positional[1:], *method.args.kwonlyargs]}
        parameters |= {a.arg for a in (method.args.vararg, method.args.kwarg) if a is not None}
        loops = _loop_sources(method)
        for call in ast.walk(method):
            if not names_attribute(call, "setattr"):
                continue
            assert isinstance(call, ast.Call)
            if not (isinstance(call.args[0], ast.Name) and call.args[0].id == own):
                continue
            named = call.args[1]
            if isinstance(named, ast.Constant) or _chosen_by_caller(named, parameters, loops):
                continue
            yield name_pattern(named)


def names_attribute(node: ast.AST, builtin: str) -> bool:
    """Whether the node is a call `builtin(obj, name, ...)` (`getattr`, `setattr`)."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == builtin
        and len(node.args) >= 2
    )


def _loop_sources(method: ast.AST) -> dict[str, set[str]]:
    """The names each loop variable of the method is drawn from (`for k in kwargs:` -> {k: {kwargs}})."""
    sources: dict[str, set[str]] = {}
    for loop in ast.walk(method):
        if isinstance(loop, ast.For | ast.AsyncFor | ast.comprehension):
            drawn = {n.id for n in ast.walk(loop.iter) if isinstance(n, ast.Name)}
            for target in ast.walk(loop.target):
                if isinstance(target, ast.Name):
                    sources.setdefault(target.id, set()).update(drawn)
    return sources


def _chosen_by_caller(named: ast.expr, parameters: set[str], loops: dict[str, set[str]]) -> bool:
    """Whether the name expression reads a parameter, directly or through a loop over one."""
    read = {n.id for n in ast.walk(named) if isinstance(n, ast.Name)}
    seen: set[str] = set()
    while read - seen:
        current = (read - seen).pop()
        seen.add(current)
        if current in parameters:
            return True
        read |= loops.get(current, set())
    return False


def name_pattern(named: ast.expr) -> re.Pattern[str]:
    """The names an expression can spell: its literal parts kept (`x + "_t"` -> `.*_t`), the rest any."""
    return re.compile("".join(_parts(named)))


def _parts(node: ast.expr) -> Iterator[str]:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        yield from _parts(node.left)
        yield from _parts(node.right)
    elif isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield re.escape(node.value)
    elif isinstance(node, ast.JoinedStr):
        for value in node.values:
            yield from _parts(value) if isinstance(value, ast.Constant) else iter([_ANY])
    else:
        yield _ANY
