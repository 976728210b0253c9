"""What the project's own configuration says about its files: which ones a type checker reads, and which
ones its tools are told to leave alone (test data, fixtures read as text).

Read from the reviewed revision's configuration files (pyproject.toml, setup.cfg, tox.ini, pytest.ini,
mypy.ini, .flake8, ruff.toml, pyrightconfig.json, .pre-commit-config.yaml, noxfile.py, Makefile) and the
`collect_ignore` lists of its conftest.py files. Only what is written there counts: nothing is guessed
from a folder's name.
"""

from __future__ import annotations

import ast
import configparser
import fnmatch
import json
import re
import shlex
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

Read = Callable[[str], str | None]

_TYPE_CHECKER_WORD = re.compile(r"\b(?:mypy|pyright|basedpyright|pytype|pyre)\b")
_MENTIONS_TYPE_CHECKER = (
    ".pre-commit-config.yaml",
    "tox.ini",
    "noxfile.py",
    "Makefile",
    "setup.cfg",
    "pyproject.toml",
)
_MYPY_INI = ("mypy.ini", ".mypy.ini", "setup.cfg")
_PYTEST_INI = (("pytest.ini", "pytest"), (".pytest.ini", "pytest"), ("tox.ini", "pytest"))
_FLAKE8_INI = (".flake8", "setup.cfg", "tox.ini")
_NOSE = re.compile(r"\bnose(?:tests|2)?\b")
_NOSE_TEST = re.compile(r"(?:^|[_.-])[Tt]est")
"""nose's default `testMatch`: `test` at the start or after a separator."""
_NOSE_MENTIONS = (
    "setup.cfg",
    "setup.py",
    "tox.ini",
    "pyproject.toml",
    "requirements.txt",
    "requirements-dev.txt",
    "requirements_dev.txt",
    "dev-requirements.txt",
    "test-requirements.txt",
    "requirements-test.txt",
    ".travis.yml",
    "Makefile",
    "noxfile.py",
)
_IGNORE_OPTION = re.compile(r"^--ignore(?:-glob)?(?:=(.+))?$")


@dataclass
class TypeCheckScope:
    """One type checker's files: `include` (empty: the whole repository) minus `exclude`."""

    include: list[str] = field(default_factory=list)
    exclude_globs: list[str] = field(default_factory=list)
    exclude_regexes: list[re.Pattern[str]] = field(default_factory=list)

    def covers(self, path: str) -> bool:
        if self.include and not any(_under(path, root) for root in self.include):
            return False
        if any(_glob_covers(path, glob) for glob in self.exclude_globs):
            return False
        return not any(regex.search(path) for regex in self.exclude_regexes)


