"""Mine `async-mismatch`, `property-mismatch` and `override-mismatch` cases from a repository's history.

A case is a real commit `c` that changed one file (`def_file`) in the way the rule is about and, in the
same commit, fixed code in *other* files that the change broke. The stale PR is `def_file` at `c` and
every other file at `c^`; the lines the commit fixed are the ground truth (old-side line numbers, which
are the stale PR's own: those files are unchanged in it). The format is the one of
/work/shared/bench/README.md, with `kind` set to the rule.

The miner is deliberately independent of the checker: it reads diffs and names, not the code index.

- async-mismatch: a function or method (not a generator) goes `def` -> `async def` or back. Ground
  truth: a changed line that calls `name(` and whose change added (or removed) `await` in front of it, or
  wrapped it in an event-loop runner.
- property-mismatch: a method gains `@property` / `@cached_property` (any decorator ending in
  `property`) or loses it. Ground truth: a changed line whose `.name(` became `.name` (or the reverse).
- override-mismatch: a method's parameters change in class B, and the same commit changes the same
  method of a subclass of B (its bases followed through the imports, transitively) in another
  file. Ground truth: that override's `def` line, when the override at `c^` accepted every
  sample call of B's method at `c^` and rejects one at `c` (Python's own `inspect.Signature.bind`
  decides; sample calls pass positional parameters by position and keyword-only ones by name).

One stale PR per commit and rule: `def_files` lists every file of the commit holding a change of that
kind (a base class and its backends changed together), all taken from the commit; `def_file` is the one
defining `symbol`. Sites in def_files do not count.

A site is neutral (not ground truth) when the name is also defined elsewhere in the repository in a way
the change does not explain (another function or method of that name that did not change the same way),
when a changed line mentions the name without the fix pattern, or for overrides the miner cannot judge.

    python bench/mine_rules.py REPO_DIR owner/name [--rules async,property,override] > cases.json
"""

from __future__ import annotations

import argparse
import ast
import difflib
import inspect
import json
import re
import subprocess
import sys
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

MAX_FILES = 40
MAX_SITES = 40
_COMMIT = re.compile(r"^@@@COMMIT ([0-9a-f]{40}) ?(.*)$")
_DEF = re.compile(r"^[-+]\s*(async\s+)?def\s+(\w+)\s*\(")
_METHOD_DEF = re.compile(r"^[-+]\s+(?:async\s+)?def\s+(\w+)\s*\(")
_PROPERTY = re.compile(r"^[-+]\s*@[\w.]*property\b(?!\.)")
_RUNNERS = ("asyncio.run(", "run_until_complete(", "create_task(", "ensure_future(", "gather(", "run_sync(")


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, errors="replace")
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])}: {done.stderr.strip()[:200]}")
    return done.stdout


def show(repo: Path, rev: str, path: str) -> str | None:
    done = subprocess.run(
        ["git", "show", f"{rev}:{path}"], cwd=repo, capture_output=True, text=True, errors="replace"
    )
    return done.stdout if done.returncode == 0 else None


@dataclass
class Candidate:
    commit: str
    parent: str
    rules: set[str] = field(default_factory=set)


def candidates(
    repo: Path, rules: set[str], patch_state: Callable[[], _PatchState] | None = None
) -> Iterator[Candidate]:
    """Commits whose -U0 patch shows the textual sign of a change of interest (cheap prefilter);
    `patch_state` makes the reader of one commit's patch (`mine_rules_wide` looks for more signs)."""
    new_state = patch_state or _PatchState
    process = subprocess.Popen(
        ["git", "log", "--no-merges", "-p", "-U0", "--no-color", "--format=@@@COMMIT %H %P", "--", "*.py"],
        cwd=repo,
        stdout=subprocess.PIPE,
        text=True,
        errors="replace",
    )
    assert process.stdout is not None
    current: Candidate | None = None
    state = new_state()
    for raw in process.stdout:
        line = raw.rstrip("\n")
        match = _COMMIT.match(line)
        if match:
            if current is not None and state.rules(rules):
                current.rules = state.rules(rules)
                yield current
            parents = match.group(2).split()
            current = Candidate(match.group(1), parents[0] if len(parents) == 1 else "")
            state = new_state()
            continue
        state.feed(line)
    if current is not None and state.rules(rules):
        current.rules = state.rules(rules)
        yield current
    process.wait()


