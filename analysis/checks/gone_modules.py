"""`dangling-reference` for whole modules: a PR that deletes a module or a package directory, or renames
it (`pkg` -> `pkg2`), while other files still import `pkg.x` (`import pkg.x`, `from pkg import x`,
`from pkg.x import y`) or reach it as `pkg.x` through a surviving package."""

from __future__ import annotations

import ast
import posixpath
import re
import sys
from dataclasses import dataclass

from prscope.analysis.changeset import FileChange, FileStatus
from prscope.analysis.checks.context import CheckContext, is_python_path, make_finding
from prscope.analysis.checks.hasattr_guards import asked_hasattr_first
from prscope.analysis.checks.import_statements import ImportStatements, statement_key
from prscope.analysis.checks.sites import RepoView, byte_to_char_col
from prscope.analysis.findings import Finding, Related, Severity
from prscope.analysis.intel.resolve import relative_import_folder

RULE = "dangling-reference"


@dataclass(frozen=True)
class GoneModule:
    name: str
    change: FileChange
    moved_to: str | None
    """The module's new name when the PR renamed its file (None: deleted)."""

    @property
    def noun(self) -> str:
        old_path = self.change.old_path or self.change.path
        return "package" if old_path.endswith("__init__.py") else "module"

    def what_happened(self) -> str:
        old_path = self.change.old_path or self.change.path
        if self.moved_to is not None:
            return f"moves {self.noun} `{self.name}` to `{self.moved_to}` ({old_path} -> {self.change.path})"
        return f"deletes {self.noun} `{self.name}` ({old_path})"


def gone_modules(ctx: CheckContext, view: RepoView) -> dict[str, GoneModule]:
    """Modules the base had that no file of the head is any more, by dotted name."""
    gone: dict[str, GoneModule] = {}
    for change in ctx.changed_files():
        old_path = change.old_path or change.path
        if change.status not in (FileStatus.DELETED, FileStatus.RENAMED) or not is_python_path(old_path):
            continue
        module = ctx.old_module(old_path)
        if module is None or module_still_there(view, module) or _package_in_its_place(view, old_path):
            continue
        if installed_by_a_package(view, module):
            continue
        if module.split(".")[0] in sys.stdlib_module_names:
            continue  # `docs/examples/http/` deleted: `from http import HTTPStatus` is the standard library's
        if ctx.provided_by_a_dependency(module):
            continue  # a vendored copy given up for the distribution the project now requires
        if change.status is FileStatus.DELETED and _ignored_now(ctx, old_path):
            continue  # generated at build time from now on (pipx 9639e2ccf2's `version.py`, from hatch-vcs)
        if compiled_in_its_place(view, old_path):
            continue
        if ctx.tree("old", old_path) is None and _never_compiled(
            ctx.old_text(old_path), python2=view.python2
        ):
            continue  # every import of it already failed at the parent
        moved_to = view.module(change.path) if change.status is FileStatus.RENAMED else None
        gone[module] = GoneModule(module, change, moved_to)
    return gone


def _never_compiled(text: str | None, *, python2: bool) -> bool:
    """Whether the module's text is indented so that no Python compiles it (trio-asyncio a73f0aaf93
    deletes `sync.py`, whose lines mixed tabs and spaces at the parent: `from .sync import ...` already
    raised). Mixing tabs and spaces consistently is fine to Python 2; a project that may run it counts.
    Other syntax errors may be syntax newer than this interpreter's."""
    if text is None:
        return False
    try:
        ast.parse(text)
    except TabError:
        return not python2
    except IndentationError:
        return True
    except (SyntaxError, ValueError):
        return False
    return False


def _ignored_now(ctx: CheckContext, path: str) -> bool:
    """Whether the head's top `.gitignore` names the file itself (`/src/pkg/version.py`): a file the
    project writes at build or install time, which the repository no longer holds."""
    for raw in (ctx.new_text(".gitignore") or "").splitlines():
        pattern = raw.strip()
        if not pattern or pattern.startswith(("#", "!")) or any(c in pattern for c in "*?[\\"):
            continue
        if pattern.lstrip("/") == path or ("/" not in pattern and pattern == posixpath.basename(path)):
            return True
    return False


