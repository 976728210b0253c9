"""override-mismatch: overrides that stop accepting what their base method accepts."""

from __future__ import annotations

from prscope.analysis.changeset import DiffSpec, load_changeset
from prscope.analysis.checks import ChecksConfig, run_checks
from prscope.analysis.findings import Finding
from prscope.analysis.intel import CodeIndex

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

BASE = """\
class Handler:
    def handle(self, request):
        return request

    def close(self, *, force=False):
        return force

    def setup(self):
        return None

    def __init__(self, name):
        self.name = name
"""

PLUGINS = """\
from core.base import Handler


class JsonHandler(Handler):
    def handle(self, request):
        return request


class Passthrough(Handler):
    def handle(self, *args, **kwargs):
        return args


class Flexible(Handler):
    def handle(self, request, context=None):
        return request


class Nested(JsonHandler):
    def handle(self, request):
        return request

    def close(self, *, force=False):
        return force

    async def setup(self):
        return None

    def __init__(self):
        super().__init__("nested")
"""


def _run(git_repo: GitRepo, base_files: dict[str, str], pr_files: dict[str, str]) -> list[Finding]:
    run = review(git_repo, {"core/__init__.py": "", **base_files}, dict(pr_files))
    assert run.errors == []
    return sorted((f for f in run.findings if f.rule == "override-mismatch"), key=lambda f: (f.path, f.line))


def test_a_base_method_that_gains_a_required_argument_flags_overrides_left_behind(git_repo: GitRepo) -> None:
    new_base = BASE.replace("def handle(self, request):", "def handle(self, request, context):")
    findings = _run(
        git_repo,
        {"core/base.py": BASE, "plugins.py": PLUGINS},
        {"core/base.py": new_base},
    )

    assert [(f.path, f.line) for f in findings] == [("plugins.py", 5), ("plugins.py", 20)]
    first = findings[0]
    assert first.severity == "warning"
    assert first.column == 9
    assert first.title == "Override `JsonHandler.handle` no longer accepts what `Handler.handle` accepts"
    assert "takes no positional argument where the base takes `context`" in first.message
    assert "Handler.handle(self, request, context)" in first.message
    assert first.related[0].path == "core/base.py" and first.related[0].line == 2


def test_keyword_only_and_async_changes_of_the_base(git_repo: GitRepo) -> None:
    new_base = BASE.replace("def close(self, *, force=False):", "def close(self, *, force=False, wait=True):")
    new_base = new_base.replace("    def setup(self):", "    async def setup(self):")
    findings = _run(
        git_repo,
        {"core/base.py": BASE, "plugins.py": PLUGINS},
        {"core/base.py": new_base, "app.py": "def stop(handler):\n    handler.close(wait=False)\n"},
    )

    assert [(f.path, f.line) for f in findings] == [("plugins.py", 23)]
    assert "does not accept `wait=`" in findings[0].message


def test_an_optional_base_parameter_nobody_passes_is_not_reported(git_repo: GitRepo) -> None:
    """sqlalchemy 48930113: the base gains `_translate=None` for the one override that passes it to
    `super()`; no call passes it to the other overrides, so none of them breaks today."""
    new_base = BASE.replace(
        "def close(self, *, force=False):", "def close(self, *, force=False, _wait=True):"
    )
    # the base reads its new parameter (as sqlalchemy's did): it is the base's own business, not a
    # declaration for the overrides (test_checks_interfaces has the base that never reads it)
    new_base = new_base.replace(
        "def handle(self, request):\n        return request",
        "def handle(self, request, context=None):\n        return request, context",
    )
    plugins = PLUGINS + (
        "\n\nclass Translating(Handler):\n    def handle(self, request, context=None):\n"
        "        return super().handle(request, context={'x': 1})\n"
    )
    calls = "def run(handler):\n    handler.handle('r')\n    handler.close(force=True)\n"
    findings = _run(
        git_repo,
        {"core/base.py": BASE, "plugins.py": plugins, "app.py": calls},
        {"core/base.py": new_base},
    )

    # `_wait` and `context` are latent: no call relies on them, nothing fails today (issue 20: the
    # real-history noise check judged such notes false alarms).
    assert findings == []


