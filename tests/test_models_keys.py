"""The API key never appears in any text prscope produces: errors, logs, transcripts, events, reprs."""

from __future__ import annotations

import asyncio
import json
import logging
import traceback

import pytest
from prscope.analysis.agent.events import EventRecorder
from prscope.analysis.agent.runner import Conversation, ConversationRunner, RunConfig
from prscope.analysis.models.base import Message, ModelError, ModelRequest
from prscope.analysis.models.factory import ModelSettings, client_from_settings

from tests.fakeapi import FakeModelServer, Fault, tool_turn
from tests.fakeapi.support import PROVIDERS, TEST_KEY, Provider, make_client, sample_context, sample_registry


@pytest.mark.parametrize("provider", PROVIDERS)
@pytest.mark.parametrize("fault", ["auth", "server_error", "rate_limit"])
async def test_key_echoed_by_the_server_is_redacted_everywhere(
    provider: Provider, fault: str, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    recorder = EventRecorder()
    with FakeModelServer() as server:
        client = make_client(provider, server, max_retries=1)
        server.script(tool_turn(("echo", {"text": "x"})))
        server.responder = lambda request: Fault(fault, echo_api_key=True)  # type: ignore[arg-type]
        config = RunConfig(system_prompt="sys", tools=sample_registry(), tool_context=sample_context())
        try:
            outcome = await ConversationRunner(client).run(
                config, Conversation.start("review"), recorder, asyncio.Event()
            )
        finally:
            await client.close()
        assert server.requests[-1].api_key == TEST_KEY
    assert outcome.status == "error"
    assert outcome.error is not None and "received key [redacted]" in outcome.error
    produced = [
        outcome.error,
        outcome.text,
        repr(outcome),
        json.dumps(outcome.conversation.to_dicts()),
        *(repr(event) for event in recorder.events),
        caplog.text,
        repr(client),
    ]
    for text in produced:
        assert TEST_KEY not in text


@pytest.mark.parametrize("provider", PROVIDERS)
async def test_model_error_carries_no_key_in_any_form(provider: Provider) -> None:
    with FakeModelServer() as server:
        client = make_client(provider, server, max_retries=0)
        server.inject(Fault("auth", echo_api_key=True, retry_after=None))
        try:
            with pytest.raises(ModelError) as caught:
                await client.complete(ModelRequest("sys", [Message.user("hi")], [], 10))
        finally:
            await client.close()
    error = caught.value
    rendered = [str(error), repr(error), repr(error.args), "".join(traceback.format_exception(error))]
    for text in rendered:
        assert TEST_KEY not in text
    assert error.kind == "auth"


def test_settings_never_show_the_key() -> None:
    settings = ModelSettings(api_key=TEST_KEY, base_url="http://127.0.0.1:1")  # type: ignore[arg-type]
    for text in (repr(settings), str(settings), settings.model_dump_json(), settings.describe()):
        assert TEST_KEY not in text
    client = client_from_settings(settings, env={})
    assert client is not None
    assert TEST_KEY not in repr(client)
