"""File names and lines from a hostile repository cannot forge output lines, reach the terminal as escape
sequences, break SARIF URIs, or flood a report: every format, through the real CLI."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import unquote

import pytest

from tests.gitrepo import GIT_ENV, GitRepo

PRSCOPE = Path(sys.executable).with_name("prscope")
NEWLINE_NAME = "a\n::error file=forged.py,line=1::forged annotation.py"
ESCAPE_NAME = "b\x1b]0;owned title\x07\x1b[2J.py"
SPACE_NAME = "dir with space/c #1 100%?.py"
GITHUB_TOKEN = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
LONG_LINE = "x = [" + "0, " * 100_000 + f"]; KEY = '{GITHUB_TOKEN}'\n"
URI_REFERENCE = re.compile(r"^[A-Za-z0-9\-._~/%!$&'()*+,;=:@]*$")


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> GitRepo:
    repo = GitRepo(tmp_path_factory.mktemp("hostile-names") / "repo")
    repo.write("base.py", "x = 1\n")
    repo.commit("base")
    repo.checkout("-b", "feature")
    for name in (NEWLINE_NAME, ESCAPE_NAME, SPACE_NAME):
        repo.write(name, "def f():\n    breakpoint()\n")
    repo.write("long.py", LONG_LINE)
    repo.commit("hostile names and a 300 KB line")
    return repo


_OUTPUTS: dict[tuple[Path, str], str] = {}


def _review(repo: GitRepo, fmt: str) -> str:
    if (repo.root, fmt) not in _OUTPUTS:
        _OUTPUTS[(repo.root, fmt)] = _run_review(repo, fmt)
    return _OUTPUTS[(repo.root, fmt)]


def _run_review(repo: GitRepo, fmt: str) -> str:
    env = {k: v for k, v in {**os.environ, **GIT_ENV}.items() if not k.endswith("_API_KEY")}
    argv = [str(PRSCOPE), "review", "--base", "main", "--offline", "--no-progress", "--format", fmt]
    result = subprocess.run(argv, cwd=repo.root, env=env, capture_output=True, text=True, check=False)
    assert result.returncode == 1, result.stderr  # the secret is an error
    return result.stdout


@pytest.mark.parametrize("fmt", ["text", "markdown", "github"])
def test_no_forged_line_and_no_escape_sequence_in_human_formats(repo: GitRepo, fmt: str) -> None:
    output = _review(repo, fmt)
    lines = output.splitlines()
    assert "\x1b" not in output and "\x07" not in output
    if fmt == "github":
        assert all(line.startswith("::") for line in lines)
        assert not any(line.startswith("::error file=forged.py") for line in lines)
    else:
        assert not any(line.lstrip().startswith("::") for line in lines)
    forged = "a%0A%3A%3Aerror file=forged.py" if fmt == "github" else "a\\n::error file=forged.py"
    assert forged in output  # the name is shown, escaped, on its line
    assert "\\x1b]0;owned title\\x07" in output


@pytest.mark.parametrize("fmt", ["text", "markdown", "github", "sarif", "json", "rdjsonl"])
def test_a_huge_line_is_cut_around_the_finding(repo: GitRepo, fmt: str) -> None:
    output = _review(repo, fmt)
    assert "long.py" in output
    assert len(output) < 60_000, len(output)
    if fmt == "text":
        lines = output.splitlines()
        row = next(i for i, line in enumerate(lines) if line.startswith("      1 │ …0, 0"))
        assert "KEY = '" in lines[row] and len(lines[row]) < 300
        assert lines[row + 1].strip(" │").startswith("^")


def test_sarif_uris_are_percent_encoded_uri_references(repo: GitRepo) -> None:
    sarif = json.loads(_review(repo, "sarif"))
    uris = [
        location["physicalLocation"]["artifactLocation"]["uri"]
        for result in sarif["runs"][0]["results"]
        for location in result["locations"]
    ]
    assert {unquote(uri) for uri in uris} >= {NEWLINE_NAME, ESCAPE_NAME, SPACE_NAME, "long.py"}
    assert all(URI_REFERENCE.match(uri) for uri in uris), uris
