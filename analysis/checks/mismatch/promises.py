"""Whether anything in the repository relies on an optional part of a base method's signature.

A base method that gains an optional parameter (or `*args` / `**kwargs`) promises more than its overrides
take, but no call fails until some call passes it. Real history is full of such additions used only
through `super()` by the override that needed them (sqlalchemy's `connect_args(url, _translate=None)`):
an alarm on every other override would be noise. So an optional promise an override does not keep is
reported only when a call in the repository passes that argument to a method of that name. A required
parameter, `async` and an override that demands more than the base are always reported: every call of
the base breaks them.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, NamedTuple, Protocol

from prscope.analysis.checks.mismatch.capabilities import calls_under_flags
from prscope.analysis.checks.mismatch.method_calls import (
    FoundCalls,
    from_imports,
    method_calls,
    own_nodes,
    passed_only_when_given,
    spelled_on_lines,
)
from prscope.analysis.checks.tree_memo import TreeMemo
from prscope.analysis.intel.files import attribute_spelling
from prscope.analysis.intel.resolve import absolute_module
from prscope.analysis.intel.scopes import is_super_call, nested_statements
from prscope.analysis.intel.signatures import ParamKind, Signature, has_splat

if TYPE_CHECKING:
    from prscope.analysis.checks.resolve import ModuleNames

MAX_FILES_SCANNED = 400
"""Past this many files naming the method, the evidence is assumed (reported, as before the filter)."""


class CallSource(Protocol):
    def files_with_word(self, word: str) -> list[str]: ...

    def text(self, path: str) -> str | None: ...

    def module(self, path: str) -> str | None: ...

    def module_path(self, module: str) -> str | None: ...

    @property
    def tree_memo(self) -> TreeMemo: ...

    def tree(self, path: str) -> ast.Module | None: ...

    def subclasses(self, class_aliases: set[str], *, depth: int = 5) -> set[str]: ...

    def ancestors(self, classes: set[str]) -> set[str]: ...

    def receiver_classes(self, path: str, call: ast.Call) -> frozenset[str] | None: ...

    def class_node(self, dotted: str) -> tuple[ModuleNames, ast.ClassDef] | None: ...


def optional_promise(key: str, base: Signature) -> bool:
    """Whether problem `key` of `broken_promises` is about something calls of `base` may leave out."""
    if key in ("*args", "**kwargs"):
        return True
    kind, _, name = key.partition(":")
    if kind == "named":
        return True  # a renamed positional parameter: only calls passing it by its new name break
    if kind not in ("positional", "keyword"):
        return False
    parameter = base.param(name)
    return parameter is not None and parameter.has_default


@dataclass(frozen=True)
class Pairing:
    """The base method whose promises are checked, and what its override accepts."""

    base: Signature
    base_class: str = ""
    override: Signature | None = None
    family_keywords: frozenset[str] = frozenset()
    """Parameters the overrides in the family declare by name: a keyword among them that the base only
    takes through its new `**kw` is addressed to the override that names it (`replace_existing=` for
    `Table.append_column`), not a promise every override must keep."""
    family_classes: frozenset[str] = frozenset()
    """Names of the base class and every class deriving from it (empty: not known)."""
    reachable: frozenset[str] = frozenset()
    """Dotted classes whose instances may be an override's: the family and the base's ancestors (empty:
    not known, every call counts)."""
    flags_off: frozenset[str] = frozenset()
    """Capability flags the base declares `False` and the override's class leaves so."""
    replaced: frozenset[str] = frozenset()
    """Methods the override's class defines without calling the base's version (`super().name`): a call
    on `self` in another class's version of one never runs on the override's instances."""
    override_class: str = ""
    override_lineage: frozenset[str] = frozenset()
    """Dotted paths of the override's class and of every class deriving from it; empty when not known. A
    call on a sibling class's instance never runs on the override (arctic 6cdc3ad6bf: only a
    `DataFrameSerializer` is passed `force_bytes_to_unicode=`, never a `SeriesSerializer`; click
    78a62b37c9: `Option`'s `self.get_default(ctx, call=False)` never reaches a test's `Argument`)."""
    kwargs_ignored: bool = False
    """The base's `**kw` is never read by its body: it is there so that overrides may take keywords of
    their own (itsdangerous aed5b260 gives `Serializer.loads` a `**kwargs` for the type checker), and a
    `**splat` a call passes is addressed to those overrides, not to the base."""

    forwards_to: Signature | None = None
    """The signature of the one method of its own class the base hands all its `*args, **kw` on to,
    when no subclass redefines that method: a call it rejects fails on the base too."""

    def override_takes_keyword(self, name: str) -> bool:
        if self.override is None:
            return False
        found = self.override.param(name)
        return self.override.has_var_keyword or (found is not None and found.accepts_keyword)


