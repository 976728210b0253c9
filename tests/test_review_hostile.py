"""A hostile repository cannot make a review run its programs, in any mode, from the CLI or the editor.

Also: no module outside `analysis/gitsafe.py` starts a process, so no git call can bypass the one layer
that pins every program-running setting off.
"""

from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from prscope.analysis import gitsafe

from tests.fakeapi import FakeModelServer, text_turn, tool_turn
from tests.gitrepo import GIT_ENV, GitRepo
from tests.hostile import configure_to_run, evil_script
from tests.test_server_support import lsp_session, stale_call_repo
from tests.test_subagents_harness import Router

ROOT = Path(__file__).resolve().parents[1]
PRSCOPE = Path(sys.executable).with_name("prscope")
PROCESS_STARTERS = {
    "subprocess": {"run", "Popen", "call", "check_call", "check_output", "getoutput", "getstatusoutput"},
    "os": {
        "system",
        "popen",
        "execv",
        "execve",
        "execvp",
        "execvpe",
        "execl",
        "execlp",
        "execle",
        "spawnv",
        "spawnve",
        "spawnvp",
        "spawnl",
        "spawnlp",
        "posix_spawn",
        "posix_spawnp",
        "fork",
        "forkpty",
    },
    "asyncio": {"create_subprocess_exec", "create_subprocess_shell"},
    "pty": {"spawn", "fork"},
}


