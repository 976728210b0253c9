"""The model-facing tool set, and the context the tools run in for one repository."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from prscope.analysis import gitsafe
from prscope.analysis.errors import RepositoryError
from prscope.analysis.tools.base import Tool, ToolContext, ToolRegistry
from prscope.analysis.tools.code_tools import FindSymbolTool, FindUsagesTool, GetSignatureTool
from prscope.analysis.tools.diff_tools import GetFileDiffTool, ListChangedFilesTool
from prscope.analysis.tools.files import FindFilesTool, ListDirectoryTool, ReadFileTool
from prscope.analysis.tools.git_history import GitHistoryTool
from prscope.analysis.tools.sandbox import Sandbox
from prscope.analysis.tools.search import SearchTextTool

if TYPE_CHECKING:
    from prscope.analysis.changeset import ChangeSet
    from prscope.analysis.intel import CodeIndex

CODE_TOOL_NAMES = (
    "find_symbol",
    "find_usages",
    "get_signature",
    "read_file",
    "list_directory",
    "find_files",
    "search_text",
    "git_history",
)
DIFF_TOOL_NAMES = ("list_changed_files", "get_file_diff")


def all_tools() -> list[Tool[Any]]:
    return [
        ListChangedFilesTool(),
        GetFileDiffTool(),
        FindSymbolTool(),
        FindUsagesTool(),
        GetSignatureTool(),
        ReadFileTool(),
        ListDirectoryTool(),
        FindFilesTool(),
        SearchTextTool(),
        GitHistoryTool(),
    ]


def default_registry() -> ToolRegistry:
    """Every read-only repository tool; agent-specific tools (subagents) are registered by their owners."""
    return ToolRegistry(all_tools())


def find_repo_root(path: Path) -> Path:
    """The top level of the git work tree containing `path`; RepositoryError when there is none."""
    start = path if path.is_dir() else path.parent
    if not start.exists():
        raise RepositoryError(f"{path} does not exist")
    result = gitsafe.run_git(start, ["rev-parse", "--show-toplevel"])
    top = result.stdout.decode("utf-8", "surrogateescape").strip()
    if result.returncode != 0 or not top:
        raise RepositoryError(f"{path} is not inside a git work tree")
    return Path(top)


def make_tool_context(
    repo_path: Path,
    *,
    changeset: ChangeSet | None = None,
    code_index: CodeIndex | None = None,
    allow_secret_files: bool = False,
    agent_id: str = "main",
    depth: int = 0,
) -> ToolContext:
    """A ToolContext for the repository containing `repo_path`.

    `changeset` (an analysis.changeset.ChangeSet) feeds list_changed_files / get_file_diff; `code_index`
    (an analysis.intel.CodeIndex) is shared with the checks when given, else built on first use.
    """
    root = find_repo_root(repo_path.resolve())
    ctx = ToolContext(repo_root=root, agent_id=agent_id, depth=depth, allow_secret_files=allow_secret_files)
    ctx.extras["sandbox"] = Sandbox(root, allow_secret_files=allow_secret_files)
    if changeset is not None:
        ctx.extras["changeset"] = changeset
    if code_index is not None:
        ctx.extras["code_index"] = code_index
    return ctx


def child_context(parent: ToolContext, *, agent_id: str, depth: int) -> ToolContext:
    """A subagent's context: same repository, sandbox, change set and index; its own identity."""
    return ToolContext(
        repo_root=parent.repo_root,
        agent_id=agent_id,
        depth=depth,
        extras=dict(parent.extras),
        allow_secret_files=parent.allow_secret_files,
    )
