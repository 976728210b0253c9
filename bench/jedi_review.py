"""A drop-in for the `prscope` command that measures jedi against the shared receiver inference (issue 20,
"One inference, chosen by measurement"; results in bench/README_inference.md).

    .venv/bin/python bench/jedi_review.py --mode combined [--log FILE] review --base <sha> --offline

runs the real CLI in-process (`prscope.analysis.cli.main`) with `occurrence_type`, as imported by
`prscope.analysis.intel.index` (find_usages, breaking-call, dangling-reference) and by
`prscope.analysis.checks.receivers` (the three mismatch rules), replaced by mode:

- `ours`: unchanged (the resolver's answer, else `analysis/intel/infer`'s);
- `jedi`: the resolver's answer, else jedi's instead of ours: `jedi.Script(code, path=...,
  project=jedi.Project(repo_root))` inferring the receiver expression (the part before `.word`, as
  `Script.infer` would infer it: jedi's `infer_call_of_leaf`, stubs converted), its inferred names mapped
  to a `ReceiverType` (below);
- `combined`: the resolver's answer, else ours, else jedi's.

The resolver's own answers (`self`, `super()`, modules, classes named by a dotted chain, annotated and
constructed locals) stay in every mode: they are the code index's resolution, not inference, and `self`
carries the method's class (the rules reason about it as such).

Mapping jedi's names (one unclear part makes the whole answer unknown, as ours does): an instance of a
class defined in the repository -> instance of `Value("member", module, Qualname)` (a class defined in a
function -> `Name@line`, ours' naming); a repository class or module -> that class or module; a class,
instance or module from outside the repository, or a function -> foreign; `None` adds nothing;
anything else (a parameter jedi cannot follow, a statement, no answer at all) -> unknown.

jedi reads the other modules from disk: the benchmarks materialise each stale PR as a git worktree, so
disk is the head version; the file asked about is given as the index reads it. One jedi Script per file
(its inference state is shared by every question on that file, as an editor would use it); the project's
sys path gets the source roots the code index uses (a monorepo's per-distribution `src/`).

`--log FILE` appends one JSON line per run: cwd, mode, wall seconds, seconds inside jedi, jedi calls and
every question jedi answered (for `combined`: every site ours did not know and jedi did), so the
benchmark's per-stale-PR figures can be joined with the time share and the sites by shape.
`JEDI_REVIEW_LOG` in the environment does the same when `--log` is not given.

    .venv/bin/python bench/jedi_review.py summary --save ours=/tmp/a.json --save jedi=/tmp/b.json \
        --log /tmp/jedi.log

prints the side-by-side figures (recall / precision per rule, seconds per stale PR, jedi's share) and the
sites and alarms each mode has that `ours` has not.
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

MODES = ("ours", "jedi", "combined")
RULES = ("async-mismatch", "property-mismatch", "override-mismatch")


class JediReceivers:
    """jedi's answer for the receiver of `<expr>.word`, as a `ReceiverType`, timed."""

    def __init__(self, root: Path) -> None:
        self.root = root.resolve()
        self.project: Any = None
        self.scripts: dict[str, Any] = {}
        self.trees: dict[str, tuple[ast.Module, list[str]] | None] = {}
        self.seconds = 0.0
        self.calls = 0
        self.errors: Counter[str] = Counter()
        self.answers: Counter[str] = Counter()
        self.lock = threading.Lock()
        self.memo: dict[tuple[str, int, int, str], tuple[Any, str]] = {}
        self.environment: Any = None

    def _project(self, source: Any) -> Any:
        import jedi

        if self.project is None:
            roots: set[str] = set()
            for rel in source.python_files() if hasattr(source, "python_files") else ():
                module, is_package = source.file_module(rel)
                depth = module.count(".") + (2 if is_package else 1)
                parent = Path(rel).parents[depth - 1] if depth <= len(Path(rel).parents) else None
                if parent is not None and str(parent) != ".":
                    roots.add(str(self.root / parent))
            self.project = jedi.Project(self.root, added_sys_path=sorted(roots))
        return self.project

    def _tree(self, source: Any, path: str) -> tuple[ast.Module, list[str]] | None:
        if path not in self.trees:
            code = source.source(path)
            try:
                tree = ast.parse(code) if code is not None else None
            except (SyntaxError, ValueError):
                tree = None
            self.trees[path] = (tree, code.splitlines()) if tree is not None and code is not None else None
        return self.trees[path]

    def _script(self, source: Any, path: str) -> Any:
        import jedi

        if path not in self.scripts:
            if self.environment is None:
                # In this process: no subprocess for compiled modules (what an integration would use).
                self.environment = jedi.InterpreterEnvironment()
            code = source.source(path)
            self.scripts[path] = jedi.Script(
                code, path=self.root / path, project=self._project(source), environment=self.environment
            )
        return self.scripts[path]

    def receiver(self, resolver: Any, path: str, occurrence: Any, word: str) -> tuple[Any, str]:
        """(ReceiverType or None, the receiver's text)."""
        with self.lock:
            key = (path, occurrence.line, occurrence.col, word)
            if key in self.memo:
                return self.memo[key]
            started = time.perf_counter()
            self.calls += 1
            try:
                self.memo[key] = self._receiver(resolver, path, occurrence, word)
                return self.memo[key]
            except Exception as error:  # jedi's own failures: unknown, counted
                self.errors[type(error).__name__] += 1
                return None, ""
            finally:
                self.seconds += time.perf_counter() - started

    def _receiver(self, resolver: Any, path: str, occurrence: Any, word: str) -> tuple[Any, str]:
        from jedi.api import classes, helpers
        from jedi.inference.gradual.conversion import convert_values

        source = resolver.source
        found = self._tree(source, path)
        if found is None:
            return None, ""
        tree, lines = found
        node = _attribute_at(tree, lines, occurrence.line, occurrence.col, word)
        if node is None:
            self.answers["no node"] += 1
            return None, ""
        text = ast.get_source_segment("\n".join(lines), node.value) or ""
        # The receiver as jedi parses it: the power expression before the `.word` trailer (what jedi's own
        # completion infers), not a cursor position (a cursor at the end of `x[0]` or `f({...})` lands on
        # the subscript's or the argument's last token).
        script = self._script(source, path)
        position = (occurrence.line, occurrence.col)
        leaf = script._module_node.get_name_of_position(position)
        if leaf is None or leaf.value != word or leaf.parent.type != "trailer":
            self.answers["no leaf"] += 1
            return None, text
        context = script._get_module_context().create_context(leaf)
        values = helpers.infer_call_of_leaf(context, leaf, cut_own_trailer=True)
        values = convert_values(values)
        names = [classes.Name(script._inference_state, value.name) for value in values]
        answer = self._map(resolver, names)
        self.answers["known" if answer is not None else "unknown"] += 1
        return answer, text

    def _map(self, resolver: Any, names: list[Any]) -> Any:
        from prscope.analysis.intel.meaning import ReceiverType

        if not names:
            return None
        instances: list[Any] = []
        classes: list[Any] = []
        modules: list[Any] = []
        foreign = False
        for name in names:
            kind = name.type
            if kind == "function":
                foreign = True
                continue
            if kind not in ("instance", "class", "module"):
                return None
            if kind == "instance" and name.full_name in ("builtins.NoneType", "types.NoneType"):
                continue
            value = self._value(resolver, name, kind)
            if value is None:
                foreign = True
            elif value == "unknown":
                return None
            elif kind == "instance":
                instances.append(value)
            elif kind == "class":
                classes.append(value)
            else:
                modules.append(value)
        if not (instances or classes or modules or foreign):
            return None
        return ReceiverType(
            "typed",
            instances=tuple(instances),
            classes=tuple(classes),
            modules=tuple(modules),
            foreign=foreign,
        )

    def _value(self, resolver: Any, name: Any, kind: str) -> Any:
        """The repository value a jedi name stands for; None: from outside; "unknown": cannot tell."""
        from prscope.analysis.intel.resolve import Value

        module_path = name.module_path
        if module_path is None:
            return None if name.in_builtin_module() else "unknown"
        module_path = Path(module_path)
        try:
            rel = module_path.resolve().relative_to(self.root).as_posix()
        except ValueError:
            return None  # a library, the standard library, typeshed
        source = resolver.source
        if rel.endswith(".pyi"):
            rel = rel[:-1]
        if not source.has_python_file(rel):
            return "unknown"
        module, _is_package = source.file_module(rel)
        if kind == "module":
            return Value("module", module)
        local = False
        parent = name.parent()
        steps = 0
        while parent is not None and parent.type != "module" and steps < 32:
            if parent.type == "function":
                local = True
            parent = parent.parent()
            steps += 1
        if local or not name.full_name:
            return Value("member", module, f"{name.name}@{name.line}")
        qualname = name.full_name
        prefix = f"{name.module_name}."
        if not qualname.startswith(prefix):
            return "unknown"
        return Value("member", module, qualname[len(prefix) :])


