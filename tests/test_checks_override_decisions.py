"""override-mismatch: the decisions issue 20 asks for (a base's new `**kw`; a positional parameter renamed
in the base) and overrides in classes defined inside test functions."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

BASE = """\
class Sink:
    def send(self, data):
        return data
"""
OVERRIDE = """\
from pkg.base import Sink


class FileSink(Sink):
    def send(self, data):
        return data
"""


def _overrides(git_repo: GitRepo, new_base: str, extra: dict[str, str]) -> list[tuple[str, int]]:
    base = {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/file.py": OVERRIDE, **extra}
    run = review(git_repo, base, {"pkg/base.py": new_base})
    assert run.errors == []
    return sites(run, "override-mismatch")


def test_a_new_kw_no_call_uses_is_not_reported(git_repo: GitRepo) -> None:
    new = BASE.replace("def send(self, data)", "def send(self, data, **kw)")
    assert _overrides(git_repo, new, {"pkg/use.py": "def go(s):\n    s.send(1)\n"}) == []


@pytest.mark.parametrize(
    ("body", "expected"),
    [("return data", []), ("return self.write(data, **kw)", [("pkg/file.py", 5)])],
    ids=["kw-never-read", "kw-read"],
)
def test_a_splat_to_a_new_kw_the_base_never_reads_is_addressed_to_the_overrides(
    git_repo: GitRepo, body: str, expected: list[tuple[str, int]]
) -> None:
    """itsdangerous aed5b260 gives `Serializer.loads(self, s, salt=None)` a `**kwargs` its body never
    reads, so that overrides may take keywords of their own; `self.loads(s, **load_kwargs)` passes the
    keywords some override takes. A base that reads its `**kw` takes the splat itself."""
    new = BASE.replace(
        "def send(self, data):\n        return data", f"def send(self, data, **kw):\n        {body}"
    )
    use = "from pkg.base import Sink\n\n\ndef go(s: Sink, extra):\n    s.send(1, **extra)\n"
    assert _overrides(git_repo, new, {"pkg/use.py": use}) == expected


def test_a_keyword_an_unchanged_sibling_override_names_is_addressed_to_it(git_repo: GitRepo) -> None:
    """itsdangerous aed5b260 gives `Serializer.loads` a `**kwargs` and changes `TimedSerializer.loads`;
    `serializer.loads(signed, return_header=True)` is for the JWS serializer, whose unchanged override
    names `return_header`. The changed override is judged against every override's keywords."""
    new = BASE.replace("def send(self, data)", "def send(self, data, **kw)")
    net = OVERRIDE.replace("FileSink", "NetSink").replace(
        "def send(self, data)", "def send(self, data, retries=0)"
    )
    sibling = OVERRIDE.replace("def send(self, data)", "def send(self, data, flush=False)")
    base = {"pkg/__init__.py": "", "pkg/base.py": BASE, "pkg/file.py": sibling, "pkg/net.py": net}
    base["pkg/use.py"] = "def go(s):\n    s.send(1, flush=True)\n"
    pr = {"pkg/base.py": new, "pkg/net.py": net.replace("retries=0)", "retries=0, timeout=None)")}
    run = review(git_repo, base, pr)
    assert sites(run, "override-mismatch") == []


CACHE = """\
from pkg.base import Sink


class Cache:
    def __init__(self):
        self.sink = Sink()

    def send(self, *args, **kwargs):
        return self.sink.send(*args, **kwargs)
"""


@pytest.mark.parametrize(
    ("use", "expected"),
    [("cache.send(1)", []), ("cache.send(1, flush=True)", [("pkg/file.py", 5)])],
    ids=["callers-pass-nothing-new", "a-caller-passes-it"],
)
def test_a_same_named_dispatcher_of_another_class_relays_what_its_callers_pass(
    git_repo: GitRepo, use: str, expected: list[tuple[str, int]]
) -> None:
    """django-redis ac78ec8e: the cache backend's `set(self, *args, **kwargs)` hands on to its client's
    `set`, which gains `xx=False`; only what the backend's callers pass can reach the client."""
    new = BASE.replace(
        "def send(self, data):\n        return data",
        "def send(self, data, flush=False):\n        return data, flush",
    )
    extra = {"pkg/cache.py": CACHE, "pkg/use.py": f"from pkg.cache import Cache\n\ncache = Cache()\n{use}\n"}
    assert _overrides(git_repo, new, extra) == expected


