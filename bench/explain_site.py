"""Why a receiver is (not) typed: explain one `<receiver>.name` site of a repository (a stale-PR worktree).

    .venv/bin/python bench/explain_site.py REPO PATH LINE NAME [--target DOTTED] [--review] [--all]

For each attribute occurrence of `.NAME` on LINE of PATH (the code index's `occurrences`), prints what
the resolver says (`meaning.receiver_type`) and what the inference says (`inference_for(resolver)
.receiver(...)`), with a trace of every step of the inference (expression, place, result; `memo`,
`cycle`, `budget` and `depth` mark the steps that were not evaluated) and the first step whose answer is
unknown. The inference here is a fresh one, with the whole budget for this one site.

--target DOTTED (e.g. `pkg.mod.Cls.meth`): also runs the query the rules run (`find_usages(DOTTED)`),
with its own resolver and inference shared by every occurrence of the word, and says what reference
(exact / probable / none) the site got and how much of the inference's budget (steps, parsed parts,
caller queries) was spent when the site was asked: a site that is found alone and missed here is lost to
the budget or to the order of the query.

--review: also runs the real check (`prscope review --base HEAD^ --offline --format json`) in the
repository and prints the findings on PATH:LINE (and the review's status).

Reading the trace: UNKNOWN LEAVES are the steps that answered unknown while everything under them was
known (where an unknown comes from); a `name` of a decorator (`overload`, `wraps`) among them is harmless
(`decorator_names` falls back to the decorator's own name). Steps marked `[inside a callers query]` belong
to the nested `find_usages` a parameter's callers come from (its own inference, without callers).

--all: print every trace step, not only the path to the first unknown (the default prints the trace
of the occurrence in full up to 400 lines).
"""

from __future__ import annotations

import argparse
import ast
import functools
import json
import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from prscope.analysis.intel import CodeIndex
from prscope.analysis.intel.infer import callers as callers_module
from prscope.analysis.intel.infer import engine as engine_module
from prscope.analysis.intel.infer import inference_for
from prscope.analysis.intel.infer.engine import Inference
from prscope.analysis.intel.infer.frames import Place
from prscope.analysis.intel.infer.values import (
    UNKNOWN,
    Awaitable,
    Bound,
    ClassRef,
    Entered,
    ForeignClass,
    Func,
    Inst,
    Map,
    Mod,
    Returns,
    Seq,
    Tup,
)
from prscope.analysis.intel.meaning import receiver_type

_TRACED = ("expr", "name", "attribute", "call", "parameter", "returns", "bind", "instance_attribute")
_MAX_LINES = 400


def show_types(types: Any, depth: int = 0) -> str:
    if types is None:
        return "None (site not found)"
    if depth > 3:
        return "..."
    return "{" + ", ".join(sorted(_show_value(v, depth) for v in types)) + "}"


def _show_value(value: Any, depth: int) -> str:
    inner = functools.partial(show_types, depth=depth + 1)
    if isinstance(value, Inst):
        return f"Inst({value.cls})"
    if isinstance(value, ClassRef):
        return f"Class({value.cls})"
    if isinstance(value, ForeignClass):
        return f"ForeignClass({value.name})"
    if isinstance(value, Mod):
        return f"Mod({value.module})"
    if isinstance(value, Func):
        owner = f"{value.owner}." if value.owner is not None else ""
        return f"Func({owner}{value.name} {value.path}:{value.line})"
    if isinstance(value, Bound):
        return f"Bound({value.func.name} on {inner(value.receiver)})"
    if isinstance(value, Seq):
        return f"Seq{inner(value.elements)}"
    if isinstance(value, Map):
        return f"Map{inner(value.values)}"
    if isinstance(value, Tup):
        return "Tup(" + ", ".join(inner(i) for i in value.items) + ")"
    if isinstance(value, Awaitable):
        return f"Awaitable{inner(value.result)}"
    if isinstance(value, Entered):
        return f"Entered{inner(value.value)}"
    if isinstance(value, Returns):
        return f"Returns{inner(value.result)}"
    return repr(value)


