"""Line-level checks on what the PR adds: syntax errors, conflict markers, debugger leftovers, secrets."""

from __future__ import annotations

import ast
import io
import re
import sys
import tokenize
import warnings
from collections.abc import Callable
from dataclasses import dataclass

from prscope.analysis.changeset import FileChange, FileStatus
from prscope.analysis.checks.context import (
    CheckContext,
    is_python_path,
    line_at,
    make_finding,
    unreadable_reason,
)
from prscope.analysis.checks.project_tools import ProjectTools
from prscope.analysis.checks.pyversion import (
    PythonVersion,
    Target,
    docs_target,
    is_docs_path,
    is_example_path,
    shebang_target,
    target_version,
    version_gated_by_pytest,
    version_gated_by_tox,
)
from prscope.analysis.checks.secrets import find_secrets, mask_secrets
from prscope.analysis.findings import Finding, Severity, Suggestion
from prscope.analysis.intel.python2 import python2_construct

SYNTAX_ERROR = "syntax-error"
CONFLICT_MARKER = "conflict-marker"
DEBUG_LEFTOVER = "debug-leftover"
SECRET = "secret"

_OPEN_MARKER = re.compile(r"^<{7}(?: |$)")
_BASE_MARKER = re.compile(r"^\|{7}(?: |$)")
_MIDDLE_MARKER = re.compile(r"^={7}[ \t]*$")
_CLOSE_MARKER = re.compile(r"^>{7}(?: |$)")

DEBUGGER_MODULES = frozenset({"pdb", "ipdb", "pudb", "pdbr", "pdbpp", "rpdb", "remote_pdb", "web_pdb", "rdb"})
_DEBUG_TEXT = re.compile(
    r"\bbreakpoint\s*\(\s*\)|\b(?:" + "|".join(sorted(DEBUGGER_MODULES)) + r")\.set_trace\s*\("
)

# Syntax newer than the running interpreter must not be reported as an error in the PR.
_NEWER_SYNTAX = (
    # PEP 695's type parameters and `type` statements (3.12), PEP 750's template strings (3.14).
    ((3, 12), re.compile(r"^\s*(?:type\s+\w+\s*(?:\[.*\])?\s*=|(?:async\s+)?(?:def|class)\s+\w+\s*\[)")),
    ((3, 14), re.compile(r"(?<![\w.'\"])(?:[tT][rR]?|[rR][tT])(?:\"|')")),
)
"""Syntax of Pythons newer than the one running prscope: a line using it cannot be judged here."""
_F_STRING = re.compile(r"(?<![\w.'\"])(?:[fF][rR]?|[rR][fF])(?:\"|')")
_FREE_F_STRINGS: PythonVersion = (3, 12)
"""PEP 701: from Python 3.12 on, an f-string's `{...}` may reuse its quotes, hold backslashes and span
lines (TatSu c40c1329 writes `f'r"{re.sub(r'(?<!\\)"', ...)}"'` and requires 3.12)."""


def _f_string_of_a_newer_target(source_line: str, target: Target | None) -> bool:
    """Whether the failing line holds an f-string, in a project that may target a Python whose f-strings
    this interpreter cannot parse (it declares 3.12 or later, or nothing). For a project that targets an
    older Python, the line is an error there too, and is reported."""
    if sys.version_info >= _FREE_F_STRINGS or _F_STRING.search(source_line) is None:
        return False
    return target is None or target.version is None or target.version >= _FREE_F_STRINGS


def _python_changes(ctx: CheckContext) -> list[FileChange]:
    return [
        change
        for change in ctx.changed_files()
        if change.status is not FileStatus.DELETED and is_python_path(change.path)
    ]


def _text_changes(ctx: CheckContext) -> list[FileChange]:
    return [change for change in ctx.changed_files() if change.status is not FileStatus.DELETED]


