"""`CodeIndex`: complete, import-aware symbol lookup over a repository's Python files.

A query greps for the symbol's word (`git grep -w`), parses only the units of the candidate files that
mention it, and resolves each occurrence through the file's imports. Scans are cached by content digest,
so a repeated query re-reads nothing that did not change, and an edited file is rescanned.
"""

from __future__ import annotations

import ast
import re
import threading
from collections import OrderedDict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, TypeVar

from analysis.deadline import check_deadline
from analysis.intel.classes import assigned_attribute, function_returns
from analysis.intel.definitions import definitions_in_tree
from analysis.intel.files import RepoFiles, SourceReader
from analysis.intel.meaning import (
    attribute_values,
    import_values,
    name_values,
    receiver_relation,
)
from analysis.intel.models import Definition, Reference, ReferenceKind, UsageResult
from analysis.intel.naming import is_dotted_name
from analysis.intel.resolve import Relation, Resolver, Value
from analysis.intel.scan import (
    ClassFacts,
    FileScan,
    ModuleFacts,
    Occurrence,
    WordScan,
    module_facts,
    scan_word,
)
from analysis.intel.scan import class_facts as scan_class_facts
from analysis.intel.scopes import Binding

TargetKind = Literal["member", "method", "module"]

_MAX_SCANS = 6000
_MAX_WORD_SCANS = 40_000
K = TypeVar("K")
V = TypeVar("V")
_MAX_TREES = 48
_MAX_ALIAS_ROUNDS = 4
_PSEUDO_PREFIX = "<file>:"


@dataclass
class _Target:
    text: str
    kind: TargetKind
    value: Value  # the symbol itself (module or member); for methods, the method as a class member
    word: str
    class_value: Value | None = None  # methods: the class
    member: str = ""  # methods: the method name

    @property
    def is_constructor(self) -> bool:
        return self.kind == "method" and self.member == "__init__"


@dataclass
class _Query:
    target: _Target
    resolver: Resolver
    words: set[str] = field(default_factory=set)
    scanned: dict[str, FileScan] = field(default_factory=dict)
    candidates: set[str] = field(default_factory=set)
    init_classes: set[Value] = field(default_factory=set)
    skipped: dict[str, str] = field(default_factory=dict)
    greps: dict[str, dict[str, list[int]]] = field(default_factory=dict)


@dataclass
class _CachedResult:
    """A finished query and everything it depended on: the grep hits of its words and every file read."""

    greps: dict[str, dict[str, list[int]]]
    consulted: dict[str, str]
    result: UsageResult


