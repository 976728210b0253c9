"""How `breaking-call` puts a call's problem into words: the shift of an argument onto another
parameter, and signatures rendered short enough for a diagnostic."""

from __future__ import annotations

import ast
from collections.abc import Collection

from prscope.analysis.checks.annotations import annotation_accepts
from prscope.analysis.intel.signatures import BindResult, Parameter, ParamKind, Signature


def explain_shift(
    old_sig: Signature,
    new_sig: Signature,
    old: BindResult,
    new: BindResult,
    call: ast.Call,
    merged: Collection[frozenset[str]] = (),
) -> str | None:
    old_names = {p.name for p in old_sig.parameters}
    new_names = {p.name for p in new_sig.parameters}
    # Values that went into `*args` before still arrive in order (`f(*fields)` -> `f(field, /, *fields)`):
    # a call that still binds is not broken by the new leading parameters, and cannot pass them by keyword.
    var_positional = {p.name for p in old_sig.parameters if p.kind is ParamKind.VAR_POSITIONAL}
    if _written_for_the_new_slots(old_sig, new_sig, old, new, call) or _all_into_new_varargs(
        old_sig, new_sig, old, new
    ):
        return None
    if _misaligned_at_the_parent(old_sig, old, call) or _binds_as_before(old_sig, new_sig, old, new, call):
        return None
    for index, (before, after) in enumerate(zip(old.positional_to, new.positional_to, strict=False)):
        if before == after or before is None or after is None or before in var_positional:
            continue
        if _renamed_in_place(old_sig, new_sig, before, after) or frozenset((before, after)) in merged:
            continue
        if _passes_both_defaults(call, index, old_sig.param(before), new_sig.param(after)):
            continue
        if _named_like(call, index, after):
            continue  # `build_function("f", None, defaults)` once `parent` is gone: right now, wrong before
        if _same_value_as_before(call, old, index, after):
            continue
        if after in old_names or before in new_names:
            return (
                f"positional argument {index + 1} now lands on `{after}` instead of `{before}`; "
                f"pass it by keyword (`{before}=...`) or reorder the arguments"
            )
    return None


def _all_into_new_varargs(old_sig: Signature, new_sig: Signature, old: BindResult, new: BindResult) -> bool:
    """Whether the definition became variadic and every positional argument of the call now goes into its
    new `*args`: the function was generalised to take any positional values, and whether it reads the
    old ones as before is its body's business, not the signature's (Cirq 61e19e5b0c turns
    `PauliString(qubit_pauli_map=None, coefficient=1)` into `PauliString(*contents, qubit_pauli_map=None,
    coefficient=1)`, and `PauliString({q: X}, -1)` still means the same). A call that keeps some arguments
    on named parameters and sends the last ones into the new `*args` is still judged; only an explicit
    `self` passed to the method through its class (`PauliString.__init__(self, {q: X})`) stays put."""
    if any(p.kind is ParamKind.VAR_POSITIONAL for p in old_sig.parameters):
        return False
    varargs = [p.name for p in new_sig.parameters if p.kind is ParamKind.VAR_POSITIONAL]
    landed = [name for name in new.positional_to if name is not None]
    if landed[:1] == ["self"] and old.positional_to[:1] == ["self"]:
        landed = landed[1:]
    return bool(varargs) and bool(landed) and all(name == varargs[0] for name in landed)


def _written_for_the_new_slots(
    old_sig: Signature, new_sig: Signature, old: BindResult, new: BindResult, call: ast.Call
) -> bool:
    """Whether every positional argument moved by the same number of slots, and one of them is named
    like the parameter it lands on now and none like the one it landed on before: the call was written
    for the new signature, and the rest moved with it (python-slack-sdk fe0ecb0a12 drops a stray `self`
    from the `@staticmethod` `do(self, token, request)`: `do(self.token, "rtm.start")` sent the token as
    `self` before and is right now)."""
    moved = [
        (index, before, after)
        for index, (before, after) in enumerate(zip(old.positional_to, new.positional_to, strict=False))
        if before is not None and after is not None and before != after
    ]
    if not moved:
        return False
    old_slots = [p.name for p in old_sig.parameters]
    new_slots = [p.name for p in new_sig.parameters]
    offsets = {old_slots.index(before) - new_slots.index(after) for _, before, after in moved}
    if len(offsets) != 1:
        return False
    if any(_named_like(call, index, before) for index, before, _ in moved):
        return False
    return any(_named_like(call, index, after) for index, _, after in moved)


