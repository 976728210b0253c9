"""git_history: who changed a file or a line range, and how (git log, git log -L, git blame).

Every git call goes through `run_git` (repository config cannot make git run a program) and reads
committed history only: blame runs on a commit, never on the working tree, so no clean filter runs.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from prscope.analysis.tools.base import SyncTool, ToolArgs, ToolContext, ToolError, bound_output
from prscope.analysis.tools.sandbox import run_git, sandbox_for
from pydantic import Field, model_validator

LOG_FORMAT = "--format=commit %h  %ad  %an%n    %s"
MAX_BLAME_LINES = 300


class GitHistoryArgs(ToolArgs):
    path: str = Field(description="File path relative to the repository root (may be deleted since).")
    mode: Literal["log", "blame"] = Field(
        "log",
        description=(
            "'log': the commits that changed the file, or (with a line range) how those lines evolved, "
            "with patches; 'blame': the last commit to touch each line of the range."
        ),
    )
    start_line: int | None = Field(None, ge=1, description="First line of the range (1-based).")
    end_line: int | None = Field(None, ge=1, description="Last line of the range (inclusive).")
    max_commits: int = Field(10, ge=1, le=50, description="Most commits to show (log mode).")
    rev: str | None = Field(
        None,
        description="Commit to start from (default: the reviewed head commit, else HEAD). Line numbers "
        "refer to the file as of this commit.",
    )

    @model_validator(mode="after")
    def _range_is_ordered(self) -> GitHistoryArgs:
        if self.end_line is not None and self.start_line is None:
            raise ValueError("end_line needs start_line")
        if self.start_line is not None and self.end_line is not None and self.end_line < self.start_line:
            raise ValueError("end_line is before start_line")
        return self


class GitHistoryTool(SyncTool[GitHistoryArgs]):
    name = "git_history"
    description = (
        "History of a file or of a line range in it: commit log (with the patches that touched the range) "
        "or blame (commit, date and author of each line). Reads committed history only."
    )
    args_model = GitHistoryArgs
    timeout_s = 45.0

    def run_sync(self, args: GitHistoryArgs, ctx: ToolContext) -> str:
        sandbox = sandbox_for(ctx)
        rel = sandbox.resolve(args.path, must_exist=False).rel
        if rel == ".":
            raise ToolError("path must name a file or directory of the repository")
        rev = self._revision(args.rev, ctx)
        if args.mode == "blame":
            return self._blame(sandbox.root, rel, rev, args)
        return self._log(sandbox.root, rel, rev, args)

    @staticmethod
    def _revision(rev: str | None, ctx: ToolContext) -> str:
        if rev is None:
            head = getattr(ctx.extras.get("changeset"), "head_sha", None)
            return head if isinstance(head, str) and head else "HEAD"
        rev = rev.strip()
        if not rev or rev.startswith("-") or any(c.isspace() for c in rev):
            raise ToolError(f"invalid revision {rev!r}")
        return rev

    def _log(self, root: Path, rel: str, rev: str, args: GitHistoryArgs) -> str:
        common = ["log", "--no-ext-diff", "--no-textconv", "--no-color", "--date=short", LOG_FORMAT]
        common += [f"--max-count={args.max_commits}"]
        verified = self._verify(root, rev)
        is_directory = (root / rel).is_dir()
        if is_directory and args.start_line is not None:
            raise ToolError(f"{rel} is a directory; a line range needs a file")
        if args.start_line is None:
            follow = [] if is_directory else ["--follow"]
            output = run_git(root, [*common, *follow, verified, "--", rel])
            what = f"commits that changed {rel} (newest first, up to {args.max_commits})"
            hint = "ask for fewer commits (max_commits)"
        else:
            end = args.end_line or args.start_line
            output = run_git(root, [*common, f"-L{args.start_line},{end}:{rel}", verified])
            what = f"history of {rel} lines {args.start_line}-{end} as of {rev} (newest first)"
            hint = "ask for fewer commits (max_commits) or a narrower line range"
        if not output.strip():
            return f"no commits touch {rel} (as of {rev})"
        return bound_output(f"{what}\n{output.rstrip()}", self.max_output_chars - 200, hint)

    def _blame(self, root: Path, rel: str, rev: str, args: GitHistoryArgs) -> str:
        if (root / rel).is_dir():
            raise ToolError(f"{rel} is a directory; blame needs a file")
        verified = self._verify(root, rev)
        start = args.start_line or 1
        end = args.end_line or (start + MAX_BLAME_LINES - 1 if args.start_line else MAX_BLAME_LINES)
        cut = end - start + 1 > MAX_BLAME_LINES
        end = min(end, start + MAX_BLAME_LINES - 1)
        output = run_git(
            root, ["blame", "--no-textconv", "--line-porcelain", f"-L{start},{end}", verified, "--", rel]
        )
        blamed = _parse_blame(output)
        rows = _rows_within(blamed, self.max_output_chars - 400)
        last = start + len(rows) - 1
        text = f"blame of {rel} lines {start}-{last} as of {rev}\n" + "\n".join(rows)
        if len(rows) < len(blamed):
            text += f"\n[blame cut at line {last} (output budget); call again with start_line={last + 1}]"
        elif cut or (args.end_line is None and len(rows) == MAX_BLAME_LINES):
            text += f"\n[blame shows at most {MAX_BLAME_LINES} lines; call again with start_line={end + 1}]"
        return text

    @staticmethod
    def _verify(root: Path, rev: str) -> str:
        output = run_git(
            root,
            ["rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}"],
            ok_codes=(0, 1),
        )
        sha = output.strip()
        if not sha:
            raise ToolError(f"unknown revision {rev!r}")
        return sha


def _rows_within(rows: list[str], char_budget: int) -> list[str]:
    """The leading rows whose text fits in `char_budget` (at least one)."""
    used = 0
    for count, row in enumerate(rows):
        used += len(row) + 1
        if used > char_budget and count > 0:
            return rows[:count]
    return rows


def _parse_blame(porcelain: str) -> list[str]:
    """One row per line: short commit, date, author, line number, text."""
    rows: list[str] = []
    commit = author = date = ""
    line_no = 0
    for raw in porcelain.splitlines():
        if raw.startswith("\t"):
            rows.append(f"{commit[:10]}  {date}  {author[:20]:<20} {line_no:>5}| {raw[1:]}")
            continue
        head, _, value = raw.partition(" ")
        if len(head) == 40 and all(c in "0123456789abcdef" for c in head):
            commit = head
            line_no = int(value.split()[1])
        elif head == "author":
            author = value
        elif head == "author-time":
            date = _iso_date(int(value))
    return rows


def _iso_date(epoch: int) -> str:
    return datetime.fromtimestamp(epoch, tz=UTC).strftime("%Y-%m-%d")
