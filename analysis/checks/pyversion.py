"""The Python version the reviewed code must parse under: the configured `python_version`, else the
lowest release the project's `requires-python` (pyproject.toml), `python_requires` (setup.cfg, setup.py)
admits. Code is parsed with the running interpreter in that version's grammar (`feature_version`)."""

from __future__ import annotations

import ast
import configparser
import re
import sys
import tomllib
from collections.abc import Callable
from dataclasses import dataclass

PythonVersion = tuple[int, int]

_CLAUSE = re.compile(r"^\s*(===|==|~=|>=|<=|!=|>|<)\s*v?(\d+)(?:\.(\d+|\*))?")
_SETUP_PY = re.compile(r"""python_requires\s*=\s*(['"])([^'"]+)\1""")
_CLASSIFIER = re.compile(r"Programming Language :: Python :: ([23])\b(?:\.(\d+))?")
_OLDEST_GRAMMAR: PythonVersion = (3, 4)
"""The oldest grammar `ast.parse(feature_version=...)` takes; an older Python 3 is parsed as this."""


@dataclass(frozen=True)
class Target:
    version: PythonVersion | None
    """The grammar to parse with; None when the project targets Python 2 only (its syntax is not judged)."""
    source: str
    """Where the version came from, for messages (`requires-python ">=3.8" in pyproject.toml`)."""

    @property
    def grammar(self) -> PythonVersion:
        """The version to hand to `feature_version`: the target, within what this interpreter parses."""
        running: PythonVersion = (sys.version_info.major, sys.version_info.minor)
        wanted = self.version or running
        return max(_OLDEST_GRAMMAR, min(wanted, running))

    @property
    def label(self) -> str:
        return "Python 2" if self.version is None else f"Python {self.version[0]}.{self.version[1]}"


def target_version(configured: str | None, read: Callable[[str], str | None]) -> Target | None:
    """The target from the configuration, else from the project files `read` returns; None if neither."""
    if configured:
        parsed = lowest_admitted(f">={configured}")
        if parsed is not None:
            return Target(parsed[0], f"python_version = {configured!r} in the prscope configuration")
    for name, spec in _declared_requirements(read):
        found = lowest_admitted(spec)
        if found is not None:
            version, python2_only = found
            if python2_only:
                return Target(None, name)
            return _newer_of(Target(version, name), _by_classifiers(read))
    return _past_stale_classifiers(_by_classifiers(read), _pipfile_target(read))


def _past_stale_classifiers(classified: Target | None, pipfile: Target | None) -> Target | None:
    """Classifiers are the only declaration, and the Pipfile's environment needs a newer Python than every
    release they list: the classifiers were left behind (icalevents 1df3dc1db2 lists 3.3 to 3.5 in
    setup.py, and its Pipfile and CI run only 3.9), and the newer is taken (precision first)."""
    if classified is None or classified.version is None or pipfile is None or pipfile.version is None:
        return classified
    if pipfile.version <= classified.version:
        return classified
    return Target(pipfile.version, f"{pipfile.source}, newer than every release {classified.source} list")


def _pipfile_target(read: Callable[[str], str | None]) -> Target | None:
    text = _safe_read(read, "Pipfile")
    if text is None:
        return None
    try:
        requires = tomllib.loads(text).get("requires", {})
    except tomllib.TOMLDecodeError:
        return None
    version = requires.get("python_version") if isinstance(requires, dict) else None
    found = lowest_admitted(f">={version}") if isinstance(version, str) else None
    if found is None or found[1]:
        return None
    return Target(found[0], f'python_version "{version}" in Pipfile')


def _newer_of(required: Target, classified: Target | None) -> Target:
    """A requirement older than every Python 3 release the classifiers list: the metadata disagree, and
    the newer of the two is taken (django-axes b46e7cce drops Python 3.5, its classifier and its tox
    environment, and leaves `python_requires='~=3.5'`): precision first, the older may be stale."""
    if classified is None or classified.version is None or required.version is None:
        return required
    if classified.version <= required.version:
        return required
    return Target(
        classified.version, f"{classified.source}, which list no release as old as {required.source}"
    )


def _by_classifiers(read: Callable[[str], str | None]) -> Target | None:
    """With no requirement declared, the trove classifiers: Python 2 listed means Python 2 code is
    legitimate (a Python 3 parser cannot judge it); Python 3 releases alone (`Python :: 3.6`) mean the
    oldest one listed."""
    for name in ("setup.py", "setup.cfg", "pyproject.toml"):
        listed = _CLASSIFIER.findall(_safe_read(read, name) or "")
        majors = {major for major, _ in listed}
        if "2" in majors:
            return Target(None, f"the Python 2 classifiers in {name}")
        minors = [int(minor) for _, minor in listed if minor]
        if majors == {"3"} and minors:
            # A bare `Python :: 3` is not enough: 2015's flask listed only it while supporting 2.6.
            return Target((3, min(minors)), f"the Python 3 classifiers in {name}")
    return None