class PromiseUse(NamedTuple):
    used: set[str]
    """The promises some call relies on."""
    gated: bool
    """Whether a call passes the new arguments only behind a capability flag the override's class leaves
    off (known when some promise is unused: the calls are read to the end then)."""


def used_promises(keys: Iterable[str], pairing: Pairing, method: str, calls: CallSource) -> PromiseUse:
    """The optional promises in `keys` that some call `x.method(...)` relies on. Not counted: calls through
    `super()`, calls on a local made by the base class's own constructor (`loader = Load(path)`), which is
    never an instance of the override's class, a keyword the override still takes (through `**kw`)
    passed to a parameter whose positional slot it lacks, calls behind a capability flag the override
    leaves off, and calls on what the inference tells to be another class."""
    wanted = set(keys)
    reads = _file_reads(calls, method, pairing)
    if reads is None:
        return PromiseUse(wanted, gated=False)
    used: set[str] = set()
    # What calls on another class's instances pass: a same-named dispatcher outside the family (a cache
    # backend's `set(self, *args, **kwargs)` handing on to its client) relays exactly those.
    relayed_by_others: set[str] = set()
    relaying = False
    gated = False
    flagged: dict[int, set[int]] = {}
    for path, read in reads:
        owners = _MethodOwners(read.owners)
        for call, scope, guarded in read.found:
            if guarded:
                continue
            if pairing.flags_off:
                if id(scope) not in flagged:
                    flagged[id(scope)] = calls_under_flags(own_nodes(scope), pairing.flags_off)
                if id(call) in flagged[id(scope)]:
                    gated = True
                    continue
            if id(call) in read.kept_for_old_overrides:
                continue  # the caller keeps the old call for overrides written before the new argument
            if owners.replaced_by_the_override(scope, call, pairing):
                continue  # pyftpdlib d20d518d95: `FTPServer.serve_forever`, which `_SpawnerBase` replaces
            if owners.beside_the_override(scope, call, method, pairing, path, calls):
                continue
            forwarded = _forwarded(scope, method, owners.outside_family(scope, method, pairing))
            relaying = relaying or forwarded.relayed
            call = _with_short_tuples_spread(call, scope)
            relied = {key for key in wanted - used if _relies_on(call, key, pairing, forwarded)}
            if relied and _elsewhere(calls, path, call, pairing):  # the inference only when it matters
                relayed_by_others |= relied
            else:
                used |= relied
            if relaying:
                used |= relayed_by_others
            if used == wanted:
                return PromiseUse(used, gated)
    return PromiseUse(used, gated)