class ProjectTools:
    """The project's tool configuration at the reviewed revision, read once per review on demand."""

    def __init__(self, read: Read, python_files: Callable[[], Iterable[str]]) -> None:
        self._read = read
        self._python_files = python_files
        self._texts: dict[str, str | None] = {}

    def text(self, name: str) -> str | None:
        if name not in self._texts:
            try:
                self._texts[name] = self._read(name)
            except (OSError, ValueError):
                self._texts[name] = None
        return self._texts[name]

    # Type checking -----------------------------------------------------------------------------------

    def type_checked(self, path: str) -> bool:
        """Whether a type checker the project runs reads `path`: then a reference that never runs (a
        `TYPE_CHECKING` import, an annotation nothing evaluates) still breaks the project's checks."""
        return any(scope.covers(path) for scope in self._type_checkers)

    @cached_property
    def _type_checkers(self) -> list[TypeCheckScope]:
        scopes = [*self._pyproject_checkers(), *self._ini_mypy(), *self._pyright_json()]
        if scopes:
            return scopes
        # No configuration of its own, but run from the project's tooling (`mypy src` in tox.ini, a
        # pre-commit hook): the whole repository, as far as can be told.
        mentioned = any(_TYPE_CHECKER_WORD.search(self.text(name) or "") for name in _MENTIONS_TYPE_CHECKER)
        return [TypeCheckScope()] if mentioned else []

    def _pyproject_checkers(self) -> list[TypeCheckScope]:
        tool = self._pyproject.get("tool")
        if not isinstance(tool, dict):
            return []
        scopes: list[TypeCheckScope] = []
        mypy = tool.get("mypy")
        if isinstance(mypy, dict):
            scopes.append(_mypy_scope(mypy.get("files"), mypy.get("exclude")))
        for name in ("pyright", "basedpyright"):
            pyright = tool.get(name)
            if isinstance(pyright, dict):
                scopes.append(_pyright_scope(pyright))
        if any(isinstance(tool.get(name), dict) for name in ("pytype", "pyre")):
            scopes.append(TypeCheckScope())
        return scopes

    def _ini_mypy(self) -> list[TypeCheckScope]:
        for name in _MYPY_INI:
            parser = _ini(self.text(name))
            if parser is not None and parser.has_section("mypy"):
                section = parser["mypy"]
                return [_mypy_scope(section.get("files"), section.get("exclude"))]
        return []

    def _pyright_json(self) -> list[TypeCheckScope]:
        text = self.text("pyrightconfig.json")
        if text is None:
            return []
        try:
            data = json.loads(text)
        except ValueError:
            return [TypeCheckScope()]
        return [_pyright_scope(data if isinstance(data, dict) else {})]

    @cached_property
    def _pyproject(self) -> dict[str, Any]:
        try:
            return tomllib.loads(self.text("pyproject.toml") or "")
        except tomllib.TOMLDecodeError:
            return {}

    # Files the tools leave alone ---------------------------------------------------------------------

    def left_alone(self, path: str) -> bool:
        """Whether the configuration marks `path` as data for the tests rather than code: pytest is told
        not to collect it (`norecursedirs`, `--ignore`, `collect_ignore`), or it lies inside the
        `testpaths`, pytest would not collect it by its name, and the linters or mypy are told to skip it
        (ruff's, flake8's, mypy's `exclude`). A linter's exclude alone is not enough: `examples/` left
        unlinted is still code people run, a test file left out of mypy is still run by pytest."""
        if self._not_collected(path):
            return True
        in_tests = any(_under(path, root) for root in self._testpaths)
        return (
            in_tests
            and not self.collected_name(path)
            and (
                self.lint_excluded(path)
                or any(regex.search(path) for scope in self._type_checkers for regex in scope.exclude_regexes)
            )
        )

    def lint_excluded(self, path: str) -> bool:
        """Whether ruff's or flake8's configuration tells it to skip `path`."""
        return any(_glob_covers(path, glob) for glob in self._lint_excludes)

    def collected_name(self, path: str) -> bool:
        """Whether pytest collects the file (`python_files`, default `test_*.py` and
        `*_test.py`; conftest.py always): a test file left out of mypy is still run."""
        name = path.rsplit("/", 1)[-1]
        patterns = [p for options in self._pytest_options for p in _words(options.get("python_files"))]
        return name == "conftest.py" or any(
            _collects(pattern, path) for pattern in patterns or ["test_*.py", "*_test.py"]
        )

    def collects_function(self, name: str) -> bool:
        """Whether a test runner the project may use collects a test module's function or method of that
        name: pytest's `python_functions` (default `test` as a prefix) and unittest's `test` prefix, and,
        where the project names nose anywhere in its configuration, nose's `test` after a separator
        (`do_test_x`, `run_all_tests`)."""
        patterns = [p for options in self._pytest_options for p in _words(options.get("python_functions"))]
        if any(_matches_function(pattern, name) for pattern in patterns or ["test"]):
            return True
        return name.startswith("test") or (self._uses_nose and _NOSE_TEST.search(name) is not None)

    @cached_property
    def _uses_nose(self) -> bool:
        return any(_NOSE.search(self.text(name) or "") for name in _NOSE_MENTIONS)

    @cached_property
    def _testpaths(self) -> list[str]:
        roots: list[str] = []
        for options in self._pytest_options:
            roots.extend(p.removeprefix("./").rstrip("/") for p in _words(options.get("testpaths")))
        return [r for r in roots if r not in ("", ".")]

    def _not_collected(self, path: str) -> bool:
        parts = path.split("/")[:-1]
        if any(fnmatch.fnmatchcase(part, pattern) for part in parts for pattern in self._norecursedirs):
            return True
        if any(_glob_covers(path, glob) for glob in self._pytest_ignores):
            return True
        return any(_glob_covers(path, glob) for glob in self._collect_ignores)

    @cached_property
    def _pytest_options(self) -> list[dict[str, Any]]:
        """Every pytest configuration table found (pytest reads one; which one depends on the
        invocation, so all count)."""
        found: list[dict[str, Any]] = []
        tool = self._pyproject.get("tool")
        table = _dig(tool, "pytest", "ini_options")
        if isinstance(table, dict):
            found.append(table)
        for name, section in (*_PYTEST_INI, ("setup.cfg", "tool:pytest")):
            parser = _ini(self.text(name))
            if parser is not None and parser.has_section(section):
                found.append(dict(parser[section]))
        return found

    @cached_property
    def _norecursedirs(self) -> list[str]:
        patterns: list[str] = []
        for options in self._pytest_options:
            patterns.extend(p.rstrip("/") for p in _words(options.get("norecursedirs")))
        return patterns

    @cached_property
    def _pytest_ignores(self) -> list[str]:
        globs: list[str] = []
        for options in self._pytest_options:
            words = _words(options.get("addopts"))
            for index, word in enumerate(words):
                match = _IGNORE_OPTION.match(word)
                if match is None:
                    continue
                value = match.group(1) or (words[index + 1] if index + 1 < len(words) else "")
                if value:
                    globs.append(value.removeprefix("./"))
        return globs

    @cached_property
    def _collect_ignores(self) -> list[str]:
        """`collect_ignore` / `collect_ignore_glob` entries of every conftest.py, made repository-relative.
        Only plain lists (`collect_ignore = ["data"]`, `+= [...]`): a list built under a condition (a
        Python version) is the syntax check's business."""
        globs: list[str] = []
        for path in self._python_files():
            if path.rsplit("/", 1)[-1] != "conftest.py":
                continue
            text = self.text(path)
            if not text or "collect_ignore" not in text:
                continue
            folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
            globs.extend(folder + entry.removeprefix("./") for entry in _collect_ignore_entries(text))
        return globs

    @cached_property
    def _lint_excludes(self) -> list[str]:
        globs: list[str] = []
        tool = self._pyproject.get("tool")
        for table in (_dig(tool, "ruff"), _toml(self.text("ruff.toml")), _toml(self.text(".ruff.toml"))):
            if isinstance(table, dict):
                for key in ("exclude", "extend-exclude"):
                    globs.extend(_words(table.get(key)))
        for name in _FLAKE8_INI:
            parser = _ini(self.text(name))
            if parser is not None and parser.has_section("flake8"):
                for key in ("exclude", "extend-exclude"):
                    globs.extend(_words(parser["flake8"].get(key)))
        return [g.removeprefix("./") for g in globs if g and g not in (".", "./")]