def check_syntax(ctx: CheckContext) -> list[Finding]:
    target = target_version(ctx.python_version, ctx.cs.read_new)
    if target is not None and target.version is None:
        return []  # a Python 2 project: its syntax is not judged by a Python 3 parser
    docs = docs_target(ctx.cs.read_new) if target is not None else None
    findings: list[Finding] = []
    for change in _python_changes(ctx):
        text = ctx.new_text(change.path)
        if text is None:
            ctx.skip(change.path, unreadable_reason(change))
            continue
        if _has_conflict_markers(ctx, change):
            continue  # the conflict-marker finding says it better
        # The docs' own code (`docs/conf.py`, Sphinx extensions) runs under the docs build's Python.
        file_target = docs if docs is not None and is_docs_path(change.path) else target
        file_target = shebang_target(text, file_target)
        finding = _syntax_finding(ctx, change, text, file_target)
        if finding is not None:
            findings.append(finding)
    return findings


def _syntax_finding(
    ctx: CheckContext, change: FileChange, text: str, target: Target | None
) -> Finding | None:
    grammar = target.grammar if target is not None else None
    file_grammar = _grammar_for(change.path, grammar)
    parsed = _parsed(text, change.path, file_grammar)
    if isinstance(parsed, ast.Module):
        if _reads_like_the_current_grammar(file_grammar):
            ctx.keep_tree("new", change.path, parsed)  # every other check reads this file's tree too
        return None
    error = parsed
    if error is None:
        return None
    line = max(1, error.lineno or 1)
    source_line = line_at(text, line)
    if any(sys.version_info < version and pattern.search(source_line) for version, pattern in _NEWER_SYNTAX):
        return None  # written for a newer Python than this interpreter knows
    if _f_string_of_a_newer_target(source_line, target):
        return None
    if not _parsed_before(ctx, change, grammar):
        return None  # already unparsable at the base (Python 2 code, say): not this change's doing
    if target is None and python2_construct(error, source_line) and not _python3_only_syntax(text):
        return None  # a project that declares no Python, in a file with nothing of Python 3: Python 2 code
    if target is None and _written_before_async_was_a_keyword(text, change.path):
        return None
    if _only_too_new(text, change.path) and _target_not_in_force(ctx, change.path, grammar):
        return None
    column = error.offset if error.offset and error.offset >= 1 else None
    under = f" under {target.label} ({target.source})" if target is not None else ""
    return make_finding(
        rule=SYNTAX_ERROR,
        severity=Severity.ERROR,
        path=change.path,
        line=line,
        column=column,
        title=f"Syntax error: {error.msg}",
        message=(
            f"`{change.path}` no longer parses{under}: {error.msg} (line {line}). "
            "Python will refuse to import this module; fix the syntax before merging."
        ),
        anchor=source_line,
    )


_ASYNC_NOT_YET_KEYWORDS: PythonVersion = (3, 6)
_PYTHON3_ONLY = re.compile(
    r"""\bf["']|\basync[ \t]+def\b|\)\s*->|\bnonlocal\b|\byield\s+from\b"""
    r"""|\bprint\s*\(.*\b(?:end|sep|file)\s*="""
)
_STRING_PREFIX = re.compile(r"[A-Za-z]*")


def _python3_only_syntax(text: str) -> bool:
    """Whether the code (not its strings and comments: kombu's docstrings say `partition(S, sep) -> (head,
    sep, tail)`) uses something only Python 3 has."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return _PYTHON3_ONLY.search(text) is not None
    code: list[str] = []
    for token in tokens:
        if token.type == getattr(tokenize, "FSTRING_START", -1):
            return True
        if token.type == tokenize.STRING:
            if "f" in _STRING_PREFIX.match(token.string).group(0).lower():  # type: ignore[union-attr]
                return True
            code.append('""')
        elif token.type != tokenize.COMMENT:
            code.append(token.string)
    return _PYTHON3_ONLY.search(" ".join(code)) is not None


def _target_not_in_force(ctx: CheckContext, path: str, grammar: PythonVersion | None) -> bool:
    """Whether the target's Python never reads this file, or no longer reads the code beside it."""
    return _not_read_by_the_oldest(ctx, path) or _neighbours_need_it(ctx, path, grammar)


