"""Python code intelligence for the model: find_symbol, find_usages, get_signature.

Thin wrappers over the CodeIndex (analysis.intel): they choose what the model reads, bound it, and keep
results that point outside the sandbox (a symlinked module, a secret-looking path) out of the output.
"""

from __future__ import annotations

import ast
import threading
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar

from prscope.analysis.tools.base import SyncTool, ToolArgs, ToolContext, ToolError
from prscope.analysis.tools.paging import page_note, take_grouped_page, take_page
from prscope.analysis.tools.sandbox import Sandbox, sandbox_for
from pydantic import Field, model_validator

if TYPE_CHECKING:
    from prscope.analysis.intel import CodeIndex, Definition, Reference

_INDEX_LOCK = threading.Lock()
DOC_LINES = 40


def code_index_for(ctx: ToolContext) -> CodeIndex:
    """The context's CodeIndex (`ctx.extras["code_index"]`), built over the working tree on first use."""
    with _INDEX_LOCK:
        index: Any = ctx.extras.get("code_index")
        if index is None:
            from prscope.analysis.intel import CodeIndex

            index = CodeIndex(sandbox_for(ctx).root)
            ctx.extras["code_index"] = index
        return index  # type: ignore[no-any-return]


def _symbol_name(text: str, what: str) -> str:
    """The stripped name, refused unless it is an identifier or a dotted name (nothing else can match)."""
    name = text.strip()
    if not name:
        raise ToolError(f"{what} is empty")
    # The same test as the index applies; checked here so the code index is imported only when used.
    if not all(part.isidentifier() for part in name.split(".")):
        raise ToolError(
            f"{name!r} is not a Python name: give an identifier, 'Class.method' or a dotted qualified name "
            "(search_text finds arbitrary text)"
        )
    return name


def _allowed(sandbox: Sandbox, paths: Sequence[str]) -> set[str]:
    return {path for path in set(paths) if sandbox.allows(path)}


def _render_definition(definition: Definition) -> str:
    rows = [f"{definition.path}:{definition.line}  {definition.kind} {definition.qualname}"]
    if definition.signature:
        rows.append(f"    {definition.signature}")
    if definition.doc_head:
        rows.append(f'    """{definition.doc_head}"""')
    return "\n".join(rows)


class FindSymbolArgs(ToolArgs):
    name: str = Field(
        description=(
            "Symbol to look up: a bare name ('Symbol'), 'Class.method', or a dotted qualified name "
            "('sympy.core.symbol.Symbol')."
        )
    )
    max_results: int = Field(30, ge=1, le=200, description="Most definitions to show in one call.")
    offset: int = Field(0, ge=0, description="Number of definitions to skip (for paging).")


class FindSymbolTool(SyncTool[FindSymbolArgs]):
    name = "find_symbol"
    description = (
        "Find where a Python function, class, method, variable or module is defined: path, line, kind, "
        "signature and the first line of its docstring."
    )
    args_model = FindSymbolArgs

    def run_sync(self, args: FindSymbolArgs, ctx: ToolContext) -> str:
        name = _symbol_name(args.name, "name")
        index = code_index_for(ctx)
        found = index.find_definitions(name)
        allowed = _allowed(sandbox_for(ctx), [d.path for d in found])
        definitions = [d for d in found if d.path in allowed]
        if not definitions:
            return (
                f"no definition of {name!r} found in {len(index.python_files())} Python files; "
                "search_text finds names defined dynamically or outside Python"
            )
        rows = [_render_definition(d) for d in definitions]
        page = take_page(rows, args.offset, args.max_results, self.max_output_chars - 500, "definitions")
        note = page_note(page, self.name, "definitions", "use a dotted qualified name")
        header = f"{len(definitions)} definitions of {name!r}"
        return "\n".join([header, *page.rows, *([note] if note else [])])


class FindUsagesArgs(ToolArgs):
    symbol: str = Field(
        description=(
            "The symbol whose references to find: a dotted qualified name ('flask.app.Flask.route') is "
            "most precise; a bare name or 'Class.method' is resolved through its definitions. Works for "
            "symbols the change removed."
        )
    )
    path: str | None = Field(
        None, description="Only references in this file or under this directory (repository-relative)."
    )
    include_definitions: bool = Field(False, description="Also list the definition sites themselves.")
    max_results: int = Field(200, ge=1, le=2000, description="Most references to show in one call.")
    offset: int = Field(0, ge=0, description="Number of references to skip (for paging).")