def _process_starts(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in PROCESS_STARTERS:
            names = {alias.name for alias in node.names} & PROCESS_STARTERS[node.module]
            found += [f"{path.name}:{node.lineno} from {node.module} import {n}" for n in sorted(names)]
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        owner, attr = node.func.value, node.func.attr
        if isinstance(owner, ast.Name) and attr in PROCESS_STARTERS.get(owner.id, set()):
            found.append(f"{path.name}:{node.lineno} {owner.id}.{attr}")
    return found


def test_only_the_git_safety_layer_starts_processes() -> None:
    offenders = []
    for package in ("analysis", "server"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path != ROOT / "analysis" / "gitsafe.py":
                offenders += _process_starts(path)
    assert offenders == []
    assert _process_starts(ROOT / "analysis" / "gitsafe.py")  # the scan does see process starts


@pytest.fixture
def hostile(tmp_path: Path) -> tuple[GitRepo, Path, dict[str, str]]:
    """A stale caller on a feature branch, staged/unstaged/untracked edits, and a config that runs a
    script at every turn (fsmonitor, filters, textconv, external diff, pagers, hooks, an include)."""
    script, marker = evil_script(tmp_path)
    repo = stale_call_repo(tmp_path / "repo")
    repo.write(".gitattributes", "* diff=evil filter=evil\n")
    repo.commit("attributes")
    repo.write("worker.py", "def work(x):\n    breakpoint()\n    import pdb; pdb.set_trace()\n    return x\n")
    repo.git("add", "worker.py")
    repo.write("worker.py", "def work(x):\n    breakpoint()\n    return x * 4\n")
    repo.write("extra.py", "import pdb\npdb.set_trace()\n")
    configure_to_run(repo, script, tmp_path)
    env = {**os.environ, **GIT_ENV, "HOME": str(tmp_path / "home")}
    env.update({"GIT_EXTERNAL_DIFF": str(script), "GIT_PAGER": str(script), "PAGER": str(script)})
    env = {k: v for k, v in env.items() if not k.endswith("_API_KEY")}
    subprocess.run(["git", "status"], cwd=repo.root, env=env, capture_output=True, check=False)
    assert marker.exists(), "the repository is not really configured to run the script"
    marker.unlink()
    return repo, marker, env


@pytest.mark.parametrize(
    ("mode", "expected_rule"),
    [
        ([], "breaking-call"),  # no flag: the base is found (merge-base with main)
        (["--base", "main"], "breaking-call"),
        (["--commits", "main..feature"], "breaking-call"),
        (["--staged"], "debug-leftover"),
        (["--uncommitted"], "debug-leftover"),
    ],
)
def test_every_review_mode_leaves_the_repository_programs_unrun(
    hostile: tuple[GitRepo, Path, dict[str, str]], tmp_path: Path, mode: list[str], expected_rule: str
) -> None:
    repo, marker, env = hostile
    sarif = tmp_path / "out.sarif"
    argv = [str(PRSCOPE), "review", *mode, "--offline", "--format", "json", "--also", f"sarif={sarif}"]
    result = subprocess.run(argv, cwd=repo.root, env=env, capture_output=True, text=True, check=False)
    assert result.returncode in (0, 1), result.stderr
    report = json.loads(result.stdout)
    assert expected_rule in {finding["rule"] for finding in report["findings"]}
    assert not marker.exists(), marker.read_text()


@pytest.mark.asyncio
async def test_the_language_server_review_leaves_the_repository_programs_unrun(
    hostile: tuple[GitRepo, Path, dict[str, str]],
) -> None:
    repo, marker, env = hostile
    extra = {k: env[k] for k in ("HOME", "GIT_EXTERNAL_DIFF", "GIT_PAGER", "PAGER")}
    async with lsp_session(repo.root, env=extra) as session:
        branch = await session.review(mode="branch", base="main")
        staged = await session.review(mode="staged")
        uncommitted = await session.review(mode="uncommitted")
        document = session.open("extra.py")
        selection = {"start": {"line": 0, "character": 0}, "end": {"line": 2, "character": 0}}
        quick = await session.command("prscope.quickAnalysis", {"uri": document, "range": selection})
    assert any(f["rule"] == "breaking-call" for f in branch["findings"])
    assert any(f["rule"] == "debug-leftover" and f["path"] == "worker.py" for f in staged["findings"])
    assert any(f["rule"] == "debug-leftover" for f in uncommitted["findings"])
    assert [f["rule"] for f in quick["findings"]] == ["debug-leftover"]
    assert not marker.exists(), marker.read_text()


GIT_READING_TOOLS = tool_turn(
    ("git_history", {"path": "pkg/util.py", "mode": "log"}),
    ("git_history", {"path": "pkg/util.py", "mode": "blame", "start_line": 1, "end_line": 2}),
    ("search_text", {"pattern": "fetch"}),
    ("get_file_diff", {"path": "pkg/util.py"}),
    ("read_file", {"path": "worker.py"}),
    ("list_changed_files", {}),
)


def test_a_model_review_and_its_git_reading_tools_leave_the_repository_programs_unrun(
    hostile: tuple[GitRepo, Path, dict[str, str]], tmp_path: Path
) -> None:
    repo, marker, env = hostile
    router = Router({"main": [GIT_READING_TOOLS, text_turn("<findings>\n</findings>\n<summary>s</summary>")]})
    with FakeModelServer(responder=router) as server:
        model_env = {**env, "ANTHROPIC_API_KEY": "sk-ant-test-key-000", "ANTHROPIC_BASE_URL": server.base_url}
        argv = [str(PRSCOPE), "review", "--base", "main", "--format", "json", "--no-progress"]
        result = subprocess.run(
            argv, cwd=repo.root, env=model_env, capture_output=True, text=True, check=False
        )
    assert result.returncode == 1, result.stderr  # the stale call
    report = json.loads(result.stdout)
    assert report["status"] == "complete", report["status_reason"]
    answered = router.requests_of("main")[1].messages[-1]["content"]
    results = [block for block in answered if block.get("type") == "tool_result"]
    assert len(results) == 6 and not any(block.get("is_error") for block in results), results
    assert "fetch" in json.dumps(results[0])  # the log really ran and showed the file's history
    assert not marker.exists(), marker.read_text()


@pytest.mark.parametrize("target_exists", [True, False], ids=["edited-later", "created-later"])
def test_a_filter_added_later_through_an_included_file_runs_nothing(
    tmp_path: Path, target_exists: bool
) -> None:
    """A long-running process (the language server) must not keep blanking yesterday's filters."""
    script, marker = evil_script(tmp_path)
    repo = GitRepo(tmp_path / "repo")
    repo.write("a.py", "x = 1\n")
    repo.write(".gitattributes", "*.py filter=late\n")
    repo.commit("base")
    included = tmp_path / "later.cfg"
    if target_exists:
        included.write_text("[core]\n\tquotePath = false\n")
    repo.git("config", "include.path", str(included))
    gitsafe.run_git(repo.root, ["status", "--porcelain"])  # the overrides are read and cached here
    included.write_text(f'[filter "late"]\n\tclean = {script}\n')
    repo.write("a.py", "x = 2\n")
    gitsafe.run_git(repo.root, ["diff", "--stat"])
    gitsafe.run_git(repo.root, ["status", "--porcelain"])
    assert not marker.exists(), marker.read_text()