def _not_read_by_the_oldest(ctx: CheckContext, path: str) -> bool:
    """Code the oldest supported Python never runs: tests the suite collects only under newer ones
    (a conftest's `collect_ignore`, tox's factor-conditional commands), and examples for users."""
    read = ctx.cs.read_new
    return (
        is_example_path(path)
        or version_gated_by_pytest(path, read)
        or version_gated_by_tox(path, read)
        or _named_for_its_python(path, read)
        or _data_the_linters_skip(path, _project_tools(ctx))
    )


_TOOLS_KEY = "text_checks.project_tools"


def _project_tools(ctx: CheckContext) -> ProjectTools:
    """One reading of the project's tool configuration per review, whatever number of files asks."""
    tools = ctx.memo.get(_TOOLS_KEY)
    if tools is None:
        tools = ctx.memo[_TOOLS_KEY] = ProjectTools(ctx.cs.read_new, list)
    return tools


def _data_the_linters_skip(path: str, tools: ProjectTools) -> bool:
    """A file the project's linters are told to skip (ruff's or flake8's `exclude`), in a folder no
    `__init__.py` makes a package, that pytest would not collect by its name (libcst c02de9b718: its Rust
    parser's round-trip fixtures, `native/libcst/tests/fixtures/*.py`, read as text): data for a test,
    not code the target Python runs."""
    folder = path.rpartition("/")[0]
    if not folder or tools.text(f"{folder}/__init__.py") is not None:
        return False
    return tools.lint_excluded(path) and not tools.collected_name(path)


_VERSION_SUFFIX = re.compile(r"_py(3)(\d{1,2})\.pyi?$")


def _named_for_its_python(path: str, read: Callable[[str], str | None]) -> bool:
    """A module whose name says the Python it is written for (`test_formatargspec_py38.py`), when that
    Python's grammar reads it: such files exist to be skipped below that version (wrapt's conftest hands
    pytest an empty collector for `_py38` files on 3.7; a package imports its `_py35` module only under a
    `sys.version_info` test)."""
    found = _VERSION_SUFFIX.search(path.rpartition("/")[2])
    if found is None:
        return False
    text = read(path)
    return text is not None and _syntax_error(text, path, (3, int(found.group(2)))) is None


_MAX_NEIGHBOURS = 50


def _neighbours_need_it(ctx: CheckContext, path: str, grammar: PythonVersion | None) -> bool:
    """Whether a file beside `path` already needed a newer Python than the target before the PR
    (aiopg 9fdf7b92: a new test with `await` among tests that all have it, while setup.py still lists 3.4):
    the declared target is out of date there, and this change breaks no Python that ran that code. The
    packages the file's folder sits in count too (python-zeroconf e50b62bb moves a class to a new
    `zeroconf/services/types.py` with a variable annotation, while `zeroconf/core.py` already had them)."""
    changed = {c.path for c in ctx.cs.files}
    try:
        files = ctx.index.python_files()
    except Exception:
        return False
    folders = _folder_and_its_packages(path, set(files))
    beside = [f for f in files if f.endswith(".py") and f.rpartition("/")[0] in folders]
    beside.sort(key=lambda f: -len(f.rpartition("/")[0]))  # the nearest first
    for neighbour in [f for f in beside if f != path][:_MAX_NEIGHBOURS]:
        # A neighbour the PR changes counts as it was before (odmantic 7b55cb10: `model.py` had variable
        # annotations at the parent, under a `python_requires` admitting 3.5)
        text = ctx.old_text(neighbour) if neighbour in changed else ctx.repo_text(neighbour)
        if text and _syntax_error(text, neighbour, grammar) is not None and _only_too_new(text, neighbour):
            return True
    return False