def _misaligned_at_the_parent(old_sig: Signature, old: BindResult, call: ast.Call) -> bool:
    """Whether the call was shifted already at the parent: at least two positional arguments named like a
    parameter of the old signature landed, all by the same number of slots, on other ones (quantstats
    2ef6f68ab4: `monthly_heatmap(returns, annot_size, figsize, cbar, ...)` had sent `annot_size` to
    `benchmark`, `figsize` to `annot_size`... since `benchmark` came in; the PR's new parameter moves them
    one slot further, onto what was wrong already)."""
    slots = [p.name for p in old_sig.parameters]
    offsets: list[int] = []
    for index, landed in enumerate(old.positional_to):
        if landed is None or landed not in slots or _named_like(call, index, landed):
            continue
        named = [name for name in slots if name != landed and _named_like(call, index, name)]
        if len(named) == 1:
            offsets.append(slots.index(named[0]) - slots.index(landed))
    return len(offsets) >= 2 and len(set(offsets)) == 1


def _named_like(call: ast.Call, index: int, parameter: str) -> bool:
    """Whether positional argument `index` is a variable named like `parameter`, the one it lands on now
    (`connect(host, port)` against the old `connect(port, host)`): that argument was wrong before and is
    right now."""
    if any(isinstance(a, ast.Starred) for a in call.args[: index + 1]) or index >= len(call.args):
        return False
    written = _argument_name(call.args[index])
    if written is None:
        return False
    written, parameter = written.lower().lstrip("_"), parameter.lower().lstrip("_")
    return written == parameter or written.endswith(f"_{parameter}")  # `self.kw_defaults` -> `defaults`


def _same_value_as_before(call: ast.Call, old: BindResult, index: int, parameter: str) -> bool:
    """Whether the argument now landing on `parameter` is written exactly as the one that landed on it
    before: construct 9145133b1b swaps Restreamed's `encoder, encoderunit` with `decoder, decoderunit`,
    and its calls pass `ident, 1, ident, 1` or `lambda s: s[::-1], subcon.sizeof()` twice (each parameter
    still gets what it got). A call written twice is taken to give the same value twice; an `await`, a
    `yield` or an assignment in the argument is not."""
    if any(isinstance(a, ast.Starred) for a in call.args) or index >= len(call.args):
        return False
    landed = zip(call.args, old.positional_to, strict=False)
    before = [argument for argument, name in landed if name == parameter]
    before += [k.value for k in call.keywords if k.arg is not None and old.keyword_to.get(k.arg) == parameter]
    if len(before) != 1 or _changes_state(call.args[index]):
        return False
    return ast.dump(before[0]) == ast.dump(call.args[index])


def _binds_as_before(
    old_sig: Signature, new_sig: Signature, old: BindResult, new: BindResult, call: ast.Call
) -> bool:
    """Whether every parameter gets what it got before, an argument written the same or the same literal
    default (django-user-sessions 567688664e: `SessionStore(None, None)` once `(user_agent, ip,
    session_key=None)` became `(session_key=None, user_agent=None, ip=None)`: all three are None either
    way). Only for signatures of the same parameter names, none variadic, and arguments that change no
    state."""
    names = [p.name for p in old_sig.parameters]
    if sorted(names) != sorted(p.name for p in new_sig.parameters) or not names:
        return False
    if any(p.kind in (ParamKind.VAR_POSITIONAL, ParamKind.VAR_KEYWORD) for p in old_sig.parameters):
        return False
    if any(isinstance(a, ast.Starred) or _changes_state(a) for a in call.args) or any(
        k.arg is None for k in call.keywords
    ):
        return False
    then, now = _values(old_sig, old, call), _values(new_sig, new, call)
    return then is not None and then == now


