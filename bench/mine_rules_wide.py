"""Mine `async-mismatch`, `property-mismatch` and `override-mismatch` cases whose ground truth keeps the
sites a plain reading cannot type (issue 20).

`mine_rules.py` marks every site whose receiver it cannot type plainly (a pytest fixture, a factory's
return, an untyped parameter, `self._w = w`, `for w in self._writers`, a class defined in a function...)
as neutral, so its figures never count what a checker misses there. This miner keeps those sites: a site
the commit fixed with the rule's pattern is ground truth unless it could genuinely be another class's
method of the same name, and those few are decided by hand (`bench/rules-new-handcheck.json`). It reuses
mine_rules.py's diff reading and class following; it shares no code with the checker (never imports
`analysis`).

What it adds to mine_rules.py:

- async-mismatch: generator-based coroutines count as coroutines (`@asyncio.coroutine`,
  `@types.coroutine`, any decorator named `coroutine`), and `yield from f()` counts as awaiting, so a
  `def` that becomes `@asyncio.coroutine` (or the reverse) is a flip; `@asyncio.coroutine` -> `async def`
  is not (both are awaitable). A call counts as fixed when the commit awaited it or handed it to another
  call (a test's own `run(...)` helper, `loop.run_until_complete`), or the reverse, and is ground truth
  whatever its receiver. A function handed to a thread (`run_in_executor(None, obj.f)`) and now awaited
  counts too.
- property-mismatch: a fixed `.name(` <-> `.name` is ground truth whatever its receiver.
- override-mismatch: overrides in classes defined inside functions or nested in classes, overrides the
  commit removed (in the stale PR they are still there, left behind), and overrides whose bases the miner
  cannot follow (hand-checked) count too.
- Sites that could be another class's method (another definition of the name that did not change the
  same way, and the receiver is not plainly the changed class) are listed under `hand` for a verdict.

Each case carries, besides the mine_rules.py fields:

- `sites`: one entry per ground-truth or hand site, `{"path", "line", "receiver", "shape"}`: the receiver
  expression as written (`self._writer`, `client`, `Foo()`; empty for a plain function call) and a first,
  automatic guess at the shape that types it (`self`, `constructor`, `annotated`, `fixture`,
  `untyped-param`, `self-attribute`, `factory-return`, `loop-variable`, `with-target`, `container`,
  `local-class`, `nested-class`, `removed-override`, `function`, ...).
- `hand`: `[path, line, why]` for the sites that need a verdict; `assemble` turns them into ground truth
  or neutral by the hand check.

    python bench/mine_rules_wide.py mine REPO_DIR owner/name [--rules async,property,override] > raw.json
    python bench/mine_rules_wide.py assemble raw1.json raw2.json ... > bench/rules-new.json
"""

from __future__ import annotations

import argparse
import ast
import json
import keyword
import re
import sys
from collections import defaultdict
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

import mine_rules as mr  # diff reading, class following, signature binding: reused, not copied

HERE = Path(__file__).resolve().parent
HANDCHECK = HERE / "rules-new-handcheck.json"
_CORO = re.compile(r"^[-+]\s*@([\w.]*\.)?coroutine\b")
_RUNNERS = (
    "asyncio.run(",
    "run_until_complete(",
    "create_task(",
    "ensure_future(",
    "gather(",
    "run_sync(",
    "async_to_sync(",
)
_THREADS = ("run_in_executor(", "to_thread(", "run_sync(", "submit(")


# ---------------------------------------------------------------------------------------------------
# Candidates: the -U0 patch shows a flip, a property decorator, or a method changed in two files.


@dataclass
class _Patch(mr._PatchState):
    """The base miner's patch reader, also counting generator-coroutine decorators."""

    coroutine_lines: int = 0

    def feed(self, line: str) -> None:
        super().feed(line)
        if line[:1] in ("+", "-") and not line.startswith(("+++ ", "--- ")) and _CORO.match(line):
            self.coroutine_lines += 1

    def rules(self, wanted: set[str]) -> set[str]:
        found: set[str] = set()
        flips = {(n, not a) for n, a in self.added_defs} & self.removed_defs
        if "async" in wanted and (flips or self.coroutine_lines):
            found.add("async")
        if "property" in wanted and self.property_lines:
            found.add("property")
        if "override" in wanted and any(len(files) >= 2 for files in self.method_files.values()):
            found.add("override")
        return found


