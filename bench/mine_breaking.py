"""Mine `breaking-call` and `dangling-reference` cases from a repository's history.

Follows /work/shared/bench/README.md (the definition the dev set `breaking-dev.json` was mined with):
a real commit `c` changed one file (`def_file`) so that code in other files broke, and fixed that code
in the same commit. The stale PR is `def_file` at `c` and every other file at `c^`.

- breaking-call: a module-level function or a method (of a module-level class) whose parameters
  changed in a way a caller can feel (`reason`: new required positional / new required keyword /
  param removed/renamed / positional slots reduced / positional reorder). `Class.__init__` counts,
  with `Class(...)` calls as its sites.
- dangling-reference: a module-level function or class, or a method, that exists at `c^` and is bound
  nowhere in `def_file` (or its class) at `c`; `reason` is `renamed` when a fixed line swapped it for a
  name the commit added next to it, else `removed`.

Sites (ground truth and neutral) are computed by bench/breaking_cases.py. One stale PR per (commit,
def_file): every case of it carries the union of the neutral sites of all its changes (also those
without ground truth), plus the lines of def_file that use names which exist only at `c` in the
commit's other files. Limits: commits changing more than 40 Python files are skipped; cases with more
than 40 ground-truth sites are dropped and their sites become neutral.

The miner shares no code with the checker (analysis/): it reads git and `ast`, and binds calls with
`inspect.Signature.bind`.

    python bench/mine_breaking.py REPO_DIR owner/name [--max-commits N] [--since DATE] > cases.json
"""

from __future__ import annotations

import argparse
import ast
import fnmatch
import json
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from breaking_cases import Change, CommitView, FileChange, Site, find_sites, renamed
from breaking_repo import Blobs, FileIndex, Resolver, Snapshot, TopLevelRefs, git
from breaking_sigs import (
    Summary,
    breaking_reason,
    call_shape,
    fits_old_breaks_new,
    is_property,
    shape_key,
    signature,
    summarize,
    takes_receiver,
)
from mine_rules import MAX_FILES, MAX_SITES

_COMMIT_MARK = "@@@COMMIT "


def commits(
    repo: Path, rev: str, max_commits: int | None, since: str | None
) -> Iterator[tuple[str, str, list[str]]]:
    """(sha, parent, raw diff rows) of every non-merge commit touching Python files, newest first."""
    args = [
        "git",
        "log",
        rev,
        "--no-merges",
        "--raw",
        "--no-renames",
        "--no-abbrev",
        f"--format={_COMMIT_MARK}%H %P",
    ]
    if max_commits:
        args.append(f"--max-count={max_commits}")
    if since:
        args.append(f"--since={since}")
    process = subprocess.Popen(
        [*args, "--", "*.py"], cwd=repo, stdout=subprocess.PIPE, text=True, errors="replace"
    )
    assert process.stdout is not None
    current: tuple[str, str] | None = None
    rows: list[str] = []
    for raw in process.stdout:
        line = raw.rstrip("\n")
        if line.startswith(_COMMIT_MARK):
            if current is not None:
                yield current[0], current[1], rows
            shas = line[len(_COMMIT_MARK) :].split()
            current = (shas[0], shas[1] if len(shas) == 2 else "")
            rows = []
        elif line.startswith(":"):
            rows.append(line)
    if current is not None:
        yield current[0], current[1], rows
    process.wait()


def parse_raw(rows: list[str]) -> dict[str, FileChange]:
    files = {}
    for row in rows:
        meta, _, path = row.partition("\t")
        parts = meta.split()
        if len(parts) == 5 and path.endswith(".py") and not path.startswith('"'):
            files[path] = FileChange(parts[4][:1], parts[2], parts[3])
    return files


