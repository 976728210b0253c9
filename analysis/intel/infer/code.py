"""Reading the parts of files the inference looks into: the part holding a line (its tree positioned in
the file), a function's `def`, a class's body, a module's top-level statements. Each part is parsed once
per inference (one check run or one query), so the nodes the inference memoises on stay alive.
"""

from __future__ import annotations

import ast
import re
from typing import Protocol

from prscope.analysis.intel.infer.frames import (
    Bind,
    FunctionNode,
    Place,
    ScopeTable,
    enclosing_frames,
    functions_named,
    scope_table,
)
from prscope.analysis.intel.infer.values import Func
from prscope.analysis.intel.resolve import Value
from prscope.analysis.intel.units import Unit

_MAX_PARSED_LINES = 200_000
"""Lines of code one inference may parse (one check run or query): past it, what is left is unknown."""


class CodeSource(Protocol):
    """What the inference reads from the code index."""

    def unit_at(self, path: str, line: int) -> Unit | None: ...
    def unit_tree(self, path: str, line: int) -> tuple[Unit, ast.Module] | None: ...
    def file_module(self, path: str) -> tuple[str, bool]: ...
    def module_path(self, module: str) -> str | None: ...
    def source(self, path: str) -> str | None: ...
    def file_units(self, path: str) -> list[Unit]: ...
    def has_python_file(self, path: str) -> bool: ...


