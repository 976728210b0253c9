"""Messages in the editor's words (server/wording.py): no command-line flag, the client's own command
named where it has one, and user errors that say what to do."""

from __future__ import annotations

from pathlib import Path

from prscope.analysis.review import NO_KEY_REASON
from prscope.server.wording import EditorCommands, editor_words, user_error

from tests.test_server_support import lsp_session, stale_call_repo

VSCODE = EditorCommands(
    store_key="prscope: Set API Key", review_afresh="prscope: Review Pull Request (No Cache)"
)
CACHED = (
    "model review reused from run 20261101-120000-abcdef (claude): the same change, model, prompts and "
    "settings; no model request was made (--no-cache reviews again)"
)


def test_the_offline_reason_names_the_clients_set_api_key_command() -> None:
    said = editor_words(NO_KEY_REASON, VSCODE)
    assert said == 'no API key: deterministic checks only (run "prscope: Set API Key" for a model review)'


def test_a_client_without_such_a_command_is_told_about_the_environment() -> None:
    said = editor_words(NO_KEY_REASON)
    assert "ANTHROPIC_API_KEY in the language server's environment" in said and "--" not in said


def test_the_cached_review_names_the_no_cache_command_and_nothing_else() -> None:
    said = editor_words(CACHED, VSCODE)
    assert said.endswith('("prscope: Review Pull Request (No Cache)" reviews again)')
    assert "noCache" not in said and "--" not in said


def test_not_a_work_tree_gets_the_prefix_and_a_hint() -> None:
    said = user_error("/home/me/notes is not inside a git work tree")
    assert said.startswith("prscope: /home/me/notes is not inside a git work tree: open a folder inside")


def test_user_errors_are_prefixed_once() -> None:
    assert user_error("prscope: no workspace folder is open") == "prscope: no workspace folder is open"
    assert user_error("unknown base 'x'") == "prscope: unknown base 'x'"


async def test_an_offline_review_from_vs_code_names_its_command(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    options = {"commands": {"storeKey": VSCODE.store_key, "reviewAfresh": VSCODE.review_afresh}}
    async with lsp_session(repo.root, options=options) as session:
        answer = await session.review(base="main")
        messages = list(session.client.log_messages)
    assert answer["status"] == "offline"
    assert 'run "prscope: Set API Key" for a model review' in answer["status_reason"]
    assert "environment" not in answer["status_reason"]
    assert not [m for m in messages if "unknown option" in m.message]