@dataclass
class _PatchState:
    file: str = ""
    removed_defs: set[tuple[str, bool]] = field(default_factory=set)
    added_defs: set[tuple[str, bool]] = field(default_factory=set)
    property_lines: int = 0
    method_files: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))

    def feed(self, line: str) -> None:
        if line.startswith("+++ "):
            self.file = line[6:] if line.startswith("+++ b/") else self.file
            return
        if line.startswith("--- ") or line[:1] not in ("+", "-"):
            return
        found = _DEF.match(line)
        if found:
            entry = (found.group(2), bool(found.group(1)))
            (self.added_defs if line[0] == "+" else self.removed_defs).add(entry)
        method = _METHOD_DEF.match(line)
        if method:
            self.method_files[method.group(1)].add(self.file)
        if _PROPERTY.match(line):
            self.property_lines += 1

    def rules(self, wanted: set[str]) -> set[str]:
        found: set[str] = set()
        if "async" in wanted:
            flips = {(n, not a) for n, a in self.added_defs} & self.removed_defs
            if flips:
                found.add("async")
        if "property" in wanted and self.property_lines:
            found.add("property")
        if "override" in wanted and any(len(files) >= 2 for files in self.method_files.values()):
            found.add("override")
        return found


@dataclass(frozen=True)
class Def:
    qualname: str
    cls: str | None
    node: ast.FunctionDef | ast.AsyncFunctionDef

    @property
    def name(self) -> str:
        return self.node.name

    @property
    def is_async(self) -> bool:
        return isinstance(self.node, ast.AsyncFunctionDef)

    @property
    def is_generator(self) -> bool:
        return any(isinstance(n, ast.Yield | ast.YieldFrom) for n in _own_nodes(self.node))

    @property
    def decorators(self) -> list[str]:
        names = []
        for decorator in self.node.decorator_list:
            target = decorator.func if isinstance(decorator, ast.Call) else decorator
            names.append(ast.unparse(target).rsplit(".", 1)[-1])
        return names

    @property
    def is_property(self) -> bool:
        return any(name.lower().endswith("property") for name in self.decorators)


def _own_nodes(node: ast.AST) -> Iterator[ast.AST]:
    stack = list(ast.iter_child_nodes(node))
    while stack:
        child = stack.pop()
        yield child
        if not isinstance(child, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda | ast.ClassDef):
            stack.extend(ast.iter_child_nodes(child))


def defs_of(text: str | None) -> dict[str, Def]:
    if text is None:
        return {}
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return {}
    found: dict[str, Def | None] = {}

    def visit(body: list[ast.stmt], cls: str | None) -> None:
        for statement in body:
            if isinstance(statement, ast.ClassDef):
                visit(statement.body, f"{cls}.{statement.name}" if cls else statement.name)
            elif isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                names = {ast.unparse(d).rsplit(".", 1)[-1] for d in statement.decorator_list}
                if names & {"setter", "getter", "deleter", "overload"}:
                    continue
                qualname = f"{cls}.{statement.name}" if cls else statement.name
                found[qualname] = None if qualname in found else Def(qualname, cls, statement)

    visit(tree.body, None)
    return {k: v for k, v in found.items() if v is not None}


