"""What a check read from a file's tree is kept with that very tree for the check run, within a bound."""

from __future__ import annotations

import ast

from prscope.analysis.checks.tree_memo import TreeMemo


def test_answers_are_kept_with_their_tree_and_the_oldest_are_dropped() -> None:
    parsed: list[str] = []
    sources = {"a.py": "x = 1\n", "b.py": "def f(): pass\n", "bad.py": "def (\n"}

    def tree(path: str) -> ast.Module | None:
        parsed.append(path)
        try:
            return ast.parse(sources[path])
        except SyntaxError:
            return None

    memo = TreeMemo(tree, limit=2)
    first = memo.read("a.py", "names", lambda t: [type(n).__name__ for n in t.body])
    again = memo.read("a.py", "names", lambda t: ["not asked"])
    assert first is again and first is not None and first[1] == ["Assign"]
    assert memo.read("bad.py", "names", lambda t: []) is None
    assert memo.read("bad.py", "names", lambda t: []) is None  # a file that does not parse: asked once
    assert parsed == ["a.py", "bad.py"]
    memo.read("b.py", "names", lambda t: [])  # the third answer: the oldest (a.py) goes
    memo.read("a.py", "names", lambda t: [])
    assert parsed == ["a.py", "bad.py", "b.py", "a.py"]
