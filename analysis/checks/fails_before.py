"""Whether a line follows, in its block, a statement that always raises, and raised at the PR's parent as
well: nothing after it ever ran, before the PR or since.

Two failures are certain enough to tell, each about repository code the PR did not touch:
- a call of a repository class or function whose signature rejects it (daphne 01f174bf: every test
  builds `HTTPFactory(channel_layer, send_channel=...)` first, when `HTTPFactory.__init__(self, server)`
  takes one argument);
- an attribute of a repository module that neither the module nor its parent revision spells (sanic
  13d5a442's `run_asgi` example calls `response.write(...)`, which `sanic.response` never had).

A call, in a file the PR left alone, of a repository function or class whose definition at the parent
always stopped on a NameError failed there too, whatever the PR made of the definition (backtrader
7f9447e052 mends `Trade.__init__`, which read a `historyon` nothing bound, and every test built a `Trade`
first).

One level further: a call of a repository function whose own body always gets to such a failure
(daphne's `_run_through_daphne` helper) always raises too; a method of a class whose `__init__` always
fails never runs, nor does a test method whose class's `setUp` always fails.

A file never imports, so nothing in it runs, when its import-time code (its module-level statements and
the bodies of its classes) gets to such a failure, or imports from a repository module a name the module
lacks now and at the parent: construct 5914423ffe's `formats/` and `protocols/` modules, half ported to
an API that had already changed (`Bytes(name, 6)` against `Bytes.__init__(self, length)`).

Any exception leaves its block at once, whatever catches it, so what follows in that block never runs.
Only the expressions a statement always evaluates are read: not lambdas, comprehensions, conditional
branches or the right side of `and` / `or`.
"""

from __future__ import annotations

import ast
import io
import posixpath
import re
import tokenize
from collections.abc import Iterator
from typing import TYPE_CHECKING, TypeGuard

from prscope.analysis.checks.defs import DefInfo, ModuleDefs
from prscope.analysis.checks.parent_failures import ParentFailures
from prscope.analysis.checks.stale_patches import under_a_stale_patch
from prscope.analysis.checks.unbound_names import may_bind_unseen, unbound_on_import, unbound_on_import_of
from prscope.analysis.intel.resolve import Value, absolute_module, relative_import_folder
from prscope.analysis.intel.scopes import dotted_chain, innermost_function

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import RepoView

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_MAX_STAR_DEPTH = 4


