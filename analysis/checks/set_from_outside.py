"""Names set from outside the code that defines them: a module-level name another file sets on the
module (`mod.here = ...` in a test's `setup_module`, `setattr(mod, "here", ...)`), and class attributes
installed under computed names (`setattr(Dataset, fmt.title, property(...))`). The module or class has
such a name whenever that code ran, whatever its own source binds, so a removed binding of it is not a
dangling reference."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from prscope.analysis.checks.computed_attributes import names_attribute
from prscope.analysis.checks.sites import leaf
from prscope.analysis.intel.files import attribute_spelling
from prscope.analysis.intel.meaning import attribute_values
from prscope.analysis.intel.resolve import Value
from prscope.analysis.intel.scopes import dotted_chain

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import RepoView


def set_from_outside(view: RepoView, aliases: set[str]) -> bool:
    """Whether some file assigns the module-level name `aliases` denote from outside its module."""
    targets = {v for a in aliases if (v := view.names.value(a)) is not None}
    # The module is reached by a name its import spells: a file that never spells the module's own name
    # cannot set anything on it (sympy's removed `T`, a TypeVar: 130 files spell `.T`, the transpose).
    module_names = {_receiver_word(t) for t in targets}
    for word in {leaf(t) for t in targets}:
        # Only a file spelling `.word` can store it as an attribute: most files naming a removed function
        # import or call it.
        attribute = attribute_spelling(word)
        for path in view.files_with_word(word):
            text = view.text(path) or ""
            spelled = attribute.search(text) and any(name in text for name in module_names)
            if spelled and _stores_attribute(view, path, word, targets):
                return True
            # Only a file that calls setattr with the quoted name is parsed (sympy quotes names in
            # docstrings and tests everywhere).
            quoted = "setattr" in text and (f'"{word}"' in text or f"'{word}'" in text)
            if quoted and _setattr_names(view, path, word, targets):
                return True
    return False


def _receiver_word(target: Value) -> str:
    """The name a store of `target` is spelled through: its module's, or its class's for a nested name."""
    owner = target.name.rpartition(".")[0]
    return (owner or target.module).rpartition(".")[2]


def _stores_attribute(view: RepoView, path: str, word: str, targets: set[Value]) -> bool:
    """Whether the file assigns `<one of the targets' modules>.word = ...`."""
    module, _, occurrences = view.word_occurrences(word, path)
    return any(
        occurrence.kind == "attr"
        and occurrence.store
        and set(attribute_values(view.names.resolver, module, word, occurrence)) & targets
        for occurrence in occurrences
    )


def _setattr_names(view: RepoView, path: str, word: str, targets: set[Value]) -> bool:
    """Whether the file calls `setattr(<one of the targets' modules>, "word", ...)`."""
    wanted = {t.module for t in targets}
    for name, values, _chain in _setattr_calls(view, path):
        named = isinstance(name, ast.Constant) and name.value == word
        if named and any(v.kind == "module" and v.module in wanted for v in values):
            return True
    return False


def installs_computed_names(view: RepoView, classes: set[str]) -> bool:
    """Whether some file calls `setattr(<one of the classes>, <a computed name>, ...)` (tablib a9d9671b
    installs a property per registered format on `Dataset`): any name may be one of those."""
    wanted = classes | {view.names.canonical(dotted) for dotted in classes}
    calling = set(view.files_with_word("setattr"))
    for word in {dotted.rpartition(".")[2] for dotted in classes}:
        # The file is parsed only when its text has `setattr(<...>.word,`: most files naming the class
        # set nothing on it.
        spelled = re.compile(rf"\bsetattr\(\s*(?:[\w.]+\.)?{re.escape(word)}\s*,")
        for path in view.files_with_word(word):
            if path not in calling:
                continue
            if spelled.search(view.text(path) or "") and _computed_setattr_on(view, path, word, wanted):
                return True
    return False


def _computed_setattr_on(view: RepoView, path: str, word: str, wanted: set[str]) -> bool:
    for name, values, chain in _setattr_calls(view, path):
        if isinstance(name, ast.Constant) or not chain or chain[-1] != word:
            continue
        # A class imported inside the function (`from tablib.core import Dataset` in `register`) is not
        # a module-level binding: the name alone decides then.
        if not values or any(str(v) in wanted for v in values if v.kind == "member"):
            return True
    return False


def _setattr_calls(
    view: RepoView, path: str
) -> Iterator[tuple[ast.expr, tuple[Value, ...], tuple[str, ...]]]:
    """(name argument, what the object argument denotes at module level, its dotted chain) of each
    `setattr(obj, name, value)` call in the file."""
    tree = view.tree(path)
    if tree is None:
        return
    module, _ = view.index.file_module(path)
    for node in ast.walk(tree):
        if not names_attribute(node, "setattr"):
            continue
        assert isinstance(node, ast.Call)
        chain = dotted_chain(node.args[0])
        values = view.names.resolver.chain_values(module, chain, None) if chain else ()
        yield node.args[1], values, chain or ()