class CodeIndex:
    """Find definitions and usages of Python symbols in one repository (thread-safe)."""

    def __init__(self, repo_root: Path, *, source: SourceReader | None = None) -> None:
        self.repo_root = Path(repo_root).resolve()
        self._files = RepoFiles(self.repo_root, source)
        self._lock = threading.RLock()
        self._scans: OrderedDict[tuple[str, str], FileScan] = OrderedDict()
        self._facts: dict[str, ModuleFacts] = {}
        self._classes: dict[tuple[str, str], ClassFacts | None] = {}
        self._annotations: dict[tuple[str, str], tuple[str, ...] | None] = {}
        self._words: dict[tuple[str, str], WordScan] = {}
        self._trees: OrderedDict[str, ast.Module | None] = OrderedDict()
        self._file_list: list[str] | None = None
        self._results: OrderedDict[tuple[str, bool], _CachedResult] = OrderedDict()
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
                self._trees.move_to_end(scan.digest)
                return self._trees[scan.digest]
        tree = scan.whole_tree()
        with self._lock:
            self._trees[scan.digest] = tree
            while len(self._trees) > _MAX_TREES:
                self._trees.popitem(last=False)
        return tree

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
                    self._scans.move_to_end((path, digest))
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
            self._scans[key] = scan
            while len(self._scans) > _MAX_SCANS:
                self._scans.popitem(last=False)
        return scan

    def _module_facts(self, scan: FileScan) -> ModuleFacts:
        with self._lock:
            facts = self._facts.get(scan.digest)
        if facts is None:
            facts = module_facts(scan)
            with self._lock:
                _bounded_put(self._facts, scan.digest, facts, _MAX_SCANS)
        return facts

    def _word_scan(self, scan: FileScan, word: str, lines: list[int] | None) -> WordScan:
        key = (scan.digest, word)
        with self._lock:
            cached = self._words.get(key)
        if cached is None:
            cached = scan_word(scan, word, lines)
            with self._lock:
                _bounded_put(self._words, key, cached, _MAX_WORD_SCANS)
        return cached

    def _path_of_module(self, module: str) -> str | None:
        if module.startswith(_PSEUDO_PREFIX):
            return module[len(_PSEUDO_PREFIX) :]
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
        path = self._path_of_module(module)
        scan = self._scan(path) if path is not None else None
        if scan is None:
            return None
        key = (scan.digest, f"returns:{qualname}")
        with self._lock:
            if key in self._annotations:
                return self._annotations[key]
        found = function_returns(scan, qualname)
        with self._lock:
            _bounded_put(self._annotations, key, found, _MAX_WORD_SCANS)
        return found

    def assigned_attribute(self, module: str, class_name: str, attr: str) -> tuple[str, ...] | None:
        path = self._path_of_module(module)
        scan = self._scan(path) if path is not None else None
        if scan is None:
            return None
        key = (scan.digest, f"attribute:{class_name}.{attr}")
        with self._lock:
            if key in self._annotations:
                return self._annotations[key]
        found = assigned_attribute(scan, class_name, attr)
        with self._lock:
            _bounded_put(self._annotations, key, found, _MAX_WORD_SCANS)
        return found

    def class_facts(self, module: str, name: str) -> ClassFacts | None:
        path = self._path_of_module(module)
        scan = self._scan(path) if path is not None else None
        if scan is None:
            return None
        key = (scan.digest, name)
        with self._lock:
            if key in self._classes:
                return self._classes[key]
        found = scan_class_facts(scan, name)
        with self._lock:
            _bounded_put(self._classes, key, found, _MAX_WORD_SCANS)
        return found

    def _file_module(self, path: str) -> tuple[str, bool]:
        module = self._files.module_name(path)
        is_package = path.endswith("__init__.py")
        if module is None or self._files.module_path(module) != path:
            # Not importable, or one of several files with this name (`conftest`): the file's own
            # names must be looked up in this very file.
            return f"{_PSEUDO_PREFIX}{path}", False
        return module, is_package

    def _new_resolver(self) -> Resolver:
        return Resolver(self)

    def new_resolver(self) -> Resolver:
        """A resolver over the current file versions; it memoises, so use one per query or check run."""
        return Resolver(self)

    def file_module(self, path: str) -> tuple[str, bool]:
        """(module name, is a package) that names in `path` resolve against."""
        return self._file_module(path)

    def symbol_value(self, text: str) -> Value | None:
        """The canonical value a dotted symbol (`pkg.mod.f`, `pkg.Cls.meth`) denotes, re-exports followed;
        a symbol no module binds any more is its own value. None for text that is not a dotted name."""
        spec = self._target_from_text(text)
        return spec.value if spec is not None else None

    def module_path(self, module: str) -> str | None:
        """The file of a module (by its name or another name it is imported by)."""
        if self._file_list is None:
            self.python_files()
        return self._path_of_module(module)

    def word_lines(self, word: str, files: set[str]) -> dict[str, list[int]]:
        """Files among `files` that mention `word` as a whole word, with those lines (1-based)."""
        return self._grep_lines([word], files).get(word, {})

    def occurrences(self, path: str, word: str, lines: list[int] | None = None) -> list[Occurrence] | None:
        """Every occurrence of `word` in the file's code (`lines`: where it appears, when known); None
        when the file cannot be read or parsed."""
        scan = self._scan(path)
        if scan is None:
            return None
        word_scan = self._word_scan(scan, word, lines or None)
        return None if word_scan.syntax_error is not None else word_scan.occurrences

    def find_definitions(self, name: str) -> list[Definition]:
        """Definitions of a bare name, `Class.meth`, or a dotted qualname (`pkg.mod.Class.meth`)."""
        name = name.strip()
        parts = name.split(".")
        if not is_dotted_name(parts):
            return []
        files = self._current_files()
        found: list[Definition] = []
        module_prefix = self._longest_module_prefix(parts)
        if module_prefix is not None and len(parts) > module_prefix:
            module = ".".join(parts[:module_prefix])
            for path in self._files.module_paths(module):
                found.extend(self._definitions_in(path, parts[module_prefix:]))
            if not found:
                resolver = self._new_resolver()
                for value in resolver.origin(module, parts[module_prefix]):
                    if value.kind == "member" and value.module != module:
                        target_path = self._files.module_path(value.module)
                        if target_path is not None:
                            rest = [*value.name.split("."), *parts[module_prefix + 1 :]]
                            found.extend(self._definitions_in(target_path, rest))
            return _sorted_definitions(found)
        if module_prefix is not None and module_prefix == len(parts):
            module_file = self._files.module_path(name)
            if module_file is not None:
                return [
                    Definition(
                        path=module_file,
                        line=1,
                        end_line=1,
                        col=1,
                        kind="module",
                        qualname=name,
                        name=parts[-1],
                        doc_head=self._module_doc_head(module_file),
                    )
                ]
        last = parts[-1]
        wanted_files = {path for path, _ in self._files.def_lines(last)}
        if len(parts) == 1:
            wanted_files |= self._assignment_files(last, files)
        for path in sorted(wanted_files & set(files)):
            found.extend(self._definitions_in(path, parts, suffix_match=True))
        return _sorted_definitions(found)

    def _assignment_files(self, name: str, files: list[str]) -> set[str]:
        if self._files_source_override():
            return set()
        pattern = rf"^{re.escape(name)}\s*(:[^=]*)?=[^=]"
        return {p for p in self._files.grep_python("-l", "-E", "-e", pattern).split("\0") if p}

    def _files_source_override(self) -> bool:
        return self._files.has_source_override

    def _module_doc_head(self, path: str) -> str:
        tree = self.parse(path)
        if tree is None:
            return ""
        doc = ast.get_docstring(tree)
        return doc.strip().splitlines()[0] if doc and doc.strip() else ""

    def _definitions_in(self, path: str, parts: list[str], *, suffix_match: bool = False) -> list[Definition]:
        tree = self.parse(path)
        scan = self._scan(path)
        if tree is None or scan is None:
            return []
        module, _ = self._file_module(path)
        module_label = module if not module.startswith(_PSEUDO_PREFIX) else path[:-3].replace("/", ".")
        return [
            definition
            for definition in definitions_in_tree(tree, path, module_label)
            if _matches(definition, module_label, parts, suffix_match)
        ]

    def _longest_module_prefix(self, parts: list[str]) -> int | None:
        if self._file_list is None:
            self.python_files()
        for length in range(len(parts), 0, -1):
            if self._files.known_module(".".join(parts[:length])):
                return length
        return None

    def defines_elsewhere(self, name: str, except_path: str | None = None) -> list[tuple[str, int]]:
        """(path, line) of every `def name` outside `except_path`: when any exist, a method found only by
        its attribute name may belong to another class."""
        return [(path, line) for path, line in self._files.def_lines(name) if path != except_path]

    def find_usages(self, target: str | Definition, *, include_definitions: bool = False) -> UsageResult:
        files = self._current_files()
        if isinstance(target, Definition):
            spec = self._target_from_text(target.qualname)
        else:
            text = target.strip()
            if "." not in text and text.isidentifier():
                return self._usages_of_bare_name(text, include_definitions)
            spec = self._target_from_text(text)
        if spec is None:
            return UsageResult(target=str(target), note="not a symbol name")
        return self._usages(spec, files, include_definitions)

    def _usages_of_bare_name(self, name: str, include_definitions: bool) -> UsageResult:
        definitions = self.find_definitions(name)
        if not definitions:
            return UsageResult(target=name, note=f"no definition of `{name}` found; give a dotted qualname")
        combined = UsageResult(target=name, definitions=definitions)
        notes: list[str] = []
        seen: set[tuple[str, int, int]] = set()
        for definition in definitions:
            result = self.find_usages(definition, include_definitions=include_definitions)
            combined.files_scanned = max(combined.files_scanned, result.files_scanned)
            combined.candidate_files = max(combined.candidate_files, result.candidate_files)
            for reference in result.references:
                key = reference.sort_key()
                if key not in seen:
                    seen.add(key)
                    combined.references.append(reference)
            if result.note:
                notes.append(result.note)
        if len(definitions) > 1:
            notes.insert(0, f"{len(definitions)} definitions named `{name}`; usages of all of them")
        combined.references.sort(key=Reference.sort_key)
        combined.note = "; ".join(dict.fromkeys(notes))
        return combined

    def _target_from_text(self, text: str) -> _Target | None:
        parts = text.split(".")
        if not is_dotted_name(parts):
            return None
        resolver = self._new_resolver()
        prefix = self._longest_module_prefix(parts)
        if prefix is None:
            if len(parts) == 1:
                return _Target(text, "module", Value("module", text), parts[0])
            class_member = len(parts) >= 3 and parts[-2][:1].isupper()
            prefix = len(parts) - (2 if class_member else 1)
        module = ".".join(parts[:prefix])
        rest = parts[prefix:]
        if not rest:
            return _Target(text, "module", Value("module", module), parts[-1])
        if len(rest) >= 2 and not resolver.is_bound(module, rest[0]) and not rest[0][:1].isupper():
            # `pkg.gone.func` where module pkg.gone no longer exists: a member of the removed module.
            class_member = len(rest) >= 3 and rest[-2][:1].isupper()
            prefix = len(parts) - (2 if class_member else 1)
            module = ".".join(parts[:prefix])
            rest = parts[prefix:]
        head_values = resolver.origin(module, rest[0])
        head = next((v for v in head_values if v.kind == "member"), head_values[0])
        if head.kind == "module":
            if len(rest) == 1:
                return _Target(text, "module", head, rest[0])
            return self._target_from_text(".".join([head.module, *rest[1:]]))
        if len(rest) == 1:
            return _Target(text, "member", head, rest[0])
        class_value = head
        for attr in rest[1:-1]:
            class_value = class_value.child(attr)
        member = rest[-1]
        return _Target(text, "method", class_value.child(member), member, class_value, member)

    def _usages(self, target: _Target, files: list[str], include_definitions: bool) -> UsageResult:
        file_set = set(files)
        key = (target.text, include_definitions)
        cached = self._still_valid(key, file_set)
        if cached is not None:
            return cached
        self._tracking.consulted = {}
        try:
            query = _Query(target=target, resolver=self._new_resolver())
            result = self._run_query(query, file_set, include_definitions)
            consulted: dict[str, str] = self._tracking.consulted
        finally:
            self._tracking.consulted = None
        if not self._files_source_override() and "" not in consulted.values():
            with self._lock:
                self._results[key] = _CachedResult(query.greps, consulted, result)
                self._results.move_to_end(key)
                while len(self._results) > _MAX_RESULTS:
                    self._results.popitem(last=False)
        return _copy_result(result)

    def _still_valid(self, key: tuple[str, bool], file_set: set[str]) -> UsageResult | None:
        """The remembered answer, when no file it read changed and its words occur exactly as before."""
        with self._lock:
            entry = self._results.get(key)
        if entry is None:
            return None
        for path, digest in entry.consulted.items():
            if self._files.digest_if_unchanged(path) != digest:
                return None
        if self._grep_lines(sorted(entry.greps), file_set) != entry.greps:
            return None
        return _copy_result(entry.result)

    def _run_query(self, query: _Query, file_set: set[str], include_definitions: bool) -> UsageResult:
        target = query.target
        occurrences: dict[str, list[tuple[str, Occurrence]]] = {}
        if target.is_constructor and target.class_value is not None:
            query.init_classes.add(target.class_value)
            self._collect(query, [target.class_value.name.split(".")[-1], "__init__"], file_set, occurrences)
            self._collect_aliases(query, target.class_value, file_set, occurrences)
            self._collect_subclass_constructors(query, file_set, occurrences)
        else:
            self._collect(query, [target.word], file_set, occurrences)
            if target.kind == "member":
                self._collect_aliases(query, target.value, file_set, occurrences)
        references: dict[tuple[str, int, int], Reference] = {}
        ambiguous = False
        for path in sorted(occurrences):
            scan = query.scanned[path]
            for word, occurrence in occurrences[path]:
                reference = self._classify(query, scan, word, occurrence, include_definitions)
                if reference is None:
                    continue
                key = (path, reference.line, reference.col)
                if key not in references:
                    references[key] = reference
                    ambiguous = ambiguous or reference.confidence == "probable"
        if include_definitions and target.is_constructor:
            for definition in self.find_definitions(target.text):
                definition_scan = self._scan(definition.path)
                text = definition_scan.line_text(definition.line) if definition_scan is not None else ""
                col = text.find("__init__") + 1
                key = (definition.path, definition.line, col)
                references.setdefault(
                    key,
                    Reference(
                        path=definition.path,
                        line=definition.line,
                        col=col,
                        end_col=col + len("__init__"),
                        text=text,
                        kind="definition",
                    ),
                )
        result = UsageResult(
            target=target.text,
            references=sorted(references.values(), key=lambda r: (r.path, r.line, r.col)),
            files_scanned=len(query.scanned),
            candidate_files=len(query.candidates),
        )
        notes: list[str] = []
        if ambiguous and target.kind == "method":
            own = {(d.path, d.line) for d in self.find_definitions(target.text)}
            others = [site for site in self._files.def_lines(target.member) if site not in own]
            note = "probable: receiver type unknown, matched by attribute name only"
            if others:
                note += f"; {len(others)} other definition(s) of `{target.member}` exist in the repository"
                for reference in result.references:
                    if reference.confidence == "probable":
                        reference.note = (
                            f"ambiguous: {len(others)} other `def {target.member}` in the repository"
                        )
            notes.append(note)
        if query.skipped:
            listed = ", ".join(f"{path} ({why})" for path, why in sorted(query.skipped.items())[:5])
            more = len(query.skipped) - 5
            notes.append(
                f"skipped {len(query.skipped)} file(s) that do not parse (syntax errors): {listed}"
                + (f" and {more} more" if more > 0 else "")
            )
            result.skipped_files = sorted(query.skipped)
        result.note = "; ".join(notes)
        return result

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
                pattern = ["-E", "-e", _DOT_INIT_PATTERN] if word == "__init__" else ["-w", "-e", word]
                output = self._files.grep_python("-n", *pattern)
                for row in output.split("\n"):
                    parts = row.split("\0", 2)
                    if len(parts) < 2 or parts[0] not in file_set or not parts[1].isdigit():
                        continue
                    per_file.setdefault(parts[0], []).append(int(parts[1]))
            result[word] = per_file
        return result

    def _record_greps(self, query: _Query, greps: dict[str, dict[str, list[int]]]) -> None:
        query.greps.update(greps)

    def _collect(
        self,
        query: _Query,
        words: list[str],
        file_set: set[str],
        occurrences: dict[str, list[tuple[str, Occurrence]]],
    ) -> None:
        new_words = [w for w in words if w not in query.words]
        if not new_words:
            return
        query.words.update(new_words)
        grep = self._grep_lines(new_words, file_set)
        self._record_greps(query, grep)
        for word, per_file in grep.items():
            for path, lines in per_file.items():
                query.candidates.add(path)
                scan = query.scanned.get(path) or self._scan(path)
                if scan is None:
                    continue
                query.scanned[path] = scan
                word_scan = self._word_scan(scan, word, lines or None)
                if word_scan.syntax_error is not None:
                    query.skipped[path] = word_scan.syntax_error
                    continue
                bucket = occurrences.setdefault(path, [])
                bucket.extend((word, occurrence) for occurrence in word_scan.occurrences)

    def _collect_aliases(
        self,
        query: _Query,
        value: Value,
        file_set: set[str],
        occurrences: dict[str, list[tuple[str, Occurrence]]],
    ) -> None:
        """`from m import X as Y` and `Y = X` at module level: the uses of Y (and imports of Y elsewhere) are
        references too."""
        for _ in range(_MAX_ALIAS_ROUNDS):
            aliases: set[str] = set()
            for path, items in occurrences.items():
                module, is_package = self._file_module(path)
                for _word, occurrence in items:
                    if occurrence.kind != "import" or not occurrence.import_asname:
                        continue
                    if occurrence.import_asname in query.words:
                        continue
                    if value in import_values(query.resolver, module, is_package, occurrence):
                        aliases.add(occurrence.import_asname)
                if any(o.kind == "name" and o.scope_depth == 0 for _w, o in items):
                    for name in self.assigned_aliases(path, query.words):
                        if name not in query.words and value in query.resolver.global_values(module, name):
                            aliases.add(name)
            if not aliases:
                return
            self._collect(query, sorted(aliases), file_set, occurrences)

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

    def _collect_subclass_constructors(
        self, query: _Query, file_set: set[str], occurrences: dict[str, list[tuple[str, Occurrence]]]
    ) -> None:
        """Subclasses that inherit the constructor: calling them calls the target `__init__` too."""
        target_class = query.target.class_value
        assert target_class is not None
        examined: set[tuple[str, str]] = set()
        for _ in range(_MAX_ALIAS_ROUNDS * 2):
            found: list[str] = []
            for path, scan in list(query.scanned.items()):
                module, _ = self._file_module(path)
                words = re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(query.words))) + r")\b")
                class_names = {
                    u.name
                    for u in scan.seg.units
                    if u.kind == "class-header" and u.name and _header_mentions(scan, u.start, words)
                }
                if scan.whole:
                    class_names = {
                        name
                        for name, bindings in self._module_facts(scan).bindings.items()
                        if any(b.kind == "class" for b in bindings)
                    }
                for class_name in sorted(class_names):
                    if (module, class_name) in examined:
                        continue
                    examined.add((module, class_name))
                    value = Value("member", module, class_name)
                    cls = query.resolver.class_facts(value)
                    if cls is None or value in query.init_classes or "__init__" in cls.members:
                        continue
                    if query.resolver.is_subclass(value, target_class) == "yes":
                        query.init_classes.add(value)
                        found.append(class_name)
            if not found:
                return
            self._collect(query, found, file_set, occurrences)

    def _classify(
        self, query: _Query, scan: FileScan, word: str, occurrence: Occurrence, include_definitions: bool
    ) -> Reference | None:
        target = query.target
        resolver = query.resolver
        module, is_package = self._file_module(scan.path)

        def make(kind: ReferenceKind, confidence: Literal["exact", "probable"] = "exact") -> Reference:
            text = scan.line_text(occurrence.line)
            # Built from already-checked values; validation would cost more than the whole warm query.
            return Reference.model_construct(
                path=scan.path,
                line=occurrence.line,
                col=occurrence.col + 1,
                end_col=occurrence.col + 1 + len(word),
                text=text,
                kind=kind,
                confidence=confidence,
                note="",
            )

        if occurrence.kind == "def":
            if not include_definitions:
                return None
            top_level = occurrence.class_ctx is None and occurrence.scope_depth == 0
            if target.kind == "member" and top_level and Value("member", module, word) == target.value:
                return make("definition")
            in_class = occurrence.class_ctx is not None and target.class_value is not None
            if (
                target.kind == "method"
                and in_class
                and Value("member", module, occurrence.class_ctx or "") == target.class_value
                and word == target.member
            ):
                return make("definition")
            return None

        if target.is_constructor:
            return self._classify_constructor(query, module, word, occurrence, make)

        if occurrence.kind == "import":
            if target.value in import_values(resolver, module, is_package, occurrence):
                return make("import")
            return None
        if occurrence.kind == "import-module":
            if target.kind != "module":
                return None
            imported = resolver.absolute(
                module, is_package, occurrence.import_module, occurrence.import_level
            )
            if imported == target.value.module or imported.startswith(target.value.module + "."):
                return make("import")
            return None
        if occurrence.kind == "name":
            if target.kind == "method":
                return None
            values = name_values(resolver, module, word, occurrence)
            if target.value in values:
                return make(occurrence.role)
            return None
        if occurrence.kind == "attr" and occurrence.receiver is not None:
            if target.kind == "method":
                relation = self._receiver_relation(query, module, occurrence, target.member)
                if relation == "yes":
                    return make(occurrence.role)
                if relation == "unknown":
                    return make(occurrence.role, "probable")
                return None
            if target.value in attribute_values(resolver, module, word, occurrence):
                return make(occurrence.role)
        return None

    def _classify_constructor(
        self, query: _Query, module: str, word: str, occurrence: Occurrence, make: _Maker
    ) -> Reference | None:
        resolver = query.resolver
        if word == "__init__":
            if occurrence.kind != "attr" or occurrence.receiver is None:
                return None
            relation = self._receiver_relation(query, module, occurrence, "__init__")
            if relation == "yes":
                return make(occurrence.role)
            if relation == "unknown" and occurrence.receiver.kind == "super":
                return make(occurrence.role, "probable")
            return None
        if occurrence.role != "call":
            return None
        if occurrence.kind == "name":
            values = name_values(resolver, module, word, occurrence)
        elif occurrence.kind == "attr":
            values = attribute_values(resolver, module, word, occurrence)
        else:
            return None
        if any(value in query.init_classes for value in values):
            return make("call")
        return None

    def _receiver_relation(self, query: _Query, module: str, occurrence: Occurrence, member: str) -> Relation:
        target_class = query.target.class_value
        assert target_class is not None and occurrence.receiver is not None
        return receiver_relation(query.resolver, module, occurrence.receiver, target_class, member)