def test_a_call_on_a_plain_instance_of_the_base_is_no_use_of_the_promise(git_repo: GitRepo) -> None:
    """sqlalchemy 9f758d7f: `Load._generate_path` gains an optional argument that only a call on
    `loader = Load(...)` passes; that object is never a subclass instance, so the overrides break nothing
    today. The same call on an object of unknown class does rely on it."""
    new_base = BASE.replace(
        "def handle(self, request):\n        return request",
        "def handle(self, request, context=None):\n        return request, context",
    )
    plain = (
        "from core.base import Handler\n\n\ndef run():\n    h = Handler('x')\n    h.handle('r', context=1)\n"
    )
    files = {"core/base.py": BASE, "plugins.py": PLUGINS, "app.py": plain}
    findings = _run(git_repo, files, {"core/base.py": new_base})
    assert findings == []


def test_an_unknown_receiver_passing_the_new_argument_makes_the_overrides_warnings(git_repo: GitRepo) -> None:
    new_base = BASE.replace("def handle(self, request):", "def handle(self, request, context=None):")
    unknown = "def run(h):\n    h.handle('r', context=1)\n"
    files = {"core/base.py": BASE, "plugins.py": PLUGINS, "app.py": unknown}
    findings = _run(git_repo, files, {"core/base.py": new_base})
    assert [(f.path, f.line, f.severity) for f in findings] == [
        ("plugins.py", 5, "warning"),
        ("plugins.py", 20, "warning"),
    ]


def test_a_keyword_the_override_takes_through_kw_is_no_use_of_the_positional_slot(git_repo: GitRepo) -> None:
    """sqlalchemy 9f758d7f: `_make_proxy` gains `key=None`; `Label._make_proxy(self, sel, name=None, **kw)`
    lacks the slot but takes `key=` through **kw, and every call passes it by keyword."""
    base = "class Col:\n    def proxy(self, sel, name=None):\n        return sel\n"
    sub = "from core.base import Col\n\n\nclass Label(Col):\n"
    sub += "    def proxy(self, sel, name=None, **kw):\n        return sel\n"
    calls = "def run(c):\n    c.proxy(1, key='k', name='n')\n"
    new_base = base.replace(
        "(self, sel, name=None):\n        return sel",
        "(self, sel, key=None, name=None):\n        return sel, key, name",
    )
    files = {"core/base.py": base, "plugins.py": sub, "app.py": calls}
    findings = _run(git_repo, files, {"core/base.py": new_base})
    assert findings == []
    positional = _run_again(git_repo, "def run(c):\n    c.proxy(1, 'k', 'n')\n")
    assert [(f.path, f.line, f.severity) for f in positional] == [("plugins.py", 5, "warning")]


KW_BASE = """\
class Target:
    def attach(self, parent):
        return parent

    def _attach_with_dispatch(self, parent):
        self.attach(parent)
"""
KW_SUBS = """\
from core.base import Target


class Column(Target):
    def attach(self, parent, allow_replacements=True):
        return parent


class Type(Target):
    def attach(self, parent):
        return parent
"""


def test_a_base_gaining_kw_for_one_subclass_is_no_promise_to_the_others(git_repo: GitRepo) -> None:
    """sqlalchemy 9e82f32f: `_set_parent(self, parent, **kw)` passes `allow_replacements=` on to Column;
    the only calls with a keyword name it, and the base's private `_set_parent_with_dispatch` forwards
    its own **kw (a public forwarder is the API's: test_checks_interfaces)."""
    new_base = KW_BASE.replace("(self, parent)", "(self, parent, **kw)").replace(
        "self.attach(parent)", "self.attach(parent, **kw)"
    )
    calls = "def run(col, table):\n    col._attach_with_dispatch(table, allow_replacements=False)\n"
    files = {"core/base.py": KW_BASE, "plugins.py": KW_SUBS, "app.py": calls}
    assert _run(git_repo, files, {"core/base.py": new_base}) == []
    other = _run_again(git_repo, "def run(t, table):\n    t.attach(table, strict=True)\n")
    assert [(f.path, f.line) for f in other] == [("plugins.py", 5), ("plugins.py", 10)]


def _run_again(git_repo: GitRepo, calls: str) -> list[Finding]:
    git_repo.write("app.py", calls)
    git_repo.commit("positional call")
    cs = load_changeset(git_repo.root, DiffSpec(mode="branch", base="main"))
    run = run_checks(cs, CodeIndex(git_repo.root), ChecksConfig())
    return sorted((f for f in run.findings if f.rule == "override-mismatch"), key=lambda f: (f.path, f.line))


def test_an_override_changed_so_that_it_rejects_the_base_calls(git_repo: GitRepo) -> None:
    new_plugins = PLUGINS.replace(
        "class Flexible(Handler):\n    def handle(self, request, context=None):",
        "class Flexible(Handler):\n    def handle(self, request, context):",
    ).replace("    async def setup(self):", "    def setup(self):")
    findings = _run(git_repo, {"core/base.py": BASE, "plugins.py": PLUGINS}, {"plugins.py": new_plugins})

    assert [(f.path, f.line) for f in findings] == [("plugins.py", 15)]
    assert "This PR changed the override to `Flexible.handle(self, request, context)`" in findings[0].message
    assert "requires `context`, which calls of the base need not pass" in findings[0].message


