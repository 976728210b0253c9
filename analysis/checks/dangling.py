"""`dangling-reference`: names this PR removes or renames that the repository still uses."""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import partial

from prscope.analysis.changeset import FileChange, FileStatus
from prscope.analysis.checks.class_family import (
    abstract_members,
    held_by_an_outside_base,
    never_instantiated,
    outside_base_shown_to_have,
    provided_elsewhere,
    still_has,
    subclasses_provide,
    super_reaches_another_base,
)
from prscope.analysis.checks.class_tree import answers_any_name
from prscope.analysis.checks.computed_attributes import installs_name_on_instances, set_on_other_instances
from prscope.analysis.checks.context import CheckContext, is_python_path, make_finding
from prscope.analysis.checks.definitions_elsewhere import defined_elsewhere
from prscope.analysis.checks.defs import ModuleDefs, RemovedName, decorator_names, removed_names
from prscope.analysis.checks.gone_modules import (
    check_gone_modules,
    compiled_in_its_place,
    gone_modules,
    installed_by_a_package,
    module_still_there,
)
from prscope.analysis.checks.hasattr_guards import asked_hasattr_first
from prscope.analysis.checks.import_statements import ImportStatements, one_per_statement, statement_key
from prscope.analysis.checks.set_from_outside import installs_computed_names, set_from_outside
from prscope.analysis.checks.sites import RepoView, Site
from prscope.analysis.checks.stdlib_names import standard_module_binds
from prscope.analysis.checks.stores import source_text
from prscope.analysis.findings import Finding, Related, Severity
from prscope.analysis.intel.scopes import is_super_call, statement_names

RULE = "dangling-reference"
_TYPE_IGNORE = re.compile(r"#\s*type:\s*ignore\b(\[[^\]]*\])?")
_BACKPORT = re.compile(
    r"#.*\b(?:remove|drop|delete)\b.*\b(?:versions?|supported|minimum|requires?)\b|#.*\bbackport",
    re.IGNORECASE,
)
_SAYS_IT_OVERRIDES = re.compile(
    r"#(?:.*\boverrides|\s*override)\s+(?:the\s+|a\s+)?(?:[\w.'`]+\s+)?(?:super|base|parent|inherited)\b"
    r"|#(?:.*\boverrides|\s*override)\s+(?:the\s+|a\s+)?[\w.'`]+\s+method\b",
    re.IGNORECASE,
)
"""A comment in which the method says it overrides its base's (`# overrides super method`), not one asking
subclasses to override it."""


@dataclass
class RemovedSymbol:
    removed: RemovedName
    change: FileChange
    module: str
    old_defs: ModuleDefs
    old_text: str = ""

    @property
    def display(self) -> str:
        return self.removed.qualname

    def related(self) -> list[Related]:
        line = 1
        if self.change.status is not FileStatus.DELETED:
            # The definition's lines are gone: point at where they were (the nearest surviving line above).
            for old_line in range(self.removed.old_line, max(0, self.removed.old_line - 500), -1):
                mapped = self.change.old_to_new(old_line)
                if mapped is not None:
                    line = max(1, mapped)
                    break
        verb = f"renamed to `{self.removed.renamed_to}`?" if self.removed.renamed_to else "removed"
        return [
            Related(
                path=self.change.path,
                line=max(1, line),
                message=f"`{self.display}` was defined here (old line {self.removed.old_line}); {verb}",
            )
        ]


def check_dangling_references(ctx: CheckContext, view: RepoView) -> list[Finding]:
    findings: list[Finding] = []
    statements: ImportStatements = {}
    gone = gone_modules(ctx, view)
    for change in ctx.changed_files():
        if change.status not in (FileStatus.MODIFIED, FileStatus.RENAMED, FileStatus.DELETED):
            continue
        old_path = change.old_path or change.path
        if not is_python_path(old_path) or any(m.change is change for m in gone.values()):
            continue  # a module that is gone as a whole: its imports are reported below, once each
        for symbol in _removed_symbols(ctx, view, change):
            what = f"`{symbol.display}` in {change.path}"
            if ctx.out_of_time(RULE, what):
                return findings
            findings.extend(ctx.bounded(RULE, what, partial(_dangling_sites, view, symbol, statements)))
    if gone:
        work = partial(check_gone_modules, ctx, view, gone, statements)
        findings.extend(ctx.bounded(RULE, "imports of removed modules", work))
    return one_per_statement(findings, statements)