def _folder_and_its_packages(path: str, files: set[str]) -> set[str]:
    """The file's folder and, while the folder is a package, each package folder above it. Not for
    tests: a library's modules import one another, so one that needs a newer Python already kept the
    package from importing on an older one, but each test file runs on its own (aiomysql 83252b36's
    `tests/sa/` tests still ran on 3.4 beside `tests/` files that did not)."""
    folder = path.rpartition("/")[0]
    folders = {folder}
    if any(part.startswith("test") for part in folder.split("/")):
        return folders
    while "/" in folder and f"{folder}/__init__.py" in files:
        folder = folder.rpartition("/")[0]
        if f"{folder}/__init__.py" not in files:
            break
        folders.add(folder)
    return folders


def _only_too_new(text: str, path: str) -> bool:
    """Whether the file parses with this interpreter's grammar: its error is the target's only."""
    return _syntax_error(text, path) is None


def _grammar_for(path: str, grammar: PythonVersion | None) -> PythonVersion | None:
    """A stub (`.pyi`) is read by type checkers, never run by an old Python: the current grammar."""
    return None if path.endswith(".pyi") else grammar


def _written_before_async_was_a_keyword(text: str, path: str) -> bool:
    """For a project that declares no Python: Python 3.6 reads the file (`asyncio.async(...)`, aiodocker
    06d17912, 2014), or its next error there is Python 2's (zim ccf57379f2's `async=False` beside
    `except Exception, error:`)."""
    older = _syntax_error(text, path, _ASYNC_NOT_YET_KEYWORDS)
    if older is None:
        return True
    python2 = python2_construct(older, line_at(text, max(1, older.lineno or 1)))
    return python2 and not _python3_only_syntax(text)


def _syntax_error(text: str, path: str, grammar: PythonVersion | None = None) -> SyntaxError | None:
    parsed = _parsed(text, path, grammar)
    return None if isinstance(parsed, ast.Module) else parsed