class FailsBefore:
    """Per review, with what each function needs cached."""

    def __init__(self, view: RepoView) -> None:
        self.view = view
        self._spans: dict[tuple[str, int], list[tuple[int, int]]] = {}
        self._always: dict[tuple[str, int], bool] = {}
        self._import: dict[str, bool] = {}
        self._files: set[str] | None = None
        self._parent_failures = ParentFailures(view)
        self._stale_patch: dict[tuple[str, int], bool] = {}

    def on_import(self, path: str) -> bool:
        """Whether importing the file always fails, as it did at the PR's parent (see the module
        docstring)."""
        if path not in self._import:
            self._import[path] = self._fails_on_import(path)
        return self._import[path]

    def _fails_on_import(self, path: str) -> bool:
        module = self.view.module(path)
        tree = self.view.tree(path) if module is not None else None
        if module is None or tree is None:
            return False
        return (
            any(self._import_lacks(path, module, statement) for statement in tree.body)
            or any(
                self._raises(path, module, local, expression)
                for statements, local in _import_time_blocks(tree)
                for statement in statements
                for expression in _always_evaluated(statement)
            )
            or self._reads_unbound_as_before(path, tree)
            or self._annotation_fails_as_before(path, tree)
        )

    def _annotation_fails_as_before(self, path: str, tree: ast.Module) -> bool:
        """Whether an annotation Python evaluates on import joins a quoted name and `None` with `|`
        (`-> 'ArchiveResult' | None`), a TypeError on every Python, in a line the PR did not write
        (ArchiveBox a851ad4c87's `file_migrations.py`, which never imported). Annotations are not
        evaluated under `from __future__ import annotations`."""
        if self.view.reach.future_annotations(path):
            return False
        return any(
            _quoted_union(node) and not _written_by_the_pr(self.view, path, node)
            for statements, _local in _import_time_blocks(tree)
            for statement in statements
            for annotation in _evaluated_annotations(statement)
            for node in ast.walk(annotation)
        )

    def _reads_unbound_as_before(self, path: str, tree: ast.Module) -> bool:
        """Whether building a class of the module reads a name nothing in the module binds, and did at the
        parent too (ncclient 65c6a607db: `class HelloHandler(Listener):` with no `Listener` anywhere in the
        module; itemloaders 8b5ecc8122: `response = HtmlResponse(...)` in a test class's body), a NameError
        on import then as now. A name the PR removed is the PR's break, not this."""
        parent = self.view.parent
        text = self.view.text(path)
        if parent is None or text is None or may_bind_unseen(text):
            return False
        in_package = posixpath.join(posixpath.dirname(path), "__init__.py") in self._python_files()
        now = unbound_on_import(tree, in_package)
        if not now:
            return False
        old = parent.old_text(path) if parent.changed(path) else text
        return bool(now & unbound_on_import_of(old, in_package))

    def _python_files(self) -> set[str]:
        if self._files is None:
            self._files = set(self.view.files())
        return self._files

    def _import_lacks(self, path: str, module: str, statement: ast.stmt) -> bool:
        """A `from module import name` of a repository module that lacks the name, now and at the parent
        (a top-level statement: not under `try:`, where the ImportError may be caught)."""
        if not isinstance(statement, ast.ImportFrom) or _written_by_the_pr(self.view, path, statement):
            return False
        package = path.endswith("__init__.py")
        source = absolute_module(module, package, statement.level, statement.module)
        source_path = self.view.module_path(source) if source is not None else None
        if source is None or source_path is None or not _beside(path, statement, source_path):
            return False
        # `from module import *` asks for no name: it takes whatever the module has.
        names = [alias.name for alias in statement.names if alias.name != "*"]
        return any(self._module_lacks(Value("module", source), name) for name in names)

    def after_a_failure(self, path: str, line: int) -> bool:
        unit = self.view.index.unit_at(path, line)
        if unit is None or unit.kind not in ("function", "method", "whole"):
            return False  # module-level statements and class bodies: no function around the line
        nodes = self.view.nodes(path, line)
        if nodes is None:
            return False
        function = innermost_function(nodes.tree, line)
        if function is None:
            return False
        key = (path, function.lineno)
        if key not in self._spans:
            self._spans[key] = list(self._dead_spans(path, function))
        if any(start <= line <= end for start, end in self._spans[key]):
            return True
        if self._under_a_stale_patch(path, function):
            return True
        owner = unit.class_name if unit.kind == "method" else None
        return owner is not None and self._never_constructed(path, owner, function)

    def _under_a_stale_patch(self, path: str, function: FunctionNode) -> bool:
        """Whether the test patches an attribute the repository lacks, now and at the parent
        (`stale_patches`): it stops as it starts."""
        key = (path, function.lineno)
        if key not in self._stale_patch:
            self._stale_patch[key] = under_a_stale_patch(self.view, path, function.lineno)
        return self._stale_patch[key]

    def _never_constructed(self, path: str, owner: str, method: FunctionNode) -> bool:
        """A method of a class whose `__init__` always fails, or a test whose class's `setUp` does."""
        if method.decorator_list or method.name in ("__init__", "__new__", "setUp"):
            return False
        defs = self.view.defs(path)
        if defs is None or method.lineno != getattr(defs.defs.get(f"{owner}.{method.name}"), "line", None):
            return False
        first = ["__init__", "setUp"] if method.name.startswith("test") else ["__init__"]
        found = [defs.defs.get(f"{owner}.{name}") for name in first]
        return any(
            info is not None and info.count == 1 and self._always_fails(path, info.node)
            for info in found
            if info is not None and isinstance(info.node, FunctionNode)
        )

    def _always_fails(self, path: str, function: FunctionNode) -> bool:
        """Whether the function's own body, whenever it runs, gets to a statement that raises: one at its
        top level, with no `return` or `yield` before it."""
        key = (path, function.lineno)
        if key not in self._always:
            module = self.view.module(path)
            local = _bound_in(function)
            fails = False
            for statement in function.body if module is not None else []:
                if any(
                    self._raises(path, module or "", local, e, depth=1) for e in _always_evaluated(statement)
                ):
                    fails = True
                    break
                if _may_leave(statement):
                    break
            self._always[key] = fails
        return self._always[key]

    def _dead_spans(self, path: str, function: FunctionNode) -> Iterator[tuple[int, int]]:
        module = self.view.module(path)
        if module is None:
            return
        local = _bound_in(function)
        for block in _blocks_within(function):
            for index, statement in enumerate(block[:-1]):
                if any(self._raises(path, module, local, e) for e in _always_evaluated(statement)):
                    rest = block[index + 1 :]
                    yield rest[0].lineno, max(s.end_lineno or s.lineno for s in rest)
                    break

    def _raises(self, path: str, module: str, local: set[str], node: ast.expr, depth: int = 0) -> bool:
        chain = dotted_chain(node.func if isinstance(node, ast.Call) else node)
        if chain is None or chain[0] in local or _written_by_the_pr(self.view, path, node):
            return False
        if isinstance(node, ast.Call):
            values = self.view.names.resolver.chain_values(module, chain, None)
            if len(values) != 1:
                return False
            return (
                self._rejects(values[0], node)
                or (depth == 0 and self._fails_inside(values[0]))
                or self._failed_at_parent(path, values[0])
            )
        if len(chain) < 2:
            return False
        values = self.view.names.resolver.chain_values(module, chain[:-1], None)
        return len(values) == 1 and self._module_lacks(values[0], chain[-1])

    def _failed_at_parent(self, path: str, value: Value) -> bool:
        """A call, in a file the PR left as it was, of a repository function or class whose definition at
        the parent always stopped on a NameError (`parent_failures`): what follows it never ran there."""
        parent = self.view.parent
        return parent is not None and not parent.changed(path) and self._parent_failures.always(value)

    def _rejects(self, value: Value, call: ast.Call) -> bool:
        """A repository class (with an `__init__` of its own) or function whose one definition, untouched
        by the PR, rejects the call."""
        located = self._only_definition(value)
        if located is None:
            return False
        path, defs, found = located
        if not _keeps_the_constructor(found.node):
            return False
        if isinstance(found.node, ast.ClassDef):
            if found.node.keywords or f"{value.name}.__new__" in defs.defs:
                return False  # a metaclass or `__new__` may take the call another way
            init = defs.defs.get(f"{value.name}.__init__")
            if init is None or init.count != 1 or init.node.decorator_list:
                return False
            found, bound = init, True
        else:
            bound = False
        signature = found.signature
        if signature is None or _touched(self.view, path, found):
            return False
        return signature.for_call(bound=bound).binds(call).status == "error"

    def _fails_inside(self, value: Value) -> bool:
        """A repository function (one undecorated module-level `def`) whose body always fails."""
        located = self._only_definition(value)
        if located is None:
            return False
        path, _defs, found = located
        function = found.node
        return (
            isinstance(function, FunctionNode)
            and not function.decorator_list
            and self._always_fails(path, function)
        )

    def _only_definition(self, value: Value) -> tuple[str, ModuleDefs, DefInfo] | None:
        """The path, definitions and one definition of a module-level repository member defined once."""
        if value.kind != "member" or not value.name or "." in value.name:
            return None
        path = self.view.module_path(value.module)
        defs = self.view.defs(path) if path is not None else None
        found = defs.defs.get(value.name) if defs is not None else None
        if path is None or defs is None or found is None or found.count != 1:
            return None
        return path, defs, found

    def _module_lacks(self, value: Value, attribute: str, depth: int = 0) -> bool:
        """A repository module that binds no `attribute`, has no submodule of that name, may not gain
        names another way, and whose parent revision does not spell it either. Its star imports are
        followed when each is of a repository module (construct's `__init__.py` does `from construct.core
        import *`, and `from construct import Embed` failed at the parent: the core no longer had it)."""
        if value.kind != "module" or self.view.parent is None or depth > _MAX_STAR_DEPTH:
            return False
        if attribute.startswith("__") and attribute.endswith("__"):
            return False  # every module has `__doc__`, `__name__`, `__file__`... without spelling them
        path = self.view.module_path(value.module)
        defs = self.view.defs(path) if path is not None else None
        if path is None or defs is None or defs.module_getattr:
            return False
        if attribute in defs.module_names or self._had_submodule(path, value.module, attribute):
            return False
        old = self.view.parent.old_text(path)
        if old is None or re.search(rf"\b{re.escape(attribute)}\b", _without_comments(old)) is not None:
            return False
        if not defs.star_import:
            return True
        sources = self._star_sources(path, value.module)
        return sources is not None and all(
            self._module_lacks(Value("module", source), attribute, depth + 1) for source in sources
        )

    def _had_submodule(self, path: str, module: str, name: str) -> bool:
        """Whether the package has a submodule `name` now, or had one at the parent (the PR deleted it)."""
        if self.view.module_path(f"{module}.{name}") is not None:
            return True
        parent = self.view.parent
        if parent is None or not path.endswith("__init__.py"):
            return False
        stem = posixpath.join(posixpath.dirname(path), name)
        return parent.gone(f"{stem}.py") or parent.gone(f"{stem}/__init__.py")

    def _star_sources(self, path: str, module: str) -> list[str] | None:
        """The repository modules the file's star imports read; None when any is of another module."""
        tree = self.view.tree(path)
        if tree is None:
            return None
        sources: list[str] = []
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and any(alias.name == "*" for alias in node.names):
                source = absolute_module(module, path.endswith("__init__.py"), node.level, node.module)
                if source is None or self.view.module_path(source) is None:
                    return None
                sources.append(source)
        return sources