class _MethodOwners:
    """The class each scope of a file's calls is a method of."""

    def __init__(self, owners: dict[int, str]) -> None:
        self._owners = owners

    def replaced_by_the_override(self, scope: ast.AST, call: ast.Call, pairing: Pairing) -> bool:
        """Whether `call` is on `self` in a method of another class that the override's class replaces
        (without calling it through `super()`): on the override's instances, that method never runs."""
        name = getattr(scope, "name", None)
        if name not in pairing.replaced or self_attribute_call(call) is None:
            return False
        owner = self._owner(scope)
        return owner is not None and owner != pairing.override_class

    def _owner(self, scope: ast.AST) -> str | None:
        return self._owners.get(id(scope))

    def beside_the_override(
        self, scope: ast.AST, call: ast.Call, method: str, pairing: Pairing, path: str, calls: CallSource
    ) -> bool:
        """Whether `call` is `self.method(...)` in a method of a class that is neither the override's
        class, nor one it derives from, nor one deriving from it, and that no class derives from together
        with it: `self` there is never an instance of the override's class (django-allauth 66135fdcb3:
        the test mixin's `login` made `resp_mock` optional for `OpenIDConnectTests`, whose `self.login()`
        never runs on `AppleTests`)."""
        if not pairing.override_lineage or self_attribute_call(call) != method:
            return False
        module, owner = calls.module(path), self._owner(scope)
        if module is None or owner is None:
            return False
        dotted = f"{module}.{owner}"
        if dotted not in pairing.reachable or dotted in pairing.override_lineage:
            return False
        return calls.subclasses({dotted}).isdisjoint(pairing.override_lineage)

    def outside_family(self, scope: ast.AST, method: str, pairing: Pairing) -> bool:
        """Whether `scope` is a method named `method` of a class that is neither in the base's (known)
        family nor one of its ancestors (pyrogram's `Object.read`, above `Bytes.read`, is the method)."""
        if not pairing.family_classes or not pairing.reachable or getattr(scope, "name", None) != method:
            return False
        owner = self._owner(scope)
        related = pairing.family_classes | {dotted.rsplit(".", 1)[-1] for dotted in pairing.reachable}
        return owner is not None and owner not in related


def every_call_passes(
    parameter: str,
    pairing: Pairing,
    method: str,
    calls: CallSource,
    *,
    old_base: Signature | None = None,
    adapting_only: bool = False,
) -> bool:
    """Whether the repository calls `x.method(...)` and every such call passes the override's `parameter`
    (by keyword, or positionally at its slot): the callers follow the implementations, and the base's
    own signature is what is out of date (huey babc25e9: `create_worker(self.stop_flag, ...)` against an
    abstract `create_worker(self, **k)` whose implementations all take `stop_flag`). With `old_base` (the
    PR changed the stub), a call written for the old stub and not the new one is stale, no evidence. A call
    under a branch that inspects the method first passes whatever the callee takes; with `adapting_only`,
    only such calls count."""
    override = pairing.override
    own = override.param(parameter) if override is not None else None
    if override is None or own is None:
        return False
    slots = [p.name for p in override.parameters if p.accepts_positional]
    found = _calls_that_may_reach(pairing, method, calls)
    if not found:
        return False
    passing, relayed = 0, False
    for call, guarded in found:
        if guarded:
            continue
        if adapting_only:
            return False
        if _relays_everything(call):
            relayed = True  # `self._get_subtitles(*args, **kwargs)` in a wrapper: what its callers pass
            continue
        if _only_splats(call) and _names_no_parameter(pairing.base):
            # s3transfer 883903de19: `Task.__call__` runs `self._main(**kwargs)` with the task's own
            # dictionary, against a stub `_main(self, **kwargs)`: what the dictionary holds is the promise.
            relayed = True
            continue
        if not _passes(call, parameter, own.accepts_positional and parameter in slots, slots):
            return False
        if old_base is not None and _stale(call, old_base, pairing.base):
            return False
        passing += 1
    # Only relays: a base that names no parameter (`_get_subtitles(self, *args, **kwargs)`) promises none.
    return passing > 0 or not relayed or _names_no_parameter(pairing.base)


def _names_no_parameter(signature: Signature) -> bool:
    return all(p.kind in (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD) for p in signature.parameters)


def omitted_only_beside(parameter: str, pairing: Pairing, method: str, calls: CallSource) -> bool:
    """Whether every call `x.method(...)` of the repository that leaves out the override's `parameter`
    runs on something that is never an instance of the override's class: `self.method()` in a class beside
    it, or a receiver the inference tells to be another class."""
    override = pairing.override
    own = override.param(parameter) if override is not None else None
    if override is None or own is None:
        return False
    reads = _file_reads(calls, method, pairing)
    if reads is None:
        return False
    slots = [p.name for p in override.parameters if p.accepts_positional]
    for path, read in reads:
        owners = _MethodOwners(read.owners)
        for call, scope, _guarded in read.found:
            if _passes(call, parameter, own.accepts_positional and parameter in slots, slots):
                continue
            if not has_splat(call) and pairing.base.binds(call).status == "error":
                continue  # the base rejects it: another `login`, like `self.client.login(username=...)`
            if not (
                owners.beside_the_override(scope, call, method, pairing, path, calls)
                or _elsewhere(calls, path, call, pairing)
            ):
                return False
    return True


