"""Import-aware resolution: what a name, an import or an attribute chain denotes in the repository.

Values are canonical: `origin(module, name)` follows re-exports (`from .app import Flask` in
`flask/__init__.py`), star imports (respecting `__all__`) and submodules until it reaches the module that
binds the name itself. A name that no module binds any more (a removed symbol) is its own origin, so
references to removed symbols resolve by import path + name.
"""

from __future__ import annotations

import posixpath
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, Protocol

from prscope.analysis.intel.classes import LOCAL_IMPORT, SELF_RETURN
from prscope.analysis.intel.scan import ClassFacts
from prscope.analysis.intel.scopes import Binding

ValueKind = Literal["module", "member"]


@dataclass(frozen=True)
class Value:
    kind: ValueKind
    module: str
    name: str = ""  # member name; dotted for nested classes ("Outer.Inner")

    def child(self, attr: str) -> Value:
        return Value("member", self.module, f"{self.name}.{attr}" if self.name else attr)

    def __str__(self) -> str:
        return self.module if self.kind == "module" else f"{self.module}.{self.name}"


Relation = Literal["yes", "no", "unknown"]
_MAX_DEPTH = 24
_BUILTIN_BASES = {
    ("object",),
    ("Exception",),
    ("BaseException",),
    ("type",),
    ("dict",),
    ("list",),
    ("tuple",),
}


def absolute_module(
    current: str | None, current_is_package: bool, level: int, name: str | None
) -> str | None:
    """Absolute module for `from {'.' * level}{name} import ...` written in module `current`; None when
    the import climbs above the top package (or `current` is unknown)."""
    if level == 0:
        return name
    if current is None:
        return None
    parts = current.split(".") if current else []
    if not current_is_package:
        parts = parts[:-1]
    drop = level - 1
    if drop > len(parts):
        return None
    base = parts[: len(parts) - drop]
    if name:
        base = [*base, name]
    return ".".join(base) or None


def relative_import_folder(path: str, level: int) -> str:
    """The folder a relative import with `level` dots starts from, written in the file at `path` (`""` for
    the repository's root)."""
    folder = posixpath.dirname(path)
    for _ in range(level - 1):
        folder = posixpath.dirname(folder)
    return folder


class ModuleSource(Protocol):
    """What resolution needs to know about the repository's modules."""

    def in_repo(self, module: str) -> bool: ...
    def canonical(self, module: str) -> str: ...
    def sibling_module(self, current: str, name: str) -> str | None: ...
    def is_module(self, module: str) -> bool: ...
    def is_package(self, module: str) -> bool: ...
    def module_bindings(self, module: str, name: str) -> list[Binding]: ...
    def star_imports(self, module: str) -> list[tuple[str, int]]: ...
    def all_names(self, module: str) -> set[str] | None: ...
    def class_facts(self, module: str, name: str) -> ClassFacts | None: ...
    def function_returns(self, module: str, qualname: str) -> tuple[str, ...] | None: ...
    def assigned_attribute(self, module: str, class_name: str, attr: str) -> tuple[str, ...] | None: ...