def _values(signature: Signature, bound: BindResult, call: ast.Call) -> dict[str, str] | None:
    """Each parameter's value as written (`ast.dump`): its argument, or a literal default; None when a
    parameter gets neither (or a default that is not a literal)."""
    given: dict[str, ast.expr] = {}
    for argument, name in zip(call.args, bound.positional_to, strict=False):
        if name is not None:
            given[name] = argument
    for keyword in call.keywords:
        target = bound.keyword_to.get(keyword.arg or "")
        if target is not None:
            given[target] = keyword.value
    values: dict[str, str] = {}
    for parameter in signature.parameters:
        value = given.get(parameter.name) or _literal(parameter.default)
        if value is None:
            return None
        values[parameter.name] = ast.dump(value)
    return values


def _literal(default: str | None) -> ast.expr | None:
    if default is None:
        return None
    try:
        value = ast.parse(default, mode="eval").body
    except SyntaxError:
        return None
    return value if isinstance(value, ast.Constant) else None


def _changes_state(argument: ast.expr) -> bool:
    return any(
        isinstance(node, ast.Await | ast.Yield | ast.YieldFrom | ast.NamedExpr) for node in ast.walk(argument)
    )


def _argument_name(argument: ast.expr) -> str | None:
    """What an argument is called: a variable's or an attribute's name, or the key of a lookup
    (`self.config['PREFERRED_URL_SCHEME']`, quart 7e17234f)."""
    if isinstance(argument, ast.Name):
        return argument.id
    if isinstance(argument, ast.Attribute):
        return argument.attr
    if isinstance(argument, ast.Subscript):
        key = argument.slice
        return key.value if isinstance(key, ast.Constant) and isinstance(key.value, str) else None
    return None


def merged_parameters(node: ast.AST) -> set[frozenset[str]]:
    """Pairs of parameters the function's body treats as one value: `cache or app_data`, `a if a is not
    None else b` (virtualenv f89d46c0: the old slot's parameter kept as a keyword and merged with the
    new one), `new = old` (a deprecated name handed to its successor). A positional argument landing on
    either means the same."""
    if not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        return set()
    names = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
    pairs: set[frozenset[str]] = set()
    for inner in ast.walk(node):
        if isinstance(inner, ast.BoolOp | ast.IfExp):
            used = [name for name in _what_it_may_be(inner) if name in names]
        elif isinstance(inner, ast.Assign) and len(inner.targets) == 1:
            # `result_callback = proc` (pluggy 6b296c23: the deprecated `proc` moved to the end);
            # `spec_or_id = search_filter if search_filter else {}` (mongomock 7475fbf3a6)
            target = inner.targets[0]
            spelled = [target.id] if isinstance(target, ast.Name) else []
            used = [name for name in [*spelled, *_what_it_may_be(inner.value)] if name in names]
        else:
            continue
        pairs.update(frozenset((a, b)) for a in used for b in used if a != b)
    return pairs


def _what_it_may_be(value: ast.expr) -> list[str]:
    """The variables an expression may evaluate to: itself, an operand of `or`, a branch of `... if ...
    else ...`, the last operand of `and` (`a is not None and a or b`, the conditional written before
    Python 2.5: pysnmp b2d46549dd)."""
    if isinstance(value, ast.Name):
        return [value.id]
    if isinstance(value, ast.BoolOp) and isinstance(value.op, ast.Or):
        return [name for operand in value.values for name in _what_it_may_be(operand)]
    if isinstance(value, ast.BoolOp):
        return _what_it_may_be(value.values[-1])
    if isinstance(value, ast.IfExp):
        return [*_what_it_may_be(value.body), *_what_it_may_be(value.orelse)]
    return []


def _passes_both_defaults(
    call: ast.Call, index: int, before: Parameter | None, after: Parameter | None
) -> bool:
    """Whether the shifted argument is a literal equal to the default of the parameter it fed and of the one
    it now feeds (`websocket_connect(url, None)` once `io_loop=None` is gone and `callback=None` takes the
    slot): the call behaves as if it passed neither."""
    if index >= len(call.args) or any(isinstance(a, ast.Starred) for a in call.args[: index + 1]):
        return False
    argument = call.args[index]
    if not isinstance(argument, ast.Constant) or before is None or after is None:
        return False
    text = ast.unparse(argument)
    return before.default == text and after.default == text


