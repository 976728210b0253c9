"""pytest fixtures: one Prism server and GitHub's GraphQL schema for the whole session.

The tools come from npm (tests/githubmock/toolchain.sh, cached per machine). When they cannot be
installed or Prism does not start, the tests fail, loudly: in CI always. On a developer's machine
without the tools (offline, no npm), PRSCOPE_SKIP_GITHUB_CONTRACT=1 turns that into a skip that says so.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import NoReturn

import pytest
from graphql import GraphQLSchema

from tests.githubmock.graphql_api import load_schema
from tests.githubmock.prism import PrismServer, Toolchain, ToolchainMissing, install_toolchain

SKIP_VARIABLE = "PRSCOPE_SKIP_GITHUB_CONTRACT"


@dataclass(frozen=True)
class Contract:
    tools: Toolchain
    prism: PrismServer
    schema: GraphQLSchema


def _unavailable(reason: str) -> NoReturn:
    if os.environ.get(SKIP_VARIABLE) == "1" and not os.environ.get("CI"):
        pytest.skip(f"GitHub's contract cannot be served here ({reason}); skipped because {SKIP_VARIABLE}=1")
    pytest.fail(
        f"GitHub's contract cannot be served: {reason}. The posting tests need npm to install "
        f"@stoplight/prism-cli and @octokit/openapi (tests/githubmock/toolchain.sh); outside CI, "
        f"{SKIP_VARIABLE}=1 skips them.",
        pytrace=False,
    )


@pytest.fixture(scope="session")
def github_contract(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Contract]:
    try:
        tools = install_toolchain()
    except ToolchainMissing as err:
        _unavailable(str(err))
    prism = PrismServer(tools, tmp_path_factory.mktemp("prism") / "prism.log")
    try:
        prism.start()
    except RuntimeError as err:
        _unavailable(str(err))
    try:
        yield Contract(tools, prism, load_schema(tools.graphql_schema))
    finally:
        prism.stop()
