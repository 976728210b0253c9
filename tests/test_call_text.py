"""Reading a method call from its text alone (the breaking-call check's quick filter of call sites), and
finding the names spelled before `.__init__`."""

from __future__ import annotations

import ast

import pytest
from prscope.analysis.checks.call_text import call_from_text
from prscope.analysis.checks.sites import _names_before_init


def _arguments(source: str, line: int, col: int, name: str) -> str | None:
    call = call_from_text(source.splitlines(), line, col, name)
    return None if call is None else ast.unparse(call)


def test_a_call_over_several_lines_with_brackets_in_strings_and_comments() -> None:
    source = (
        "def test(self):\n"
        "    self.assert_compile(\n"
        "        select(t).where(t.c.x == 5),  # a comment with ) and (\n"
        '        "SELECT count(*) FROM t WHERE (t.x = :x_1",\n'
        "        '''a ( triple\n"
        "        quoted ] string''',\n"
        "        dialect=d,\n"
        "    )\n"
        "    other()\n"
    )
    found = _arguments(source, 2, 9, "assert_compile")
    assert found == (
        "_.assert_compile(select(t).where(t.c.x == 5), 'SELECT count(*) FROM t WHERE (t.x = :x_1', "
        "'a ( triple\\n        quoted ] string', dialect=d)"
    )


def test_escaped_quotes_prefixed_strings_and_nested_brackets() -> None:
    source = 'x.send(f"{a[0]}\\" )", rb\'\\\'(\', {"k": [1, (2,)]}, *rest, **kw)\n'
    assert _arguments(source, 1, 2, "send") == (
        "_.send(f'{a[0]}\" )', b\"\\\\'(\", {'k': [1, (2,)]}, *rest, **kw)"
    )


def test_only_the_first_call_of_a_chain_is_read() -> None:
    assert _arguments("obj.make(1)(2).run()\n", 1, 4, "make") == "_.make(1)"


@pytest.mark.parametrize(
    ("source", "col", "name"),
    [
        ("handler = obj.callback\n", 14, "callback"),  # a reference, not a call
        ("obj.call(1,\n", 4, "call"),  # never closed
        ("obj.call(1, ']\n", 4, "call"),  # a string never closed
        ("obj.call(1]\n", 4, "call"),  # brackets that do not pair
        ("obj.other(1)\n", 4, "call"),  # not the name asked for
        ("obj.call(1, 2 +)\n", 4, "call"),  # not Python
    ],
)
def test_text_that_is_not_such_a_call_gives_nothing(source: str, col: int, name: str) -> None:
    assert _arguments(source, 1, col, name) is None


def test_the_names_before_init_across_spaces_and_lines() -> None:
    text = (
        "Base.__init__(self)\nsuper(A, self).__init__()\nMixin . __init__(self)\n"
        "(Other\n  .__init__)\nx__init__\n"
    )
    assert _names_before_init(text) == {"Base", "Mixin", "Other"}
