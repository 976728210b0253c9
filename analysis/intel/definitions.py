"""Definitions in a parsed module: functions, methods, classes and module-level variables."""

from __future__ import annotations

import ast

from prscope.analysis.intel.models import Definition, DefinitionKind
from prscope.analysis.intel.scopes import target_names
from prscope.analysis.intel.signatures import Signature


def definitions_in_tree(tree: ast.Module, path: str, module: str) -> list[Definition]:
    found: list[Definition] = []
    _walk(tree.body, path, module, prefix=module, in_class=False, found=found, top_level=True)
    return found


def _walk(
    body: list[ast.stmt],
    path: str,
    module: str,
    *,
    prefix: str,
    in_class: bool,
    found: list[Definition],
    top_level: bool,
) -> None:
    for node in body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            qualname = f"{prefix}.{node.name}"
            kind: DefinitionKind = "method" if in_class else "function"
            found.append(_definition(node, path, qualname, kind, signature_text(node, in_class=in_class)))
            _walk(node.body, path, module, prefix=qualname, in_class=False, found=found, top_level=False)
        elif isinstance(node, ast.ClassDef):
            qualname = f"{prefix}.{node.name}"
            found.append(_definition(node, path, qualname, "class", class_signature(node)))
            _walk(node.body, path, module, prefix=qualname, in_class=True, found=found, top_level=False)
        elif isinstance(node, ast.Assign | ast.AnnAssign) and (top_level or in_class):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for name in target_names(target):
                    found.append(
                        Definition(
                            path=path,
                            line=node.lineno,
                            end_line=node.end_lineno or node.lineno,
                            col=node.col_offset + 1,
                            kind="variable",
                            qualname=f"{prefix}.{name}",
                            name=name,
                            signature=_first_line(ast.unparse(node)),
                        )
                    )
        elif isinstance(node, ast.If | ast.Try | ast.With) and (top_level or in_class):
            blocks: list[list[ast.stmt]]
            if isinstance(node, ast.Try):
                blocks = [node.body, *[h.body for h in node.handlers], node.orelse, node.finalbody]
            elif isinstance(node, ast.If):
                blocks = [node.body, node.orelse]
            else:
                blocks = [node.body]
            for block in blocks:
                _walk(block, path, module, prefix=prefix, in_class=in_class, found=found, top_level=top_level)


def _definition(
    node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef,
    path: str,
    qualname: str,
    kind: DefinitionKind,
    signature: str,
) -> Definition:
    line = node.lineno
    col = node.col_offset
    return Definition(
        path=path,
        line=line,
        end_line=node.end_lineno or line,
        col=col + 1,
        kind=kind,
        qualname=qualname,
        name=node.name,
        signature=signature,
        doc_head=doc_head(node),
    )


def signature_text(node: ast.FunctionDef | ast.AsyncFunctionDef, *, in_class: bool = False) -> str:
    return Signature.from_ast(node, in_class=in_class).render()


def class_signature(node: ast.ClassDef) -> str:
    bases = [ast.unparse(base) for base in node.bases]
    bases += [
        f"{kw.arg}={ast.unparse(kw.value)}" if kw.arg else f"**{ast.unparse(kw.value)}"
        for kw in node.keywords
    ]
    text = f"class {node.name}({', '.join(bases)})" if bases else f"class {node.name}"
    for stmt in node.body:
        if isinstance(stmt, ast.FunctionDef | ast.AsyncFunctionDef) and stmt.name == "__init__":
            init = Signature.from_ast(stmt, in_class=True).without_first()
            text += f"  # __init__({init.render_params()})"
            break
    return text


def doc_head(node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | ast.Module) -> str:
    doc = ast.get_docstring(node, clean=True)
    if not doc:
        return ""
    for line in doc.splitlines():
        if line.strip():
            return line.strip()
    return ""


def _first_line(text: str) -> str:
    first = text.splitlines()[0] if text else ""
    return first if len(first) <= 160 else first[:157] + "..."