class Resolver:
    """Resolution against the current file versions; memoised for the duration of one query."""

    def __init__(self, source: ModuleSource) -> None:
        self.source = source
        self._is_module = source.is_module
        self._is_package = source.is_package
        self._origin_memo: dict[tuple[str, str], tuple[Value, ...] | None] = {}
        self._relation_memo: dict[tuple[Value, Value, str], Relation] = {}
        self._class_memo: dict[Value, ClassFacts | None] = {}
        self._canonical_memo: dict[str, str] = {}
        self.inference: object | None = None  # the receiver-type inference of this query (intel/infer)
        self.outside_inference: object | None = None  # the one `infer.made_outside` asks

    def canonical(self, module: str) -> str:
        """The name the repository's module is known by (`src.pkg.mod` and `pkg.mod` are one module)."""
        found = self._canonical_memo.get(module)
        if found is None:
            found = self._canonical_memo[module] = self.source.canonical(module)
        return found

    def absolute(self, current_module: str, current_is_package: bool, module: str, level: int) -> str:
        """The absolute module named by a (possibly relative) import inside `current_module`; an import
        climbing above the top package is read from the top. A file outside any package (a script, a
        test, a docs example) imports its sibling `x.py` as `x`."""
        if level == 0 and module:
            sibling = self.source.sibling_module(current_module, module)
            if sibling is not None:
                return sibling
        found = absolute_module(current_module, current_is_package, level, module or None)
        return found or module or ""

    def is_bound(self, module: str, name: str) -> bool:
        """Whether the repository's `module` binds `name` (or has such a submodule)."""
        return bool(self._lookup(module, name, 0))

    def origin(self, module: str, name: str) -> tuple[Value, ...]:
        found = self._lookup(module, name, 0)
        return found if found else (Value("member", self.canonical(module), name),)

    def _lookup(self, module: str, name: str, depth: int) -> tuple[Value, ...] | None:
        module = self.canonical(module)
        key = (module, name)
        if key in self._origin_memo:
            return self._origin_memo[key]
        if depth > _MAX_DEPTH:
            return None
        self._origin_memo[key] = None  # cycle guard
        result = self._lookup_uncached(module, name, depth)
        self._origin_memo[key] = result
        return result

    def _lookup_uncached(self, module: str, name: str, depth: int) -> tuple[Value, ...] | None:
        if not self.source.in_repo(module):
            submodule = f"{module}.{name}"
            if self._is_module(submodule):
                return (Value("module", self.canonical(submodule)),)
            return None
        bindings = self.source.module_bindings(module, name)
        if bindings:
            # A guarded import whose handler binds nothing still leaves what a star import bound (funcy
            # c6ccccd2's tests: `from funcy.colls import *`, then `try: from funcy.colls import lwhere as
            # where` / `except ImportError: pass`).
            starred = self._star_lookup(module, name, depth) if any(b.guarded for b in bindings) else None
            fallback = len(bindings) > 1 or bool(starred)
            found = [(b, self._binding_values(module, b, name, depth, fallback=fallback)) for b in bindings]
            if len(found) > 1 and not any(b.guarded or b.branch for b in bindings):
                found = self._without_imports_of_nothing(found, depth) or found
            values = [value for _binding, given in found for value in given]
            return _unique(values) if values or not starred else starred
        submodule = f"{module}.{name}"
        if self._is_module(submodule):
            return (Value("module", self.canonical(submodule)),)
        return self._star_lookup(module, name, depth)

    def _without_imports_of_nothing(
        self, found: list[tuple[Binding, list[Value]]], depth: int
    ) -> list[tuple[Binding, list[Value]]]:
        """The bindings left when those importing a name their repository module lacks are dropped: the
        module's other unconditional bindings give the name (pylint 20976c36f1 moves `MessagesStore` to its
        own module and re-exports it from `pylint.utils`, whose old `from pylint.utils.utils import (...,
        MessagesStore, ...)` is the one stale line; `from pylint.utils import MessagesStore` elsewhere needs
        no change)."""
        return [
            (binding, values)
            for binding, values in found
            if not (
                binding.kind == "import-from"
                and len(values) == 1
                and values[0].kind == "member"
                and self.source.in_repo(values[0].module)
                and self._lookup(values[0].module, values[0].name, depth + 1) is None
            )
        ]

    def _star_lookup(self, module: str, name: str, depth: int) -> tuple[Value, ...] | None:
        """What the module's star imports bind `name` to (respecting each source's `__all__`)."""
        for star_module, level in self.source.star_imports(module):
            source = self.absolute(module, self._is_package(module), star_module, level)
            exported = self.source.all_names(source) if self.source.in_repo(source) else None
            if exported is not None:
                if name not in exported:
                    continue
            elif name.startswith("_"):
                continue
            found = self._lookup(source, name, depth + 1)
            if found:
                return found
        return None

    def _binding_values(
        self, module: str, binding: Binding, name: str, depth: int, *, fallback: bool = False
    ) -> list[Value]:
        if binding.kind == "import-from":
            source = self.absolute(module, self._is_package(module), binding.module, binding.level)
            found = self._lookup(source, binding.name, depth + 1)
            if found:
                return list(found)
            submodule = f"{source}.{binding.name}"
            if self._is_module(submodule):
                # `from pkg import sub` (in pkg/__init__.py too): the submodule, when pkg binds no `sub`.
                return [Value("module", self.canonical(submodule))]
            implicit = self._implicit_relative(module, binding, depth)
            if implicit:
                return list(implicit)
            if fallback and binding.guarded and self.source.in_repo(source):
                return []  # the import fails and its handler's fallback binds the name instead
            return [Value("member", self.canonical(source), binding.name)]
        if binding.kind == "import-module":
            return [Value("module", self.canonical(binding.module))]
        if binding.kind == "alias" and binding.chain and depth <= _MAX_DEPTH:
            aliased = self.chain_values(module, binding.chain, None)
            if aliased:
                return list(aliased)
        return [Value("member", module, name)]

    def _implicit_relative(self, module: str, binding: Binding, depth: int) -> tuple[Value, ...] | None:
        """Python 2's implicit relative import: `from dbref import DBRef` inside pymongo/ means
        `pymongo.dbref`. Read so only when no module of that name exists in the repository or the
        standard library, and the package's sibling module defines the name (a sibling shadowing an
        installed library defines other names than the library's, if any)."""
        top = binding.module.split(".")[0]
        if binding.level or not top or top in sys.stdlib_module_names or self.source.in_repo(top):
            return None
        package = module if self._is_package(module) else module.rpartition(".")[0]
        sibling = f"{package}.{binding.module}" if package else ""
        if not sibling or sibling == module or not self.source.in_repo(sibling):
            return None
        return self._lookup(sibling, binding.name, depth + 1)

    def binding_values(self, module: str, binding: Binding, name: str) -> tuple[Value, ...]:
        """Values of a binding found in a file of `module` (local to a function, or module-level)."""
        if binding.kind in ("import-from", "import-module"):
            return _unique(self._binding_values(module, binding, name, 0))
        return ()

    def global_values(self, module: str, name: str) -> tuple[Value, ...]:
        """What a module-level name means in `module` (its own bindings, then star imports)."""
        found = self._lookup(module, name, 0)
        return found or ()

    def chain_values(
        self, module: str, chain: tuple[str, ...], head_local: tuple[Binding, ...] | None
    ) -> tuple[Value, ...]:
        """Values of a dotted expression `a.b.c` evaluated in `module` (head bound locally or globally)."""
        if chain[0].startswith(LOCAL_IMPORT):
            head_local = (_local_import(chain[0]),)
        if head_local is not None:
            heads: list[Value] = []
            for binding in head_local:
                heads.extend(self.binding_values(module, binding, chain[0]))
        else:
            heads = list(self.global_values(module, chain[0]))
        values = _unique(heads)
        for attr in chain[1:]:
            values = self.attribute(values, attr)
            if not values:
                return ()
        return values

    def attribute(self, values: tuple[Value, ...], attr: str) -> tuple[Value, ...]:
        result: list[Value] = []
        for value in values:
            if value.kind == "module":
                result.extend(self.origin(value.module, attr))
            else:
                result.append(value.child(attr))
        return _unique(result)

    def class_facts(self, value: Value) -> ClassFacts | None:
        if value.kind != "member" or "." in value.name:
            return None
        if value not in self._class_memo:
            self._class_memo[value] = self.source.class_facts(value.module, value.name)
        return self._class_memo[value]

    def relation(self, cls: Value, target_class: Value, member: str, depth: int = 0) -> Relation:
        """Does `cls.member` reach `target_class.member`? ("no" when some class in between overrides it)."""
        if cls == target_class:
            return "yes"
        key = (cls, target_class, member)
        if key in self._relation_memo:
            return self._relation_memo[key]
        if depth > _MAX_DEPTH:
            return "unknown"
        self._relation_memo[key] = "unknown"
        result = self._relation_uncached(cls, target_class, member, depth)
        self._relation_memo[key] = result
        return result

    def _relation_uncached(self, cls: Value, target_class: Value, member: str, depth: int) -> Relation:
        facts = self.class_facts(cls)
        if facts is None:
            if cls.kind == "module":
                return "no"
            if not self.source.in_repo(cls.module) and self.source.in_repo(target_class.module):
                return "no"  # a class from outside the repository cannot derive from one inside it
            return "unknown"
        if member in facts.members:
            return "no"
        return self.bases_relation(cls, facts, target_class, member, depth)

    def bases_relation(
        self, cls: Value, facts: ClassFacts, target_class: Value, member: str, depth: int = 0
    ) -> Relation:
        verdict: Relation = "no"
        for base in facts.bases:
            if base is None:
                verdict = "unknown"
                continue
            if base in _BUILTIN_BASES:
                continue
            for value in self.chain_values(cls.module, base, None) or (Value("member", "?", ".".join(base)),):
                relation = self.relation(value, target_class, member, depth + 1)
                if relation == "yes":
                    return "yes"
                if relation == "unknown":
                    verdict = "unknown"
        return verdict

    def attribute_types(self, cls: Value, attr: str, depth: int = 0) -> tuple[Value, ...]:
        """Classes of instance attribute `attr` as the class (or an in-repo base) declares them."""
        facts = self.class_facts(cls)
        if facts is None or depth > _MAX_DEPTH:
            return ()
        chain = facts.attribute_types.get(attr) or self.source.assigned_attribute(cls.module, cls.name, attr)
        if chain is not None:
            return self.chain_values(cls.module, chain, None)
        return self._first_in_bases(cls, facts, lambda base: self.attribute_types(base, attr, depth + 1))

    def returns(self, value: Value) -> tuple[Value, ...]:
        """What a repository function (`mod.f`) or method (`mod.Cls.meth`) is annotated to return."""
        if value.kind != "member" or not self.source.in_repo(value.module):
            return ()
        chain = self.source.function_returns(value.module, value.name)
        if chain == SELF_RETURN:
            owner = value.name.rpartition(".")[0]
            return (Value("member", value.module, owner),) if owner else ()
        return self.chain_values(value.module, chain, None) if chain is not None else ()

    def method_returns(
        self, cls: Value, method: str, depth: int = 0, receiver: Value | None = None
    ) -> tuple[Value, ...]:
        """What `cls().method()` is annotated to return (the method may come from a base class; `-> Self`
        is the class it is called on, elasticsearch-dsl's `FacetedSearchBase.__getitem__` on a subclass)."""
        facts = self.class_facts(cls)
        if facts is None or depth > _MAX_DEPTH:
            return ()
        if method in facts.members:
            declared = cls.child(method)
            if self.source.function_returns(declared.module, declared.name) == SELF_RETURN:
                return (receiver or cls,)
            return self.returns(declared)
        return self._first_in_bases(
            cls, facts, lambda base: self.method_returns(base, method, depth + 1, receiver or cls)
        )

    def _first_in_bases(
        self, cls: Value, facts: ClassFacts, ask: Callable[[Value], tuple[Value, ...]]
    ) -> tuple[Value, ...]:
        """The first non-empty answer of `ask` over the class's repository bases, in order."""
        for base in facts.bases:
            if base is None or base in _BUILTIN_BASES:
                continue
            for value in self.chain_values(cls.module, base, None):
                found = ask(value)
                if found:
                    return found
        return ()

    def is_rebound_instance(self, value: Value) -> bool:
        """`class Builtin: ...` then `Builtin = Builtin()`: the module's name ends up bound to the one
        instance of the class (the last module-level binding instantiates the class of that name)."""
        if value.kind != "member" or "." in value.name:
            return False
        bindings = self.source.module_bindings(value.module, value.name)
        if len(bindings) < 2:
            return False
        last = max(bindings, key=lambda binding: binding.line)
        return last.kind in ("typed", "other") and last.chain == (value.name,)

    def module_variable_classes(self, value: Value) -> tuple[Value, ...]:
        """`app = Flask(...)` at module level: the classes `app` is an instance of (empty when unknown)."""
        if value.kind != "member" or "." in value.name:
            return ()
        bindings = self.source.module_bindings(value.module, value.name)
        if not bindings or not all(b.kind in ("other", "typed") and b.chain for b in bindings):
            return ()
        classes: list[Value] = []
        for binding in bindings:
            classes.extend(self.chain_values(value.module, binding.chain, None))
        return _unique(classes)

    def is_subclass(self, cls: Value, target_class: Value, depth: int = 0) -> Relation:
        """Subclass test that ignores overriding (for finding classes that inherit a constructor)."""
        if cls == target_class:
            return "yes"
        if depth > _MAX_DEPTH:
            return "unknown"
        facts = self.class_facts(cls)
        if facts is None:
            return "unknown"
        verdict: Relation = "no"
        for base in facts.bases:
            if base is None:
                verdict = "unknown"
                continue
            for value in self.chain_values(cls.module, base, None):
                relation = self.is_subclass(value, target_class, depth + 1)
                if relation == "yes":
                    return "yes"
                if relation == "unknown":
                    verdict = "unknown"
        return verdict


def _unique(values: list[Value]) -> tuple[Value, ...]:
    seen: dict[Value, None] = {}
    for value in values:
        seen.setdefault(value, None)
    return tuple(seen)


def _local_import(head: str) -> Binding:
    """The import a `LOCAL_IMPORT` head stands for (see `classes.local_class_facts`)."""
    level, module, name = head[len(LOCAL_IMPORT) :].split(":")
    if name:
        return Binding("import-from", module=module, level=int(level), name=name)
    return Binding("import-module", module=module)
