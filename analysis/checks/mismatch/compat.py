"""Whether an override accepts every call its base method accepts (the substitution principle, as far as
the argument lists and `async` tell)."""

from __future__ import annotations

from dataclasses import replace

from prscope.analysis.intel.signatures import Parameter, ParamKind, Signature


def bound(signature: Signature) -> Signature:
    """The signature as callers see it through an instance or the class (no self / cls)."""
    if signature.method_kind == "staticmethod":
        return signature
    return signature.without_first()


def broken_promises(base: Signature, override: Signature, *, compare_async: bool = True) -> dict[str, str]:
    """What calls valid for `base` (bound) would fail on `override` (bound): problem key -> description.

    Keys name the parameter involved, so that comparing two versions tells which problems are new.
    `compare_async` is off for generators (`async def` with `yield` is iterated, not awaited).
    """
    problems: dict[str, str] = {}
    base_positional = [p for p in base.parameters if p.accepts_positional]
    own_positional = [p for p in override.parameters if p.accepts_positional]
    takes_args, takes_kwargs = override.has_var_positional, override.has_var_keyword
    if not takes_args:
        for parameter in base_positional[len(own_positional) :]:
            problems[f"positional:{parameter.name}"] = (
                f"takes no positional argument where the base takes `{parameter.name}`"
            )
        if base.has_var_positional:
            problems["*args"] = "has no `*args`, which the base accepts"
    if not takes_kwargs:
        for parameter, own in zip(base_positional, own_positional, strict=False):
            if (
                parameter.name != own.name
                and parameter.accepts_keyword
                and not _takes_keyword(override, parameter.name)
            ):
                problems[f"named:{parameter.name}"] = (
                    f"does not accept `{parameter.name}=` (it calls that parameter `{own.name}`), which the "
                    "base accepts"
                )
        if takes_args:
            for parameter in base_positional[len(own_positional) :]:
                if parameter.accepts_keyword and not _takes_keyword(override, parameter.name):
                    problems[f"named:{parameter.name}"] = (
                        f"takes `{parameter.name}` only by position (through `*args`), not as "
                        f"`{parameter.name}=`, which the base accepts"
                    )
    for parameter in base.parameters:
        if (
            parameter.kind is ParamKind.KEYWORD_ONLY
            and not takes_kwargs
            and not _takes_keyword(override, parameter.name)
        ):
            problems[f"keyword:{parameter.name}"] = (
                f"does not accept `{parameter.name}=`, which the base accepts"
            )
    if base.has_var_keyword and not takes_kwargs:
        problems["**kwargs"] = "has no `**kwargs`, which the base accepts"
    for index, parameter in enumerate(override.parameters):
        if parameter.required and not _supplied_by_every_call(base, base_positional, parameter, index):
            problems[f"required:{parameter.name}"] = (
                f"requires `{parameter.name}`, which calls of the base need not pass"
            )
    if compare_async and base.is_async != override.is_async:
        problems["async"] = (
            "is a plain `def` while the base is `async def`: callers that await it get TypeError"
            if base.is_async
            else "is `async def` while the base is a plain `def`: callers get a coroutine that never runs"
        )
    return problems


def renamed_in_place(old: Signature, new: Signature) -> dict[str, str]:
    """`required:` problem keys of `new`'s positional parameters renamed in their slot, to the key the same
    parameter had in `old` (asyncssh 9dc81c86: `matches(self, host, addr, ip)` -> `(..., _ip)` only
    renames what already was a parameter the base's calls need not pass)."""
    old_positional = [p for p in old.parameters if p.accepts_positional]
    new_positional = [p for p in new.parameters if p.accepts_positional]
    return {
        f"required:{after.name}": f"required:{before.name}"
        for before, after in zip(old_positional, new_positional, strict=False)
        if before.name != after.name and before.kind is after.kind and before.required == after.required
    }


def problems_the_override_had(
    base_old: Signature,
    base_new: Signature,
    override_old: Signature,
    override_new: Signature,
    before: set[str],
) -> set[str]:
    """Problem keys against the new base that the override already had against the old one, under
    another name: a base parameter renamed in its slot (pymodbus 36818f85: `fc_as_hex` -> `func_code`,
    against a mock's `_fc`: `func_code=` fails where `fc_as_hex=` did), and a base positional in a slot
    the override already refused positionally (PynamoDB 1eb388cf: `save(self, **kwargs)` refused
    `conditional_operator` by position, and refuses the new `condition` before it the same way: a call
    with one positional failed before and fails now), and a keyword the old base took through its
    `**kwargs`, which the override already refused (ophyd 066ae2bd: `Signal.put(self, value, *,
    timestamp=None, force=False, **kwargs)` names `metadata=`; a simulated signal's `put(self, value, *,
    timestamp=None, force=False)` refused `put(v, metadata=m)` before as it does now)."""
    old_slots = [p for p in base_old.parameters if p.accepts_positional]
    new_slots = [p for p in base_new.parameters if p.accepts_positional]
    same: set[str] = set()
    for was, now in zip(old_slots, new_slots, strict=False):
        if was.name != now.name and f"named:{was.name}" in before:
            same.add(f"named:{now.name}")
    own_old = sum(p.accepts_positional for p in override_old.parameters)
    own_new = sum(p.accepts_positional for p in override_new.parameters)
    refused_from = next((i for i, p in enumerate(old_slots) if f"positional:{p.name}" in before), None)
    if refused_from is not None and own_new >= own_old:
        # Only slots a call could already fill: one more positional than the old base took was no call.
        same.update(f"positional:{p.name}" for p in new_slots[refused_from : len(old_slots)])
    # A base parameter the override refused by position at the parent, and by keyword too (no such name,
    # no `**kw`), is refused by keyword as before once the override fills its slot under another name
    # (statsmodels b16c508caa: `GeneralizedPoisson.predict` gains `y_values` where `CountModel.predict`
    # has `linear`; `linear=` failed on it before as now).
    same.update(
        f"named:{p.name}"
        for p in old_slots
        if f"positional:{p.name}" in before
        and not override_old.has_var_keyword
        and not _takes_keyword(override_old, p.name)
        and _takes_keyword(base_new, p.name)
    )
    if base_old.has_var_keyword and "**kwargs" in before:
        same.update(
            f"{kind}:{p.name}"
            for p in base_new.parameters
            if p.accepts_keyword and not _takes_keyword(override_old, p.name)
            for kind in ("keyword", "named")
        )
    return same


def _takes_keyword(signature: Signature, name: str) -> bool:
    found = signature.param(name)
    return found is not None and found.accepts_keyword


def _supplied_by_every_call(
    base: Signature, base_positional: list[Parameter], parameter: Parameter, index: int
) -> bool:
    if parameter.accepts_positional:
        if index < len(base_positional) and base_positional[index].required:
            return True
        same = base.param(parameter.name)
        return same is not None and same.required and same.kind is ParamKind.KEYWORD_ONLY
    same = base.param(parameter.name)
    return same is not None and same.required


def short(signature: Signature, display: str) -> str:
    """`Cls.meth(a, b=..., *, c)`: parameters without annotations, defaults elided."""
    plain = tuple(
        replace(p, annotation=None, default="..." if p.has_default else None) for p in signature.parameters
    )
    prefix = "async " if signature.is_async else ""
    return f"{prefix}{display}({replace(signature, parameters=plain).render_params()})"
