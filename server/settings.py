"""The server's settings: `initializationOptions` from the client, validated at the edge.

API keys never come from the client: a key-like option is ignored (and named, never echoed), so that a
key pasted into editor settings does not travel over the protocol into logs. Keys come from the
server's environment only.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from prscope.analysis.config import BudgetConfig, ConfigOverrides, FailOn, Provider
from prscope.analysis.errors import ConfigError
from prscope.server.wording import EditorCommands
from pydantic import BaseModel, ConfigDict, Field, ValidationError
from pydantic.alias_generators import to_camel

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


class RestoreOptions(_Options):
    """A review recorded in the run store, to show again: its stored run id and its folder's URI."""

    run_id: str
    uri: str


class ServerSettings(_Options):
    offline: bool = False
    """Deterministic checks only, even when a key is in the environment."""
    fail_on: FailOn | None = None
    mode: ReviewMode = "branch"
    """The review's mode when a request names none."""
    base: str | None = None
    model: ModelOptions = Field(default_factory=ModelOptions)
    limits: LimitOptions = Field(default_factory=LimitOptions)
    commands: EditorCommands = Field(default_factory=EditorCommands)
    """The client's commands that messages may name (server/wording.py)."""
    restore: RestoreOptions | None = None
    """The review whose findings to show again at start (after a restart): server/restore.py."""

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
    no_cache: bool = False
    """Review afresh even when the run store holds a model review of this very change."""


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
    """Settings from `initializationOptions`, and one message for each option that was not used.

    None, {} and [] (how Neovim encodes an empty Lua table) give the defaults. A bad value is one message
    naming its key, and only that key falls back to its default: a typo in one option must not undo the
    others (an explicit `offline: true` must not turn into a paid model review)."""
    options = plain(options)
    if options is None or options == [] or options == {}:
        return ServerSettings(), []
    if not isinstance(options, dict):
        return ServerSettings(), ["prscope: initializationOptions must be an object; the defaults are used"]
    messages = [
        f"prscope: ignored option {name!r}: API keys are read from the server's environment only"
        for name in secret_option_names(options)
    ]
    secret = set(secret_option_names(options))
    options = _empty_lists_as_objects(options)
    messages += [
        f"prscope: unknown option {name!r} (ignored)"
        for name in _unknown_options(options, ServerSettings)
        if name not in secret
    ]
    for _attempt in range(20):
        try:
            return ServerSettings.model_validate(options), messages
        except ValidationError as err:
            first = err.errors()[0]
            where = [str(part) for part in first["loc"]]
            messages.append(f"prscope: option {'.'.join(where)!r}: {first['msg']}; the default is used")
            options = _without(options, where)
    return ServerSettings(), [*messages, "prscope: too many invalid options; the defaults are used"]


def _empty_lists_as_objects(options: dict[str, Any]) -> dict[str, Any]:
    return {key: ({} if value == [] and key == "model" else value) for key, value in options.items()}


def _unknown_options(options: dict[str, Any], model: type[BaseModel], prefix: str = "") -> list[str]:
    known: dict[str, type[BaseModel] | None] = {}
    for name, info in model.model_fields.items():
        annotation = info.annotation
        nested = annotation if isinstance(annotation, type) and issubclass(annotation, BaseModel) else None
        known[name] = nested
        known[to_camel(name)] = nested
    unknown: list[str] = []
    for key, value in options.items():
        if key not in known:
            unknown.append(f"{prefix}{key}")
        elif known[key] is not None and isinstance(value, dict):
            unknown += _unknown_options(value, known[key], f"{prefix}{key}.")  # type: ignore[arg-type]
    return unknown


def _without(options: dict[str, Any], where: list[str]) -> dict[str, Any]:
    """`options` without the key at path `where` (the whole option when the path does not lead there)."""
    copy = dict(options)
    if len(where) > 1 and isinstance(copy.get(where[0]), dict):
        copy[where[0]] = _without(copy[where[0]], where[1:])
    else:
        copy.pop(where[0], None)
    return copy


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


def parse_run_argument(raw: Any) -> tuple[str | None, str | None]:
    """(run id, URI of a file or folder in the repository) of `prscope.showRun`: nothing, a run id, or
    `{run_id?, uri?}`."""
    raw = plain(raw)
    if raw is None or isinstance(raw, str):
        return raw or None, None
    run_id = raw.get("run_id", raw.get("runId")) if isinstance(raw, dict) else None
    uri = raw.get("uri") if isinstance(raw, dict) else None
    if not isinstance(raw, dict) or not isinstance(run_id, str | None) or not isinstance(uri, str | None):
        raise ConfigError("prscope: showRun takes a run id, or {run_id?, uri?}")
    return run_id or None, uri or None


def parse_dismissal(raw: Any) -> tuple[str, str | None, str]:
    """(finding id, URI of the repository whose run store records the dismissal, reason) of
    `prscope.dismissFinding {id, record?, reason?}`."""
    raw = plain(raw)
    finding_id = raw.get("id") if isinstance(raw, dict) else None
    if not isinstance(raw, dict) or not isinstance(finding_id, str) or not finding_id:
        raise ConfigError("prscope: dismissFinding takes {id}")
    record, reason = raw.get("record"), raw.get("reason", "")
    if not isinstance(record, str | None) or not isinstance(reason, str):
        raise ConfigError("prscope: dismissFinding takes {id, record?: a repository URI, reason?: text}")
    return finding_id, record or None, reason
