"""What an annotation says a name holds: `Cls`, `Optional[Cls]`, `list[Cls]`, `dict[str, Cls]`,
`type[Cls]`, `Iterator[Cls]`, `Awaitable[Cls]`, `Callable[..., Cls]`, `"Cls"`, `Self`.

Names are resolved by the caller (`resolve` turns a dotted chain into what it denotes: a class object, a
module...); this module only reads the shape of the annotation.
"""

from __future__ import annotations

import ast
from collections.abc import Callable

from prscope.analysis.intel.infer.values import (
    FOREIGN_TYPES,
    NONE_TYPES,
    NOTHING,
    UNKNOWN_TYPES,
    AbstractValue,
    Awaitable,
    ClassRef,
    ForeignClass,
    Inst,
    Map,
    Returns,
    Seq,
    Tup,
    Types,
    union,
)
from prscope.analysis.intel.scopes import dotted_chain

Resolve = Callable[[tuple[str, ...]], Types]

_SEQUENCES = frozenset(
    {
        "list", "List", "set", "Set", "frozenset", "FrozenSet", "Sequence", "MutableSequence", "Iterable",
        "Iterator", "Collection", "AbstractSet", "MutableSet", "Deque", "deque", "Generator",
        "AsyncIterator", "AsyncIterable", "AsyncGenerator", "Reversible", "KeysView", "ValuesView",
    }
)  # fmt: skip
_MAPPINGS = frozenset(
    {"dict", "Dict", "Mapping", "MutableMapping", "DefaultDict", "defaultdict", "OrderedDict", "ChainMap"}
)
_WRAPPERS = frozenset({"ClassVar", "Final", "Annotated", "Required", "NotRequired", "ReadOnly", "InitVar"})
_AWAITABLES = frozenset({"Awaitable", "Coroutine"})
_ANYTHING = frozenset({"Any", "object", "TypeVar"})
_BUILTIN_TYPES = frozenset({"str", "int", "float", "bool", "bytes", "complex", "bytearray", "memoryview"})


def annotation_types(node: ast.expr | None, resolve: Resolve, own: Types | None = None) -> Types:
    """The objects an annotated name holds; unknown for what the annotation does not pin down."""
    if node is None:
        return UNKNOWN_TYPES
    if isinstance(node, ast.Constant):
        if node.value is None:
            return NONE_TYPES
        if isinstance(node.value, str):
            try:
                parsed = ast.parse(node.value.strip(), mode="eval").body
            except (SyntaxError, ValueError, RecursionError, MemoryError):
                return UNKNOWN_TYPES
            return annotation_types(parsed, resolve, own)
        return UNKNOWN_TYPES
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr):
        return union(annotation_types(node.left, resolve, own), annotation_types(node.right, resolve, own))
    if isinstance(node, ast.Subscript):
        return _generic(node, resolve, own)
    chain = dotted_chain(node)
    if chain is None:
        return UNKNOWN_TYPES
    leaf = chain[-1]
    if leaf == "Self" and own is not None:
        return own
    if leaf in _ANYTHING:
        return UNKNOWN_TYPES
    if leaf in _SEQUENCES:
        return frozenset({Seq(NOTHING)})  # what is put in later tells what it holds
    if leaf in _MAPPINGS:
        return frozenset({Map(NOTHING)})
    if len(chain) == 1 and leaf in _BUILTIN_TYPES:
        return FOREIGN_TYPES
    return instances(resolve(chain))


def instances(classes: Types) -> Types:
    """What calling (or annotating with) each class object gives."""
    found: set[AbstractValue] = set()
    for value in classes:
        if isinstance(value, ClassRef):
            found.add(Inst(value.cls))
        elif isinstance(value, ForeignClass):
            found |= FOREIGN_TYPES
        else:
            return UNKNOWN_TYPES  # a TypeVar, an alias the inference cannot follow, a module
    return frozenset(found) if found else UNKNOWN_TYPES


def _generic(node: ast.Subscript, resolve: Resolve, own: Types | None) -> Types:
    chain = dotted_chain(node.value)
    if chain is None:
        return UNKNOWN_TYPES
    leaf = chain[-1]
    args = list(node.slice.elts) if isinstance(node.slice, ast.Tuple) else [node.slice]

    def arg(index: int) -> Types:
        return annotation_types(args[index], resolve, own) if index < len(args) else UNKNOWN_TYPES

    if leaf in ("Optional",):
        return union(arg(0), NONE_TYPES)
    if leaf == "Union":
        return union(*(annotation_types(a, resolve, own) for a in args)) if args else UNKNOWN_TYPES
    if leaf in _WRAPPERS:
        return arg(0)
    if leaf in ("type", "Type"):
        inner = arg(0)
        return frozenset(ClassRef(v.cls) for v in inner if isinstance(v, Inst)) or UNKNOWN_TYPES
    if leaf in _SEQUENCES:
        return frozenset({Seq(arg(0))})
    if leaf in ("tuple", "Tuple"):
        if len(args) == 2 and isinstance(args[1], ast.Constant) and args[1].value is Ellipsis:
            return frozenset({Seq(arg(0))})
        return frozenset({Tup(tuple(annotation_types(a, resolve, own) for a in args))})
    if leaf in _MAPPINGS:
        return frozenset({Map(arg(len(args) - 1) if args else UNKNOWN_TYPES)})
    if leaf in _AWAITABLES:
        return frozenset({Awaitable(arg(len(args) - 1) if args else UNKNOWN_TYPES)})
    if leaf == "Callable":
        return frozenset({Returns(arg(1))}) if len(args) == 2 else UNKNOWN_TYPES
    if leaf in _ANYTHING:
        return UNKNOWN_TYPES
    # A generic class of the repository (`Pool[Conn]`) or a foreign one (`Queue[Job]`).
    return instances(resolve(chain)) if chain else NOTHING


def yielded(types: Types) -> Types:
    """What a generator annotated `Iterator[X]` / `Generator[X, ...]` yields (a fixture's value)."""
    found: set[AbstractValue] = set()
    for value in types:
        if isinstance(value, Seq):
            found |= value.elements
        else:
            return UNKNOWN_TYPES
    return frozenset(found) if found else UNKNOWN_TYPES
