"""Whether a file already failed on import at the PR's parent, so that nothing in it could run before the
PR either, and the PR left it so.

channels e7def7c2 renames `Router` in the middle of a rewrite: at its parent, `channels/auth.py` already
imports `.sessions`, which an earlier commit deleted, so every module importing `channels.auth` (and every
test importing those) failed before reaching any `Router`. A stale reference there is no break this PR
made. The evidence must be strong, as a wrong answer hides a true finding:

- the failure is a module of the repository's own packages that the parent lacks (or a name a module of
  the parent does not even spell), still lacking at the reviewed head;
- the PR is in the middle of such a rewrite: it deletes Python files of the package the missing module
  belongs to (a module generated at build time, `_version.py` or a compiled extension, is missing from
  every commit, not only from one that deletes its neighbours);
- each import on the way is a top-level statement at the start of a line (not under `try:` or `if`), and
  the reviewed head still has it, or no longer has the importing file at all: the PR did not mend it.

An import of a package folder that no commit of the two has, with no file of any kind under it, below a
package of the repository, is as certain without a rewrite under way (pyvisa 412661a5: `visa.py` kept `from
.pyvisa.wrapper.vpp43_constants import *` after an earlier commit moved the wrapper to `pyvisa/wrapper/`):
dots resolve inside the package, and a distribution built from the repository holds the same files. So is
an import of a module neither commit has, in a repository that compiles no extension module (altair
ad60c1ee: a v1 test's `from ..examples import iter_examples`, and `v1/examples` never existed; pygls
c9df5e2d: `tests/fixtures.py` kept `from pygls.ls import LanguageServer` after `pygls/ls.py` was gone).
Not when the folder or module may be written at build time (the `.gitignore` names it, or it is a usual
generated name such as `_version`), in a namespace package (no `__init__.py`) or when a package on the
way extends its `__path__` (such a package spans several folders) or installs modules itself (an import
hook on `sys.meta_path`, entries in `sys.modules`: setuptools' `extern`).
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

from prscope.analysis.changeset import FileChange, FileStatus
from prscope.analysis.checks.unbound_names import unbound_on_import_of

_MAX_DEPTH = 6
_SCRIPT_IMPORT_DEPTH = 2
_IMPORT = re.compile(
    r"^(?:from[ \t]+(?P<module>\.*[\w.]*)[ \t]+import[ \t]+(?P<names>\([^)]*\)|[^\n#;]*)"
    r"|import[ \t]+(?P<plain>[\w.]+(?:[ \t]+as[ \t]+\w+)?(?:[ \t]*,[ \t]*[\w.]+(?:[ \t]+as[ \t]+\w+)?)*))",
    re.M,
)
_MAY_PROVIDE_ANY = re.compile(r"\bimport[ \t]*\*|__getattr__|\bglobals\(\)|sys\.modules")
_WORD = re.compile(r"\w+")
_COMMENT = re.compile(r"#[^\n]*")
_MAY_PROVIDE_ANY_WORD = "*"
_GENERATED = frozenset(
    {
        "_version",
        "version",
        "__version__",
        "_build",
        "_compat_build",
        "__config__",
        "_buildinfo",
        "parsetab",
        "lextab",
    }
)
_EXTENDS_PATH = re.compile(
    r"__path__|extend_path|declare_namespace|meta_path|path_hooks|sys\.modules|find_spec|find_module|__getattr__"
)
"""What a package may use to provide submodules no file holds (setuptools' `extern` vendor importer)."""
_COMPILED_SOURCES = (
    ".proto",
    ".c",
    ".cc",
    ".cpp",
    ".cxx",
    ".pyx",
    ".pxd",
    ".rs",
    ".f",
    ".f90",
    ".f95",
    ".cu",
    ".i",
    ".swg",
)
_EXTENSION_BUILDERS = frozenset({"Cargo.toml", "meson.build", "CMakeLists.txt", "SConstruct", "binding.gyp"})


@dataclass(frozen=True)
class _Import:
    line: str
    """The statement's first line, as the file writes it."""
    module: str
    """The absolute module imported (`pkg.sub`), after resolving dots."""
    names: tuple[str, ...]
    """`from module import names` (empty for `import module`)."""
    relative: bool = False
    """Written with leading dots (`from .sub import name`)."""


class HeadListing:
    """The head's files of every kind, listed once when first asked (`list_paths()`; None: unknown, and
    every question answered the cautious way)."""

    def __init__(self, list_paths: Callable[[], Iterable[str] | None]) -> None:
        self._list_paths = list_paths
        self._known: bool | None = None
        self._stems: set[str] = set()
        self._compiled_stems: set[str] = set()
        self._folders: set[str] = set()
        self._compiles = True

    def built(self, stem: str) -> bool:
        """Whether a file other than Python source has that path before its extension (`_speedups.pyx`:
        the module is compiled, not missing)."""
        return not self._learn() or stem in self._stems

    def compiled(self, stem: str) -> bool:
        """Whether a source of a compiled module, or a built one, has that path before its extension
        (`fiona/crs.pyx` beside a deleted `fiona/crs.py`); False when the files cannot be listed."""
        return self._learn() and stem in self._compiled_stems

    def holds_files(self, folder: str) -> bool:
        return not self._learn() or folder in self._folders

    def builds_extensions(self) -> bool:
        """Whether the repository has sources of compiled modules, or a build file that makes them."""
        return not self._learn() or self._compiles

    def _learn(self) -> bool:
        if self._known is None:
            listed = self._list_paths()
            self._known = listed is not None
            paths = list(listed or [])
            self._stems = {path.rsplit(".", 1)[0] for path in paths if not path.endswith(".py")}
            self._compiled_stems = {
                path.rsplit(".", 1)[0] for path in paths if path.endswith((*_COMPILED_SOURCES, ".so", ".pyd"))
            }
            for path in paths:
                folder = posixpath.dirname(path)
                while folder and folder not in self._folders:
                    self._folders.add(folder)
                    folder = posixpath.dirname(folder)
            self._compiles = any(path.endswith(_COMPILED_SOURCES) for path in paths) or any(
                posixpath.basename(path) in _EXTENSION_BUILDERS for path in paths
            )
        return self._known


class ParentImports:
    def __init__(
        self,
        changes: Iterable[FileChange],
        head_files: Callable[[], Iterable[str]],
        read_new: Callable[[str], str | None],
        read_old: Callable[[str], str | None],
        module_of: Callable[[str], str | None],
        listing: HeadListing | None = None,
    ) -> None:
        """`head_files()`: the reviewed head's Python files; `listing`: its files of every kind."""
        self._read_new = read_new
        self._read_old = read_old
        self._module_of = module_of
        self.listing = listing or HeadListing(lambda: None)
        self._changes = list(changes)
        self._changed = {change.path for change in self._changes}
        gone = {c.path for c in self._changes if c.status is FileStatus.DELETED}
        gone |= {c.old_path for c in self._changes if c.status is FileStatus.RENAMED and c.old_path}
        self._deleted = gone
        self._deleted_folders = {posixpath.dirname(p) for p in gone if p.endswith(".py")}
        self._head_files = head_files
        self._head: set[str] = set()
        self._parent: set[str] = set()
        self._roots: set[str] = set()
        self._dead: dict[str, bool] = {}
        self._unbound: dict[str, bool] = {}
        self._texts: dict[tuple[str, str], str | None] = {}
        self._word_sets: dict[tuple[str, str], set[str] | None] = {}

    def dead_at_parent(self, path: str) -> bool:
        """Whether importing `path` already failed at the parent, and the reviewed head keeps the failing
        imports (see the module docstring)."""
        if not self._head:
            self._head = set(self._head_files())
            kinds = (FileStatus.ADDED, FileStatus.COPIED, FileStatus.RENAMED)
            added = {c.path for c in self._changes if c.status in kinds}
            self._parent = (self._head - added) | {p for p in self._deleted if p.endswith(".py")}
            self._learn_package_roots()
        if path not in self._parent:
            return False
        if path not in self._dead:
            self._learn_root(path)
            self._dead[path] = self._fails(path, set())
        if self._dead[path]:
            return True
        return not self._in_package(path) and self._imports_an_unbound_reader(path, _SCRIPT_IMPORT_DEPTH)

    def _in_package(self, path: str) -> bool:
        """Whether the parent has an `__init__.py` beside the file."""
        return f"{posixpath.dirname(path)}/__init__.py" in self._parent

    def _imports_an_unbound_reader(self, path: str, depth: int) -> bool:
        """Whether a script's kept imports reach, within `depth` steps, a module whose import-time code
        read a name nothing binds at the parent as at the head. Asked of scripts beside the packages only
        (thinc's `examples/`): every module on the way is parsed, which a package module of a big project
        (mypy's `build.py` imports most of mypy) cannot afford for each question."""
        module = self._module(path)
        if module is None:
            return False
        for statement in self._kept_imports(path, module):
            target = self._parent_path(statement.module)
            if target is None or target == path:
                continue
            if self._reads_unbound_then_and_now(target):
                return True
            if depth > 1 and self._imports_an_unbound_reader(target, depth - 1):
                return True
        return False

    def old_text(self, path: str) -> str | None:
        """The parent's text of a file the head has under that path."""
        return self._text("old", path)

    def changed(self, path: str) -> bool:
        return path in self._changed

    def gone(self, path: str) -> bool:
        """Whether the PR deleted the file, or renamed it away."""
        return path in self._deleted

    def _fails(self, path: str, on_the_way: set[str]) -> bool:
        if path in self._dead:
            return self._dead[path]
        if len(on_the_way) >= _MAX_DEPTH or path in on_the_way:
            return False
        on_the_way = on_the_way | {path}
        module = self._module(path)
        if module is None:
            return False
        imports = list(self._parent_imports(path, module))
        found = (
            any(self._fails(init, on_the_way) for init in self._package_inits(path))
            or any(self._import_fails(statement, on_the_way) for statement, kept in imports if kept)
            or any(self._imported_a_name_never_there(statement) for statement, kept in imports if not kept)
        )
        self._dead[path] = found
        return found

    def _imported_a_name_never_there(self, statement: _Import) -> bool:
        """Whether an import the PR took out named, from a module of the package, a name the parent's
        module does not spell at all (flask-unchained 1bda2c8f5c: the package's `from .alembic import
        MaterializedViewMigration`, whose class an earlier commit had removed): that import failed at the
        parent, and the PR taking it out says so; everything importing the package failed with it."""
        if not statement.relative or not statement.names:
            return False
        target = self._parent_path(statement.module)
        if target is None or target in self._deleted:
            return False
        words = self._words("old", target)
        if words is None or _MAY_PROVIDE_ANY_WORD in words:
            return False
        return any(
            name not in words and self._parent_path(f"{statement.module}.{name}") is None
            for name in statement.names
            if name != "*"
        )

    def _reads_unbound_then_and_now(self, path: str) -> bool:
        """Whether the module's import-time code reads a name nothing binds, at the parent and at the head
        (`unbound_names`): a NameError on import then as now (thinc f30b274b55's examples import `Embed`,
        whose class is decorated with a `declare_dimensions` nothing defines)."""
        if path not in self._unbound:
            self._unbound[path] = self._read_unbound_then_and_now(path)
        return self._unbound[path]

    def _read_unbound_then_and_now(self, path: str) -> bool:
        if path in self._deleted:
            return False
        in_package = self._in_package(path)
        then = unbound_on_import_of(self._text("old", path), in_package)
        if not then:
            return False
        now = then if path not in self._changed else unbound_on_import_of(self._text("new", path), in_package)
        return bool(then & now)

    def _import_fails(self, statement: _Import, on_the_way: set[str]) -> bool:
        target = self._parent_path(statement.module)
        if target is None:
            return self._gone_for_good(statement.module) or self._never_there(statement.module)
        if self._fails(target, on_the_way):
            return True
        if not target.endswith("__init__.py") or not statement.names:
            return any(self._name_missing(target, name) for name in statement.names)
        package = statement.module
        for name in statement.names:
            submodule = self._parent_path(f"{package}.{name}")
            if submodule is not None:
                if self._fails(submodule, on_the_way):
                    return True
            elif self._name_missing(target, name):
                return True
        return False

    def _gone_for_good(self, module: str) -> bool:
        """A module of the repository's own packages that the parent lacks, the head lacks too, in a folder
        the PR deletes Python files from; not one a build makes."""
        parts = module.split(".")
        if len(parts) < 2 or parts[-1] in _GENERATED or self._head_path(module) is not None:
            return False  # a top-level name is a distribution's as much as the repository's
        for root in self._roots:
            folder = root + "/".join(parts[:-1])
            stem = f"{root}{module.replace('.', '/')}"
            if folder in self._deleted_folders and f"{folder}/__init__.py" in self._parent:
                return not self.listing.built(stem)
        return False

    def _never_there(self, module: str) -> bool:
        """A package on the module's dotted path, or the module itself, below an existing package, that
        neither the parent nor the head has any file of (see the module docstring)."""
        parts = module.split(".")
        for root in self._roots:
            if f"{root}{parts[0]}/__init__.py" not in self._parent:
                continue  # another root: the module's top package is not under it
            for depth in range(2, len(parts) + 1):
                stem = root + "/".join(parts[:depth])
                if not self._stem_never_there(stem):
                    continue
                inits = [f"{root}{'/'.join(parts[:above])}/__init__.py" for above in range(1, depth)]
                if not all(init in self._parent for init in inits):
                    return False  # a namespace package on the way: another folder on its path may hold it
                if depth == len(parts) and not self._missing_module_certain(parts[-1]):
                    return False
                return not self._may_be_built(root, stem) and not any(
                    _EXTENDS_PATH.search(self._text("old", init) or "") for init in inits
                )
            return False
        return False

    def _missing_module_certain(self, name: str) -> bool:
        """A module (not a package on the way) that no build writes: not a usual generated name, in a
        repository that compiles no extension module (whose name its sources need not spell)."""
        return name not in _GENERATED and not self.listing.builds_extensions()

    def _stem_never_there(self, stem: str) -> bool:
        if f"{stem}.py" in self._parent or f"{stem}.py" in self._head:
            return False
        if self.listing.holds_files(stem) or self.listing.built(stem) or self.listing.built(f"{stem}.py"):
            return False  # a folder, a compiled module's source, or a template to copy (`config.py.example`)
        return not any(path.startswith(f"{stem}/") or path.startswith(f"{stem}.") for path in self._deleted)

    def _may_be_built(self, root: str, folder: str) -> bool:
        """Whether a `.gitignore` of the root or of a folder above names the folder: a build may write it."""
        name = posixpath.basename(folder)
        ignores = [posixpath.join(root, ".gitignore"), ".gitignore"]
        above = posixpath.dirname(folder)
        while above and len(above) > len(root.rstrip("/")):
            ignores.append(f"{above}/.gitignore")
            above = posixpath.dirname(above)
        return any(
            _ignores(self._text("new", ignore), name) or _ignores(self._text("new", ignore), f"{name}.py")
            for ignore in dict.fromkeys(ignores)
        )

    def _name_missing(self, path: str, name: str) -> bool:
        """A name the parent's module does not spell at all, and the head's does not either (or the PR
        deleted the module): conservative, a word anywhere counts as a binding."""
        if name == "*":
            return False
        for side in ("old", "new") if path not in self._deleted else ("old",):
            words = self._words(side, path)
            if words is not None and (name in words or _MAY_PROVIDE_ANY_WORD in words):
                return False
        return posixpath.dirname(path) in self._deleted_folders

    def _words(self, side: str, path: str) -> set[str] | None:
        """Every word the file spells (`*` standing for anything that may provide any name)."""
        key = (side, path)
        if key not in self._word_sets:
            text = self._text(side, path)
            words = None if text is None else set(_WORD.findall(text))
            if words is not None and _MAY_PROVIDE_ANY.search(text or ""):
                words.add(_MAY_PROVIDE_ANY_WORD)
            self._word_sets[key] = words
        return self._word_sets[key]

    def _kept_imports(self, path: str, module: str) -> Iterator[_Import]:
        return (statement for statement, kept in self._parent_imports(path, module) if kept)

    def _parent_imports(self, path: str, module: str) -> Iterator[tuple[_Import, bool]]:
        """The parent's top-level imports of the file, each with whether the reviewed head keeps it (or no
        longer has the file): one not kept is an import the PR took out."""
        old = self._text("old", path)
        if old is None:
            return
        new = None if path in self._deleted else self._text("new", path)
        package = module if path.endswith("__init__.py") else module.rpartition(".")[0]
        for statement in _top_level_imports(old, package):
            yield statement, new is None or statement.line in new

    def _package_inits(self, path: str) -> list[str]:
        """The `__init__.py` files Python runs before the module (outermost first)."""
        inits: list[str] = []
        folder = posixpath.dirname(path)
        while folder:
            init = f"{folder}/__init__.py"
            if init not in self._parent:
                break
            if init != path:
                inits.append(init)
            folder = posixpath.dirname(folder)
        return inits[::-1]

    def _parent_path(self, module: str) -> str | None:
        return self._path_in(module, self._parent)

    def _head_path(self, module: str) -> str | None:
        return self._path_in(module, self._head)

    def _path_in(self, module: str, files: set[str]) -> str | None:
        relative = module.replace(".", "/")
        for root in self._roots:
            for candidate in (f"{root}{relative}.py", f"{root}{relative}/__init__.py"):
                if candidate in files:
                    return candidate
        return None

    def _module(self, path: str) -> str | None:
        module = self._module_of(path)
        if module is not None:
            return module
        for root in self._roots:
            if path.startswith(root):
                dotted = path[len(root) :].removesuffix(".py").removesuffix("/__init__").replace("/", ".")
                return dotted or None
        return None

    def _learn_package_roots(self) -> None:
        """Where the repository's top-level packages live: a script beside them (`examples/tagger.py`)
        imports them from another root than its own."""
        for path in self._parent:
            if path.endswith("/__init__.py") and path.count("/") <= 2:
                self._learn_root(path)

    def _learn_root(self, path: str) -> None:
        module = self._module_of(path)
        if module is None:
            return
        tail = module.replace(".", "/") + ("/__init__.py" if path.endswith("__init__.py") else ".py")
        if path.endswith(tail):
            self._roots.add(path[: len(path) - len(tail)])

    def _text(self, side: str, path: str) -> str | None:
        key = (side, path)
        if key not in self._texts:
            self._texts[key] = self._read_old(path) if side == "old" else self._read_new(path)
        return self._texts[key]


def _ignores(text: str | None, name: str) -> bool:
    """Whether a pattern of the `.gitignore` text may name a folder called `name` (by its last part)."""
    for raw in (text or "").splitlines():
        pattern = raw.strip().rstrip("/")
        while pattern.endswith(("/*", "/**")):  # `.idea/*`: the folder's contents, named by the folder
            pattern = pattern.rsplit("/", 1)[0]
        if (
            pattern
            and not pattern.startswith(("#", "!"))
            and fnmatch.fnmatchcase(name, pattern.rsplit("/", 1)[-1])
        ):
            return True
    return False


def _top_level_imports(text: str, package: str) -> Iterator[_Import]:
    """`import` and `from ... import` statements written at the start of a line (module level, not under a
    `try:` or an `if`), with relative modules made absolute against `package`."""
    for match in _IMPORT.finditer(text):
        line = match.group(0).split("\n", 1)[0]
        plain = match.group("plain")
        if plain is not None:
            for part in plain.split(","):
                yield _Import(line, part.split()[0], ())
            continue
        written = match.group("module")
        module = _absolute(written, package)
        if module is None:
            continue
        names = _COMMENT.sub("", match.group("names")).strip().strip("()").replace("\\\n", " ")
        heads = (item.split()[0] for item in names.replace("\n", " ").split(",") if item.split())
        found = tuple(head for head in heads if head.isidentifier())
        yield _Import(line, module, found, relative=written.startswith("."))


def _absolute(module: str, package: str) -> str | None:
    dots = len(module) - len(module.lstrip("."))
    if not dots:
        return module
    parts = package.split(".") if package else []
    if dots - 1 > len(parts):
        return None
    base = parts[: len(parts) - (dots - 1)]
    rest = module[dots:]
    return ".".join([*base, rest] if rest else base) or None