class FindUsagesTool(SyncTool[FindUsagesArgs]):
    name = "find_usages"
    description = (
        "Find every reference to a Python symbol across the repository (imports, calls, attribute "
        "accesses, decorators, annotations), grouped by file with the line text. Import-aware: follows "
        "aliases, re-exports and relative imports. References marked 'probable' are method calls matched "
        "by attribute name where the receiver's type is unknown."
    )
    args_model = FindUsagesArgs
    timeout_s = 60.0

    def run_sync(self, args: FindUsagesArgs, ctx: ToolContext) -> str:
        symbol = _symbol_name(args.symbol, "symbol")
        sandbox = sandbox_for(ctx)
        scope = None if args.path in (None, "", ".") else sandbox.resolve(args.path).rel
        result = code_index_for(ctx).find_usages(symbol, include_definitions=args.include_definitions)
        allowed = _allowed(sandbox, [r.path for r in result.references])
        references = [r for r in result.references if r.path in allowed and _in_scope(r.path, scope)]
        references.sort(key=lambda r: (r.path, r.line, r.col))
        header = self._header(symbol, references, result.files_scanned, result.candidate_files, scope)
        extra = [f"note: {result.note}"] if result.note else []
        defined = [d for d in getattr(result, "definitions", []) if d.path in _allowed(sandbox, [d.path])]
        extra += [f"defined at {d.path}:{d.line} ({d.kind} {d.qualname})" for d in defined[:3]]
        skipped: list[str] = list(getattr(result, "skipped_files", []))
        if skipped:
            extra.append(f"not parsed (syntax errors): {', '.join(skipped[:10])}")
        if not references:
            return "\n".join([header, *extra])
        counts = Counter(r.path for r in references)
        budget = self.max_output_chars - 800 - sum(len(row) + 1 for row in extra)
        page = take_grouped_page(
            references,
            lambda reference: reference.path,
            lambda path: f"{path}  ({counts[path]})",
            self._row,
            args.offset,
            args.max_results,
            budget,
            "references",
        )
        note = page_note(page, self.name, "references", "pass path= to look at one directory")
        return "\n".join([header, *extra, *page.rows, *([note] if note else [])])

    @staticmethod
    def _header(
        symbol: str, references: list[Reference], scanned: int, candidates: int, scope: str | None
    ) -> str:
        files = len({r.path for r in references})
        probable = sum(1 for r in references if r.confidence == "probable")
        where = f" under {scope}" if scope else ""
        probable_text = f", {probable} probable" if probable else ""
        return (
            f"{len(references)} references to {symbol} in {files} files{where}{probable_text} "
            f"(parsed {scanned} of {candidates} candidate files that mention the name)"
        )

    @staticmethod
    def _row(reference: Reference) -> str:
        marker = " (probable)" if reference.confidence == "probable" else ""
        text = reference.text.strip()
        if len(text) > 200:
            text = text[:200] + " …"
        return f"  {reference.line}:{reference.col} {reference.kind}{marker}  {text}"


def _in_scope(path: str, scope: str | None) -> bool:
    return scope is None or path == scope or path.startswith(scope + "/")


class GetSignatureArgs(ToolArgs):
    path: str | None = Field(None, description="File of the location (repository-relative); use with line.")
    line: int | None = Field(
        None, ge=1, description="A line inside the function or class (or its def/class line); use with path."
    )
    name: str | None = Field(
        None, description="Instead of a location: a symbol name, 'Class.method' or dotted qualified name."
    )

    @model_validator(mode="after")
    def _location_or_name(self) -> GetSignatureArgs:
        has_location = self.path is not None and self.line is not None
        if has_location == (self.name is not None):
            raise ValueError("give either path and line, or name")
        return self