@dataclass
class Commit:
    repo: Path
    sha: str
    parent: str
    files: list[tuple[str, str]]  # (status, path)
    _texts: dict[tuple[str, str], str | None] = field(default_factory=dict)
    _pairs: dict[str, list[tuple[int, str, str]]] = field(default_factory=dict)
    _defs_cache: dict[str, list[tuple[str, int, bool]]] = field(default_factory=dict)

    def text(self, rev: str, path: str) -> str | None:
        key = (rev, path)
        if key not in self._texts:
            self._texts[key] = show(self.repo, rev, path)
        return self._texts[key]

    def modified(self) -> list[str]:
        return [path for status, path in self.files if status == "M"]

    def changed_lines(self, path: str) -> list[tuple[int, str, str]]:
        """(old line number, old text, new text or '' when unpaired) for every changed old line."""
        if path not in self._pairs:
            old = (self.text(self.parent, path) or "").splitlines()
            new = (self.text(self.sha, path) or "").splitlines()
            pairs: list[tuple[int, str, str]] = []
            matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
            for tag, i1, i2, j1, j2 in matcher.get_opcodes():
                if tag == "equal":
                    continue
                pairs.extend(_pair_block(old, new, i1, i2, j1, j2))
            self._pairs[path] = pairs
        return self._pairs[path]

    def repo_defs(self, name: str) -> list[tuple[str, int, bool]]:
        """(path, line, is_async) of every `def name` at the parent (git grep)."""
        if name not in self._defs_cache:
            out = subprocess.run(
                [
                    "git",
                    "grep",
                    "-n",
                    "-E",
                    rf"^\s*(async\s+)?def\s+{re.escape(name)}\b",
                    self.parent,
                    "--",
                    "*.py",
                ],
                cwd=self.repo,
                capture_output=True,
                text=True,
                errors="replace",
            ).stdout
            found = []
            for row in out.splitlines():
                parts = row.split(":", 3)
                if len(parts) == 4 and parts[2].isdigit():
                    found.append((parts[1], int(parts[2]), "async" in parts[3].split("def")[0]))
            self._defs_cache[name] = found
        return self._defs_cache[name]


def _pair_block(
    old: list[str], new: list[str], i1: int, i2: int, j1: int, j2: int
) -> list[tuple[int, str, str]]:
    """Pair each removed line with its most similar added line in the block (or none)."""
    result = []
    used: set[int] = set()
    for i in range(i1, i2):
        best, best_ratio = -1, 0.5
        for j in range(j1, j2):
            if j in used:
                continue
            ratio = difflib.SequenceMatcher(None, old[i].strip(), new[j].strip()).ratio()
            if ratio > best_ratio:
                best, best_ratio = j, ratio
        if best >= 0:
            used.add(best)
        result.append((i + 1, old[i], new[best] if best >= 0 else ""))
    return result


def load_commit(repo: Path, candidate: Candidate) -> Commit | None:
    if not candidate.parent:
        return None
    rows = git(
        repo, "diff", "--name-status", "--no-renames", candidate.parent, candidate.commit, "--", "*.py"
    )
    files = [tuple(row.split("\t", 1)) for row in rows.splitlines() if "\t" in row]
    if len(files) > MAX_FILES:
        return None
    return Commit(repo, candidate.commit, candidate.parent, [(s[:1], p) for s, p in files])


def _case(
    commit: Commit, repo_name: str, kind: str, def_file: str, symbol: str, reason: str
) -> dict[str, Any]:
    return {
        "id": f"{repo_name.split('/')[-1]}-{commit.sha[:10]}-{symbol}",
        "repo": repo_name,
        "commit": commit.sha,
        "parent": commit.parent,
        "kind": kind,
        "def_file": def_file,
        "symbol": symbol,
        "reason": reason,
        "ground_truth": [],
        "neutral": [],
    }


def _calls(name: str) -> re.Pattern[str]:
    return re.compile(rf"(?<![\w]){re.escape(name)}\s*\(")


def _awaited_before(line: str, name: str) -> bool:
    match = _calls(name).search(line)
    if match is None:
        return False
    return bool(re.search(r"\bawait\b", line[: match.start()])) or any(r in line for r in _RUNNERS)


def _flips(commit: Commit, def_file: str, flipped: Any) -> list[tuple[Def, Def]]:
    """(old, new) definitions of `def_file` for which `flipped(old, new)` holds."""
    old_defs = defs_of(commit.text(commit.parent, def_file))
    new_defs = defs_of(commit.text(commit.sha, def_file))
    return [(old_defs[q], new) for q, new in new_defs.items() if q in old_defs and flipped(old_defs[q], new)]


def _async_flip(old: Def, new: Def) -> bool:
    return old.is_async != new.is_async and not old.is_generator and not new.is_generator


def _property_flip(old: Def, new: Def) -> bool:
    return bool(new.cls) and old.is_property != new.is_property


