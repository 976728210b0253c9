"""The repository's modules as the resolver sees them: files and their names, cached scans, module-level
bindings, class facts, annotations, and the occurrences of a word. `CodeIndex` builds its queries on it.
"""

from __future__ import annotations

import ast
import re
import threading
from collections.abc import Callable, Iterable
from pathlib import Path

from prscope.analysis.deadline import check_deadline
from prscope.analysis.intel.classes import assigned_attribute, function_returns, local_class_facts
from prscope.analysis.intel.files import FileLister, RepoFiles, SourceReader
from prscope.analysis.intel.lru import Lru
from prscope.analysis.intel.resolve import Resolver
from prscope.analysis.intel.scan import (
    ClassFacts,
    FileScan,
    ModuleFacts,
    Occurrence,
    WordScan,
    module_facts,
    scan_word,
)
from prscope.analysis.intel.scan import class_facts as scan_class_facts
from prscope.analysis.intel.scopes import Binding
from prscope.analysis.intel.units import Unit, place_in_file, recover_statements

_MAX_SCANS = 6000
MAX_WORD_SCANS = 40_000
_MAX_TREES = 48
_MAX_UNIT_TREES = 1024
"""Parts of files kept parsed and placed (functions, methods, runs of statements; a whole file when its
parts do not parse alone)."""
PSEUDO_PREFIX = "<file>:"
_SELF_ASSIGNMENT = re.compile(r"[ \t]+self\.([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=(?!=)")
DOT_INIT_PATTERN = r"\.[[:space:]]*__init__([^[:alnum:]_]|$)"


