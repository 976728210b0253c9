"""The abstract values the inference works with: what an expression may hold at run time.

An expression's type is a frozen set of these (`Types`). `UNKNOWN` in a set poisons it: the checks only
act on a type the code fully tells (precision first), so a union with an unknown part is unknown.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Union

from prscope.analysis.intel.resolve import Value


@dataclass(frozen=True)
class Atom:
    """A value the inference does not look into: an object of a class from outside the repository
    (`FOREIGN`), `None`, or something the code does not tell (`UNKNOWN`)."""

    name: str

    def __repr__(self) -> str:
        return self.name


FOREIGN = Atom("foreign")
NONE = Atom("none")
UNKNOWN = Atom("unknown")


@dataclass(frozen=True)
class Inst:
    """An instance of a repository class."""

    cls: Value


@dataclass(frozen=True)
class ClassRef:
    """A repository class object (`Cls`, `type(x)`, `cls` in a classmethod)."""

    cls: Value


@dataclass(frozen=True)
class ForeignClass:
    """A class from outside the repository: calling it gives a foreign object."""

    name: str


@dataclass(frozen=True)
class Mod:
    module: str


@dataclass(frozen=True)
class Func:
    """A function or method defined in the repository: where its `def` is, and the class it is in."""

    path: str
    line: int
    name: str
    owner: Value | None = None
    overloads: tuple[int, ...] = ()
    """`def` lines of its `@overload` stubs: a call picks the first one it fits."""


@dataclass(frozen=True)
class Bound:
    """A method read through an instance or a class (`obj.meth`, `Cls.create` for a classmethod)."""

    func: Func
    receiver: Types


@dataclass(frozen=True)
class Seq:
    """A list, set, tuple of any length, iterator or generator: only what its elements are."""

    elements: Types


@dataclass(frozen=True)
class Tup:
    """A tuple whose length the code tells (`a, b = make_pair()`)."""

    items: tuple[Types, ...]


@dataclass(frozen=True)
class Map:
    """A dict: only what its values are."""

    values: Types


@dataclass(frozen=True)
class Awaitable:
    """A coroutine or another awaitable: `await` gives `result`."""

    result: Types


@dataclass(frozen=True)
class Entered:
    """What a `@contextmanager` function's call gives: `with ... as x` binds x to `value`."""

    value: Types


@dataclass(frozen=True)
class Returns:
    """Something callable whose result the code tells (`functools.partial(Cls, ...)`,
    `Callable[..., Cls]`)."""

    result: Types


AbstractValue = Union[  # noqa: UP007 (a forward reference: the members name Types)
    Atom, Inst, ClassRef, ForeignClass, Mod, Func, Bound, Seq, Tup, Map, Awaitable, Entered, Returns
]
Types = frozenset[AbstractValue]

NOTHING: Types = frozenset()
UNKNOWN_TYPES: Types = frozenset({UNKNOWN})
FOREIGN_TYPES: Types = frozenset({FOREIGN})
NONE_TYPES: Types = frozenset({NONE})


def union(*parts: Types) -> Types:
    merged: set[AbstractValue] = set()
    for part in parts:
        merged |= part
    return frozenset(merged)


def known(types: Types) -> bool:
    """Whether the code tells everything the expression may hold (no unknown part, not empty)."""
    return bool(types) and UNKNOWN not in types


def or_unknown(types: Types) -> Types:
    """An empty answer means the code says nothing: unknown."""
    return types if types else UNKNOWN_TYPES
