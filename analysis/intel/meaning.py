"""What one occurrence of a word denotes, resolved against the repository: the one place where names,
imports, attribute chains and method receivers get their meaning.

`find_usages` (the code index's tools) and the deterministic checks (`analysis/checks/sites.py`) both
read occurrences through these functions, so a resolution fix lands in both. Values are canonical
(`Resolver.origin` follows re-exports), so "does this refer to X" is a comparison of `Value`s.
"""

from __future__ import annotations

import builtins
import importlib
import sys
from dataclasses import dataclass
from typing import Literal

from prscope.analysis.intel.resolve import Relation, Resolver, Value
from prscope.analysis.intel.scan import Occurrence, Receiver
from prscope.analysis.intel.scopes import Binding, typed_chain

ReceiverKind = Literal["self", "super", "typed"]
_BUILTIN_NAMES = frozenset(dir(builtins))
_MAX_RETURN_DEPTH = 4


@dataclass(frozen=True)
class ReceiverType:
    """What the object before `.word` is.

    self / super: the receiver is the method's first parameter (or `super()`), `owner` its class;
    typed: the union of what the receiver's expression may hold (instances of classes, class objects,
    modules), with `unknown` when some of it could not be told and `foreign` when some of it is an
    object of a class from outside the repository.
    """

    kind: ReceiverKind
    owner: Value | None = None
    instances: tuple[Value, ...] = ()
    classes: tuple[Value, ...] = ()
    modules: tuple[Value, ...] = ()
    unknown: bool = False
    foreign: bool = False
    opaque_call: bool = False
    """The result of calling something the module names (an import, a global: `current_app.x.get()`)
    whose type the code does not say."""

    @property
    def known(self) -> bool:
        return self.kind != "typed" or bool(self.instances or self.classes or self.modules or self.foreign)


UNKNOWN = ReceiverType("typed", unknown=True)
FOREIGN = ReceiverType("typed", foreign=True)


def name_values(resolver: Resolver, module: str, word: str, occurrence: Occurrence) -> tuple[Value, ...]:
    """What a plain name denotes where it is read (its function's bindings, else the module's). A global
    the module does not bind (and no star import may bind) means what the module would define: a use
    of a name the module no longer has is still a use of it."""
    if occurrence.local is not None:
        values: list[Value] = []
        for binding in occurrence.local:
            values.extend(resolver.binding_values(module, binding, word))
        return tuple(values)
    found = resolver.global_values(module, word)
    if found or word in _BUILTIN_NAMES or resolver.source.star_imports(module):
        return found
    return (Value("member", module, word),)


def import_values(
    resolver: Resolver, module: str, is_package: bool, occurrence: Occurrence
) -> tuple[Value, ...]:
    """What `from m import word` imports (followed to where it is defined)."""
    source = resolver.absolute(module, is_package, occurrence.import_module, occurrence.import_level)
    return resolver.origin(source, occurrence.import_name)


def attribute_values(resolver: Resolver, module: str, word: str, occurrence: Occurrence) -> tuple[Value, ...]:
    """What `a.b.word` denotes when its receiver is a plain dotted chain (a module, a class...)."""
    receiver = occurrence.receiver
    if receiver is None or receiver.kind != "chain":
        return ()
    values = resolver.chain_values(module, receiver.chain, receiver.head_local)
    return resolver.attribute(values, word)


def receiver_type(resolver: Resolver, module: str, receiver: Receiver) -> ReceiverType:
    """The type of a method call's or attribute access's receiver, as far as the code says."""
    if receiver.kind in ("self", "super"):
        if receiver.class_ctx is None:
            return UNKNOWN
        kind: ReceiverKind = "self" if receiver.kind == "self" else "super"
        return ReceiverType(kind, owner=Value("member", module, receiver.class_ctx))
    if receiver.kind == "unknown":
        return UNKNOWN
    if receiver.kind == "self-attr":
        if receiver.class_ctx is None:
            return UNKNOWN
        own = ReceiverType("typed", instances=(Value("member", module, receiver.class_ctx),))
        return _attribute_of(resolver, own, receiver.chain[0])
    if receiver.kind == "instance":
        return _called(resolver, module, receiver)
    return _chain_object(resolver, module, receiver)


