from __future__ import annotations

import ast

import pytest
from prscope.analysis.intel.signatures import ParamKind, Signature, type_error_messages


def call(text: str) -> ast.Call:
    node = ast.parse(text, mode="eval").body
    assert isinstance(node, ast.Call)
    return node


def test_parameter_kinds_defaults_and_rendering() -> None:
    sig = Signature.parse("def f(a, /, b, c=1, *args, d, e=2, **kw) -> int: ...")
    kinds = [(p.name, p.kind, p.has_default) for p in sig.parameters]
    assert kinds == [
        ("a", ParamKind.POSITIONAL_ONLY, False),
        ("b", ParamKind.POSITIONAL_OR_KEYWORD, False),
        ("c", ParamKind.POSITIONAL_OR_KEYWORD, True),
        ("args", ParamKind.VAR_POSITIONAL, False),
        ("d", ParamKind.KEYWORD_ONLY, False),
        ("e", ParamKind.KEYWORD_ONLY, True),
        ("kw", ParamKind.VAR_KEYWORD, False),
    ]
    assert sig.render() == "def f(a, /, b, c=1, *args, d, e=2, **kw) -> int"


def test_rendering_keyword_marker_annotations_and_async() -> None:
    sig = Signature.parse("async def g(x: int, *, y: str = 'a') -> None: ...")
    assert sig.render() == "async def g(x: int, *, y: str = 'a') -> None"
    assert sig.is_async


def test_method_kinds_from_decorators() -> None:
    module = ast.parse(
        "class C:\n"
        "    def m(self, a): ...\n"
        "    @staticmethod\n"
        "    def s(a): ...\n"
        "    @classmethod\n"
        "    def c(cls, a): ...\n"
        "    @property\n"
        "    def p(self): ...\n"
    )
    cls = module.body[0]
    assert isinstance(cls, ast.ClassDef)
    kinds = [
        Signature.from_ast(node, in_class=True).method_kind
        for node in cls.body
        if isinstance(node, ast.FunctionDef)
    ]
    assert kinds == ["method", "staticmethod", "classmethod", "property"]
    method = Signature.from_ast(cls.body[0], in_class=True)  # type: ignore[arg-type]
    assert [p.name for p in method.for_call(bound=True).parameters] == ["a"]
    static = Signature.from_ast(cls.body[1], in_class=True)  # type: ignore[arg-type]
    assert [p.name for p in static.for_call(bound=True).parameters] == ["a"]


def test_binding_success_and_positions() -> None:
    sig = Signature.parse("def f(a, b=1, *args, c, **kw): ...")
    result = sig.binds(call("f(1, 2, 3, 4, c=5, z=6)"))
    assert result.ok
    assert result.positional_to == ["a", "b", "args", "args"]
    assert result.keyword_to == {"c": "c", "z": "kw"}


@pytest.mark.parametrize(
    ("definition", "call_text", "expected"),
    [
        ("def f(a, b): ...", "f(1)", "missing required argument: 'b'"),
        ("def f(a): ...", "f(1, 2)", "takes 1 positional argument but 2 were given"),
        ("def f(a): ...", "f(1, b=2)", "got an unexpected keyword argument 'b'"),
        ("def f(a): ...", "f(1, a=2)", "got multiple values for argument 'a'"),
        ("def f(a, /): ...", "f(a=1)", "got an unexpected keyword argument 'a'"),
        ("def f(*, k): ...", "f()", "missing required argument: 'k'"),
        ("def f(*, k): ...", "f(*xs)", "missing required argument: 'k'"),
    ],
)
def test_binding_errors(definition: str, call_text: str, expected: str) -> None:
    result = Signature.parse(definition).binds(call(call_text))
    assert result.status == "error"
    assert expected in result.message


@pytest.mark.parametrize("call_text", ["f(*xs)", "f(1, **kw)", "f(**kw)"])
def test_unpacking_at_call_site_is_undecidable(call_text: str) -> None:
    result = Signature.parse("def f(a, b): ...").binds(call(call_text))
    assert result.status == "undecidable"
    assert "cannot be bound statically" in result.message


def test_skip_first_binds_through_receiver() -> None:
    sig = Signature.parse("def meth(self, a, b=2): ...")
    assert sig.binds(call("obj.meth(1)"), skip_first=True).ok
    assert not sig.binds(call("obj.meth()"), skip_first=True).ok
    assert sig.binds(call("Cls.meth(obj, 1)")).ok


def _python_message(source: str, text: str) -> str:
    namespace: dict[str, object] = {}
    exec(source, namespace)  # a plain function definition, so CPython's own message can be compared
    with pytest.raises(TypeError) as raised:
        eval(text, namespace)
    return str(raised.value)


@pytest.mark.parametrize(
    ("source", "text"),
    [
        ("def f(a, b): pass", "f(1)"),
        ("def f(a, b, c): pass", "f()"),
        ("def f(a, b=1): pass", "f(1, 2, 3)"),
        ("def f(a): pass", "f(1, 2)"),
        ("def f(a): pass", "f(1, b=2)"),
        ("def f(a): pass", "f(1, a=2)"),
        ("def f(*, k): pass", "f()"),
    ],
)
def test_type_error_messages_are_the_ones_python_gives(source: str, text: str) -> None:
    signature = Signature.parse(source + "\n")
    messages = type_error_messages(signature, signature.binds(call(text)))
    assert _python_message(source, text) in messages