def candidates(repo: Path, rules: set[str]) -> Iterator[mr.Candidate]:
    return mr.candidates(repo, rules, _Patch)


# ---------------------------------------------------------------------------------------------------
# Definitions, including methods of classes defined inside functions.


@dataclass(frozen=True)
class WDef:
    """A definition: `cls` is the qualified class (`Outer.Inner`, `test_x.<locals>.Fake`) or None."""

    qualname: str
    cls: str | None
    node: ast.FunctionDef | ast.AsyncFunctionDef
    class_node: ast.ClassDef | None = None
    local: bool = False
    """The class is defined inside a function."""

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def plain(self) -> mr.Def:
        return mr.Def(self.qualname, self.cls, self.node)

    @property
    def is_coroutine(self) -> bool:
        """`async def` (not an async generator), or a generator-based coroutine."""
        if "coroutine" in self.plain.decorators:
            return True
        return isinstance(self.node, ast.AsyncFunctionDef) and not self.plain.is_generator

    @property
    def is_plain_generator(self) -> bool:
        """A generator or an async generator: calling it never ran its body, and never will."""
        return self.plain.is_generator and "coroutine" not in self.plain.decorators

    @property
    def is_property(self) -> bool:
        return self.plain.is_property


def wide_defs(text: str | None) -> dict[str, WDef]:
    if text is None:
        return {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    found: dict[str, WDef | None] = {}

    def visit(body: list[ast.stmt], prefix: str, cls: ast.ClassDef | None, local: bool) -> None:
        for statement in body:
            if isinstance(statement, ast.ClassDef):
                visit(statement.body, f"{prefix}{statement.name}.", statement, local)
            elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                names = {ast.unparse(d).rsplit(".", 1)[-1] for d in statement.decorator_list}
                if not names & {"setter", "getter", "deleter", "overload"}:
                    qualname = f"{prefix}{statement.name}"
                    cls_name = prefix[:-1] if cls is not None else None
                    entry = WDef(qualname, cls_name, statement, cls, local)
                    found[qualname] = None if qualname in found else entry
                visit(statement.body, f"{prefix}{statement.name}.<locals>.", None, True)
            elif isinstance(statement, ast.If | ast.Try | ast.With):
                for part in ("body", "orelse", "finalbody"):
                    visit(getattr(statement, part, []), prefix, cls, local)
                for handler in getattr(statement, "handlers", []):
                    visit(handler.body, prefix, cls, local)

    visit(tree.body, "", None, False)
    return {k: v for k, v in found.items() if v is not None}


class WideCommit(mr.Commit):
    def defs(self, rev: str, path: str) -> dict[str, WDef]:
        key = f"{rev}:{path}"
        cache: dict[str, dict[str, WDef]] = self.__dict__.setdefault("_wide", {})
        if key not in cache:
            cache[key] = wide_defs(self.text(rev, path))
        return cache[key]


def load_commit(repo: Path, candidate: mr.Candidate) -> WideCommit | None:
    commit = mr.load_commit(repo, candidate)
    if commit is None:
        return None
    return WideCommit(commit.repo, commit.sha, commit.parent, commit.files)


# ---------------------------------------------------------------------------------------------------
# What a site's receiver is (for the hand check and the miss classification; never to drop a site).


def _tree_parents(tree: ast.AST) -> dict[int, ast.AST]:
    return {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}


def _site_node(tree: ast.Module, line: int, name: str, method: bool) -> ast.AST | None:
    best: ast.AST | None = None
    for node in ast.walk(tree):
        if method and isinstance(node, ast.Attribute) and node.attr == name and node.end_lineno == line:
            return node
        if (
            not method
            and isinstance(node, ast.Call)
            and node.func.end_lineno == line
            and (
                (isinstance(node.func, ast.Name) and node.func.id == name)
                or (isinstance(node.func, ast.Attribute) and node.func.attr == name)
            )
        ):
            return node.func
        if (
            isinstance(node, ast.Name | ast.Attribute)
            and (getattr(node, "id", None) == name or getattr(node, "attr", None) == name)
            and node.end_lineno == line
        ):
            best = best or node
    return best


def _is_fixture(classes: mr.Classes, path: str, name: str) -> bool:
    """A pytest fixture named `name` in `path` or a conftest.py above it (by name, `name=` too)."""
    where = [path]
    parts = path.split("/")[:-1]
    for i in range(len(parts), -1, -1):
        where.append("/".join([*parts[:i], "conftest.py"]))
    for candidate in where:
        tree = classes.tree(candidate)
        for node in ast.walk(tree) if tree is not None else []:
            if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for decorator in node.decorator_list:
                text = ast.unparse(decorator)
                if "fixture" not in text:
                    continue
                named = re.search(r"name\s*=\s*['\"](\w+)['\"]", text)
                if (named.group(1) if named else node.name) == name:
                    return True
    return False


def receiver_shape(
    classes: mr.Classes, path: str, line: int, name: str, method: bool, target: tuple[str, str] | None
) -> tuple[str, str]:
    """(receiver expression, shape guess) of the use of `name` on `line` of `path` at the parent."""
    tree = classes.tree(path)
    if tree is None:
        return "", "unparsed"
    node = _site_node(tree, line, name, method)
    if node is None:
        return "", "not-found"
    if not isinstance(node, ast.Attribute):
        return "", "function"
    receiver = node.value
    text = ast.unparse(receiver)
    text = text if len(text) <= 60 else text[:57] + "..."
    parents = _tree_parents(tree)
    chain: list[ast.AST] = []
    current: ast.AST | None = node
    while current is not None:
        chain.append(current)
        current = parents.get(id(current))
    functions = [n for n in chain if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)]
    typed = target is not None and mr._receiver_is(classes, path, node, parents, target)
    if isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super":
        return text, "super"
    if isinstance(receiver, ast.Name) and receiver.id in ("self", "cls"):
        owner = next((n for n in chain if isinstance(n, ast.ClassDef)), None)
        in_function = owner is not None and any(
            isinstance(p, ast.FunctionDef | ast.AsyncFunctionDef) for p in chain[chain.index(owner) + 1 :]
        )
        return text, "self-local-class" if in_function else ("self" if typed else "self-other-class")
    if isinstance(receiver, ast.Call):
        func = receiver.func
        spelled = ast.unparse(func).rsplit(".", 1)[-1]
        if typed or spelled[:1].isupper():
            return text, "constructor"
        return text, "factory-return"
    if isinstance(receiver, ast.Subscript):
        return text, "container"
    if isinstance(receiver, ast.Attribute):
        if isinstance(receiver.value, ast.Name) and receiver.value.id == "self":
            return text, "self-attribute-typed" if typed else "self-attribute"
        return text, "attribute-chain"
    if not isinstance(receiver, ast.Name):
        return text, "expression"
    if receiver.id[:1].isupper():
        return text, "class" if typed else "capitalised-name"
    return text, _name_shape(classes, path, receiver.id, functions, typed)


