"""Whether a stale reference can break anything anyone sees. Precision first: a reference that never runs
matters only to a type checker, so it is reported only where the project runs one on that file; a file
the project keeps as data (its tools are told to leave it alone, or its own top-level code reads a name
nothing binds, and nothing imports it) is not code.

Never runs: whatever sits in an `if TYPE_CHECKING:` block, and annotations Python does not evaluate (in a
module with `from __future__ import annotations`, or written as a string). Nothing runs either after a
`return`, `raise`, `continue` or `break` in the same block (type checkers skip it too), nor in a private
function nothing refers to (`uncalled`), nor in a block only Pythons older than the project's declared
minimum run (`old_pythons`), nor under an `if` whose test is always false (`false_flags`). Expected
to fail:
a test marked `@unittest.expectedFailure` or `@pytest.mark.xfail` (without a condition, not
`strict=True`), whose failure nobody sees.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from collections.abc import Iterator
from typing import TYPE_CHECKING

from prscope.analysis.checks.fails_before import FailsBefore
from prscope.analysis.checks.false_flags import may_hold_false_flags, never_entered_spans
from prscope.analysis.checks.old_pythons import may_gate_on_version, older_pythons_only
from prscope.analysis.checks.project_tools import ProjectTools
from prscope.analysis.checks.python2_branches import (
    PYTHON2_BUILTINS,
    may_branch_on_python2,
    python2_only_spans,
)
from prscope.analysis.checks.unbound_names import may_bind_unseen, unbound_top_level_read
from prscope.analysis.checks.uncalled import in_uncalled_private_function, may_hold_uncalled
from prscope.analysis.intel.scopes import LEAVING

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import RepoView, Site

_FUTURE_ANNOTATIONS = re.compile(
    r"^from[ \t]+__future__[ \t]+import[ \t]+(?:\([^)]*\bannotations\b[^)]*\)|[^\n]*\bannotations\b)", re.M
)
_DEF = re.compile(r"^([ \t]*(?:async[ \t]+)?def[ \t]+\w+)", re.M)
_WORD_CHAR = re.compile(r"\w")
_TYPE_CHECKING_TESTS = frozenset({"TYPE_CHECKING", "typing.TYPE_CHECKING", "t.TYPE_CHECKING"})


class Reach:
    """Per review: which references the checks keep quiet about, with what each file needs cached."""

    def __init__(self, view: RepoView, tools: ProjectTools) -> None:
        self.view = view
        self.tools = tools
        self._spans: dict[str, list[tuple[int, int]]] = {}
        self._future: dict[str, bool] = {}
        self._data: dict[str, bool] = {}
        self._dead: dict[int, tuple[ast.Module, list[tuple[int, int]]]] = {}
        """Per parsed part (keyed by its tree, which the entry keeps alive): the lines that never run."""
        self._twice: dict[str, set[str]] = {}
        """Per file: the `def` heads (indentation and name) written more than once."""
        self._replaced: dict[str, list[tuple[int, int]]] = {}
        self._python2: dict[str, list[tuple[int, int]]] = {}
        self._older: dict[str, list[tuple[int, int]]] = {}
        self._may_hold_uncalled: dict[str, bool] = {}
        self._false: dict[str, list[tuple[int, int]]] = {}
        self._shadowed: dict[str, bool] = {}
        self.fails_before = FailsBefore(view)
        """Lines after a statement that always raises (and raised at the PR's parent)."""

    def silent(self, site: Site) -> bool:
        """Whether `site` is a reference nobody would see break (see the module docstring)."""
        unevaluated = site.annotation and (site.in_string or self.future_annotations(site.path))
        return self.silent_at(site.path, site.line, unevaluated=unevaluated) or self.expected_to_fail(site)

    def expected_to_fail(self, site: Site) -> bool:
        """Whether the site is in a test marked to fail (aiopg ca92b759 comments `Cursor.cast` out and adds
        an `@unittest.expectedFailure` test that calls it)."""
        text = self.view.text(site.path) or ""
        if "expectedFailure" not in text and "xfail" not in text:
            return False
        nodes = self.view.nodes(site.path, site.line)
        if nodes is None:
            return False
        return any(
            isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
            and node.lineno <= site.line <= (node.end_lineno or node.lineno)
            and any(_marks_expected_failure(d) for d in node.decorator_list)
            for node in ast.walk(nodes.tree)
        )

    def silent_at(self, path: str, line: int, *, unevaluated: bool = False) -> bool:
        if self.data_file(path) or self.unreachable(path, line) or self.dead_at_parent(path):
            return True
        if self.shadowed_by_a_package(path):
            return True
        if self.older_pythons_only(path, line) or self.never_entered(path, line):
            return True
        if self.fails_before.on_import(path) or self.in_uncalled_function(path, line):
            return True
        never_runs = unevaluated or self.under_type_checking(path, line)
        return never_runs and not self.tools.type_checked(path)

    def in_uncalled_function(self, path: str, line: int) -> bool:
        """Whether the line is in a private function nothing refers to (`uncalled`); the file's text is
        tested once, not once per site."""
        if path not in self._may_hold_uncalled:
            self._may_hold_uncalled[path] = may_hold_uncalled(self.view.text(path) or "")
        return self._may_hold_uncalled[path] and in_uncalled_private_function(self.view, path, line)

    def dead_at_parent(self, path: str) -> bool:
        """Whether the file already failed on import at the PR's parent, and still does (a rewrite under
        way: channels e7def7c2)."""
        parent = self.view.parent
        return parent is not None and parent.dead_at_parent(path)

    def python2_builtin_there(self, site: Site) -> bool:
        """Whether the site reads a name Python 2 has as a builtin, in a block only Python 2 runs."""
        if not isinstance(site.node, ast.Name) or site.node.id not in PYTHON2_BUILTINS:
            return False
        if site.path not in self._python2:
            text = self.view.text(site.path) or ""
            tree = self.view.tree(site.path) if may_branch_on_python2(text) else None
            self._python2[site.path] = python2_only_spans(tree) if tree is not None else []
        return any(start <= site.line <= end for start, end in self._python2[site.path])

    def older_pythons_only(self, path: str, line: int) -> bool:
        """Whether the line is in a block only Pythons older than the project's minimum run."""
        minimum = self.view.minimum_python
        if minimum is None:
            return False
        if path not in self._older:
            text = self.view.text(path) or ""
            tree = self.view.tree(path) if may_gate_on_version(text) else None
            self._older[path] = older_pythons_only(tree, minimum) if tree is not None else []
        return any(start <= line <= end for start, end in self._older[path])

    def never_entered(self, path: str, line: int) -> bool:
        """Whether the line is in the body of an `if` whose test is always false (`false_flags`)."""
        if path not in self._false:
            text = self.view.text(path) or ""
            tree = self.view.tree(path) if may_hold_false_flags(text) and not may_bind_unseen(text) else None
            self._false[path] = (
                never_entered_spans(tree, lambda name: self.view.files_with_word(name) != [path])
                if tree is not None
                else []
            )
        return any(start <= line <= end for start, end in self._false[path])

    def under_type_checking(self, path: str, line: int) -> bool:
        return any(start <= line <= end for start, end in self._type_checking_spans(path))

    def future_annotations(self, path: str) -> bool:
        if path not in self._future:
            self._future[path] = bool(_FUTURE_ANNOTATIONS.search(self.view.text(path) or ""))
        return self._future[path]

    def data_file(self, path: str) -> bool:
        """A file the project's configuration keeps its tools away from, that no other file imports:
        test data read as text, a fixture project for the tests to run a tool on."""
        if path not in self._data:
            # Whether another file imports it is asked first: it costs a word lookup, while
            # `_fails_on_import` parses the whole file.
            self._data[path] = not self._imported(path) and (
                self.tools.left_alone(path) or self._fails_on_import(path)
            )
        return self._data[path]

    def shadowed_by_a_package(self, path: str) -> bool:
        """Whether a package of the module's name sits beside the module (`tests/__init__.py` beside
        `tests.py`): an import finds the package, never the file, and a file with no `__main__` block is
        not run as a script either (django-queued-storage d391c6c5b8 added `queued_storage/tests/` and
        left the old `tests.py` in place)."""
        if path not in self._shadowed:
            folder, _, name = path.rpartition("/")
            stem = name.removesuffix(".py")
            package = f"{folder}/{stem}/__init__.py" if folder else f"{stem}/__init__.py"
            self._shadowed[path] = (
                name.endswith(".py")
                and stem != "__init__"
                and self.view.has_file(package)
                and "__main__" not in (self.view.text(path) or "")
            )
        return self._shadowed[path]

    def _fails_on_import(self, path: str) -> bool:
        """Whether a file among the tests that pytest would not collect reads, in its own top-level code,
        a name nothing binds, so importing or running it stops there with a NameError (pycodestyle's
        `testsuite/E72.py` starts `if type(res) == type(42):`: a case the tool's tests read as text).
        Elsewhere such a read is more likely a bug of the file than a sign that it is data."""
        folders = path.split("/")[:-1]
        if not any(folder.startswith("test") for folder in folders) or self.tools.collected_name(path):
            return False
        text = self.view.text(path) or ""
        if may_bind_unseen(text):
            return False
        tree = self.view.tree(path)
        return tree is not None and unbound_top_level_read(tree)

    def _imported(self, path: str) -> bool:
        """Whether another file's imports name the module's last part (a cheap test that errs towards
        yes: any such file may import it)."""
        module = self.view.module(path)
        if module is None:
            return False
        leaf = module.rsplit(".", 1)[-1]
        return any(
            other != path and self.view.imports_word(other, leaf) for other in self.view.files_with_word(leaf)
        )

    def unreachable(self, path: str, line: int) -> bool:
        """Whether the line follows a `return`, `raise`, `continue` or `break` of its own block (pdoc
        d59bb5e0 stubs a function with `return None, None  # FIXME` above the old body)."""
        nodes = self.view.nodes(path, line)  # the part around the line, parsed for the site anyway
        if nodes is None:
            return False
        key = id(nodes.tree)
        if key not in self._dead:
            self._dead[key] = (nodes.tree, _dead_spans(nodes.tree))
        if any(start <= line <= end for start, end in self._dead[key][1]) or self.replaced(path, line):
            return True
        return self.fails_before.after_a_failure(path, line)

    def replaced(self, path: str, line: int) -> bool:
        """Whether the line is in a function a later `def` of the same name in the same block replaces.
        The file is parsed whole only when a function around the line is defined twice at its indentation."""
        text = self.view.text(path) or ""
        if path not in self._twice:
            counts = Counter(_DEF.findall(text))
            self._twice[path] = {head for head, count in counts.items() if count > 1}
        twice = self._twice[path]
        if not twice:
            return False
        lines = text.splitlines()
        enclosing = [(index, head) for index, head in _enclosing_defs(lines, line) if head in twice]
        if not any(_written_again_in_block(lines, index, head) for index, head in enclosing):
            return False  # the other defs of the name are in other classes or blocks: no whole parse
        if path not in self._replaced:
            spans: list[tuple[int, int]] = []
            tree = self.view.tree(path)
            for node in ast.walk(tree) if tree is not None else ():
                for block in _blocks_of(node):
                    spans.extend((f.lineno, f.end_lineno or f.lineno) for f in _replaced_functions(block))
            self._replaced[path] = spans
        return any(start <= line <= end for start, end in self._replaced[path])

    def _type_checking_spans(self, path: str) -> list[tuple[int, int]]:
        """(first, last) line of each `if TYPE_CHECKING:` body (its `else:` runs)."""
        if path not in self._spans:
            spans: list[tuple[int, int]] = []
            if "TYPE_CHECKING" in (self.view.text(path) or ""):
                tree = self.view.tree(path)
                for node in ast.walk(tree) if tree is not None else ():
                    if isinstance(node, ast.If) and node.body and _is_type_checking(node.test):
                        last = max(n.end_lineno or n.lineno for n in node.body)
                        spans.append((node.body[0].lineno, last))
            self._spans[path] = spans
        return self._spans[path]


def _dead_spans(tree: ast.Module) -> list[tuple[int, int]]:
    """(first, last) line of the statements after the first one that leaves its block, in every block."""
    spans: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        for block in _blocks_of(node):
            leaving = next((i for i, s in enumerate(block) if isinstance(s, LEAVING)), None)
            if leaving is not None and leaving + 1 < len(block):
                after = block[leaving + 1 :]
                spans.append((after[0].lineno, max(s.end_lineno or s.lineno for s in after)))
    return spans


def _enclosing_defs(lines: list[str], line: int) -> list[tuple[int, str]]:
    """(index, `    def name`) of each `def` line above `line` that is less indented than everything
    between (the functions the line may sit in)."""
    heads: list[tuple[int, str]] = []
    width = len(lines[line - 1]) - len(lines[line - 1].lstrip()) if 0 < line <= len(lines) else 0
    for index in range(min(line - 1, len(lines)) - 1, -1, -1):
        text = lines[index]
        stripped = text.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        indent = len(text) - len(stripped)
        if indent < width:
            width = indent
            match = _DEF.match(text)
            if match is not None:
                heads.append((index, match.group(1)))
            if indent == 0:
                break
    return heads


def _written_again_in_block(lines: list[str], index: int, head: str) -> bool:
    """Whether the `def` head on line `index` is written again below it before its block ends (a line
    indented less), by text: the cheap test before the file is parsed whole."""
    indent = len(head) - len(head.lstrip())
    for text in lines[index + 1 :]:
        stripped = text.lstrip()
        if not stripped or stripped.startswith("#"):
            continue
        width = len(text) - len(stripped)
        if width < indent:
            return False
        if width == indent and text.startswith(head) and not _WORD_CHAR.match(text, len(head)):
            return True
    return False


def _blocks_of(node: ast.AST) -> Iterator[list[ast.stmt]]:
    for field in ("body", "orelse", "finalbody"):
        block = getattr(node, field, None)
        if isinstance(block, list):
            yield block


def _replaced_functions(block: list[ast.stmt]) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """Undecorated functions that a later `def` of the same name in the block replaces before anything
    reads the name (GitPython 5d186859 keeps a first `_set_cache_` above the one that wins): never
    called. A later def decorated with the name (`@f.setter`, `@f.register`) builds on the first."""
    replaced: list[ast.FunctionDef | ast.AsyncFunctionDef] = []
    functions = Counter(s.name for s in block if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef))
    for index, statement in enumerate(block):
        if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) or statement.decorator_list:
            continue
        if functions[statement.name] < 2:
            continue  # no later def of the name: the scan below would walk the rest of the block for nothing
        for later in block[index + 1 :]:
            if isinstance(later, ast.FunctionDef | ast.AsyncFunctionDef) and later.name == statement.name:
                if not any(statement.name in _names_read(d) for d in later.decorator_list):
                    replaced.append(statement)
                break
            if statement.name in _names_read(later):
                break
    return replaced


def _names_read(node: ast.AST) -> set[str]:
    return {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}


def _is_type_checking(test: ast.expr) -> bool:
    try:
        return ast.unparse(test) in _TYPE_CHECKING_TESTS
    except (ValueError, TypeError, RecursionError):
        return False


def _marks_expected_failure(decorator: ast.expr) -> bool:
    """`@unittest.expectedFailure`, `@expectedFailure`, `@pytest.mark.xfail(...)` with no condition and
    not `strict=True`."""
    call = decorator if isinstance(decorator, ast.Call) else None
    target = call.func if call is not None else decorator
    name = target.attr if isinstance(target, ast.Attribute) else getattr(target, "id", "")
    if name == "expectedFailure":
        return True
    if name != "xfail":
        return False
    if call is None:
        return True
    if call.args or any(k.arg == "condition" for k in call.keywords):
        return False  # expected to fail only where its condition holds (flask: `xfail(on PyPy)`)
    strict = next((k.value for k in call.keywords if k.arg == "strict"), None)
    return not (isinstance(strict, ast.Constant) and strict.value is True)
