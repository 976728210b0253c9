"""Every refusal of the path sandbox, and git that repository config cannot turn into code execution."""

from __future__ import annotations

import asyncio
import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
from prscope.analysis.tools.base import ToolCall, ToolContext, ToolError, ToolExecutor, ToolResult
from prscope.analysis.tools.registry import default_registry, make_tool_context
from prscope.analysis.tools.sandbox import Sandbox, is_secret_path

from tests.gitrepo import GitRepo


def call(ctx: ToolContext, tool: str, /, **arguments: Any) -> ToolResult:
    return asyncio.run(ToolExecutor(default_registry(), ctx).execute(ToolCall("t", tool, arguments)))


@pytest.fixture
def repo(git_repo: GitRepo, tmp_path: Path) -> GitRepo:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("OUTSIDE-CONTENT\n")
    git_repo.write("src/app.py", "import os\nTOKEN = os.environ['T']\n")
    git_repo.write(".env", "API_KEY=sk-live-ENVCONTENT\n")
    git_repo.write("config/.env.production", "DB_PASSWORD=ENVPROD\n")
    git_repo.write("deploy/server.pem", "-----BEGIN PRIVATE KEY-----PEMCONTENT\n")
    git_repo.write("deploy/id_rsa", "RSACONTENT\n")
    git_repo.write("home/.aws/credentials", "aws_secret_access_key=AWSCONTENT\n")
    git_repo.write("credentials.json", '{"token": "JSONCONTENT"}\n')
    os.symlink(outside / "secret.txt", git_repo.root / "src" / "escape.txt")
    os.symlink(outside, git_repo.root / "linkdir")
    os.symlink(git_repo.root / ".git" / "config", git_repo.root / "src" / "gitconfig-link")
    os.symlink("app.py", git_repo.root / "src" / "inner-link.py")
    git_repo.commit("init")
    return git_repo


@pytest.fixture
def ctx(repo: GitRepo) -> ToolContext:
    return make_tool_context(repo.root)


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("../outside/secret.txt", "escapes the repository"),
        ("src/../../outside/secret.txt", "escapes the repository"),
        ("..", "escapes the repository"),
        ("/etc/passwd", "absolute path outside the repository"),
        ("src/escape.txt", "symlink that resolves outside the repository"),
        ("linkdir/secret.txt", "symlink that resolves outside the repository"),
        (".git/config", "inside .git"),
        ("src/../.git/HEAD", "inside .git"),
        (".GIT/config", "inside .git"),
        ("src/gitconfig-link", "resolves into .git"),
        (".env", "looks like a secrets file"),
        ("config/.env.production", "looks like a secrets file"),
        ("deploy/server.pem", "looks like a secrets file"),
        ("deploy/id_rsa", "looks like a secrets file"),
        ("home/.aws/credentials", "looks like a secrets file"),
        ("credentials.json", "looks like a secrets file"),
    ],
)
def test_read_file_refuses(ctx: ToolContext, path: str, reason: str) -> None:
    result = call(ctx, "read_file", path=path)
    assert result.is_error
    assert result.content.startswith("Error: refused:")
    assert reason in result.content
    assert "CONTENT" not in result.content


def test_absolute_path_inside_the_repository_is_accepted(ctx: ToolContext, repo: GitRepo) -> None:
    result = call(ctx, "read_file", path=str(repo.root / "src" / "app.py"))
    assert not result.is_error
    assert result.content.startswith("src/app.py (lines 1-2 of 2)")


def test_dot_dot_that_stays_inside_and_inner_symlinks_are_fine(ctx: ToolContext) -> None:
    assert "TOKEN" in call(ctx, "read_file", path="src/../src/app.py").content
    assert "TOKEN" in call(ctx, "read_file", path="src/inner-link.py").content


def test_secret_files_are_readable_when_allowed(repo: GitRepo) -> None:
    ctx = make_tool_context(repo.root, allow_secret_files=True)
    result = call(ctx, "read_file", path=".env")
    assert not result.is_error and "ENVCONTENT" in result.content
    assert call(ctx, "read_file", path=".git/config").is_error
    assert call(ctx, "read_file", path="src/escape.txt").is_error


def test_search_skips_secret_files_and_escaping_symlinks(ctx: ToolContext) -> None:
    result = call(ctx, "search_text", pattern="CONTENT")
    assert not result.is_error
    assert "CONTENT" not in result.content.replace("'CONTENT'", "")
    assert "withheld files not shown" in result.content
    assert "0 matches" in result.content


def test_listings_name_secret_files_without_content(ctx: ToolContext) -> None:
    listing = call(ctx, "list_directory", path=".").content
    assert ".env  (secret-looking file: content withheld)" in listing
    assert "ENVCONTENT" not in listing
    found = call(ctx, "find_files", pattern="*.pem").content
    assert "deploy/server.pem  (secret-looking file: content withheld)" in found
    assert call(ctx, "list_directory", path="linkdir").is_error
    assert call(ctx, "list_directory", path=".git").is_error