def test_an_async_override_made_while_the_base_stays_plain(git_repo: GitRepo) -> None:
    plugins = PLUGINS.replace("    async def setup(self):", "    def setup(self):")
    findings = _run(git_repo, {"core/base.py": BASE, "plugins.py": plugins}, {"plugins.py": PLUGINS})

    assert [(f.path, f.line) for f in findings] == [("plugins.py", 26)]
    assert "`async def` while the base is a plain `def`" in findings[0].message


def test_star_args_overrides_constructors_and_old_incompatibilities_stay_quiet(git_repo: GitRepo) -> None:
    base = BASE.replace("def handle(self, request):", "def handle(self, request, extra):")
    plugins = PLUGINS.replace(
        "class JsonHandler(Handler):\n    def handle(self, request):",
        "class JsonHandler(Handler):\n    def handle(self):",
    )
    new_base = base.replace(
        "def handle(self, request, extra):", "def handle(self, request, extra, more=1):"
    ).replace("def __init__(self, name):", "def __init__(self, name, size):")
    caller = "def run(h):\n    return h.handle('r', 'e', 2)\n"
    findings = _run(
        git_repo,
        {"core/base.py": base, "plugins.py": plugins},
        {"core/base.py": new_base, "app.py": caller},
    )

    # JsonHandler.handle and Nested.handle already refused `extra`, which every call of the base passes:
    # no call made to the base ran on them, and `more` breaks none of their callers. Flexible.handle took
    # both slots and now misses the third.
    assert [(f.path, f.line) for f in findings] == [("plugins.py", 15)]
    assert "`more`" in findings[0].message and "`extra`" not in findings[0].message.split("override")[1]


def test_classes_that_do_not_inherit_from_the_base_are_not_overrides(git_repo: GitRepo) -> None:
    other = "class Other:\n    def handle(self, request):\n        return request\n"
    new_base = BASE.replace("def handle(self, request):", "def handle(self, request, context):")
    findings = _run(git_repo, {"core/base.py": BASE, "other.py": other}, {"core/base.py": new_base})
    assert findings == []


def test_the_rule_can_be_switched_off(git_repo: GitRepo) -> None:
    new_base = BASE.replace("def handle(self, request):", "def handle(self, request, context):")
    run = review(
        git_repo,
        {"core/__init__.py": "", "core/base.py": BASE, "plugins.py": PLUGINS},
        {"core/base.py": new_base},
        ChecksConfig(enabled={"override-mismatch": False}),
    )
    assert sites(run, "override-mismatch") == []


def test_generator_methods_are_compared_by_their_parameters(git_repo: GitRepo) -> None:
    base = "class Middleware:\n    def process(self, response, result, spider):\n        yield from result\n"
    new_base = base.replace("spider)", "spider=None)")
    plugin = (
        "from core.base import Middleware\n\n\n"
        "class Depth(Middleware):\n"
        "    def process(self, response, result, spider):\n"
        "        yield from super().process(response, result, spider)\n"
    )
    findings = _run(git_repo, {"core/base.py": base, "depth.py": plugin}, {"core/base.py": new_base})

    assert [(f.path, f.line) for f in findings] == [("depth.py", 5)]
    assert "requires `spider`, which calls of the base need not pass" in findings[0].message


def test_context_manager_overrides_and_an_index_reading_the_commit(git_repo: GitRepo) -> None:
    base = (
        "import contextlib\n\n\n"
        "class Command:\n"
        "    @contextlib.contextmanager\n"
        "    def version_check(self, options):\n"
        "        yield\n"
    )
    new_base = base.replace("def version_check(self, options):", "def version_check(self, options, args):")
    plugin = (
        "import contextlib\n\nfrom core.base import Command\n\n\n"
        "class ListCommand(Command):\n\n"
        "    @contextlib.contextmanager\n"
        "    def version_check(self, options):\n"
        "        yield\n\n\n"
        "class QuietCommand(Command):\n\n"
        "    def version_check(self, options):\n"
        "        return contextlib.nullcontext()\n"
    )
    for path, content in {"core/__init__.py": "", "core/base.py": base, "commands.py": plugin}.items():
        git_repo.write(path, content)
    git_repo.commit("base")
    git_repo.git("checkout", "-q", "-b", "pr")
    git_repo.write("core/base.py", new_base)
    git_repo.commit("pr")
    cs = load_changeset(git_repo.root, DiffSpec(mode="branch", base="main"))
    try:
        # Reading every file at the reviewed revision (not the work tree), as `--commits` reviews do.
        run = run_checks(cs, CodeIndex(git_repo.root, source=cs.read_new))
    finally:
        cs.close()
    assert sites(run, "override-mismatch") == [("commands.py", 9), ("commands.py", 15)]


