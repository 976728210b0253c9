"""False alarms of round 14 of the real-history noise check (`bench/noise57-*.json`, issue 20), each rebuilt
as a small repository of that shape."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites


def test_a_swap_of_parameters_every_call_passes_the_same_value_to_is_no_break(git_repo: GitRepo) -> None:
    # construct 9145133b1b swaps Restreamed's (encoder, encoderunit) with (decoder, decoderunit); its calls
    # pass `ident, 1, ident, 1` or identical lambdas, while one passing two different functions breaks
    old = "def restreamed(sub, encoder, encoderunit, decoder, decoderunit, size):\n    return sub\n"
    new = "def restreamed(sub, decoder, decoderunit, encoder, encoderunit, size):\n    return sub\n"
    use = (
        "from streams import restreamed\n\n\ndef ident(x):\n    return x\n\n\n"
        "restreamed(1, ident, 1, ident, 1, ident)\n"
        "restreamed(1, None, None, None, None, lambda n: n * 2)\n"
        "restreamed(1, lambda s: s[::-1], 8, lambda s: s[::-1], 8, None)\n"
        "restreamed(1, encode, 1, decode, 1, None)\n"
        "restreamed(1, make(), 1, make(), 1, None)\n"
    )
    run = review(git_repo, {"streams.py": old, "use.py": use}, {"streams.py": new})
    assert sites(run, "breaking-call") == [("use.py", 11), ("use.py", 12)]


CORE_OLD = (
    "class Bytes:\n    def __init__(self, length):\n        self.length = length\n\n\n"
    "def enum(sub, **mapping):\n    return sub\n"
)
CORE_NEW = (
    "class Bytes:\n    def __init__(self, length):\n        self.length = length\n\n\n"
    "def enum(sub, mapping):\n    return sub\n"
)


def test_nothing_in_a_file_whose_import_already_failed_at_the_parent_is_a_break(git_repo: GitRepo) -> None:
    # construct 5914423ffe: `protocols/layer2/ethernet.py` calls `Bytes(name, 6)` at import time against
    # an untouched `Bytes.__init__(self, length)`, so the module never imported, before the PR or since
    ported = "from core import Bytes, enum\n\nmac = Bytes(6)\nkind = enum(Bytes(2), ipv4=0x800)\n"
    half = "from core import Bytes, enum\n\nmac = Bytes('mac', 6)\nkind = enum(Bytes(2), ipv4=0x800)\n"
    in_class = (
        "from core import Bytes, enum\n\n\nclass Header:\n    mac = Bytes('mac', 6)\n\n\n"
        "def kind():\n    return enum(Bytes(2), ipv4=0x800)\n"
    )
    files = {"core.py": CORE_OLD, "ported.py": ported, "half.py": half, "in_class.py": in_class}
    run = review(git_repo, files, {"core.py": CORE_NEW})
    assert sites(run, "breaking-call") == [("ported.py", 4)]


def test_an_import_time_failure_the_pr_wrote_or_caused_hides_nothing(git_repo: GitRepo) -> None:
    # the failing call written by the PR itself, or failing only because the PR changed its callee
    old = CORE_OLD + "\n\ndef size(n):\n    return n\n"
    new = CORE_NEW + "\n\ndef size(n, unit):\n    return n\n"
    before = "from core import enum, size\n\nwidth = size(6)\nkind = enum(2, ipv4=0x800)\n"
    written = "from core import Bytes, enum\n\nkind = enum(2, ipv4=0x800)\n"
    rewritten = "from core import Bytes, enum\n\nmac = Bytes('mac', 6)\nkind = enum(2, ipv4=0x800)\n"
    run = review(
        git_repo,
        {"core.py": old, "caused.py": before, "written.py": written},
        {"core.py": new, "written.py": rewritten},
    )
    assert sites(run, "breaking-call") == [("caused.py", 3), ("caused.py", 4), ("written.py", 4)]
