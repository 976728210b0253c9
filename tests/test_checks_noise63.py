"""False alarms of the real-history noise check left from round 18 (`bench/noise61-*`, issue 20), each
rebuilt as a small repository of that shape."""

from __future__ import annotations

import pytest

from tests.gitrepo import GitRepo
from tests.test_checks_support import review, sites

CONFIG = """def addV1System(snmpEngine, securityName, communityName, contextName=None):
    return (snmpEngine, securityName, communityName, contextName)
"""
USER = """from pkg.config import addV1System


def configure(engine):
    addV1System(engine, "my-area", "public")
"""
MERGED = """def addV1System(snmpEngine, communityIndex, communityName, contextName=None, securityName=None):
    return (snmpEngine, communityIndex, securityName is not None and securityName or communityIndex)
"""
INSERTED = """def addV1System(snmpEngine, communityIndex, communityName, contextName=None, securityName=None):
    return (snmpEngine, communityIndex, securityName, communityName, contextName)
"""


@pytest.mark.parametrize(("after", "expected"), [(MERGED, []), (INSERTED, [5])])
def test_the_old_slot_s_parameter_merged_by_an_and_or_conditional(
    git_repo: GitRepo, after: str, expected: list[int]
) -> None:
    """pysnmp b2d46549dd gives `addV1System`'s second slot to `communityIndex` and keeps `securityName` as
    a keyword that defaults to it, written `securityName is not None and securityName or communityIndex`
    (the conditional before Python 2.5): a positional argument means what it meant. Without the merge, the
    old value now lands on another parameter, which is reported."""
    files = {"pkg/__init__.py": "", "pkg/config.py": CONFIG, "pkg/user.py": USER}
    run = review(git_repo, files, {"pkg/config.py": after})
    assert [line for path, line in sites(run, "breaking-call") if path == "pkg/user.py"] == expected
