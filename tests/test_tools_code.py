"""find_symbol, find_usages and get_signature over the CodeIndex, on a real package.

The package has re-exports, relative imports, TYPE_CHECKING imports, same-name methods on different
classes, a file with a syntax error, and a symlinked module that points outside the repository.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest
from prscope.analysis.tools.base import ToolCall, ToolContext, ToolExecutor, ToolResult
from prscope.analysis.tools.registry import default_registry, make_tool_context

from tests.gitrepo import GitRepo

SHAPES = '''"""Shapes."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .canvas import Canvas


class Circle:
    """A round shape.

    More detail here.
    """

    def __init__(self, radius: float) -> None:
        self.radius = radius

    def area(self) -> float:
        """Area of the circle."""
        return 3.14 * self.radius**2

    def draw(self, canvas: Canvas) -> None:
        canvas.paint(self)


class Square:
    def __init__(self, side: float) -> None:
        self.side = side

    def area(self) -> float:
        return self.side**2


def total_area(shapes: list[Circle | Square], *, scale: float = 1.0) -> float:
    """Sum of the areas."""
    return sum(s.area() for s in shapes) * scale
'''

CANVAS = """from . import shapes
from .shapes import total_area as ta


class Canvas:
    def paint(self, shape: shapes.Circle) -> None:
        self.last = shape

    def summary(self) -> float:
        return ta([shapes.Circle(1.0)])
"""

APP = """from pkg import Circle, Square
from pkg.shapes import total_area


def main() -> None:
    c = Circle(2.0)
    b = Square(1).area()
    print(total_area([c]), b)
"""


@pytest.fixture
def repo(git_repo: GitRepo, tmp_path: Path) -> GitRepo:
    pytest.importorskip("prscope.analysis.intel.index")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "leak.py").write_text(
        "from pkg import Circle\n\nLEAKED = Circle(9)\n\n\ndef Circle_helper():\n    pass\n"
    )
    git_repo.write(
        "pkg/__init__.py", 'from .shapes import Circle, Square\n\n__all__ = ["Circle", "Square"]\n'
    )
    git_repo.write("pkg/shapes.py", SHAPES)
    git_repo.write("pkg/canvas.py", CANVAS)
    git_repo.write("app.py", APP)
    git_repo.write("broken.py", "from pkg import Circle\n\ndef oops(:\n    Circle(1)\n")
    git_repo.write("notes.txt", "Circle\n")
    os.symlink(outside / "leak.py", git_repo.root / "leak.py")
    git_repo.commit("init")
    return git_repo


@pytest.fixture
def ctx(repo: GitRepo) -> ToolContext:
    return make_tool_context(repo.root)


def call(ctx: ToolContext, tool: str, /, **arguments: Any) -> ToolResult:
    return asyncio.run(ToolExecutor(default_registry(), ctx).execute(ToolCall("t", tool, arguments)))


def test_find_symbol_class(ctx: ToolContext) -> None:
    result = call(ctx, "find_symbol", name="Circle")
    assert not result.is_error, result.content
    lines = result.content.splitlines()
    assert lines[0] == "1 definitions of 'Circle'"
    assert lines[1] == "pkg/shapes.py:11  class pkg.shapes.Circle"
    assert any("A round shape." in line for line in lines[2:])


def test_find_symbol_same_name_methods_and_qualnames(ctx: ToolContext) -> None:
    both = call(ctx, "find_symbol", name="area").content
    assert "pkg/shapes.py:20  method pkg.shapes.Circle.area" in both
    assert "pkg/shapes.py:32  method pkg.shapes.Square.area" in both
    one = call(ctx, "find_symbol", name="Square.area").content
    assert "Square.area" in one and "Circle.area" not in one
    dotted = call(ctx, "find_symbol", name="pkg.shapes.total_area").content
    assert "pkg/shapes.py:36  function pkg.shapes.total_area" in dotted


def test_find_symbol_pages_and_misses(ctx: ToolContext) -> None:
    paged = call(ctx, "find_symbol", name="area", max_results=1).content
    assert "call find_symbol with offset=1 for more" in paged
    missing = call(ctx, "find_symbol", name="NoSuchThing")
    assert not missing.is_error and missing.content.startswith("no definition of 'NoSuchThing' found in")


def test_find_symbol_ignores_modules_outside_the_sandbox(ctx: ToolContext) -> None:
    assert "leak.py" not in call(ctx, "find_symbol", name="Circle_helper").content


def test_find_usages_of_a_class_across_reexports_and_relative_imports(ctx: ToolContext) -> None:
    result = call(ctx, "find_usages", symbol="pkg.shapes.Circle")
    assert not result.is_error, result.content
    content = result.content
    assert "references to pkg.shapes.Circle in " in content.splitlines()[0]
    assert "app.py  (" in content
    assert "pkg/__init__.py  (" in content
    assert "pkg/canvas.py  (" in content
    assert "c = Circle(2.0)" in content
    assert "return ta([shapes.Circle(1.0)])" in content
    assert "leak.py" not in content and "LEAKED" not in content
    assert "notes.txt" not in content
    assert "broken.py" in content  # named as not parsed, with no invented references


def test_find_usages_of_a_function_through_an_alias(ctx: ToolContext) -> None:
    content = call(ctx, "find_usages", symbol="pkg.shapes.total_area").content
    assert "print(total_area([c]), b)" in content
    assert "from .shapes import total_area as ta" in content
    assert "return ta([shapes.Circle(1.0)])" in content


def test_find_usages_of_a_method_marks_probable_receivers(ctx: ToolContext) -> None:
    content = call(ctx, "find_usages", symbol="pkg.shapes.Circle.area").content
    assert "(probable)" in content
    assert "return sum(s.area() for s in shapes) * scale" in content
    assert "b = Square(1).area()" not in content


def test_find_usages_scope_and_paging(ctx: ToolContext) -> None:
    scoped = call(ctx, "find_usages", symbol="pkg.shapes.Circle", path="pkg").content
    assert "app.py  (" not in scoped and "pkg/canvas.py  (" in scoped
    paged = call(ctx, "find_usages", symbol="pkg.shapes.Circle", max_results=1).content
    assert "call find_usages with offset=1 for more, or pass path= to look at one directory" in paged
    refused = call(ctx, "find_usages", symbol="pkg.shapes.Circle", path="../elsewhere")
    assert refused.is_error and "escapes the repository" in refused.content


def test_get_signature_at_a_location(ctx: ToolContext) -> None:
    content = call(ctx, "get_signature", path="pkg/shapes.py", line=22).content
    assert content.splitlines() == [
        "pkg/shapes.py:20  method pkg.shapes.Circle.area  (lines 20-22)",
        "    def area(self) -> float",
        "  docstring:",
        "    Area of the circle.",
    ]
    klass = call(ctx, "get_signature", path="pkg/shapes.py", line=12).content
    assert klass.splitlines()[:3] == [
        "pkg/shapes.py:11  class pkg.shapes.Circle  (lines 11-25)",
        "    class Circle",
        "  docstring:",
    ]
    assert "    More detail here." in klass


def test_get_signature_by_name(ctx: ToolContext) -> None:
    content = call(ctx, "get_signature", name="total_area").content
    assert "    def total_area(shapes: list[Circle | Square], *, scale: float=1.0) -> float" in content
    both = call(ctx, "get_signature", name="area").content
    assert "Circle.area" in both and "Square.area" in both and "(no docstring)" in both


def test_get_signature_errors(ctx: ToolContext) -> None:
    module_level = call(ctx, "get_signature", path="pkg/shapes.py", line=5)
    assert module_level.is_error and "not inside a function or class" in module_level.content
    assert "is not a Python file" in call(ctx, "get_signature", path="notes.txt", line=1).content
    broken = call(ctx, "get_signature", path="broken.py", line=3).content
    assert (
        broken
        == "Error: broken.py could not be parsed: syntax error at line 3: invalid syntax; read_file shows it"
    )
    neither = call(ctx, "get_signature")
    assert neither.is_error and "give either path and line, or name" in neither.content
    assert "refused" in call(ctx, "get_signature", path="leak.py", line=1).content


@pytest.mark.parametrize("name", ["a\x00b", ".*", "--output=x", "[[[", "pkg..Cart", "-e"])
def test_names_that_are_not_python_names_are_refused_clearly(ctx: ToolContext, name: str) -> None:
    for tool, argument in (("find_symbol", "name"), ("find_usages", "symbol"), ("get_signature", "name")):
        result = call(ctx, tool, **{argument: name})
        assert result.is_error, (tool, name)
        assert result.content.startswith(f"Error: {name!r} is not a Python name"), result.content


def test_find_usages_through_a_type_checking_import(ctx: ToolContext) -> None:
    content = call(ctx, "find_usages", symbol="pkg.canvas.Canvas").content
    lines = content.splitlines()
    assert lines[0].startswith("2 references to pkg.canvas.Canvas in 1 files"), content
    assert lines[-3:] == [
        "pkg/shapes.py  (2)",
        "  8:25 import  from .canvas import Canvas",
        "  24:28 annotation  def draw(self, canvas: Canvas) -> None:",
    ]


def test_find_usages_names_the_syntax_error_file_it_could_not_parse(ctx: ToolContext) -> None:
    content = call(ctx, "find_usages", symbol="pkg.shapes.Circle").content
    assert "not parsed (syntax errors): broken.py" in content
    assert "broken.py  (" not in content