def _char_column(text: str, byte_col: int) -> int:
    if text.isascii():
        return byte_col
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", "replace"))


def _attribute_at(tree: ast.Module, lines: list[str], line: int, col: int, word: str) -> ast.Attribute | None:
    """The `<expr>.word` whose name starts at (line, col) (0-based code points), as the inference finds it."""
    if not 0 < line <= len(lines):
        return None
    text = lines[line - 1]
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr == word and node.end_lineno == line:
            end = node.end_col_offset or 0
            if _char_column(text, end - len(word.encode("utf-8"))) == col:
                return node
    return None


def _describe(found: Any) -> str:
    if found is None:
        return "unknown"
    parts = [f"instance {v}" for v in found.instances] + [f"class {v}" for v in found.classes]
    parts += [f"module {v}" for v in found.modules] + (["foreign"] if found.foreign else [])
    return ", ".join(parts) or found.kind


def install(mode: str, log: list[dict[str, Any]]) -> JediReceivers | None:
    """Patch `occurrence_type` where the index and the checks imported it; returns the jedi helper."""
    if mode == "ours":
        return None
    import prscope.analysis.checks.receivers as receivers
    import prscope.analysis.intel.index as index
    from prscope.analysis.intel.infer import receiver_of
    from prscope.analysis.intel.meaning import receiver_type

    helper = JediReceivers(Path.cwd())  # the review runs at the repository's root (the stale PR's worktree)

    def occurrence_type(resolver: Any, module: str, path: str, occurrence: Any, word: str) -> Any:
        assert occurrence.receiver is not None
        found = receiver_type(resolver, module, occurrence.receiver)
        if found.known:
            return found
        if mode == "combined":
            inferred = receiver_of(resolver, path, occurrence, word)
            if inferred is not None:
                return inferred
        answer, text = helper.receiver(resolver, path, occurrence, word)
        if answer is None:
            return found
        log.append(
            {"path": path, "line": occurrence.line, "col": occurrence.col, "word": word,
             "receiver": text, "jedi": _describe(answer)}
        )  # fmt: skip
        return answer

    index.occurrence_type = occurrence_type  # type: ignore[attr-defined]
    receivers.occurrence_type = occurrence_type  # type: ignore[attr-defined]
    return helper


