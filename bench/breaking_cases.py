"""Ground-truth and neutral sites of one change, for the stale-reference miner (bench/mine_breaking.py).

The rules are /work/shared/bench/README.md's. A site is ground truth when it is in another file the
commit modified, on a line the commit changed (for a call: any line of the call), and:

- breaking-call: the call fits the old signature and fails the new one, or its positional arguments land
  on other parameters. Module-level functions and `Class(...)` for `Class.__init__` are found through
  imports and re-exports; methods by name (`x.name(...)`), and only when no other def of that name
  (another class, another file) would accept the call.
- dangling-reference: the line references the removed name: `from m import X`, uses of the imported
  name, `m.X` (through imports and re-exports), or `obj.method` (with the same rule as above).

Neutral: the commit's other changed lines that mention the name; calls that break but could reach
another definition of a method name, anywhere; resolved references and breaking calls of module-level
names that the commit did not edit; sites in files the commit deleted; references to removed
module-level variables.
"""

from __future__ import annotations

import ast
import inspect
import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from breaking_repo import Ref, Resolver, Snapshot, TopLevelRefs
from breaking_sigs import (
    FuncNode,
    call_shape,
    decorator_names,
    fits_old_breaks_new,
    landing,
    signature,
    takes_receiver,
)

Site = tuple[str, int]


@dataclass
class FileChange:
    status: str
    old_blob: str
    new_blob: str
    removed: set[int] = field(default_factory=set)
    """Old-side line numbers the commit removed or replaced."""
    gaps: set[int] = field(default_factory=set)
    """Insertion points: lines were added right after these old lines."""
    hunk_after: dict[int, str] = field(default_factory=dict)
    """Old line -> the new side of its hunk (what replaced it)."""


@dataclass
class CommitView:
    sha: str
    parent: str
    files: dict[str, FileChange]
    before: Snapshot
    resolver: Resolver
    after: Snapshot
    """The commit's files; only its `grep` / `defs_named` are used (no file list is loaded)."""
    _defs: dict[str, list[str]] = field(default_factory=dict)
    _signatures: dict[str, list[tuple[str, str | None, inspect.Signature]]] = field(default_factory=dict)

    def modified(self, besides: str) -> list[str]:
        return sorted(p for p, f in self.files.items() if f.status == "M" and p != besides)

    def deleted(self) -> list[str]:
        return sorted(p for p, f in self.files.items() if f.status == "D")

    def changed_line(self, path: str, line: int) -> bool:
        change = self.files.get(path)
        return change is not None and (change.status == "D" or line in change.removed)

    def changed_span(self, path: str, start: int, end: int) -> bool:
        change = self.files.get(path)
        if change is None:
            return False
        if change.status == "D" or any(line in change.removed for line in range(start, end + 1)):
            return True
        return any(gap in change.gaps for gap in range(start, end))

    def other_signatures(self, change: Change) -> list[inspect.Signature]:
        """Signatures of every other def named like the changed method, at the parent (methods without
        their receiver)."""
        if change.name not in self._signatures:
            found = []
            for path in self.before.defs_named(change.name):
                index = self.before.index(path)
                for cls, node in defs_named(index.tree, change.name) if index is not None else []:
                    sig = signature(node, cls is not None and takes_receiver(node))
                    if sig is not None:
                        found.append((path, cls, sig))
            self._signatures[change.name] = found
        mine = (change.def_file, change.cls)
        return [sig for path, cls, sig in self._signatures[change.name] if (path, cls) != mine]

    def unique_method(self, name: str, def_file: str) -> bool:
        """No file other than def_file defines a function of that name, at the parent or at the commit
        (a method moved to another class elsewhere still answers to the name)."""
        if name not in self._defs:
            self._defs[name] = self.before.defs_named(name) + self.after.defs_named(name)
        return all(path == def_file for path in self._defs[name])


@dataclass
class Change:
    kind: str
    """'breaking-call', 'dangling-reference', or 'variable' (a removed module-level variable)."""
    def_file: str
    cls: str | None
    name: str
    reason: str = ""
    old: FuncNode | None = None
    new: FuncNode | None = None
    gt: set[Site] = field(default_factory=set)
    neutral: set[Site] = field(default_factory=set)
    """Resolved sites that are not ground truth: they count in the stale PR whether or not the change
    becomes a case."""
    mentions: set[Site] = field(default_factory=set)
    """Other changed lines naming the symbol: neutral only when the change is a case (has ground truth)."""
    referencing_files: set[str] = field(default_factory=set)
    alive: set[str] = field(default_factory=set)
    """Module-level names def_file still binds at the commit (for a removed name's aliases)."""

    @property
    def symbol(self) -> str:
        return f"{self.cls}.{self.name}" if self.cls else self.name

    @property
    def mention(self) -> str:
        """The word a line must contain to mention the change (the class for a constructor)."""
        return self.cls if self.name == "__init__" and self.cls else self.name


