"""Pick the commits of the real-history noise check (`noise_breaking.py --select`).

A commit qualifies when, in a Python file that is not a test, it really changes a definition the way the
stale-reference checks are about, decided by `ast` on both sides of each changed file (not by the patch
text): a function's or method's parameters change (names, kinds, defaults; annotations alone do not
count), or a top-level def/class or a method disappears (removed, renamed or moved; a deleted module
removes all its names). A cheap pass over `git log -U0` first keeps only commits whose patch removes a
`def`/`class` line; the `ast` comparison then decides.
"""

from __future__ import annotations

import ast
import re
import subprocess
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

REMOVED_DEF = re.compile(r"^-\s*(?:async\s+def|def|class)\s+\w")
TEST_PATH = re.compile(r"(^|/)(tests?|testing)/|(^|/)test_[^/]*\.py$|_tests?\.py$|(^|/)conftest\.py$")
Definitions = dict[str, tuple[object, ...] | None]


@dataclass(frozen=True)
class Change:
    path: str
    old_path: str | None
    new_path: str | None


def git_out(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, errors="replace")
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args)} in {repo}: {done.stderr.strip()}")
    return done.stdout


def prefiltered(repo: Path, head: str, scan: int) -> Iterator[str]:
    """Non-merge commits (newest first) among the last `scan` touching Python whose patch drops a def line."""
    command = ["git", "log", "--no-merges", "--format=@@commit %H", "-U0", "-n", str(scan), head]
    command += ["--", "*.py"]
    with subprocess.Popen(command, cwd=repo, stdout=subprocess.PIPE, text=True, errors="replace") as proc:
        assert proc.stdout is not None
        current, hit = "", False
        for line in proc.stdout:
            if line.startswith("@@commit "):
                if hit:
                    yield current
                current, hit = line.split()[1], False
            elif not hit and REMOVED_DEF.match(line):
                hit = True
        if hit:
            yield current


def changed_files(repo: Path, sha: str) -> list[Change]:
    rows = git_out(repo, "diff-tree", "-r", "-M", "--no-commit-id", "--name-status", f"{sha}^", sha)
    changes: list[Change] = []
    for row in rows.splitlines():
        status, *paths = row.split("\t")
        if status.startswith("R"):
            changes.append(Change(paths[1], paths[0], paths[1]))
        elif status.startswith("D"):
            changes.append(Change(paths[0], paths[0], None))
        elif status.startswith("M"):
            changes.append(Change(paths[0], paths[0], paths[0]))
    return [c for c in changes if c.path.endswith(".py") or (c.old_path or "").endswith(".py")]


def definitions(source: str | None) -> Definitions | None:
    """qualified name -> parameter shape for top-level defs/classes and methods (None for a class)."""
    if source is None:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    found: Definitions = {}
    for node in _top_level(tree.body):
        if isinstance(node, ast.ClassDef):
            found[node.name] = None
            for member in node.body:
                if isinstance(member, ast.FunctionDef | ast.AsyncFunctionDef):
                    found[f"{node.name}.{member.name}"] = _shape(member.args)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            found[node.name] = _shape(node.args)
    return found


def _top_level(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Module statements, looking into `if`/`try` blocks (conditional definitions are still top level)."""
    for node in body:
        if isinstance(node, ast.If):
            yield from _top_level(node.body)
            yield from _top_level(node.orelse)
        elif isinstance(node, ast.Try):
            for block in (node.body, node.orelse, node.finalbody, *(h.body for h in node.handlers)):
                yield from _top_level(block)
        else:
            yield node


def _shape(args: ast.arguments) -> tuple[object, ...]:
    return (
        tuple(a.arg for a in args.posonlyargs),
        tuple(a.arg for a in args.args),
        len(args.defaults),
        args.vararg is not None,
        tuple((a.arg, d is not None) for a, d in zip(args.kwonlyargs, args.kw_defaults, strict=True)),
        args.kwarg is not None,
    )


def _read(repo: Path, rev: str, path: str | None) -> str | None:
    if path is None:
        return ""
    done = subprocess.run(["git", "show", f"{rev}:{path}"], cwd=repo, capture_output=True, check=False)
    return done.stdout.decode("utf-8", "replace") if done.returncode == 0 else None


def reasons(repo: Path, sha: str) -> list[str]:
    """What the commit changes in non-test definitions ('removed Cls.meth', 'params f'); empty if nothing."""
    found: list[str] = []
    for change in changed_files(repo, sha):
        if TEST_PATH.search(change.path) or not change.path.endswith(".py"):
            continue
        old = definitions(_read(repo, f"{sha}^", change.old_path))
        new = definitions(_read(repo, sha, change.new_path))
        if old is None or new is None:
            continue
        for name, shape in old.items():
            if name.split(".")[-1].startswith("test"):
                continue
            if name not in new:
                found.append(f"removed {change.old_path}:{name}")
            elif shape is not None and new[name] is not None and shape != new[name]:
                found.append(f"params {change.path}:{name}")
    return found


def select(repo: Path, head: str, count: int, scan: int, max_files: int) -> list[dict[str, object]]:
    """`count` qualifying commits spread evenly over the qualifying ones among the last `scan` commits."""
    qualifying: list[dict[str, object]] = []
    for sha in prefiltered(repo, head, scan):
        if sha == head or len(changed_files(repo, sha)) > max_files:
            continue
        why = reasons(repo, sha)
        if why:
            qualifying.append({"commit": sha, "changes": why[:5], "changes_total": len(why)})
    if len(qualifying) <= count:
        return qualifying
    step = len(qualifying) / count
    return [qualifying[int(i * step)] for i in range(count)]