def test_a_keyword_the_base_forwards_to_another_method_is_addressed_to_that_method(git_repo: GitRepo) -> None:
    """sqlalchemy 9e82f32f: `_set_parent_with_dispatch(self, parent, **kw)` passes `allow_replacements=`
    on to `_set_parent`, which Column declares; the types overriding `_set_parent_with_dispatch` without
    `**kw` break nothing."""
    subs = (
        KW_SUBS
        + "\n\nclass Variant(Target):\n    def _attach_with_dispatch(self, parent):\n        return parent\n"
    )
    new_base = KW_BASE.replace(
        "def _attach_with_dispatch(self, parent):\n        self.attach(parent)",
        "def _attach_with_dispatch(self, parent, **kw):\n        self.attach(parent, **kw)",
    )
    assert new_base != KW_BASE
    calls = "def run(col, table):\n    col._attach_with_dispatch(table, allow_replacements=False)\n"
    files = {"core/base.py": KW_BASE, "plugins.py": subs, "app.py": calls}
    assert _run(git_repo, files, {"core/base.py": new_base}) == []


def test_an_interface_gaining_an_optional_parameter_leaves_its_implementations_a_note(
    git_repo: GitRepo,
) -> None:
    """opentelemetry 250b9faed8: the API's `Span.start(self)` (a stub) gains `start_time=None`; the SDK's
    Span does not take it. Nothing in the repository passes it yet, but the API is for callers outside."""
    api = (
        'class Span:\n    def start(self):\n        """Starts the span."""\n\n'
        "    def end(self):\n        pass\n"
    )
    sdk = "from core.base import Span\n\n\nclass SdkSpan(Span):\n    def start(self):\n        return 1\n"
    new_api = api.replace("def start(self):", "def start(self, start_time=None):")
    findings = _run(git_repo, {"core/base.py": api, "plugins.py": sdk}, {"core/base.py": new_api})
    assert [(f.path, f.line, f.severity) for f in findings] == [("plugins.py", 5, "note")]
    assert "nothing fails today" in findings[0].message


def test_calls_the_new_argument_cannot_reach_are_no_use_of_it(git_repo: GitRepo) -> None:
    """luigi 855909db: `BaseHadoopJobTask.run` gains `tracking_url_callback=None`; the worker passes it
    inside `try: ... except TypeError: task.run()`, `luigi.run([...])` is a module's function,
    `Runner().run(kind)` another class's method, `Base.run(self)` passes the instance itself."""
    new_base = BASE.replace(
        "def handle(self, request):\n        return request",
        "def handle(self, request, context=None):\n        return request, context",
    )
    calls = """\
import core

from core.base import Handler


class Runner:
    def handle(self, kind):
        return kind


def work(task, base):
    try:
        task.handle("r", context=1)
    except TypeError:
        task.handle("r")
    core.handle(["--local"])
    Runner().handle("map")


class Delegating(Handler):
    def handle(self, request):
        return Handler.handle(self, request)
"""
    files = {"core/__init__.py": "def handle(argv):\n    return argv\n", "core/base.py": BASE}
    files |= {"plugins.py": PLUGINS, "app.py": calls}
    assert _run(git_repo, files, {"core/base.py": new_base}) == []


def test_a_parameter_the_base_reads_from_its_kwargs_is_required_by_the_base_too(git_repo: GitRepo) -> None:
    """luigi 5642f50c: `get_work(self, worker, host=None)` became `get_work(self, host=None, **kwargs)`,
    whose body starts with `worker_id = kwargs['worker']`; an override still requiring `worker` asks what
    the base asks."""
    base = "class Scheduler:\n    def get_work(self, worker, host=None):\n        return worker\n"
    new_base = (
        "class Scheduler:\n    def get_work(self, host=None, **kwargs):\n"
        "        worker_id = kwargs['worker']\n        return worker_id\n"
    )
    sub = "from core.base import Scheduler\n\n\nclass Custom(Scheduler):\n"
    sub += "    def get_work(self, worker, host=None, **kwargs):\n        return worker\n"
    calls = "def run(s):\n    s.get_work(worker='w', host='h')\n"
    files = {"core/base.py": base, "custom.py": sub, "app.py": calls}
    assert _run(git_repo, files, {"core/base.py": new_base}) == []