def no_call_passes(
    parameter: str, by_position: bool, pairing: Pairing, method: str, calls: CallSource
) -> bool:
    """Whether the repository calls `x.method(...)` and no call can pass the base's `parameter` at its
    slot (`by_position`) or else by keyword."""
    slots = [p.name for p in pairing.base.parameters if p.accepts_positional]
    if parameter not in slots:
        return False
    found = _allmethod_calls(pairing, method, calls)
    slot = slots.index(parameter) if by_position else None
    return bool(found) and not any(_may_pass(call, parameter, slot) for call, _guarded in found or [])


MethodCalls = list[tuple[ast.Call, bool]]


def _allmethod_calls(pairing: Pairing, method: str, calls: CallSource) -> MethodCalls | None:
    """Every `x.method(...)` of the repository that may reach the base's family, with whether it is
    guarded by an inspection of the method; None when too many files mention the name to read them."""
    reads = _file_reads(calls, method, pairing)
    if reads is None:
        return None
    return [(call, guarded) for _path, read in reads for call, _scope, guarded in read.found]


def _calls_that_may_reach(pairing: Pairing, method: str, calls: CallSource) -> MethodCalls | None:
    """`_allmethod_calls` without the calls on `self` in a method of a class that is neither of the base's
    family nor above it (Mailpile fef0260b9a: the mailboxes' `self._lookup(key)` is `mailbox.Maildir`'s,
    never the key lookup handlers'); all of them when the family's ancestry is not known."""
    reads = _file_reads(calls, method, pairing)
    if reads is None:
        return None
    kept: MethodCalls = []
    for path, read in reads:
        module = calls.module(path)
        for call, scope, guarded in read.found:
            owner = read.owners.get(id(scope))
            elsewhere = (
                bool(pairing.reachable)
                and owner is not None
                and module is not None
                and self_attribute_call(call) == method
                and f"{module}.{owner}" not in pairing.reachable
            )
            if not elsewhere:
                kept.append((call, guarded))
    return kept


def _file_reads(calls: CallSource, method: str, pairing: Pairing) -> Iterator[tuple[str, FileCalls]] | None:
    """The calls `x.method(...)` of each file that spells the attribute, read lazily (a caller may stop at
    the first answer); None when too many files mention the name to read them."""
    files = calls.files_with_word(method)
    if len(files) > MAX_FILES_SCANNED:
        return None
    return _read_each(calls, _spelling_the_attribute(calls, files, method), method, pairing)


def _read_each(
    calls: CallSource, paths: list[str], method: str, pairing: Pairing
) -> Iterator[tuple[str, FileCalls]]:
    for path in paths:
        read = _calls_in(calls, path, method, pairing)
        if read is not None:
            yield path, read


@dataclass(frozen=True)
class FileCalls:
    """A file's calls `x.method(...)` with their scopes, and the class each of those scopes is a method
    of (by the scope's id: the calls keep their scopes alive, never the whole tree)."""

    found: FoundCalls
    owners: dict[int, str]
    kept_for_old_overrides: frozenset[int]
    """Ids of the calls kept for overrides written before a new argument (`passed_only_when_given`)."""


def _calls_in(calls: CallSource, path: str, method: str, pairing: Pairing) -> FileCalls | None:
    base_class, family = pairing.base_class, pairing.family_classes
    above = frozenset(dotted.rsplit(".", 1)[-1] for dotted in pairing.reachable) - family
    text = calls.text(path) or ""

    def read(tree: ast.Module) -> FileCalls:
        lines = spelled_on_lines(text, method)
        modules = _modules_imported_from(calls, path, tree)
        found = list(method_calls(tree, method, base_class, family, lines, modules, above))
        scopes = {id(scope): scope for _call, scope, _guarded in found}
        owners = {key: owner for key, owner in _method_owners(tree).items() if key in scopes} if found else {}
        kept: set[int] = set()
        for scope in scopes.values():
            kept |= passed_only_when_given(list(own_nodes(scope)), method)
        return FileCalls(found, owners, frozenset(kept))

    return calls.tree_memo.answer(path, ("method_calls", method, base_class, family, above), read)


