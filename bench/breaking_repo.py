"""A repository at one revision, read straight from git, and the references to a top-level name in it.

Part of bench/mine_breaking.py. Files are read with one long-lived `git cat-file --batch` and parsed once
per blob, so walking thousands of commits reparses only what changed. Import resolution is by path,
bench/mine_rules.py's `Classes` (which `Resolver` extends): relative imports by path arithmetic,
absolute ones under the repository root, `src/`, `lib/` and the importer's own parent directories
(tests that import their siblings), except that a standard-library module name is never looked up
next to the importer (`import json` in `pkg/app.py` is the standard library, not `pkg/json/`).
"""

from __future__ import annotations

import ast
import subprocess
import sys
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path

from breaking_sigs import module_level
from mine_rules import Classes

MAX_TREES = 1500
MAX_INDEXES = 600
STDLIB = frozenset(sys.stdlib_module_names)


@dataclass
class Occurrence:
    node: ast.AST
    parent: ast.AST | None


class FileIndex:
    """The names, attributes and imports of one parsed file, each with its parent node (one walk per file
    version, shared by every change and commit that looks at it)."""

    def __init__(self, tree: ast.Module) -> None:
        self.tree = tree
        self.names: dict[str, list[Occurrence]] = {}
        self.attrs: dict[str, list[Occurrence]] = {}
        self.imports: list[Occurrence] = []
        stack: list[tuple[ast.AST, ast.AST | None]] = [(tree, None)]
        while stack:
            node, parent = stack.pop()
            if isinstance(node, ast.Name):
                self.names.setdefault(node.id, []).append(Occurrence(node, parent))
            elif isinstance(node, ast.Attribute):
                self.attrs.setdefault(node.attr, []).append(Occurrence(node, parent))
            elif isinstance(node, ast.Import | ast.ImportFrom):
                self.imports.append(Occurrence(node, parent))
            stack.extend((child, node) for child in ast.iter_child_nodes(node))


class Blobs:
    """Blob contents and parsed trees of one repository, by object id."""

    def __init__(self, repo: Path) -> None:
        self.repo = repo
        self._process = subprocess.Popen(
            ["git", "cat-file", "--batch"], cwd=repo, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._trees: OrderedDict[str, ast.Module | None] = OrderedDict()
        self._texts: OrderedDict[str, str | None] = OrderedDict()
        self._indexes: OrderedDict[str, FileIndex | None] = OrderedDict()

    def text(self, blob: str) -> str | None:
        if blob in self._texts:
            self._texts.move_to_end(blob)
            return self._texts[blob]
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(blob.encode() + b"\n")
        self._process.stdin.flush()
        header = self._process.stdout.readline().split()
        text: str | None = None
        if len(header) == 3 and header[1] == b"blob":
            data = self._process.stdout.read(int(header[2]))
            self._process.stdout.read(1)
            text = data.decode("utf-8", errors="replace")
        self._texts[blob] = text
        if len(self._texts) > MAX_TREES:
            self._texts.popitem(last=False)
        return text

    def tree(self, blob: str) -> ast.Module | None:
        if blob in self._trees:
            self._trees.move_to_end(blob)
            return self._trees[blob]
        text = self.text(blob)
        try:
            tree = ast.parse(text) if text is not None else None
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        self._trees[blob] = tree
        if len(self._trees) > MAX_TREES:
            self._trees.popitem(last=False)
        return tree

    def index(self, blob: str) -> FileIndex | None:
        if blob in self._indexes:
            self._indexes.move_to_end(blob)
            return self._indexes[blob]
        tree = self.tree(blob)
        index = FileIndex(tree) if tree is not None else None
        self._indexes[blob] = index
        if len(self._indexes) > MAX_INDEXES:
            self._indexes.popitem(last=False)
        return index

    def close(self) -> None:
        if self._process.stdin is not None:
            self._process.stdin.close()
        self._process.wait()


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, errors="replace")
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])}: {done.stderr.strip()[:200]}")
    return done.stdout