def test_an_override_renaming_a_parameter_the_base_never_took_breaks_nothing_new(git_repo: GitRepo) -> None:
    """asyncssh 9dc81c86: `WildcardHostPattern.matches(self, host, addr, ip)` over the base's
    `matches(self, value)` became `matches(self, host, addr, _ip)`: `_ip` is required as `ip` was."""
    base = "class Pattern:\n    def matches(self, value):\n        return value\n"
    sub = "from core.base import Pattern\n\n\nclass HostPattern(Pattern):\n"
    sub += "    def matches(self, host, addr, ip):\n        return host or addr\n"
    renamed = sub.replace("addr, ip)", "addr, _ip)")
    files = {"core/base.py": base, "hosts.py": sub}
    assert _run(git_repo, files, {"hosts.py": renamed}) == []


def test_an_override_no_call_of_the_base_could_reach_breaks_nothing_new(git_repo: GitRepo) -> None:
    """sshuttle f8d58fa4: `FreeBsd.add_rules(anchor, includes, port, dnsport, nslist)` over the helper
    `Generic.add_rules(anchor, rules)` gains `family`; a call of the base's form already failed on it (it
    requires `port`, which the base does not take). The calls written for the override are breaking-call's."""
    base = "class Pattern:\n    def matches(self, value):\n        return value\n"
    sub = "from core.base import Pattern\n\n\nclass HostPattern(Pattern):\n"
    sub += "    def matches(self, host, addr):\n        return host or addr\n"
    more = sub.replace("host, addr)", "host, addr, _ip)")
    files = {"core/base.py": base, "hosts.py": sub}
    assert [f.line for f in _run(git_repo, files, {"hosts.py": more})] == []


def test_an_override_that_took_every_call_of_the_base_and_requires_one_more_is_reported(
    git_repo: GitRepo,
) -> None:
    base = "class Pattern:\n    def matches(self, host, addr=None):\n        return host\n"
    sub = "from core.base import Pattern\n\n\nclass HostPattern(Pattern):\n"
    sub += "    def matches(self, host, addr=None):\n        return host or addr\n"
    more = sub.replace("host, addr=None)", "host, addr=None, *, strict)")
    files = {"core/base.py": base, "hosts.py": sub}
    assert [f.line for f in _run(git_repo, files, {"hosts.py": more})] == [5]


def test_an_async_override_of_a_base_declared_to_return_an_awaitable_is_compatible(git_repo: GitRepo) -> None:
    """aio-pika f28fc3b9: the abstract `def reopen(self) -> Awaitable[None]` is implemented by
    `async def reopen(self)`; a base declared `-> None` is still a mismatch."""
    base = (
        "from typing import Awaitable\n\n\nclass Channel:\n"
        "    def reopen(self) -> Awaitable[None]:\n        raise NotImplementedError\n\n"
        "    def close(self) -> None:\n        raise NotImplementedError\n"
    )
    sub = "from core.base import Channel\n\n\nclass Robust(Channel):\n"
    sub += "    def reopen(self):\n        return None\n\n    def close(self):\n        return None\n"
    made_async = sub.replace("    def reopen", "    async def reopen").replace(
        "    def close", "    async def close"
    )
    files = {"core/base.py": base, "robust.py": sub}
    assert [f.line for f in _run(git_repo, files, {"robust.py": made_async})] == [8]


ENVIRONMENT = "class Environment:\n    def create_worker(self, **k):\n        raise NotImplementedError\n"
THREADS = (
    "from core.base import Environment\n\n\nclass Threads(Environment):\n"
    "    def create_worker(self, **k):\n        return k\n"
)
THREADS_WITH_FLAG = THREADS.replace("def create_worker(self, **k)", "def create_worker(self, stop_flag, **k)")


def _stop_flag_added(git_repo: GitRepo, use: str) -> list[int]:
    files = {"core/base.py": ENVIRONMENT, "threads.py": THREADS, "consumer.py": use}
    return [f.line for f in _run(git_repo, files, {"threads.py": THREADS_WITH_FLAG})]


def test_a_parameter_every_call_passes_is_no_break_of_an_abstract_stub(git_repo: GitRepo) -> None:
    """huey babc25e9: `Environment.create_worker(self, **k)` raises NotImplementedError; its
    implementations now take `stop_flag`, and the one call passes it (`create_worker(self.stop_flag,
    huey=huey)`): the stub's signature is out of date, no call breaks."""
    assert (
        _stop_flag_added(git_repo, "def start(env, flag):\n    return env.create_worker(flag, huey=1)\n")
        == []
    )