def read_patch(repo: Path, parent: str, sha: str, files: dict[str, FileChange]) -> None:
    """Changed old lines, insertion points and each hunk's new text, for every file, from `git diff -U0`."""
    patch = git(repo, "diff", "-U0", "--no-renames", "--no-color", parent, sha, "--", "*.py")
    path = ""
    old: list[str] = []
    new: list[str] = []
    start = 0

    def flush() -> None:
        change = files.get(path)
        if change is None or not (old or new):
            return
        if not old:
            change.gaps.add(start)
        for offset in range(len(old)):
            change.removed.add(start + offset)
            change.hunk_after[start + offset] = "\n".join(new)

    in_hunk = False
    for line in patch.splitlines():
        if line.startswith("diff --git "):
            flush()
            old, new, path, in_hunk = [], [], "", False
        elif not in_hunk and line.startswith(("--- a/", "+++ b/")):
            path = line[6:]
        elif line.startswith("@@ "):
            flush()
            old, new, in_hunk = [], [], True
            start = int(line.split()[1][1:].split(",")[0])  # the old side: -a[,b]
        elif in_hunk and line.startswith("-"):
            old.append(line[1:])
        elif in_hunk and line.startswith("+"):
            new.append(line[1:])
    flush()


class Miner:
    def __init__(self, repo: Path, name: str, skip: list[str] | None = None) -> None:
        self.repo = repo
        self.name = name
        self.skip = skip or []
        self.blobs = Blobs(repo)
        self._summaries: dict[str, Summary] = {}

    def summary(self, blob: str) -> Summary | None:
        if blob not in self._summaries:
            tree = self.blobs.tree(blob)
            if tree is None:
                return None
            if len(self._summaries) > 4000:
                self._summaries.clear()
            self._summaries[blob] = summarize(tree)
        return self._summaries[blob]

    def changes(self, files: dict[str, FileChange]) -> list[Change]:
        found: list[Change] = []
        for path, change in sorted(files.items()):
            if change.status != "M":
                continue
            old, new = self.summary(change.old_blob), self.summary(change.new_blob)
            if old is not None and new is not None:
                found += changes_between(path, old, new)
        return found

    def mine_commit(self, sha: str, parent: str, rows: list[str]) -> list[dict[str, Any]]:
        files = parse_raw(rows)
        if not parent or len(files) > MAX_FILES or sum(f.status == "M" for f in files.values()) < 2:
            return []
        changes = [c for c in self.changes(files) if not _skipped(c.def_file, self.skip)]
        if not any(c.kind != "variable" for c in changes):
            return []
        read_patch(self.repo, parent, sha, files)
        before = Snapshot.at(self.blobs, parent)
        view = CommitView(sha, parent, files, before, Resolver(before), Snapshot(self.blobs, sha))
        for change in changes:
            find_sites(view, change)
        cases: list[dict[str, Any]] = []
        for def_file in sorted({c.def_file for c in changes}):
            group = [c for c in changes if c.def_file == def_file]
            cases += self.stale_pr(view, def_file, group)
        for number, case in enumerate(cases, 1):
            case["id"] = f"{self.name.split('/')[-1]}-{sha[:10]}-{number}"
        return cases

    def stale_pr(self, view: CommitView, def_file: str, group: list[Change]) -> list[dict[str, Any]]:
        kept = [c for c in group if c.kind != "variable" and 0 < len(c.gt) <= MAX_SITES]
        if not kept:
            return []
        neutral: set[Site] = set()
        for change in group:
            neutral |= change.neutral
            if change.gt:
                neutral |= change.mentions
            if len(change.gt) > MAX_SITES:
                neutral |= change.gt
        neutral |= self.def_file_neutral(view, def_file)
        truth = set().union(*(c.gt for c in kept))
        neutral -= truth
        old = self.summary(view.files[def_file].old_blob)
        new = self.summary(view.files[def_file].new_blob)
        assert old is not None and new is not None
        cases = []
        for change in sorted(kept, key=lambda c: (c.kind, c.symbol)):
            if change.kind == "dangling-reference":
                change.reason = (
                    "renamed" if renamed(view, change, _added_names(old, new, change.cls)) else "removed"
                )
            cases.append(
                {
                    "id": "",
                    "repo": self.name,
                    "commit": view.sha,
                    "parent": view.parent,
                    "kind": change.kind,
                    "def_file": def_file,
                    "symbol": change.symbol,
                    "reason": change.reason,
                    "ground_truth": [list(site) for site in sorted(change.gt)],
                    "neutral": [list(site) for site in sorted(neutral)],
                }
            )
        return cases

    def def_file_neutral(self, view: CommitView, def_file: str) -> set[Site]:
        """Lines of def_file (at the commit) that use what exists only at the commit in the other files:
        module-level names the commit added there (or in files it added), and calls that fit a changed
        function's or method's new parameters but not its parent's."""
        added: set[tuple[str, str]] = set()
        changed: dict[tuple[str, str], Change] = {}
        methods: dict[str, list[Change]] = {}
        for path, file in view.files.items():
            old = self.summary(file.old_blob) if file.status == "M" else Summary()
            new = self.summary(file.new_blob) if file.status in ("M", "A") else None
            if path == def_file or old is None or new is None:
                continue
            added |= {(path, name) for name in set(new.bindings) - set(old.bindings)}
            for change in changes_between(path, old, new) if file.status == "M" else []:
                if change.kind == "breaking-call" and change.cls is None:
                    changed[(path, change.name)] = change
                elif change.kind == "breaking-call":
                    methods.setdefault(change.name, []).append(change)
        if not added and not changed and not methods:
            return set()  # an added file adds names too, so this also covers imports of added modules
        after = Snapshot.at(self.blobs, view.sha)
        refs = TopLevelRefs(Resolver(after), added | set(changed), follow=False)
        sites = set()
        for ref in refs.refs_in(def_file):
            key = next(((f, n) for f, n in changed if n == _ref_name(ref)), None)
            call = ref.parent if isinstance(ref.parent, ast.Call) and ref.parent.func is ref.node else None
            if key is None or (call is not None and _fails_parent(changed[key], call)):
                sites.add((def_file, ref.line))
        index = after.index(def_file)
        new_files = {path for path, file in view.files.items() if file.status == "A"}
        sites |= _imports_of(Resolver(after), def_file, index, new_files)
        for name, method_changes in methods.items():
            for use in index.attrs.get(name, []) if index is not None else []:
                call = use.parent if isinstance(use.parent, ast.Call) else None
                fails = call is not None and call.func is use.node and _fails_any(method_changes, call)
                if fails and call is not None:
                    sites.add((def_file, call.func.end_lineno or call.lineno))
        return sites