def test_a_same_named_dispatcher_with_parameters_of_its_own_relays_nothing(git_repo: GitRepo) -> None:
    """broadcaster d5572363: `Broadcast.publish(self, group, message)` hands `group` on to its backend by
    position; its callers' `group=` is its own parameter, not a keyword any backend receives."""
    new = BASE.replace(
        "def send(self, data):\n        return data",
        "def send(self, data, flush=False):\n        return data, flush",
    )
    own = CACHE.replace("send(self, *args, **kwargs)", "send(self, data, flush=False)").replace(
        "send(*args, **kwargs)", "send(data)"
    )
    use = "from pkg.cache import Cache\n\ncache = Cache()\ncache.send(1, flush=True)\n"
    assert _overrides(git_repo, new, {"pkg/cache.py": own, "pkg/use.py": use}) == []


def test_a_new_kw_a_call_uses_is_reported(git_repo: GitRepo) -> None:
    new = BASE.replace("def send(self, data)", "def send(self, data, **kw)")
    use = "from pkg.base import Sink\n\n\ndef go(s: Sink):\n    s.send(1, flush=True)\n"
    assert _overrides(git_repo, new, {"pkg/use.py": use}) == [("pkg/file.py", 5)]


HANDED_ON = {
    "twisted": "def go(s, d):\n    d.addCallbacks(callback=s.send, callbackKeywords={'flush': True})\n",
    "partial": "from functools import partial\n\n\ndef go(s):\n    return partial(s.send, flush=True)\n",
    "thread": "import threading\n\n\ndef go(s):\n    threading.Thread(target=s.send, kwargs={'flush': 1})\n",
    "unrelated": "import threading\n\n\ndef go(s):\n    threading.Thread(target=s.send, daemon=True)\n",
}


@pytest.mark.parametrize("shape", sorted(HANDED_ON))
def test_a_method_handed_on_with_keywords_for_it_relies_on_them(git_repo: GitRepo, shape: str) -> None:
    # scrapy's MediaPipeline hands `self.media_downloaded` to a Deferred with `callbackKeywords={"item": ...}`
    new = BASE.replace(
        "def send(self, data):\n        return data",
        "def send(self, data, *, flush=False):\n        return data, flush",
    )
    expected = [] if shape == "unrelated" else [("pkg/file.py", 5)]
    assert _overrides(git_repo, new, {"pkg/use.py": HANDED_ON[shape]}) == expected


def test_a_renamed_parameter_is_reported_only_when_a_call_passes_the_new_name(git_repo: GitRepo) -> None:
    new = BASE.replace(
        "def send(self, data):\n        return data", "def send(self, payload):\n        return payload"
    )
    positional = (
        "from pkg.base import Sink\n\n\ndef go(s: Sink, kwargs):\n    s.send(1)\n    s.send(**kwargs)\n"
    )
    assert _overrides(git_repo, new, {"pkg/use.py": positional}) == []


def test_a_renamed_parameter_passed_by_its_new_name(git_repo: GitRepo) -> None:
    new = BASE.replace(
        "def send(self, data):\n        return data", "def send(self, payload):\n        return payload"
    )
    named = "from pkg.base import Sink\n\n\ndef go(s: Sink):\n    s.send(payload=1)\n"
    assert _overrides(git_repo, new, {"pkg/use.py": named}) == [("pkg/file.py", 5)]


def test_an_override_in_a_class_defined_inside_a_test(git_repo: GitRepo) -> None:
    test = """\
from pkg.base import Sink


def test_sink():
    class Quiet(Sink):
        def send(self, data):
            return None

    assert Quiet().send(1) is None
"""
    new = BASE.replace("def send(self, data)", "async def send(self, data)")
    found = _overrides(git_repo, new, {"tests/test_sink.py": test})
    assert found == [("pkg/file.py", 5), ("tests/test_sink.py", 6)]