def test_a_call_leaving_out_what_the_implementations_now_require_keeps_the_finding(git_repo: GitRepo) -> None:
    use = "def start(env, flag):\n    env.create_worker(flag, huey=1)\n    return env.create_worker(huey=2)\n"
    assert _stop_flag_added(git_repo, use) == [5]


BAR = "class Bar:\n    @classmethod\n    def write(cls, s, file=None):\n        return s\n"
BAR_WITH_NOLOCK = BAR.replace(
    "def write(cls, s, file=None):", "def write(cls, s, file=None, nolock=False):"
).replace("        return s\n", "        return s if nolock else s.strip()\n")
NOTEBOOK_BAR = (
    "from core.base import Bar\n\n\nclass NotebookBar(Bar):\n"
    "    @classmethod\n    def write(cls, s, file=None):\n        return s\n"
)


def _nolock_added(git_repo: GitRepo, use: str) -> list[int]:
    files = {"core/base.py": BAR, "notebook.py": NOTEBOOK_BAR, "use.py": use}
    return [f.line for f in _run(git_repo, files, {"core/base.py": BAR_WITH_NOLOCK})]


def test_a_call_spelled_on_the_base_class_reaches_no_override(git_repo: GitRepo) -> None:
    """tqdm da46cd43: the classmethod `tqdm.write(cls, s, file=None)` gains `nolock=False`; the only
    call passing it is `tqdm.write(x, nolock=True)`, on the base class itself, which never runs
    `tqdm_notebook.write`."""
    assert (
        _nolock_added(git_repo, "from core.base import Bar\n\n\ndef log(x):\n    Bar.write(x, nolock=True)\n")
        == []
    )


def test_a_call_through_a_receiver_of_unknown_class_may_reach_the_override(git_repo: GitRepo) -> None:
    assert _nolock_added(git_repo, "def log(bar, x):\n    bar.write(x, nolock=True)\n") == [6]


def test_a_call_splatting_a_short_local_tuple_passes_no_new_positional(git_repo: GitRepo) -> None:
    """netmiko f96263c4: `config_mode(self, config_command="", pattern="")` gains `re_flags=0` as a third
    positional; the only call is `self.config_mode(*cfg_mode_args)` with `cfg_mode_args =
    (config_mode_command,) if config_mode_command else tuple()`: at most one argument, which every
    override still takes."""
    base = (
        "class Base:\n    def config_mode(self, config_command='', pattern=''):\n        return pattern\n\n"
        "    def send(self, command=None):\n"
        "        args = (command,) if command else tuple()\n        return self.config_mode(*args)\n"
    )
    new_base = base.replace(
        "pattern=''):\n        return pattern", "pattern='', re_flags=0):\n        return re_flags"
    )
    sub = "from core.base import Base\n\n\nclass Accedian(Base):\n"
    sub += "    def config_mode(self, config_command=''):\n        return config_command\n"
    files = {"core/base.py": base, "accedian.py": sub}
    assert _run(git_repo, files, {"core/base.py": new_base}) == []


def test_a_call_the_override_takes_by_position_does_not_rely_on_the_base_s_new_star_args(
    git_repo: GitRepo,
) -> None:
    """cement dbeb17d4: the abstract `parse(arg_list)` became `parse(self, *args)`; the implementation
    `parse(self, arg_list)` and the one call `self.args.parse(self.argv)` take one argument: nothing fails
    (at most an interface note remains)."""
    base = "class Handler:\n    def parse(self, arg_list):\n        raise NotImplementedError\n"
    new_base = base.replace("def parse(self, arg_list):", "def parse(self, *args):")
    sub = "from core.base import Handler\n\n\nclass Argparse(Handler):\n"
    sub += "    def parse(self, arg_list):\n        return arg_list\n"
    use = "def run(app):\n    return app.args.parse(app.argv)\n"
    files = {"core/base.py": base, "argparse_ext.py": sub, "app.py": use}
    found = _run(git_repo, files, {"core/base.py": new_base})
    assert [f.line for f in found if f.severity.value != "note"] == []