def show_place(place: Any) -> str:
    if not isinstance(place, Place):
        return ""
    names = []
    for frame in place.frames:
        name = getattr(frame, "name", None) or type(frame).__name__.lower()
        names.append(name)
    where = ".".join(names) or "<module>"
    if place.unit_class:
        where = f"{place.unit_class}:{where}"
    self_note = f" self={show_types(place.self_types)}" if place.self_types is not None else ""
    return f"{place.path}[{where}]{self_note}"


def _short(node: Any) -> str:
    if isinstance(node, ast.AST):
        try:
            text = ast.unparse(node)
        except Exception:
            text = type(node).__name__
        text = " ".join(text.split())
        line = getattr(node, "lineno", None)
        text = text if len(text) <= 90 else text[:87] + "..."
        return f"`{text}`" + (f" @{line}" if line else "")
    if isinstance(node, Func):
        return _show_value(node, 0)
    if isinstance(node, frozenset):
        return show_types(node)
    return repr(node)[:90]


class Tracer:
    """Wraps the inference's steps (class-level) and records them while `on`."""

    def __init__(self) -> None:
        self.on = False
        self.depth = 0
        self.lines: list[tuple[int, str, str, bool]] = []  # depth, step, result, unknown
        self.first_unknown: int | None = None
        self.saved: dict[str, Callable[..., Any]] = {}

    def install(self) -> None:
        for method in _TRACED:
            original = getattr(Inference, method)
            self.saved[method] = original
            setattr(Inference, method, self._wrap(method, original))

    def uninstall(self) -> None:
        for method, original in self.saved.items():
            setattr(Inference, method, original)

    def _wrap(self, method: str, original: Callable[..., Any]) -> Callable[..., Any]:
        tracer = self

        @functools.wraps(original)
        def traced(engine: Inference, *args: Any, **kwargs: Any) -> Any:
            if not tracer.on:
                return original(engine, *args, **kwargs)
            label = tracer._label(engine, method, args)
            if callers_module.in_caller_query():
                label = "[inside a callers query] " + label
            index = len(tracer.lines)
            tracer.lines.append((tracer.depth, label, "", False))
            tracer.depth += 1
            try:
                result = original(engine, *args, **kwargs)
            finally:
                tracer.depth -= 1
            unknown = (
                isinstance(result, frozenset) and UNKNOWN in result
            )  # an empty answer is not unknown yet
            shown = show_types(result) if isinstance(result, frozenset) else _short(result)
            depth, _, _, _ = tracer.lines[index]
            tracer.lines[index] = (depth, label, shown, unknown)
            if unknown and tracer.first_unknown is None:
                tracer.first_unknown = index
            return result

        return traced

    @staticmethod
    def _label(engine: Inference, method: str, args: tuple[Any, ...]) -> str:
        if method == "expr":
            node, place = args[0], args[1]
            key = (id(node), place)
            why = ""
            if key in engine._memo:
                why = " [memo]"
            elif key in engine._active:
                why = " [cycle: unknown]"
            elif engine._steps >= engine_module.MAX_STEPS:
                why = f" [budget: {engine._steps} steps spent: unknown]"
            elif len(engine._active) >= engine_module.MAX_DEPTH:
                why = " [depth bound: unknown]"
            return f"expr {_short(node)} in {show_place(place)}{why}"
        if method == "name":
            name, place, line = args[0], args[1], args[2]
            return f"name `{name}` (read @{line}) in {show_place(place)}"
        if method == "attribute":
            return f"attribute {show_types(args[0])} .{args[1]}"
        if method == "instance_attribute":
            return f"instance_attribute {_show_value(args[0], 0)} .{args[1]}"
        if method == "call":
            return f"call {_short(args[0])} in {show_place(args[1])}"
        if method == "parameter":
            arg, scope = args[0], args[1]
            function = scope.frames[-1] if scope.frames else None
            owner = getattr(function, "name", "?")
            return f"parameter `{arg.arg}` of `{owner}` in {show_place(scope)}"
        if method == "returns":
            func = args[0]
            receiver = args[1] if len(args) > 1 else None
            on = f" on {show_types(receiver)}" if receiver is not None else ""
            return f"returns {_short(func)}{on}"
        if method == "bind":
            name, bind = args[0], args[1]
            value = f" = {_short(bind.value)}" if bind.value is not None else ""
            return f"bind `{name}` {bind.kind}{value} steps={bind.steps}"
        return method

    def clear(self) -> None:
        self.lines.clear()
        self.first_unknown = None
        self.depth = 0

    def leaves(self) -> list[int]:
        """The steps that answered unknown while every step under them answered something known: where
        the unknown comes from (a cycle, the budget, a shape the engine does not follow)."""
        found: list[int] = []
        for index, (depth, _label, _result, unknown) in enumerate(self.lines):
            if not unknown:
                continue
            below = index + 1
            child_unknown = False
            while below < len(self.lines) and self.lines[below][0] > depth:
                if self.lines[below][3]:
                    child_unknown = True
                    break
                below += 1
            if not child_unknown:
                found.append(index)
        return found

    def print(self, show_all: bool) -> None:
        leaves = self.leaves()
        if leaves:
            print(f"  UNKNOWN LEAVES ({len(leaves)}; the steps the unknown comes from):")
            for index in leaves[:20]:
                _depth, label, result, _ = self.lines[index]
                print(f"    - {label}\n        -> {result}")
        if self.first_unknown is not None:
            depth, label, result, _ = self.lines[self.first_unknown]
            print(f"  FIRST UNKNOWN (deepest step that answered unknown first): {label}")
            print(f"    -> {result}")
        lines = self.lines if show_all else self.lines[:_MAX_LINES]
        for depth, label, result, unknown in lines:
            mark = "?" if unknown else " "
            print(f"  {mark} {'  ' * depth}{label}\n  {mark} {'  ' * depth}  -> {result}")
        if len(self.lines) > len(lines):
            print(f"  ... {len(self.lines) - len(lines)} more steps (--all)")


