"""What an `isinstance` test proves about a name, and where: inside the code the test guards, and after an
`if` chain whose every way through either leaves the name narrowed, rebinds it, or leaves the function.
"""

from __future__ import annotations

import ast
import itertools

from prscope.analysis.intel.infer.frames import FunctionNode, own_nodes
from prscope.analysis.intel.scopes import isinstance_calls, leaves_block

Guard = tuple[tuple[int, int], tuple[int, int], ast.expr]
"""Where a test holds, first and last (line, column), with the test: an `if` body, the rest of the
function after an `assert`, the operands after it in an `and`, a conditional expression's first branch."""

_LINE_END = 1 << 30


class IsinstanceTests:
    """What the `isinstance` tests of a function prove where a name is read, each function's tests listed
    once per inference (a big function's names are read many times)."""

    def __init__(self) -> None:
        self._guards: dict[int, list[Guard]] = {}
        self._exclusions: dict[int, list[Guard]] = {}

    def proven(self, frame: ast.AST, name: str, read: tuple[int, int]) -> ast.expr | None:
        """The class a test proves the name holds where it is read: an `if` body, an `assert` before it in
        the same function, the operands after it in an `and`, the branch of a conditional expression."""
        if not read[0] or not isinstance(frame, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        guards = self._guards.get(id(frame))
        if guards is None:
            guards = self._guards[id(frame)] = guards_of(frame)
        found: ast.expr | None = None
        for first, last, test in guards:
            if first <= read <= last:
                found = isinstance_class(test, name) or found
        return found

    def ruled_out(self, frame: ast.AST, name: str, read: tuple[int, int]) -> list[ast.expr]:
        """The classes a test known false where the name is read proves it is not an instance of."""
        if not read[0] or not isinstance(frame, ast.FunctionDef | ast.AsyncFunctionDef):
            return []
        exclusions = self._exclusions.get(id(frame))
        if exclusions is None:
            exclusions = self._exclusions[id(frame)] = exclusions_of(frame)
        return [
            cls
            for first, last, test in exclusions
            if first <= read <= last
            for cls in excluded_classes(test, name)
        ]


def guards_of(frame: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Guard]:
    guards: list[Guard] = []
    for node in own_nodes(frame):
        if isinstance(node, ast.If) and node.body:
            end = max(getattr(s, "end_lineno", s.lineno) or s.lineno for s in node.body)
            guards.append(((node.body[0].lineno, 0), (end, _LINE_END), node.test))
        elif isinstance(node, ast.Assert):
            guards.append(((node.lineno + 1, 0), (frame.end_lineno or node.lineno + 1, _LINE_END), node.test))
        elif isinstance(node, ast.BoolOp) and isinstance(node.op, ast.And):
            last = _end(node.values[-1])
            guards.extend((_start(after), last, test) for test, after in itertools.pairwise(node.values))
        elif isinstance(node, ast.IfExp):
            guards.append((_start(node.body), _end(node.body), node.test))
    return guards


def exclusions_of(frame: ast.FunctionDef | ast.AsyncFunctionDef) -> list[Guard]:
    """Where an `isinstance` test is known false, with the test: the `else` of `if isinstance(x, C)` or of
    a conditional expression testing it, and the body of `if not isinstance(x, C)`. Only a test that is
    the `isinstance` call alone (or several joined by `or`) proves the name is none of the classes."""
    found: list[Guard] = []
    for node in own_nodes(frame):
        if isinstance(node, ast.If) and node.orelse and _only_isinstance(node.test):
            end = max(getattr(s, "end_lineno", s.lineno) or s.lineno for s in node.orelse)
            found.append(((node.orelse[0].lineno, 0), (end, _LINE_END), node.test))
        elif isinstance(node, ast.If) and (negated := _negated(node.test)) is not None:
            end = max(getattr(s, "end_lineno", s.lineno) or s.lineno for s in node.body)
            found.append(((node.body[0].lineno, 0), (end, _LINE_END), negated))
        elif isinstance(node, ast.IfExp) and _only_isinstance(node.test):
            found.append((_start(node.orelse), _end(node.orelse), node.test))
    return found


def _negated(test: ast.expr) -> ast.expr | None:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and _only_isinstance(test.operand):
        return test.operand
    return None


def _only_isinstance(test: ast.expr) -> bool:
    if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.Or):
        return all(_only_isinstance(value) for value in test.values)
    return bool(isinstance_calls(test)) and isinstance(test, ast.Call)


