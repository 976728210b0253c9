"""Private functions nothing refers to: a `_helper` whose name the repository spells only where it is
defined never runs (pandas-datareader 91d09a0834 rewrote the only callers of `Options._option_from_url`
and `_get_option_data` and left both in place). A stale reference inside one breaks nothing anyone sees.
So does a private name spelled only where it is defined and inside functions of that same name (gym
387f14d381's wrappers' `_configure` handing on to their inner environment's, once `Env._configure` and
its one caller are gone), and a test module's function whose name no test runner collects (Theano's
`speed_fusion_gpu` benchmark method in `test_opt.py`).

Cautious on purpose: the name must be private (`_name`, not `__dunder__` nor a `_sunder_` hook a framework
calls by convention), undecorated (a decorator may register it), spelled nowhere else as a word (comments,
strings and `__all__` included), in a file that looks nothing up by a name it computes: `dir(self)`,
`__dict__`, `vars()`, `globals()`, or a `getattr` whose name may spell it (`getattr(self, "_on_" + kind)`
may reach `_on_close`; pandas-datareader's `getattr(self, frame_name)` after `frame_name = "_frames" +
...` reaches no `_get_option_data`)."""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from prscope.analysis.checks.computed_attributes import name_pattern, names_attribute

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import RepoView

_PRIVATE = re.compile(r"_[A-Za-z0-9]\w*")
# Names test runners call by themselves, lowercased: unittest's and pytest's set-up and tear-down
# (`setUp`, `setup_method`, `teardown_module`, `asyncSetUp`) by prefix; `runTest`, `run`, `debug` whole.
_RUNNER_HOOK_PREFIXES = ("setup", "teardown", "asyncsetup", "asyncteardown")
_RUNNER_HOOKS = frozenset({"run", "runtest", "debug", "id", "shortdescription", "counttestcases"})
_LOOKS_UP_BY_NAME = re.compile(
    r"\b(?:dir|vars|globals|getmembers)\s*\(|__dict__|__getattr|^\S.*\blocals\s*\(", re.M
)
_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef


def may_hold_uncalled(text: str) -> bool:
    """A cheap test of the file's text, asked once per file: it may define a private function and looks
    nothing up by `dir`, `vars`, `globals`, `__dict__`... (`locals()` on an indented line reads a
    function's own variables, as Theano's `"..." % locals()` does, not the module's functions)."""
    return "_" in text and _LOOKS_UP_BY_NAME.search(text) is None


def in_uncalled_private_function(view: RepoView, path: str, line: int) -> bool:
    """Whether the line is in the body of a private function (or method) nothing refers to, in a file
    `may_hold_uncalled` accepted."""
    text = view.text(path)
    if text is None:
        return False
    nodes = view.nodes(path, line)
    if nodes is None:
        return False
    return any(
        _body_holds(function, line) and _uncalled(view, path, text, function)
        for function in ast.walk(nodes.tree)
        if isinstance(function, _FunctionNode)
    )


def _body_holds(function: ast.FunctionDef | ast.AsyncFunctionDef, line: int) -> bool:
    return function.body[0].lineno <= line <= (function.end_lineno or function.lineno)