_DOT_INIT_PATTERN = r"\.[[:space:]]*__init__([^[:alnum:]_]|$)"
_MAX_RESULTS = 64


def _header_mentions(scan: FileScan, start: int, words: re.Pattern[str]) -> bool:
    """Whether a class statement's header (its bases) mentions one of the words."""
    for line in scan.lines[start : start + 12]:
        if words.search(line):
            return True
        if line.rstrip().endswith(":"):
            return False
    return False


def _bounded_put(cache: dict[K, V], key: K, value: V, limit: int) -> None:
    """Insert, dropping the oldest entries beyond `limit` (memory stays bounded on huge repositories)."""
    cache[key] = value
    while len(cache) > limit:
        del cache[next(iter(cache))]


def _copy_result(result: UsageResult) -> UsageResult:
    return result.model_copy(update={"references": list(result.references)})


class _Maker(Protocol):
    def __call__(
        self, kind: ReferenceKind, confidence: Literal["exact", "probable"] = "exact"
    ) -> Reference: ...


def _matches(definition: Definition, module: str, parts: list[str], suffix_match: bool) -> bool:
    local = definition.qualname[len(module) + 1 :] if definition.qualname.startswith(module + ".") else ""
    wanted = ".".join(parts)
    if suffix_match:
        return local == wanted or local.endswith("." + wanted)
    return local == wanted


def _sorted_definitions(definitions: list[Definition]) -> list[Definition]:
    unique = {(d.path, d.line, d.qualname): d for d in definitions}
    return sorted(unique.values(), key=lambda d: (d.path, d.line))