class GetSignatureTool(SyncTool[GetSignatureArgs]):
    name = "get_signature"
    description = (
        "Show the full signature (decorators, parameters with annotations and defaults, return type) and "
        "the docstring of the Python function or class at path:line, or of every definition of a name."
    )
    args_model = GetSignatureArgs
    max_definitions: ClassVar[int] = 5

    def run_sync(self, args: GetSignatureArgs, ctx: ToolContext) -> str:
        index = code_index_for(ctx)
        sandbox = sandbox_for(ctx)
        if args.name is not None:
            return self._for_name(index, sandbox, _symbol_name(args.name, "name"))
        assert args.path is not None and args.line is not None
        return self._at_location(index, sandbox, sandbox.resolve(args.path).real, args.line)

    def _for_name(self, index: CodeIndex, sandbox: Sandbox, name: str) -> str:
        found = index.find_definitions(name)
        allowed = _allowed(sandbox, [d.path for d in found])
        definitions = [d for d in found if d.path in allowed]
        if not definitions:
            raise ToolError(f"no definition of {name!r} found; find_symbol and search_text can help")
        blocks = []
        for definition in definitions[: self.max_definitions]:
            try:
                blocks.append(self._at_location(index, sandbox, definition.path, definition.line))
            except ToolError:
                blocks.append(_render_definition(definition))
        if len(definitions) > self.max_definitions:
            blocks.append(
                f"[{len(definitions) - self.max_definitions} more definitions of {name!r}; find_symbol "
                "lists them all, then ask with path and line]"
            )
        return "\n\n".join(blocks)

    def _at_location(self, index: CodeIndex, sandbox: Sandbox, rel: str, line: int) -> str:
        if not rel.endswith((".py", ".pyi")):
            raise ToolError(f"{rel} is not a Python file")
        tree = index.parse(rel) or _parse_directly(index, sandbox.root, rel)
        chain = _enclosing_chain(tree, line)
        if not chain:
            raise ToolError(
                f"line {line} of {rel} is not inside a function or class; read_file shows the code there"
            )
        node = chain[-1]
        module = index.module_name(rel)
        qualname = ".".join([*([module] if module else []), *(n.name for n in chain)])
        return _render_node(rel, node, qualname, kind=_kind(chain))


Scope = ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef


def _parse_directly(index: CodeIndex, root: Path, rel: str) -> ast.Module:
    """Parse a file the index would not (ignored, or broken) to say precisely why there is no answer."""
    text = index.source(rel)
    if text is None:
        path = root / rel
        text = path.read_bytes().decode("utf-8", "replace") if path.is_file() else None
    if text is None:
        raise ToolError(f"{rel} could not be read")
    try:
        return ast.parse(text, filename=rel)
    except SyntaxError as err:
        raise ToolError(
            f"{rel} could not be parsed: syntax error at line {err.lineno}: {err.msg}; read_file shows it"
        ) from err


def _span(node: Scope) -> tuple[int, int]:
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    return first, node.end_lineno or node.lineno


def _enclosing_chain(tree: ast.Module, line: int) -> list[Scope]:
    """The classes and functions containing `line`, outermost first."""
    chain: list[Scope] = []
    body: list[ast.stmt] = tree.body
    while True:
        inner = next(
            (n for n in _scopes_in(body) if _span(n)[0] <= line <= _span(n)[1]),
            None,
        )
        if inner is None:
            return chain
        chain.append(inner)
        body = inner.body


def _scopes_in(body: list[ast.stmt]) -> list[Scope]:
    """Definitions in a body, including those nested in if/try/with blocks (TYPE_CHECKING, fallbacks)."""
    found: list[Scope] = []
    for statement in body:
        if isinstance(statement, Scope):
            found.append(statement)
        elif isinstance(statement, ast.If | ast.Try | ast.With | ast.AsyncWith | ast.For | ast.While):
            for field in ("body", "orelse", "finalbody"):
                found.extend(_scopes_in(getattr(statement, field, [])))
            for handler in getattr(statement, "handlers", []):
                found.extend(_scopes_in(handler.body))
    return found


def _kind(chain: list[Scope]) -> str:
    node = chain[-1]
    if isinstance(node, ast.ClassDef):
        return "class"
    if len(chain) > 1 and isinstance(chain[-2], ast.ClassDef):
        return "method"
    return "function"


def signature_text(node: Scope) -> str:
    if isinstance(node, ast.ClassDef):
        bases = [ast.unparse(b) for b in node.bases] + [ast.unparse(k) for k in node.keywords]
        return f"class {node.name}({', '.join(bases)})" if bases else f"class {node.name}"
    prefix = "async def" if isinstance(node, ast.AsyncFunctionDef) else "def"
    returns = f" -> {ast.unparse(node.returns)}" if node.returns is not None else ""
    return f"{prefix} {node.name}({ast.unparse(node.args)}){returns}"


def _render_node(rel: str, node: Scope, qualname: str, kind: str) -> str:
    first, last = _span(node)
    rows = [f"{rel}:{node.lineno}  {kind} {qualname}  (lines {first}-{last})"]
    rows += [f"    @{ast.unparse(d)}" for d in node.decorator_list]
    rows.append(f"    {signature_text(node)}")
    doc = ast.get_docstring(node)
    if not doc:
        rows.append("  (no docstring)")
        return "\n".join(rows)
    doc_lines = doc.splitlines()
    rows.append("  docstring:")
    rows += [f"    {text}".rstrip() for text in doc_lines[:DOC_LINES]]
    if len(doc_lines) > DOC_LINES:
        rows.append(
            f"  [docstring cut after {DOC_LINES} lines; read_file {rel} from line {node.lineno} for the rest]"
        )
    return "\n".join(rows)
