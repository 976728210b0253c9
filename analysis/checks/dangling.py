"""`dangling-reference`: names this PR removes or renames that the repository still uses."""

from __future__ import annotations

import ast
from dataclasses import dataclass
from functools import partial

from prscope.analysis.changeset import FileChange, FileStatus
from prscope.analysis.checks.context import CheckContext, is_python_path, make_finding
from prscope.analysis.checks.defs import ModuleDefs, RemovedName, decorator_names, removed_names
from prscope.analysis.checks.gone_modules import check_gone_modules, gone_modules
from prscope.analysis.checks.sites import COMMON_METHOD_NAMES, RepoView, Site, provided_elsewhere
from prscope.analysis.findings import Finding, Related, Severity

RULE = "dangling-reference"


@dataclass
class RemovedSymbol:
    removed: RemovedName
    change: FileChange
    module: str
    old_defs: ModuleDefs

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
            findings.extend(ctx.bounded(RULE, what, partial(_dangling_sites, view, symbol)))
    if gone:
        findings.extend(
            ctx.bounded(RULE, "imports of removed modules", partial(check_gone_modules, ctx, view, gone))
        )
    return findings


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
    if module is None:
        return []
    is_package = old_path.endswith("__init__.py")
    return [
        RemovedSymbol(removed, change, module, old_defs)
        for removed in removed_names(old_defs, new_defs, is_package=is_package)
    ]


def _same_module_now(view: RepoView, module: str | None, old_path: str) -> ModuleDefs:
    """What the module still binds when the PR moved it (`aio.py` -> `aio/__init__.py`, re-exporting its
    names): nothing when no file of the head is that module any more."""
    if module is None:
        return ModuleDefs()
    path = view.module_path(module)
    if path is None or path == old_path:
        return ModuleDefs()
    return view.defs(path) or ModuleDefs()


def _dangling_sites(view: RepoView, symbol: RemovedSymbol) -> list[Finding]:
    removed = symbol.removed
    if removed.kind == "method":
        sites = _method_sites(view, symbol)
    else:
        aliases = view.aliases(f"{symbol.module}.{removed.name}")
        sites = [s for s in view.references(aliases) if not s.guarded]
    expected = (
        ("AttributeError",) if removed.kind == "method" else ("ImportError", "NameError", "AttributeError")
    )
    kept = [site for site in sites if not view.expects_error(site, *expected)]
    return [_finding(view, symbol, site, uses) for site, uses in _imports_over_their_uses(kept)]


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


def _under_type_checking(view: RepoView, site: Site) -> bool:
    """Whether the site is inside an `if TYPE_CHECKING:` block (it never runs; type checkers read it)."""
    tree = view.tree(site.path)
    if tree is None:
        return False
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _source(node.test).endswith("TYPE_CHECKING") and node.body:
            last = max(getattr(n, "end_lineno", n.lineno) or n.lineno for n in node.body)
            if node.body[0].lineno <= site.line <= last:
                return True
    return False


def _method_sites(view: RepoView, symbol: RemovedSymbol) -> list[Site]:
    removed = symbol.removed
    assert removed.class_qualname is not None
    name = removed.name
    class_dotted = f"{symbol.module}.{removed.class_qualname}"
    found = view.class_node(class_dotted)
    old_bases = frozenset(_source(b) for b in symbol.old_defs.class_bases.get(removed.class_qualname, []))
    if found is None or view.bases_provide(found[0], found[1], name, set(), trusted=old_bases) is not False:
        return []  # a base class (possibly outside the repository) may still provide it
    class_aliases = view.aliases(class_dotted)
    full_family = view.subclasses(class_aliases)
    family = {c for c in full_family if c in class_aliases or name not in (view.class_members(c) or set())}
    sites = view.method_sites(name, family, view.subclasses(family, depth=1) - class_aliases)
    sites = [
        s
        for s in sites
        if not provided_elsewhere(view, s, name, class_aliases) and not _subclasses_provide(view, s, name)
    ]
    probable = [s for s in sites if s.evidence == "probable"]
    if probable and (name in COMMON_METHOD_NAMES or view.other_definitions(name, class_aliases)):
        sites = [s for s in sites if s.evidence == "exact"]
    if family <= class_aliases | {view.names.canonical(c) for c in class_aliases} and _was_abstract(symbol):
        # The base only declared it; every concrete subclass still defines it, and only those are ever
        # instantiated: a call through the base class still finds the method.
        return []
    return sites


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
    return raised is not None and "NotImplementedError" in _source(raised)


def _subclasses_provide(view: RepoView, site: Site, name: str) -> bool:
    """For `self.name`: whether a subclass of the class it is written in defines `name`. The method moved
    down from the base into its subclasses, and `self` is one of them whenever the line runs."""
    if site.owner is None:
        return False
    below = view.subclasses({site.owner}) - {site.owner}
    return any(name in (view.class_members(c) or set()) for c in below)


def _source(node: ast.expr) -> str:
    try:
        return ast.unparse(node)
    except (ValueError, TypeError, RecursionError):
        return ""


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
            if _under_type_checking(view, site)
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
