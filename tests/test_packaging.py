"""prscope installs like a real tool (issue 22, item 1): one import package, `prscope`, so that no
top-level name of ours collides with another installed package.

The fast checks read the tree: pyproject's package list is exactly the folders that hold an
`__init__.py` (a new subpackage cannot be forgotten), every data file ships, and nothing names the old
top-level packages. The slow one does what a user does: a wheel built with the standard `build`
frontend (the sdist first, the wheel from it), installed with pip into a clean virtual environment
beside two real distributions named `server` and `analysis`; `prscope --version`, `prscope review` and
`prscope-server` from there, and language-server tests against the installed server; and `pipx install`
of the wheel.
"""

from __future__ import annotations

import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import time
import tomllib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from prscope import __version__
from tests.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]
SOURCES = ("pyproject.toml", "README.md", "prscope", "analysis", "server", "prompts")
OLD_NAMES = ("analysis", "server", "prompts")
# The language-server tests run against the installed server: a representative subset (a review,
# diagnostics following edits, findings restored from the run store).
INSTALLED_SERVER_TESTS = (
    "tests/test_server_review.py",
    "tests/test_server_edits.py",
    "tests/test_server_restore.py",
)


def _folders() -> dict[str, Path]:
    return {name: ROOT / folder for name, folder in SETUPTOOLS["package-dir"].items()}


def test_the_package_list_is_every_folder_with_an_init() -> None:
    found = set()
    for name, folder in _folders().items():
        for init in folder.rglob("__init__.py"):
            if "__pycache__" not in init.parts:
                found.add(".".join([name, *init.parent.relative_to(folder).parts]))
    assert sorted(SETUPTOOLS["packages"]) == sorted(found)


def test_every_data_file_of_the_packages_ships() -> None:
    data = SETUPTOOLS["package-data"]
    missing = []
    for name, folder in _folders().items():
        for path in folder.rglob("*"):
            if path.is_dir() or path.suffix in (".py", ".pyc") or "__pycache__" in path.parts:
                continue
            package = ".".join([name, *path.parent.relative_to(folder).parts])
            if not any(fnmatch.fnmatch(path.name, pattern) for pattern in data.get(package, [])):
                missing.append(f"{package}: {path.name}")
    assert missing == []


def _tracked_text_files() -> Iterator[Path]:
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    for name in listed.decode().split("\0"):
        path = ROOT / name
        text = path.suffix in (".py", ".ts", ".sh", ".yml", ".yaml", ".toml", ".json", ".md", ".mjs")
        if name and text and path.is_file() and path.resolve() != Path(__file__).resolve():
            yield path


def test_nothing_imports_or_runs_the_old_top_level_packages() -> None:
    names = "|".join(OLD_NAMES)
    patterns = [
        re.compile(rf"^\s*(?:from|import) (?:{names})\b(?!\.py)", re.MULTILINE),  # statements
        re.compile(rf"[\"'](?:from|import) (?:{names})\b"),  # code in strings (subprocesses)
        re.compile(rf"-m\s+[\"']?(?:{names})\b(?!\.)"),  # python -m server
        re.compile(rf"[\"']-m[\"'],\s*[\"'](?:{names})[\"']"),  # ["-m", "server"]
    ]
    offenders = [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, match.start()) + 1}: {match.group(0).strip()}"
        for path in _tracked_text_files()
        for text in [path.read_text(encoding="utf-8", errors="replace")]
        for pattern in patterns
        for match in pattern.finditer(text)
    ]
    assert offenders == []


def test_the_version_is_in_the_range_the_extension_supports() -> None:
    manifest = json.loads((ROOT / "editor-client" / "package.json").read_text(encoding="utf-8"))
    assert _satisfies(__version__, manifest["prscopeServer"]["versions"])


def _satisfies(version: str, supported: str) -> bool:
    """`version` in a range of space-separated comparators (editor-client/src/serverVersion.ts)."""
    release = tuple(int(part) for part in re.findall(r"\d+", version.split("+")[0])[:3])
    checks = {
        ">=": lambda a, b: a >= b,
        ">": lambda a, b: a > b,
        "<=": lambda a, b: a <= b,
        "<": lambda a, b: a < b,
        "==": lambda a, b: a == b,
    }
    for part in supported.split():
        match = re.fullmatch(r"(>=|<=|>|<|==)?(\d+(?:\.\d+)*)", part)
        assert match is not None, part
        bound = tuple(int(n) for n in match.group(2).split("."))
        width = max(len(release), len(bound))
        if not checks[match.group(1) or "=="](
            release + (0,) * (width - len(release)), bound + (0,) * (width - len(bound))
        ):
            return False
    return True


# --- the real install ----------------------------------------------------------------------------------


@dataclass
class Installed:
    venv: Path
    wheel: Path
    seconds: float

    def bin(self, name: str) -> str:
        return str(self.venv / "bin" / name)