def _modules_imported_from(calls: CallSource, path: str, tree: ast.Module) -> frozenset[str]:
    """Names the file binds to repository modules by `from package import module` (apprise's test
    `from apprise import utils`, then `utils.parse_url(url, plus_to_space=True)`: a module's function,
    not a call of the plugins' `parse_url`)."""
    own, is_package = calls.module(path), path.endswith("__init__.py")
    bound: set[str] = set()
    for level, module, name, alias in from_imports(tree):
        base = absolute_module(own, is_package, level, module)
        if base is not None and calls.module_path(f"{base}.{name}") is not None:
            bound.add(alias)
    return frozenset(bound)


def _spelling_the_attribute(calls: CallSource, files: list[str], method: str) -> list[str]:
    """The files among `files` where `.method` is spelled: only those can call it or hand it on. The
    word alone is in far more (sqlalchemy's `set`: hundreds of files, 29 with `.set`), each parsed and
    walked whole otherwise."""
    spelled = attribute_spelling(method)
    return [path for path in files if spelled.search(calls.text(path) or "")]


def _may_pass(call: ast.Call, parameter: str, slot: int | None) -> bool:
    """Whether the call may pass `parameter` at positional `slot`, or (no slot) by keyword; a splat may."""
    if slot is None:
        return any(k.arg in (parameter, None) for k in call.keywords)
    if any(isinstance(a, ast.Starred) for a in call.args):
        return True
    positional = len(call.args) - (1 if _passes_self_explicitly(call) else 0)
    return positional > slot


def _stale(call: ast.Call, old_base: Signature, new_base: Signature) -> bool:
    """A call that fits the base as it was and not as it is: left behind, like the overrides (httpx
    ff9813e8's `handle_request(method, url, headers, stream, extensions)`)."""
    return old_base.binds(call).status != "error" and new_base.binds(call).status == "error"


def _relays_everything(call: ast.Call) -> bool:
    """`x.m(*args, **kwargs)` and nothing else: a wrapper handing on whatever it was given (yt-dlp
    eef1e9f44f: `extract_subtitles(self, *args, **kwargs)` calls `self._get_subtitles(*args, **kwargs)`,
    and its callers pass the override's new `user_url`). It passes what its callers pass; it is no call
    that leaves a parameter out."""
    return (
        len(call.args) == 1
        and isinstance(call.args[0], ast.Starred)
        and len(call.keywords) == 1
        and call.keywords[0].arg is None
    )


def _only_splats(call: ast.Call) -> bool:
    """`x.m(**kwargs)`, `x.m(*args)`: every argument is unpacked from a value built at run time."""
    unpacked = all(isinstance(a, ast.Starred) for a in call.args) and all(
        k.arg is None for k in call.keywords
    )
    return unpacked and bool(call.args or call.keywords)


def _passes(call: ast.Call, parameter: str, positional_slot: bool, slots: list[str]) -> bool:
    """Whether the call passes `parameter` by keyword or at its positional slot (splats cannot be read)."""
    if has_splat(call):
        return False
    if any(k.arg == parameter for k in call.keywords):
        return True
    positional = len(call.args) - (1 if _passes_self_explicitly(call) else 0)
    return positional_slot and positional > slots.index(parameter)


def _with_short_tuples_spread(call: ast.Call, scope: ast.AST) -> ast.Call:
    """The call with `*name` replaced by its most elements, when the function binds `name` only to tuple
    displays (netmiko's `cfg_mode_args = (command,) if command else tuple()` then
    `self.config_mode(*cfg_mode_args)`: at most one positional argument)."""
    spread: list[ast.expr] = []
    changed = False
    for argument in call.args:
        length = _tuple_length(scope, argument.value) if isinstance(argument, ast.Starred) else None
        if length is None:
            spread.append(argument)
        else:
            spread.extend(ast.Constant(value=None) for _ in range(length))
            changed = True
    return ast.Call(func=call.func, args=spread, keywords=call.keywords) if changed else call