def mine_async(commit: Commit, repo_name: str) -> list[dict[str, Any]]:
    cases = []
    for def_file in commit.modified():
        for _old, new in _flips(commit, def_file, _async_flip):
            became_async = new.is_async
            case = _case(
                commit,
                repo_name,
                "async-mismatch",
                def_file,
                new.qualname,
                "became async" if became_async else "no longer async",
            )
            ambiguous = _other_defs(commit, new.name, def_file, became_async)
            classes = Classes(commit)
            for path in commit.modified():
                if path == def_file:
                    continue
                for number, before, after in commit.changed_lines(path):
                    if not _calls(new.name).search(before):
                        continue
                    fixed = (
                        after
                        and _calls(new.name).search(after)
                        and (_awaited_before(after, new.name) != _awaited_before(before, new.name))
                    )
                    direction_ok = fixed and _awaited_before(after, new.name) == became_async
                    if new.cls is None:
                        known = function_call_known(classes, path, number, (def_file, new.name))
                    else:
                        known = receiver_known(
                            classes, path, number, new.name, (def_file, new.cls.split(".")[0])
                        )
                    target = "ground_truth" if direction_ok and known and not ambiguous else "neutral"
                    case[target].append([path, number])
            if case["ground_truth"] or case["neutral"]:
                cases.append(case)
    return _with_def_files(cases)


def _other_defs(commit: Commit, name: str, def_file: str, became_async: bool) -> bool:
    """Whether `name` is defined elsewhere in a way this change does not explain: a def that, at the
    commit, still has the old form."""
    for path, _line, _is_async in commit.repo_defs(name):
        if path == def_file:
            continue
        new_defs = defs_of(commit.text(commit.sha, path))
        same_name = [d for d in new_defs.values() if d.name == name]
        if not same_name:
            continue  # removed at the commit: it no longer competes
        if any(d.is_async != became_async for d in same_name):
            return True
    return False


def mine_property(commit: Commit, repo_name: str) -> list[dict[str, Any]]:
    cases = []
    for def_file in commit.modified():
        for _old, new in _flips(commit, def_file, _property_flip):
            to_property = new.is_property
            case = _case(
                commit,
                repo_name,
                "property-mismatch",
                def_file,
                new.qualname,
                "became a property" if to_property else "became a method",
            )
            ambiguous = _other_property_defs(commit, new.name, def_file, to_property)
            classes = Classes(commit)
            assert new.cls is not None
            target_class = (def_file, new.cls.split(".")[0])
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
                    known = fixed and receiver_known(classes, path, number, new.name, target_class)
                    target = "ground_truth" if known and not ambiguous else "neutral"
                    case[target].append([path, number])
            if case["ground_truth"] or case["neutral"]:
                cases.append(case)
    return _with_def_files(cases)


def _other_property_defs(commit: Commit, name: str, def_file: str, to_property: bool) -> bool:
    for path, _line, _is_async in commit.repo_defs(name):
        if path == def_file:
            continue
        for definition in defs_of(commit.text(commit.sha, path)).values():
            if definition.name == name and definition.cls and definition.is_property != to_property:
                return True
    return False