def _removed_symbols(ctx: CheckContext, view: RepoView, change: FileChange) -> list[RemovedSymbol]:
    old_path = change.old_path or change.path
    old_defs = ctx.defs("old", old_path)
    if old_defs is None:
        return []
    moved = change.status in (FileStatus.DELETED, FileStatus.RENAMED)
    module = (ctx.old_module(old_path) if moved else None) or view.module(old_path)
    if change.status is FileStatus.DELETED or (
        change.status is FileStatus.RENAMED and module != view.module(change.path)
    ):
        new_defs = _same_module_now(view, module, old_path)
    else:
        changed_defs = ctx.defs("new", change.path)
        if changed_defs is None:
            return []  # the syntax check reports the file; nothing here is reliable
        new_defs = changed_defs
        if _shadowed_now(ctx, view, module, change.path):
            new_defs = _same_module_now(view, module, old_path)
    if module is None or (moved and ctx.provided_by_a_dependency(module)):
        return []  # the installed distribution the project requires is what its imports mean now
    if moved and (installed_by_a_package(view, module) or compiled_in_its_place(view, old_path)):
        return []
    is_package = old_path.endswith("__init__.py")
    return [
        RemovedSymbol(removed, change, module, old_defs, ctx.old_text(old_path) or "")
        for removed in removed_names(old_defs, new_defs, is_package=is_package)
        # A name that is now a submodule of the package is still there (python-dotenv 50941828: the `cli`
        # group of `dotenv.py` became `dotenv/cli.py`, which `from .cli import ...` binds as `dotenv.cli`).
        if removed.class_qualname is not None or not module_still_there(view, f"{module}.{removed.name}")
        if not (moved and _standard_namesake_binds(module, removed))
    ]


def _standard_namesake_binds(module: str, removed: RemovedName) -> bool:
    """Whether the standard-library module of the deleted module's name binds the removed name (or the
    class a removed member was in): its imports find that module now (microdot 79452a4699 deletes the
    `time.py` its MicroPython tests put on the path, and `time.strftime` is the standard library's)."""
    top = (removed.class_qualname or removed.name).split(".")[0]
    return standard_module_binds(module, top)


def _shadowed_now(ctx: CheckContext, view: RepoView, module: str | None, path: str) -> bool:
    """Whether an import of the file's module finds another file now (a package of its name the PR added
    beside it) where it found this one at the base. A file that shared its name with another at the base
    too (xknx 7fd48382e4: a Home Assistant plugin's `custom_components/xknx/__init__.py` beside the
    library's `xknx/__init__.py`) is compared with itself."""
    if module is None or view.module_path(module) in (None, path):
        return False
    return ctx.old_module_path(module) in (None, path)


def _same_module_now(view: RepoView, module: str | None, old_path: str) -> ModuleDefs:
    """What the module still binds when the PR moved it (`aio.py` -> `aio/__init__.py`, re-exporting its
    names): nothing when no file of the head is that module any more."""
    if module is None:
        return ModuleDefs()
    path = view.module_path(module)
    if path is None or path == old_path:
        return ModuleDefs()
    return view.defs(path) or ModuleDefs()


def _dangling_sites(view: RepoView, symbol: RemovedSymbol, statements: ImportStatements) -> list[Finding]:
    removed = symbol.removed
    if removed.kind == "method":
        sites = [
            s
            for s in _method_sites(view, symbol)
            if not view.set_before_use(s, removed.name)
            and not asked_hasattr_first(view, s, removed.name)
            and not _never_fitted(symbol, s)
        ]
    else:
        aliases = view.aliases(f"{symbol.module}.{removed.name}")
        if set_from_outside(view, aliases):
            return []  # `mod.name = ...` elsewhere (a test's setup_module): the module gets it from there
        sites = [
            s
            for s in view.references(aliases)
            if not s.guarded
            and not _class_body_binds(view, s, removed.name)
            and not view.reach.python2_builtin_there(s)
        ]
    expected = (
        ("AttributeError",) if removed.kind == "method" else ("ImportError", "NameError", "AttributeError")
    )
    kept = [site for site in sites if not view.reach.silent(site) and not view.expects_error(site, *expected)]
    findings: list[Finding] = []
    for site, uses in _imports_over_their_uses(kept):
        finding = _finding(view, symbol, site, uses)
        if site.kind == "import":
            statements[id(finding)] = (statement_key(site.path, site.node), symbol.removed.name)
        findings.append(finding)
    return findings