def _tuple_length(scope: ast.AST, value: ast.expr) -> int | None:
    """The most elements local `value` holds, when each binding of it is a plain assignment of a tuple
    display (or `tuple()`); None otherwise (a parameter, an unpacking, a loop, anything else)."""
    if not isinstance(value, ast.Name) or not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return None
    arguments = scope.args
    every = [
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        arguments.vararg,
        arguments.kwarg,
    ]
    if any(a is not None and a.arg == value.id for a in every):
        return None
    nodes = list(own_nodes(scope))
    plain = {
        id(node.targets[0]): node.value
        for node in nodes
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name)
    }
    lengths: list[int] = []
    for node in nodes:
        if isinstance(node, ast.Name) and node.id == value.id and not isinstance(node.ctx, ast.Load):
            assigned = plain.get(id(node))
            length = _display_length(assigned) if assigned is not None else None
            if length is None:
                return None
            lengths.append(length)
        elif isinstance(node, ast.Global | ast.Nonlocal) and value.id in node.names:
            return None
    return max(lengths) if lengths else None


def _display_length(node: ast.expr) -> int | None:
    if isinstance(node, ast.Tuple) and not any(isinstance(e, ast.Starred) for e in node.elts):
        return len(node.elts)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "tuple"
        and not node.args
    ):
        return 0
    if isinstance(node, ast.IfExp):
        body, orelse = _display_length(node.body), _display_length(node.orelse)
        return None if body is None or orelse is None else max(body, orelse)
    return None


class Forwarded(NamedTuple):
    """The enclosing function's own `*args` and `**kw` parameters, which a call may pass on as they came."""

    args: str | None = None
    kwargs: str | None = None
    relayed: bool = False
    """A method of the same name outside the base's family: everything it passes on comes from calls of
    that name, which are read as calls of their own."""


def _forwarded(scope: ast.AST, method: str, outside_family: bool = False) -> Forwarded:
    """What the scope passes on as it came. Its `*args` only when it is a function of another name, or a
    method of that name of a class outside the base's family: a `read(b, *args)` of the family that
    dispatches to some class's `read(b, *args)` (pyrogram 055367fe) is the method itself, called with
    what the method's own callers pass; django-redis's cache backend `delete(self, *args, **kwargs)`
    handing on to its client's `delete` is another API, whose callers are calls of that name too."""
    if not isinstance(scope, ast.FunctionDef | ast.AsyncFunctionDef):
        return Forwarded()
    vararg, kwarg = scope.args.vararg, scope.args.kwarg
    passes_on = vararg is not None and (scope.name != method or outside_family)
    # Only a splat relays: a dispatcher with parameters of its own binds its callers' keywords itself
    # (broadcaster d5572363's `Broadcast.publish(self, group, message)` hands `group` on by position).
    relayed = outside_family and scope.name == method and (vararg is not None or kwarg is not None)
    return Forwarded(vararg.arg if vararg and passes_on else None, kwarg.arg if kwarg else None, relayed)


def self_attribute_call(value: ast.expr | None) -> str | None:
    """`x` for `self.x(...)`."""
    if (
        isinstance(value, ast.Call)
        and isinstance(value.func, ast.Attribute)
        and isinstance(value.func.value, ast.Name)
        and value.func.value.id == "self"
    ):
        return value.func.attr
    return None


def replaced_methods(node: ast.ClassDef | None) -> frozenset[str]:
    """Methods the class defines whose body does not call the base's version through `super()`."""
    if node is None:
        return frozenset()
    replaced: set[str] = set()
    for statement in node.body:
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef) and not any(
            isinstance(n, ast.Attribute) and n.attr == statement.name and is_super_call(n.value)
            for n in ast.walk(statement)
        ):
            replaced.add(statement.name)
    return frozenset(replaced)


def _method_owners(tree: ast.Module) -> dict[int, str]:
    """The class each method of the module is written in (by the method node's id)."""
    owners: dict[int, str] = {}
    for node in nested_statements(tree.body):
        if isinstance(node, ast.ClassDef):
            for statement in node.body:
                if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                    owners[id(statement)] = node.name
    return owners


