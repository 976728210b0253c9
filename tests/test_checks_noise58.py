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