def find_sites(view: CommitView, change: Change) -> None:
    if change.kind == "breaking-call" and change.name == "__init__":
        _constructor_sites(view, change)
    elif change.kind == "breaking-call" and change.cls:
        _method_call_sites(view, change)
    elif change.kind == "breaking-call":
        _function_call_sites(view, change)
    elif change.cls:
        _method_reference_sites(view, change)
    else:
        _name_reference_sites(view, change)
    _mentions(view, change)
    change.neutral -= change.gt
    change.mentions -= change.gt


def _signatures(
    change: Change, explicit_receiver: bool = False
) -> tuple[inspect.Signature, inspect.Signature]:
    assert change.old is not None and change.new is not None
    drop = change.cls is not None and not explicit_receiver
    old = signature(change.old, drop and takes_receiver(change.old))
    new = signature(change.new, drop and takes_receiver(change.new))
    assert old is not None and new is not None
    return old, new


def _scan_files(view: CommitView, change: Change, words: set[str]) -> list[str]:
    """Files to look at: the commit's other modified and deleted files, and every file naming the words."""
    found = set(view.modified(change.def_file)) | set(view.deleted())
    found |= set(view.before.grep(*sorted(words))) if words else set()
    found.discard(change.def_file)
    return sorted(found)


def _judge_call(
    view: CommitView,
    change: Change,
    path: str,
    call: ast.Call,
    line: int,
    known: bool,
    explicit: bool = False,
) -> None:
    """Ground truth, neutral or nothing for one call of the changed function. `known`: the call plainly
    reaches the changed def (an import-resolved name, a unique method name, a known receiver)."""
    old, new = _signatures(change, explicit)
    shape = call_shape(call, explicit)
    verdict = fits_old_breaks_new(old, new, shape) if shape is not None else None
    status = view.files[path].status if path in view.files else ""
    edited = status == "M" and view.changed_span(path, call.lineno, call.end_lineno or call.lineno)
    resolved = change.cls is None or change.name == "__init__"
    if edited and verdict is True and known:
        change.gt.add((path, line))
    elif edited or status == "D" or (verdict is True and (resolved or not known)):
        change.neutral.add((path, line))


def _function_call_sites(view: CommitView, change: Change) -> None:
    """Calls through imports; `something.name(...)` on a receiver that is not a resolved module is
    neutral when it would break (name matching cannot tell it is not this function)."""
    refs = TopLevelRefs(view.resolver, {(change.def_file, change.name)})
    for path in _scan_files(view, change, refs.names()):
        resolved = set()
        for ref in _noted(change, refs.refs_in(path)):
            resolved.add(id(ref.node))
            call = ref.parent if isinstance(ref.parent, ast.Call) and ref.parent.func is ref.node else None
            if call is not None:
                direct = ref.form != "attr" or ref.module == change.def_file
                _judge_call(view, change, path, call, ref.line, known=direct)
        for call, line, _explicit in _attribute_calls(view.resolver, path, change.name, change):
            if id(call.func) not in resolved:
                change.referencing_files.add(path)
                _judge_call(view, change, path, call, line, known=False)


def _constructor_sites(view: CommitView, change: Change) -> None:
    assert change.cls is not None
    refs = TopLevelRefs(view.resolver, {(change.def_file, change.cls)})
    for path in _scan_files(view, change, refs.names()):
        for ref in _noted(change, refs.refs_in(path)):
            call = ref.parent if isinstance(ref.parent, ast.Call) and ref.parent.func is ref.node else None
            if call is not None:
                direct = ref.form != "attr" or ref.module == change.def_file
                _judge_call(view, change, path, call, ref.line, known=direct)


def defs_named(tree: ast.Module, name: str) -> list[tuple[str | None, FuncNode]]:
    """Every def of that name in a file: (the class it is directly in, or None; the def)."""
    found: list[tuple[str | None, FuncNode]] = []
    stack: list[tuple[ast.AST, str | None]] = [(tree, None)]
    while stack:
        node, cls = stack.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef):
                if child.name == name and not (decorator_names(child) & {"setter", "getter", "deleter"}):
                    found.append((cls, child))
                stack.append((child, None))
            elif isinstance(child, ast.ClassDef):
                stack.append((child, child.name))
            else:
                stack.append((child, cls))
    return found