def _imports_of(resolver: Resolver, path: str, index: FileIndex | None, targets: set[str]) -> set[Site]:
    """Import lines of `path` that import one of the target module files."""
    sites: set[Site] = set()
    for found in index.imports if index is not None and targets else []:
        node = found.node
        if isinstance(node, ast.Import):
            modules = [(alias, resolver.module_file(path, alias.name, 0)) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            source = resolver.module_file(path, base, node.level)
            modules = [(alias, source) for alias in node.names]
            modules += [
                (alias, resolver.module_file(path, f"{base}.{alias.name}".strip("."), node.level))
                for alias in node.names
            ]
        else:
            continue
        sites |= {
            (path, getattr(alias, "lineno", 0) or node.lineno)
            for alias, module in modules
            if module in targets
        }
    return sites


def _ref_name(ref: Any) -> str:
    node = ref.node
    if isinstance(node, ast.alias):
        return node.name
    return node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""


def _fails_any(changes: list[Change], call: ast.Call) -> bool:
    return any(_fails_parent(change, call) for change in changes)


def _fails_parent(change: Change, call: ast.Call) -> bool:
    """A call written for the commit's signature that the parent's signature rejects (or reads otherwise)."""
    method = change.cls is not None
    old = signature(change.old, method and takes_receiver(change.old)) if change.old is not None else None
    new = signature(change.new, method and takes_receiver(change.new)) if change.new is not None else None
    shape = call_shape(call)
    return (
        old is not None
        and new is not None
        and shape is not None
        and fits_old_breaks_new(new, old, shape) is True
    )


def _skipped(path: str, globs: list[str]) -> bool:
    return any(fnmatch.fnmatch(path, glob) for glob in globs)


def _added_names(old: Summary, new: Summary, cls: str | None) -> set[str]:
    """Defs and classes the commit added next to a removed name: module level, or methods of its class."""
    if cls is None:
        return {n for n, kind in new.bindings.items() if kind in ("def", "class") and n not in old.bindings}
    before, after = old.classes.get(cls), new.classes.get(cls)
    return set(after.methods) - before.members if before and after else set()


def changes_between(path: str, old: Summary, new: Summary) -> list[Change]:
    """Signature changes and removals of one file between two summaries."""
    found: list[Change] = []
    for name, node in old.functions.items():
        after = new.functions.get(name)
        if node is not None and after is not None:
            found += _signature_change(path, None, name, node, after)
    for name, kind in old.bindings.items():
        if name not in new.bindings and name not in new.getattr_strings:
            kind_of = "dangling-reference" if kind in ("def", "class") else "variable"
            if kind != "import":
                found.append(Change(kind_of, path, None, name, alive=set(new.bindings)))
    for cls, info in old.classes.items():
        after_info = new.classes.get(cls)
        if after_info is None:
            continue
        for name, node in info.methods.items():
            after_node = after_info.methods.get(name)
            if (
                node is not None
                and after_node is not None
                and not (is_property(node) or is_property(after_node))
            ):
                found += _signature_change(path, cls, name, node, after_node)
            elif name not in after_info.members and not (name.startswith("__") and name.endswith("__")):
                found.append(Change("dangling-reference", path, cls, name))
    return found


def _signature_change(path: str, cls: str | None, name: str, old: Any, new: Any) -> list[Change]:
    drop = cls is not None
    if drop and name not in ("__init__",) and takes_receiver(old) != takes_receiver(new):
        return []
    old_sig = signature(old, drop and takes_receiver(old))
    new_sig = signature(new, drop and takes_receiver(new))
    if old_sig is None or new_sig is None or shape_key(old_sig) == shape_key(new_sig):
        return []
    reason = breaking_reason(old_sig, new_sig)
    return [Change("breaking-call", path, cls, name, reason, old, new)] if reason else []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("repo", type=Path)
    parser.add_argument("name", help="owner/name, recorded in each case")
    parser.add_argument("--max-commits", type=int, help="only the newest N commits touching Python files")
    parser.add_argument("--since", help="only commits after this date (git log --since)")
    parser.add_argument("--rev", default="HEAD", help="walk the history from this revision (default HEAD)")
    parser.add_argument("--only", help="only this commit (a sha prefix)")
    parser.add_argument(
        "--skip", action="append", default=[], help="no def_file matching this glob (vendored code)"
    )
    args = parser.parse_args(argv)
    miner = Miner(args.repo, args.name, args.skip)
    cases: list[dict[str, Any]] = []
    seen = 0
    started = time.monotonic()
    for sha, parent, rows in commits(args.repo, args.rev, args.max_commits, args.since):
        if args.only and not sha.startswith(args.only):
            continue
        seen += 1
        try:
            cases += miner.mine_commit(sha, parent, rows)
        except (RecursionError, RuntimeError) as error:
            print(f"skip {sha[:10]}: {error}", file=sys.stderr)
        if seen % 500 == 0:
            print(f"  {seen} commits, {len(cases)} cases, {time.monotonic() - started:.0f}s", file=sys.stderr)
    miner.blobs.close()
    sites = sum(len(c["ground_truth"]) for c in cases)
    print(f"{args.name}: {seen} commits, {len(cases)} cases, {sites} sites", file=sys.stderr)
    sys.stdout.write("[\n" + ",\n".join(json.dumps(case) for case in cases) + "\n]\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