@dataclass
class Snapshot:
    """The Python files of the repository at `rev`."""

    blobs: Blobs
    rev: str
    files: dict[str, str] = field(default_factory=dict)

    @classmethod
    def at(cls, blobs: Blobs, rev: str) -> Snapshot:
        files = {}
        for row in git(blobs.repo, "ls-tree", "-r", "-z", rev).split("\0"):
            meta, _, path = row.partition("\t")
            parts = meta.split()
            if path.endswith(".py") and len(parts) == 3 and parts[1] == "blob":
                files[path] = parts[2]
        return cls(blobs, rev, files)

    def tree(self, path: str) -> ast.Module | None:
        blob = self.files.get(path)
        return self.blobs.tree(blob) if blob else None

    def index(self, path: str) -> FileIndex | None:
        blob = self.files.get(path)
        return self.blobs.index(blob) if blob else None

    def lines(self, path: str) -> list[str]:
        blob = self.files.get(path)
        text = self.blobs.text(blob) if blob else None
        return text.splitlines() if text else []

    def grep(self, *words: str, fixed: str | None = None) -> list[str]:
        """Python files mentioning any of `words` as a word (or the literal `fixed`)."""
        patterns = [fixed] if fixed is not None else list(words)
        return self._grep(["-F"] if fixed is not None else ["-F", "-w"], patterns)

    def defs_named(self, name: str) -> list[str]:
        """Files holding a `def name` (any depth; `async def` too)."""
        return self._grep(["-F", "-w"], [f"def {name}"])

    def _grep(self, options: list[str], patterns: list[str]) -> list[str]:
        args = ["git", "grep", "-l", "-I", *options]
        for pattern in patterns:
            args += ["-e", pattern]
        done = subprocess.run(
            [*args, self.rev, "--", "*.py"],
            cwd=self.blobs.repo,
            capture_output=True,
            text=True,
            errors="replace",
        )
        prefix = f"{self.rev}:"
        return [row[len(prefix) :] for row in done.stdout.splitlines() if row.startswith(prefix)]


class Resolver(Classes):
    """mine_rules.Classes over a Snapshot, with the standard-library rule for absolute imports."""

    def __init__(self, snapshot: Snapshot) -> None:
        self.snapshot = snapshot
        self._modules: dict[tuple[str, str, int], str | None] = {}

    def tree(self, path: str) -> ast.Module | None:
        return self.snapshot.tree(path)

    def module_file(self, importer: str, module: str, level: int) -> str | None:
        stdlib = not level and module.split(".")[0] in STDLIB
        key = ("" if stdlib else importer, module, level)
        if key not in self._modules:
            self._modules[key] = super().module_file(key[0], module, level)
        return self._modules[key]


Alias = tuple[str, str]
"""(file, name): `name` at the top level of `file` denotes the target."""


@dataclass
class Ref:
    path: str
    line: int
    node: ast.AST
    form: str
    """'import' (the name in an import), 'use' (the bound name), 'attr' (`module.name`)."""
    parent: ast.AST | None = None
    module: str = ""
    """For 'attr': the module file the attribute is read from (the target's own, or a re-exporter)."""


