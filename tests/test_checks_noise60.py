"""False alarms of round 17 of the real-history noise check (`bench/noise60-*.json`, issue 20), each rebuilt
as a small repository of that shape."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

PLUGIN_INIT = 'DATA_XKNX = "xknx"\n\n\ndef setup():\n    return DATA_XKNX\n'
PLUGIN_SENSOR = "from . import DATA_XKNX\n\n\ndef get(hass):\n    return hass.data[DATA_XKNX]\n"


@pytest.mark.parametrize(
    ("after", "expected"),
    [
        (PLUGIN_INIT.replace("def setup", "# TODO: state updater\ndef setup"), []),
        (PLUGIN_INIT.replace('DATA_XKNX = "xknx"\n', ""), [1, 5]),
    ],
)
def test_a_module_sharing_its_name_with_another_root_s_package_is_compared_with_itself(
    git_repo: GitRepo, after: str, expected: list[int]
) -> None:
    """xknx 7fd48382e4 adds comments to its Home Assistant plugin's `custom_components/xknx/__init__.py`,
    which shares its module name with the library's `xknx/__init__.py`: nothing the plugin's modules
    import from it went away. Removing the name from it is still reported."""
    files = {
        "xknx/__init__.py": "from .core import XKNX\n",
        "xknx/core.py": "class XKNX:\n    pass\n",
        "home-assistant-plugin/custom_components/xknx/__init__.py": PLUGIN_INIT,
        "home-assistant-plugin/custom_components/xknx/sensor.py": PLUGIN_SENSOR,
    }
    run = review(git_repo, files, {"home-assistant-plugin/custom_components/xknx/__init__.py": after})
    found = sites(run, "dangling-reference")
    assert [line for path, line in found if path.endswith("sensor.py")] == expected


SETUP = 'from setuptools import setup\n\nsetup(name="pkg", python_requires=">=3.6")\n'
FLAKE8 = "[flake8]\nmax-line-length = 99\nexclude =\n  .tox,\n  native,\n"


@pytest.mark.parametrize(
    ("config", "package", "expected"),
    [
        (FLAKE8, False, []),
        (FLAKE8.replace("  native,\n", ""), False, [1]),
        (FLAKE8, True, [1]),
    ],
)
def test_fixtures_the_linters_skip_outside_any_package_are_data(
    git_repo: GitRepo, config: str, package: bool, expected: list[int]
) -> None:
    """libcst c02de9b718 adds its Rust parser's round-trip fixtures, `native/libcst/tests/fixtures/*.py`
    with Python 3.8 syntax, while setup.py says 3.6: flake8 is told to skip `native`, no `__init__.py`
    makes them a package, and pytest would not collect them. Without the exclude, or inside a package,
    the file is code and still reported."""
    files = {"setup.py": SETUP, ".flake8": config, "pkg/__init__.py": "VALUE = 1\n"}
    if package:
        files["native/parser/tests/fixtures/__init__.py"] = ""
    run = review(git_repo, files, {"native/parser/tests/fixtures/wonky_walrus.py": "(  foo  :=    5   )\n"})
    assert [line for _path, line in sites(run, "syntax-error")] == expected


PLIST = '''class PacketList:
    def nsummary(self, prn=None, lfilter=None):
        return [prn, lfilter]

    def show(self, *args, **kargs):
        """Best way to display the packet list."""
        return self.nsummary(*args, **kargs)


class DNSResult(PacketList):
    def show(self, *args, **kwargs):
        types = kwargs.get("types", ["PTR"])
        return types
'''
NARROWED = PLIST.replace(
    '    def show(self, *args, **kwargs):\n        types = kwargs.get("types", ["PTR"])\n',
    '    def show(self, types=["PTR"]):\n',
)
PACKET_USE = "def dump(field):\n    return field.show({arguments})\n"


@pytest.mark.parametrize(("arguments", "expected"), [("label_lvl='  '", []), ("None, bool", [11])])
def test_a_call_the_base_s_pass_through_rejects_is_another_class_s(
    git_repo: GitRepo, arguments: str, expected: list[int]
) -> None:
    """scapy 97a49f32b9 narrows `DNSSDResult.show(*args, **kwargs)` to `show(types=..., alltypes=...)`;
    the base `_PacketList.show(*args, **kargs)` only hands its arguments to `nsummary(prn, lfilter)`,
    so `field.show(label_lvl=...)` (a Packet's `show`) could never be a packet list's. A call that
    nsummary takes is still one the override now rejects."""
    files = {
        "pkg/__init__.py": "",
        "pkg/plist.py": PLIST,
        "pkg/use.py": PACKET_USE.format(arguments=arguments),
    }
    run = review(git_repo, files, {"pkg/plist.py": NARROWED})
    assert [line for _path, line in sites(run, "override-mismatch")] == expected


MACHINE = """class AnsweringMachine:
    def send_reply(self, reply):
        return reply

    def reply(self, pkt, send_function=None):
        reply = pkt
{call}


class WiFiMachine(AnsweringMachine):
    def send_reply(self, reply):
        return [reply]
"""
BOTH_WAYS = """        if send_function:
            self.send_reply(reply, send_function=send_function)
        else:
            self.send_reply(reply)  # retro-compatibility"""
ALWAYS = "        self.send_reply(reply, send_function=send_function)"


@pytest.mark.parametrize(("call", "expected"), [(BOTH_WAYS, []), (ALWAYS, [11])])
def test_a_caller_keeping_the_old_call_for_old_overrides_relies_on_nothing_new(
    git_repo: GitRepo, call: str, expected: list[int]
) -> None:
    """scapy b1bb1aec67 gives `AnsweringMachine.send_reply` a `send_function=None`; `reply` passes it
    only when it has one and otherwise calls `send_reply(reply)` "for retro-compatibility": the Wi-Fi
    machine's override without it still works. A caller that always passes it breaks that override."""
    before = MACHINE.format(call="        self.send_reply(reply)")
    after = MACHINE.format(call=call).replace(
        "    def send_reply(self, reply):\n        return reply\n",
        "    def send_reply(self, reply, send_function=None):\n"
        "        return send_function(reply) if send_function else reply\n",
    )
    run = review(git_repo, {"pkg/__init__.py": "", "pkg/ans.py": before}, {"pkg/ans.py": after})
    assert [line for _path, line in sites(run, "override-mismatch")] == expected