class CodeReader:
    def __init__(self, source: CodeSource) -> None:
        self.source = source
        self._parts: dict[tuple[str, int, int, str], tuple[Unit, ast.Module] | None] = {}
        self._parsed_lines = 0
        self._tables: dict[int, ScopeTable] = {}
        self._module_tables: dict[str, tuple[ScopeTable, list[ast.stmt]]] = {}
        self._lines: dict[str, list[str]] = {}

    def part(self, path: str, line: int) -> tuple[Unit, ast.Module] | None:
        unit = self.source.unit_at(path, line)
        if unit is None:
            return None
        # Keyed by the unit's whole extent: a file whose part did not parse alone is split again into one
        # `whole` unit that starts where its first part did.
        key = (path, unit.start, unit.end, unit.kind)
        if key not in self._parts:
            if self._parsed_lines >= _MAX_PARSED_LINES:
                return None  # the inference's budget of parsed code is spent: say nothing more
            found = self.source.unit_tree(path, line)
            self._parts[key] = found
            if found is not None:
                self._parsed_lines += found[0].end - found[0].start
        return self._parts[key]

    def place(self, path: str, unit: Unit, frames: tuple[ast.AST, ...]) -> Place:
        module, is_package = self.source.file_module(path)
        unit_class = unit.class_name if unit.kind == "method" else None
        return Place(path, module, is_package, frames, unit_class)

    def line_text(self, path: str, line: int) -> str:
        lines = self._lines.get(path)
        if lines is None:
            text = self.source.source(path) or ""
            lines = self._lines[path] = text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def table(self, frame: ast.AST) -> ScopeTable:
        key = id(frame)
        if key not in self._tables:
            self._tables[key] = scope_table(frame)
        return self._tables[key]

    def attribute_at(self, path: str, line: int, col: int, word: str) -> tuple[ast.Attribute, Place] | None:
        """The `<expr>.word` whose name starts at (line, col) (0-based code points), with its place."""
        found = self.part(path, line)
        if found is None:
            return None
        unit, tree = found
        text = self.line_text(path, line)
        for node in ast.walk(tree):
            if not (isinstance(node, ast.Attribute) and node.attr == word and node.end_lineno == line):
                continue
            if _name_column(text, node.end_col_offset, word) == col:
                frames = enclosing_frames(tree, node)
                if frames is not None:
                    return node, self.place(path, unit, frames)
        return None

    def call_at(self, path: str, line: int, col: int, word: str) -> tuple[ast.Call, Place] | None:
        """The call whose callee is `word` (a name or `<expr>.word`) starting at (line, col)."""
        found = self.part(path, line)
        if found is None:
            return None
        unit, tree = found
        text = self.line_text(path, line)
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Attribute) and func.attr == word and func.end_lineno == line:
                start = _name_column(text, func.end_col_offset, word)
            elif isinstance(func, ast.Name) and func.id == word and func.lineno == line:
                start = _byte_to_char(text, func.col_offset)
            else:
                continue
            if start == col:
                frames = enclosing_frames(tree, node)
                if frames is not None:
                    return node, self.place(path, unit, frames)
        return None

    def function(self, func: Func) -> tuple[FunctionNode, Place] | None:
        """A function's `def` and the place inside it (its own scope innermost)."""
        found = self.part(func.path, func.line)
        if found is None:
            return None
        unit, tree = found
        for node in functions_named(tree, func.line):
            if node.name == func.name:
                frames = enclosing_frames(tree, node)
                if frames is not None:
                    return node, self.place(func.path, unit, (*frames, node))
        return None

    def class_units(self, path: str, name: str) -> list[Unit] | None:
        """The parts of a top-level class (its header, then each method), without parsing them; None for a
        class defined in a function or a file parsed whole (read those with `class_body`)."""
        units = [u for u in self.source.file_units(path) if u.class_name == name]
        if not units or any(u.kind == "whole" for u in units):
            return None
        return units

    def unit_text(self, path: str, unit: Unit) -> str:
        self.line_text(path, 1)  # reads the file's lines once
        return "\n".join(self._lines.get(path, [])[unit.start : unit.end])

    def unit_statements(self, path: str, unit: Unit, name: str) -> list[tuple[ast.stmt, Place]] | None:
        """The class-body statements one part of class `name` holds, each with the place of the class
        scope; None when the part cannot be read (or its file fell back to one tree)."""
        found = self.part(path, unit.start + 1)
        if found is None or found[0].kind == "whole":
            return None
        parsed, tree = found
        if parsed.kind == "class-header":
            owner = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
            if owner is None:
                return []
            place = self.place(path, parsed, (owner,))
            return [(s, place) for s in owner.body if not _added_pass(s, parsed)]
        place = self.place(path, parsed, ())
        return [(s, place) for s in tree.body]

    def class_body(self, path: str, name: str) -> list[tuple[ast.stmt, Place]]:
        """The statements of a top-level class (from its header and each method's part), or of a class
        defined once inside a function, each with the place of the class scope."""
        units = [u for u in self.source.file_units(path) if u.class_name == name and u.kind != "whole"]
        if not units:
            return self._local_class_body(path, name)
        body: list[tuple[ast.stmt, Place]] = []
        for unit in units:
            found = self.part(path, unit.start + 1)
            if found is None:
                return []
            parsed, tree = found
            if parsed.kind == "whole":
                return self._class_in_tree(path, parsed, tree, name)
            if parsed.kind == "class-header":
                owner = next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
                if owner is not None:
                    place = self.place(path, parsed, (owner,))
                    body.extend((s, place) for s in owner.body if not _added_pass(s, parsed))
            else:
                place = self.place(path, parsed, ())
                body.extend((s, place) for s in tree.body)
        return body

    def _class_in_tree(
        self, path: str, unit: Unit, tree: ast.Module, name: str
    ) -> list[tuple[ast.stmt, Place]]:
        owner = next(
            (n for n in _top_level(tree.body) if isinstance(n, ast.ClassDef) and n.name == name), None
        )
        if owner is None:
            return []
        place = self.place(path, unit, (owner,))
        return [(s, place) for s in owner.body]

    def _local_class_body(self, path: str, name: str) -> list[tuple[ast.stmt, Place]]:
        """The body of `Name@line` (a class made inside a function), or of the file's one local `Name`."""
        bare, _, at = name.partition("@")
        line = int(at) if at.isdigit() else self.local_class_line(path, bare)
        found = self.part(path, line) if line is not None else None
        if found is None:
            return []
        unit, tree = found
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and node.name == bare and node.lineno == line:
                frames = enclosing_frames(tree, node)
                if frames is not None:
                    place = self.place(path, unit, (*frames, node))
                    return [(s, place) for s in node.body]
        return []

    def local_class_line(self, path: str, name: str) -> int | None:
        """The line of the one indented `class name` of the file (None when there are none or several)."""
        text = self.source.source(path) or ""
        pattern = re.compile(rf"^[ \t]+class[ \t]+{re.escape(name)}\b", re.MULTILINE)
        starts = [m.start() for m in pattern.finditer(text)]
        if len(starts) != 1:
            return None
        return text.count("\n", 0, starts[0]) + 1

    def module_table(self, path: str) -> tuple[ScopeTable, list[ast.stmt]]:
        """How the module's top-level statements bind names (functions and classes included)."""
        if path not in self._module_tables:
            statements: list[ast.stmt] = []
            for unit in self.source.file_units(path):
                if unit.kind not in ("module", "whole", "function", "class-header"):
                    continue
                found = self.part(path, unit.start + 1)
                if found is not None:
                    statements.extend(s for s in found[1].body if not _added_pass(s, found[0]))
            holder = ast.Module(body=statements, type_ignores=[])
            table = ScopeTable()
            scratch = ast.FunctionDef(name="<module>", args=_NO_ARGS, body=statements, decorator_list=[])
            for name, binds in scope_table(scratch).names.items():
                for bind in binds:
                    table.add(name, bind)
            self._module_tables[path] = (table, holder.body)
        return self._module_tables[path]

    def module_binds(self, path: str, name: str) -> list[Bind]:
        return self.module_table(path)[0].names.get(name, [])

    def module_place(self, path: str) -> Place:
        module, is_package = self.source.file_module(path)
        return Place(path, module, is_package)

    def class_value(self, place: Place, node: ast.ClassDef) -> Value:
        return Value("member", place.module, node.name)


_NO_ARGS = ast.arguments(
    posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
)


def _top_level(body: list[ast.stmt]) -> list[ast.stmt]:
    """Module-level statements, looking into if/try/with blocks (where classes are often defined)."""
    found: list[ast.stmt] = []
    for node in body:
        found.append(node)
        if isinstance(node, ast.If | ast.Try | ast.TryStar | ast.With):
            blocks = [node.body, getattr(node, "orelse", []), getattr(node, "finalbody", [])]
            blocks += [h.body for h in getattr(node, "handlers", [])]
            for block in blocks:
                found.extend(_top_level(block))
    return found


def _added_pass(statement: ast.stmt, unit: Unit) -> bool:
    """The `pass` appended to a class header parsed without its methods is not the class's."""
    return unit.extra_pass and isinstance(statement, ast.Pass)


def _byte_to_char(text: str, byte_col: int) -> int:
    if text.isascii():
        return byte_col
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def _name_column(text: str, end_byte_col: int | None, word: str) -> int:
    """Code-point column where an attribute's name starts, from the byte column where it ends."""
    end = end_byte_col or 0
    return _byte_to_char(text, end - len(word.encode("utf-8")))