def _package_in_its_place(view: RepoView, old_path: str) -> bool:
    """`tutorial/views.py` deleted beside a `tutorial/views/` package (pyramid db221574): the package is
    what `tutorial.views` imported all along (a directory wins over a module of its name), and still is."""
    if old_path.endswith("/__init__.py"):
        return False
    return f"{old_path[: -len('.py')]}/__init__.py" in view.files()


def compiled_in_its_place(view: RepoView, old_path: str) -> bool:
    """Whether the head builds a compiled module where the Python file was (Fiona f47e27fe59 deletes
    `fiona/crs.py` and keeps `fiona/crs.pyx`): the module, and whatever it defines, is still there."""
    return view.parent is not None and view.parent.listing.compiled(old_path.rsplit(".", 1)[0])


def installed_by_a_package(view: RepoView, module: str) -> bool:
    """Whether a package above the module writes `sys.modules` entries under computed names: it may put
    any module there (elasticsearch-dsl 9e525956 deletes its code and maps every `elasticsearch_dsl.*`
    onto `elasticsearch.dsl.*`)."""
    parts = module.split(".")
    for end in range(len(parts) - 1, 0, -1):
        path = view.module_path(".".join(parts[:end]))
        defs = view.defs(path) if path is not None else None
        if defs is not None and defs.installs_modules:
            return True
    return False


def module_still_there(view: RepoView, module: str) -> bool:
    """Whether a file of the head is module (or package) `module`; True when that cannot be told."""
    try:
        return view.index.is_module(module) or view.index.is_package(module)
    except Exception:
        return True  # cannot tell: say nothing


def check_gone_modules(
    ctx: CheckContext, view: RepoView, gone: dict[str, GoneModule], statements: ImportStatements
) -> list[Finding]:
    """Imports and uses of the gone modules; each import finding's statement goes into `statements`."""
    findings: list[Finding] = []
    leaves = sorted({name.rsplit(".", 1)[-1] for name in gone})
    paths = sorted({path for leaf in leaves for path in view.files_with_word(leaf)})
    for path in paths:
        if ctx.out_of_time(RULE, f"imports of deleted modules in {path}"):
            break
        findings.extend(_sites_in(view, path, gone, statements))
    return findings


def _sites_in(
    view: RepoView, path: str, gone: dict[str, GoneModule], statements: ImportStatements
) -> list[Finding]:
    findings: list[Finding] = []
    imported: set[str] = set()
    if view.reach.data_file(path):
        return findings
    for site in view.import_sites(path) if _may_import_a_gone_module(view, path, gone) else []:
        if site.guarded:
            continue
        module = _failing_module(view, site.node, site.target, gone)
        if module is not None and (
            _relative_elsewhere(path, site.node, module)
            or _implicitly_relative(view, path, site.node, module)
            or view.reach.silent_at(path, site.node.lineno)  # last: it reads the code around the line
        ):
            continue
        if module is not None:
            imported.add(module.name)
            line = getattr(site.alias, "lineno", site.node.lineno)
            col = byte_to_char_col(view.line_text(path, line), getattr(site.alias, "col_offset", 0))
            finding = _finding(view, path, (line, col, len(site.alias.name)), module, "import")
            statements[id(finding)] = (statement_key(path, site.node), module.name)
            findings.append(finding)
    for module in gone.values():
        if any(_within(module.name, failed) for failed in imported) or _bound_by_parent(view, module.name):
            continue  # the file's failing import is the one finding it needs
        leaf = module.name.rsplit(".", 1)[-1]
        for use in view.module_attribute_uses(path, module.name):
            if view.reach.silent(use) or asked_hasattr_first(view, use, leaf):
                continue  # `hasattr(theano.sandbox, "cuda") and theano.sandbox.cuda.X` (Theano 9dcf3f4c1c)
            length = len(leaf)
            findings.append(_finding(view, path, (use.line, use.col, length), module, "use"))
    return findings


ImportNode = ast.Import | ast.ImportFrom
_RELATIVE_IMPORT = re.compile(r"\bfrom[ \t]+\.")