def _renamed_in_place(old_sig: Signature, new_sig: Signature, before: str, after: str) -> bool:
    """Whether the slot's parameter was only renamed (`path` -> `file`, often keeping `path` as a
    keyword-only alias, or merging a keyword-only `lexer` into the slot of `lexer_name`): neither name is
    a positional parameter on the other side, and the new annotation still accepts what a positional
    argument passed before. The argument then means what it meant."""
    if after in {p.name for p in old_sig.parameters if p.accepts_positional}:
        return False  # a parameter that moved between slots: a reorder
    if before in {p.name for p in new_sig.parameters if p.accepts_positional}:
        return False
    old_param, new_param = old_sig.param(before), new_sig.param(after)
    if old_param is None or new_param is None:
        return False
    return annotation_accepts(new_param.annotation, old_param.annotation, passed=True)


def plural(count: int, word: str) -> str:
    return f"{count} {word}{'' if count == 1 else 's'}"


_MAX_RENDER = 90


def _render_parameter(parameter: Parameter) -> str:
    prefix = {ParamKind.VAR_POSITIONAL: "*", ParamKind.VAR_KEYWORD: "**"}.get(parameter.kind, "")
    default = ""
    if parameter.has_default:
        shown = parameter.default or "..."
        default = "=" + (shown if len(shown) <= 12 else "...")
    return prefix + parameter.name + default


def _rendered(signature: Signature) -> list[str]:
    """Parameters without annotations or default values, with the `/` and `*` markers."""
    parts: list[str] = []
    star_seen = False
    for index, parameter in enumerate(signature.parameters):
        if parameter.kind is ParamKind.VAR_POSITIONAL:
            star_seen = True
        if parameter.kind is ParamKind.KEYWORD_ONLY and not star_seen:
            parts.append("*")
            star_seen = True
        parts.append(_render_parameter(parameter))
        following = signature.parameters[index + 1] if index + 1 < len(signature.parameters) else None
        if parameter.kind is ParamKind.POSITIONAL_ONLY and (
            following is None or following.kind is not ParamKind.POSITIONAL_ONLY
        ):
            parts.append("/")
    return parts


def compact(signature: Signature) -> str:
    return f"{signature.name}({', '.join(_rendered(signature))})"


def compact_pair(old: Signature, new: Signature) -> tuple[str, str]:
    """Both signatures, short; long ones elide the leading parameters they share."""
    old_parts, new_parts = _rendered(old), _rendered(new)
    full_old, full_new = compact(old), compact(new)
    if max(len(full_old), len(full_new)) <= _MAX_RENDER:
        return full_old, full_new
    shared = 0
    while shared < min(len(old_parts), len(new_parts)) and old_parts[shared] == new_parts[shared]:
        shared += 1
    keep = max(0, shared - 1)
    prefix = ["..."] if keep else []
    return (
        f"{old.name}({', '.join(prefix + old_parts[keep:])})",
        f"{new.name}({', '.join(prefix + new_parts[keep:])})",
    )


def renamed_to(old_sig: Signature, new_sig: Signature, keyword: str) -> str | None:
    """The new name of parameter `keyword` when the signature renamed exactly that one in place."""
    old_names = [p.name for p in old_sig.parameters]
    if keyword not in old_names:
        return None
    index = old_names.index(keyword)
    new_params = new_sig.parameters
    if len(new_params) != len(old_sig.parameters):
        return None
    replaced = new_params[index]
    other_changes = [
        i for i, (a, b) in enumerate(zip(old_sig.parameters, new_params, strict=True)) if _key(a) != _key(b)
    ]
    if (
        other_changes != [index]
        or replaced.name in old_names
        or replaced.kind != old_sig.parameters[index].kind
    ):
        return None
    return replaced.name


def _key(parameter: Parameter) -> tuple[str, str, bool]:
    return (parameter.name, parameter.kind.value, parameter.has_default)