def _run(
    command: list[str], env: dict[str, str], cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        command, cwd=cwd, env=env, capture_output=True, text=True, check=False, timeout=480
    )
    assert result.returncode == 0, (
        f"{command}: {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    )
    return result


def _clean_env(**extra: str) -> dict[str, str]:
    """This environment without our virtual environment, model keys, or test-server override."""
    drop = (
        "VIRTUAL_ENV",
        "PYTHONPATH",
        "PYTHONHOME",
        "PRSCOPE_TEST_SERVER",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
    )
    env = {k: v for k, v in os.environ.items() if k not in drop}
    env["PATH"] = os.pathsep.join(
        p for p in env.get("PATH", "").split(os.pathsep) if not p.startswith(sys.prefix)
    )
    return {**env, "PIP_DISABLE_PIP_VERSION_CHECK": "1", **extra}


def _tiny_distribution(root: Path, name: str) -> Path:
    """A real distribution whose one package has a name of ours: `server` or `analysis`."""
    (root / name).mkdir(parents=True)
    (root / name / "__init__.py").write_text(f'WHO = "the other {name}"\n', encoding="utf-8")
    (root / "pyproject.toml").write_text(
        "[build-system]\nrequires = ['setuptools>=61']\nbuild-backend = 'setuptools.build_meta'\n\n"
        f"[project]\nname = '{name}'\nversion = '1.0'\n\n[tool.setuptools]\npackages = ['{name}']\n",
        encoding="utf-8",
    )
    return root


@pytest.fixture(scope="session")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """prscope's sdist and wheel, built by `python -m build` from a copy of the sources (the wheel is built
    from the sdist, so the sdist is checked complete too)."""
    work = tmp_path_factory.mktemp("build")
    source = work / "source"
    for entry in SOURCES:
        if (ROOT / entry).is_dir():
            shutil.copytree(ROOT / entry, source / entry, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            source.mkdir(exist_ok=True)
            shutil.copy2(ROOT / entry, source / entry)
    _run([sys.executable, "-m", "build", "--outdir", str(work / "dist"), str(source)], env=_clean_env())
    (built,) = (work / "dist").glob("prscope-*.whl")
    return built


@pytest.fixture(scope="module")
def installed(wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Installed:
    """A clean virtual environment holding the wheel and two distributions named `server` and `analysis`."""
    work = tmp_path_factory.mktemp("install")
    venv = work / "venv"
    _run([sys.executable, "-m", "venv", str(venv)], env=_clean_env())
    others = [str(_tiny_distribution(work / f"dist-{name}", name)) for name in ("server", "analysis")]
    started = time.perf_counter()
    _run([str(venv / "bin" / "python"), "-m", "pip", "install", str(wheel), *others], env=_clean_env())
    return Installed(venv, wheel, time.perf_counter() - started)


def _review_repo(root: Path) -> GitRepo:
    """A repository whose own top-level folders are named `server` and `analysis` too, with a change
    that leaves a breakpoint() behind."""
    repo = GitRepo(root)
    repo.write("server/__init__.py", 'WHO = "the repository\'s server"\n')
    repo.write("analysis/__init__.py", "")
    repo.write("server/work.py", "def work(x):\n    return x * 2\n")
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("server/work.py", "def work(x):\n    breakpoint()\n    return x * 2\n")
    repo.commit("debugging")
    return repo


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_wheel_installs_beside_packages_named_server_and_analysis(
    installed: Installed, tmp_path: Path
) -> None:
    python = installed.bin("python")
    both = _run(
        [
            python,
            "-c",
            "import server, analysis, prscope.server, prscope.analysis; print(server.WHO, '|', analysis.WHO)",
        ],
        cwd=tmp_path,
        env=_clean_env(),
    )
    assert both.stdout.strip() == "the other server | the other analysis"
    version = _run([installed.bin("prscope"), "--version"], env=_clean_env()).stdout.strip()
    assert version == f"prscope {__version__}"
    # (from another folder than this checkout, whose prscope/ folder `-m` would put first)
    from_elsewhere = _run([python, "-m", "prscope", "--version"], env=_clean_env(), cwd=tmp_path)
    assert from_elsewhere.stdout.strip() == version

    repo = _review_repo(tmp_path / "repo")
    reviewed = subprocess.run(
        [installed.bin("prscope"), "review", "--base", "main", "--format", "json", "--no-progress"],
        cwd=repo.root,
        env=_clean_env(),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert reviewed.returncode == 0, reviewed.stderr
    report = json.loads(reviewed.stdout)
    assert report["status"] == "offline" and report["tool"]["version"] == __version__
    assert [(f["rule"], f["path"], f["line"]) for f in report["findings"]] == [
        ("debug-leftover", "server/work.py", 2)
    ]


@pytest.mark.slow
@pytest.mark.timeout(900)
async def test_the_installed_prscope_server_answers_initialize(installed: Installed, tmp_path: Path) -> None:
    config = ClientServerConfig(server_command=[installed.bin("prscope-server")], server_env=_clean_env())
    client = await config.start()
    assert isinstance(client, LanguageClient)
    try:
        result = await client.initialize_session(
            types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=tmp_path.as_uri())
        )
    finally:
        await client.shutdown_session()
        await client.stop()
    assert result.server_info is not None
    assert (result.server_info.name, result.server_info.version) == ("prscope", __version__)


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_language_server_tests_pass_against_the_installed_server(installed: Installed) -> None:
    """Some of the language server's own tests, with PRSCOPE_TEST_SERVER naming the installed
    `prscope-server` (tests/test_server_support.py)."""
    env = {
        **{k: v for k, v in os.environ.items() if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY")},
        "PRSCOPE_TEST_SERVER": installed.bin("prscope-server"),
    }
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *INSTALLED_SERVER_TESTS],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        check=False,
        timeout=840,
    )
    assert result.returncode == 0, result.stdout[-5000:] + result.stderr[-2000:]
    assert re.search(r"\b\d+ passed\b", result.stdout) and " failed" not in result.stdout


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_pipx_installs_the_wheel(wheel: Path, tmp_path: Path) -> None:
    home = tmp_path / "pipx"
    env = _clean_env(
        PIPX_HOME=str(home), PIPX_BIN_DIR=str(home / "bin"), PIPX_MAN_DIR=str(home / "man"), USE_EMOJI="0"
    )
    pipx = Path(sys.executable).with_name("pipx")
    _run([str(pipx), "install", str(wheel)], env=env)
    assert (
        _run([str(home / "bin" / "prscope"), "--version"], env=env).stdout.strip() == f"prscope {__version__}"
    )
    assert (home / "bin" / "prscope-server").exists()