def test_a_stub_the_pr_changes_leaves_overrides_and_calls_stale_together(git_repo: GitRepo) -> None:
    """httpx ff9813e8: the abstract `handle_request(self, method, url, headers)` became
    `handle_request(self, request)`; the transports still take the old parameters, and so do the calls
    that were not updated: passing them is no sign that the stub is what is out of date."""
    base = "class Transport:\n    def handle_request(self, method, url):\n        raise NotImplementedError\n"
    new_base = base.replace("def handle_request(self, method, url):", "def handle_request(self, request):")
    sub = "from core.base import Transport\n\n\nclass Mock(Transport):\n"
    sub += "    def handle_request(self, method, url):\n        return method, url\n"
    use = "def send(transport):\n    return transport.handle_request('GET', '/')\n"
    files = {"core/base.py": base, "mock.py": sub, "client.py": use}
    assert [f.line for f in _run(git_repo, files, {"core/base.py": new_base})] == [5]


def test_a_stub_the_pr_changes_away_from_what_its_call_and_overrides_agree_on_is_what_is_stale(
    git_repo: GitRepo,
) -> None:
    """hydra 2c116a01: the abstract `Launcher.setup(config_loader, hydra_cfg, task_function, verbose)`
    became `setup(config, task_function, verbose)`, while the one call passes `config_loader=` too and the
    launchers take it: a call written for neither stub follows the overrides (the stub got it back)."""
    base = "class Launcher:\n    def setup(self, loader, cfg):\n        raise NotImplementedError\n"
    new_base = base.replace("def setup(self, loader, cfg):", "def setup(self, config):")
    sub = "from core.base import Launcher\n\n\nclass Fair(Launcher):\n"
    sub += "    def setup(self, config, loader):\n        return config, loader\n"
    use = "def make(launcher, c, l):\n    return launcher.setup(config=c, loader=l)\n"
    files = {"core/base.py": base, "fair.py": sub, "plugins.py": use}
    assert _run(git_repo, files, {"core/base.py": new_base}) == []


PARSER = (
    "class Parser:\n    def handle_error(self, error, req):\n        raise error\n\n"
    "    def on_error(self, error, req, status):\n"
    "        if len(get_func_args(self.handle_error)) > 3:\n"
    "            self.handle_error(error, req, status)\n"
    "        else:\n"
    "            self.handle_error(error, req)\n\n\n"
    "def get_func_args(func):\n    return func.__code__.co_varnames\n"
)
FLASK_PARSER = (
    "from core.base import Parser\n\n\nclass FlaskParser(Parser):\n"
    "    def handle_error(self, error, req):\n        raise error\n"
)


def _status_required(git_repo: GitRepo, parser: str) -> list[int]:
    files = {"core/base.py": parser, "flaskparser.py": FLASK_PARSER}
    required = FLASK_PARSER.replace("(self, error, req)", "(self, error, req, status)")
    base = parser.replace("handle_error(self, error, req)", "handle_error(self, error, req, status=None)")
    return [f.line for f in _run(git_repo, files, {"core/base.py": base, "flaskparser.py": required})]


def test_calls_under_a_branch_that_inspects_the_method_fit_any_signature(git_repo: GitRepo) -> None:
    """webargs cdac38eb: the base's caller checks the handler's arity (`get_func_args(self.handle_error)`)
    and passes the new arguments only to handlers that take them: overrides requiring them break no call."""
    assert _status_required(git_repo, PARSER) == []


def test_the_same_calls_without_the_inspection_keep_the_finding(git_repo: GitRepo) -> None:
    plain = PARSER.replace("len(get_func_args(self.handle_error)) > 3", "status is not None")
    assert _status_required(git_repo, plain) == [5]


DECORATING_PARSER = (
    "class Parser:\n    def use_args(self, argmap, req=None, as_kwargs=False):\n"
    "        return argmap, req, as_kwargs\n\n"
    "    def use_kwargs(self, *args, **kwargs):\n        kwargs['as_kwargs'] = True\n"
    "        return self.use_args(*args, **kwargs)\n"
)
DJANGO_PARSER = (
    "from core.base import Parser\n\n\nclass DjangoParser(Parser):\n"
    "    def use_args(self, argmap, req=None):\n        return argmap\n"
)


def _validate_added(git_repo: GitRepo, parser: str) -> list[int]:
    files = {"core/base.py": parser, "djangoparser.py": DJANGO_PARSER}
    new_base = parser.replace("as_kwargs=False):", "as_kwargs=False, validate=None):").replace(
        "return argmap, req, as_kwargs", "return argmap, req, as_kwargs, validate"
    )
    new_django = DJANGO_PARSER.replace("req=None):", "req=None, validate=None):")
    return [f.line for f in _run(git_repo, files, {"core/base.py": new_base, "djangoparser.py": new_django})]


