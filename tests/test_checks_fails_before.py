"""A stale reference after a statement that always raised, before the PR and since, never ran (daphne
01f174bf: every test built `HTTPFactory(channel_layer, send_channel=...)` when `HTTPFactory.__init__` took
only `server`); one that ran is reported as before."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

PROTOCOL = """\
class Factory:
    def __init__(self, server):
        self.server = server

    def dispatch_reply(self, channel, message):
        return channel, message
"""
HELPERS = """\
from pkg.protocol import Factory


def run_through(request):
    factory = Factory(request, send_channel="test!")
    return factory


def reply(request, message):
    factory = run_through(request)
    factory.dispatch_reply(request, message)


def reply_fitting(request, message):
    factory = Factory(request)
    factory.dispatch_reply(request, message)
"""
TESTS = """\
import unittest

from pkg.protocol import Factory


class TestReplies(unittest.TestCase):
    def setUp(self):
        self.factory = Factory(None, send_channel="test!")

    def test_reply(self):
        self.factory.dispatch_reply("c", {})


class Client:
    def __init__(self):
        self.factory = Factory(None, send_channel="test!")

    def send(self, content):
        self.factory.dispatch_reply("c", content)
"""
REMOVED = {
    "pkg/protocol.py": PROTOCOL.replace("    def dispatch_reply", "    def _dispatch").replace(
        "return channel, message", "return channel"
    )
}


def test_what_follows_a_call_that_always_failed_is_not_reported(git_repo: GitRepo) -> None:
    """`reply` calls a helper whose constructor call never fitted; the test's `setUp` and the client's
    `__init__` never did either. `reply_fitting` ran, and breaks."""
    base = {
        "pkg/__init__.py": "",
        "pkg/protocol.py": PROTOCOL,
        "pkg/helpers.py": HELPERS,
        "tests/test_x.py": TESTS,
    }
    run = review(git_repo, base, REMOVED)
    assert sites(run, "dangling-reference") == [("pkg/helpers.py", 16)]


def test_a_helper_that_may_return_before_its_failing_call_hides_nothing(git_repo: GitRepo) -> None:
    helpers = HELPERS.replace(
        "    factory = Factory(request, send_channel",
        "    if not request:\n        return None\n    factory = Factory(request, send_channel",
    )
    base = {"pkg/__init__.py": "", "pkg/protocol.py": PROTOCOL, "pkg/helpers.py": helpers}
    run = review(git_repo, base, REMOVED)
    assert sites(run, "dangling-reference") == [("pkg/helpers.py", 13), ("pkg/helpers.py", 18)]


def test_a_call_the_pr_makes_fit_no_longer_fails_before_what_follows(git_repo: GitRepo) -> None:
    """The PR gives the constructor the `send_channel` the helper passed: `reply` runs now, and breaks."""
    base = {"pkg/__init__.py": "", "pkg/protocol.py": PROTOCOL, "pkg/helpers.py": HELPERS}
    protocol = REMOVED["pkg/protocol.py"].replace("(self, server):", "(self, server, send_channel=None):")
    run = review(git_repo, base, {"pkg/protocol.py": protocol})
    assert sites(run, "dangling-reference") == [("pkg/helpers.py", 11), ("pkg/helpers.py", 16)]


def test_a_module_attribute_no_revision_had_fails_before_what_follows(git_repo: GitRepo) -> None:
    """sanic 13d5a442's shape: `response.write(...)`, which `pkg.response` never had, raises before the
    stale `response.stream(...)` after it."""
    response = "def stream(body):\n    return body\n\n\ndef text(body):\n    return body\n"
    example = (
        "from pkg import response\n\n\n"
        "def handler(body):\n    response.write(body)\n    return response.stream(body)\n\n\n"
        "def other(body):\n    response.text(body)\n    return response.stream(body)\n"
    )
    base = {"pkg/__init__.py": "", "pkg/response.py": response, "example.py": example}
    run = review(
        git_repo, base, {"pkg/response.py": response.replace("def stream(body):\n    return body\n\n\n", "")}
    )
    assert sites(run, "dangling-reference") == [("example.py", 11)]
