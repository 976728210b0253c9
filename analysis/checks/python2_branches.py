"""Code that only Python 2 runs: the `else:` of `if PY3:`, the body of `if six.PY2:` or of
`if sys.version_info[0] == 2:`. There a name Python 2 has as a builtin (`unicode`, `basestring`,
`xrange`) is always bound, whatever the module defined for Python 3 (pexpect a4b8165d removes
`if PY3: unicode = str` and keeps `unicode(s)` in the Python 2 branch of its tests)."""

from __future__ import annotations

import ast
import re

PYTHON2_BUILTINS = frozenset({
    "unicode", "basestring", "long", "xrange", "raw_input", "unichr", "reduce", "file", "cmp", "buffer",
    "apply", "intern", "coerce", "reload", "StandardError", "execfile",
})  # fmt: skip

_PY3_FLAG = re.compile(r"^_*(?:IS_)?PY(?:THON)?_?3K?$", re.I)
_PY2_FLAG = re.compile(r"^_*(?:IS_)?PY(?:THON)?_?2\d?$", re.I)
_VERSION_WORDS = ("version_info", "PY2", "PY3", "py2", "py3", "PYTHON2", "PYTHON3")


def may_branch_on_python2(text: str) -> bool:
    """A cheap text test before any parse: the file names a version flag or `version_info`."""
    return any(word in text for word in _VERSION_WORDS)


def python2_only_spans(tree: ast.AST) -> list[tuple[int, int]]:
    """(first, last) line of each block that runs only under Python 2."""
    spans: list[tuple[int, int]] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.If | ast.IfExp):
            continue
        major = _major_tested(node.test)
        block = node.body if major == 2 else node.orelse if major == 3 else None
        if isinstance(block, ast.expr):
            spans.append((block.lineno, block.end_lineno or block.lineno))
        elif block:
            spans.append((block[0].lineno, max(s.end_lineno or s.lineno for s in block)))
    return spans


def _major_tested(test: ast.expr) -> int | None:
    """3 when the test is true exactly on Python 3, 2 when exactly on Python 2, else None."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = _major_tested(test.operand)
        return None if inner is None else 5 - inner
    flag = test.id if isinstance(test, ast.Name) else test.attr if isinstance(test, ast.Attribute) else None
    if flag is not None:
        return 3 if _PY3_FLAG.match(flag) else 2 if _PY2_FLAG.match(flag) else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1 and is_version_info(test.left):
        return _compared_major(test.left, test.ops[0], test.comparators[0])
    return None


def is_version_info(node: ast.expr) -> bool:
    """`sys.version_info`, `version_info`, their `[0]`, `[:1]`, `[:2]` or `.major`."""
    if isinstance(node, ast.Subscript | ast.Attribute) and (
        isinstance(node, ast.Subscript) or node.attr == "major"
    ):
        node = node.value
    return (isinstance(node, ast.Name) and node.id == "version_info") or (
        isinstance(node, ast.Attribute) and node.attr == "version_info"
    )


def _compared_major(left: ast.expr, op: ast.cmpop, right: ast.expr) -> int | None:
    """The major version the comparison selects, when it splits 2 from 3 exactly (`>= (3, 6)` does not:
    its `else` also runs Python 3.5)."""
    whole = isinstance(left, ast.Name) or (isinstance(left, ast.Attribute) and left.attr == "version_info")
    if whole:
        bound = _tuple_major(right)
        return _WHOLE_TESTS.get((type(op), bound)) if bound is not None else None
    if isinstance(right, ast.Constant) and isinstance(right.value, int):
        return _MAJOR_TESTS.get((type(op), right.value))
    return None


_MAJOR_TESTS: dict[tuple[type[ast.cmpop], int], int] = {
    (ast.GtE, 3): 3, (ast.Gt, 2): 3, (ast.Eq, 3): 3, (ast.NotEq, 2): 3,
    (ast.Eq, 2): 2, (ast.NotEq, 3): 2, (ast.Lt, 3): 2, (ast.LtE, 2): 2,
}  # fmt: skip
"""`version_info[0] <op> <int>` (or `.major`): which major version it is true on."""
_WHOLE_TESTS: dict[tuple[type[ast.cmpop], int], int] = {(ast.GtE, 3): 3, (ast.Gt, 3): 3, (ast.Lt, 3): 2}
"""`version_info <op> (3,)` or `(3, 0)`: `(3, 0, 1, ...) > (3,)` holds on every Python 3."""


def _tuple_major(node: ast.expr) -> int | None:
    """`3` for `(3,)` or `(3, 0)`: a bound that splits on the major version alone."""
    if not isinstance(node, ast.Tuple) or not node.elts:
        return None
    values = [e.value for e in node.elts if isinstance(e, ast.Constant) and isinstance(e.value, int)]
    if len(values) != len(node.elts) or any(v != 0 for v in values[1:]):
        return None
    return values[0]
