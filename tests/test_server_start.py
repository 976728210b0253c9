"""Starting the server: options as editors send them, user errors without tracebacks, in the editor's
words, and `initialize` answered before the engine is loaded (issue 10, defects 8 to 10)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from lsprotocol import types

from tests.gitrepo import GitRepo
from tests.test_server_stdio import initialize_messages, parse_frames, talk
from tests.test_server_support import lsp_session, stale_call_repo

HEAVY = (
    "prscope.analysis.review",
    "prscope.analysis.changeset",
    "prscope.analysis.checks",
    "pydantic",
    "anthropic",
    "openai",
)

# The real entry point; its `initialize` handler reports which heavy modules are loaded when it runs.
RECORDING_SERVER = f"""
import json, sys
from lsprotocol import types
import prscope.server.app as app
from prscope.server.__main__ import main

build = app.build_server

def build_recording():
    ls = build()
    handler = ls.protocol.fm.features[types.INITIALIZE]

    def initialize(params):
        loaded = sorted(m for m in {HEAVY!r} if m in sys.modules)
        print("LOADED-AT-INITIALIZE " + json.dumps(loaded), file=sys.stderr, flush=True)
        return handler(params)

    ls.protocol.fm.features[types.INITIALIZE] = initialize
    return ls

app.build_server = build_recording
sys.exit(main())
"""


def _talk(
    command: list[str], messages: list[dict[str, Any]], last_id: int
) -> tuple[list[dict[str, Any]], str]:
    stdout, stderr, _returncode = talk(command, messages, last_id)
    return parse_frames(stdout), stderr.decode()


def test_initialize_is_answered_before_the_engine_is_loaded(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    messages = [
        *initialize_messages(repo.root, {"offline": True}),
        {"jsonrpc": "2.0", "id": 2, "method": "prscope/review", "params": {"base": "main"}},
    ]
    answers, stderr = _talk([sys.executable, "-c", RECORDING_SERVER], messages, 2)
    (line,) = [line for line in stderr.splitlines() if line.startswith("LOADED-AT-INITIALIZE ")]
    assert json.loads(line.split(" ", 1)[1]) == []
    assert any(m.get("id") == 2 and m["result"]["status"] == "offline" for m in answers)


def test_user_errors_are_one_warning_line_without_a_traceback(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    messages = [
        *initialize_messages(repo.root, {"offline": True}),
        {"jsonrpc": "2.0", "id": 2, "method": "prscope/review", "params": {"base": "no-such-branch"}},
    ]
    answers, stderr = _talk([sys.executable, "-m", "prscope.server"], messages, 2)
    (answer,) = [m for m in answers if m.get("id") == 2]
    assert "no-such-branch" in answer["error"]["message"]
    assert "Traceback" not in stderr and "ERROR" not in stderr
    logged = [line for line in stderr.splitlines() if "no-such-branch" in line]
    assert len(logged) == 1 and logged[0].startswith("WARNING")


async def test_messages_use_the_editors_words(tmp_path: Path) -> None:
    empty = GitRepo(tmp_path / "empty")
    async with lsp_session(empty.root) as session:
        try:
            await session.review()
        except Exception as err:  # the request fails with RequestFailed
            failure = str(err)
        else:
            failure = ""
        shown = [m.message for m in session.client.messages]
    assert "commit something first, or review staged or uncommitted changes" in failure
    assert all("--" not in message for message in [failure, *shown])


async def test_the_offline_reason_names_no_command_line_flags(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root, options={}) as session:
        summary = await session.review(base="main")
    assert summary["status"] == "offline"
    assert "--" not in summary["status_reason"]
    assert "ANTHROPIC_API_KEY in the language server's environment" in summary["status_reason"]


async def test_an_empty_list_of_options_is_no_options(tmp_path: Path) -> None:
    """What Neovim sends for `init_options = {}`."""
    repo = stale_call_repo(tmp_path / "repo")
    async with lsp_session(repo.root, options=[]) as session:
        summary = await session.review(base="main")
        shown = list(session.client.messages)
    assert shown == []
    assert summary["status"] == "offline"


async def test_each_unusable_option_is_one_message_naming_it(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    options = {"failOn": "sometimes", "bogus": 1, "model": {"baseUrl": 3}, "offline": True, "mode": "branch"}
    async with lsp_session(repo.root, options=options) as session:
        summary = await session.review(base="main")
        shown = [m for m in session.client.messages if m.message.startswith("prscope:")]
    named = sorted(m.message.split("'")[1] for m in shown)
    assert named == ["bogus", "failOn", "model.baseUrl"]
    assert all(m.type == types.MessageType.Warning and "\n" not in m.message for m in shown)
    assert summary["status"] == "offline"  # offline: true still holds