def _name_shape(classes: mr.Classes, path: str, name: str, functions: list[ast.AST], typed: bool) -> str:
    for function in functions:
        if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda):
            continue
        arguments = function.args
        params = {a.arg: a for a in [*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs]}
        if name in params:
            if params[name].annotation is not None:
                return "annotated-param" if typed else "annotated-param-other"
            if isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef) and _is_fixture(
                classes, path, name
            ):
                return "fixture"
            return "untyped-param"
        for inner in ast.walk(function):
            if isinstance(inner, ast.For | ast.AsyncFor | ast.comprehension) and _binds(inner.target, name):
                return "loop-variable"
            if (
                isinstance(inner, ast.withitem)
                and inner.optional_vars is not None
                and _binds(inner.optional_vars, name)
            ):
                return "with-target"
            if isinstance(inner, ast.Assign | ast.AnnAssign) and any(
                _binds(t, name) for t in (inner.targets if isinstance(inner, ast.Assign) else [inner.target])
            ):
                if typed:
                    return "local-typed"
                value = inner.value
                if isinstance(value, ast.Await):
                    value = value.value
                if isinstance(value, ast.Call):
                    spelled = ast.unparse(value.func).rsplit(".", 1)[-1]
                    return "local-constructed" if spelled[:1].isupper() else "factory-return"
                if isinstance(value, ast.Subscript):
                    return "container"
                if isinstance(value, ast.Attribute):
                    return "local-from-attribute"
                return "local"
    return "module-name-typed" if typed else "module-name"