def _never_fitted(symbol: RemovedSymbol, site: Site) -> bool:
    """Whether the removed method, as the parent defined it, rejects the call. Through a receiver of
    unknown type, the receiver is another class's object (grpclib 88d5bcc30f: generated grpcio stubs call
    `channel.unary_unary(path, request_serializer=...)`, which grpclib's `Channel.unary_unary(method,
    request)` never took); through a known one, the call already raised TypeError at the parent and the PR
    breaks nothing that worked (gallery-dl 4327cd636e: `extractor._cache(func, key, _mem=False)` against
    `_cache(self, func, maxage, keyarg=None)`)."""
    if site.call is None:
        return False
    found = symbol.old_defs.defs.get(symbol.removed.qualname)
    if found is None or found.count != 1 or found.signature is None or found.kind != "method":
        return False
    if decorator_names(found.node) - {"staticmethod", "classmethod"}:
        return False  # a decorator may change what the method takes
    return found.signature.for_call(bound=site.bound).binds(site.call).status == "error"


def _imports_over_their_uses(sites: list[Site]) -> list[tuple[Site, int]]:
    """One finding per line: a use on the line of its own failing import (`from m import f; f()`) is
    counted in the import's finding, not reported again. Uses on other lines stay findings: each needs
    its own edit."""
    import_lines = {(site.path, site.line) for site in sites if site.kind == "import"}
    uses: dict[tuple[str, int], int] = {}
    kept: list[Site] = []
    for site in sites:
        key = (site.path, site.line)
        if site.kind != "import" and key in import_lines:
            uses[key] = uses.get(key, 0) + 1
        else:
            kept.append(site)
    return [(site, uses.get((site.path, site.line), 0) if site.kind == "import" else 0) for site in kept]


def _class_body_binds(view: RepoView, site: Site, name: str) -> bool:
    """Whether a plain name read in a class body (a decorator of a method, a class attribute's value) is
    the class's own binding made above it (`def lazy(f): ...` in the class, then `@lazy`; rq c898fe61):
    class-body statements see the class namespace first."""
    if not isinstance(site.node, ast.Name) or site.kind == "import" or site.in_string:
        return False
    tree = view.tree(site.path)
    if tree is None:
        return False
    scope = _class_body_at(tree.body, site.line) or _class_of_default(tree.body, site.node)
    if scope is None:
        return False
    return any(node.lineno < site.line and name in statement_names(node) for node in scope.body)


def _class_of_default(body: list[ast.stmt], name: ast.expr) -> ast.ClassDef | None:
    """The class whose method takes `name` in a parameter's default value, which the class body evaluates
    (pyparsing 6f2441a1 moves `_optionalNotMatched` into `class Optional`, above `def __init__(self, expr,
    default=_optionalNotMatched)`). Only the statements around the name are searched."""
    where = (name.lineno, name.col_offset)
    for node in body:
        if not node.lineno <= name.lineno <= (node.end_lineno or node.lineno):
            continue
        if isinstance(node, ast.ClassDef) and any(_a_default_spans(method, where) for method in node.body):
            return node
        inner_blocks = _blocks(node)
        if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            inner_blocks = [node.body]
        for block in inner_blocks:
            inner = _class_of_default(block, name)
            if inner is not None:
                return inner
    return None