class ModuleIndex:
    """Modules, scans and resolution facts over one repository's Python files (thread-safe)."""

    def __init__(
        self, repo_root: Path, *, source: SourceReader | None = None, listing: FileLister | None = None
    ) -> None:
        self.repo_root = Path(repo_root).resolve()
        self._files = RepoFiles(self.repo_root, source, listing)
        self._lock = threading.RLock()
        self._scans: Lru[tuple[str, str], FileScan] = Lru(_MAX_SCANS)
        self._facts: Lru[str, ModuleFacts] = Lru(_MAX_SCANS)
        self._classes: Lru[tuple[str, str], ClassFacts | None] = Lru(MAX_WORD_SCANS)
        self._annotations: Lru[tuple[str, str], tuple[str, ...] | None] = Lru(MAX_WORD_SCANS)
        self._members: Lru[tuple[str, str], set[str]] = Lru(MAX_WORD_SCANS)
        self._words: Lru[tuple[str, str], WordScan] = Lru(MAX_WORD_SCANS)
        self._trees: Lru[str, ast.Module | None] = Lru(_MAX_TREES)
        self._unit_trees: Lru[tuple[str, int, int, str], tuple[Unit, ast.Module] | None]
        self._unit_trees = Lru(_MAX_UNIT_TREES)
        self._file_list: list[str] | None = None
        self._tracking = threading.local()

    def files_too_large(self) -> dict[str, int]:
        """Files the index would not read (above MAX_INDEX_BYTES), with their sizes in bytes."""
        return dict(self._files.too_large)

    def python_files(self) -> list[str]:
        files = self._files.python_files()
        with self._lock:
            self._file_list = files
        return files

    def _current_files(self) -> list[str]:
        return self.python_files()

    def module_name(self, path: str) -> str | None:
        if self._file_list is None:
            self.python_files()
        return self._files.module_name(path)

    def source(self, path: str) -> str | None:
        kept = self._files.kept_text(path)
        if kept is not None:
            return kept  # a file read at a revision never changes: its text as read, no scan needed
        scan = self._scan(path)
        if scan is None:
            return None
        return "".join(scan.lines)

    def parse(self, path: str) -> ast.Module | None:
        scan = self._scan(path)
        if scan is None:
            return None
        with self._lock:
            if scan.digest in self._trees:
                return self._trees.recall(scan.digest)
        tree = scan.whole_tree()
        with self._lock:
            self._trees.put(scan.digest, tree)
        return tree

    def parse_tolerant(self, path: str) -> ast.Module | None:
        """The module's tree; for Python 2 code, which does not parse as a whole, the top-level statements
        that parse on their own, so the classes of a file with one `print x` still count."""
        tree = self.parse(path)
        if tree is not None:
            return tree
        scan = self._scan(path)
        if scan is None or not scan.python2:
            return None
        return recover_statements(scan.seg, Unit("whole", 0, len(scan.seg.lines)))

    def parts_at(self, path: str, lines: set[int]) -> list[tuple[str, ast.Module]] | None:
        """The parsed units holding the 1-based `lines`, each with the qualname prefix of what it defines
        (`Cls.` for a method's unit): a huge file is parsed only where a query needs it. None when the
        whole file had to be parsed (or does not parse): the caller reads `parse(path)`."""
        scan = self._scan(path)
        if scan is None or scan.whole:
            return None
        wanted = [u for u in scan.seg.units if any(u.start < line <= u.end for line in lines)]
        parts: list[tuple[str, ast.Module]] = []
        for unit, tree in scan.trees(wanted):
            if unit.kind == "whole" or scan.whole:
                return None
            parts.append((f"{unit.class_name}." if unit.kind == "method" else "", tree))
        return parts

    def _scan(self, path: str) -> FileScan | None:
        scan = self._load_scan(path)
        consulted: dict[str, str] | None = getattr(self._tracking, "consulted", None)
        if consulted is not None:
            consulted[path] = scan.digest if scan is not None else ""
        return scan

    def _load_scan(self, path: str) -> FileScan | None:
        check_deadline()
        digest = self._files.digest_if_unchanged(path)
        if digest is not None:
            with self._lock:
                cached = self._scans.get((path, digest))
                if cached is not None:
                    return cached
        source = self._files.read(path)
        if source is None:
            return None
        self._files.remember_digest(source)
        key = (path, source.digest)
        with self._lock:
            cached = self._scans.get(key)
            if cached is not None:
                return cached
        scan = FileScan(path, source.text, source.digest)
        with self._lock:
            self._scans.put(key, scan)
        return scan

    def _module_facts(self, scan: FileScan) -> ModuleFacts:
        with self._lock:
            facts = self._facts.get(scan.digest)
        if facts is None:
            facts = module_facts(scan)
            with self._lock:
                self._facts.put(scan.digest, facts)
        return facts

    def _word_scan(self, scan: FileScan, word: str, lines: list[int] | None) -> WordScan:
        key = (scan.digest, word)
        with self._lock:
            cached = self._words.get(key)
        if cached is None:
            cached = scan_word(scan, word, lines)
            with self._lock:
                self._words.put(key, cached)
        return cached

    def _path_of_module(self, module: str) -> str | None:
        if module.startswith(PSEUDO_PREFIX):
            return module[len(PSEUDO_PREFIX) :]
        return self._files.module_path(module)

    def _facts_of_module(self, module: str) -> ModuleFacts | None:
        path = self._path_of_module(module)
        if path is None:
            return None
        scan = self._scan(path)
        if scan is None:
            return None
        return self._module_facts(scan)

    def in_repo(self, module: str) -> bool:
        return self._path_of_module(module) is not None

    def canonical(self, module: str) -> str:
        path = self._path_of_module(module)
        return self._file_module(path)[0] if path is not None else module

    def sibling_module(self, current: str, name: str) -> str | None:
        path = self._path_of_module(current)
        if path is None or "/" not in path:
            return None
        directory = path.rsplit("/", 1)[0]
        if self._files.has_file(f"{directory}/__init__.py"):
            return None  # inside a package, `import x` is absolute
        stem = f"{directory}/{name.replace('.', '/')}"
        for candidate in (f"{stem}.py", f"{stem}/__init__.py"):
            if self._files.has_file(candidate):
                return self._file_module(candidate)[0]
        return None

    def is_module(self, module: str) -> bool:
        return self._files.known_module(module)

    def is_package(self, module: str) -> bool:
        return self._files.is_package(module)

    def module_bindings(self, module: str, name: str) -> list[Binding]:
        path = self._path_of_module(module)
        scan = self._scan(path) if path is not None else None
        if scan is None:
            return []
        with self._lock:
            word_scan = self._words.get((scan.digest, name))
        if word_scan is not None:
            return word_scan.module_bindings
        # Any other name (a receiver's head, say): the module-level statements tell, without parsing
        # every function that happens to use a variable of that name.
        return self._module_facts(scan).bindings.get(name, [])

    def star_imports(self, module: str) -> list[tuple[str, int]]:
        path = self._path_of_module(module)
        scan = self._scan(path) if path is not None else None
        return scan.star_imports() if scan is not None else []

    def all_names(self, module: str) -> set[str] | None:
        facts = self._facts_of_module(module)
        return facts.all_names if facts is not None else None

    def function_returns(self, module: str, qualname: str) -> tuple[str, ...] | None:
        return self._annotation(module, f"returns:{qualname}", lambda scan: function_returns(scan, qualname))

    def assigned_attribute(self, module: str, class_name: str, attr: str) -> tuple[str, ...] | None:
        key = f"attribute:{class_name}.{attr}"
        return self._annotation(module, key, lambda scan: assigned_attribute(scan, class_name, attr))

    def _annotation(
        self, module: str, what: str, read: Callable[[FileScan], tuple[str, ...] | None]
    ) -> tuple[str, ...] | None:
        """A class named by an annotation or assignment in `module`, read once per file version."""
        path = self._path_of_module(module)
        scan = self._scan(path) if path is not None else None
        if scan is None:
            return None
        key = (scan.digest, what)
        with self._lock:
            if key in self._annotations:
                return self._annotations.recall(key)
        found = read(scan)
        with self._lock:
            self._annotations.put(key, found)
        return found

    def class_facts(self, module: str, name: str) -> ClassFacts | None:
        path = self._path_of_module(module)
        scan = self._scan(path) if path is not None else None
        if scan is None:
            return None
        key = (scan.digest, name)
        with self._lock:
            if key in self._classes:
                return self._classes.recall(key)
        found = scan_class_facts(scan, name)
        if found is None:
            found = local_class_facts(scan, name)
        with self._lock:
            self._classes.put(key, found)
        return found

    def _file_module(self, path: str) -> tuple[str, bool]:
        module = self._files.module_name(path)
        is_package = path.endswith("__init__.py")
        if module is None or self._files.module_path(module) != path:
            # Not importable, or one of several files with this name (`conftest`): the file's own
            # names must be looked up in this very file.
            return f"{PSEUDO_PREFIX}{path}", False
        return module, is_package

    def _new_resolver(self) -> Resolver:
        return Resolver(self)

    def new_resolver(self) -> Resolver:
        """A resolver over the current file versions; it memoises, so use one per query or check run."""
        return Resolver(self)

    def file_module(self, path: str) -> tuple[str, bool]:
        """(module name, is a package) that names in `path` resolve against."""
        return self._file_module(path)

    def module_path(self, module: str) -> str | None:
        """The file of a module (by its name or another name it is imported by)."""
        if self._file_list is None:
            self.python_files()
        return self._path_of_module(module)

    def word_lines(self, word: str, files: set[str]) -> dict[str, list[int]]:
        """Files among `files` that mention `word` as a whole word, with those lines (1-based)."""
        return self._grep_lines([word], files).get(word, {})

    def unit_at(self, path: str, line: int) -> Unit | None:
        """The part of the file (a function, a method, a run of module-level statements) holding `line`."""
        scan = self._scan(path)
        if scan is None:
            return None
        return next((u for u in scan.readable_units if u.start < line <= u.end), None)

    def unit_tree(self, path: str, line: int) -> tuple[Unit, ast.Module] | None:
        """The syntax tree of the part of the file holding `line` (the whole file when that part does
        not parse alone), with every node's position moved to where it is in the file."""
        scan = self._scan(path)
        unit = self.unit_at(path, line)
        if scan is None or unit is None:
            return None
        # Kept for a while, shared read-only: the checks and the inference ask for the same parts again
        # and again (a third of sqlalchemy's unit trees were asked for more than once).
        key = (scan.digest, unit.start, unit.end, unit.kind)
        with self._lock:
            if key in self._unit_trees:
                return self._unit_trees.recall(key)
        located = self._placed_tree(scan, unit)
        with self._lock:
            self._unit_trees.put(key, located)
        return located

    @staticmethod
    def _placed_tree(scan: FileScan, unit: Unit) -> tuple[Unit, ast.Module] | None:
        for parsed, tree in scan.trees([unit]):
            return parsed, place_in_file(tree, scan.lines, parsed.start, parsed.indent)
        return None

    def class_member_names(self, module: str, name: str) -> set[str] | None:
        """What a top-level class defines: its body's names, its methods, and the attributes its methods
        assign on `self` (found in the text, without parsing the methods)."""
        path = self._path_of_module(module)
        scan = self._scan(path) if path is not None else None
        facts = self.class_facts(module, name)
        if facts is None or scan is None:
            return None
        key = (scan.digest, f"members:{name}")
        with self._lock:
            cached = self._members.get(key)
        if cached is None:
            body = scan.lines[facts.line - 1 : facts.end_line]
            assigned = {m.group(1) for line in body if "self" in line and (m := _SELF_ASSIGNMENT.match(line))}
            cached = facts.members | assigned
            with self._lock:
                self._members.put(key, cached)
        return cached

    def file_units(self, path: str) -> list[Unit]:
        """The parts the file is split into (empty when it cannot be read)."""
        scan = self._scan(path)
        return list(scan.readable_units) if scan is not None else []

    def has_python_file(self, path: str) -> bool:
        if self._file_list is None:
            self.python_files()
        return self._files.has_file(path)

    def files_with_any_word(self, words: Iterable[str], files: set[str]) -> set[str]:
        """Files among `files` that mention any of `words` as a whole word (one grep for all)."""
        return set(self._files.files_with_words(words, sorted(files)))

    def occurrences(self, path: str, word: str, lines: list[int] | None = None) -> list[Occurrence] | None:
        """Every occurrence of `word` in the file's code (`lines`: where it appears, when known); None
        when the file cannot be read or parsed."""
        scan = self._scan(path)
        if scan is None:
            return None
        word_scan = self._word_scan(scan, word, lines or None)
        return None if word_scan.syntax_error is not None else word_scan.occurrences

    def _files_source_override(self) -> bool:
        return self._files.has_source_override

    def _longest_module_prefix(self, parts: list[str]) -> int | None:
        if self._file_list is None:
            self.python_files()
        for length in range(len(parts), 0, -1):
            if self._files.known_module(".".join(parts[:length])):
                return length
        return None

    def _grep_lines(self, words: list[str], file_set: set[str]) -> dict[str, dict[str, list[int]]]:
        """word -> path -> line numbers, for files in `file_set` containing the word."""
        result: dict[str, dict[str, list[int]]] = {}
        for word in words:
            per_file: dict[str, list[int]] = {}
            if self._files_source_override():
                for path in self._files.files_with_words([word], sorted(file_set)):
                    per_file[path] = []
            else:
                # Constructors are reached as `.__init__` only (super().__init__, Base.__init__(self)):
                # grepping for every `def __init__` would make every class a candidate.
                pattern = ["-E", "-e", DOT_INIT_PATTERN] if word == "__init__" else ["-w", "-e", word]
                output = self._files.grep_python("-n", *pattern)
                for row in output.split("\n"):
                    parts = row.split("\0", 2)
                    if len(parts) < 2 or parts[0] not in file_set or not parts[1].isdigit():
                        continue
                    per_file.setdefault(parts[0], []).append(int(parts[1]))
            result[word] = per_file
        return result

    def class_header_rows(self) -> list[tuple[str, str]]:
        """(path, text) of every line of the Python files that starts a `class` statement."""
        return self._files.class_header_rows()

    def assigned_aliases(self, path: str, words: Iterable[str]) -> list[str]:
        """Names the module binds to one of `words` by plain assignment (`parse = parse_impl`,
        `X = _impl.X`), under if/try too."""
        scan = self._scan(path)
        if scan is None:
            return []
        wanted = set(words)
        bindings = self._module_facts(scan).bindings
        return sorted(
            name
            for name, found in bindings.items()
            if any(b.kind == "alias" and b.chain and b.chain[-1] in wanted for b in found)
        )