def test_an_override_with_a_repository_decorator_that_keeps_its_parameters(git_repo: GitRepo) -> None:
    utils = """\
import functools


def copy_doc(original):
    def decorator(func):
        func.__doc__ = original.__doc__
        return func

    return decorator


def retry(func):
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return func(*args, **kwargs)

    return wrapper


def reshape(func):
    def other(x):
        return func(x, 1)

    return other
"""
    overrides = """\
from pkg.base import Sink
from pkg.utils import copy_doc, reshape, retry


class Documented(Sink):
    @copy_doc(Sink.send)
    def send(self, data):
        return data


class Retried(Sink):
    @retry
    def send(self, data):
        return data


class Reshaped(Sink):
    @reshape
    def send(self, data, extra):
        return data
"""
    new = BASE.replace("def send(self, data)", "async def send(self, data)")
    found = _overrides(git_repo, new, {"pkg/utils.py": utils, "pkg/more.py": overrides})
    assert found == [("pkg/file.py", 5), ("pkg/more.py", 7), ("pkg/more.py", 13)]


def test_an_args_override_of_a_parameter_a_call_passes_by_keyword(git_repo: GitRepo) -> None:
    override = (
        "from pkg.base import Sink\n\n\nclass Star(Sink):\n    def send(self, *args):\n        return args\n"
    )
    new = BASE.replace("def send(self, data)", "def send(self, data, flush=False)")
    use = "from pkg.base import Sink\n\n\ndef go(s: Sink):\n    s.send(1, flush=True)\n"
    found = _overrides(git_repo, new, {"pkg/star.py": override, "pkg/use.py": use})
    assert ("pkg/star.py", 5) in found


def test_local_classes_of_one_name_in_several_tests(git_repo: GitRepo) -> None:
    test = """\
from pkg.base import Sink


class TestSinks:
    def test_one(self):
        class Fake(Sink):
            def send(self, data):
                return 1

        assert Fake().send(0) == 1

    def test_two(self):
        class Fake(Sink):
            def send(self, data):
                return 2

        assert Fake().send(0) == 2
"""
    new = BASE.replace("def send(self, data)", "async def send(self, data)")
    found = _overrides(git_repo, new, {"tests/test_fakes.py": test})
    assert found == [("pkg/file.py", 5), ("tests/test_fakes.py", 7), ("tests/test_fakes.py", 14)]


def test_a_monorepo_with_a_source_root_per_distribution(git_repo: GitRepo) -> None:
    files = {
        "lib-core/src/acme/__init__.py": "",
        "lib-core/src/acme/base.py": BASE,
        "lib-sdk/src/acme_sdk/__init__.py": "",
        "lib-sdk/src/acme_sdk/file.py": OVERRIDE.replace(
            "from pkg.base import Sink", "from acme.base import Sink"
        ),
    }
    for path, text in files.items():
        git_repo.write(path, text)
    git_repo.commit("base")
    git_repo.git("checkout", "-q", "-b", "pr")
    git_repo.write("lib-core/src/acme/base.py", BASE.replace("def send", "async def send"))
    git_repo.commit("pr")
    from prscope.analysis.changeset import DiffSpec, load_changeset
    from prscope.analysis.checks import run_checks
    from prscope.analysis.checks.revision import code_index_for

    cs = load_changeset(git_repo.root, DiffSpec(mode="branch", base="main"))
    try:
        run = run_checks(cs, code_index_for(cs), None)
    finally:
        cs.close()
    assert sites(run, "override-mismatch") == [("lib-sdk/src/acme_sdk/file.py", 5)]


def test_a_base_parameter_renamed_in_its_slot_keeps_the_override_s_old_problem(git_repo: GitRepo) -> None:
    """pymodbus 36818f85 renames `getValues(self, fc_as_hex, address)` to `(self, func_code, address)`; the
    test mock's `getValues(self, _fc, _address)` refused `fc_as_hex=` before and refuses `func_code=` now:
    the PR changed nothing for it. A mock that took `fc_as_hex` by name would now be reported."""
    base = "class Context:\n    def get(self, fc_as_hex, address):\n        return address\n"
    mock = "from pkg.base import Context\n\n\nclass Mock(Context):\n"
    mock += "    def get(self, {}, _address):\n        return 0\n"
    use = "from pkg.base import Context\n\n\ndef read(c: Context):\n"
    use += "    return c.get(func_code=3, address=1)\n"
    files = {
        "pkg/__init__.py": "",
        "pkg/base.py": base,
        "pkg/mock.py": mock.format("_fc"),
        "pkg/named.py": mock.format("fc_as_hex").replace("class Mock", "class Named"),
        "pkg/use.py": use,
    }
    run = review(git_repo, files, {"pkg/base.py": base.replace("fc_as_hex", "func_code")})
    assert sites(run, "override-mismatch") == [("pkg/named.py", 5)]


