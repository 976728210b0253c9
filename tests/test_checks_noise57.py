"""False alarms of round 14 of the real-history noise check (`bench/noise57-*.json`, issue 20), each rebuilt
as a small repository of that shape."""

from __future__ import annotations

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites


def test_a_swap_of_parameters_every_call_passes_the_same_value_to_is_no_break(git_repo: GitRepo) -> None:
    # construct 9145133b1b swaps Restreamed's (encoder, encoderunit) with (decoder, decoderunit); its calls
    # pass `ident, 1, ident, 1` or identical lambdas and calls, while one passing two different functions,
    # or the values of two different awaits, breaks
    old = "def restreamed(sub, encoder, encoderunit, decoder, decoderunit, size):\n    return sub\n"
    new = "def restreamed(sub, decoder, decoderunit, encoder, encoderunit, size):\n    return sub\n"
    use = (
        "from streams import restreamed\n\n\ndef ident(x):\n    return x\n\n\n"
        "restreamed(1, ident, 1, ident, 1, ident)\n"
        "restreamed(1, None, None, None, None, lambda n: n * 2)\n"
        "restreamed(1, lambda s: s[::-1], 8, lambda s: s[::-1], 8, None)\n"
        "restreamed(1, encode, 1, decode, 1, None)\n"
        "restreamed(1, ident, sub.sizeof(), ident, sub.sizeof(), None)\n\n\n"
        "async def pair(next_unit):\n"
        "    restreamed(1, ident, await next_unit(), ident, await next_unit(), None)\n"
    )
    run = review(git_repo, {"streams.py": old, "use.py": use}, {"streams.py": new})
    assert sites(run, "breaking-call") == [("use.py", 11), ("use.py", 16)]


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


def test_a_file_importing_a_name_its_module_never_had_is_not_reviewed_for_breaks(git_repo: GitRepo) -> None:
    # construct 5914423ffe's `formats/data/snoop.py` imports `Field`, which the package no longer had at the
    # parent: the ImportError stops the module before any call. Under `try:` the error may be caught; every
    # module has a `__doc__` (httpie's `from httpie import __doc__, __version__`).
    stale = "from core import Field, enum\n\nkind = enum(2, ipv4=0x800)\n"
    dunder = "from core import __doc__, enum\n\nkind = enum(2, ipv4=0x800)\n"
    caught = (
        "try:\n    from core import Field\nexcept ImportError:\n    Field = None\nfrom core import enum\n\n"
    )
    caught += "kind = enum(2, ipv4=0x800)\n"
    files = {"core.py": CORE_OLD, "stale.py": stale, "caught.py": caught, "dunder.py": dunder}
    run = review(git_repo, files, {"core.py": CORE_NEW})
    assert sites(run, "breaking-call") == [("caught.py", 7), ("dunder.py", 3)]


def test_a_name_missing_behind_the_package_s_star_import_is_missing(git_repo: GitRepo) -> None:
    # construct's `__init__.py` does `from construct.core import *`; `fat16.py`'s `from construct import
    # Embed` already failed at the parent, the core no longer having `Embed`
    init = "from pkg.core import *\n\n# Embed = Embedded\n"
    stale = "from pkg import Embed, enum\n\nkind = enum(2, ipv4=0x800)\n"
    fine = "from pkg import Bytes, enum\n\nkind = enum(2, ipv4=0x800)\n"
    base = {"pkg/__init__.py": init, "pkg/core.py": CORE_OLD, "pkg/stale.py": stale, "pkg/fine.py": fine}
    run = review(git_repo, base, {"pkg/core.py": CORE_NEW})
    assert sites(run, "breaking-call") == [("pkg/fine.py", 3)]
