"""The lines of a pull request's diff as GitHub shows them (new side, added and context lines of each
hunk), read with plain git: written independently of prscope's diff parser, which it checks."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

_FILE = re.compile(r"^\+\+\+ b/(.*)$")
_HUNK = re.compile(r"^@@ -\d+(?:,\d+)? \+(\d+)(?:,(\d+))? @@")


def pull_request_lines(repo: Path, base: str, head: str) -> dict[str, frozenset[int]]:
    diff = subprocess.run(
        ["git", "diff", "-U3", "--no-color", "--no-ext-diff", f"{base}...{head}"],
        cwd=repo,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    lines: dict[str, set[int]] = {}
    path: str | None = None
    for row in diff.splitlines():
        if match := _FILE.match(row):
            path = match.group(1)
        elif (match := _HUNK.match(row)) and path is not None:
            start, count = int(match.group(1)), int(match.group(2) or "1")
            lines.setdefault(path, set()).update(range(start, start + count))
    return {p: frozenset(found) for p, found in lines.items()}