class Classes:
    """Where a class's bases are defined, by following the imports of the files at the parent (paths,
    not module names: relative imports by path arithmetic, absolute ones under the usual source roots)."""

    def __init__(self, commit: Commit) -> None:
        self.commit = commit
        self._trees: dict[str, ast.Module | None] = {}

    def tree(self, path: str) -> ast.Module | None:
        if path not in self._trees:
            text = self.commit.text(self.commit.parent, path)
            try:
                self._trees[path] = ast.parse(text) if text is not None else None
            except (SyntaxError, ValueError, RecursionError):
                self._trees[path] = None
        return self._trees[path]

    def module_file(self, importer: str, module: str, level: int) -> str | None:
        parts = module.split(".") if module else []
        if level:
            base = Path(importer).parent
            for _ in range(level - 1):
                base = base.parent
            roots = [base.as_posix().strip(".").strip("/")]
        else:
            first = importer.split("/")
            roots = ["", "src", "lib"] + ["/".join(first[:i]) for i in range(1, len(first))]
        for root in roots:
            stem = "/".join([r for r in [root, *parts] if r])
            for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
                if self.tree(candidate) is not None:
                    return candidate
        return None

    def lookup(self, path: str, name: str, depth: int = 0) -> tuple[str, str] | None:
        """(file, name) of the class or function that `name` denotes at the top level of `path`."""
        tree = self.tree(path)
        if tree is None or depth > 6:
            return None
        for node in tree.body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
                return path, name
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if (alias.asname or alias.name) != name:
                        continue
                    source = self.module_file(path, node.module or "", node.level)
                    if source is None:
                        return None
                    found = self.lookup(source, alias.name, depth + 1)
                    if found is None and source.endswith("__init__.py"):
                        sub = self.module_file(
                            path, f"{node.module or ''}.{alias.name}".strip("."), node.level
                        )
                        return (sub, "") if sub else None
                    return found
        return None

    def resolve(self, path: str, spelling: str) -> tuple[str, str] | None:
        """What `C` or `module.C` written in `path` denotes."""
        head, _, attr = spelling.partition(".")
        if not attr:
            return self.lookup(path, head)
        module = self.module_alias(path, head)
        return self.lookup(module, attr) if module else None

    def module_alias(self, path: str, name: str) -> str | None:
        """The file of the module bound to `name` in `path` (`import a.b as name`, `from a import name`)."""
        tree = self.tree(path)
        for node in ast.walk(tree) if tree is not None else []:
            if isinstance(node, ast.Import):
                for alias in node.names:
                    if (alias.asname or alias.name.split(".")[0]) == name:
                        module = alias.name if alias.asname else alias.name.split(".")[0]
                        return self.module_file(path, module, 0)
            elif isinstance(node, ast.ImportFrom):
                for alias in node.names:
                    if (alias.asname or alias.name) == name:
                        return self.module_file(
                            path, f"{node.module or ''}.{alias.name}".strip("."), node.level
                        )
        return None

    def bases(self, path: str, name: str) -> list[tuple[str, str] | None]:
        tree = self.tree(path)
        node = (
            next((n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == name), None)
            if tree
            else None
        )
        result: list[tuple[str, str] | None] = []
        for base in node.bases if node is not None else []:
            if isinstance(base, ast.Subscript):
                base = base.value
            if isinstance(base, ast.Name):
                result.append(self.lookup(path, base.id))
            elif isinstance(base, ast.Attribute) and isinstance(base.value, ast.Name):
                module = self.module_alias(path, base.value.id)
                result.append(self.lookup(module, base.attr) if module else None)
            else:
                result.append(None)
        return result

    def inherits(self, path: str, name: str, target: tuple[str, str], depth: int = 0) -> bool | None:
        """True / False, or None when a base on the way cannot be followed."""
        if depth > 8:
            return None
        verdict: bool | None = False
        for base in self.bases(path, name):
            if base is None:
                verdict = None
                continue
            if base == target:
                return True
            found = self.inherits(base[0], base[1], target, depth + 1)
            if found:
                return True
            if found is None:
                verdict = None
        return verdict


