"""Per-file scanning: module-level facts (bindings, classes, `__all__`, star imports) and the occurrences
of one word, each extracted from only the units that need parsing. Results are keyed by content digest.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from prscope.analysis.intel.classes import ClassFacts, class_facts, class_facts_of
from prscope.analysis.intel.python2 import python2_construct
from prscope.analysis.intel.scopes import (
    Binding,
    guards_imports,
    import_bindings,
    module_assignment,
    statement_names,
)
from prscope.analysis.intel.units import (
    Segmentation,
    Unit,
    parse_unit,
    recover_statements,
    segment,
    sparse_source,
)
from prscope.analysis.intel.walker import Occurrence, Receiver, Walker

__all__ = ["ClassFacts", "FileScan", "ModuleFacts", "Occurrence", "Receiver", "WordScan", "class_facts"]

# ast.parse raises RecursionError / MemoryError on pathologically nested code instead of SyntaxError.
_PARSE_ERRORS = (SyntaxError, ValueError, RecursionError, MemoryError)
_STAR_IMPORT = re.compile(r"[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+\*")


@dataclass
class ModuleFacts:
    bindings: dict[str, list[Binding]] = field(default_factory=dict)
    star_imports: list[tuple[str, int]] = field(default_factory=list)
    all_names: set[str] | None = None
    classes: dict[str, ClassFacts] = field(default_factory=dict)
    syntax_error: str | None = None

    def add(self, name: str, binding: Binding) -> None:
        self.bindings.setdefault(name, []).append(binding)


class FileScan:
    """One file version, split into units; parses units on demand and never keeps their trees."""

    def __init__(self, path: str, text: str, digest: str) -> None:
        self.path = path
        self.digest = digest
        self.seg: Segmentation = segment(text)
        self.whole = False
        self.syntax_error: str | None = None
        self.python2 = False
        """The file's syntax error is Python 2 code: the parts that parse are still read as code."""
        self._star_imports: list[tuple[str, int]] | None = None
        self.broken_units: list[Unit] = []
        """The file's parts when it does not parse as a whole (Python 2 code, `asyncio.async`): the parts
        that parse alone can still tell what the file defines."""
        self.whole_classes: dict[str, ClassFacts] | None = None
        """Facts of every top-level class, once a file parsed only whole has been parsed for one of them
        (sqlalchemy's test suites: asking each class of a file would parse the file again each time)."""

    def star_imports(self) -> list[tuple[str, int]]:
        """(module, level) of each `from module import *` (found by text, anywhere at statement start)."""
        if self._star_imports is None:
            found: list[tuple[str, int]] = []
            for line in self.seg.lines:
                if "*" in line and "import" in line:
                    match = _STAR_IMPORT.match(line)
                    if match is not None:
                        found.append((match.group(2), len(match.group(1))))
            self._star_imports = found
        return self._star_imports

    @property
    def lines(self) -> list[str]:
        return self.seg.lines

    def line_text(self, line: int) -> str:
        if 1 <= line <= len(self.seg.lines):
            return self.seg.lines[line - 1].rstrip("\r\n")
        return ""

    def _fall_back_to_whole(self) -> ast.Module | None:
        """A unit did not parse alone: parse the whole file (and record a genuine syntax error)."""
        self.whole = True
        parts = [u for u in self.seg.units if u.kind != "whole"]
        self.seg.units = [Unit("whole", 0, len(self.seg.lines))]
        try:
            return ast.parse("".join(self.seg.lines))
        except _PARSE_ERRORS as exc:
            # Keep the parts: every later query reads them as the first one did.
            self._record_error(exc)
            self.whole = False
            self.seg.units = parts
            self.broken_units = parts
            return None

    @property
    def readable_units(self) -> list[Unit]:
        """The units to read definitions from: the file's parts, or those of a file that does not parse."""
        return self.seg.units or self.broken_units

    def trees(
        self, wanted: list[Unit], sparse: dict[int, set[int]] | None = None
    ) -> Iterator[tuple[Unit, ast.Module]]:
        """Parsed trees of the wanted units; on a unit that does not parse alone, the whole file's tree.

        `sparse` maps a unit's start line to the file lines (0-based) the caller needs: such a unit is
        parsed with its other body statements blanked out when that is safe.
        """
        parsed: list[tuple[Unit, ast.Module]] = []
        for unit in wanted:
            keep = sparse.get(unit.start) if sparse else None
            if keep is not None and unit.kind in ("function", "method"):
                text = sparse_source(self.seg, unit, keep)
                if text is not None:
                    try:
                        parsed.append((unit, ast.parse(text)))
                        continue
                    except _PARSE_ERRORS:
                        pass
            try:
                parsed.append((unit, parse_unit(self.seg.lines, unit)))
            except _PARSE_ERRORS as exc:
                if unit.kind == "whole" and not self.broken_units:
                    if self.syntax_error is None:
                        self._record_error(exc)
                    return
                if not self.broken_units:
                    tree = self._fall_back_to_whole()
                    if tree is not None:
                        yield self.seg.units[0], tree
                        return
                # The file does not parse as a whole either: its other parts still count, and so do the
                # module-level statements that parse on their own (one Python 2 `print` must not hide
                # the file's imports).
                if unit.kind == "module":
                    recovered = recover_statements(self.seg, unit)
                    if recovered is not None:
                        parsed.append((unit, recovered))
        yield from parsed

    def whole_tree(self) -> ast.Module | None:
        try:
            return ast.parse("".join(self.seg.lines))
        except _PARSE_ERRORS as exc:
            self._record_error(exc)
            return None

    def _record_error(self, exc: BaseException) -> None:
        self.syntax_error = _describe_syntax_error(exc)
        self.python2 = isinstance(exc, SyntaxError) and python2_construct(
            exc, self.line_text(exc.lineno or 0)
        )


