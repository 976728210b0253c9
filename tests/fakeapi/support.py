"""Helpers for tests that drive the real SDK clients against the fake server: client factories for
both providers and small real tools (sleeping, echoing, failing) to run in the loop."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Literal

from prscope.analysis.models.anthropic_client import AnthropicClient
from prscope.analysis.models.base import ModelClient
from prscope.analysis.models.openai_client import OpenAICompatibleClient
from prscope.analysis.tools.base import Tool, ToolContext, ToolError, ToolRegistry
from pydantic import BaseModel

from tests.fakeapi.server import FakeModelServer

Provider = Literal["anthropic", "openai"]
PROVIDERS: list[Provider] = ["anthropic", "openai"]
TEST_KEY = "sk-test-SECRET-0123456789abcdef"


def make_client(
    provider: Provider,
    server: FakeModelServer,
    *,
    context_window: int = 200_000,
    max_retries: int = 3,
    timeout_s: float = 10.0,
    api_key: str = TEST_KEY,
) -> AnthropicClient | OpenAICompatibleClient:
    if provider == "anthropic":
        return AnthropicClient(
            api_key=api_key,
            model="fake-model",
            base_url=server.base_url,
            context_window=context_window,
            max_retries=max_retries,
            timeout_s=timeout_s,
            connect_timeout_s=2.0,
        )
    return OpenAICompatibleClient(
        api_key=api_key,
        model="fake-model",
        base_url=server.openai_base_url,
        context_window=context_window,
        max_retries=max_retries,
        timeout_s=timeout_s,
        connect_timeout_s=2.0,
    )


def as_model_client(client: AnthropicClient | OpenAICompatibleClient) -> ModelClient:
    return client


class SleepArgs(BaseModel):
    seconds: float = 0.2
    label: str = ""


class SleepTool(Tool[SleepArgs]):
    """Waits, then says so: concurrency is visible in wall time."""

    name = "sleep"
    description = "Wait for the given number of seconds."
    args_model = SleepArgs

    async def run(self, args: SleepArgs, ctx: ToolContext) -> str:
        await asyncio.sleep(args.seconds)
        return f"slept {args.seconds:g}s {args.label}".strip()


class EchoArgs(BaseModel):
    text: str


class EchoTool(Tool[EchoArgs]):
    name = "echo"
    description = "Return the text unchanged."
    args_model = EchoArgs

    async def run(self, args: EchoArgs, ctx: ToolContext) -> str:
        return args.text


class FailArgs(BaseModel):
    reason: str = "refused"


class FailTool(Tool[FailArgs]):
    name = "fail"
    description = "Always fails with a readable error."
    args_model = FailArgs

    async def run(self, args: FailArgs, ctx: ToolContext) -> str:
        raise ToolError(args.reason)


def sample_registry() -> ToolRegistry:
    return ToolRegistry([SleepTool(), EchoTool(), FailTool()])


def sample_context(root: Path | None = None) -> ToolContext:
    return ToolContext(repo_root=root or Path("."))
