"""Receiver-type inference: the one place every rule and `find_usages` learn what an untyped receiver
holds (pytest fixtures, parameters from their callers, unannotated returns, attributes assigned in
methods, containers, context managers, classes defined in functions).

`receiver_of` is consulted only when the resolver alone cannot tell a receiver's type; it answers only
when the code tells the whole type (an unknown part means no answer, so a rule says nothing).
"""

from __future__ import annotations

from typing import cast

from prscope.analysis.intel.infer.callers import Callers, UsageSource, in_caller_query
from prscope.analysis.intel.infer.code import CodeSource
from prscope.analysis.intel.infer.engine import Inference
from prscope.analysis.intel.infer.values import (
    FOREIGN,
    NONE,
    UNKNOWN,
    Bound,
    ClassRef,
    Func,
    Inst,
    Mod,
    Types,
    known,
)
from prscope.analysis.intel.meaning import ReceiverType, receiver_type
from prscope.analysis.intel.resolve import Resolver, Value
from prscope.analysis.intel.scan import Occurrence


def inference_for(resolver: Resolver) -> Inference:
    """The inference that goes with a resolver (one per query or check run)."""
    found = resolver.inference
    if isinstance(found, Inference):
        return found
    source = resolver.source
    callers = (
        None
        if in_caller_query() or not hasattr(source, "find_usages")
        else Callers(cast(UsageSource, source))
    )
    inference = Inference(cast(CodeSource, source), resolver, callers=callers)
    resolver.inference = inference
    return inference


def made_outside(resolver: Resolver, path: str, line: int, col: int, word: str) -> bool:
    """Whether the receiver of the `<expr>.word` at (line, col) only ever holds objects code from outside
    the repository made (`self._h5 = tables.open_file(name)`: a third-party function handed nothing of
    the repository), or None. A separate inference answers it: one in which such functions give their own
    objects, which the shared one never assumes."""
    found = resolver.outside_inference
    if not isinstance(found, Inference):
        found = Inference(cast(CodeSource, resolver.source), resolver, outside_results=True)
        resolver.outside_inference = found
    types = found.receiver(path, line, col, word)
    if types is None or not known(types):
        return False
    return FOREIGN in types and all(v in (FOREIGN, NONE) for v in types)


def receiver_of(resolver: Resolver, path: str, occurrence: Occurrence, word: str) -> ReceiverType | None:
    """What the receiver of the `<expr>.word` occurrence holds, when the code tells it whole."""
    types = inference_for(resolver).receiver(path, occurrence.line, occurrence.col, word)
    if types is None or not known(types):
        return None
    return as_receiver_type(types)


def occurrence_type(
    resolver: Resolver, module: str, path: str, occurrence: Occurrence, word: str
) -> ReceiverType:
    """The type of the receiver of an attribute occurrence: as the resolver reads it, else (when it
    cannot tell anything) as the inference works it out."""
    assert occurrence.receiver is not None
    found = receiver_type(resolver, module, occurrence.receiver)
    if found.known:
        return found
    inferred = receiver_of(resolver, path, occurrence, word)
    return inferred if inferred is not None else found


def holds_bound_method(
    resolver: Resolver, path: str, occurrence: Occurrence, word: str, target_class: Value, member: str
) -> bool:
    """Whether `<expr>.word` holds the target's method itself (bound to an instance of a class that
    reaches it): a callback the object was given (`self._on_auth = client._on_auth`)."""
    types = inference_for(resolver).member(path, occurrence.line, occurrence.col, word)
    values = [v for v in types or () if v is not NONE]
    if not values:
        return False
    for value in values:
        func = value.func if isinstance(value, Bound) else value
        if not isinstance(func, Func) or func.name != member or func.owner is None:
            return False
        if resolver.relation(func.owner, target_class, member) != "yes":
            return False
    return True


def as_receiver_type(types: Types) -> ReceiverType | None:
    instances: list[Value] = []
    classes: list[Value] = []
    modules: list[Value] = []
    foreign = False
    for value in types:
        if isinstance(value, Inst):
            instances.append(value.cls)
        elif isinstance(value, ClassRef):
            classes.append(value.cls)
        elif isinstance(value, Mod):
            modules.append(Value("module", value.module))
        elif value is UNKNOWN:
            return None
        elif value is not NONE:
            foreign = True  # a builtin container, a function, a coroutine: nothing of a repository class
    if not (instances or classes or modules or foreign):
        return None
    return ReceiverType(
        "typed", instances=tuple(instances), classes=tuple(classes), modules=tuple(modules), foreign=foreign
    )


__all__ = [
    "Inference",
    "as_receiver_type",
    "holds_bound_method",
    "inference_for",
    "occurrence_type",
    "receiver_of",
]