def _parsed(text: str, path: str, grammar: PythonVersion | None) -> ast.Module | SyntaxError | None:
    """The tree, or the syntax error; None when the text is too deeply nested to tell."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ast.parse(text, filename=path, feature_version=grammar)
    except SyntaxError as error:
        return error
    except ValueError as error:  # source with NUL bytes
        return SyntaxError(str(error), (path, 1, 1, ""))
    except (RecursionError, MemoryError):
        return None


def _reads_like_the_current_grammar(grammar: PythonVersion | None) -> bool:
    """Whether a tree parsed under `grammar` is the one the current grammar gives: from 3.7 on, an older
    grammar only refuses more (before it, `async` and `await` were names)."""
    return grammar is None or grammar >= (3, 7)


def _parsed_before(ctx: CheckContext, change: FileChange, grammar: PythonVersion | None) -> bool:
    """Whether the base side parsed under the same grammar (a file the change adds counts as parsing)."""
    if change.status is FileStatus.ADDED:
        return True
    old = ctx.old_text(change.old_path or change.path)
    return old is None or _syntax_error(old, change.path, grammar) is None


def _has_conflict_markers(ctx: CheckContext, change: FileChange) -> bool:
    return any(_OPEN_MARKER.match(text) or _CLOSE_MARKER.match(text) for _no, text in ctx.added_lines(change))


@dataclass
class _Block:
    start: int
    start_text: str
    middle: int | None = None


def check_conflict_markers(ctx: CheckContext) -> list[Finding]:
    findings: list[Finding] = []
    for change in _text_changes(ctx):
        block: _Block | None = None
        for number, text in sorted(ctx.added_lines(change)):
            if _OPEN_MARKER.match(text):
                if block is not None:
                    findings.append(_conflict(change.path, block.start, block.start, block.start_text))
                block = _Block(number, text)
            elif _CLOSE_MARKER.match(text):
                if block is None:
                    findings.append(_conflict(change.path, number, number, text))
                else:
                    findings.append(_conflict(change.path, block.start, number, block.start_text))
                    block = None
            elif block is not None and (_MIDDLE_MARKER.match(text) or _BASE_MARKER.match(text)):
                block.middle = block.middle or number
        if block is not None:
            findings.append(_conflict(change.path, block.start, block.start, block.start_text))
    return findings


def _conflict(path: str, start: int, end: int, anchor: str) -> Finding:
    span = f"lines {start}-{end}" if end > start else f"line {start}"
    return make_finding(
        rule=CONFLICT_MARKER,
        severity=Severity.ERROR,
        path=path,
        line=start,
        end_line=end,
        title="Unresolved merge conflict marker",
        message=(
            f"This change contains merge conflict markers ({span}). Resolve the conflict: keep the "
            "intended side, then delete the `<<<<<<<`, `=======` and `>>>>>>>` lines."
        ),
        anchor=anchor,
    )


def check_debug_leftovers(ctx: CheckContext) -> list[Finding]:
    findings: list[Finding] = []
    for change in _python_changes(ctx):
        if not change.added_lines:
            continue
        text = ctx.new_text(change.path)
        if text is None:
            ctx.skip(change.path, unreadable_reason(change))
            continue
        if not any("breakpoint" in line or "set_trace" in line for _n, line in ctx.added_lines(change)):
            continue  # every call reported names one of them on its (added) line: no need to parse
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tree: ast.Module | None = ast.parse(text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            tree = None
        sites = _debug_calls_in_tree(tree, text) if tree is not None else _debug_calls_by_tokens(ctx, change)
        for line, what, suggestion in sites:
            if line not in change.added_lines:
                continue
            findings.append(
                make_finding(
                    rule=DEBUG_LEFTOVER,
                    severity=Severity.WARNING,
                    path=change.path,
                    line=line,
                    title=f"Debugger call left in: `{what}`",
                    message=(
                        f"`{what}` stops the program and waits for a debugger session; in CI or production "
                        "it hangs or fails. Remove it before merging."
                    ),
                    anchor=line_at(text, line),
                    suggestion=suggestion,
                )
            )
    return findings


def _debug_target(call: ast.Call, shadowed: set[str], set_trace_imported: bool) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        if func.id == "breakpoint" and "breakpoint" not in shadowed:
            return "breakpoint()"
        if func.id == "set_trace" and set_trace_imported:
            return "set_trace()"
    if (
        isinstance(func, ast.Attribute)
        and func.attr == "set_trace"
        and isinstance(func.value, ast.Name)
        and func.value.id in DEBUGGER_MODULES
    ):
        return f"{func.value.id}.set_trace()"
    return None


def _module_bindings(tree: ast.Module) -> tuple[set[str], bool]:
    """Names the module defines itself (which shadow builtins) and whether it imports a set_trace."""
    shadowed: set[str] = set()
    set_trace_imported = False
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            shadowed.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            shadowed.add(node.id)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] in DEBUGGER_MODULES:
            set_trace_imported |= any(a.name == "set_trace" and a.asname is None for a in node.names)
    return shadowed, set_trace_imported


def _debug_calls_in_tree(tree: ast.Module, text: str) -> list[tuple[int, str, Suggestion | None]]:
    shadowed, set_trace_imported = _module_bindings(tree)
    sites: list[tuple[int, str, Suggestion | None]] = []
    for parent in ast.walk(tree):
        for body in _statement_lists(parent):
            for stmt in body:
                if not (isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Call)):
                    continue
                what = _debug_target(stmt.value, shadowed, set_trace_imported)
                if what is not None:
                    sites.append((stmt.lineno, what, _removal(stmt, body, text)))
    seen = {line for line, _w, _s in sites}
    for node in ast.walk(tree):  # debugger calls inside larger expressions: reported, never auto-removed
        if isinstance(node, ast.Call) and node.lineno not in seen:
            what = _debug_target(node, shadowed, set_trace_imported)
            if what is not None:
                sites.append((node.lineno, what, None))
                seen.add(node.lineno)
    return sites


def _statement_lists(node: ast.AST) -> list[list[ast.stmt]]:
    lists: list[list[ast.stmt]] = []
    for name in ("body", "orelse", "finalbody"):
        value = getattr(node, name, None)
        if isinstance(value, list) and value and isinstance(value[0], ast.stmt):
            lists.append(value)
    if isinstance(node, ast.Try | ast.TryStar):
        lists.extend(handler.body for handler in node.handlers)
    if isinstance(node, ast.Match):
        lists.extend(case.body for case in node.cases)
    return lists


def _is_debug_import(stmt: ast.stmt) -> bool:
    if isinstance(stmt, ast.Import):
        return all(alias.name in DEBUGGER_MODULES for alias in stmt.names)
    return isinstance(stmt, ast.ImportFrom) and (stmt.module or "") in DEBUGGER_MODULES


def _removal(stmt: ast.Expr, body: list[ast.stmt], text: str) -> Suggestion | None:
    """Delete the line when it holds nothing but the debugger statement(s) and the block keeps a statement."""
    line = stmt.lineno
    if (stmt.end_lineno or line) != line:
        return None
    on_line = [s for s in body if s.lineno == line]
    others = [s for s in on_line if s is not stmt]
    if any(not _is_debug_import(s) for s in others):
        return None
    if len(body) == len(on_line):
        return None  # removing it would leave an empty block
    source_line = line_at(text, line)
    if "#" in source_line or not source_line.strip():
        return None
    return Suggestion(start_line=line, end_line=line, replacement="")


def _debug_calls_by_tokens(ctx: CheckContext, change: FileChange) -> list[tuple[int, str, Suggestion | None]]:
    """For a file that does not parse: scan the added lines' code tokens, skipping comments and strings."""
    sites: list[tuple[int, str, Suggestion | None]] = []
    for number, text in ctx.added_lines(change):
        code = _code_only(text)
        found = _DEBUG_TEXT.search(code)
        if found is not None:
            sites.append(
                (number, re.sub(r"\s+", "", found.group(0)) + ")" * (found.group(0)[-1] == "("), None)
            )
    return sites


