"""Model settings and the one place a model client is built from them.

No key means no client (the review then runs offline), except for an OpenAI-compatible server given by
URL: local servers (Ollama, llama.cpp, LM Studio) need no key.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Literal

from prscope.analysis.errors import ConfigError
from prscope.analysis.models.anthropic_client import AnthropicClient
from prscope.analysis.models.base import ModelClient
from prscope.analysis.models.openai_client import OpenAICompatibleClient
from pydantic import BaseModel, Field, SecretStr

Provider = Literal["anthropic", "openai"]

DEFAULT_ANTHROPIC_MODEL = "claude-sonnet-5-5"
DEFAULT_ANTHROPIC_WINDOW = 200_000
DEFAULT_OPENAI_WINDOW = 32_768
"""Local OpenAI-compatible servers often run with small windows; a larger one must be configured."""


class ModelSettings(BaseModel):
    provider: Provider = "anthropic"
    model: str | None = None
    api_key: SecretStr | None = None
    base_url: str | None = None
    context_window: int | None = Field(default=None, gt=0)
    max_retries: int = Field(default=4, ge=0, le=10)
    timeout_s: float = Field(default=300.0, gt=0)
    connect_timeout_s: float = Field(default=10.0, gt=0)

    def describe(self) -> str:
        """One line for logs and the terminal: never the key."""
        where = f" at {self.base_url}" if self.base_url else ""
        return f"{self.provider} model {self.model or '(default)'}{where}"


def client_from_settings(settings: ModelSettings, env: Mapping[str, str] | None = None) -> ModelClient | None:
    """The configured client, or None when there is no key (offline). Settings win over the environment:
    ANTHROPIC_API_KEY / ANTHROPIC_BASE_URL, or OPENAI_API_KEY / OPENAI_BASE_URL."""
    environ = os.environ if env is None else env
    if settings.provider == "anthropic":
        return _anthropic(settings, environ)
    return _openai(settings, environ)


def _key(settings: ModelSettings, environ: Mapping[str, str], variable: str) -> str | None:
    if settings.api_key is not None and settings.api_key.get_secret_value():
        return settings.api_key.get_secret_value()
    return environ.get(variable) or None


def _anthropic(settings: ModelSettings, environ: Mapping[str, str]) -> AnthropicClient | None:
    key = _key(settings, environ, "ANTHROPIC_API_KEY")
    if key is None:
        return None
    return AnthropicClient(
        api_key=key,
        model=settings.model or DEFAULT_ANTHROPIC_MODEL,
        context_window=settings.context_window or DEFAULT_ANTHROPIC_WINDOW,
        base_url=settings.base_url or environ.get("ANTHROPIC_BASE_URL") or None,
        max_retries=settings.max_retries,
        timeout_s=settings.timeout_s,
        connect_timeout_s=settings.connect_timeout_s,
    )


def _openai(settings: ModelSettings, environ: Mapping[str, str]) -> OpenAICompatibleClient | None:
    key = _key(settings, environ, "OPENAI_API_KEY")
    base_url = settings.base_url or environ.get("OPENAI_BASE_URL") or None
    if key is None and base_url is None:
        return None
    if not settings.model:
        raise ConfigError("the openai provider needs a model id: pass --model (e.g. --model llama3.1:8b)")
    return OpenAICompatibleClient(
        api_key=key,
        model=settings.model,
        base_url=base_url,
        context_window=settings.context_window or DEFAULT_OPENAI_WINDOW,
        max_retries=settings.max_retries,
        timeout_s=settings.timeout_s,
        connect_timeout_s=settings.connect_timeout_s,
    )