class TopLevelRefs:
    """Every reference to one module-level name, followed through imports, re-exports (`from .a import X`
    in a package), star imports and assignment aliases (`X = XImpl`). Like the dev set's miner, a name
    an import binds is taken to mean the import everywhere in the file (no scoping, no shadowing)."""

    def __init__(
        self,
        resolver: Resolver,
        aliases: set[Alias],
        follow: bool = True,
        alive: frozenset[Alias] = frozenset(),
    ) -> None:
        """`alive`: aliases not to follow (for a removed name: other names of it that its module still
        binds at the commit, such as `Future` in `Future = _DummyFuture`; uses of them do not break)."""
        self.resolver = resolver
        self.aliases: set[Alias] = set(aliases)
        self.alive = alive
        if follow:
            self._follow_reexports()

    def names(self) -> set[str]:
        return {name for _file, name in self.aliases}

    def _follow_reexports(self) -> None:
        snapshot = self.resolver.snapshot
        star_files = set(snapshot.grep(fixed="import *"))
        searched: set[str] = set()
        for _round in range(5):
            fresh = self.names() - searched
            if not fresh:
                break
            searched |= fresh
            before = len(self.aliases)
            for path in sorted(set(snapshot.grep(*sorted(fresh))) | star_files):
                self.aliases |= self._exported_by(path) - self.alive
            if len(self.aliases) == before:
                break

    def _exported_by(self, path: str) -> set[Alias]:
        tree = self.resolver.tree(path)
        found: set[Alias] = set()
        if tree is None:
            return found
        for statement in module_level(tree.body):
            if isinstance(statement, ast.ImportFrom):
                source = self.resolver.module_file(path, statement.module or "", statement.level)
                for alias in statement.names:
                    if alias.name == "*":
                        found |= {(path, n) for f, n in self.aliases if f == source and not n.startswith("_")}
                    elif (source, alias.name) in self.aliases:
                        found.add((path, alias.asname or alias.name))
            elif isinstance(statement, ast.Assign) and len(statement.targets) == 1:
                target, value = statement.targets[0], statement.value
                if isinstance(target, ast.Name) and self._denotes(path, value, {n for _f, n in found}):
                    found.add((path, target.id))
        return found

    def _denotes(self, path: str, value: ast.expr, bound: set[str]) -> bool:
        if isinstance(value, ast.Name):
            return value.id in bound or (path, value.id) in self.aliases
        if isinstance(value, ast.Attribute):
            module = self.module_of(path, value.value, {})
            return module is not None and (module, value.attr) in self.aliases
        return False

    def module_of(self, path: str, node: ast.expr, modules: dict[str, str]) -> str | None:
        """The module file a dotted expression (`m`, `a.b.c`) denotes in `path`, given its module bindings."""
        spelling = []
        while isinstance(node, ast.Attribute):
            spelling.append(node.attr)
            node = node.value
        if not isinstance(node, ast.Name) or node.id not in modules:
            return None
        base = modules[node.id]
        if base == "import:":
            dotted = ".".join([node.id, *reversed(spelling)])
            return self.resolver.module_file(path, dotted, 0)
        if not spelling:
            return base
        package = base[: -len("/__init__.py")] if base.endswith("/__init__.py") else None
        if package is None:
            return None
        stem = "/".join([package, *reversed(spelling)])
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            if candidate in self.resolver.snapshot.files:
                return candidate
        return None

    def refs_in(self, path: str) -> list[Ref]:
        index = self.resolver.snapshot.index(path)
        if index is None:
            return []
        refs: list[Ref] = []
        bound, modules = self._bindings(path, index, refs)
        bound |= {n for f, n in self.aliases if f == path}
        for name in bound:
            for use in index.names.get(name, []):
                node = use.node
                assert isinstance(node, ast.Name)
                if not isinstance(node.ctx, ast.Store):
                    refs.append(Ref(path, node.lineno, node, "use", use.parent))
        for name in self.names() if modules else set():
            for use in index.attrs.get(name, []):
                node = use.node
                assert isinstance(node, ast.Attribute)
                module = self.module_of(path, node.value, modules)
                if module is not None and (module, name) in self.aliases:
                    refs.append(Ref(path, node.end_lineno or node.lineno, node, "attr", use.parent, module))
        return refs

    def _bindings(self, path: str, index: FileIndex, refs: list[Ref]) -> tuple[set[str], dict[str, str]]:
        """Names bound to the target, and names bound to modules ({name: module file, or 'import:' for
        `import a.b` binding `a`}), wherever the import is in the file."""
        bound: set[str] = set()
        modules: dict[str, str] = {}
        for found in index.imports:
            node = found.node
            if isinstance(node, ast.ImportFrom):
                source = self.resolver.module_file(path, node.module or "", node.level)
                for alias in node.names:
                    local = alias.asname or alias.name
                    if alias.name == "*":
                        for f, n in self.aliases:
                            if f == source and not n.startswith("_"):
                                bound.add(n)
                    elif (source, alias.name) in self.aliases:
                        refs.append(Ref(path, getattr(alias, "lineno", node.lineno), alias, "import"))
                        bound.add(local)
                    else:
                        dotted = f"{node.module or ''}.{alias.name}".strip(".")
                        sub = self.resolver.module_file(path, dotted, node.level)
                        if sub is not None and any(f == sub for f, _n in self.aliases):
                            modules[local] = sub
            elif isinstance(node, ast.Import):
                for alias in node.names:
                    if alias.asname:
                        module = self.resolver.module_file(path, alias.name, 0)
                        if module is not None:
                            modules[alias.asname] = module
                    else:
                        modules.setdefault(alias.name.split(".")[0], "import:")
        return bound, modules