def _called(resolver: Resolver, module: str, receiver: Receiver) -> ReceiverType:
    """What calling (or annotating with) the chain gives: `Cls(...)`, `make()` -> its return annotation,
    `parser.parse_args()` -> whatever a foreign object's method returns."""
    chain = receiver.chain
    if len(chain) == 1:
        if receiver.class_ctx is not None:
            return UNKNOWN
        result = _instances_of(resolver, resolver.chain_values(module, chain, receiver.head_local))
    else:
        owner = Receiver("chain", chain[:-1], receiver.head_local, receiver.class_ctx)
        result = _call_result(resolver, _chain_object(resolver, module, owner), chain[-1])
    opaque = receiver.called and receiver.head_local is None and receiver.class_ctx is None
    if opaque and not (result.instances or result.classes or result.modules or result.foreign):
        return ReceiverType("typed", unknown=True, opaque_call=True)
    return result


def _chain_object(resolver: Resolver, module: str, receiver: Receiver) -> ReceiverType:
    """What a dotted chain holds, attribute by attribute from its head: a module, a class, a module-level
    instance, an instance whose class the code declares (a typed variable, `self`, a typed attribute)."""
    if receiver.class_ctx is not None:
        current = ReceiverType("typed", instances=(Value("member", module, receiver.class_ctx),))
    else:
        current = _head_object(resolver, module, receiver.chain[0], receiver.head_local)
    for attr in receiver.chain[1:]:
        current = _attribute_of(resolver, current, attr)
    return current


def _head_object(
    resolver: Resolver, module: str, head: str, head_local: tuple[Binding, ...] | None
) -> ReceiverType:
    if head_local is None:
        return _objects(resolver, resolver.chain_values(module, (head,), None))
    declared = typed_chain(head_local)
    if declared is not None:
        return _instances_of(resolver, resolver.chain_values(module, declared, None))
    imported = [b for b in head_local if b.kind in ("import-from", "import-module")]
    if not imported or len(imported) != len(head_local):
        return UNKNOWN
    return _objects(resolver, resolver.chain_values(module, (head,), head_local))


def _attribute_of(resolver: Resolver, owner: ReceiverType, attr: str) -> ReceiverType:
    """`<owner>.attr`: a module's member, an instance attribute's declared class; anything of a foreign
    object is foreign."""
    if (owner.modules or owner.classes) and not owner.instances:
        return _objects(resolver, resolver.attribute((*owner.modules, *owner.classes), attr))
    return _through(
        resolver, owner, [v for cls in owner.instances for v in resolver.attribute_types(cls, attr)]
    )


def _call_result(resolver: Resolver, owner: ReceiverType, method: str) -> ReceiverType:
    """`<owner>.method()`: what the method is annotated to return."""
    if owner.modules and not (owner.instances or owner.classes):
        return _instances_of(resolver, resolver.attribute(owner.modules, method))
    classes = (*owner.instances, *owner.classes)
    return _through(resolver, owner, [v for cls in classes for v in resolver.method_returns(cls, method)])


def _through(resolver: Resolver, owner: ReceiverType, declared: list[Value]) -> ReceiverType:
    """Instances of the classes the code declares for a step from `owner`; failing that, a step from a
    foreign object stays foreign."""
    if declared:
        return _instances_of(resolver, tuple(declared))
    if owner.foreign and not (owner.instances or owner.classes or owner.unknown):
        return FOREIGN
    return UNKNOWN


def receiver_relation(
    resolver: Resolver, module: str, receiver: Receiver, target_class: Value, member: str
) -> Relation:
    """Does `<receiver>.member` reach `target_class.member`?"""
    return type_relation(resolver, receiver_type(resolver, module, receiver), target_class, member)