def explain(repo: Path, path: str, line: int, name: str, tracer: Tracer, show_all: bool) -> None:
    index = CodeIndex(repo)
    index.python_files()  # file_module() reads the file list: without it every file is a `<file>:` module
    found = index.occurrences(path, name, [line])
    if found is None:
        print(f"{path}: cannot be read or parsed")
        return
    here = [o for o in found if o.line == line]
    if not here:
        print(f"{path}:{line}: no occurrence of `{name}` on this line")
        return
    module, _ = index.file_module(path)
    for occurrence in here:
        print(
            f"== {path}:{line}:{occurrence.col + 1} `.{name}` kind={occurrence.kind} role={occurrence.role}"
        )
        if occurrence.receiver is None:
            print("  (not an attribute occurrence: no receiver)")
            continue
        receiver = occurrence.receiver
        print(
            f"  receiver: kind={receiver.kind} chain={'.'.join(receiver.chain)} called={receiver.called} "
            f"class_ctx={receiver.class_ctx} head_local={'yes' if receiver.head_local else 'no'}"
        )
        resolver = index.new_resolver()
        print(f"  resolver: {receiver_type(resolver, module, receiver)}")
        inference = inference_for(resolver)
        tracer.clear()
        tracer.on = True
        try:
            types = inference.receiver(path, occurrence.line, occurrence.col, name)
        finally:
            tracer.on = False
        print(f"  inference: {show_types(types)}")
        spent = len(inference.code._parts)
        queries = inference.callers._queries if inference.callers is not None else "-"
        print(f"  spent: {inference._steps} steps, {spent} parsed parts, {queries} caller queries")
        tracer.print(show_all)