def _declared_requirements(read: Callable[[str], str | None]) -> list[tuple[str, str]]:
    """(where, specifier) for each file that declares the supported Pythons."""
    found: list[tuple[str, str]] = []
    pyproject = _safe_read(read, "pyproject.toml")
    if pyproject is not None:
        found.extend(_pyproject_requirements(pyproject))
    setup_cfg = _safe_read(read, "setup.cfg")
    if setup_cfg is not None:
        parser = configparser.ConfigParser(interpolation=None)
        try:
            parser.read_string(setup_cfg)
            spec = parser.get("options", "python_requires", fallback=None)
        except configparser.Error:
            spec = None
        if spec:
            found.append((f'python_requires "{spec.strip()}" in setup.cfg', spec))
    setup_py = _safe_read(read, "setup.py")
    match = _SETUP_PY.search(setup_py or "")
    if match is not None:
        found.append((f'python_requires "{match.group(2)}" in setup.py', match.group(2)))
    return found


def _pyproject_requirements(text: str) -> list[tuple[str, str]]:
    """PEP 621 `[project] requires-python`, then flit's older `[tool.flit.metadata] requires-python`
    and Poetry's `[tool.poetry.dependencies] python` (`^3.8`, read as its lower bound)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    tool = data.get("tool")
    places = (
        ("requires-python", data.get("project")),
        ("[tool.flit.metadata] requires-python", _table(tool, "flit", "metadata")),
        ("[tool.poetry.dependencies] python", _table(tool, "poetry", "dependencies")),
    )
    found: list[tuple[str, str]] = []
    for label, table in places:
        key = "python" if label.endswith(" python") else "requires-python"
        spec = table.get(key) if isinstance(table, dict) else None
        if isinstance(spec, str):
            found.append((f'{label} "{spec}" in pyproject.toml', _poetry_to_pep440(spec)))
    return found


def _table(tool: object, *keys: str) -> object:
    table: object = tool
    for key in keys:
        table = table.get(key) if isinstance(table, dict) else None
    return table


def _poetry_to_pep440(spec: str) -> str:
    """`^3.8` and `~3.8` admit 3.8 and later within 3: as a lower bound, `>=3.8`."""
    stripped = spec.strip()
    return ">=" + stripped[1:] if stripped[:1] in ("^", "~") and stripped[1:2] != "=" else stripped


def _safe_read(read: Callable[[str], str | None], name: str) -> str | None:
    try:
        return read(name)
    except (OSError, ValueError):
        return None


def _caps_at_python2(operator: str, version: PythonVersion) -> bool:
    """Whether a clause admits nothing from Python 3 on (`<3`, `==2.7.*`)."""
    return (operator in ("<", "<=") and version <= (3, 0)) or (operator in ("==", "===") and version[0] < 3)


def lowest_admitted(spec: str) -> tuple[PythonVersion, bool] | None:
    """The lowest `major.minor` a version specifier admits (`>=3.8,<4` -> 3.8), and whether it admits
    Python 2 only; None when it sets no lower bound."""
    lower: PythonVersion | None = None
    python2_only = False
    excluded: set[PythonVersion] = set()
    for clause in spec.split(","):
        match = _CLAUSE.match(clause)
        if match is None:
            continue
        operator, major_text, minor_text = match.groups()
        major = int(major_text)
        minor = int(minor_text) if minor_text and minor_text != "*" else 0
        python2_only = python2_only or _caps_at_python2(operator, (major, minor))
        if operator == "!=" and re.fullmatch(rf"\s*!=\s*v?{major}\.{minor}\.\*\s*", clause):
            excluded.add((major, minor))  # the whole series (`!=3.4.*`), not one release (`!=3.6.1`)
        if operator in ("!=", "<", "<="):
            continue
        bound = (major, minor + 1) if operator == ">" and minor_text else (major, minor)
        lower = bound if lower is None else max(lower, bound)
    if lower is None:
        return None
    lowest = (3, 0) if lower[0] < 3 else lower
    while lowest in excluded:  # `>=2.7, !=3.0.*, ..., !=3.4.*`: the first Python 3 admitted is 3.5
        lowest = (lowest[0], lowest[1] + 1)
    return lowest, python2_only if lower[0] < 3 else False


def version_gated_by_pytest(path: str, read: Callable[[str], str | None]) -> bool:
    """Whether a `conftest.py` above `path` puts it in `collect_ignore` under a `sys.version_info` test
    (attrs: test files with annotations ignored below 3.6): the older Pythons never import it."""
    parts = path.split("/")
    for depth in range(len(parts) - 1, -1, -1):
        folder = "/".join(parts[:depth])
        conftest = f"{folder}/conftest.py" if folder else "conftest.py"
        relative = "/".join(parts[depth:])
        if relative in _version_gated_strings(_safe_read(read, conftest)):
            return True
    return False


def _version_gated_strings(text: str | None) -> set[str]:
    if not text or "collect_ignore" not in text or "version_info" not in text:
        return set()
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError):
        return set()
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and "version_info" in ast.unparse(node.test):
            block = ast.Module(body=node.body + node.orelse, type_ignores=[])
            if "collect_ignore" in ast.unparse(block):
                found |= {
                    c.value.removeprefix("./")
                    for c in ast.walk(block)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                }
    return found


_DOCS_DIRS = frozenset({"doc", "docs"})
_TOX_DOCS_ENV = re.compile(r"^testenv:[\w,{}-]*docs?\b")
_BASEPYTHON = re.compile(r"python(\d)\.(\d+)$")
_READTHEDOCS_PYTHON = re.compile(r"""^\s*(?:python|version)\s*:\s*["']?(\d)\.(\d+)["']?\s*$""", re.M)


def is_docs_path(path: str) -> bool:
    """A file of the documentation's own tree (`docs/conf.py`, `docs/ext/*.py`)."""
    return path.split("/", 1)[0] in _DOCS_DIRS


def docs_target(read: Callable[[str], str | None]) -> Target | None:
    """The Python the documentation is built with, when the project says (tox's docs environment
    `basepython`, `.readthedocs.yaml`'s Python): Sphinx runs `docs/conf.py` and its extensions there, not
    under the package's oldest Python."""
    tox = _safe_read(read, "tox.ini")
    if tox is not None:
        parser = configparser.ConfigParser(interpolation=None, strict=False)
        try:
            parser.read_string(tox)
        except configparser.Error:
            parser = configparser.ConfigParser()
        for section in parser.sections():
            match = _BASEPYTHON.match(parser.get(section, "basepython", fallback="").strip())
            if _TOX_DOCS_ENV.match(section) and match is not None:
                version = (int(match.group(1)), int(match.group(2)))
                return Target(version, f"basepython of [{section}] in tox.ini")
    for name in (".readthedocs.yaml", ".readthedocs.yml"):
        text = _safe_read(read, name)
        found = _READTHEDOCS_PYTHON.search(text) if text is not None else None
        if found is not None:
            return Target((int(found.group(1)), int(found.group(2))), f"the Python of {name}")
    return None


_EXAMPLE_DIRS = frozenset({"example", "examples"})
_TOX_FACTOR = re.compile(r"^\s*py\d+(?:\s*,\s*py\d+)*\s*:\s*")
_PATH_TOKEN = re.compile(r"[\w./-]+")


def is_example_path(path: str) -> bool:
    """A file of an `examples/` tree: code shown to users, commonly written for a newer Python than the
    oldest the package supports (aiokafka's and asyncssh's examples use `await` while 3.4 is listed)."""
    return any(part in _EXAMPLE_DIRS for part in path.split("/")[:-1])


def version_gated_by_tox(path: str, read: Callable[[str], str | None]) -> bool:
    """Whether tox.ini names `path` (or a folder holding it) only in commands of some Python factors
    (asyncssh: `py35,py36: {envpython} -m unittest discover -s tests_py35`): the older ones never read it."""
    tox = _safe_read(read, "tox.ini")
    if not tox:
        return False
    gated = False
    for line in tox.splitlines():
        factors = _TOX_FACTOR.match(line)
        command = line[factors.end() :] if factors else line
        for token in _PATH_TOKEN.findall(command):
            named = token.removeprefix("./").rstrip("/")
            if named and (path == named or path.startswith(f"{named}/")):
                if factors is None:
                    return False  # an unconditional command reads it too
                gated = True
    return gated


_SHEBANG_VERSION = re.compile(r"\A#![^\n]*\bpython(3)\.(\d+)\b")


def shebang_target(text: str, target: Target | None) -> Target | None:
    """The Python a script names on its `#!` line (`#!/usr/bin/env python3.6`), when newer than the
    project's `target`: run directly, the file runs under that one (python-devtools 0f9f375f's
    `docs/gen_html.py` uses f-strings in a project that still admits 3.5). Else `target`."""
    found = _SHEBANG_VERSION.match(text)
    if found is None or target is None or target.version is None:
        return target
    named = (int(found.group(1)), int(found.group(2)))
    return Target(named, "the file's `#!` line") if named > target.version else target
