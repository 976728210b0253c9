"""What the mismatch rules ask of the code index, in one place.

Uses are the index's import-aware `find_usages` (receivers resolved as for `breaking-call`; only exact
references count: an unknown receiver is never reported). Class hierarchies go through the index's
`Resolver`, the one resolver the other checks use too; methods are read from their part of the file as
the index splits it. Nothing here decides a finding.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from prscope.analysis.checks.mismatch.defs import FunctionFacts
from prscope.analysis.intel import CodeIndex, Reference
from prscope.analysis.intel.resolve import Resolver, Value
from prscope.analysis.intel.scopes import dotted_chain

FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

_MAX_BASE_DEPTH = 8
_DEF_LINE_SLACK = 3
_CLASS_LINE = re.compile(r"class\s+(\w+)")


@dataclass(frozen=True)
class MethodAt:
    """A method as the reviewed head defines it."""

    path: str
    module: str
    facts: FunctionFacts

    @property
    def class_name(self) -> str:
        return self.facts.class_qualname or ""

    @property
    def display(self) -> str:
        return self.facts.qualname


class Hierarchy:
    """Subclass and base-class lookups over the code index (memoised for one check run)."""

    def __init__(self, index: CodeIndex) -> None:
        self.index = index
        self._resolver = Resolver(index)
        self._lines: dict[str, list[str] | None] = {}
        self._overrides: dict[tuple[str, str, str], list[MethodAt]] = {}

    def _rows(self, path: str) -> list[str] | None:
        """The file's lines, split once per check run (a method name defined in hundreds of places asks
        about the same big files again and again)."""
        if path not in self._lines:
            text = self.index.source(path)
            self._lines[path] = text.splitlines() if text is not None else None
        return self._lines[path]

    def is_rebound_instance(self, path: str, receiver: ast.expr) -> bool:
        """Whether `receiver` (`builtin.Builtin`) names a module-level instance that took its class's
        name (`Builtin = Builtin()`), though it reads like the class."""
        chain = dotted_chain(receiver)
        module = self.index.module_name(path)
        if chain is None or module is None:
            return False
        values = self._resolver.chain_values(module, chain, None)
        return bool(values) and all(self._resolver.is_rebound_instance(v) for v in values)

    def exact_uses(self, dotted: str) -> list[Reference]:
        """References whose receiver or import resolves to `dotted` (probable matches are dropped)."""
        result = self.index.find_usages(dotted)
        return [r for r in result.references if r.confidence == "exact"]

    def overrides(self, module: str, class_name: str, method: str) -> list[MethodAt]:
        """Methods named `method` in repository classes that inherit from `module.class_name` (worked out
        once per base and name: the pairs, the siblings' parameters and the family tests all ask)."""
        key = (module, class_name, method)
        if key not in self._overrides:
            self._overrides[key] = self._find_overrides(module, class_name, method)
        return list(self._overrides[key])

    def _find_overrides(self, module: str, class_name: str, method: str) -> list[MethodAt]:
        base = Value("member", module, class_name)
        found: list[MethodAt] = []
        for path, line in self.index.defines_elsewhere(method):
            owner = self._local_class_above(path, line) or self._top_level_class_above(path, line, method)
            if owner is None or owner == (module, class_name):
                continue
            # Class facts come from a scan of the class alone: parse the file only for real subclasses.
            if self._resolver.is_subclass(Value("member", *owner), base) != "yes":
                continue
            located = self._class_method_at(path, line, method)
            if located is not None:
                found.append(located)
        return found

    def _top_level_class_above(self, path: str, line: int, name: str) -> tuple[str, str] | None:
        """(module, name) of the top-level class whose method is defined at `line`: the class of the
        method's part of the file as the index splits it, else the nearest `class` at column 0 above."""
        module = self.index.module_name(path)
        if module is None:
            return None
        for candidate in range(line, line + _DEF_LINE_SLACK + 1):
            unit = self.index.unit_at(path, candidate)
            if unit is not None and unit.kind == "method" and unit.class_name and unit.name == name:
                return module, unit.class_name
        rows = self._rows(path)
        for row in reversed(rows[: line - 1] if rows is not None else []):
            found = _CLASS_LINE.match(row)
            if found:
                return module, found.group(1)
            if row[:1].isalpha() and not row.startswith(("class", "@", "#")):
                return None  # a module-level statement: the def is not inside a class
        return None

    def overridden(self, module: str, class_name: str, method: str) -> MethodAt | None:
        """The nearest base-class definition of `method` for `module.class_name`; None when a base on the
        way cannot be inspected (it might define the method itself)."""
        facts = self._resolver.class_facts(Value("member", module, class_name))
        return self._in_bases(module, facts.bases if facts else [], method, 0)

    def _in_bases(
        self, module: str, bases: list[tuple[str, ...] | None], method: str, depth: int
    ) -> MethodAt | None:
        if depth > _MAX_BASE_DEPTH:
            return None
        for base in bases:
            if base is None:
                return None
            for value in self._resolver.chain_values(module, base, None):
                facts = self._resolver.class_facts(value)
                if facts is None:
                    return None
                if method in facts.members:
                    return self._definition(value, method)
                found = self._in_bases(value.module, facts.bases, method, depth + 1)
                if found is not None:
                    return found
        return None

    def _definition(self, cls: Value, method: str) -> MethodAt | None:
        for definition in self.index.find_definitions(f"{cls.module}.{cls.name}.{method}"):
            located = self._class_method_at(definition.path, definition.line, method)
            if located is not None and located.class_name == cls.name:
                return located
        return None

    def _local_class_above(self, path: str, line: int) -> tuple[str, str] | None:
        """(module, `Name@line`) of the class, defined inside a function, whose method is defined at `line`
        (tests often subclass inside a test function; `@line` tells apart several local classes of one
        name)."""
        module = self.index.module_name(path)
        rows = self._rows(path)
        if module is None or rows is None:
            return None
        while 0 < line <= len(rows) and not rows[line - 1].strip():
            line += 1  # the index's `def` line may be a blank line just above the `def`
        if not 0 < line <= len(rows):
            return None
        indent = len(rows[line - 1]) - len(rows[line - 1].lstrip())
        for index in range(line - 2, -1, -1):
            row = rows[index]
            stripped = row.lstrip()
            depth = len(row) - len(stripped)
            if not stripped or stripped.startswith(("#", "@")) or depth >= indent:
                continue
            found = _CLASS_LINE.match(stripped)
            if found is None or depth == 0:
                return None
            owner = (module, f"{found.group(1)}@{index + 1}")
            return owner if self._resolver.class_facts(Value("member", *owner)) is not None else None
        return None

    def _class_method_at(self, path: str, line: int, name: str) -> MethodAt | None:
        """Method `name` whose `def` is on `line`, directly in a top-level class of `path`.

        The index's `def` lines may point at a blank line just above the `def` (its pattern lets leading
        whitespace span lines): the next few lines are accepted. Only that method's part of the file is
        parsed (the whole file when the part does not parse alone).
        """
        local = self._local_class_above(path, line)
        if local is not None:
            return self._local_method(path, line, local[1].partition("@")[0], name)
        owner = self._top_level_class_above(path, line, name)
        if owner is None:
            return None
        for candidate in range(line, line + _DEF_LINE_SLACK + 1):
            unit = self.index.unit_at(path, candidate)
            if unit is not None and (unit.kind == "whole" or (unit.kind == "method" and unit.name == name)):
                return self._method_in(path, candidate, owner[1], name, line)
        return None

    def _local_method(self, path: str, line: int, class_name: str, name: str) -> MethodAt | None:
        located = self.index.unit_tree(path, line)
        module = self.index.module_name(path)
        if located is None or module is None:
            return None
        for node in ast.walk(located[1]):
            if isinstance(node, ast.ClassDef) and node.name == class_name:
                for member in node.body:
                    if (
                        isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef)
                        and member.name == name
                        and line <= member.lineno <= line + _DEF_LINE_SLACK
                    ):
                        return MethodAt(
                            path, module, FunctionFacts(f"{class_name}.{name}", class_name, member)
                        )
        return None

    def _method_in(self, path: str, at: int, class_name: str, name: str, line: int) -> MethodAt | None:
        located = self.index.unit_tree(path, at)
        module = self.index.module_name(path)
        if located is None or module is None:
            return None
        unit, tree = located
        body = tree.body
        if unit.kind == "whole":  # the method's part did not parse alone: look inside its class
            owner = next((n for n in body if isinstance(n, ast.ClassDef) and n.name == class_name), None)
            body = owner.body if owner is not None else []
        for member in body:
            if (
                isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef)
                and member.name == name
                and line <= member.lineno <= line + _DEF_LINE_SLACK
            ):
                facts = FunctionFacts(f"{class_name}.{member.name}", class_name, member)
                return MethodAt(path, module, facts)
        return None


def defined_function(
    index: CodeIndex, resolver: Resolver, module: str, chain: tuple[str, ...]
) -> FunctionNode | None:
    """The one repository function a name (`run`, `utils.run`) read in `module` resolves to; None when it
    is not one known function."""
    values = resolver.chain_values(module, chain, None)
    if len(values) != 1 or values[0].kind != "member":
        return None
    definitions = index.find_definitions(f"{values[0].module}.{values[0].name}")
    if len(definitions) != 1:
        return None
    located = index.unit_tree(definitions[0].path, definitions[0].line)
    if located is None:
        return None
    return next(
        (
            n
            for n in ast.walk(located[1])
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.lineno == definitions[0].line
        ),
        None,
    )