_CLASS_DECORATORS_KEEPING_INIT = frozenset({"implementer", "implementer_only", "total_ordering", "final"})


def _keeps_the_constructor(node: FunctionNode | ast.ClassDef) -> bool:
    """An undecorated definition, or a class under decorators that hand back the class as it is
    (zope's `@implementer(IFactory)`): a decorator may otherwise wrap the call in anything."""
    if isinstance(node, FunctionNode):
        return not node.decorator_list
    names = [dotted_chain(d.func if isinstance(d, ast.Call) else d) for d in node.decorator_list]
    return all(name is not None and name[-1] in _CLASS_DECORATORS_KEEPING_INIT for name in names)


def _beside(path: str, statement: ast.ImportFrom, source_path: str) -> bool:
    """Whether a relative import's module is the file its dots and name point at from `path` (a module
    name shared by files in folders that are no packages resolves elsewhere: pylint's doc examples)."""
    if not statement.level:
        return True
    folder = relative_import_folder(path, statement.level)
    stem = posixpath.join(folder, *(statement.module or "").split(".")) if statement.module else folder
    return source_path in (f"{stem}.py", f"{stem}/__init__.py")


def _without_comments(text: str) -> str:
    """The text with its comments blanked (a comment binds nothing: construct's `# Embed = Embedded`); the
    text as it is when it does not tokenize."""
    if "#" not in text:
        return text
    lines = text.splitlines(keepends=True)
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                row, start = token.start
                line = lines[row - 1]
                lines[row - 1] = line[:start] + " " * (token.end[1] - start) + line[token.end[1] :]
    except (tokenize.TokenError, SyntaxError, IndexError):
        return text
    return "".join(lines)


