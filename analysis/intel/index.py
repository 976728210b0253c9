"""`CodeIndex`: complete, import-aware symbol lookup over a repository's Python files.

A query greps for the symbol's word (`git grep -w`), parses only the units of the candidate files that
mention it, and resolves each occurrence through the file's imports. Scans are cached by content digest,
so a repeated query re-reads nothing that did not change, and an edited file is rescanned.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol

from prscope.analysis.intel.definitions import definitions_in_tree
from prscope.analysis.intel.files import FileLister, SourceReader
from prscope.analysis.intel.infer import holds_bound_method, occurrence_type
from prscope.analysis.intel.lru import Lru
from prscope.analysis.intel.meaning import (
    attribute_values,
    import_values,
    name_values,
    type_relation,
)
from prscope.analysis.intel.models import Definition, Reference, ReferenceKind, UsageResult
from prscope.analysis.intel.modules import PSEUDO_PREFIX, ModuleIndex
from prscope.analysis.intel.naming import is_dotted_name
from prscope.analysis.intel.resolve import Relation, Resolver, Value
from prscope.analysis.intel.scan import (
    FileScan,
    Occurrence,
)

TargetKind = Literal["member", "method", "module"]

_MAX_ALIAS_ROUNDS = 4
_MAX_DEFINITION_FILES = 48
"""Files whose definitions `find_definitions` keeps worked out (as many as the index keeps whole trees)."""


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


class CodeIndex(ModuleIndex):
    """Find definitions and usages of Python symbols in one repository (thread-safe)."""

    def __init__(
        self, repo_root: Path, *, source: SourceReader | None = None, listing: FileLister | None = None
    ) -> None:
        super().__init__(repo_root, source=source, listing=listing)
        self._results: Lru[tuple[str, bool], _CachedResult] = Lru(_MAX_RESULTS)
        self._file_definitions: Lru[tuple[str, str], list[Definition]] = Lru(_MAX_DEFINITION_FILES)

    def symbol_value(self, text: str) -> Value | None:
        """The canonical value a dotted symbol (`pkg.mod.f`, `pkg.Cls.meth`) denotes, re-exports followed;
        a symbol no module binds any more is its own value. None for text that is not a dotted name."""
        spec = self._target_from_text(text)
        return spec.value if spec is not None else None

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
        module_label = module if not module.startswith(PSEUDO_PREFIX) else path[:-3].replace("/", ".")
        return [
            definition
            for definition in self._file_definitions_of(path, scan.digest, tree, module_label)
            if _matches(definition, module_label, parts, suffix_match)
        ]

    def _file_definitions_of(self, path: str, digest: str, tree: ast.Module, module: str) -> list[Definition]:
        """Every definition of the file, worked out once per content: override-mismatch looks up one base
        method after another in the same big modules (sqlalchemy's `orm/attributes.py`: 3,000 defs)."""
        key = (digest, f"{path}:{module}")
        with self._lock:
            known = self._file_definitions.get(key)
            if known is not None:
                return known
        found = definitions_in_tree(tree, path, module)
        with self._lock:
            self._file_definitions.put(key, found)
        return found

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
        # A query may run inside another (the inference asks who calls a function): the outer answer
        # then depends on every file and word the inner one read, so those are handed up to it.
        outer_consulted: dict[str, str] | None = getattr(self._tracking, "consulted", None)
        outer_greps: dict[str, dict[str, list[int]]] | None = getattr(self._tracking, "greps", None)
        self._tracking.consulted = {}
        query = _Query(target=target, resolver=self._new_resolver())
        self._tracking.greps = query.greps
        try:
            result = self._run_query(query, file_set, include_definitions)
            consulted: dict[str, str] = self._tracking.consulted
        finally:
            inner_consulted = self._tracking.consulted
            self._tracking.consulted = outer_consulted
            self._tracking.greps = outer_greps
            if outer_consulted is not None:
                outer_consulted.update(inner_consulted)
            if outer_greps is not None:
                outer_greps.update(query.greps)
        if not self._files_source_override() and "" not in consulted.values():
            with self._lock:
                self._results.put(key, _CachedResult(query.greps, consulted, result))
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
            self._collect(query, [target.class_value.name.split(".")[-1]], file_set, occurrences)
            self._collect_aliases(query, target.class_value, file_set, occurrences)
            self._collect_subclass_constructors(query, file_set, occurrences)
            # `super().__init__(...)` / `Cls.__init__(self)` reach the target only from files that name it
            # or a subclass inheriting its constructor: the repository's other `.__init__` calls are
            # not read (hundreds of files on a large project).
            self._collect(query, ["__init__"], file_set, occurrences, within=set(query.candidates))
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

    def _record_greps(self, query: _Query, greps: dict[str, dict[str, list[int]]]) -> None:
        query.greps.update(greps)

    def _collect(
        self,
        query: _Query,
        words: list[str],
        file_set: set[str],
        occurrences: dict[str, list[tuple[str, Occurrence]]],
        *,
        within: set[str] | None = None,
    ) -> None:
        """Occurrences of `words` in the files that mention them (only those in `within`, when given)."""
        new_words = [w for w in words if w not in query.words]
        if not new_words:
            return
        query.words.update(new_words)
        grep = self._grep_lines(new_words, file_set)
        self._record_greps(query, grep)
        for word, per_file in grep.items():
            for path, lines in per_file.items():
                if within is not None and path not in within:
                    continue
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
            return self._classify_constructor(query, module, scan.path, word, occurrence, make)

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
                relation = self._receiver_relation(query, module, scan.path, word, occurrence, target.member)
                if relation == "yes":
                    return make(occurrence.role)
                if self._calls_held_method(query, scan.path, word, occurrence):
                    return make(occurrence.role)
                if relation == "unknown":
                    return make(occurrence.role, "probable")
                return None
            if target.value in attribute_values(resolver, module, word, occurrence):
                return make(occurrence.role)
        return None

    def _classify_constructor(
        self, query: _Query, module: str, path: str, word: str, occurrence: Occurrence, make: _Maker
    ) -> Reference | None:
        resolver = query.resolver
        if word == "__init__":
            if occurrence.kind != "attr" or occurrence.receiver is None:
                return None
            relation = self._receiver_relation(query, module, path, word, occurrence, "__init__")
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

    def _calls_held_method(self, query: _Query, path: str, word: str, occurrence: Occurrence) -> bool:
        """`self._on_auth(...)` where the attribute holds the target's bound method, given as a callback:
        a call of the target whatever the receiver is."""
        target = query.target
        if occurrence.role != "call" or target.class_value is None:
            return False
        return holds_bound_method(query.resolver, path, occurrence, word, target.class_value, target.member)

    def _receiver_relation(
        self, query: _Query, module: str, path: str, word: str, occurrence: Occurrence, member: str
    ) -> Relation:
        target_class = query.target.class_value
        assert target_class is not None and occurrence.receiver is not None
        found = occurrence_type(query.resolver, module, path, occurrence, word)
        return type_relation(query.resolver, found, target_class, member)


_MAX_RESULTS = 64


def _header_mentions(scan: FileScan, start: int, words: re.Pattern[str]) -> bool:
    """Whether a class statement's header (its bases) mentions one of the words."""
    for line in scan.lines[start : start + 12]:
        if words.search(line):
            return True
        if line.rstrip().endswith(":"):
            return False
    return False


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
