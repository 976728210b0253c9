"""Calls of standard-library functions: what they give is the library's own, never a repository object,
unless the repository hands one in (as an argument) or the function can return anything (deserialisers,
reflection, registries a project may fill with its own classes: loggers, threads, event-loop policies)."""

from __future__ import annotations

import functools
import sys
import sysconfig
from pathlib import Path

from prscope.analysis.intel.infer.values import (
    FOREIGN,
    NONE,
    AbstractValue,
    Atom,
    Awaitable,
    Entered,
    ForeignClass,
    Func,
    Map,
    Returns,
    Seq,
    Tup,
    Types,
)

STDLIB_FUNCTION = "<stdlib function>"
"""The name of the `Func` standing for a plain standard-library function (its `line` is 0)."""

_ANY_RESULT_MODULES = frozenset(
    {
        "abc", "builtins", "contextvars", "copy", "copyreg", "dataclasses", "enum", "functools",
        "gc", "importlib", "inspect", "logging", "marshal", "multiprocessing", "operator", "pickle",
        "pkgutil", "runpy", "shelve", "threading", "types", "typing", "unittest", "weakref",
    }
)  # fmt: skip


def plain_stdlib_function(module: str, name: str) -> bool:
    """Whether `module.name` is a function of the standard library whose result is its own (`asyncio.
    new_event_loop`, `os.path.join`, `subprocess.run`): not a class, not a module that may return anything."""
    top = module.split(".")[0]
    return (
        top in sys.stdlib_module_names
        and top not in _ANY_RESULT_MODULES
        and not top.startswith("_")
        and "." not in name
        and not name.startswith("_")
        and not stdlib_submodule(module, name)
    )


def stdlib_module(module: str) -> bool:
    return module.split(".")[0] in sys.stdlib_module_names


@functools.cache
def stdlib_submodule(module: str, name: str) -> bool:
    """Whether `from module import name` of the standard library imports a module (`from http import
    client`), read from the standard library's own files."""
    if module.split(".")[0] not in sys.stdlib_module_names:
        return False
    folder = Path(sysconfig.get_paths()["stdlib"]).joinpath(*module.split("."))
    return (folder / f"{name}.py").is_file() or (folder / name / "__init__.py").is_file()


def holds_repository_values(types: Types) -> bool:
    """Whether a value of `types` may be (or contain) something the repository made, or is unknown."""
    return any(_holds(value) for value in types)


def _holds(value: AbstractValue) -> bool:
    if isinstance(value, Atom):
        return value not in (FOREIGN, NONE)
    if isinstance(value, Func):
        return bool(value.line)
    if isinstance(value, ForeignClass):
        return False
    if isinstance(value, Seq):
        return holds_repository_values(value.elements)
    if isinstance(value, Map):
        return holds_repository_values(value.values)
    if isinstance(value, Awaitable | Returns):
        return holds_repository_values(value.result)
    if isinstance(value, Entered):
        return holds_repository_values(value.value)
    if isinstance(value, Tup):
        return any(holds_repository_values(item) for item in value.items)
    return True  # an instance, a class, a module or a method of the repository