@contextmanager
def _watch_query(path: str, line: int, name: str, tracer: Tracer) -> Iterator[list[str]]:
    """Note the budget each time the query's inference is asked about the site (and trace it)."""
    notes: list[str] = []
    original = Inference.receiver

    def receiver(engine: Inference, p: str, ln: int, col: int, word: str) -> Any:
        at_site = p == path and ln == line and word == name
        before = (engine._steps, len(engine.code._parts), _queries(engine))
        tracer.on = at_site
        try:
            result = original(engine, p, ln, col, word)
        finally:
            tracer.on = False
        if at_site:
            notes.append(
                f"  asked at steps={before[0]}/{engine_module.MAX_STEPS} parts={before[1]} "
                f"caller queries={before[2]}/{callers_module._MAX_QUERIES}: {show_types(result)}"
            )
        return result

    Inference.receiver = receiver  # type: ignore[method-assign]
    try:
        yield notes
    finally:
        Inference.receiver = original  # type: ignore[method-assign]


def _queries(engine: Inference) -> Any:
    return engine.callers._queries if engine.callers is not None else "-"


def query(repo: Path, target: str, path: str, line: int, name: str, tracer: Tracer, show_all: bool) -> None:
    index = CodeIndex(repo)
    index.python_files()
    tracer.clear()
    with _watch_query(path, line, name, tracer) as notes:
        result = index.find_usages(target)
    print(f"== find_usages({target}): {len(result.references)} references")
    at = [r for r in result.references if r.path == path and r.line == line]
    for reference in at:
        print(f"  {reference.path}:{reference.line}:{reference.col} {reference.kind} {reference.confidence}")
    if not at:
        print("  no reference on this line")
    for note in notes:
        print(note)
    if not notes:
        print(
            "  the query's inference was never asked about this site (resolver answered, or not a candidate)"
        )
    elif tracer.lines:
        print("  the site's steps inside the query (what earlier sites memoised shows as [memo]):")
        tracer.print(show_all)
    skipped = getattr(result, "skipped", None) or getattr(result, "note", None)
    if skipped:
        print(f"  query notes: {skipped}")


def review(repo: Path, path: str, line: int) -> None:
    exe = Path(sys.executable).with_name("prscope")
    command = [str(exe), "review", "--base", "HEAD^", "--offline", "--format", "json"]
    done = subprocess.run(command, cwd=repo, capture_output=True, text=True, check=False)
    try:
        report = json.loads(done.stdout)
    except json.JSONDecodeError:
        print(f"== review: exit {done.returncode}, no JSON: {done.stderr.strip()[-400:]}")
        return
    status = report.get("status"), report.get("status_reason")
    findings = report.get("findings", [])
    print(f"== review: status={status}, {len(findings)} findings")
    for finding in findings:
        if finding.get("path") == path and finding.get("line") == line:
            print(f"  {finding.get('rule')}: {finding.get('title')}")
    if not any(f.get("path") == path and f.get("line") == line for f in findings):
        rules = sorted({f.get("rule") for f in findings})
        print(f"  nothing on {path}:{line} (rules with findings: {rules})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("repo", type=Path)
    parser.add_argument("path")
    parser.add_argument("line", type=int)
    parser.add_argument("name")
    parser.add_argument(
        "--target", help="the changed method's dotted name: also run find_usages as the rules do"
    )
    parser.add_argument("--review", action="store_true", help="also run the real review on the stale PR")
    parser.add_argument("--all", action="store_true", help="print every trace step")
    args = parser.parse_args(argv)
    repo = args.repo.resolve()
    tracer = Tracer()
    tracer.install()
    try:
        explain(repo, args.path, args.line, args.name, tracer, args.all)
        if args.target:
            query(repo, args.target, args.path, args.line, args.name, tracer, args.all)
    finally:
        tracer.uninstall()
    if args.review:
        review(repo, args.path, args.line)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