def _blocks_within(function: FunctionNode) -> Iterator[list[ast.stmt]]:
    """Every statement list in the function, not in functions or classes nested in it."""
    stack: list[ast.AST] = [function]
    while stack:
        node = stack.pop()
        for field in ("body", "orelse", "finalbody", "handlers", "cases"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            statements = [s for s in block if isinstance(s, ast.stmt)]
            if statements:
                yield statements
            stack.extend(s for s in block if not isinstance(s, FunctionNode | ast.ClassDef))


def _import_time_blocks(tree: ast.Module) -> Iterator[tuple[list[ast.stmt], set[str]]]:
    """The statements Python always runs on import, with the names bound where they run that are not the
    module's: the module's own statements, and those of its classes' bodies (classes nested in classes
    too). Blocks under `if`, `try`, `with` or a loop may not run, or may have their failure caught."""
    yield tree.body, set()
    classes = [s for s in tree.body if isinstance(s, ast.ClassDef)]
    while classes:
        node = classes.pop()
        yield node.body, _bound_in(node)
        classes.extend(s for s in node.body if isinstance(s, ast.ClassDef))


def _always_evaluated(statement: ast.stmt) -> Iterator[ast.expr]:
    """The calls and attribute reads the statement evaluates whenever it runs."""
    if isinstance(statement, ast.Expr | ast.Assign | ast.AnnAssign | ast.AugAssign | ast.Return):
        roots = [statement.value] if statement.value is not None else []
    elif isinstance(statement, ast.With | ast.AsyncWith):
        roots = [item.context_expr for item in statement.items]
    else:
        roots = []
    stack: list[ast.expr] = list(roots)
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            yield node
            stack.extend(_argument_values(node))
            stack.append(node.func)
        elif isinstance(node, ast.Attribute):
            yield node
            stack.append(node.value)
        elif isinstance(node, ast.Await | ast.Starred):
            stack.append(node.value)
        elif isinstance(node, ast.Tuple | ast.List):
            stack.extend(node.elts)
        elif isinstance(node, ast.BoolOp):
            stack.append(node.values[0])


def _evaluated_annotations(statement: ast.stmt) -> list[ast.expr]:
    """The annotations Python evaluates when the statement runs: a function's (at its `def`) and a
    module's or class body's own variable annotations."""
    if isinstance(statement, ast.AnnAssign):
        return [statement.annotation]
    if not isinstance(statement, FunctionNode):
        return []
    arguments = statement.args
    every = [
        *arguments.posonlyargs,
        *arguments.args,
        arguments.vararg,
        *arguments.kwonlyargs,
        arguments.kwarg,
    ]
    found = [argument.annotation for argument in every if argument is not None and argument.annotation]
    return found + ([statement.returns] if statement.returns is not None else [])


def _quoted_union(node: ast.AST) -> TypeGuard[ast.BinOp]:
    """`'Name' | None`, `None | 'Name'` or `'A' | 'B'`: neither `str` nor `None` takes the other in `|`."""
    if not isinstance(node, ast.BinOp) or not isinstance(node.op, ast.BitOr):
        return False
    sides = [node.left, node.right]
    if not all(
        isinstance(side, ast.Constant) and (side.value is None or isinstance(side.value, str))
        for side in sides
    ):
        return False
    return any(isinstance(side, ast.Constant) and isinstance(side.value, str) for side in sides)


def _may_leave(statement: ast.stmt) -> bool:
    """Whether the statement may return or yield (its nested functions aside)."""
    stack: list[ast.AST] = [statement]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Return | ast.Yield | ast.YieldFrom):
            return True
        if not isinstance(node, FunctionNode | ast.ClassDef | ast.Lambda) or node is statement:
            stack.extend(ast.iter_child_nodes(node))
    return False