def review(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--mode", choices=MODES, default="ours")
    parser.add_argument("--log", type=Path, default=os.environ.get("JEDI_REVIEW_LOG"))
    args, rest = parser.parse_known_args(argv)
    started = time.perf_counter()
    answered: list[dict[str, Any]] = []
    helper = install(args.mode, answered)
    from prscope.analysis.cli import main as prscope_main

    code = 1
    try:
        code = prscope_main(rest)
    finally:
        if args.log is not None:
            record = {
                "cwd": str(Path.cwd()),
                "mode": args.mode,
                "argv": rest,
                "exit": code,
                "seconds": round(time.perf_counter() - started, 3),
                "jedi_seconds": round(helper.seconds, 3) if helper else 0.0,
                "jedi_calls": helper.calls if helper else 0,
                "jedi_answers": dict(helper.answers) if helper else {},
                "jedi_errors": dict(helper.errors) if helper else {},
                "answered": answered,
            }
            with args.log.open("a") as out:
                out.write(json.dumps(record) + "\n")
    return code


# --- the side-by-side summary -------------------------------------------------------------------------


def _pct(values: list[float], q: float) -> float:
    if not values:
        return 0.0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def summary(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="jedi_review.py summary")
    parser.add_argument("--save", action="append", required=True, help="MODE=a --save file of either bench")
    parser.add_argument("--log", type=Path, action="append", default=[], help="jedi_review --log files")
    args = parser.parse_args(argv)
    saves = dict(item.split("=", 1) for item in args.save)
    runs = {mode: json.loads(Path(file).read_text()) for mode, file in saves.items()}
    logs: dict[tuple[str, str], dict[str, Any]] = {}
    for log in args.log:
        for line in log.read_text().splitlines():
            record = json.loads(line)
            logs[(record["mode"], Path(record["cwd"]).name)] = record
    if all("found" in row for rows in runs.values() for row in rows):
        _rule_table(runs)  # bench_rules' format; bench_breaking's prints its own table
    for mode, rows in runs.items():
        seconds = [r["seconds"] for r in rows if not r.get("crash")]
        share = [logs[(mode, r["key"])]["jedi_seconds"] for r in rows if (mode, r["key"]) in logs]
        calls = sum(logs[(mode, r["key"])]["jedi_calls"] for r in rows if (mode, r["key"]) in logs)
        partial = sum(1 for r in rows if str(r.get("status", "")).startswith("partial"))
        crashes = sum(1 for r in rows if r.get("crash"))
        print(
            f"{mode}: {len(rows)} stale PRs, median {statistics.median(seconds):.2f} s, "
            f"p95 {_pct(seconds, 0.95):.2f} s, max {max(seconds):.2f} s, total {sum(seconds):.0f} s, "
            f"crashes {crashes}, partial {partial}; jedi: {calls} questions, {sum(share):.1f} s "
            f"({100 * sum(share) / max(sum(seconds), 1e-9):.1f}% of the time; per stale PR median "
            f"{_pct(share, 0.5):.2f} s, p95 {_pct(share, 0.95):.2f} s, max {max(share or [0]):.2f} s)"
        )
    base = runs.get("ours")
    if base is not None:
        for mode, rows in runs.items():
            if mode != "ours":
                _against_ours(mode, rows, {r["key"]: r for r in base}, logs)
    return 0


def _rule_table(runs: dict[str, list[dict[str, Any]]]) -> None:
    print("| rule | " + " | ".join(f"{m} recall | {m} precision" for m in runs) + " |")
    print("|---|" + "---|---|" * len(runs))
    for rule in RULES:
        cells = []
        for rows in runs.values():
            mine = [r for r in rows if r["kind"] == rule]
            found = sum(len(r["found"]) for r in mine)
            missed = sum(len(r["missed"]) for r in mine)
            false = sum(len(r["false_alarms"]) for r in mine)
            real = sum(len(r.get("real", [])) for r in mine)
            recall = found / (found + missed) if found + missed else 0.0
            precision = (found + real) / (found + real + false) if found + real + false else 1.0
            cells.append(f"{recall:.3f} ({found}/{found + missed}) | {precision:.3f} ({false} false)")
        print(f"| {rule} | " + " | ".join(cells) + " |")
    print()


def _site(site: Any) -> tuple[str, int]:
    return (site["path"], int(site["line"])) if isinstance(site, dict) else (site[0], int(site[1]))


def _against_ours(
    mode: str, rows: list[dict[str, Any]], base: dict[str, dict[str, Any]], logs: dict[tuple[str, str], Any]
) -> None:
    """Sites found and lost against `ours` (ground truth the other run missed and this one did not), and
    alarms this run has that `ours` has not (with the hand check's verdict when there is one)."""
    print(f"\n{mode} vs ours")
    for row in rows:
        other = base.get(row["key"])
        if other is None or row.get("crash") or other.get("crash"):
            continue
        missed_before = {_site(s) for s in other["missed"]}
        missed_now = {_site(s) for s in row["missed"]}
        alarms = {(a["path"], a["line"], a["rule"]) for a in other["false_alarms"] + other.get("real", [])}
        answered = {(a["path"], a["line"]): a for a in logs.get((mode, row["key"]), {}).get("answered", [])}
        kind = row.get("kind", "")
        for site in sorted(missed_before - missed_now):
            why = answered.get(site)
            extra = f"  jedi: {why['receiver']} -> {why['jedi']}" if why else ""
            print(f"  + found {kind} {row['key']} {site[0]}:{site[1]}{extra}")
        for site in sorted(missed_now - missed_before):
            print(f"  - lost  {kind} {row['key']} {site[0]}:{site[1]}")
        for alarm in row["false_alarms"] + row.get("real", []):
            if (alarm["path"], alarm["line"], alarm["rule"]) in alarms:
                continue
            label = "real" if alarm in row.get("real", []) else "FALSE"
            why = answered.get((alarm["path"], alarm["line"]))
            extra = f"  jedi: {why['receiver']} -> {why['jedi']}" if why else ""
            print(
                f"  ! alarm {label} {alarm['rule']} {row['commit'][:10]} {alarm['path']}:{alarm['line']}"
                f" {alarm.get('title', '')} [{alarm.get('verdict') or 'not judged'}]{extra}"
            )


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "summary":
        return summary(argv[1:])
    return review(argv)


if __name__ == "__main__":
    sys.exit(main())
