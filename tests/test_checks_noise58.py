"""False alarms of round 15 of the real-history noise check (`bench/noise58-*.json`, issue 20), each rebuilt
as a small repository of that shape."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

MIXIN = (
    "class BaseXMPP:\n"
    "    def add_event_handler(self, name, handler):\n        self.handlers[name] = handler\n\n"
    "    def start(self):\n        self.add_event_handler('session_start', print)\n"
)
MIXIN_AFTER = "class BaseXMPP:\n    def start(self):\n"
MIXIN_AFTER += "        self.add_event_handler('session_start', print)\n"
STREAM = "class XMLStream:\n    def run(self):\n        return 1\n"
STREAM_AFTER = (
    "class XMLStream:\n    def run(self):\n        return 1\n\n"
    "    def add_event_handler(self, name, handler):\n        self.handlers[name] = handler\n"
)


CLIENT = (
    "from base import BaseXMPP\nfrom stream import XMLStream\n\n\n"
    "class ClientXMPP(BaseXMPP, XMLStream):\n    pass\n\n\n"
)


def _moved_into_the_stream(
    git_repo: GitRepo, rest: str, more: dict[str, str] | None = None
) -> list[tuple[str, int]]:
    """The dangling references left when `add_event_handler` moves from the mixin into XMLStream, with
    `clients.py` holding ClientXMPP(BaseXMPP, XMLStream) and then `rest`."""
    files = {"base.py": MIXIN, "stream.py": STREAM, "clients.py": CLIENT + rest, **(more or {})}
    run = review(git_repo, files, {"base.py": MIXIN_AFTER, "stream.py": STREAM_AFTER})
    return sites(run, "dangling-reference")


def test_a_method_moved_from_a_mixin_into_the_other_base_of_every_subclass_is_still_there(
    git_repo: GitRepo,
) -> None:
    # slixmpp bb219595a7: `basexmpp` is only a mixin of ClientXMPP(basexmpp, XMLStream) and
    # ComponentXMPP(basexmpp, XMLStream); the commit moves `add_event_handler` into XMLStream
    component = "class ComponentXMPP(BaseXMPP, XMLStream):\n    pass\n"
    bot = "from clients import ClientXMPP\n\n\nclass EchoBot(ClientXMPP):\n    pass\n"  # below a subclass
    assert _moved_into_the_stream(git_repo, component, {"bot.py": bot}) == []


def test_a_subclass_that_does_not_get_the_moved_method_keeps_the_finding(git_repo: GitRepo) -> None:
    assert _moved_into_the_stream(git_repo, "class Bare(BaseXMPP):\n    pass\n") == [("base.py", 3)]


def test_a_mixin_also_built_on_its_own_keeps_the_finding(git_repo: GitRepo) -> None:
    assert _moved_into_the_stream(git_repo, "def bare():\n    return BaseXMPP()\n") == [("base.py", 3)]


SESSION = "from requests import Session\n\n\nclass ResilientSession(Session):\n"
SESSION += "    def request(self, method, url, **kwargs):\n"
SESSION += "        return super().request(method, url, **kwargs)\n"
RULE = "dangling-reference"
CALLER = "from session import ResilientSession\n\n\ndef fetch(url):\n    return ResilientSession().get(url)\n"


def _override_dropped(
    git_repo: GitRepo, header: str, body: str = "        return self.request('GET', url)\n"
) -> list[tuple[str, int]]:
    """The dangling references left when ResilientSession(requests.Session) drops a `get` declared by
    `header`."""
    before = SESSION + f"\n{header}\n{body}"
    return sites(review(git_repo, {"session.py": before, "caller.py": CALLER}, {"session.py": SESSION}), RULE)


def test_a_dropped_override_of_a_base_outside_the_repository_is_still_there(git_repo: GitRepo) -> None:
    # jira c6d59a1b2f: the overrides carried `# type: ignore` (mypy: incompatible with requests.Session.get)
    assert _override_dropped(git_repo, "    def get(self, url, **kwargs):  # type: ignore") == []


def test_a_dropped_method_marked_override_is_still_there(git_repo: GitRepo) -> None:
    header = "    @override\n    def get(self, url, **kwargs):"
    assert _override_dropped(git_repo, header) == []


def test_a_class_reaching_its_base_by_computed_name_still_has_what_it_wrapped(git_repo: GitRepo) -> None:
    body = "        method = getattr(super(), verb.lower())\n        return method(url)\n"
    header = "    def get(self, url, verb='GET'):"
    assert _override_dropped(git_repo, header, body) == []


def test_a_dropped_method_of_its_own_is_still_found(git_repo: GitRepo) -> None:
    # an ignore for another reason says nothing about the base
    header = "    def get(self, url, **kwargs):  # type: ignore[no-untyped-def]"
    assert _override_dropped(git_repo, header) == [("caller.py", 5)]


ROUTERS = (
    "class Router:\n    async def dispatch(self):\n        raise NotImplementedError\n\n\n"
    "class HTTPRouter(Router):\n    async def dispatch(self{http}):\n        return 1\n\n\n"
    "class WSRouter(Router):\n    async def dispatch(self{ws}):\n        return 2\n"
)


def _overrides_changed(git_repo: GitRepo, http: str, ws: str) -> list[tuple[str, int]]:
    before = ROUTERS.format(http="", ws="")
    run = review(git_repo, {"routing.py": before}, {"routing.py": ROUTERS.format(http=http, ws=ws)})
    return sites(run, "override-mismatch")


def test_every_implementation_of_a_stub_moving_away_from_it_says_nothing(git_repo: GitRepo) -> None:
    # emmett adfb100d19: both routers now take what they dispatch; the stub base was left as it was
    assert _overrides_changed(git_repo, ", request, response", ", websocket") == []


def test_one_implementation_leaving_a_stub_its_sibling_keeps_is_reported(git_repo: GitRepo) -> None:
    assert _overrides_changed(git_repo, ", request, response", "") == [("routing.py", 7)]


FIELD = "class StructField:\n    @property\n    def optional(self):\n        return False\n\n"
FIELD += "    def size(self):\n        return 1\n"


def test_a_read_behind_hasattr_of_that_name_says_nothing(git_repo: GitRepo) -> None:
    # zigpy 89ec72f83a: `hasattr(s, "optional") and s.optional` over a schema that holds other types too
    use = (
        "from fields import StructField\n\n\ndef count(schema: list[StructField]):\n"
        "    flagged = [s for s in schema if hasattr(s, 'optional') and s.optional]\n"
        '    for s in schema:\n        if hasattr(s, "optional"):\n            flagged.append(s.optional)\n'
        "    return [s.optional for s in schema]\n"
    )
    after = FIELD.replace("    @property\n    def optional(self):\n        return False\n\n", "")
    run = review(git_repo, {"fields.py": FIELD, "use.py": use}, {"fields.py": after})
    assert sites(run, RULE) == [("use.py", 9)]


def test_a_module_deleted_and_ignored_from_now_on_is_generated_at_build_time(git_repo: GitRepo) -> None:
    # pipx 9639e2ccf2: `src/pipx/version.py` deleted, listed in .gitignore, written by hatch-vcs at build
    base = {
        "src/pipx/__init__.py": "",
        "src/pipx/version.py": "__version__ = '1.0'\n",
        "src/pipx/main.py": "from pipx.version import __version__\n\nprint(__version__)\n",
        "src/pipx/other.py": "from pipx import version\n\nprint(version.__version__)\n",
    }
    head = {"src/pipx/version.py": None}
    ignored = review(
        git_repo, {**base, ".gitignore": "*.pyc\n"}, {**head, ".gitignore": "/src/pipx/version.py\n"}
    )
    assert sites(ignored, RULE) == []


def test_a_module_deleted_while_only_a_pattern_is_ignored_is_still_reported(git_repo: GitRepo) -> None:
    base = {"pkg/__init__.py": "", "pkg/version.py": "V = 1\n", "pkg/main.py": "from pkg.version import V\n"}
    run = review(
        git_repo, {**base, ".gitignore": "*.pyc\n"}, {"pkg/version.py": None, ".gitignore": "ver*.py\n"}
    )
    assert sites(run, RULE) == [("pkg/main.py", 1)]


BACKEND = (
    "class BaseBackend:\n    def clear(self, models=None{new}):\n        raise NotImplementedError\n\n\n"
    "class DummyBackend(BaseBackend):\n    def clear(self, {dummy}):\n        return None\n"
)


def _base_gains_commit(git_repo: GitRepo, dummy: str) -> list[tuple[str, int]]:
    before, after = BACKEND.format(new="", dummy=dummy), BACKEND.format(new=", commit=True", dummy=dummy)
    return sites(review(git_repo, {"backends.py": before}, {"backends.py": after}), "override-mismatch")


def test_a_latent_promise_says_nothing_of_an_override_that_never_kept_the_base_s(git_repo: GitRepo) -> None:
    # django-haystack dbc1c4b27c: the dummy backend's `clear(self, models)` never took a call without models
    assert _base_gains_commit(git_repo, "models") == []


def test_a_latent_promise_is_noted_on_an_override_that_kept_the_base_s(git_repo: GitRepo) -> None:
    assert _base_gains_commit(git_repo, "models=None") == [("backends.py", 7)]


def _driver_changed(git_repo: GitRepo, others: str) -> list[tuple[str, int]]:
    """`VSphere.create_node(self, **kwargs)` becomes `(self, name, size, ex_cluster=None)` beside three
    other drivers whose parameters are `others`, under `NodeDriver.create_node(self, name, size,
    auth=None)`, which `deploy` calls with `auth=`."""
    base = "class NodeDriver:\n    def create_node(self, name, size, auth=None):\n"
    base += "        raise NotImplementedError\n"
    for driver in ("EC2", "GCE", "Linode"):
        base += f"\n\nclass {driver}(NodeDriver):\n    def create_node(self, {others}):\n        return 1\n"
    base += "\n\ndef deploy(driver: NodeDriver):\n    return driver.create_node('n', 1, auth='key')\n"
    vsphere = "from base import NodeDriver\n\n\nclass VSphere(NodeDriver):\n    def create_node(self, {}):\n"
    vsphere += "        return 2\n"
    run = review(
        git_repo,
        {"base.py": base, "vsphere.py": vsphere.format("**kwargs")},
        {"vsphere.py": vsphere.format("name, size, ex_cluster=None")},
    )
    return sites(run, "override-mismatch")


def test_an_optional_parameter_most_overrides_leave_out_is_no_promise(git_repo: GitRepo) -> None:
    # libcloud 7a867fede6: 35 of 53 drivers' `create_node` leave out the base's `auth=`
    assert _driver_changed(git_repo, "name, size") == []


def test_an_optional_parameter_the_other_overrides_take_is_still_a_promise(git_repo: GitRepo) -> None:
    assert _driver_changed(git_repo, "name, size, auth=None") == [("vsphere.py", 5)]


def test_an_optional_parameter_the_other_overrides_take_by_kwargs_is_still_a_promise(
    git_repo: GitRepo,
) -> None:
    assert _driver_changed(git_repo, "name, size, **kwargs") == [("vsphere.py", 5)]


PIPES = "class Pipe:\n    async def pipe(self, next_pipe, **kwargs):\n"
PIPES += "        return await next_pipe(**kwargs)\n\n\n"
PIPES += "async def run(pipes: list[Pipe], handler):\n    return [await p.pipe(handler) for p in pipes]\n"
SERVICE = (
    "from pipes import Pipe\n\n\nclass ServicePipe(Pipe):\n"
    "    def __init__(self, name):\n        self.procedure = getattr(self, name)\n\n"
    "    async def json(self, next_pipe, kwargs):\n        return str(await next_pipe(**kwargs))\n\n"
    "    def render(self, value):\n        return value\n\n"
    "    def pipe(self, next_pipe, **kwargs):\n        return {returned}\n"
)


def _service_pipe_now_returns(git_repo: GitRepo, returned: str) -> list[tuple[str, int]]:
    """`ServicePipe.pipe` goes from `async def` returning `await self.procedure(...)` to a plain `def`
    returning `returned`."""
    before = SERVICE.replace("    def pipe", "    async def pipe").format(
        returned="await self.procedure(next_pipe)"
    )
    after = SERVICE.format(returned=returned)
    run = review(git_repo, {"pipes.py": PIPES, "service.py": before}, {"service.py": after})
    return sites(run, "override-mismatch")


def test_a_plain_override_returning_what_a_callable_attribute_gives_may_return_a_coroutine(
    git_repo: GitRepo,
) -> None:
    # emmett a4e4ab0f8c: `self.procedure = getattr(self, name)` picks an `async def`
    assert _service_pipe_now_returns(git_repo, "self.procedure(next_pipe, kwargs)") == []


def test_a_plain_override_returning_a_plain_method_s_result_is_reported(git_repo: GitRepo) -> None:
    assert _service_pipe_now_returns(git_repo, "self.render(kwargs)") == [("service.py", 14)]