def _describe_syntax_error(exc: BaseException) -> str:
    if isinstance(exc, SyntaxError):
        return f"line {exc.lineno}: {exc.msg}"
    if isinstance(exc, RecursionError | MemoryError):
        return "nested too deeply to parse"
    return str(exc) or type(exc).__name__


def module_facts(scan: FileScan) -> ModuleFacts:
    """Module-level bindings, star imports and `__all__`; classes only when the whole file was parsed
    (otherwise `class_facts` parses one class header on demand)."""
    facts = ModuleFacts()
    structural = [u for u in scan.seg.units if u.kind in ("module", "whole")]
    for unit in scan.seg.units:
        if unit.kind == "function" and unit.name:
            facts.add(unit.name, Binding("def", line=unit.start + 1))
        elif unit.kind == "class-header" and unit.name:
            facts.add(unit.name, Binding("class", line=unit.start + 1))
    for unit, tree in scan.trees(structural):
        offset = unit.start
        _collect_module_level(tree.body, facts, offset, unit)
    if scan.syntax_error is not None:
        facts.syntax_error = scan.syntax_error
        return facts
    return facts


def _collect_module_level(
    body: list[ast.stmt],
    facts: ModuleFacts,
    offset: int,
    unit: Unit,
    *,
    guarded: bool = False,
    branch: bool = False,
) -> None:
    for node in body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            for name, binding in import_bindings(node, guarded=guarded, branch=branch):
                facts.add(name, binding)
            if isinstance(node, ast.ImportFrom) and any(a.name == "*" for a in node.names):
                facts.star_imports.append((node.module or "", node.level))
        elif isinstance(node, ast.ClassDef):
            facts.add(node.name, Binding("class", line=node.lineno + offset))
            facts.classes[node.name] = class_facts_of(node, offset)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            facts.add(node.name, Binding("def", line=node.lineno + offset))
        elif isinstance(node, ast.Try | ast.TryStar):
            body_guarded = guarded or guards_imports(node)
            _collect_module_level(node.body, facts, offset, unit, guarded=body_guarded, branch=branch)
            for block in [*[h.body for h in node.handlers], node.orelse, node.finalbody]:
                _collect_module_level(block, facts, offset, unit, guarded=guarded, branch=branch)
        elif isinstance(node, ast.If | ast.With | ast.For | ast.While):
            for block in _blocks(node):
                _collect_module_level(block, facts, offset, unit, guarded=guarded, branch=True)
        else:
            for name in statement_names(node):
                if name == "__all__":
                    facts.all_names = (facts.all_names or set()) | _all_names(node)
                    continue
                facts.add(name, module_assignment(node, name, node.lineno + offset))


def _blocks(node: ast.If | ast.With | ast.For | ast.While) -> list[list[ast.stmt]]:
    if isinstance(node, ast.With):
        return [node.body]
    return [node.body, node.orelse]


