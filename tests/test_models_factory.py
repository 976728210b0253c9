"""Building a model client from settings and the environment."""

from __future__ import annotations

import pytest
from prscope.analysis.errors import ConfigError
from prscope.analysis.models.anthropic_client import AnthropicClient
from prscope.analysis.models.base import ModelClient
from prscope.analysis.models.factory import (
    DEFAULT_ANTHROPIC_MODEL,
    DEFAULT_ANTHROPIC_WINDOW,
    DEFAULT_OPENAI_WINDOW,
    ModelSettings,
    client_from_settings,
)
from prscope.analysis.models.openai_client import OpenAICompatibleClient
from pydantic import SecretStr, ValidationError


def test_no_key_means_offline() -> None:
    assert client_from_settings(ModelSettings(), env={}) is None
    assert client_from_settings(ModelSettings(provider="openai", model="m"), env={}) is None


def test_anthropic_key_from_the_environment_with_defaults() -> None:
    client = client_from_settings(ModelSettings(), env={"ANTHROPIC_API_KEY": "sk-env-key"})
    assert isinstance(client, AnthropicClient)
    assert isinstance(client, ModelClient)
    assert client.model == DEFAULT_ANTHROPIC_MODEL
    assert client.context_window == DEFAULT_ANTHROPIC_WINDOW


def test_settings_win_over_the_environment() -> None:
    settings = ModelSettings(
        api_key=SecretStr("sk-settings"), base_url="http://127.0.0.1:9/", model="claude-x"
    )
    client = client_from_settings(
        settings, env={"ANTHROPIC_API_KEY": "sk-env", "ANTHROPIC_BASE_URL": "http://x"}
    )
    assert isinstance(client, AnthropicClient)
    assert client._sdk.api_key == "sk-settings"  # the configured SDK client is the thing under test here
    assert str(client._sdk.base_url).startswith("http://127.0.0.1:9")


def test_openai_compatible_server_needs_no_key_but_a_model() -> None:
    settings = ModelSettings(provider="openai", base_url="http://127.0.0.1:11434/v1")
    with pytest.raises(ConfigError, match="--model"):
        client_from_settings(settings, env={})
    client = client_from_settings(settings.model_copy(update={"model": "llama3.1:8b"}), env={})
    assert isinstance(client, OpenAICompatibleClient)
    assert client.context_window == DEFAULT_OPENAI_WINDOW


def test_openai_base_url_from_the_environment() -> None:
    client = client_from_settings(
        ModelSettings(provider="openai", model="m", context_window=8192),
        env={"OPENAI_BASE_URL": "http://127.0.0.1:8000/v1"},
    )
    assert isinstance(client, OpenAICompatibleClient)
    assert client.context_window == 8192


@pytest.mark.parametrize(
    "bad", [{"context_window": 0}, {"max_retries": -1}, {"timeout_s": 0}, {"provider": "gemini"}]
)
def test_invalid_settings_are_rejected(bad: dict[str, object]) -> None:
    with pytest.raises(ValidationError):
        ModelSettings.model_validate(bad)