def _argument_values(call: ast.Call) -> list[ast.expr]:
    return [*call.args, *(keyword.value for keyword in call.keywords)]


def _bound_in(function: FunctionNode | ast.ClassDef) -> set[str]:
    """Every name the function (or class body) binds or declares (parameters, targets, imports, `global`):
    such a name is not read from the module."""
    arguments = function.args if isinstance(function, FunctionNode) else None
    bound = {a.arg for a in ast.walk(arguments) if isinstance(a, ast.arg)} if arguments else set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            bound.add(node.id)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, ast.Global | ast.Nonlocal):
            bound.update(node.names)
        elif isinstance(node, FunctionNode | ast.ClassDef) and node is not function:
            bound.add(node.name)
    return bound


def _written_by_the_pr(view: RepoView, path: str, node: ast.expr | ast.stmt) -> bool:
    added = view.added_lines.get(path, set())
    return any(line in added for line in range(node.lineno, (node.end_lineno or node.lineno) + 1))


def _touched(view: RepoView, path: str, found: DefInfo) -> bool:
    """Whether the PR may have changed the definition's parameters (then the call may have fitted them at
    the parent): its header is not written the same in the parent's text."""
    if path not in view.added_lines and not (view.parent and view.parent.changed(path)):
        return False
    old = view.parent.old_text(path) if view.parent is not None else None
    node = found.node
    first = node.body[0].lineno if node.body else node.lineno
    header = "\n".join(view.line_text(path, line) for line in range(node.lineno, max(first, node.lineno + 1)))
    return old is None or header not in old
