"""The server's settings: `initializationOptions` from the client, validated at the edge.

API keys never come from the client: a key-like option is ignored (and named, never echoed), so that a
key pasted into editor settings does not travel over the protocol into logs. Keys come from the
server's environment only.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

from analysis.config import BudgetConfig, ConfigOverrides, FailOn, Provider
from analysis.errors import ConfigError

ReviewMode = Literal["branch", "staged", "uncommitted"]
# "tokens" (reviewTokens, maxTokens) counts model tokens: not a credential.
_SECRET_NAME = re.compile(r"(api_?key|apikey|token(?!s)|secret|password)", re.IGNORECASE)


class _Options(BaseModel):
    model_config = ConfigDict(alias_generator=to_camel, populate_by_name=True, extra="ignore", frozen=True)


class ModelOptions(_Options):
    provider: Provider | None = None
    model: str | None = None
    base_url: str | None = None


class LimitOptions(_Options):
    """The review's budget from the editor's settings; unset values leave the repository's own."""

    review_tokens: int | None = Field(default=None, ge=1_000)
    max_subagents: int | None = Field(default=None, ge=0, le=32)
    deadline_seconds: float | None = Field(default=None, gt=0)

    def budget(self) -> BudgetConfig | None:
        if self.review_tokens is None and self.max_subagents is None and self.deadline_seconds is None:
            return None
        return BudgetConfig(
            review_tokens=self.review_tokens,
            max_subagents=self.max_subagents,
            deadline_s=self.deadline_seconds,
        )


class ServerSettings(_Options):
    offline: bool = False
    """Deterministic checks only, even when a key is in the environment."""
    fail_on: FailOn | None = None
    mode: ReviewMode = "branch"
    """The review's mode when a request names none."""
    base: str | None = None
    model: ModelOptions = Field(default_factory=ModelOptions)
    limits: LimitOptions = Field(default_factory=LimitOptions)

    def overrides(self) -> ConfigOverrides:
        return ConfigOverrides(
            fail_on=self.fail_on,
            provider=self.model.provider,
            model=self.model.model,
            base_url=self.model.base_url,
            budget=self.limits.budget(),
        )


class ReviewParams(_Options):
    """What `prscope.review` / `prscope/review` take; None falls back to the settings."""

    mode: ReviewMode | None = None
    base: str | None = None
    uri: str | None = None
    """A document or folder URI naming which workspace folder to review (multi-root workspaces)."""
    work_done_token: int | str | None = None


def secret_option_names(options: Any, prefix: str = "") -> list[str]:
    """Dotted names of options that look like credentials (their values are never read)."""
    if not isinstance(options, dict):
        return []
    names: list[str] = []
    for key, value in options.items():
        name = f"{prefix}{key}"
        if isinstance(key, str) and _SECRET_NAME.search(key):
            names.append(name)
        names.extend(secret_option_names(value, f"{name}."))
    return names


def plain(value: Any) -> Any:
    """JSON as dicts and lists: pygls hands untyped params (custom requests) over as namedtuples."""
    if hasattr(value, "_asdict"):
        return {key: plain(item) for key, item in value._asdict().items()}
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [plain(item) for item in value]
    return value


def parse_settings(options: Any) -> tuple[ServerSettings, list[str]]:
    """Settings from `initializationOptions` (None or {} gives the defaults), and warnings to show.

    Raises ConfigError with one line for values of the wrong kind."""
    options = plain(options)
    if options is None:
        return ServerSettings(), []
    if not isinstance(options, dict):
        raise ConfigError("prscope: initializationOptions must be an object")
    warnings = [
        f"prscope: ignored option {name!r}: API keys are read from the server's environment only"
        for name in secret_option_names(options)
    ]
    try:
        return ServerSettings.model_validate(options), warnings
    except ValidationError as err:
        raise ConfigError(f"prscope: invalid initializationOptions: {_first_error(err)}") from None


def fallback_settings(options: Any) -> ServerSettings:
    """Defaults after invalid options, except that an explicit `offline: true` is still honoured: a
    typo elsewhere must not turn on a paid model review the user had switched off."""
    options = plain(options)
    offline = isinstance(options, dict) and options.get("offline") is True
    return ServerSettings(offline=offline)


def parse_review_params(params: Any) -> ReviewParams:
    """Arguments of a review request or command: an object, or nothing."""
    params = plain(params)
    if params is None or params == []:
        return ReviewParams()
    if isinstance(params, list):
        params = params[0] if len(params) == 1 else None
    if params is None:
        return ReviewParams()
    if not isinstance(params, dict):
        raise ConfigError('prscope: review arguments must be an object such as {"mode": "branch"}')
    try:
        return ReviewParams.model_validate(params)
    except ValidationError as err:
        raise ConfigError(f"prscope: invalid review arguments: {_first_error(err)}") from None


def _first_error(err: ValidationError) -> str:
    first = err.errors()[0]
    where = ".".join(str(part) for part in first["loc"]) or "value"
    return f"{where}: {first['msg']}"


def parse_selection(raw: Any) -> tuple[str, int, int]:
    """(uri, first line, last line), 1-based and inclusive, from `{uri, range}` with an LSP range; a
    selection that ends at character 0 of a line does not include that line."""
    raw = plain(raw)
    if not isinstance(raw, dict) or not isinstance(raw.get("uri"), str):
        raise ConfigError("prscope: quick analysis takes {uri, range}")
    selection = raw.get("range") or {}
    try:
        start = int(selection["start"]["line"])
        end = int(selection["end"]["line"])
        end_character = int(selection["end"].get("character", 1))
    except (KeyError, TypeError, ValueError, AttributeError):
        raise ConfigError("prscope: quick analysis needs a range {start: {line}, end: {line}}") from None
    if start < 0 or end < start:
        raise ConfigError("prscope: quick analysis needs a range whose end is not before its start")
    if end > start and end_character == 0:
        end -= 1
    return raw["uri"], start + 1, end + 1
