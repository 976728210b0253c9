"""A module-level name another file sets on the module (`mod.here = ...` in a test's `setup_module`,
`setattr(mod, "here", ...)`): the module has the name whenever that code ran, whatever its own source
binds, so a removed binding of it is not a dangling reference."""

from __future__ import annotations

import ast
from typing import TYPE_CHECKING

from prscope.analysis.checks.sites import leaf
from prscope.analysis.intel.meaning import attribute_values
from prscope.analysis.intel.resolve import Value
from prscope.analysis.intel.scopes import dotted_chain

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import RepoView


def set_from_outside(view: RepoView, aliases: set[str]) -> bool:
    """Whether some file assigns the module-level name `aliases` denote from outside its module."""
    targets = {v for a in aliases if (v := view.names.value(a)) is not None}
    for word in {leaf(t) for t in targets}:
        for path in view.files_with_word(word):
            module, _, occurrences = view.word_occurrences(word, path)
            for occurrence in occurrences:
                if occurrence.kind != "attr" or not occurrence.store:
                    continue
                if set(attribute_values(view.names.resolver, module, word, occurrence)) & targets:
                    return True
            text = view.text(path) or ""
            # Only a file that calls setattr with the quoted name is parsed (sympy quotes names in
            # docstrings and tests everywhere).
            quoted = "setattr" in text and (f'"{word}"' in text or f"'{word}'" in text)
            if quoted and _setattr_names(view, path, word, targets):
                return True
    return False


def _setattr_names(view: RepoView, path: str, word: str, targets: set[Value]) -> bool:
    """Whether the file calls `setattr(<one of the targets' modules>, "word", ...)`."""
    tree = view.tree(path)
    if tree is None:
        return False
    module, _ = view.index.file_module(path)
    wanted = {t.module for t in targets}
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr"):
            continue
        if len(node.args) < 2 or not isinstance(node.args[1], ast.Constant) or node.args[1].value != word:
            continue
        chain = dotted_chain(node.args[0])
        values = view.names.resolver.chain_values(module, chain, None) if chain else ()
        if any(v.kind == "module" and v.module in wanted for v in values):
            return True
    return False
