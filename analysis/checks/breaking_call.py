"""`breaking-call`: call sites that fit a definition's old signature but not the one this PR gives it."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from dataclasses import dataclass, replace
from functools import partial

from prscope.analysis.changeset import FileChange, FileStatus
from prscope.analysis.changeset.model import DiffLine
from prscope.analysis.checks.call_explain import (
    compact,
    compact_pair,
    explain_shift,
    merged_parameters,
    plural,
    renamed_to,
)
from prscope.analysis.checks.class_family import provided_elsewhere
from prscope.analysis.checks.context import CheckContext, is_python_path, make_finding
from prscope.analysis.checks.definitions_elsewhere import other_definitions
from prscope.analysis.checks.defs import SignatureChange, decorator_names, signature_changes
from prscope.analysis.checks.relayed import relayed_signature
from prscope.analysis.checks.sites import (
    COMMON_METHOD_NAMES,
    RepoView,
    Site,
    byte_to_char_col,
    site_name,
)
from prscope.analysis.findings import Finding, Related, Severity, Suggestion
from prscope.analysis.intel.scopes import callee_name, catches
from prscope.analysis.intel.signatures import BindResult, Signature, has_splat, type_error_messages

RULE = "breaking-call"


@dataclass
class Target:
    change: SignatureChange
    path: str
    module: str
    display: str
    """`f`, `Cls.meth` or `Cls` (for constructors)."""
    merged: set[frozenset[str]] | None = None
    """Parameter pairs the new body merges (`merged_parameters`), worked out at the first shifted call."""
    dropped: frozenset[str] = frozenset()
    """Methods (`module.Cls.meth`) the PR removes from the classes of the files it changes."""
    relayed: Signature | None = None
    """What the old definition accepted in effect when it only handed `*args, **kwargs` on to its base."""


def check_breaking_calls(ctx: CheckContext, view: RepoView) -> list[Finding]:
    findings: list[Finding] = []
    view.rewritten_lines = {change.path: _rewritten(change) for change in ctx.cs.files}
    view.trimmed_lines = {change.path: _trimmed(change) for change in ctx.cs.files}
    dropped: frozenset[str] | None = None
    for change in ctx.changed_files():
        if change.status not in (FileStatus.MODIFIED, FileStatus.RENAMED) or not is_python_path(change.path):
            continue
        for target in _targets(ctx, view, change):
            if dropped is None:
                dropped = _methods_dropped(ctx, view)
            target.dropped = dropped
            what = f"`{target.display}` in {target.path}"
            if ctx.out_of_time(RULE, what):
                return findings
            findings.extend(ctx.bounded(RULE, what, partial(_stale_calls, view, target)))
    return findings


def _methods_dropped(ctx: CheckContext, view: RepoView) -> frozenset[str]:
    """`module.Cls.meth` for each method the PR removes from a class it keeps, in the files it modifies."""
    dropped: set[str] = set()
    for change in ctx.changed_files():
        if change.status is not FileStatus.MODIFIED or not is_python_path(change.path):
            continue
        old_defs, new_defs = ctx.defs("old", change.path), ctx.defs("new", change.path)
        module = view.module(change.path)
        if old_defs is None or new_defs is None or module is None:
            continue
        for qualname, info in old_defs.defs.items():
            kept_class = info.class_qualname is not None and info.class_qualname in new_defs.defs
            if info.kind in ("method", "property") and kept_class and qualname not in new_defs.defs:
                dropped.add(f"{module}.{qualname}")
    return frozenset(dropped)


def _targets(ctx: CheckContext, view: RepoView, change: FileChange) -> list[Target]:
    old_defs = ctx.defs("old", change.old_path or change.path)
    new_defs = ctx.defs("new", change.path)
    module = view.module(change.path)
    if old_defs is None or new_defs is None or module is None:
        return []
    targets = []
    for sig_change in signature_changes(old_defs, new_defs):
        new = sig_change.new
        display = new.class_qualname if new.name == "__init__" and new.class_qualname else sig_change.qualname
        relayed = relayed_signature(ctx, view, change.old_path or change.path, module, sig_change.old)
        targets.append(Target(sig_change, change.path, module, display or new.name, relayed=relayed))
    return targets


def _stale_calls(view: RepoView, target: Target) -> list[Finding]:
    change = target.change
    new = change.new
    findings: list[Finding] = []
    if new.class_qualname is None:
        for site in view.call_sites(f"{target.module}.{change.qualname}", calls=partial(_may_break, change)):
            if view.reach.data_file(site.path):
                continue
            finding = _judge(view, target, site, bound=False)
            if finding is not None and not view.reach.silent(site):
                findings.append(finding)
        return findings
    if new.name in ("__init__", "__new__") and _is_enum(view, f"{target.module}.{new.class_qualname}"):
        return findings  # `Color(value)` looks a member up; it does not call __init__ with those arguments
    class_aliases = view.aliases(f"{target.module}.{new.class_qualname}")
    full_family = view.subclasses(class_aliases)
    family = {
        c
        for c in full_family
        if c in class_aliases
        or not (
            _reaches_an_override_first(view, c, new.name, full_family, class_aliases)
            or _overrode_at_the_parent(view, c, new.name, target.dropped)
        )
    }
    super_family = view.subclasses(family, depth=1) - class_aliases
    within = _constructor_files(view, full_family, super_family) if new.name == "__init__" else None
    sites = view.method_sites(
        new.name, family, super_family, within=within, calls=partial(_may_break, change)
    )
    if new.name == "__init__":
        # `Cls(...)` and calls of subclasses that inherit the constructor; `.__init__` calls come from above.
        constructor = f"{target.module}.{new.class_qualname}.__init__"
        builders = _build_their_own(view, full_family - class_aliases)
        constructed = view.call_sites(constructor, calls=partial(_may_break, change))
        sites += [s for s in constructed if site_name(s) not in {"__init__", *builders}]
    others: list[Signature | None] | None = None
    overrides = _override_signatures(view, full_family - family, new.name)
    abstract = _is_abstract(new.node)
    for site in sites:
        if site.call is None:
            continue
        if site.evidence == "probable" and (new.name in COMMON_METHOD_NAMES or new.name == "__init__"):
            continue
        if site.evidence != "probable" and abstract and site.bound and _fits_all(site.call, overrides):
            continue  # the base's own body never runs, and every override still takes this call
        finding = _judge(view, target, site, bound=site.bound)
        # Judged first: most calls still fit, and the tests below read the code around the call (or, for
        # the other definitions, every file that defines the name).
        if finding is None:
            continue
        if site.evidence == "probable":
            if others is None:
                # Overrides count as other definitions: an unknown receiver may well be a subclass.
                others = [sig for _p, _q, sig in other_definitions(view, new.name, family)]
            if _fits_another(site.call, others):
                continue
        if view.reach.silent(site) or view.set_before_use(site, new.name):
            continue
        if not provided_elsewhere(view, site, new.name, class_aliases):
            findings.append(finding)
    return findings


def _build_their_own(view: RepoView, subclasses: set[str]) -> set[str]:
    """Names of the subclasses with a `__new__` of their own: it decides what a call of the class builds,
    and an object of another class never gets this `__init__` (python-can 51e8c4fe's `Bus(bustype=...)`
    returns the chosen backend's bus)."""
    names: set[str] = set()
    for dotted in subclasses:
        found = view.class_node(dotted)
        if found is not None and any(
            isinstance(node, ast.FunctionDef) and node.name == "__new__" for node in found[1].body
        ):
            names.add(dotted.rsplit(".", 1)[-1])
    return names


def _constructor_files(view: RepoView, family: set[str], super_family: set[str]) -> set[str]:
    """Files that may call `__init__` explicitly: those defining a subclass (for `super().__init__`)
    and those spelling `Cls.__init__`."""
    files = {p for c in super_family if (p := view.module_path(c.rsplit(".", 1)[0])) is not None}
    return files | view.files_calling_init({c.rsplit(".", 1)[-1] for c in family})


def _is_enum(view: RepoView, class_dotted: str) -> bool:
    names = {d.rsplit(".", 1)[-1] for d in view.ancestors({class_dotted})}
    located = view.class_node(class_dotted)
    if located is not None:
        names |= {ast.unparse(b).rsplit(".", 1)[-1] for b in located[1].bases}
    return any(n.endswith(("Enum", "Flag")) for n in names)


def _overrides(view: RepoView, class_dotted: str, name: str) -> bool:
    members = view.class_members(class_dotted)
    return members is not None and name in members


def _reaches_an_override_first(
    view: RepoView, class_dotted: str, name: str, family: set[str], targets: set[str]
) -> bool:
    """Whether the class, or a class of the family between it and the changed one, defines `name`: the
    MRO finds that definition first (errbot 2081529b: `Webserver(BotPlugin)`'s `super().__init__(bot)`
    runs `BotPluginBase.__init__(self, bot)`, not the changed `StoreMixin.__init__` above it). Each step
    follows the first base in the family, as the MRO does."""
    canonical = view.names.canonical
    targets = targets | {canonical(t) for t in targets}
    current = class_dotted
    for _depth in range(8):
        if current in targets or canonical(current) in targets:
            return False
        if _overrides(view, current, name):
            return True
        bases = [
            b
            for b in view.names.base_values(current)
            if b is not None and (b in family or canonical(b) in family)
        ]
        if not bases:
            return False
        current = bases[0]
    return False


def _overrode_at_the_parent(view: RepoView, class_dotted: str, name: str, dropped: frozenset[str]) -> bool:
    """Whether the PR removes the subclass's own `name`: its instances called that method at the parent,
    not the changed one, so the changed one's old signature says nothing of their calls (pystac
    e798fbf5be drops `SingleFileSTAC.save(uri)` and gives the inherited `save` an `href`: `sf.save(uri)`
    never met the old `save(include_self_link=True)`)."""
    return bool(dropped) and (
        f"{class_dotted}.{name}" in dropped or f"{view.names.canonical(class_dotted)}.{name}" in dropped
    )


def _override_signatures(view: RepoView, overriding: set[str], name: str) -> list[Signature | None]:
    """The signature of `name` in each class of `overriding` (None where it cannot be read)."""
    signatures: list[Signature | None] = []
    for class_dotted in sorted(overriding):
        located = view.class_node(class_dotted)
        methods = [
            node
            for node in (located[1].body if located is not None else [])
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and node.name == name
        ]
        signatures.append(Signature.from_ast(methods[-1], in_class=True) if methods else None)
    return signatures


def _is_abstract(node: ast.AST) -> bool:
    """A method that only raises NotImplementedError, is `...`, or is marked @abstractmethod."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return False
    if "abstractmethod" in decorator_names(node):
        return True
    body = node.body
    if len(body) > 1 and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]  # the docstring; a docstring alone is a body that runs (and returns None)
    if len(body) != 1:
        return False
    statement = body[0]
    if isinstance(statement, ast.Raise) and statement.exc is not None:
        raised = statement.exc.func if isinstance(statement.exc, ast.Call) else statement.exc
        return isinstance(raised, ast.Name) and raised.id == "NotImplementedError"
    return (
        isinstance(statement, ast.Expr)
        and isinstance(statement.value, ast.Constant)
        and statement.value.value is Ellipsis
    )


def _fits_all(call: ast.Call, signatures: list[Signature | None]) -> bool:
    """Whether the call binds to every one of the signatures (and there is at least one)."""
    return bool(signatures) and all(
        signature is not None and signature.for_call(bound=True).binds(call).status != "error"
        for signature in signatures
    )


def _fits_another(call: ast.Call, others: list[Signature | None]) -> bool:
    for signature in others:
        if signature is None:
            return True  # an attribute of that name elsewhere: it may be what is called
        if signature.for_call(bound=True).binds(call).status != "error":
            return True
    return False


def _may_break(change: SignatureChange, call: ast.Call) -> bool:
    """Whether the call's arguments could bind differently now, through a receiver or not: it fitted the
    old signature and fits the new one no longer, or a positional argument lands elsewhere. What `_judge`
    reports is among these; the rest is not worth typing a receiver for."""
    if has_splat(call):
        return True
    for bound in (True, False):
        old = change.old_signature.for_call(bound=bound).binds(call)
        if old.status == "error":
            continue
        new = change.new_signature.for_call(bound=bound).binds(call)
        if new.status == "error" or new.positional_to != old.positional_to:
            return True
    return False


def _judge(view: RepoView, target: Target, site: Site, *, bound: bool) -> Finding | None:
    call = site.call
    assert call is not None
    old_sig = target.change.old_signature.for_call(bound=bound)
    new_sig = target.change.new_signature.for_call(bound=bound)
    old_result = old_sig.binds(call)
    if old_result.status == "error":
        return None  # it never fitted: it calls something else, or was broken before this PR
    if target.relayed is not None and target.relayed.for_call(bound=bound).binds(call).status == "error":
        return None  # the base it was handed to rejected it at the parent (ophyd 276d391)
    new_result = new_sig.binds(call)
    problem: str | None = None
    suggestion: Suggestion | None = None
    if new_result.status == "error":
        if _written_in_pr(view, site, view.rewritten_lines):
            # The PR rewrote this call while changing the function: it was updated for the signature the
            # author had in front of them, which the checks may read wrongly (a call already updated).
            return None
        problem, suggestion = _explain_error(view, site, old_sig, new_sig, new_result)
    elif old_result.status == "ok" and new_result.status == "ok" and not _written_in_pr(view, site):
        if target.merged is None:
            target.merged = merged_parameters(target.change.new.node)
        problem = explain_shift(old_sig, new_sig, old_result, new_result, call, target.merged)
    if problem is None:
        return None
    if view.expects_error(site, "TypeError", messages=type_error_messages(new_sig, new_result)):
        return None  # a test asserting that the call is rejected (with this very message, when it says)
    if _fallback_for_type_error(view, site):
        return None
    return _finding(view, target, site, new_sig, problem, suggestion)


_CATCHING_TYPE_ERROR = frozenset({"TypeError", "Exception", "BaseException"})


def _fallback_for_type_error(view: RepoView, site: Site) -> bool:
    """Whether the call sits in an `except TypeError:` handler whose `try` calls the same name: the old
    signature kept on purpose for code written against it (flask-admin b6c8c836 tries
    `self.on_model_change(form, model, is_created)` and, on TypeError, warns and calls it with two)."""
    call = site.call
    nodes = view.nodes(site.path, site.line)
    if call is None or nodes is None:
        return False
    name = site_name(site)
    for node in ast.walk(nodes.tree):
        if not isinstance(node, ast.Try | ast.TryStar):
            continue
        handlers = [
            h for h in node.handlers if catches(h, _CATCHING_TYPE_ERROR) and _spans_line(h, call.lineno)
        ]
        if handlers and any(
            isinstance(n, ast.Call) and callee_name(n) == name for s in node.body for n in ast.walk(s)
        ):
            return True
    return False


def _spans_line(node: ast.stmt | ast.ExceptHandler, line: int) -> bool:
    return node.lineno <= line <= (node.end_lineno or node.lineno)


def _change_runs(change: FileChange) -> Iterator[tuple[list[DiffLine], DiffLine | None]]:
    """Each run of changed (`+` / `-`) lines of the diff, with the unchanged line after it (None at the end
    of a hunk)."""
    for hunk in change.hunks:
        run: list[DiffLine] = []
        for line in [*hunk.lines, None]:
            if line is not None and line.kind != " ":
                run.append(line)
                continue
            if run:
                yield run, line
            run = []


def _rewritten(change: FileChange) -> set[int]:
    """New lines that replace old ones: `+` lines in a run of changed lines that also removes some (a
    call edited in place, not one the PR adds from nothing)."""
    return {
        item.new_no
        for run, _after in _change_runs(change)
        if any(item.kind == "-" for item in run)
        for item in run
        if item.kind == "+" and item.new_no is not None
    }


def _trimmed(change: FileChange) -> set[int]:
    """New lines right after a run of lines the PR only deletes (an argument line dropped from a call)."""
    return {
        after.new_no
        for run, after in _change_runs(change)
        if after is not None and after.new_no is not None and all(item.kind == "-" for item in run)
    }


def _written_in_pr(view: RepoView, site: Site, lines: dict[str, set[int]] | None = None) -> bool:
    """Whether the PR added a line of the call (of `lines`, default: every added line), or deleted one
    inside it (fastapi-users 3bdae948 drops `UserDB,` from a multi-line call): then it was written (or
    updated) for the new signature."""
    added = (view.added_lines if lines is None else lines).get(site.path, set())
    call = site.call
    if call is None:
        return site.line in added
    last = call.end_lineno or call.lineno
    if any(line in added for line in range(call.lineno, last + 1)):
        return True
    return any(call.lineno < line <= last for line in view.trimmed_lines.get(site.path, ()))


def _explain_error(
    view: RepoView, site: Site, old_sig: Signature, new_sig: Signature, result: BindResult
) -> tuple[str, Suggestion | None]:
    call = site.call
    assert call is not None
    parts: list[str] = []
    suggestion: Suggestion | None = None
    if result.too_many_positional:
        slots = [p for p in new_sig.parameters if p.accepts_positional]
        given = len(result.positional_to)
        text = (
            f"call passes {plural(given, 'positional argument')} but "
            f"`{compact(new_sig)}` now takes {len(slots)}"
        )
        old_slots = [p for p in old_sig.parameters if p.accepts_positional]
        moved = [
            p.name
            for p in old_slots[len(slots) : given]
            if (q := new_sig.param(p.name)) and not q.accepts_positional
        ]
        if moved:
            text += "; pass " + ", ".join(f"`{name}=`" for name in moved) + " by keyword"
        parts.append(text)
    renamed_targets: set[str] = set()
    for keyword in result.unknown_keywords:
        renamed = renamed_to(old_sig, new_sig, keyword)
        if renamed is not None:
            renamed_targets.add(renamed)
            parts.append(f"keyword `{keyword}=` was renamed to `{renamed}=`")
            suggestion = suggestion or _keyword_fix(view, site, call, keyword, renamed)
        elif old_sig.param(keyword) is not None:
            parts.append(f"parameter `{keyword}` was removed; drop `{keyword}=` from the call")
        else:
            parts.append(f"keyword `{keyword}=` is not accepted")
    missing = [name for name in result.missing if name not in renamed_targets]
    if missing:
        names = ", ".join(f"`{name}`" for name in missing)
        added = [n for n in missing if old_sig.param(n) is None]
        what = "new required argument" if len(added) == len(missing) else "required argument"
        parts.append(f"missing {what}{'s' if len(missing) > 1 else ''} {names}; pass a value")
    for name in result.duplicate:
        parts.append(f"`{name}` now receives both a positional argument and `{name}=`")
    return "; ".join(parts) or result.message, suggestion


def _keyword_fix(view: RepoView, site: Site, call: ast.Call, old: str, new: str) -> Suggestion | None:
    for keyword in call.keywords:
        if keyword.arg != old or keyword.end_lineno is None:
            continue
        line = keyword.lineno
        text = view.line_text(site.path, line)
        start = byte_to_char_col(text, keyword.col_offset) - 1
        if text[start : start + len(old)] != old:
            return None
        return Suggestion(
            start_line=line, end_line=line, replacement=text[:start] + new + text[start + len(old) :]
        )
    return None


def _finding(
    view: RepoView,
    target: Target,
    site: Site,
    new_sig: Signature,
    problem: str,
    suggestion: Suggestion | None,
) -> Finding:
    change = target.change
    old_shown = change.old_signature.for_call(bound=site.bound)
    new_shown = new_sig
    if change.new.name == "__init__":
        leaf = target.display.rsplit(".", 1)[-1]
        old_shown, new_shown = replace(old_shown, name=leaf), replace(new_shown, name=leaf)
    old_render, new_render = compact_pair(old_shown, new_shown)
    display = target.display
    title = f"Call to `{display}` no longer matches its signature"
    message = (
        f"{problem[0].upper()}{problem[1:]}. This PR changed `{display}` in {target.path}:{change.new.line} "
        f"from `{old_render}` to `{new_render}`, and this call was not updated."
    )
    if site.evidence == "probable":
        message += (
            " (The receiver's type is not known statically; no other definition of this name fits the call.)"
        )
    return make_finding(
        rule=RULE,
        severity=Severity.ERROR,
        path=site.path,
        line=site.line,
        column=site.col,
        end_column=site.col + len(site_name(site)),
        confidence=1.0 if site.evidence == "exact" else 0.75,
        title=title,
        message=message,
        anchor=view.line_text(site.path, site.line),
        suggestion=suggestion,
        related=[Related(path=target.path, line=change.new.line, message=f"`{display}` is defined here")],
    )