def _a_default_spans(method: ast.stmt, where: tuple[int, int]) -> bool:
    if not isinstance(method, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    defaults = [*method.args.defaults, *(d for d in method.args.kw_defaults if d is not None)]
    return any(_spans(default, where) for default in defaults)


def _spans(node: ast.expr, where: tuple[int, int]) -> bool:
    start = (node.lineno, node.col_offset)
    end = (node.end_lineno or node.lineno, node.end_col_offset or node.col_offset)
    return start <= where < end


def _class_body_at(body: list[ast.stmt], line: int) -> ast.ClassDef | None:
    """The class whose own body (not a function inside it) holds `line`; None when a function does."""
    for node in body:
        if not node.lineno <= line <= (node.end_lineno or node.lineno):
            continue
        if isinstance(node, ast.ClassDef):
            inner = _class_body_at(node.body, line)
            if inner is not None or any(_in_function(n, line) for n in node.body):
                return inner
            return node
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            return None
        for block in _blocks(node):
            inner = _class_body_at(block, line)
            if inner is not None:
                return inner
    return None


def _in_function(node: ast.stmt, line: int) -> bool:
    """Whether `line` is in a function's parameters or body (its decorators run in the enclosing scope)."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    return node.lineno <= line <= (node.end_lineno or node.lineno)


def _blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    if isinstance(node, ast.If | ast.For | ast.AsyncFor | ast.While):
        return [node.body, node.orelse]
    if isinstance(node, ast.With | ast.AsyncWith):
        return [node.body]
    if isinstance(node, ast.Try | ast.TryStar):
        return [node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)]
    return []


def _method_sites(view: RepoView, symbol: RemovedSymbol) -> list[Site]:
    removed = symbol.removed
    assert removed.class_qualname is not None
    name = removed.name
    if _extended_super(symbol):
        return []  # what `super()` reached is still there: a mixin's override relied on the class it joins
    class_dotted = f"{symbol.module}.{removed.class_qualname}"
    found = view.class_node(class_dotted)
    old_bases = frozenset(source_text(b) for b in symbol.old_defs.class_bases.get(removed.class_qualname, []))
    if _overrode_its_base(symbol):
        old_bases = frozenset()
    if found is None or view.bases_provide(found[0], found[1], name, set(), trusted=old_bases) is not False:
        return []  # a base class (possibly outside the repository) may still provide it
    class_aliases = view.aliases(class_dotted)
    full_family = view.subclasses(class_aliases)
    if outside_base_shown_to_have(view, class_dotted, name, full_family):
        return []
    if answers_any_name(found[1]):
        return []  # the class answers names it does not define
    if installs_computed_names(view, class_aliases) or installs_name_on_instances(found[1], name):
        return []
    # A subclass that defines the name, or gets it from another base (`class Pooled(PooledMixin,
    # PostgresDatabase)`), still has it: its instances are not where the name went missing.
    stop = class_aliases | {view.names.canonical(c) for c in class_aliases}
    seen: dict[str, bool] = {}
    family = {c for c in full_family if c in class_aliases or not still_has(view, c, name, stop, seen)}
    family -= never_instantiated(view, family - class_aliases, abstract_members(found[1]), stop)
    # A receiver of unknown type is reported only when nothing else defines the name: decided first, so
    # that the many reads of a name other classes define (`table.c`) are never looked at. (A name as
    # common as `drain` the grader takes only on receivers declared as the family or a base of it.)
    exact_only = defined_elsewhere(view, name, class_aliases) or set_on_other_instances(
        view, name, class_aliases
    )
    sites = view.method_sites(
        name, family, view.subclasses(family, depth=1) - class_aliases, exact_only=exact_only
    )
    if family <= class_aliases | {view.names.canonical(c) for c in class_aliases} and _was_abstract(symbol):
        # The base only declared it; every concrete subclass still defines it, and only those are ever
        # instantiated: a call through the base class still finds the method.
        return []
    # A base outside the repository was trusted not to have it (the class defined it itself), but this PR
    # also writes a new use of it (aiopg 2eae31c9 drops its `construct_params` override and calls
    # `self.construct_params(...)` in a new method): the author counts on the base's, and so may the others.
    written_now = any(s.line in view.added_lines.get(s.path, set()) for s in sites)
    if written_now and view.bases_provide(found[0], found[1], name, set()) is None:
        return []
    return [
        s
        for s in sites
        if not provided_elsewhere(view, s, name, class_aliases)
        and not subclasses_provide(view, s, name)
        and not super_reaches_another_base(view, s, name, class_aliases)
        and not held_by_an_outside_base(view, s)
    ]


def _overrode_its_base(symbol: RemovedSymbol) -> bool:
    """Whether the removed method said it overrides a method of a base: `@override`, a `# type: ignore` on
    its header (mypy's incompatible override), a comment at its top that says so (django-formset d803ad07a9:
    `# overrides super method` in `BoundField.subwidgets`), or a class that reached its base's methods by a
    computed name (`getattr(super(), verb.lower())`). A base outside the repository then has the name, and
    calls reach it once the override is gone (jira c6d59a1b2f: `ResilientSession(requests.Session)` drops
    `get`)."""
    removed = symbol.removed
    found = symbol.old_defs.defs.get(removed.qualname)
    if found is None or not isinstance(found.node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    node = found.node
    if "override" in decorator_names(node):
        return True
    lines = symbol.old_text.splitlines()
    header = lines[node.lineno - 1 : node.body[0].lineno - 1] or lines[node.lineno - 1 : node.lineno]
    if any(_ignores_an_override(line) or _SAYS_IT_OVERRIDES.search(line) for line in header):
        return True
    if _comment_above_marks_the_bases(lines, node):
        return True
    owner = symbol.old_defs.defs.get(removed.class_qualname or "")
    return owner is not None and _reaches_base_by_computed_name(owner.node)


def _comment_above_marks_the_bases(lines: list[str], node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether the comment just above the method says it overrides its base's, or is to go once a newer
    version is the minimum (imbalanced-learn d55e27d06f: `# TODO: remove when minimum supported version of
    scikit-learn is 1.1` over `EasyEnsembleClassifier(BaggingClassifier).decision_function`): a copy of what
    that version of a base provides."""
    first = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    above = first - 2
    while above >= 0 and lines[above].lstrip().startswith("#"):
        if _BACKPORT.search(lines[above]) is not None or _SAYS_IT_OVERRIDES.search(lines[above]) is not None:
            return True
        above -= 1
    return False


def _ignores_an_override(line: str) -> bool:
    found = _TYPE_IGNORE.search(line)
    if found is None:
        return False
    codes = found.group(1)
    return codes is None or "override" in codes or "misc" in codes


def _reaches_base_by_computed_name(node: ast.AST) -> bool:
    for call in ast.walk(node):
        if (
            isinstance(call, ast.Call)
            and isinstance(call.func, ast.Name)
            and call.func.id == "getattr"
            and len(call.args) >= 2
            and is_super_call(call.args[0])
            and not isinstance(call.args[1], ast.Constant)
        ):
            return True
    return False


def _was_abstract(symbol: RemovedSymbol) -> bool:
    """Whether the removed method was abstract: `@abstractmethod`, or a body that only raises
    `NotImplementedError` (or is a stub) in an abstract class."""
    found = symbol.old_defs.defs.get(symbol.removed.qualname)
    node = found.node if found is not None else None
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    if "abstractmethod" in decorator_names(node):
        return True
    body = [s for s in node.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    raised = body[0].exc if len(body) == 1 and isinstance(body[0], ast.Raise) else None
    return raised is not None and "NotImplementedError" in source_text(raised)


def _extended_super(symbol: RemovedSymbol) -> bool:
    """Whether the removed method called the next class's method of its own name (`super().get_conn()`,
    `super(PooledDatabase, self).get_conn()`): the code relied on that one being there (a mixin's override
    relies on the class it is mixed into), and with the override gone, calls reach it."""
    found = symbol.old_defs.defs.get(symbol.removed.qualname)
    node = found.node if found is not None else None
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    for call in ast.walk(node):
        if isinstance(call, ast.Attribute) and call.attr == symbol.removed.name and is_super_call(call.value):
            return True
    return False


def _finding(view: RepoView, symbol: RemovedSymbol, site: Site, uses: int = 0) -> Finding:
    removed = symbol.removed
    where = symbol.change.old_path or symbol.change.path
    gone = "deleted" if symbol.change.status is FileStatus.DELETED else "removed"
    hint = f" Was it renamed to `{removed.renamed_to}`? Update this reference." if removed.renamed_to else ""
    if removed.kind == "method":
        title = f"Use of removed method `{removed.qualname}`"
        message = (
            f"This PR removes `{removed.qualname}` from {where}, but this line still uses `.{removed.name}`; "
            f"it will fail with AttributeError.{hint or ' Update or remove the call.'}"
        )
    elif site.kind == "import":
        title = f"Import of removed `{removed.name}`"
        fails = (
            "type checkers now reject this `TYPE_CHECKING` import (it does not run)"
            if view.reach.under_type_checking(site.path, site.line)
            else "this import now fails with ImportError"
        )
        used = " The name is also used on this line." if uses else ""
        message = (
            f"This PR {gone} `{removed.name}` from `{symbol.module}` ({where}), so {fails}.{used}"
            f"{hint or ' Import it from where it lives now, or remove the import.'}"
        )
    else:
        title = f"Use of removed `{removed.name}`"
        message = (
            f"This PR {gone} `{removed.name}` from `{symbol.module}` ({where}), but this line still "
            f"refers to it.{hint or ' Update or remove the reference.'}"
        )
    if site.evidence == "probable":
        message += " (The receiver's type is not known statically; no other class defines this name.)"
    return make_finding(
        rule=RULE,
        severity=Severity.ERROR,
        path=site.path,
        line=site.line,
        column=site.col,
        end_column=site.col + len(removed.name),
        confidence=1.0 if site.evidence == "exact" else 0.75,
        title=title,
        message=message,
        anchor=view.line_text(site.path, site.line),
        related=symbol.related(),
    )
