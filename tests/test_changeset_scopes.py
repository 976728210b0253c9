"""Scope names for lines of Python source: whole-file parse for small files, windows for large ones."""

from __future__ import annotations

from prscope.analysis.changeset.scopes import FULL_PARSE_LINES, WINDOW_LINES, ScopeIndex, SourceScopes


def big_source() -> str:
    parts = ["import os", "", "CONSTANT = 1", ""]
    parts += ["@decorator(", "    option=True,", ")", "def decorated(x):", "    return x", ""]
    parts += ["class Big(Base):", '    """A class longer than a window."""', "", "    attribute = 1", ""]
    for n in range(WINDOW_LINES // 8 + 10):
        parts += [
            "    @property",
            f"    def method_{n}(self):",
            f"        value = {n}",
            "        return value",
            "",
        ]
        if n == 5:
            parts += ["    class Inner:", "        def inner_method(self):", "            return 0", ""]
    parts += [
        "",
        "def with_docstring():",
        '    text = """',
        "def not_real():",
        '    pass"""',
        "    return text",
        "",
    ]
    while len(parts) < FULL_PARSE_LINES + 200:
        number = len(parts)
        parts += [f"def filler_{number}():", f"    return {number}", ""]
    return "\n".join(parts) + "\n"


def test_windowed_labels_agree_with_a_whole_file_parse() -> None:
    source = big_source()
    lines = source.split("\n")
    assert len(lines) > FULL_PARSE_LINES
    whole = ScopeIndex.parse(source)
    assert whole is not None
    windowed = SourceScopes(source)
    unknown = []
    for number in range(1, len(lines)):
        got = windowed.labels([number])
        if got is None:
            unknown.append(number)
            continue
        expected = whole.label_at(number)
        assert got == ([expected] if expected else []), (number, lines[number - 1])
    # Only the function whose string holds a column-0 "def" is left unknown (never mislabelled).
    assert unknown
    assert all(lines[n - 1] in {"def with_docstring():", '    text = """'} for n in unknown[:2])
    assert len(unknown) <= 6


def test_labels_in_a_big_class_name_the_member_and_nested_class() -> None:
    source = big_source()
    lines = source.split("\n")
    scopes = SourceScopes(source)
    line_of = {text: index + 1 for index, text in enumerate(lines)}
    assert scopes.labels([line_of["        value = 7"]]) == ["def Big.method_7"]
    assert scopes.labels([line_of["            return 0"]]) == ["def Big.Inner.inner_method"]
    assert scopes.labels([line_of["    attribute = 1"]]) == ["class Big"]
    assert scopes.labels([line_of["    option=True,"]]) == ["def decorated"]
    assert scopes.labels([line_of["CONSTANT = 1"]]) == []


def test_small_files_parse_whole_and_syntax_errors_are_unknown() -> None:
    assert SourceScopes("def f():\n    return 1\n").labels([2]) == ["def f"]
    assert SourceScopes("def f(:\n    return 1\n").labels([2]) is None
    assert SourceScopes("x = 1\n").labels([]) == []