def test_a_splat_of_the_callers_own_args_relies_on_no_positional_slot(git_repo: GitRepo) -> None:
    """webargs 0951e218: `use_args` gains `validate` after `as_kwargs`, which the override never took; the
    override takes `validate` in that slot. The one call, `self.use_args(*args, **kwargs)` in
    `use_kwargs(self, *args, **kwargs)`, only passes on what `use_kwargs`'s callers gave."""
    assert _validate_added(git_repo, DECORATING_PARSER) == []


def test_a_splat_of_a_local_sequence_may_fill_the_slot(git_repo: GitRepo) -> None:
    local = DECORATING_PARSER.replace("(self, *args, **kwargs):", "(self, args, **kwargs):")
    assert _validate_added(git_repo, local) == [5]


def test_a_dispatcher_of_the_same_name_passes_its_callers_args_on_to_the_overrides(git_repo: GitRepo) -> None:
    """pyrogram 055367fe: `Bytes.read(b)` becomes `read(b, *args)`; `Object.read(b, *args)` hands its own
    `*args` to whichever class's `read` the id names, `String.read(b)` among them."""
    base = (
        "class Object:\n    @staticmethod\n    def read(b, *args):\n"
        "        return TYPES[b[0]].read(b, *args)\n\n\n"
        "class Bytes(Object):\n    @staticmethod\n    def read(b):\n        return bytes(b)\n\n\n"
        "TYPES = {}\n"
    )
    string = (
        "from core.base import Bytes\n\n\nclass String(Bytes):\n    @staticmethod\n"
        "    def read(b):\n        return Bytes.read(b).decode()\n"
    )
    new_base = base.replace(
        "    def read(b):\n        return bytes(b)", "    def read(b, *args):\n        return bytes(b)"
    )
    files = {"core/base.py": base, "core/string.py": string}
    assert [(f.path, f.line) for f in _run(git_repo, files, {"core/base.py": new_base})] == [
        ("core/string.py", 6)
    ]


LIBRARY = (
    "class Library:\n    add_supports_tags = False\n\n    def add(self, track):\n        return [track]\n"
)
JSON_LIBRARY = (
    "from core.base import Library\n\n\nclass JsonLibrary(Library):\n"
    "    def add(self, track):\n        return track\n"
)
SCAN = (
    "def scan(library, tracks):\n    for track in tracks:\n        if library.add_supports_tags:\n"
    "            library.add(track, tags={})\n        else:\n            library.add(track)\n"
)


def _tags_added(git_repo: GitRepo, scan: str) -> list[int]:
    files = {"core/base.py": LIBRARY, "jsonlib.py": JSON_LIBRARY, "scan.py": scan}
    tagged = LIBRARY.replace("def add(self, track):", "def add(self, track, tags=None):").replace(
        "return [track]", "return [track, tags]"
    )
    return [f.line for f in _run(git_repo, files, {"core/base.py": tagged})]


def test_arguments_passed_only_behind_a_capability_flag_the_override_leaves_off_rely_on_nothing(
    git_repo: GitRepo,
) -> None:
    """mopidy 12cc2ed3: `Library.add(track, tags=None)` with `add_supports_tags_and_duration = False`; the
    scanner passes `tags=` only `if library.add_supports_tags_and_duration:`; JsonLibrary leaves it off."""
    assert _tags_added(git_repo, SCAN) == []


def test_a_call_of_the_same_name_on_another_known_class_relies_on_nothing(git_repo: GitRepo) -> None:
    registry = (
        "class Registry:\n    def add(self, kind, item):\n        return kind, item\n\n\n"
        "def setup(tracks):\n    registry = Registry()\n    registry.add('backend', tracks)\n"
    )
    assert _tags_added(git_repo, registry) == []


def test_a_call_that_passes_the_new_argument_unguarded_relies_on_it(git_repo: GitRepo) -> None:
    plain = SCAN.replace("        if library.add_supports_tags:\n", "        if tracks:\n")
    assert _tags_added(git_repo, plain) == [5]


def test_an_interface_that_gates_its_new_arguments_behind_a_flag_asks_nothing_of_overrides(
    git_repo: GitRepo,
) -> None:
    """mopidy's `Library.add` is a stub: without the flag its new `tags` would be an interface note."""
    stub = LIBRARY.replace("return [track]", "raise NotImplementedError")
    tagged = stub.replace("def add(self, track):", "def add(self, track, tags=None):")
    files = {"core/base.py": stub, "jsonlib.py": JSON_LIBRARY, "scan.py": SCAN}
    assert [f.line for f in _run(git_repo, files, {"core/base.py": tagged})] == []