def test_git_history_refuses_the_same_paths(ctx: ToolContext) -> None:
    for path in ("../x", ".git/HEAD", ".env", "/etc/passwd"):
        result = call(ctx, "git_history", path=path)
        assert result.is_error and "refused" in result.content, path


@pytest.mark.parametrize(
    "name",
    [
        ".env",
        ".env.local",
        "prod.env",
        "key.pem",
        "tls.key",
        "cert.p12",
        "store.pfx",
        "id_rsa",
        "id_rsa.pub",
        "id_ed25519",
        ".netrc",
        ".pypirc",
        ".npmrc",
        ".git-credentials",
        "credentials.json",
        ".aws/credentials",
        "x/.ssh/config",
        "terraform.tfstate",
    ],
)
def test_secret_patterns(name: str) -> None:
    assert is_secret_path(name)
    assert is_secret_path(f"deep/dir/{name}")


@pytest.mark.parametrize(
    "name", ["environment.py", "src/keys.py", "docs/env.md", "pem.txt", "credentials.py"]
)
def test_ordinary_files_are_not_secret(name: str) -> None:
    assert not is_secret_path(name)


def test_sandbox_resolve_reports_missing_files(repo: GitRepo) -> None:
    sandbox = Sandbox(repo.root)
    with pytest.raises(ToolError, match=r"no such file or directory: src/nope\.py"):
        sandbox.resolve("src/nope.py")
    assert sandbox.resolve("src/nope.py", must_exist=False).rel == "src/nope.py"
    assert sandbox.resolve(".").rel == "."


EVIL_SCRIPT = """#!/bin/sh
echo "$0 $*" >> {marker}
cat
"""


