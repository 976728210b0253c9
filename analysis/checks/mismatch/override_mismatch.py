"""`override-mismatch`: after the PR, an override no longer accepts the calls its base method accepts.

Either the PR changes a base method and an override in a repository subclass is left behind (a new
required argument it does not take, a keyword it lacks, `async` on one side only), or the PR changes an
override so that it rejects calls the base still accepts. Only problems the PR introduces are reported, on
the override's `def` line, with the base definition as related information. An override taking
`*args, **kwargs` accepts everything. An optional part of the base's signature that an override lacks
and no call in the repository passes yet is latent: reported as a `note` when the base is an interface
(its body a stub) and the name public, not at all otherwise (see `latent`), nor for an override that
already broke the base's promises at the parent (a dummy or a mock).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, replace

from prscope.analysis.changeset.budget import is_test_path
from prscope.analysis.checks.context import CheckContext, line_at, make_finding
from prscope.analysis.checks.mismatch.awaiting import declared_awaitable
from prscope.analysis.checks.mismatch.callers import only_called_where_overridden
from prscope.analysis.checks.mismatch.capabilities import flags_left_off
from prscope.analysis.checks.mismatch.compat import (
    bound,
    broken_promises,
    problems_the_override_had,
    renamed_in_place,
    short,
)
from prscope.analysis.checks.mismatch.decorators import DecoratorOracle
from prscope.analysis.checks.mismatch.defs import (
    ChangedFile,
    FunctionFacts,
    changed_python_files,
    collect_functions,
    own_body_nodes,
)
from prscope.analysis.checks.mismatch.latent import (
    forwarded_keywords,
    forwards_everything_to,
    kwargs_never_read,
    still_reported,
)
from prscope.analysis.checks.mismatch.promises import (
    CallSource,
    Pairing,
    every_call_passes,
    no_call_passes,
    omitted_only_beside,
    optional_promise,
    replaced_methods,
    self_attribute_call,
    used_promises,
)
from prscope.analysis.checks.mismatch.resolution import Hierarchy, MethodAt
from prscope.analysis.findings import Finding, Related, Severity
from prscope.analysis.intel.signatures import Parameter, Signature

RULE = "override-mismatch"
SEVERITY = Severity.WARNING
_FEW_KEEP = 3
"""Other overrides that must leave out a base's optional parameter before it counts as a promise most
implementations never kept."""

# Constructors and class hooks are not called through a base-class reference: their signatures may differ.
_NOT_SUBSTITUTED = frozenset(
    {"__init__", "__new__", "__init_subclass__", "__class_getitem__", "__post_init__"}
)


@dataclass(frozen=True)
class Pair:
    """A base method and an override, each as the base revision and the reviewed head define them."""

    base: MethodAt
    base_old: FunctionFacts
    override: MethodAt
    override_old: FunctionFacts
    base_changed: bool


def check_override_mismatch(ctx: CheckContext, view: CallSource) -> list[Finding]:
    hierarchy = Hierarchy(ctx.index)
    oracle = DecoratorOracle(ctx.index)
    old_sides = _OldSides(ctx)
    changed = list(changed_python_files(ctx))
    old_sides.remember(changed)
    findings: list[Finding] = []
    seen: set[tuple[str, int]] = set()
    for file in changed:
        for raw_old, raw_new in file.pairs():
            if not _signature_changed(raw_old, raw_new):
                continue  # before `_comparable`: its decorator lookups are for changed methods only
            called = _comparable(oracle, file.module, raw_old, raw_new)
            if called is None:
                continue
            old, new = called
            if ctx.out_of_time(RULE, f"`{new.qualname}` in {file.path}"):
                return findings
            head = MethodAt(file.path, file.module, new)
            pairs = _pairs(hierarchy, oracle, old_sides, head, old)
            declared = frozenset(p.name for pair in pairs for p in pair.override.facts.signature.parameters)
            declared |= _declared_by_every_override(hierarchy, pairs)
            for pair in pairs:
                if not pair.base_changed and _every_implementation_left(hierarchy, old_sides, pair):
                    continue
                unkept = (
                    frozenset() if pair.base_changed else _promises_most_overrides_never_kept(hierarchy, pair)
                )
                key = (pair.override.path, pair.override.facts.line)
                finding = _judge(pair, ctx, view, declared, unkept)
                if finding is not None and key not in seen:
                    seen.add(key)
                    findings.append(finding)
    return findings


def _declared_by_every_override(hierarchy: Hierarchy, pairs: list[Pair]) -> frozenset[str]:
    """Parameters every override of the pairs' bases declares, the unchanged ones too: when the PR changed
    one override, a keyword that a sibling names (`return_header=` for itsdangerous's JWS serializer) is
    addressed to that sibling, not to the base."""
    names: set[str] = set()
    for base in {(pair.base.module, pair.base.class_name, pair.base.facts.name) for pair in pairs}:
        for override in hierarchy.overrides(*base):
            names.update(p.name for p in override.facts.signature.parameters)
    return frozenset(names)


def _every_implementation_left(hierarchy: Hierarchy, old_sides: _OldSides, pair: Pair) -> bool:
    """Whether the PR changed the signature of every override of a stub base it left as it was (emmett
    adfb100d19: `Router.dispatch(self)` only raises, and both routers now take the request): the PR
    changed the interface in practice, and the stub is what is out of date. Its callers are breaking-call's
    to judge; no call reaches the stub's own body."""
    base = pair.base
    if not base.facts.is_stub or _signature_changed(pair.base_old, base.facts):
        return False
    overrides = hierarchy.overrides(base.module, base.class_name, base.facts.name)
    for override in overrides:
        old = old_sides.old(override)
        if old is not None and not _signature_changed(old, override.facts):
            return False
    return len(overrides) > 1


def _promises_most_overrides_never_kept(hierarchy: Hierarchy, pair: Pair) -> frozenset[str]:
    """Optional parameters of a base the PR left as it was that most of its other overrides (at least
    `_FEW_KEEP`) do not take either (libcloud 7a867fede6: 35 of 53 drivers' `create_node` leave out the
    base's `auth=`, which a driver takes only when it supports it): not a promise the family keeps."""
    base = pair.base
    optional = [p.name for p in bound(base.facts.signature).parameters if p.has_default]
    if pair.base_changed or not optional or _signature_changed(pair.base_old, base.facts):
        return frozenset()
    others = [
        o.facts.signature
        for o in hierarchy.overrides(base.module, base.class_name, base.facts.name)
        if (o.path, o.facts.line) != (pair.override.path, pair.override.facts.line)
    ]
    unkept: set[str] = set()
    for name in optional:
        lacking = sum(not (s.has_var_keyword or any(p.name == name for p in s.parameters)) for s in others)
        if lacking >= _FEW_KEEP and lacking > len(others) - lacking:
            unkept.add(name)
    return frozenset(unkept)


def _signature_changed(old: FunctionFacts, new: FunctionFacts) -> bool:
    return old.is_async != new.is_async or bound(old.signature).parameters != bound(new.signature).parameters


def _comparable(
    oracle: DecoratorOracle, module: str, old: FunctionFacts, new: FunctionFacts
) -> tuple[FunctionFacts, FunctionFacts] | None:
    """Both sides of a method as its callers see them (see `DecoratorOracle.as_called`), when the method
    is one whose argument lists compare; None otherwise."""
    if not (
        new.class_qualname is not None
        and "." not in new.class_qualname
        and new.name not in _NOT_SUBSTITUTED
        and old.kind == new.kind
        and new.kind in ("method", "staticmethod", "classmethod")
    ):
        return None
    old_called, new_called = oracle.as_called(module, old), oracle.as_called(module, new)
    return None if old_called is None or new_called is None else (old_called, new_called)


class _OldSides:
    """Base-revision definitions of the changed files, to tell problems the PR introduced from old ones."""

    def __init__(self, ctx: CheckContext) -> None:
        self._ctx = ctx
        self._changed: dict[str, ChangedFile] = {}

    def remember(self, files: list[ChangedFile]) -> None:
        self._changed = {file.path: file for file in files}

    def old(self, method: MethodAt) -> FunctionFacts | None:
        """The method at the base revision: itself when its file did not change; None when it is new."""
        changed = self._changed.get(method.path)
        if changed is not None:
            return changed.old.get(method.facts.qualname)
        if any(c.path == method.path for c in self._ctx.cs.files):
            tree = self._ctx.tree("old", method.path)
            return collect_functions(tree).get(method.facts.qualname) if tree is not None else None
        return method.facts


def _pairs(
    hierarchy: Hierarchy, oracle: DecoratorOracle, old_sides: _OldSides, head: MethodAt, old: FunctionFacts
) -> list[Pair]:
    pairs: list[Pair] = []
    class_name, name = head.class_name, head.facts.name
    for override in hierarchy.overrides(head.module, class_name, name):
        override_old = old_sides.old(override)
        called = (
            None
            if override_old is None
            else _comparable(oracle, override.module, override_old, override.facts)
        )
        if called is not None:
            seen = replace(override, facts=called[1])
            pairs.append(Pair(head, old, seen, called[0], base_changed=True))
    base = hierarchy.overridden(head.module, class_name, name)
    if base is not None:
        base_old = old_sides.old(base)
        called = _comparable(oracle, base.module, base_old, base.facts) if base_old is not None else None
        if called is not None:
            pairs.append(Pair(replace(base, facts=called[1]), called[0], head, old, base_changed=False))
    return pairs


def _judge(
    pair: Pair, ctx: CheckContext, calls: CallSource, declared: frozenset[str], unkept: frozenset[str]
) -> Finding | None:
    facts = (pair.base_old, pair.override_old, pair.base.facts, pair.override.facts)
    compare_async = not any(f.is_generator for f in facts)
    before = broken_promises(
        bound(pair.base_old.signature), bound(pair.override_old.signature), compare_async=compare_async
    )
    after = broken_promises(
        bound(pair.base.facts.signature), bound(pair.override.facts.signature), compare_async=compare_async
    )
    base_now = bound(pair.base.facts.signature)
    if _rejected_every_call(bound(pair.base_old.signature), before) and _rejected_every_call(base_now, after):
        return None  # never called through the base's signature, before or now: nothing can break
    if _refuses_every_call(bound(pair.base_old.signature), bound(pair.override_old.signature)) and (
        _refuses_every_call(base_now, bound(pair.override.facts.signature))
    ):
        return None
    renamed = renamed_in_place(bound(pair.override_old.signature), bound(pair.override.facts.signature))
    had = problems_the_override_had(
        bound(pair.base_old.signature),
        base_now,
        bound(pair.override_old.signature),
        bound(pair.override.facts.signature),
        set(before),
    )
    problems = {
        key: text
        for key, text in after.items()
        if key not in before
        and key.partition(":")[2] not in unkept
        and key not in had
        and renamed.get(key) not in before
        and not _required_by_base_body(pair.base.facts.node, key)
        and not (key == "async" and _plain_side_may_be_awaitable(calls, pair))
    }
    if problems and only_called_where_overridden(calls, pair.base, pair.override):
        return None
    base_signature = bound(pair.base.facts.signature)
    problems = _without_parameters_every_call_passes(problems, pair, base_signature, declared, calls)
    optional = {key for key in problems if optional_promise(key, base_signature)}
    if "**kwargs" in optional:
        declared = declared | forwarded_keywords(ctx, pair.base.facts.node)
    pairing = Pairing(
        base_signature,
        pair.base.class_name,
        bound(pair.override.facts.signature),
        declared,
        _family_classes(calls, pair.base) if optional else frozenset(),
        flags_off=_flags_off(calls, pair) if optional else frozenset(),
        reachable=_reachable(calls, pair.base) if optional else frozenset(),
        replaced=replaced_methods(_override_class(calls, pair)) if optional else frozenset(),
        override_class=pair.override.class_name,
        override_lineage=_lineage(calls, pair) if optional else frozenset(),
        kwargs_ignored="**kwargs" in optional and kwargs_never_read(pair.base.facts.node),
        forwards_to=forwards_everything_to(calls, pair.base) if {"*args", "**kwargs"} & optional else None,
    )
    use = used_promises(optional, pairing, pair.base.facts.name, calls)
    latent = optional - use.used
    problems = still_reported(ctx, pair.base, problems, frozenset(latent), use.gated)
    if not problems or (before and set(problems) <= latent):
        # A latent promise says nothing new of an override that already broke the base's promises at the
        # parent (django-haystack dbc1c4b27c, cec583732c: a dummy backend and a test mock that never took
        # what the base took): it was never an implementation of the interface to be kept in step.
        return None
    new = list(problems.values())
    severity = Severity.NOTE if set(problems) <= latent else SEVERITY
    base, override = pair.base, pair.override
    base_short = short(base.facts.signature, base.display)
    override_short = short(override.facts.signature, override.display)
    if pair.base_changed:
        cause = f"This PR changed the base method to `{base_short}`, and the override `{override_short}` "
    else:
        cause = (
            f"This PR changed the override to `{override_short}`; against the base method `{base_short}` it "
        )
    consequence = (
        f"No call in the repository passes that yet, so nothing fails today; code that does, through the "
        f"interface, will fail on instances of `{override.class_name}`."
        if severity is Severity.NOTE
        else f"Code that calls `{base.facts.name}` through the base class fails on instances of "
        f"`{override.class_name}`."
    )
    message = (
        cause
        + "; ".join(new)
        + f". {consequence} Make the override accept what the base accepts (or `*args, **kwargs`)."
    )
    return make_finding(
        rule=RULE,
        severity=severity,
        path=override.path,
        line=override.facts.line,
        column=_name_column(override),
        end_column=_name_column(override) + len(override.facts.name),
        title=f"Override `{override.display}` no longer accepts what `{base.display}` accepts",
        message=message,
        anchor=line_at(ctx.repo_text(override.path), override.facts.line),
        related=[Related(path=base.path, line=base.facts.line, message=f"`{base.display}` is defined here")],
    )


def _without_parameters_every_call_passes(
    problems: dict[str, str],
    pair: Pair,
    base_signature: Signature,
    declared: frozenset[str],
    calls: CallSource,
) -> dict[str, str]:
    """Drops a parameter the overrides of an abstract stub require that the stub's signature lacks, when
    the repository calls the method and every call passes it: the stub is out of date, no call breaks.
    Of a working base, only when every call first inspects the method's signature (webargs cdac38eb)."""
    facts = pair.base.facts
    stub = facts.does_nothing or "abstractmethod" in facts.decorators
    required = [key for key in problems if key.startswith("required:")]
    # Only when the PR changed the overrides, not the stub: a stub the PR changed declares the new API.
    unpassed = [
        key
        for key in problems
        if stub and not pair.base_changed and key.startswith(("positional:", "named:"))
    ]
    if not required and not unpassed:
        return problems
    pairing = Pairing(
        base_signature,
        pair.base.class_name,
        bound(pair.override.facts.signature),
        declared,
        _family_classes(calls, pair.base),
        reachable=_reachable(calls, pair.base),
    )
    # When the PR changed the base, a call written for the old base is stale like the overrides (httpx
    # ff9813e8); one that fits neither or the new one follows the overrides (hydra 2c116a01).
    old_base = bound(pair.base_old.signature) if pair.base_changed else None
    passed = {
        key
        for key in required
        if every_call_passes(
            key.partition(":")[2], pairing, facts.name, calls, old_base=old_base, adapting_only=not stub
        )
    }
    # A parameter only the unchanged stub still declares, which no call passes (python-zeep 8b14ab8a: the
    # stub `ConcreteMessage.parse(cls, wsdl, xmlelement, abstract_message, operation)` raises; the PR's
    # overrides and every call dropped `abstract_message`): the stub's signature is what is out of date.
    passed |= {
        key
        for key in unpassed
        if no_call_passes(key.partition(":")[2], key.startswith("positional:"), pairing, facts.name, calls)
    }
    if not stub and is_test_path(pair.base.path):
        passed |= _never_left_out_on_the_override(required, pair, pairing, calls)
    return {key: text for key, text in problems.items() if key not in passed}


def _never_left_out_on_the_override(
    required: list[str], pair: Pair, pairing: Pairing, calls: CallSource
) -> set[str]:
    """The parameters of `required` that a working base in test code made optional and that no call
    leaving them out can run on the override's instances. Nothing outside the repository calls a test's
    helper, so only the repository's calls can break (django-allauth 66135fdcb3: `OAuth2TestsMixin.login`
    made `resp_mock` optional for `OpenIDConnectTests`; `AppleTests.login` still requires it, and no
    call that omits it runs on an `AppleTests`)."""
    pairing = replace(pairing, reachable=_reachable(calls, pair.base), override_lineage=_lineage(calls, pair))
    method = pair.base.facts.name
    return {key for key in required if omitted_only_beside(key.partition(":")[2], pairing, method, calls)}


def _flags_off(calls: CallSource, pair: Pair) -> frozenset[str]:
    base = calls.class_node(f"{pair.base.module}.{pair.base.class_name}")
    return flags_left_off(base[1] if base else None, _override_class(calls, pair))


def _override_class(calls: CallSource, pair: Pair) -> ast.ClassDef | None:
    found = calls.class_node(f"{pair.override.module}.{pair.override.class_name}")
    return found[1] if found else None


def _rejected_every_call(base: Signature, problems: dict[str, str]) -> bool:
    """Whether the override requires a parameter no call of the base can pass (one the base does not have,
    with no `*args` / `**kwargs` to carry it): it is not called through the base's signature (sshuttle
    f8d58fa4: `FreeBsd.add_rules(anchor, includes, port, ...)` over the helper `Generic.add_rules(anchor,
    rules)`, which the subclasses call through `super()`)."""
    if base.has_var_positional or base.has_var_keyword:
        return False
    known = {p.name for p in base.parameters}
    return any(key.startswith("required:") and key.partition(":")[2] not in known for key in problems)


def _refuses_every_call(base: Signature, override: Signature) -> bool:
    """Whether the override refuses a parameter every call of the base passes: a required base parameter
    it takes neither in that slot nor by name. No call made to the base's signature ever ran on it, so
    its callers call it their own way (peft 943daf1de4: `AdaLoraLayer.update_layer(self, adapter_name, r,
    lora_alpha, lora_dropout, init_lora_weights)` under a base that requires `use_rslora` after those;
    the base gaining `lora_bias=False` breaks none of them)."""
    slots = sum(p.accepts_positional for p in override.parameters)
    positional = [p for p in base.parameters if p.accepts_positional]

    def by_position(parameter: Parameter) -> bool:
        return override.has_var_positional or positional.index(parameter) < slots

    def by_name(parameter: Parameter) -> bool:
        found = override.param(parameter.name)
        return override.has_var_keyword or (found is not None and found.accepts_keyword)

    return any(
        parameter.required
        and not (parameter.accepts_positional and by_position(parameter))
        and not (parameter.accepts_keyword and by_name(parameter))
        for parameter in base.parameters
    )


def _plain_side_may_be_awaitable(calls: CallSource, pair: Pair) -> bool:
    return _plain_side_declares_awaitable(pair) or _plain_side_delegates(calls, pair)


def _plain_side_declares_awaitable(pair: Pair) -> bool:
    """Whether the plain `def` of the pair says it returns an awaitable (aio-pika f28fc3b9: the abstract
    `def reopen(self) -> Awaitable[None]` implemented by `async def reopen(self)`): awaiting works both
    ways."""
    base, override = pair.base.facts, pair.override.facts
    plain = override if base.is_async else base
    return declared_awaitable(plain.node) is True


def _plain_side_delegates(calls: CallSource, pair: Pair) -> bool:
    """Whether the plain `def` of the pair only returns what a callable attribute of the instance, which
    is no plain method of its class, gives (emmett a4e4ab0f8c: `return self.procedure(next_pipe, kwargs)`,
    with `self.procedure = getattr(self, name)` picking an `async def`): it may well return a coroutine,
    and awaiting it works."""
    base, override = pair.base, pair.override
    plain = override if base.facts.is_async else base
    returned = [n.value for n in own_body_nodes(plain.facts.node) if isinstance(n, ast.Return)]
    if not returned or not all(self_attribute_call(value) for value in returned):
        return False
    found = calls.class_node(f"{plain.module}.{plain.class_name}")
    owner = found[1] if found is not None else None
    if owner is None or not owner.lineno <= plain.facts.line <= (owner.end_lineno or owner.lineno):
        return False  # not certainly the method's own class (one of two same-named ones)
    plain_methods = {n.name for n in owner.body if isinstance(n, ast.FunctionDef)}
    return not any(self_attribute_call(v) in plain_methods for v in returned)


def _required_by_base_body(base: ast.FunctionDef | ast.AsyncFunctionDef, key: str) -> bool:
    """`required:worker` where the base takes `worker` through `**kwargs` and its body reads
    `kwargs['worker']` unconditionally (luigi's `get_work`): a call without it fails on the base too."""
    kind, _, name = key.partition(":")
    kwarg = base.args.kwarg.arg if base.args.kwarg is not None else None
    if kind != "required" or kwarg is None:
        return False
    for statement in base.body:
        if isinstance(statement, ast.If | ast.Try | ast.TryStar | ast.With | ast.For | ast.While | ast.Match):
            continue  # read only on some paths
        for node in ast.walk(statement):
            if (
                isinstance(node, ast.Subscript)
                and isinstance(node.ctx, ast.Load)
                and isinstance(node.value, ast.Name)
                and node.value.id == kwarg
                and isinstance(node.slice, ast.Constant)
                and node.slice.value == name
            ):
                return True
    return False


def _family(calls: CallSource, base: MethodAt) -> set[str]:
    """Dotted paths of the base's class and of every repository class deriving from it."""
    dotted = f"{base.module}.{base.class_name}"
    return calls.subclasses({dotted}) | {dotted}


def _lineage(calls: CallSource, pair: Pair) -> frozenset[str]:
    """Dotted paths of the override's class and of every repository class deriving from it; empty when the
    base's family does not name it. A class defined in a function is `m.f.<locals>.C` there, and every
    class of that name in the module counts (mongo-python-driver's tests define four `TestMonitor`s)."""
    module, short = pair.override.module, pair.override.class_name.rsplit(".", 1)[-1]
    named = {
        c for c in _family(calls, pair.base) if c.startswith(f"{module}.") and c.rsplit(".", 1)[-1] == short
    }
    return frozenset(calls.subclasses(named) | named) if named else frozenset()


def _reachable(calls: CallSource, base: MethodAt) -> frozenset[str]:
    """The dotted classes an instance reaching an override may be typed as: the base's family and its
    ancestors."""
    family = _family(calls, base)
    return frozenset(family | calls.ancestors(family))


def _family_classes(calls: CallSource, base: MethodAt) -> frozenset[str]:
    """Names of the base's class and of every repository class deriving from it."""
    return frozenset(c.rsplit(".", 1)[-1] for c in _family(calls, base))


def _name_column(method: MethodAt) -> int:
    node = method.facts.node
    offset = node.col_offset + (len("async def ") if isinstance(node, ast.AsyncFunctionDef) else len("def "))
    return offset + 1