def _all_names(node: ast.stmt) -> set[str]:
    value = getattr(node, "value", None)
    if isinstance(value, ast.List | ast.Tuple):
        return {e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)}
    return set()


@dataclass
class WordScan:
    occurrences: list[Occurrence]
    syntax_error: str | None = None
    module_bindings: list[Binding] = field(default_factory=list)  # how the module itself binds the word


def scan_word(scan: FileScan, word: str, grep_lines: list[int] | None) -> WordScan:
    """Every occurrence of `word` in code (names, attributes, imports, definitions) in the file."""
    pattern = re.compile(r"(?<![\w])" + re.escape(word) + r"(?![\w])")
    if grep_lines is None:
        grep_lines = [i + 1 for i, line in enumerate(scan.lines) if word in line and pattern.search(line)]
    code_lines = [n for n in grep_lines if not _is_doctest_or_comment(scan.line_text(n))]
    occurrences: list[Occurrence] = []
    module_bindings: list[Binding] = []
    if not code_lines:
        return WordScan(occurrences)
    wanted = _units_containing(scan, code_lines)
    sparse = _sparse_plan(scan, wanted, code_lines, word)
    for unit, tree in scan.trees(wanted, sparse):
        relevant = {n - unit.start for n in code_lines if unit.start < n <= unit.end}
        if unit.kind == "whole":
            relevant = set(code_lines)
        walker = Walker(scan, unit, word, relevant)
        try:
            walker.walk_module(tree)
            found = walker.finish()
        except RecursionError:
            return WordScan([], f"line {unit.start + 1}: expression nested too deeply to analyse")
        occurrences.extend(found)
        module_bindings.extend(walker.module_scope.word_bindings)
    if scan.syntax_error is not None and not scan.python2:
        return WordScan([], scan.syntax_error)
    occurrences.sort(key=lambda o: (o.line, o.col))
    return WordScan(occurrences, module_bindings=module_bindings)


_DOCTEST = re.compile(r"[ \t]*(?:>>>|\.\.\.|#)")


def _sparse_plan(scan: FileScan, wanted: list[Unit], code_lines: list[int], word: str) -> dict[int, set[int]]:
    """Lines to keep when parsing function and method units sparsely: those mentioning the word, and
    for `receiver.word` those mentioning the receiver's head name too (they hold its bindings). A
    receiver that is not a plain dotted name (`f(x).word`) needs the whole unit."""
    attribute = re.compile(r"(\S?)\s*\.\s*" + re.escape(word) + r"(?![\w])")
    plan: dict[int, set[int]] = {}
    for unit in wanted:
        if unit.kind not in ("function", "method"):
            continue
        keep = {n - 1 for n in code_lines if unit.start < n <= unit.end}
        heads: set[str] = set()
        whole = False
        for number in keep:
            text = scan.lines[number]
            for match in attribute.finditer(text):
                head = _receiver_head(text, match.start(0) + len(match.group(1)))
                if head is None:
                    whole = True
                elif head not in ("self", "cls"):
                    heads.add(head)
        if whole:
            continue
        if heads:
            pattern = re.compile(r"(?<![\w.])(?:" + "|".join(map(re.escape, sorted(heads))) + r")(?![\w])")
            keep |= {n for n in range(unit.start, unit.end) if pattern.search(scan.lines[n])}
        plan[unit.start] = keep
    return plan


_HEAD = re.compile(r"([A-Za-z_][\w]*)((?:\s*\.\s*[A-Za-z_]\w*)*)\s*$")


def _receiver_head(text: str, dot: int) -> str | None:
    """The first name of the dotted receiver ending just before `dot` (None when it is not a name)."""
    match = _HEAD.search(text[:dot])
    if match is None:
        return None
    head = match.group(1)
    before = text[: match.start(1)].rstrip()
    if before.endswith(".") or head in ("super",):
        return None
    return head


def _is_doctest_or_comment(line: str) -> bool:
    return _DOCTEST.match(line) is not None


def _units_containing(scan: FileScan, code_lines: list[int]) -> list[Unit]:
    units = scan.seg.units
    wanted: list[Unit] = []
    index = 0
    for line in sorted(code_lines):
        zero = line - 1
        while index < len(units) and units[index].end <= zero:
            index += 1
        if (
            index < len(units)
            and units[index].start <= zero
            and (not wanted or wanted[-1] is not units[index])
        ):
            wanted.append(units[index])
    return wanted