def _code_only(line: str) -> str:
    parts: list[str] = []
    try:
        for token in tokenize.generate_tokens(io.StringIO(line.strip() + "\n").readline):
            if token.type in (tokenize.COMMENT, tokenize.STRING):
                continue
            parts.append(token.string)
    except (tokenize.TokenError, IndentationError, SyntaxError):
        return ""
    return " ".join(parts).replace(" . ", ".").replace(" (", "(").replace("( )", "()")


def check_secrets(ctx: CheckContext) -> list[Finding]:
    findings: list[Finding] = []
    for change in _text_changes(ctx):
        for number, text in ctx.added_lines(change):
            matches = find_secrets(text)
            if not matches:
                continue
            kinds = sorted({match.kind for match in matches})
            shown = ", ".join(f"`{match.masked}`" for match in matches if match.masked)
            findings.append(
                make_finding(
                    rule=SECRET,
                    severity=Severity.ERROR,
                    path=change.path,
                    line=number,
                    column=matches[0].start + 1,
                    end_column=matches[0].end + 1,
                    title=f"Possible {kinds[0]} committed",
                    message=(
                        f"This line adds what looks like a {' and a '.join(kinds)} ({shown}). Treat it as "
                        "leaked: revoke or rotate it, then load it from the environment or a secret store. "
                        "Deleting the line does not remove it from git history."
                    ),
                    anchor=mask_secrets(text),
                )
            )
    return findings