def excluded_classes(test: ast.expr, name: str) -> list[ast.expr]:
    """The classes a test known false proves `name` is not an instance of."""
    found: list[ast.expr] = []
    tests = test.values if isinstance(test, ast.BoolOp) else [test]
    for checked, classes in (call for one in tests for call in isinstance_calls(one)):
        if checked == name:
            found.extend(classes.elts if isinstance(classes, ast.Tuple) else [classes])
    return found


def _start(node: ast.expr) -> tuple[int, int]:
    return node.lineno, node.col_offset


def _end(node: ast.expr) -> tuple[int, int]:
    return node.end_lineno or node.lineno, node.end_col_offset or _LINE_END


def isinstance_class(test: ast.expr, name: str) -> ast.expr | None:
    for checked, classes in isinstance_calls(test):
        if checked != name:
            continue
        if not isinstance(classes, ast.Tuple):
            return classes
        if classes.elts:
            return _union(classes.elts)
    return None


def _union(classes: list[ast.expr]) -> ast.expr:
    """`A | B | ...`, an annotation the inference reads as any of them."""
    union = classes[0]
    for other in classes[1:]:
        union = ast.BinOp(left=union, op=ast.BitOr(), right=other)
    return union


Chain = tuple[int, int, ast.expr]
"""An `if` chain of a function's own body that lets earlier values of a name through only narrowed: its
first and last line, and the class it proves."""


def narrowing_chains(frame: FunctionNode, name: str) -> list[Chain]:
    """The `if` chains of the function's own body through which a value of `name` bound before them goes
    on only narrowed, in order. yarl's `URL.__init__`: `if isinstance(val, str): val = urlsplit(val)` /
    `elif isinstance(val, SplitResult): pass` / `else: raise TypeError(...)`: the parameter reaches what
    follows only as a SplitResult. Such a chain sits in the function's own body, so every way from an
    earlier binding to a later read goes through it."""
    chains: list[Chain] = []
    for statement in frame.body:
        if isinstance(statement, ast.If):
            narrowed = _through_chain(statement, name)
            if narrowed is not None:
                chains.append((statement.lineno, statement.end_lineno or statement.lineno, narrowed))
    return chains


def _through_chain(node: ast.If, name: str) -> ast.expr | None:
    """The class a value of `name` from before the chain holds after it, when every branch that lets it
    through proves one by its `isinstance` test (or, for the final `else`, by the last test's `not
    isinstance`); None when some way through leaves it as it was."""
    classes: list[ast.expr] = []
    current = node
    while True:
        if not (leaves_block(current.body) or _rebinds_outright(current.body, name)):
            proved = isinstance_class(current.test, name)
            if proved is None:
                return None
            classes.append(proved)
        if len(current.orelse) == 1 and isinstance(current.orelse[0], ast.If):
            current = current.orelse[0]
            continue
        break
    final = current.orelse
    if not (final and (leaves_block(final) or _rebinds_outright(final, name))):
        negated = current.test
        if not (isinstance(negated, ast.UnaryOp) and isinstance(negated.op, ast.Not)):
            return None
        proved = isinstance_class(negated.operand, name)
        if proved is None:
            return None
        classes.append(proved)
    return _union(classes) if classes else None


def _rebinds_outright(body: list[ast.stmt], name: str) -> bool:
    """A statement of the branch itself (not one nested in it) assigns the name: nothing of the old
    value goes on."""
    for statement in body:
        if isinstance(statement, ast.Assign):
            targets = statement.targets
        elif isinstance(statement, ast.AnnAssign) and statement.value is not None:
            targets = [statement.target]
        else:
            continue
        if any(_is_name(target, name) for target in targets):
            return True
    return False


def _is_name(node: ast.expr, name: str) -> bool:
    return isinstance(node, ast.Name) and node.id == name