def function_call_known(classes: Classes, path: str, line: int, target: tuple[str, str]) -> bool:
    """Whether a call on `line` of `path` (at the parent) calls the module-level function `target`
    through an import: `name(...)` / `alias(...)` bound by `from m import name [as alias]` and not
    rebound locally, or `module.name(...)`."""
    tree = classes.tree(path)
    if tree is None:
        return False
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call) or node.func.end_lineno != line:
            continue
        func = node.func
        if isinstance(func, ast.Name) and classes.lookup(path, func.id) == target:
            scopes = [parents.get(id(node))]
            while scopes[-1] is not None:
                scopes.append(parents.get(id(scopes[-1])))
            functions = [
                s for s in scopes if isinstance(s, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
            ]
            if not any(func.id in _assigned_names(f) for f in functions):
                return True
        if (
            isinstance(func, ast.Attribute)
            and func.attr == target[1]
            and isinstance(func.value, ast.Name)
            and classes.module_alias(path, func.value.id) == target[0]
        ):
            return True
    return False


def receiver_known(classes: Classes, path: str, line: int, name: str, target: tuple[str, str]) -> bool:
    """Whether a `.name(...)` / `.name` on `line` of `path` (at the parent) is reached through a receiver
    whose class is plainly the target class or a subclass: `self` / `cls` / `super()` in such a class,
    `Cls(...)`, `Cls`, or a local variable assigned `Cls(...)` or annotated `Cls`. Other receivers are
    unknown to a static checker (the rules do not report them), so their sites are neutral."""
    tree = classes.tree(path)
    if tree is None:
        return False
    parents = {id(child): node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
    return any(
        isinstance(node, ast.Attribute)
        and node.attr == name
        and node.end_lineno == line
        and _receiver_is(classes, path, node, parents, target)
        for node in ast.walk(tree)
    )


def _receiver_is(
    classes: Classes, path: str, node: ast.Attribute, parents: dict[int, ast.AST], target: tuple[str, str]
) -> bool:
    def is_target(found: tuple[str, str] | None) -> bool:
        return found is not None and (found == target or classes.inherits(found[0], found[1], target) is True)

    receiver = node.value
    chain = []
    current: ast.AST | None = node
    while current is not None:
        chain.append(current)
        current = parents.get(id(current))
    functions = [n for n in chain if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    owner = next((n for n in chain if isinstance(n, ast.ClassDef)), None)
    is_super = (
        isinstance(receiver, ast.Call) and isinstance(receiver.func, ast.Name) and receiver.func.id == "super"
    )
    if (isinstance(receiver, ast.Name) and receiver.id in ("self", "cls")) or is_super:
        return owner is not None and is_target((path, owner.name))
    if isinstance(receiver, ast.Call):
        return any(is_target(classes.resolve(path, c)) for c in _class_of(receiver.func))
    if (
        isinstance(receiver, ast.Attribute)
        and isinstance(receiver.value, ast.Name)
        and receiver.value.id == "self"
        and owner is not None
    ):
        return any(is_target(classes.resolve(path, c)) for c in _self_attribute_classes(owner, receiver.attr))
    if not isinstance(receiver, ast.Name):
        return False
    if receiver.id[:1].isupper():
        return is_target(classes.lookup(path, receiver.id))
    for function in functions:
        if any(is_target(classes.resolve(path, c)) for c in _local_classes(function, receiver.id)):
            return True
    if functions and any(receiver.id in _assigned_names(f) for f in functions):
        return False  # a local of unknown type
    return any(is_target(found) for found in _module_instance_classes(classes, path, receiver.id))


def _class_of(annotation: ast.expr | None) -> list[str]:
    """`C` or `module.C` (the spelling; `Classes.resolve` says what it denotes)."""
    if isinstance(annotation, ast.Name):
        return [annotation.id]
    if isinstance(annotation, ast.Attribute) and isinstance(annotation.value, ast.Name):
        return [f"{annotation.value.id}.{annotation.attr}"]
    return []


def _local_classes(function: ast.AST, name: str) -> list[str]:
    """Classes a local is annotated with or constructed from (`x: C`, `x = C(...)`, parameter `x: C`)."""
    found: list[str] = []
    for inner in ast.walk(function):
        if (isinstance(inner, ast.arg) and inner.arg == name) or (
            isinstance(inner, ast.AnnAssign)
            and isinstance(inner.target, ast.Name)
            and inner.target.id == name
        ):
            found += _class_of(inner.annotation)
        elif isinstance(inner, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in inner.targets
        ):
            found += _class_of(inner.value.func) if isinstance(inner.value, ast.Call) else []
    return found


def _assigned_names(function: ast.AST) -> set[str]:
    names = {a.arg for a in ast.walk(function) if isinstance(a, ast.arg)}
    return names | {
        n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)
    }


def _self_attribute_classes(owner: ast.ClassDef, attr: str) -> list[str]:
    """`attr: C` in the class body, `self.attr = C(...)`, `self.attr: C = ...`, or `self.attr = param`
    with `param: C`, in the class's own methods."""
    found: list[str] = []
    for statement in owner.body:
        if isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            found += _class_of(statement.annotation) if statement.target.id == attr else []
        if not isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        params = {a.arg: a.annotation for a in [*statement.args.args, *statement.args.kwonlyargs]}
        for inner in ast.walk(statement):
            targets = (
                inner.targets
                if isinstance(inner, ast.Assign)
                else [inner.target]
                if isinstance(inner, ast.AnnAssign)
                else []
            )
            for target in targets:
                if not (
                    isinstance(target, ast.Attribute)
                    and target.attr == attr
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "self"
                ):
                    continue
                if isinstance(inner, ast.AnnAssign):
                    found += _class_of(inner.annotation)
                value = inner.value
                if isinstance(value, ast.Call):
                    found += _class_of(value.func)
                elif isinstance(value, ast.Name):
                    found += _class_of(params.get(value.id))
    return found


def _module_instance_classes(classes: Classes, path: str, name: str, depth: int = 0) -> list[tuple[str, str]]:
    """`name = C(...)` / `name: C` at the top of `path`, or of the module it is imported from."""
    tree = classes.tree(path)
    found: list[tuple[str, str]] = []
    for statement in tree.body if tree is not None and depth < 3 else []:
        if isinstance(statement, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in statement.targets
        ):
            if isinstance(statement.value, ast.Call):
                found += [f for c in _class_of(statement.value.func) if (f := classes.resolve(path, c))]
        elif isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            if statement.target.id == name:
                found += [f for c in _class_of(statement.annotation) if (f := classes.resolve(path, c))]
        elif isinstance(statement, ast.ImportFrom):
            for alias in statement.names:
                if (alias.asname or alias.name) == name:
                    source = classes.module_file(path, statement.module or "", statement.level)
                    if source is not None:
                        found += _module_instance_classes(classes, source, alias.name, depth + 1)
    return found


def _stub(node: ast.FunctionDef | ast.AsyncFunctionDef) -> inspect.Signature | None:
    args = node.args
    copy = ast.arguments(
        posonlyargs=[ast.arg(a.arg) for a in args.posonlyargs],
        args=[ast.arg(a.arg) for a in args.args],
        vararg=ast.arg(args.vararg.arg) if args.vararg else None,
        kwonlyargs=[ast.arg(a.arg) for a in args.kwonlyargs],
        kw_defaults=[ast.Constant(None) if d is not None else None for d in args.kw_defaults],
        kwarg=ast.arg(args.kwarg.arg) if args.kwarg else None,
        defaults=[ast.Constant(None) for _ in args.defaults],
    )
    function = ast.Module(
        body=[ast.FunctionDef(name="stub", args=copy, body=[ast.Pass()], decorator_list=[], lineno=1)],
        type_ignores=[],
    )
    namespace: dict[str, Any] = {}
    try:
        exec(compile(ast.fix_missing_locations(function), "<stub>", "exec"), namespace)
    except (SyntaxError, ValueError, TypeError):
        return None
    signature = inspect.signature(namespace["stub"])
    decorators = {ast.unparse(d).rsplit(".", 1)[-1] for d in node.decorator_list}
    params = list(signature.parameters.values())
    if (
        "staticmethod" not in decorators
        and params
        and params[0].kind
        in (
            inspect.Parameter.POSITIONAL_ONLY,
            inspect.Parameter.POSITIONAL_OR_KEYWORD,
        )
    ):
        params = params[1:]
    return signature.replace(parameters=params)


def _sample_calls(signature: inspect.Signature) -> list[tuple[tuple[int, ...], dict[str, int]]]:
    P = inspect.Parameter
    positional = [
        p for p in signature.parameters.values() if p.kind in (P.POSITIONAL_ONLY, P.POSITIONAL_OR_KEYWORD)
    ]
    keyword_only = [p for p in signature.parameters.values() if p.kind is P.KEYWORD_ONLY]
    required_kw = {p.name: 1 for p in keyword_only if p.default is P.empty}
    required_count = max((i + 1 for i, p in enumerate(positional) if p.default is P.empty), default=0)
    calls: list[tuple[tuple[int, ...], dict[str, int]]] = []
    for count in range(required_count, len(positional) + 1):
        calls.append((tuple(range(count)), dict(required_kw)))
    for parameter in keyword_only:
        calls.append((tuple(range(required_count)), {**required_kw, parameter.name: 1}))
    kinds = {p.kind for p in signature.parameters.values()}
    if P.VAR_POSITIONAL in kinds:
        calls.append((tuple(range(len(positional) + 1)), dict(required_kw)))
    if P.VAR_KEYWORD in kinds:
        calls.append((tuple(range(required_count)), {**required_kw, "zz_extra_keyword": 1}))
    return calls


def accepts_all(base: Def, override: Def) -> bool | None:
    base_sig, override_sig = _stub(base.node), _stub(override.node)
    if base_sig is None or override_sig is None:
        return None
    if base.is_async != override.is_async:
        return False
    for args, kwargs in _sample_calls(base_sig):
        try:
            override_sig.bind(*args, **kwargs)
        except TypeError:
            return False
    return True


def _params_changed(old: Def, new: Def) -> bool:
    return ast.dump(old.node.args) != ast.dump(new.node.args) or old.is_async != new.is_async


def mine_override(commit: Commit, repo_name: str) -> list[dict[str, Any]]:
    cases: list[dict[str, Any]] = []
    classes = Classes(commit)
    defs_old = {p: defs_of(commit.text(commit.parent, p)) for p in commit.modified()}
    defs_new = {p: defs_of(commit.text(commit.sha, p)) for p in commit.modified()}
    for def_file in commit.modified():
        for qualname, new in defs_new[def_file].items():
            old = defs_old[def_file].get(qualname)
            if old is None or new.cls is None or "." in new.cls or new.name in ("__init__", "__new__"):
                continue
            if not _params_changed(old, new) or old.is_property or new.is_property:
                continue
            overrides = _changed_overrides(commit, defs_old, defs_new, def_file, new.name)
            if not overrides:
                continue
            case = _case(commit, repo_name, "override-mismatch", def_file, qualname, "base signature changed")
            for path, over_old, over_new in overrides:
                assert over_old.cls is not None
                inherits = classes.inherits(path, over_old.cls, (def_file, new.cls))
                if inherits is False:
                    continue
                line = over_old.node.lineno
                before_ok = accepts_all(old, over_old)
                after_ok = accepts_all(new, over_old)
                judged = over_new is not None and inherits and before_ok is True and after_ok is False
                case["ground_truth" if judged else "neutral"].append([path, line])
            if case["ground_truth"] or case["neutral"]:
                cases.append(case)
    return _with_def_files(cases)


def _with_def_files(cases: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One stale PR per commit and rule: every file holding a change of that kind is taken from the
    commit, and sites in those files stop counting (they are already fixed there). Cases without ground
    truth stay when the stale PR has some: their neutral sites count there."""
    def_files = sorted({case["def_file"] for case in cases})
    for case in cases:
        case["def_files"] = def_files
        for what in ("ground_truth", "neutral"):
            case[what] = [site for site in case[what] if site[0] not in def_files]
    return cases if any(case["ground_truth"] for case in cases) else []


def _changed_overrides(
    commit: Commit,
    defs_old: dict[str, dict[str, Def]],
    defs_new: dict[str, dict[str, Def]],
    def_file: str,
    name: str,
) -> list[tuple[str, Def, Def | None]]:
    found: list[tuple[str, Def, Def | None]] = []
    for path in commit.modified():
        if path == def_file:
            continue
        for qualname, over_new in defs_new[path].items():
            over_old = defs_old[path].get(qualname)
            if over_old is None or over_new.name != name or not over_new.cls or "." in over_new.cls:
                continue
            if _params_changed(over_old, over_new):
                found.append((path, over_old, over_new))
        for qualname, over_old in defs_old[path].items():
            if (
                qualname not in defs_new[path]
                and over_old.name == name
                and over_old.cls
                and "." not in over_old.cls
            ):
                found.append((path, over_old, None))  # removed by the commit: a fix, judged neutral
    return found


MINERS = {"async": mine_async, "property": mine_property, "override": mine_override}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("repo", type=Path)
    parser.add_argument("name", help="owner/name, recorded in each case")
    parser.add_argument("--rules", default="async,property,override")
    args = parser.parse_args(argv)
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
            except (RecursionError, ValueError) as error:
                print(f"skip {candidate.commit[:10]} {rule}: {error}", file=sys.stderr)
                continue
            for case in found:
                if len(case["ground_truth"]) > MAX_SITES:
                    case["neutral"] += case["ground_truth"]
                    case["ground_truth"] = []
                    continue
                cases.append(case)
    print(f"{args.name}: {seen} candidate commits, {len(cases)} cases", file=sys.stderr)
    json.dump(cases, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