def _elsewhere(calls: CallSource, path: str, call: ast.Call, pairing: Pairing) -> bool:
    """Whether the inference tells the receiver whole and none of it can be an override's: a class outside
    the base's family (mopidy's `registry.add('backend', LocalBackend)` is an extension registry's `add`,
    not `Library.add`), or classes of the family none of whose subclasses is the override's class or
    derives from it (arctic 6cdc3ad6bf: `self.SERIALIZER.deserialize(...)` on a `DataFrameSerializer`,
    beside the `SeriesSerializer` override)."""
    if not pairing.reachable:
        return False
    held = calls.receiver_classes(path, call)
    if held is None:
        return False
    if held.isdisjoint(pairing.reachable):
        return True
    lineage = pairing.override_lineage
    return bool(lineage) and all(
        c != "<foreign>" and (calls.subclasses({c}) | {c}).isdisjoint(lineage) for c in held
    )


def _relies_on(call: ast.Call, key: str, pairing: Pairing, forwarded: Forwarded) -> bool:
    """Whether the call may rely on the promise `key`. A splat of the enclosing function's own `*args`
    passes on what that function's callers gave (webargs 0951e218: `use_kwargs(self, *args, **kwargs)`
    ends in `self.use_args(*args, **kwargs)`): those callers are what may rely on a positional slot, and
    they are calls of another name. So is its own `**kw`, for the promise of arbitrary keywords."""
    base = pairing.base
    if key in ("*args", "**kwargs") and _rejected_where_the_base_forwards(call, pairing):
        return False  # scapy 97a49f32b9: `pkt.show(label_lvl=...)` is a Packet's, not a packet list's
    splats = [argument for argument in call.args if isinstance(argument, ast.Starred)]
    passed_on_args = [splat for splat in splats if _is_name(splat.value, forwarded.args)]
    splat_args = len(splats) > len(passed_on_args)
    splat_kwargs = any(
        keyword.arg is None and not (forwarded.relayed and _is_name(keyword.value, forwarded.kwargs))
        for keyword in call.keywords
    )
    positional = len(call.args) - len(passed_on_args) - (1 if _passes_self_explicitly(call) else 0)
    named = {keyword.arg for keyword in call.keywords if keyword.arg is not None}
    known = {p.name for p in base.parameters}
    slots = [p.name for p in base.parameters if p.accepts_positional]
    if key == "*args":
        # The override lacks `*args`: only what it cannot take by position fails there.
        own = [p for p in pairing.override.parameters if p.accepts_positional] if pairing.override else slots
        return splat_args or positional > len(own)
    if key == "**kwargs":
        # sqlalchemy 9e82f32f: `self._set_parent(parent, **kw)` inside a function taking `**kw`.
        passed_on = [k for k in call.keywords if k.arg is None and not _is_name(k.value, forwarded.kwargs)]
        return (bool(passed_on) and not pairing.kwargs_ignored) or bool(
            named - known - pairing.family_keywords
        )
    kind, _, name = key.partition(":")
    if kind == "named":
        return name in named  # a `**kwargs` splat cannot be read: not counted
    parameter = base.param(name)
    by_keyword = name in named or splat_kwargs
    if kind == "keyword" or parameter is None or parameter.kind is ParamKind.KEYWORD_ONLY:
        return by_keyword
    if pairing.override_takes_keyword(name):
        by_keyword = False  # the slot is missing, the keyword still arrives
    return by_keyword or splat_args or positional > slots.index(name)


def _rejected_where_the_base_forwards(call: ast.Call, pairing: Pairing) -> bool:
    """Whether the method the base hands everything on to rejects the call (splats cannot be read)."""
    target = pairing.forwards_to
    if target is None or _passes_self_explicitly(call):
        return False
    if has_splat(call):
        return False
    return target.binds(call).status == "error"


def _passes_self_explicitly(call: ast.Call) -> bool:
    """`task_that_delegates.run(self)`, `Base.method(self, x)`: the instance is the first argument of a
    call through the class, not an argument of the method."""
    receiver = call.func.value if isinstance(call.func, ast.Attribute) else None
    first = call.args[0] if call.args else None
    return (
        isinstance(first, ast.Name)
        and first.id == "self"
        and not (isinstance(receiver, ast.Name) and receiver.id == "self")
    )


def _is_name(node: ast.expr, name: str | None) -> bool:
    return name is not None and isinstance(node, ast.Name) and node.id == name
