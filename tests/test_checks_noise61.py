"""False alarms of the real-history noise check left from round 15 and found by round 18 (`bench/noise58-*`,
`bench/noise61-*`, issue 20), each rebuilt as a small repository of that shape."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

MIXIN = """class OAuth2TestsMixin:
    def login(self, resp_mock, process="login"):
        return (resp_mock, process)

    def test_login(self):
        return self.login("mock")


class OpenIDConnectTests(OAuth2TestsMixin):
    def test_auto_signup(self):
        return self.login("mock")
"""
OPTIONAL = MIXIN.replace("def login(self, resp_mock,", "def login(self, resp_mock=None,")
SIBLING_OMITS = OPTIONAL.replace(
    'def test_auto_signup(self):\n        return self.login("mock")',
    ("def test_auto_signup(self):\n        return self.login()"),
)
MIXIN_OMITS = SIBLING_OMITS.replace(
    'def test_login(self):\n        return self.login("mock")',
    ("def test_login(self):\n        return self.login()"),
)
APPLE = """from pkg.tests import OAuth2TestsMixin


class AppleTests(OAuth2TestsMixin):
    def login(self, resp_mock, process="login"):
        return (resp_mock, process, "apple")

    def test_client(self):
        return self.client.login(username="john", password="doe")
"""
DIAMOND = "\n\nclass AppleConnectTests(OpenIDConnectTests, AppleTests):\n    pass\n"


@pytest.mark.parametrize(
    ("mixin_path", "after", "diamond", "expected"),
    [
        ("pkg/tests.py", SIBLING_OMITS, False, []),
        ("pkg/tests.py", MIXIN_OMITS, False, [5]),
        ("pkg/tests.py", SIBLING_OMITS, True, [5]),
        ("pkg/oauth.py", SIBLING_OMITS, False, [5]),
    ],
)
def test_a_call_in_a_test_class_beside_the_override_never_reaches_it(
    git_repo: GitRepo, mixin_path: str, after: str, diamond: bool, expected: list[int]
) -> None:
    """django-allauth 66135fdcb3 makes `resp_mock` optional in the test mixin's `login` for the new
    `OpenIDConnectTests`, whose `self.login()` never runs on `AppleTests`, which still requires it. Still
    reported: the mixin's own test calls `self.login()` (it runs on `AppleTests`), a class deriving from
    both puts the sibling's call on an `AppleTests`, or the base is library code that callers outside the
    repository may call without it."""
    apple = APPLE.replace("from pkg.tests", "from pkg." + mixin_path.removeprefix("pkg/").removesuffix(".py"))
    files = {
        "pkg/__init__.py": "",
        mixin_path: MIXIN,
        "pkg/apple/__init__.py": "",
        "pkg/apple/tests.py": apple,
    }
    changed = {mixin_path: after}
    if diamond:
        changed["pkg/apple/tests.py"] = (
            apple.replace(
                "from pkg.tests import OAuth2TestsMixin",
                "from pkg.tests import OAuth2TestsMixin, OpenIDConnectTests",
            )
            + DIAMOND
        )
    run = review(git_repo, files, changed)
    assert [
        line for path, line in sites(run, "override-mismatch") if path == "pkg/apple/tests.py"
    ] == expected


FRESH = MIXIN.replace(
    'def login(self, resp_mock, process="login"):\n        return (resp_mock, process)',
    'def login(self, resp_mock, process="login", fresh=False):\n        return (resp_mock, process, fresh)',
)


@pytest.mark.parametrize(
    ("mixin_path", "caller", "expected"),
    [
        ("pkg/tests.py", "def test_auto_signup(self):", []),
        ("pkg/tests.py", "def test_login(self):", [5]),
        ("pkg/oauth.py", "def test_auto_signup(self):", []),
    ],
)
def test_a_new_argument_passed_only_beside_the_override_is_no_use_of_it(
    git_repo: GitRepo, mixin_path: str, caller: str, expected: list[int]
) -> None:
    """The same family, the mixin's `login` gaining `fresh=False` that `AppleTests.login` lacks: only the
    sibling `OpenIDConnectTests` passes it, on instances that are never `AppleTests`, so no call relies on
    it where it breaks, in test code or in a library base alike (click 78a62b37c9: only `Option` passes
    `get_default(ctx, call=False)`, and a test's `Argument` subclass never gets it; re-judged false at
    issue 20's twenty-second stop). When the mixin's own test passes it, it runs on `AppleTests` and is
    reported."""
    after = FRESH.replace(
        f'{caller}\n        return self.login("mock")',
        f'{caller}\n        return self.login("mock", fresh=True)',
    )
    files = {
        "pkg/__init__.py": "",
        mixin_path: MIXIN,
        "pkg/apple/__init__.py": "",
        "pkg/apple/tests.py": APPLE.replace("from pkg.tests", "from pkg." + mixin_path[4:-3]),
    }
    run = review(git_repo, files, {mixin_path: after})
    assert [
        line for path, line in sites(run, "override-mismatch") if path == "pkg/apple/tests.py"
    ] == expected


MONITOR = """class Monitor:
    def run(self, sock):
        return self._check(sock, None)

    def _check(self, sock, metadata=None):
        return (sock, metadata)
"""
TEST_MONITOR = """from pkg.monitor import Monitor


def test_round_trip():
    class TestMonitor(Monitor):
        def _check(self, sock, metadata=None):
            return None

    return TestMonitor().run(1)
"""


def test_the_base_s_own_call_reaches_an_override_defined_in_a_test_function(git_repo: GitRepo) -> None:
    """mongo-python-driver dcd8f68994: `Monitor._check_with_socket` gains `cluster_time`, which the base's
    own `self._check_with_socket(...)` passes; the overrides are classes defined inside test functions
    (`m.f.<locals>.TestMonitor` to the class tree). The base's call runs on them and is reported."""
    after = MONITOR.replace("self._check(sock, None)", "self._check(sock, None, 5)").replace(
        "metadata=None):\n        return (sock, metadata)",
        "metadata=None, cluster_time=None):\n        return (sock, cluster_time)",
    )
    files = {
        "pkg/__init__.py": "",
        "pkg/monitor.py": MONITOR,
        "test/__init__.py": "",
        "test/test_monitor.py": TEST_MONITOR,
    }
    run = review(git_repo, files, {"pkg/monitor.py": after})
    assert sites(run, "override-mismatch") == [("test/test_monitor.py", 6)]


REQUEST = """class WebSocketRequest:
    def __init__(self, url):
        self._url = url

    @property
    def url(self):
        return self._url
"""
CLIENT = """import argparse

import trio


async def main(args):
    return args.url


def parse_args():
    parser = argparse.ArgumentParser()
    parser.add_argument("url", help="WebSocket URL")
    return parser.parse_args()


if __name__ == "__main__":
    trio.run(main, parse_args())
"""


@pytest.mark.parametrize(
    ("client", "expected"),
    [(CLIENT, []), (CLIENT.replace('parser.add_argument("url"', 'parser.add_argument("address"'), [7])],
)
def test_an_argparse_destination_is_an_attribute_of_another_class(
    git_repo: GitRepo, client: str, expected: list[int]
) -> None:
    """trio-websocket add9f63fa9 renames `WebSocketRequest.url` to `path`; its examples read `args.url`
    from the Namespace `parser.add_argument("url")` fills, handed to `main` through `trio.run`. With no
    option of that name, the unknown receiver is still reported."""
    files = {"pkg/__init__.py": "", "pkg/request.py": REQUEST, "examples/client.py": client}
    after = REQUEST.replace("def url(self)", "def path(self)")
    run = review(git_repo, files, {"pkg/request.py": after})
    assert [
        line for path, line in sites(run, "dangling-reference") if path == "examples/client.py"
    ] == expected