def test_repository_config_cannot_make_git_run_programs(
    repo: GitRepo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    marker = tmp_path / "ran.log"
    script = tmp_path / "evil.sh"
    script.write_text(EVIL_SCRIPT.format(marker=marker))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    repo.write(".gitattributes", "*.py diff=evil filter=evil\n")
    repo.write("src/app.py", "import os\nTOKEN = os.environ['T']\nprint(TOKEN)\n")
    repo.commit("second")
    repo.write("src/app.py", "changed in the working tree\n")
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    for hook in ("pre-commit", "post-checkout", "post-index-change", "fsmonitor-watchman"):
        (hooks / hook).symlink_to(script)
    for key, value in {
        "core.fsmonitor": str(script),
        "core.pager": str(script),
        "core.hooksPath": str(hooks),
        "diff.external": str(script),
        "diff.evil.textconv": str(script),
        "diff.evil.command": str(script),
        "filter.evil.clean": str(script),
        "filter.evil.smudge": str(script),
        "filter.evil.process": str(script),
        "pager.log": str(script),
        "pager.blame": str(script),
        "pager.grep": str(script),
        "core.sshCommand": str(script),
    }.items():
        repo.git("config", key, value)
    monkeypatch.setenv("GIT_EXTERNAL_DIFF", str(script))
    monkeypatch.setenv("GIT_PAGER", str(script))
    ctx = make_tool_context(repo.root)
    results = [
        call(ctx, "read_file", path="src/app.py"),
        call(ctx, "list_directory", path="src"),
        call(ctx, "find_files", pattern="*.py"),
        call(ctx, "search_text", pattern="TOKEN"),
        call(ctx, "search_text", pattern="TOKEN", fixed_string=True, glob="*.py"),
        call(ctx, "git_history", path="src/app.py"),
        call(ctx, "git_history", path="src/app.py", start_line=1, end_line=2),
        call(ctx, "git_history", path="src/app.py", mode="blame"),
    ]
    assert [r.content[:60] for r in results if r.is_error] == []
    assert "second" in results[5].content and "TOKEN = os.environ" in results[6].content
    assert "print(TOKEN)" in results[7].content and "changed in the working tree" in results[0].content
    assert not marker.exists(), marker.read_text()
    subprocess.run(["git", "-C", str(repo.root), "ls-files"], capture_output=True, check=False)
    assert marker.exists()  # proof that the repository really was configured to run it


def _evil_repository(repo: GitRepo, tmp_path: Path) -> Path:
    marker = tmp_path / "ran.log"
    script = tmp_path / "evil.sh"
    script.write_text(EVIL_SCRIPT.format(marker=marker))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    repo.write(".gitattributes", "*.py diff=evil filter=evil\n")
    repo.commit("attributes")
    for key in (
        "core.fsmonitor",
        "core.pager",
        "pager.grep",
        "pager.ls-files",
        "diff.evil.textconv",
        "filter.evil.clean",
        "filter.evil.smudge",
        "filter.evil.process",
    ):
        repo.git("config", key, str(script))
    return marker


def test_code_index_tools_do_not_run_configured_programs(repo: GitRepo, tmp_path: Path) -> None:
    marker = _evil_repository(repo, tmp_path)
    repo.write("src/app.py", "import os\nTOKEN = os.environ['T']\n\n\ndef use():\n    return TOKEN\n")
    ctx = make_tool_context(repo.root)
    assert "src/app.py:2  variable app.TOKEN" in call(ctx, "find_symbol", name="TOKEN").content
    assert "6:12 name  return TOKEN" in call(ctx, "find_usages", symbol="app.TOKEN").content
    assert "def use()" in call(ctx, "get_signature", path="src/app.py", line=6).content
    assert not marker.exists(), marker.read_text()
    subprocess.run(["git", "-C", str(repo.root), "status"], capture_output=True, check=False)
    assert marker.exists()  # proof that the repository really was configured to run it


def test_every_git_command_blanks_the_repository_filter_drivers(repo: GitRepo, tmp_path: Path) -> None:
    from prscope.analysis.gitsafe import filter_overrides, git_argv, git_env

    marker = tmp_path / "ran.log"
    script = tmp_path / "evil.sh"
    script.write_text(EVIL_SCRIPT.format(marker=marker))
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    repo.write(".gitattributes", "*.py filter=evil.v2\n")
    repo.commit("attributes")
    repo.write("src/app.py", "changed\n")
    for setting in ("clean", "smudge", "process"):
        repo.git("config", f"filter.evil.v2.{setting}", str(script))
    repo.git("config", "filter.evil.v2.required", "true")
    assert "filter.evil.v2.process=" in filter_overrides(repo.root)

    def diff(neutralize: bool) -> subprocess.CompletedProcess[bytes]:
        command = git_argv(repo.root, ["diff", "--stat"]) if neutralize else ["git", "diff", "--stat"]
        return subprocess.run(command, cwd=repo.root, capture_output=True, env=git_env(), check=False)

    safe = diff(True)
    assert safe.returncode == 0 and b"src/app.py" in safe.stdout
    assert not marker.exists()
    diff(False)
    assert marker.exists()  # proof that the repository really was configured to run it


def test_pathspec_magic_and_option_like_names_are_only_names(repo: GitRepo) -> None:
    for name in (":(glob)*.py", "--output=x", "-rf.py"):
        repo.write(name, "plain = 'MAGICNAME'\n")
    repo.commit("odd names")
    ctx = make_tool_context(repo.root)
    for name in (":(glob)*.py", "--output=x", "-rf.py"):
        assert "plain = 'MAGICNAME'" in call(ctx, "read_file", path=name).content
        assert "commit " in call(ctx, "git_history", path=name).content
        assert "MAGICNAME" in call(ctx, "git_history", path=name, mode="blame").content
    magic_directory = call(ctx, "list_directory", path=":(glob)**").content
    assert magic_directory == "Error: no such file or directory: :(glob)**"
    found = call(ctx, "search_text", pattern="MAGICNAME", fixed_string=True).content
    assert found.startswith("3 matches in 3 files")
    escaping_glob = call(ctx, "search_text", pattern="x", glob="../../*")
    assert escaping_glob.is_error and "refused: glob '../../*'" in escaping_glob.content
    assert call(ctx, "git_history", path="src/app.py", rev="--output=/tmp/x").is_error
    assert not (repo.root / "x").exists() and not Path("/tmp/x").exists()


def test_every_path_tool_refuses_every_escape(repo: GitRepo, tmp_path: Path) -> None:
    os.symlink(tmp_path / "outside" / "secret.txt", repo.root / "hop2")
    os.symlink("hop2", repo.root / "hop1")
    os.symlink("linkdir", repo.root / "dirhop")
    os.symlink(".git", repo.root / "gitlink")
    ctx = make_tool_context(repo.root)
    path_tools: list[tuple[str, dict[str, Any]]] = [
        ("read_file", {}),
        ("list_directory", {}),
        ("find_files", {"pattern": "*"}),
        ("search_text", {"pattern": "CONTENT"}),
        ("git_history", {}),
        ("find_usages", {"symbol": "os"}),
        ("get_signature", {"line": 1}),
    ]
    refused = ("src/app.py\x00.txt", "hop1", "dirhop/secret.txt", "gitlink/config", "gitlink", ".GIT")
    refused += (
        "../outside/secret.txt",
        "src/../../outside",
        "/etc",
        str(tmp_path / "outside"),
        "deploy/id_rsa",
    )
    for path in refused:
        for tool, extra in path_tools:
            result = call(ctx, tool, path=path, **extra)
            assert result.is_error and "refused" in result.content, (tool, path, result.content)
            assert "OUTSIDE-CONTENT" not in result.content and "[core]" not in result.content
