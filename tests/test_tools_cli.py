"""`prscope tool ...` through the real entry point and once as a real process."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from prscope.analysis.cli import main

from tests.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def repo(git_repo: GitRepo) -> GitRepo:
    git_repo.write("src/app.py", "def run(x: int) -> int:\n    return x\n\n\nVALUE = run(1)\n")
    git_repo.write("README.md", "hello\n")
    git_repo.write(".env", "TOKEN=abc\n")
    git_repo.commit("base")
    git_repo.git("checkout", "-q", "-b", "feature")
    git_repo.write(
        "src/app.py", "def run(x: int, y: int = 0) -> int:\n    return x + y\n\n\nVALUE = run(1)\n"
    )
    git_repo.commit("feature")
    return git_repo


def run_cli(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(["tool", *argv])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_list_names_every_tool(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "--list")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines()[1:]]
    assert sorted(names) == sorted(
        [
            "list_changed_files",
            "get_file_diff",
            "find_symbol",
            "find_usages",
            "get_signature",
            "read_file",
            "list_directory",
            "find_files",
            "search_text",
            "git_history",
        ]
    )


def test_prints_exactly_what_the_model_gets(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(
        capsys,
        "read_file",
        "--path",
        "src/app.py",
        "--start-line",
        "1",
        "--end-line",
        "2",
        "--repo",
        str(repo.root),
    )
    assert (code, err) == (0, "")
    assert out == "src/app.py (lines 1-2 of 5)\n1| def run(x: int, y: int = 0) -> int:\n2|     return x + y\n"


def test_json_output(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(
        capsys,
        "search_text",
        "--pattern",
        "run\\(",
        "--no-case-sensitive",
        "--max_results",
        "5",
        "--json",
        "--repo",
        str(repo.root),
    )
    assert code == 0
    payload = json.loads(out)
    assert payload["tool"] == "search_text"
    assert payload["arguments"] == {"pattern": "run\\(", "case_sensitive": False, "max_results": 5}
    assert payload["is_error"] is False
    assert payload["content"].startswith("2 matches in 1 file")


def test_tool_error_result_exits_1(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "read_file", "--path", ".env", "--repo", str(repo.root))
    assert code == 1
    assert out.startswith("Error: refused: '.env' looks like a secrets file")
    code, out, _ = run_cli(
        capsys, "read_file", "--path", ".env", "--repo", str(repo.root), "--allow-secret-files"
    )
    assert code == 0 and "TOKEN=abc" in out
    code, out, _ = run_cli(
        capsys, "read_file", "--path", "src/app.py", "--start-line", "0", "--json", "--repo", str(repo.root)
    )
    assert code == 1
    assert json.loads(out)["is_error"] is True


@pytest.mark.parametrize(
    "argv",
    [
        ["read_file"],
        ["read_file", "--path", "x", "--bogus", "1"],
        ["read_file", "--path", "x", "--start-line", "ten"],
        ["git_history", "--path", "x", "--mode", "praise"],
        ["no_such_tool"],
        [],
    ],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run_cli(capsys, *argv)
    assert code == 2
    assert out == ""
    assert "error" in err or "usage" in err


def test_tool_help_shows_its_arguments(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "search_text", "--help")
    assert code == 0
    for flag in (
        "--pattern",
        "--glob",
        "--case-sensitive",
        "--no-case-sensitive",
        "--max-results",
        "--offset",
    ):
        assert flag in out
    assert "Treat pattern as literal text" in out


def test_diff_tools_build_the_changeset_from_base(repo: GitRepo, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "list_changed_files", "--base", "main", "--repo", str(repo.root))
    assert code == 0
    assert out.splitlines()[1] == "M  src/app.py  (+2 -2)"
    code, out, _ = run_cli(
        capsys, "get_file_diff", "--path", "src/app.py", "--base", "main", "--repo", str(repo.root)
    )
    assert code == 0 and "+def run(x: int, y: int = 0) -> int:" in out


def test_repository_errors_are_one_line(
    repo: GitRepo, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, err = run_cli(capsys, "list_changed_files", "--base", "nope", "--repo", str(repo.root))
    assert code == 2 and out == ""
    assert err.startswith("prscope: error: ") and len(err.strip().splitlines()) == 1
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    code, _, err = run_cli(capsys, "read_file", "--path", "x", "--repo", str(outside))
    assert code == 2 and "not inside a git work tree" in err


def test_real_process(repo: GitRepo) -> None:
    executable = Path(sys.executable).parent / "prscope"
    if not executable.exists():
        executable = ROOT / ".venv" / "bin" / "prscope"
    result = subprocess.run(
        [str(executable), "tool", "find_files", "--pattern", "*.py", "--json"],
        cwd=repo.root / "src",
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["content"] == "1 file matches '*.py'\nsrc/app.py"


def test_parser_maps_every_argument_type() -> None:
    from typing import Literal

    from prscope.analysis.tools.base import Tool, ToolArgs, ToolContext
    from prscope.analysis.tools.cli import build_parser
    from pydantic import Field

    class Args(ToolArgs):
        names: list[str] = Field(description="Names.")
        counts: list[int] = Field(default_factory=list, description="Counts.")
        limit: int | None = Field(None, description="Limit.")
        ratio: float = Field(0.5, description="Ratio.")
        verbose: bool = Field(False, description="Verbose.")
        mode: Literal["a", "b"] = Field("a", description="Mode.")

    class Demo(Tool[Args]):
        name = "demo"
        description = "Demo."
        args_model = Args

        async def run(self, args: Args, ctx: ToolContext) -> str:
            return ""

    parser = build_parser(Demo())
    options = vars(
        parser.parse_args(
            [
                "--names",
                "x",
                "y",
                "--counts",
                "1",
                "2",
                "--limit",
                "3",
                "--ratio",
                "0.25",
                "--verbose",
                "--mode",
                "b",
            ]
        )
    )
    assert {k: options[k] for k in ("names", "counts", "limit", "ratio", "verbose", "mode")} == {
        "names": ["x", "y"],
        "counts": [1, 2],
        "limit": 3,
        "ratio": 0.25,
        "verbose": True,
        "mode": "b",
    }
    defaults = vars(parser.parse_args(["--names", "z"]))
    assert "limit" not in defaults and "verbose" not in defaults  # left to the model's defaults
    with pytest.raises(SystemExit):
        parser.parse_args(["--names", "z", "--mode", "c"])


EVERY_TOOL_ARGV = [
    ("read_file", {"path": "src/app.py", "start_line": 2}, ["--path", "src/app.py", "--start-line", "2"]),
    ("list_directory", {"path": "src"}, ["--path", "src"]),
    ("find_files", {"pattern": "*.md"}, ["--pattern", "*.md"]),
    ("search_text", {"pattern": "run", "context_lines": 1}, ["--pattern", "run", "--context-lines", "1"]),
    ("find_symbol", {"name": "run"}, ["--name", "run"]),
    ("find_usages", {"symbol": "src.app.run"}, ["--symbol", "src.app.run"]),
    ("get_signature", {"path": "src/app.py", "line": 2}, ["--path", "src/app.py", "--line", "2"]),
    ("git_history", {"path": "src/app.py", "mode": "blame"}, ["--path", "src/app.py", "--mode", "blame"]),
    ("list_changed_files", {}, ["--base", "main"]),
    ("get_file_diff", {"path": "src/app.py"}, ["--path", "src/app.py", "--base", "main"]),
]


@pytest.mark.parametrize(
    ("tool", "arguments", "argv"), EVERY_TOOL_ARGV, ids=[t for t, _, _ in EVERY_TOOL_ARGV]
)
def test_every_tool_prints_what_the_executor_gives_the_model(
    repo: GitRepo,
    capsys: pytest.CaptureFixture[str],
    tool: str,
    arguments: dict[str, object],
    argv: list[str],
) -> None:
    import asyncio

    from prscope.analysis.changeset import DiffSpec, load_changeset
    from prscope.analysis.tools.base import ToolCall, ToolExecutor
    from prscope.analysis.tools.registry import default_registry, make_tool_context

    ctx = make_tool_context(repo.root)
    if "--base" in argv:
        ctx.extras["changeset"] = load_changeset(repo.root, DiffSpec(base="main"), env={})
    expected = asyncio.run(ToolExecutor(default_registry(), ctx).execute(ToolCall("t", tool, arguments)))
    assert not expected.is_error, expected.content
    code, out, err = run_cli(capsys, tool, *argv, "--repo", str(repo.root))
    assert (code, err) == (0, "")
    assert out == expected.content + "\n"
    code, out, _ = run_cli(capsys, tool, *argv, "--repo", str(repo.root), "--json")
    assert code == 0 and json.loads(out)["content"] == expected.content
