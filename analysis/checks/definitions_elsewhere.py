"""Other definitions of a name: functions, methods and class attributes of that name outside the changed
classes, and attributes of that name assigned anywhere. When any exist, an attribute found only by its
name may belong to one of them."""

from __future__ import annotations

import ast
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from prscope.analysis.checks.resolve import flat_body
from prscope.analysis.intel.scopes import is_super_call
from prscope.analysis.intel.signatures import Signature

if TYPE_CHECKING:
    from prscope.analysis.checks.sites import RepoView


def other_definitions(
    view: RepoView, name: str, exclude_classes: set[str]
) -> list[tuple[str, str, Signature | None]]:
    """(path, qualname, signature) of the functions, methods and class attributes named `name` outside
    `exclude_classes` (dotted), `<attribute name>` for files assigning `x.name = ...`, and `<generated
    name>` for code generators writing `def name(` into a string, `<unparsed name>` for a `def name(` in a
    file Python does not accept. Only the parts of files that define the name are parsed."""
    return list(_other_definitions(view, name, exclude_classes))


def defined_elsewhere(view: RepoView, name: str, exclude_classes: set[str]) -> bool:
    """Whether `other_definitions` finds anything, read only up to the first file that has one (each
    file read may have to be compiled whole: sqlalchemy's test files defining `impl` are 100-200 KB)."""
    return next(_other_definitions(view, name, exclude_classes), None) is not None


def _other_definitions(
    view: RepoView, name: str, exclude_classes: set[str]
) -> Iterator[tuple[str, str, Signature | None]]:
    exclude = exclude_classes | {view.names.canonical(c) for c in exclude_classes}
    word = re.escape(name)
    defined = re.compile(
        rf"^[ \t]*(?:async[ \t]+)?def[ \t]+{word}\b|^[ \t]+{word}[ \t]*(?::[^=\n]*)?=(?!=)", re.M
    )
    stored = re.compile(rf"\.\s*{word}\s*(?::[^=\n]*)?=(?!=)")
    generated = re.compile(rf"""["'][ \t]*(?:async[ \t]+)?def[ \t]+{word}[ \t]*\(""")
    a_def = re.compile(rf"^[ \t]*def[ \t]+{word}[ \t]*\(", re.M)
    own_files = {view.module_path(c.rsplit(".", 1)[0]) for c in exclude}
    option = _command_line_option(name)
    for path in view.files_with_word(name):
        text = view.text(path) or ""
        if option.search(text):
            # argparse's `parser.add_argument('url')` makes `args.url` on the Namespace it parses into
            # (trio-websocket add9f63fa9's examples read `args.url`, no class of theirs)
            yield (path, f"<argument {name}>", None)
        if generated.search(text):
            # A code generator writes the method into modules made at build time (Telethon's request
            # classes keep `on_response` after their base's is removed): those are not in the repository.
            yield (path, f"<generated {name}>", None)
        if not (defined.search(text) or stored.search(text)):
            continue
        if not view.parses(path):
            # Python 2 code (ZODB 8356d18e's Connection.py defines `cacheMinimize(self, dt=0)`): its
            # definitions cannot be read, but a `def` of the name there may be what an unknown receiver is.
            if path not in own_files and a_def.search(text):
                yield (path, f"<unparsed {name}>", None)
            continue
        module, _ = view.index.file_module(path)
        for match in defined.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            for qualname, owner, signature in _definitions_at(view, path, line, name):
                if owner is None or f"{module}.{owner}" not in exclude:
                    yield (path, qualname, signature)
                elif _hands_on_outside(view, path, line, name):
                    # A wrapper whose method calls the same-named method of an object a third-party
                    # library made (apptools f25c43fa7b: `H5File.create_array` hands on to PyTables'
                    # `File.create_array`): that library's class has the name too, and the repository
                    # holds its objects.
                    yield (path, f"<handed on {name}>", None)
        if stored.search(text):
            yield (path, f"<attribute {name}>", None)


def _command_line_option(name: str) -> re.Pattern[str]:
    """An argparse or optparse option whose destination is `name`: `add_argument('name')`,
    `add_argument('-n', '--name')` (dashes become underscores), `dest='name'`."""
    spelled = "[-_]".join(re.escape(part) for part in name.split("_"))
    return re.compile(
        rf"""\badd_(?:argument|option)\(\s*(?:["']-[\w-]*["']\s*,\s*)?["'](?:--)?{spelled}["']"""
        rf"""|\badd_(?:argument|option)\([^)]*\bdest\s*=\s*["']{re.escape(name)}["']"""
    )


def _definitions_at(
    view: RepoView, path: str, line: int, name: str
) -> list[tuple[str, str | None, Signature | None]]:
    """The definition of `name` on `line`: a function, a method or a class attribute."""
    unit = view.index.unit_at(path, line)
    nodes = view.nodes(path, line)
    if unit is None or nodes is None:
        return []
    # A method's part is parsed without its class around it.
    owner = unit.class_name if unit.kind == "method" else None
    prefix = f"{owner}." if owner else ""
    return [
        (qualname, in_class, signature)
        for at, qualname, in_class, signature in _definitions_named(nodes.tree.body, name, prefix, owner)
        if at == line
    ]


def _definitions_named(
    body: list[ast.stmt], name: str, prefix: str, owner: str | None = None
) -> list[tuple[int, str, str | None, Signature | None]]:
    """(line, qualname, owning class, signature) of the functions, methods and class attributes named
    `name` in a module's top level and its classes (through if/try blocks)."""
    found: list[tuple[int, str, str | None, Signature | None]] = []
    for node in flat_body(body):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name:
            signature = Signature.from_ast(node, in_class=owner is not None)
            found.append((node.lineno, f"{prefix}{name}", owner, signature))
        elif isinstance(node, ast.ClassDef):
            qualname = f"{prefix}{node.name}"
            found.extend(_definitions_named(node.body, name, f"{qualname}.", qualname))
        elif owner is not None and isinstance(node, ast.Assign | ast.AnnAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == name for t in targets):
                found.append((node.lineno, f"{prefix}{name}", owner, None))
    return found


def _hands_on_outside(view: RepoView, path: str, line: int, name: str) -> bool:
    """Whether the method `name` defined on `line` calls `<x>.name(...)` on an object only code outside
    the repository made."""
    nodes = view.nodes(path, line)
    if nodes is None:
        return False
    method = next(
        (
            n
            for n in ast.walk(nodes.tree)
            if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef) and n.name == name and n.lineno == line
        ),
        None,
    )
    if method is None:
        return False
    return any(
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr == name
        and not _is_own_receiver(call.func.value)
        and view.receiver_made_outside(path, call)
        for call in ast.walk(method)
    )


def _is_own_receiver(node: ast.expr) -> bool:
    return (isinstance(node, ast.Name) and node.id in ("self", "cls")) or is_super_call(node)