def _binds(target: ast.AST, name: str) -> bool:
    return any(isinstance(n, ast.Name) and n.id == name for n in ast.walk(target))


# ---------------------------------------------------------------------------------------------------
# async-mismatch


def _call(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w]){re.escape(name)}\s*\(")


def _awaited(line: str, name: str) -> bool:
    """The call of `name` on the line is awaited (`await`, `yield from`) or given to a loop runner."""
    match = _call(name).search(line)
    if match is None:
        return False
    head = line[: match.start()]
    return bool(re.search(r"\bawait\b|\byield\s+from\b", head)) or any(r in line for r in _RUNNERS)


def _state(line: str, name: str) -> str:
    """How the line uses the call of `name`: `awaited` (await, yield from, a loop runner), `wrapped` (an
    argument of another call: a local `run(...)` helper, `print(...)`) or `bare`."""
    if _awaited(line, name):
        return "awaited"
    match = _call(name).search(line)
    if match is None:
        return "absent"
    return "wrapped" if _call_argument(line[: match.start()]) else "bare"


def _call_argument(prefix: str) -> bool:
    """The text before a call ends inside the argument list of another call: its innermost unclosed
    `(` follows a name, `)` or `]` (a call, not parentheses around an expression)."""
    depth = 0
    for index in range(len(prefix) - 1, -1, -1):
        char = prefix[index]
        if char in ")]}":
            depth += 1
        elif char in "([{":
            if depth == 0:
                before = prefix[:index].rstrip()
                word = re.search(r"(\w+)$", before)
                if word and keyword.iskeyword(word.group(1)):
                    return False  # `return (f())`, `in (f())`: parentheses, not a call
                return char == "(" and bool(before) and (before[-1].isalnum() or before[-1] in "_)]")
            depth -= 1
    return False


def _async_fixed(before: str, after: str, name: str, became: bool) -> bool:
    """The commit changed the call the way a def <-> async def change asks for."""
    old, new = _state(before, name), _state(after, name)
    if "absent" in (old, new):
        return False
    if became:
        return (old == "bare" and new in ("awaited", "wrapped")) or (old == "wrapped" and new == "awaited")
    return (old == "awaited" and new in ("bare", "wrapped")) or (old == "wrapped" and new == "bare")


def _in_thread(line: str, name: str) -> bool:
    """`name` handed to a thread (`run_in_executor(None, obj.name, ...)`): the old use of a plain def."""
    return any(t in line for t in _THREADS) and bool(re.search(rf"\b{re.escape(name)}\b(?!\s*\()", line))


def _async_flip(old: WDef, new: WDef) -> bool:
    if old.is_plain_generator or new.is_plain_generator:
        return False
    return old.is_coroutine != new.is_coroutine


def _other_async_defs(commit: WideCommit, name: str, def_file: str, qualname: str, became: bool) -> list[str]:
    """Other definitions of `name` that, at the commit, still have the old form (`path:qualname`)."""
    found = []
    paths = {path for path, _line, _a in commit.repo_defs(name)} | {def_file}
    for path in sorted(paths):
        for definition in commit.defs(commit.sha, path).values():
            if definition.name != name or (path == def_file and definition.qualname == qualname):
                continue
            if definition.is_plain_generator:
                continue
            if definition.is_coroutine != became:
                found.append(f"{path}:{definition.qualname}")
    return found


def mine_async(commit: WideCommit, repo_name: str) -> list[dict[str, Any]]:
    cases = []
    classes = mr.Classes(commit)
    for def_file in commit.modified():
        old_defs, new_defs = commit.defs(commit.parent, def_file), commit.defs(commit.sha, def_file)
        for qualname, new in new_defs.items():
            old = old_defs.get(qualname)
            if old is None or not _async_flip(old, new):
                continue
            became = new.is_coroutine
            reason = "became async" if became else "no longer async"
            if "coroutine" in (new if became else old).plain.decorators:
                reason += " (generator-based coroutine)"
            case = mr._case(commit, repo_name, "async-mismatch", def_file, qualname, reason)
            case.update(sites=[], hand=[])
            others = _other_async_defs(commit, new.name, def_file, qualname, became)
            target = (def_file, new.cls.split(".")[0]) if new.cls and not new.local else None
            for path in commit.modified():
                if path == def_file:
                    continue
                for number, before, after in commit.changed_lines(path):
                    called = bool(_call(new.name).search(before))
                    threaded = _in_thread(before, new.name)
                    if not called and not threaded:
                        continue
                    if called:
                        fixed = bool(after) and _async_fixed(before, after, new.name, became)
                    else:  # the function handed to a thread, now awaited
                        fixed = became and bool(after) and _awaited(after, new.name)
                    _place(case, classes, path, number, new, fixed, others, target)
            if case["ground_truth"] or case["neutral"] or case["hand"]:
                cases.append(case)
    return _with_def_files(cases)


def _place(
    case: dict[str, Any],
    classes: mr.Classes,
    path: str,
    number: int,
    new: WDef,
    fixed: bool,
    others: list[str],
    target: tuple[str, str] | None,
) -> None:
    """Put a changed line that mentions the name into ground truth, neutral or the hand list."""
    if not fixed:
        case["neutral"].append([path, number])
        return
    method = new.cls is not None
    receiver, shape = receiver_shape(classes, path, number, new.name, method, target)
    typed = shape in ("self", "constructor", "class", "local-typed", "module-name-typed", "super") or (
        shape.endswith("-typed") or shape == "annotated-param"
    )
    if not method:
        typed = typed or (
            target is None and mr.function_call_known(classes, path, number, (case["def_file"], new.name))
        )
    case["sites"].append({"path": path, "line": number, "receiver": receiver, "shape": shape})
    if others and not typed:
        shown = ", ".join(others[:3]) + (f" (+{len(others) - 3})" if len(others) > 3 else "")
        case["hand"].append([path, number, f"also defined, unchanged: {shown}"])
    else:
        case["ground_truth"].append([path, number])


def _with_def_files(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    def_files = sorted({case["def_file"] for case in cases})
    for case in cases:
        case["def_files"] = def_files
        for what in ("ground_truth", "neutral", "hand"):
            case[what] = [site for site in case[what] if site[0] not in def_files]
        case["sites"] = [s for s in case["sites"] if s["path"] not in def_files]
    return cases if any(case["ground_truth"] or case["hand"] for case in cases) else []


# ---------------------------------------------------------------------------------------------------
# property-mismatch


def _property_flip(old: WDef, new: WDef) -> bool:
    return bool(new.cls) and old.is_property != new.is_property


def _other_property_defs(commit: WideCommit, name: str, def_file: str, qualname: str, to: bool) -> list[str]:
    found = []
    paths = {path for path, _line, _a in commit.repo_defs(name)} | {def_file}
    for path in sorted(paths):
        for definition in commit.defs(commit.sha, path).values():
            if definition.name != name or not definition.cls:
                continue
            if path == def_file and definition.qualname == qualname:
                continue
            if definition.is_property != to:
                found.append(f"{path}:{definition.qualname}")
    return found


def mine_property(commit: WideCommit, repo_name: str) -> list[dict[str, Any]]:
    cases = []
    classes = mr.Classes(commit)
    for def_file in commit.modified():
        old_defs, new_defs = commit.defs(commit.parent, def_file), commit.defs(commit.sha, def_file)
        for qualname, new in new_defs.items():
            old = old_defs.get(qualname)
            if old is None or not _property_flip(old, new):
                continue
            to_property = new.is_property
            reason = "became a property" if to_property else "became a method"
            case = mr._case(commit, repo_name, "property-mismatch", def_file, qualname, reason)
            case.update(sites=[], hand=[])
            others = _other_property_defs(commit, new.name, def_file, qualname, to_property)
            assert new.cls is not None
            target = (def_file, new.cls.split(".")[0]) if not new.local else None
            called = re.compile(rf"\.{re.escape(new.name)}\s*\(")
            read = re.compile(rf"\.{re.escape(new.name)}\b(?!\s*\()")
            for path in commit.modified():
                if path == def_file:
                    continue
                for number, before, after in commit.changed_lines(path):
                    if not re.search(rf"\.{re.escape(new.name)}\b", before):
                        continue
                    calls_before, calls_after = len(called.findall(before)), len(called.findall(after))
                    reads_before, reads_after = len(read.findall(before)), len(read.findall(after))
                    if to_property:
                        fixed = bool(after) and calls_after < calls_before and reads_after > reads_before
                    else:
                        fixed = bool(after) and calls_after > calls_before and reads_after < reads_before
                    _place(case, classes, path, number, new, fixed, others, target)
            if case["ground_truth"] or case["neutral"] or case["hand"]:
                cases.append(case)
    return _with_def_files(cases)


# ---------------------------------------------------------------------------------------------------
# override-mismatch


def _params_changed(old: WDef, new: WDef) -> bool:
    return ast.dump(old.node.args) != ast.dump(new.node.args) or old.is_coroutine != new.is_coroutine


def accepts_all(base: WDef, override: WDef) -> bool | None:
    """mine_rules.accepts_all, with generator-based coroutines counted as coroutines."""
    if base.is_coroutine != override.is_coroutine:
        return False
    return mr.accepts_all(_as_async(base), _as_async(override))


def _as_async(definition: WDef) -> mr.Def:
    """A Def whose async-ness is the coroutine-ness (mr.accepts_all compares `is_async`)."""
    node = definition.node
    if definition.is_coroutine == isinstance(node, ast.AsyncFunctionDef):
        return definition.plain
    kind = ast.AsyncFunctionDef if definition.is_coroutine else ast.FunctionDef
    copy = kind(name=node.name, args=node.args, body=node.body, decorator_list=node.decorator_list)
    return mr.Def(definition.qualname, definition.cls, copy)  # type: ignore[arg-type]


def _class_inherits(
    classes: mr.Classes, commit: WideCommit, path: str, over: WDef, target: tuple[str, str]
) -> bool | None:
    """Whether the override's class derives from the target (file, top-level class)."""
    assert over.cls is not None
    if not over.local and "." not in over.cls:
        return classes.inherits(path, over.cls, target)
    node = over.class_node
    if node is None:
        return None
    verdict: bool | None = False
    tree = classes.tree(path)
    local_classes = (
        {n.name: n for n in ast.walk(tree) if isinstance(n, ast.ClassDef)} if tree is not None else {}
    )
    for base in node.bases:
        if isinstance(base, ast.Subscript):
            base = base.value
        found: tuple[str, str] | None = None
        if isinstance(base, ast.Name):
            found = classes.lookup(path, base.id)
            if found is None and base.id in local_classes:
                inner = local_classes[base.id]
                sub = WDef(over.qualname, base.id, over.node, inner, True)
                result = _class_inherits(classes, commit, path, sub, target) if inner is not node else None
                if result:
                    return True
                verdict = None if result is None else verdict
                continue
        elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
            module = classes.module_alias(path, base.value.id)
            found = classes.lookup(module, base.attr) if module else None
        if found is None:
            verdict = None
            continue
        if found == target:
            return True
        deeper = classes.inherits(found[0], found[1], target)
        if deeper:
            return True
        if deeper is None:
            verdict = None
    return verdict


def mine_override(commit: WideCommit, repo_name: str) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    classes = mr.Classes(commit)
    for def_file in commit.modified():
        for qualname, new in commit.defs(commit.sha, def_file).items():
            old = commit.defs(commit.parent, def_file).get(qualname)
            if old is None or new.cls is None or new.local or new.name in ("__init__", "__new__"):
                continue
            if not _params_changed(old, new) or old.is_property or new.is_property:
                continue
            overrides = _changed_overrides(commit, def_file, new.name)
            if not overrides:
                continue
            case = mr._case(
                commit, repo_name, "override-mismatch", def_file, qualname, "base signature changed"
            )
            case.update(sites=[], hand=[])
            target = (def_file, new.cls.split(".")[0])
            for path, over_old, over_new in overrides:
                assert over_old.cls is not None
                inherits = _class_inherits(classes, commit, path, over_old, target)
                if inherits is False:
                    continue
                line = over_old.node.lineno
                before_ok, after_ok = accepts_all(old, over_old), accepts_all(new, over_old)
                if not (before_ok is True and after_ok is False):
                    case["neutral"].append([path, line])
                    continue
                shape = "removed-override" if over_new is None else "override"
                if over_old.local:
                    shape += " (class in a function)"
                elif "." in over_old.cls:
                    shape += " (nested class)"
                case["sites"].append({"path": path, "line": line, "receiver": over_old.cls, "shape": shape})
                if inherits is None:
                    case["hand"].append([path, line, "bases not followed by the miner"])
                else:
                    case["ground_truth"].append([path, line])
            if case["ground_truth"] or case["neutral"] or case["hand"]:
                cases.append(case)
    return _with_def_files(cases)


def _changed_overrides(commit: WideCommit, def_file: str, name: str) -> list[tuple[str, WDef, WDef | None]]:
    found: list[tuple[str, WDef, WDef | None]] = []
    for path in commit.modified():
        if path == def_file:
            continue
        old_defs, new_defs = commit.defs(commit.parent, path), commit.defs(commit.sha, path)
        for qualname, over_old in old_defs.items():
            if over_old.name != name or not over_old.cls:
                continue
            over_new = new_defs.get(qualname)
            if over_new is None:
                found.append((path, over_old, None))
            elif _params_changed(over_old, over_new):
                found.append((path, over_old, over_new))
    return found


MINERS = {"async": mine_async, "property": mine_property, "override": mine_override}


def run_mine(args: argparse.Namespace) -> int:
    wanted = set(args.rules.split(","))
    cases: list[dict[str, Any]] = []
    seen = 0
    for candidate in candidates(args.repo, wanted):
        seen += 1
        commit = load_commit(args.repo, candidate)
        if commit is None:
            continue
        for rule in sorted(candidate.rules):
            try:
                found = MINERS[rule](commit, args.name)
            except (RecursionError, ValueError, RuntimeError) as error:
                print(f"skip {candidate.commit[:10]} {rule}: {error}", file=sys.stderr)
                continue
            for case in found:
                if len(case["ground_truth"]) + len(case["hand"]) > mr.MAX_SITES:
                    case["neutral"] += case["ground_truth"] + [h[:2] for h in case["hand"]]
                    case["ground_truth"], case["hand"] = [], []
                    continue
                cases.append(case)
    print(f"{args.name}: {seen} candidate commits, {len(cases)} cases", file=sys.stderr)
    json.dump(cases, sys.stdout, indent=1)
    print()
    return 0


# ---------------------------------------------------------------------------------------------------
# Assemble: the raw mined cases plus the hand check make the set.


def load_verdicts(path: Path) -> dict[tuple[str, str, int, str], tuple[str, str]]:
    """(commit prefix, path, line, rule) -> (verdict, why) for site verdicts (`break`, `not a break`,
    `neutral`); alarm verdicts (`real`, `false alarm`) are the scorer's, and `{"case": id, "verdict":
    "drop"}` entries drop a whole case."""
    if not path.exists():
        return {}
    found = {}
    for entry in json.loads(path.read_text()):
        if "case" in entry:
            continue
        if entry.get("verdict") in ("break", "not a break", "neutral"):
            key = (entry["commit"][:10], entry["path"], int(entry["line"]), entry["rule"])
            found[key] = (entry["verdict"], entry["why"])
    return found


def run_assemble(args: argparse.Namespace) -> int:
    verdicts = load_verdicts(args.handcheck)
    entries = json.loads(args.handcheck.read_text()) if args.handcheck.exists() else []
    dropped_cases = {e["case"] for e in entries if "case" in e and e.get("verdict") == "drop"}
    out: list[dict[str, Any]] = []
    pending = 0
    for raw in args.raw:
        for case in json.loads(raw.read_text()):
            if case["id"] in dropped_cases:
                continue
            truth, neutral = [], []
            hand = [[p, n] for p, n, _why in case["hand"]]
            for path, line in case["ground_truth"] + hand + case["neutral"]:
                key = (case["commit"][:10], path, int(line), case["kind"])
                verdict, _why = verdicts.get(key, ("", ""))
                if verdict == "break" or (not verdict and [path, line] in case["ground_truth"]):
                    truth.append([path, line])
                else:
                    neutral.append([path, line])
                    pending += not verdict and [path, line] in hand
            known = {(s["path"], s["line"]) for s in case["sites"]}
            case["sites"] += [
                {"path": p, "line": n, "receiver": "", "shape": "promoted by the hand check"}
                for p, n in truth
                if (p, n) not in known
            ]
            kept = {(p, n) for p, n in truth}
            case["ground_truth"] = truth
            case["neutral"] = neutral
            case["sites"] = [s for s in case["sites"] if (s["path"], s["line"]) in kept]
            case.pop("hand", None)
            case["checked"] = True
            out.append(case)
    groups: dict[tuple[str, str, tuple[str, ...]], list[dict[str, Any]]] = defaultdict(list)
    for case in out:
        groups[(case["commit"], case["kind"], tuple(case["def_files"]))].append(case)
    kept_cases = [
        c
        for cases in groups.values()
        if any(x["ground_truth"] for x in cases)
        for c in cases
        if c["ground_truth"] or c["neutral"]
    ]
    print(f"{len(kept_cases)} cases; hand sites without a verdict (neutral): {pending}", file=sys.stderr)
    json.dump(kept_cases, sys.stdout, indent=1)
    print()
    return 0


def run_show(args: argparse.Namespace) -> int:
    """Print each case's definition (parent and commit) and each site (stale PR's line with context, and
    the commit's fix) for the hand check."""
    for raw in args.raw:
        for case in json.loads(raw.read_text()):
            if args.only and args.only not in case["id"]:
                continue
            repo = args.repos / case["repo"].split("/")[-1]
            commit = WideCommit(repo, case["commit"], case["parent"], [])
            subject = mr.git(repo, "log", "-1", "--format=%s", case["commit"]).strip()
            print(f"\n=== {case['id']} [{case['kind']}] {case['reason']}  ({subject[:80]})")
            for rev, label in ((case["parent"], "before"), (case["commit"], "after ")):
                definition = commit.defs(rev, case["def_file"]).get(case["symbol"])
                if definition is not None:
                    node = definition.node
                    first = min([d.lineno for d in node.decorator_list] + [node.lineno])
                    text = (commit.text(rev, case["def_file"]) or "").splitlines()
                    head = " | ".join(t.strip() for t in text[first - 1 : node.body[0].lineno - 1])
                    print(f"  def {label} {case['def_file']}:{first}: {head[:200]}")
            shapes = {(s["path"], s["line"]): s for s in case.get("sites", [])}
            hand = {(p, n): why for p, n, why in case.get("hand", [])}
            for path, line in case["ground_truth"] + [[p, n] for p, n, _w in case.get("hand", [])]:
                site = shapes.get((path, line), {})
                tag = f"HAND ({hand[(path, line)]})" if (path, line) in hand else "GT"
                print(
                    f"  -- {tag} {path}:{line}  receiver={site.get('receiver')!r} shape={site.get('shape')}"
                )
                before = (commit.text(case["parent"], path) or "").splitlines()
                for number in range(max(1, line - args.context), min(len(before), line + 1) + 0 + 1):
                    mark = ">" if number == line else " "
                    print(f"     {mark}{number:5} {before[number - 1][:150]}")
                fixed = [after for n, _b, after in commit.changed_lines(path) if n == line]
                if fixed:
                    print(f"      fix:  {fixed[0].strip()[:150]}")
            if args.neutral and case["neutral"]:
                print(f"  neutral: {case['neutral']}")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    sub = parser.add_subparsers(dest="command", required=True)
    show = sub.add_parser("show", help="print cases and sites for the hand check")
    show.add_argument("raw", type=Path, nargs="+")
    show.add_argument("--repos", type=Path, required=True, help="directory of the clones")
    show.add_argument("--only", help="only cases whose id contains this")
    show.add_argument("--context", type=int, default=2)
    show.add_argument("--neutral", action="store_true")
    mine = sub.add_parser("mine", help="mine one repository's history")
    mine.add_argument("repo", type=Path)
    mine.add_argument("name", help="owner/name, recorded in each case")
    mine.add_argument("--rules", default="async,property,override")
    assemble = sub.add_parser("assemble", help="raw mined cases + hand check -> the case set")
    assemble.add_argument("raw", type=Path, nargs="+")
    assemble.add_argument("--handcheck", type=Path, default=HANDCHECK)
    args = parser.parse_args(argv)
    commands = {"mine": run_mine, "assemble": run_assemble, "show": run_show}
    return commands[args.command](args)


if __name__ == "__main__":
    sys.exit(main())