def test_a_new_positional_in_a_slot_the_override_already_refused_is_its_old_problem(
    git_repo: GitRepo,
) -> None:
    """PynamoDB 1eb388cf: `save(self, conditional_operator=None, **expected)` gains `condition=None` first;
    `Url.save(self, **kwargs)` refused a positional before and refuses one now. A positional one slot past
    the old ones is new: no call could pass it before (webargs' `validate`)."""
    base = "class Model:\n    def save(self, op=None, **expected):\n        return op\n"
    url = (
        "from pkg.base import Model\n\n\nclass Url(Model):\n    def save(self, **kwargs):\n        return 1\n"
    )
    use = "from pkg.base import Model\n\n\ndef go(m: Model):\n    m.save(None)\n    m.save(None, None)\n"
    files = {"pkg/__init__.py": "", "pkg/base.py": base, "pkg/url.py": url, "pkg/use.py": use}
    run = review(
        git_repo, files, {"pkg/base.py": base.replace("(self, op=None", "(self, condition=None, op=None")}
    )
    assert sites(run, "override-mismatch") == []


MESSAGES = """\
class ConcreteMessage:
    @classmethod
    def parse(cls, wsdl, xmlelement, abstract_message, operation):
        raise NotImplementedError()


class UrlEncoded(ConcreteMessage):
    @classmethod
    def parse(cls, definitions, xmlelement, abstract_message, operation):
        return cls()
"""


@pytest.mark.parametrize(
    ("call", "expected"),
    [
        ("message_class.parse(definitions, node, obj)", []),
        ("message_class.parse(definitions, node, operation=obj)", []),
        ("message_class.parse(d, n, obj, op)", [9]),
    ],
    ids=["no-call-passes-it", "passed-by-a-keyword-the-overrides-take", "a-call-passes-it"],
)
def test_a_parameter_only_the_stub_still_declares_is_the_stub_s_problem(
    git_repo: GitRepo, call: str, expected: list[int]
) -> None:
    """python-zeep 8b14ab8a drops `abstract_message` from every `parse` override and every call, and
    leaves the stub `ConcreteMessage.parse(cls, wsdl, xmlelement, abstract_message, operation)`, which
    raises, as it was. A call that still passes four arguments would fail on the overrides."""
    use = "from pkg.messages import ConcreteMessage\n\n\n"
    use += f"def load(message_class: type[ConcreteMessage]):\n    return {call}\n"
    new = MESSAGES.replace(
        "(cls, definitions, xmlelement, abstract_message, operation)",
        "(cls, definitions, xmlelement, operation)",
    )
    files = {
        "pkg/__init__.py": "",
        "pkg/messages.py": MESSAGES,
        "pkg/use.py": use.replace("obj)", "am, obj)"),
    }
    run = review(git_repo, files, {"pkg/messages.py": new, "pkg/use.py": use})
    assert [line for _path, line in sites(run, "override-mismatch")] == expected


def test_a_parameter_the_pr_adds_to_a_stub_is_the_overrides_problem_though_no_call_passes_it_yet(
    git_repo: GitRepo,
) -> None:
    """The reverse of python-zeep's: the PR gives the stub a parameter (the new interface) and leaves the
    overrides behind; no call passes it yet, and the overrides are still what is out of date (dramatiq
    ca285e4e's `consume(queue_name, prefetch, timeout)`)."""
    stub = "class Broker:\n    def consume(self, queue_name):\n        raise NotImplementedError\n"
    stub_broker = "from pkg.base import Broker\n\n\nclass StubBroker(Broker):\n"
    stub_broker += "    def consume(self, queue_name):\n        return queue_name\n"
    use = "from pkg.base import Broker\n\n\ndef run(broker: Broker):\n    return broker.consume('q')\n"
    files = {"pkg/__init__.py": "", "pkg/base.py": stub, "pkg/stub.py": stub_broker, "pkg/use.py": use}
    new = stub.replace("(self, queue_name)", "(self, queue_name, prefetch=1, timeout=5000)")
    run = review(git_repo, files, {"pkg/base.py": new})
    assert sites(run, "override-mismatch") == [("pkg/stub.py", 5)]