def _uncalled(view: RepoView, path: str, text: str, function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    name = function.name
    private = _PRIVATE.fullmatch(name) is not None and not name.endswith("_")
    if function.decorator_list or not (private or _never_collected(view, path, name)):
        return False
    files = view.files_with_word(name)
    if files == [path] and len(re.findall(rf"\b{re.escape(name)}\b", text)) == 1:
        return not _may_look_up(view, path, text, name)
    return path in files and all(_only_delegations(view, other, name) for other in files)


def _never_collected(view: RepoView, path: str, name: str) -> bool:
    """Whether a function of that name in that file runs only when called: a test module's function or
    method that no test runner the project may use collects (`ProjectTools.collects_function`) and that is
    no hook a runner calls (`setUp`, `setup_method`...): Theano's `speed_fusion_gpu` benchmark in
    `test_opt.py`; Flask-User 1247cee698's `do_test_all_possible_config_combinations`, run by pytest."""
    file = posixpath.basename(path).lower()
    if not (file.startswith("test_") or file.endswith(("_test.py", "_tests.py")) or file == "tests.py"):
        return False
    lowered = name.lower()
    return (
        not view.reach.tools.collects_function(name)
        and not lowered.startswith(("test", *_RUNNER_HOOK_PREFIXES))
        and lowered not in _RUNNER_HOOKS
        and not name.startswith("__")
    )


def _may_look_up(view: RepoView, path: str, text: str, name: str) -> bool:
    """Whether a `getattr` of the file may spell the name."""
    if "getattr" not in text:
        return False
    lookups = view.tree_memo.answer(path, "computed getattr names", _all_computed_lookups)
    return any(pattern.fullmatch(name) for pattern in lookups or [])


def _only_delegations(view: RepoView, path: str, name: str) -> bool:
    """Whether the file spells the name only as undecorated `def name` and inside the bodies of functions
    of that name (an override handing on to another object's: gym 387f14d381 dropped `Env._configure`,
    and the wrappers' `_configure` calling `self.cartpole._configure(...)` is all that is left of it):
    nothing else calls it, so none of them runs."""
    text = view.text(path)
    tree = view.tree(path)
    if text is None or tree is None or not may_hold_uncalled(text) or _may_look_up(view, path, text, name):
        return False
    spelled = len(re.findall(rf"\b{re.escape(name)}\b", text))
    accounted = 0
    for function in ast.walk(tree):
        if not isinstance(function, _FunctionNode) or function.name != name:
            continue
        if function.decorator_list:
            return False
        accounted += 1 + sum(_spells(node, name) for node in ast.walk(function) if node is not function)
    return accounted == spelled


def _spells(node: ast.AST, name: str) -> bool:
    return (isinstance(node, ast.Attribute) and node.attr == name) or (
        isinstance(node, ast.Name) and node.id == name
    )


def _all_computed_lookups(tree: ast.Module) -> list[re.Pattern[str]]:
    return list(_computed_lookups(tree))


def _computed_lookups(tree: ast.Module) -> Iterator[re.Pattern[str]]:
    """The names each `getattr(obj, <computed>)` of the module may spell; a name read from a variable
    spells what every assignment of it in the function around may hold (anything when unknown)."""
    anything = re.compile(".*", re.S)
    for scope in ast.walk(tree):
        if not isinstance(scope, _FunctionNode | ast.Module):
            continue
        for call in _own_getattr_calls(scope):
            named = call.args[1]
            if isinstance(named, ast.Constant):
                continue
            if not isinstance(named, ast.Name):
                yield name_pattern(named)
                continue
            values = _assigned(scope, named.id)
            if values is None:
                yield anything
            else:
                yield from (name_pattern(value) for value in values)


def _own_getattr_calls(scope: ast.AST) -> Iterator[ast.Call]:
    stack = list(ast.iter_child_nodes(scope))
    while stack:
        node = stack.pop()
        if isinstance(node, _FunctionNode | ast.Lambda | ast.ClassDef):
            continue  # its own scope, walked on its own
        if names_attribute(node, "getattr"):
            assert isinstance(node, ast.Call)
            yield node
        stack.extend(ast.iter_child_nodes(node))


def _assigned(scope: ast.AST, variable: str) -> list[ast.expr] | None:
    """The values plain assignments give the variable in the scope; None when anything else binds it
    (a parameter, a loop, an augmented assignment) or nothing does."""
    if isinstance(scope, _FunctionNode) and variable in {
        a.arg for a in ast.walk(scope.args) if isinstance(a, ast.arg)
    }:
        return None
    plain = [
        node
        for node in ast.walk(scope)
        if isinstance(node, ast.Assign) and any(_names(target, variable) for target in node.targets)
    ]
    targets = {id(target) for node in plain for target in node.targets}
    stores = [
        node
        for node in ast.walk(scope)
        if isinstance(node, ast.Name) and node.id == variable and isinstance(node.ctx, ast.Store | ast.Del)
    ]
    if any(id(store) not in targets for store in stores):
        return None
    return [node.value for node in plain] or None


def _names(target: ast.expr, variable: str) -> bool:
    return isinstance(target, ast.Name) and target.id == variable