def _noted(change: Change, refs: list[Ref]) -> list[Ref]:
    change.referencing_files |= {ref.path for ref in refs}
    return refs


def _attribute_calls(
    resolver: Resolver, path: str, name: str, change: Change
) -> Iterator[tuple[ast.Call, int, bool]]:
    """`x.name(...)` calls in path: (call, line of the name, whether the receiver is passed explicitly
    because x is the class itself)."""
    index = resolver.snapshot.index(path)
    if index is None:
        return
    plain = change.old is not None and not (decorator_names(change.old) & {"staticmethod", "classmethod"})
    for use in index.attrs.get(name, []):
        call = use.parent
        if isinstance(call, ast.Call) and call.func is use.node:
            assert isinstance(use.node, ast.Attribute)
            explicit = plain and _is_the_class(resolver, path, use.node.value, change)
            yield call, use.node.end_lineno or use.node.lineno, explicit


def _is_the_class(resolver: Resolver, path: str, receiver: ast.expr, change: Change) -> bool:
    if not isinstance(receiver, ast.Name) or change.cls is None or not receiver.id[:1].isupper():
        return False
    found = resolver.lookup(path, receiver.id)
    target = (change.def_file, change.cls)
    return found is not None and (found == target or resolver.inherits(found[0], found[1], target) is True)


def _method_call_sites(view: CommitView, change: Change) -> None:
    """`x.name(...)` calls: the call reaches the changed method unless another def of that name (another
    class, another file) would also accept it; then it is neutral."""
    others = view.other_signatures(change)
    for path in _scan_files(view, change, {change.name} if others else set()):
        for call, line, explicit in _attribute_calls(view.resolver, path, change.name, change):
            shape = call_shape(call)
            known = shape is not None and not any(landing(sig, shape) is not None for sig in others)
            _judge_call(view, change, path, call, line, known, explicit)


def _name_reference_sites(view: CommitView, change: Change) -> None:
    alive = frozenset((change.def_file, name) for name in change.alive)
    refs = TopLevelRefs(view.resolver, {(change.def_file, change.name)}, alive=alive)
    for path in _scan_files(view, change, refs.names()):
        for ref in _noted(change, refs.refs_in(path)):
            direct = ref.form != "attr" or ref.module == change.def_file
            _judge_reference(view, change, ref, known=change.kind == "dangling-reference" and direct)


def _judge_reference(view: CommitView, change: Change, ref: Ref, known: bool) -> None:
    status = view.files[ref.path].status if ref.path in view.files else ""
    if status == "M" and known and view.changed_line(ref.path, ref.line):
        change.gt.add((ref.path, ref.line))
    else:
        change.neutral.add((ref.path, ref.line))


def _method_reference_sites(view: CommitView, change: Change) -> None:
    """`obj.name` on changed lines; a method is used only when no other file defines a function of
    that name (otherwise its sites are neither ground truth nor neutral)."""
    if not view.unique_method(change.name, change.def_file):
        return
    for path in _scan_files(view, change, set()):
        index = view.resolver.snapshot.index(path)
        for use in index.attrs.get(change.name, []) if index is not None else []:
            node = use.node
            assert isinstance(node, ast.Attribute)
            if isinstance(node.ctx, ast.Store):
                continue
            line = node.end_lineno or node.lineno
            if view.changed_line(path, line):
                _judge_reference(view, change, Ref(path, line, node, "attr"), known=True)


def _mentions(view: CommitView, change: Change) -> None:
    """The commit's changed lines in other files that name the symbol. For a module-level name, only in
    files that reference it (elsewhere the word is some other thing of the same name)."""
    word = re.compile(rf"\b{re.escape(change.mention)}\b")
    paths = [*view.modified(change.def_file), *view.deleted()]
    if change.cls is None or change.name == "__init__":
        paths = [p for p in paths if p in change.referencing_files]
    for path in paths:
        lines = view.before.lines(path)
        numbers = range(1, len(lines) + 1) if view.files[path].status == "D" else view.files[path].removed
        for number in numbers:
            if 0 < number <= len(lines) and word.search(lines[number - 1]):
                change.mentions.add((path, number))


def renamed(view: CommitView, change: Change, new_names: set[str]) -> bool:
    """Whether a hunk that fixed a ground-truth line brought in a name the same commit added next to the
    removed one (same module, or same class)."""
    for path, line in change.gt:
        after = view.files[path].hunk_after.get(line, "")
        if any(re.search(rf"\b{re.escape(name)}\b", after) for name in new_names):
            return True
    return False