def _may_import_a_gone_module(view: RepoView, path: str, gone: dict[str, GoneModule]) -> bool:
    """A text test before the file is parsed: an absolute import spells every package on the way to its
    target, so one that needs a gone module names each part of its name (an import anywhere: after `if x:`
    on its line too); a relative one may not, but it stays inside the file's top package."""
    if any(all(path in view.word_hits(part) for part in name.split(".")) for name in gone):
        return True
    module, _ = view.index.file_module(path)
    top = module.split(".")[0]
    return any(name.split(".")[0] == top for name in gone) and bool(
        _RELATIVE_IMPORT.search(view.text(path) or "")
    )


def _relative_elsewhere(path: str, node: ImportNode, module: GoneModule) -> bool:
    """`from .bad import x` names a file beside the importing one: a gone module outside that directory
    is another file that only shares the name (pylint's hundreds of `bad.py` doc examples)."""
    if not isinstance(node, ast.ImportFrom) or not node.level:
        return False
    base = relative_import_folder(path, node.level)
    old_path = module.change.old_path or module.change.path
    return not (base == "" or old_path.startswith(base + "/"))


def _implicitly_relative(
    view: RepoView, path: str, node: ast.Import | ast.ImportFrom, module: GoneModule
) -> bool:
    """`import command_shell` in a package that has a `command_shell.py`, in a project that may still run
    Python 2 and a file without `from __future__ import absolute_import`: Python 2 imports the sibling
    (behave 700e729b moves its step library into the `behave4cmd0` package, siblings and all)."""
    if not view.python2 or (isinstance(node, ast.ImportFrom) and node.level):
        return False
    folder = posixpath.dirname(path)
    if not view.has_file(f"{folder}/__init__.py") or "absolute_import" in (view.text(path) or ""):
        return False
    head = module.name.split(".")[0]
    return view.has_file(f"{folder}/{head}.py") or view.has_file(f"{folder}/{head}/__init__.py")


def _within(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def _failing_module(
    view: RepoView, node: ast.Import | ast.ImportFrom, target: str, gone: dict[str, GoneModule]
) -> GoneModule | None:
    """The most specific gone module an import needs: every package on the way to `import a.b.c`; for
    `from a.b import c` the package `a.b`, and `a.b.c` unless `a.b` itself still binds `c`."""
    parts = target.split(".")
    needed = [".".join(parts[:end]) for end in range(1, len(parts) + 1)]
    # (asked only of a gone target: it reads what the parent package defines)
    if target in gone and isinstance(node, ast.ImportFrom) and _bound_by_parent(view, target):
        needed.pop()
    for name in reversed(needed):
        if name in gone:
            return gone[name]
    return None


def _bound_by_parent(view: RepoView, dotted: str) -> bool:
    """Whether the head's package `a.b` binds name `c` of `a.b.c` (it re-exports something by that name)."""
    parent, _, leaf = dotted.rpartition(".")
    path = view.module_path(parent) if parent else None
    defs = view.defs(path) if path is not None else None
    return defs is not None and (leaf in defs.module_names or defs.star_import or defs.module_getattr)


def _finding(
    view: RepoView, path: str, where: tuple[int, int, int], module: GoneModule, kind: str
) -> Finding:
    line, col, length = where
    if kind != "import":
        fails = "this line now fails"
    elif view.reach.under_type_checking(path, line):
        fails = "type checkers now reject this `TYPE_CHECKING` import (it does not run)"
    else:
        fails = "this import now fails with ModuleNotFoundError"
    hint = (
        f" Import it as `{module.moved_to}`."
        if module.moved_to
        else " Import it from where it lives now, or remove it."
    )
    return make_finding(
        rule=RULE,
        severity=Severity.ERROR,
        path=path,
        line=line,
        column=col,
        end_column=col + length,
        title=f"{'Import' if kind == 'import' else 'Use'} of removed {module.noun} `{module.name}`",
        message=f"This PR {module.what_happened()}, so {fails}.{hint}",
        anchor=view.line_text(path, line),
        related=[
            Related(
                path=module.change.path,
                line=1,
                message=f"`{module.name}` was here"
                if module.moved_to is None
                else f"`{module.name}` is here now",
            )
        ],
    )