def _mypy_scope(files: object, exclude: object) -> TypeCheckScope:
    regexes: list[re.Pattern[str]] = []
    for text in _words(exclude, split=False):
        try:
            regexes.append(re.compile(text, re.VERBOSE))
        except re.error:
            continue
    include = [f.removeprefix("./").rstrip("/") for f in _words(files)]
    return TypeCheckScope(include=[f for f in include if f not in ("", ".")], exclude_regexes=regexes)


def _pyright_scope(table: dict[str, Any]) -> TypeCheckScope:
    include = [f.removeprefix("./").rstrip("/") for f in _words(table.get("include"))]
    excludes = [g.removeprefix("./") for g in _words(table.get("exclude"))]
    return TypeCheckScope(include=[f for f in include if f not in ("", ".")], exclude_globs=excludes)


def _collect_ignore_entries(text: str) -> list[str]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return []
    found: list[str] = []
    for node in tree.body:
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = node.targets
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = [node.target]
        names = {t.id for t in targets if isinstance(t, ast.Name)}
        value = getattr(node, "value", None)
        if names & {"collect_ignore", "collect_ignore_glob"} and isinstance(value, ast.List | ast.Tuple):
            found.extend(
                e.value for e in value.elts if isinstance(e, ast.Constant) and isinstance(e.value, str)
            )
    return found


def _words(value: object, *, split: bool = True) -> list[str]:
    """A configuration value as a list of strings: TOML lists as they are, INI text split on commas,
    newlines and spaces (shell-style for `addopts`)."""
    if isinstance(value, list):
        return [str(v).strip() for v in value if isinstance(v, str) and v.strip()]
    if not isinstance(value, str):
        return []
    if not split:
        return [value.strip()] if value.strip() else []
    try:
        pieces = shlex.split(value.replace(",", " "), comments=True)
    except ValueError:
        pieces = value.replace(",", " ").split()
    return [p for p in pieces if p]


def _ini(text: str | None) -> configparser.ConfigParser | None:
    if not text:
        return None
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return parser


def _toml(text: str | None) -> dict[str, Any] | None:
    if not text:
        return None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None


def _dig(table: object, *keys: str) -> object:
    for key in keys:
        table = table.get(key) if isinstance(table, dict) else None
    return table


def _under(path: str, root: str) -> bool:
    return path == root or path.startswith(root.rstrip("/") + "/")


def _glob_covers(path: str, glob: str) -> bool:
    """Whether `glob` (a path, a folder or a pattern, as ruff, flake8 and pytest write them) names `path`
    or a folder holding it. A bare name without a slash matches any path component (flake8, ruff)."""
    glob = glob.strip().rstrip("/")
    if not glob:
        return False
    if _under(path, glob) or fnmatch.fnmatchcase(path, glob):
        return True
    parts = path.split("/")
    prefixes = ["/".join(parts[:end]) for end in range(1, len(parts))]
    if any(fnmatch.fnmatchcase(prefix, glob) for prefix in prefixes):
        return True
    if "/" not in glob:
        return any(fnmatch.fnmatchcase(part, glob) for part in parts)
    if glob.startswith("**/"):
        return _glob_covers(path, glob[3:]) or any(
            _glob_covers("/".join(parts[i:]), glob[3:]) for i in range(1, len(parts))
        )
    return False


def _matches_function(pattern: str, name: str) -> bool:
    """pytest's rule for `python_functions`: a glob when it has glob characters, else a prefix."""
    if any(char in pattern for char in "*?["):
        return fnmatch.fnmatchcase(name, pattern)
    return name.startswith(pattern)


def _collects(pattern: str, path: str) -> bool:
    """pytest's match of a `python_files` pattern: against the file name, or, for a pattern with a `/`
    (sqlalchemy's `test/*test_*.py`), against the path, where `*` also crosses folders."""
    if "/" not in pattern:
        return fnmatch.fnmatchcase(path.rsplit("/", 1)[-1], pattern)
    return fnmatch.fnmatchcase(path, pattern) or fnmatch.fnmatchcase(path, "*/" + pattern)
