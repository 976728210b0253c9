"""The review report: the top level of `--format json`, and what every other format is rendered from."""

from __future__ import annotations

from typing import Literal

from prscope.analysis import __version__
from prscope.analysis.findings import Finding
from pydantic import BaseModel, Field

SCHEMA_VERSION = 1

ReviewStatus = Literal["complete", "partial", "offline"]


class ToolInfo(BaseModel):
    name: str = "prscope"
    version: str = __version__


class OmittedFile(BaseModel):
    path: str
    reason: str


class FilesSummary(BaseModel):
    changed: int = 0
    reviewed: int = 0
    omitted: list[OmittedFile] = Field(default_factory=list)


class Usage(BaseModel):
    requests: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def add(self, other: Usage) -> Usage:
        return Usage(
            requests=self.requests + other.requests,
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_creation_input_tokens=self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
        )

    @property
    def total_tokens(self) -> int:
        return (
            self.input_tokens
            + self.output_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
        )


class AgentNode(BaseModel):
    """One node of the run tree: the main reviewer or a subagent."""

    id: str
    parent_id: str | None = None
    label: str
    status: str
    tool_calls: int = 0
    tokens: int = 0
    model: str | None = None
    cost_usd: float | None = None
    """Estimated from list prices (analysis/prices.toml); None when the model's price is not known."""


class Reuse(BaseModel):
    """How the model part of this review used an earlier one (the run store): `cache` took a stored
    review of the same change whole, without a model request; `incremental` sent only the hunks not
    reviewed before and carried the earlier findings on unchanged code over."""

    kind: Literal["cache", "incremental"]
    previous_run: str
    carried_over: int = 0
    """Earlier model findings kept (moved to where their code is now)."""
    dropped: int = 0
    """Earlier model findings left out: their code changed, is gone, or was reviewed again."""
    fresh_hunks: int = 0
    known_hunks: int = 0


class Report(BaseModel):
    schema_version: int = SCHEMA_VERSION
    tool: ToolInfo = Field(default_factory=ToolInfo)
    status: ReviewStatus
    status_reason: str = ""
    base: str | None = None
    head: str | None = None
    mode: str
    files: FilesSummary = Field(default_factory=FilesSummary)
    usage: Usage = Field(default_factory=Usage)
    cost_usd: float | None = None
    """Estimated cost of the whole model review in US dollars; None offline or for unpriced models."""
    agents: list[AgentNode] = Field(default_factory=list)
    reuse: Reuse | None = None
    findings: list[Finding] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