def type_relation(resolver: Resolver, found: ReceiverType, target_class: Value, member: str) -> Relation:
    """Does `.member` of an object of type `found` reach `target_class.member`?"""
    if found.kind == "self":
        assert found.owner is not None
        return resolver.relation(found.owner, target_class, member)
    if found.kind == "super":
        assert found.owner is not None
        facts = resolver.class_facts(found.owner)
        if facts is None:
            return "unknown"
        return resolver.bases_relation(found.owner, facts, target_class, member)
    verdict: Relation = "unknown" if found.unknown or not found.known else "no"
    for value in (*found.instances, *found.classes):
        relation = resolver.relation(value, target_class, member)
        if relation == "yes":
            return "yes"
        if relation == "unknown":
            verdict = "unknown"
    return verdict


def _instances_of(resolver: Resolver, callees: tuple[Value, ...], depth: int = 0) -> ReceiverType:
    """The objects that calling (or annotating with) `callees` gives: instances of classes, what a
    function is annotated to return, objects of a foreign class."""
    instances: list[Value] = []
    unknown = foreign = False
    for value in callees:
        if value.kind == "module":
            unknown = True
        elif resolver.class_facts(value) is not None:
            instances.append(value)
        elif not resolver.source.in_repo(value.module):
            if looks_like_class(value) and not is_proxy(value):
                foreign = True
            else:
                unknown = True
        elif depth < _MAX_RETURN_DEPTH and (returned := resolver.returns(value)):
            found = _instances_of(resolver, returned, depth + 1)
            instances.extend(found.instances)
            unknown = unknown or found.unknown
            foreign = foreign or found.foreign
        else:
            unknown = True
    return ReceiverType("typed", instances=tuple(instances), unknown=unknown or not callees, foreign=foreign)


def _objects(resolver: Resolver, values: tuple[Value, ...]) -> ReceiverType:
    """What a dotted chain itself holds: a module, a class object, or a module-level instance."""
    if not values:
        return UNKNOWN
    instances: list[Value] = []
    classes: list[Value] = []
    modules: list[Value] = []
    unknown = foreign = False
    for value in values:
        if value.kind == "module":
            modules.append(value)
        elif resolver.class_facts(value) is not None:
            (instances if resolver.is_rebound_instance(value) else classes).append(value)
        elif not resolver.source.in_repo(value.module):
            foreign = True
        else:
            held = _instances_of(resolver, resolver.module_variable_classes(value))
            instances.extend(held.instances)
            unknown = unknown or held.unknown
            foreign = foreign or held.foreign
    return ReceiverType(
        "typed",
        instances=tuple(instances),
        classes=tuple(classes),
        modules=tuple(modules),
        unknown=unknown,
        foreign=foreign,
    )


def is_proxy(value: Value) -> bool:
    """A foreign class whose instances stand for another object (`werkzeug.local.LocalProxy`,
    `SimpleLazyObject`, `wrapt.ObjectProxy`): their attributes may be the project's."""
    leaf = value.name.rsplit(".", 1)[-1]
    return "Proxy" in leaf or "Lazy" in leaf


def looks_like_class(value: Value) -> bool:
    """Whether an object from outside the repository is a class: a standard-library type, or a name
    written in CapWords (the convention every well-known library follows for its classes)."""
    leaf = value.name.rsplit(".", 1)[-1] if value.name else ""
    if not leaf:
        return False
    top = value.module.split(".")[0]
    if top in sys.stdlib_module_names and top not in _NOT_IMPORTED:
        try:
            module = importlib.import_module(value.module)
        except (ImportError, ValueError):
            module = None
        if module is not None:
            return isinstance(getattr(module, leaf, None), type)
    return leaf[:1].isupper() and not leaf.isupper()


# Standard-library modules that do something when imported (open a browser, print, need a display).
_NOT_IMPORTED = frozenset({"antigravity", "this", "idlelib", "tkinter", "turtle", "turtledemo", "__main__"})
