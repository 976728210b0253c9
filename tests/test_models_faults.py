"""Injected faults against both real SDK clients: each is retried by the SDK or reported as a ModelError,
never a crash or a hang."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator, Iterator

import pytest
from prscope.analysis.models.anthropic_client import AnthropicClient
from prscope.analysis.models.base import Message, ModelError, ModelRequest
from prscope.analysis.models.openai_client import OpenAICompatibleClient

from tests.fakeapi import FakeModelServer, Fault, text_turn
from tests.fakeapi.support import PROVIDERS, Provider, make_client

Client = AnthropicClient | OpenAICompatibleClient

pytestmark = pytest.mark.timeout(20)


@pytest.fixture
def server() -> Iterator[FakeModelServer]:
    with FakeModelServer() as fake:
        yield fake


@pytest.fixture(params=PROVIDERS)
def provider(request: pytest.FixtureRequest) -> Provider:
    param: Provider = request.param
    return param


@pytest.fixture
async def client(provider: Provider, server: FakeModelServer) -> AsyncIterator[Client]:
    made = make_client(provider, server, max_retries=2, timeout_s=5)
    yield made
    await made.close()


def request() -> ModelRequest:
    return ModelRequest(system="sys", messages=[Message.user("hello")], max_tokens=100)


@pytest.mark.parametrize("kind", ["rate_limit", "overloaded", "server_error"])
async def test_retryable_status_is_retried_then_succeeds(
    client: Client, server: FakeModelServer, kind: str
) -> None:
    server.inject(Fault(kind, times=2, retry_after=0.01))  # type: ignore[arg-type]
    server.script(text_turn("recovered"))
    response = await client.complete(request())
    assert response.text == "recovered"
    assert len(server.requests) == 3
    assert [r.headers.get("x-stainless-retry-count") for r in server.requests] == ["0", "1", "2"]


async def test_retry_after_is_honoured(client: Client, server: FakeModelServer) -> None:
    server.inject(Fault("rate_limit", retry_after=0.4))
    server.script(text_turn("ok"))
    started = time.monotonic()
    await client.complete(request())
    assert 0.4 <= time.monotonic() - started < 2.0


async def test_dropped_connection_is_retried(client: Client, server: FakeModelServer) -> None:
    server.inject(Fault("drop"))
    server.script(text_turn("after the drop"))
    response = await client.complete(request())
    assert response.text == "after the drop"
    assert len(server.requests) == 2


async def test_slow_response_times_out_and_is_retried(provider: Provider, server: FakeModelServer) -> None:
    impatient = make_client(provider, server, max_retries=2, timeout_s=0.3)
    server.inject(Fault("slow", delay_s=3))
    server.script(text_turn("fast this time"))
    try:
        started = time.monotonic()
        response = await impatient.complete(request())
    finally:
        await impatient.close()
    assert response.text == "fast this time"
    assert time.monotonic() - started < 2.5
    assert server.wait_for_disconnect(2)


async def test_slow_every_time_is_a_timeout_error(provider: Provider, server: FakeModelServer) -> None:
    impatient = make_client(provider, server, max_retries=1, timeout_s=0.2)
    server.inject(Fault("slow", times=5, delay_s=3))
    try:
        with pytest.raises(ModelError) as caught:
            await impatient.complete(request())
    finally:
        await impatient.close()
    assert caught.value.kind == "timeout"
    assert caught.value.retryable is True
    assert len(server.requests) == 2


async def test_malformed_json_is_a_bad_response(client: Client, server: FakeModelServer) -> None:
    server.inject(Fault("malformed"))
    with pytest.raises(ModelError) as caught:
        await client.complete(request())
    assert caught.value.kind == "bad_response"
    assert "\n" not in str(caught.value)


async def test_persistent_server_error_is_reported_after_the_retries(
    client: Client, server: FakeModelServer
) -> None:
    server.inject(Fault("server_error", times=10))
    with pytest.raises(ModelError) as caught:
        await client.complete(request())
    error = caught.value
    assert error.kind == "server" and error.retryable is True and error.status_code == 500
    assert str(error).endswith("Internal server error")
    assert len(server.requests) == 3


async def test_overloaded_529_is_its_own_kind(client: Client, server: FakeModelServer) -> None:
    server.inject(Fault("overloaded", times=10))
    with pytest.raises(ModelError) as caught:
        await client.complete(request())
    assert caught.value.kind == "overloaded"
    assert caught.value.status_code == 529


@pytest.mark.parametrize(("kind", "expected"), [("auth", "auth"), ("bad_request", "bad_request")])
async def test_client_errors_are_not_retried(
    client: Client, server: FakeModelServer, kind: str, expected: str
) -> None:
    server.inject(Fault(kind, retry_after=None))  # type: ignore[arg-type]
    with pytest.raises(ModelError) as caught:
        await client.complete(request())
    assert caught.value.kind == expected
    assert caught.value.retryable is False
    assert len(server.requests) == 1


async def test_unreachable_server_is_a_connection_error(provider: Provider) -> None:
    with FakeModelServer() as gone:
        dead = make_client(provider, gone, max_retries=1)
    try:
        with pytest.raises(ModelError) as caught:
            await dead.complete(request())
    finally:
        await dead.close()
    assert caught.value.kind == "connection"
