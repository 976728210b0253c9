"""Configuration of a review: `[tool.prscope]` in the reviewed repository's pyproject.toml, or a
`.prscope.toml` next to it (same keys at its top level), or a file given with `--config`.

Command-line flags win over the file. API keys are never read from a file: only from the environment.
Every error is one line that names the offending key.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any, Literal

from prscope.analysis.errors import ConfigError
from prscope.analysis.findings import Severity
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

FailOn = Literal["error", "warning", "note", "never"]
Provider = Literal["anthropic", "openai"]

DETERMINISTIC_RULES = (
    "breaking-call",
    "dangling-reference",
    "syntax-error",
    "conflict-marker",
    "debug-leftover",
    "secret",
    "async-mismatch",
    "property-mismatch",
    "override-mismatch",
)
MODEL_CATEGORIES = (
    "bug",
    "security",
    "breaking-change",
    "error-handling",
    "concurrency",
    "performance",
    "maintainability",
    "test-gap",
    "correctness",
    "style",
    "documentation",
)
KNOWN_RULES = frozenset(DETERMINISTIC_RULES + MODEL_CATEGORIES)
CONFIG_FILE = ".prscope.toml"
_SECRET_KEY = re.compile(r"(^|_)(api_?key|key|token|secret|password)$", re.IGNORECASE)


def known_rules() -> frozenset[str]:
    """Rule ids a configuration may name: the checks' own registry (new checks count at once) plus the
    model's categories."""
    try:
        from prscope.analysis.checks import RULES
    except ImportError:
        return KNOWN_RULES
    return KNOWN_RULES | frozenset(RULES)


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ModelConfig(_Strict):
    """Which model reviews; the key comes from ANTHROPIC_API_KEY / OPENAI_API_KEY, never from here."""

    provider: Provider | None = None
    model: str | None = None
    base_url: str | None = None
    subagent_model: str | None = None
    context_window: int | None = Field(default=None, gt=0)
    timeout_s: float | None = Field(default=None, gt=0)
    verify: bool = True
    """Check each model finding with a focused verification subagent before reporting it."""
    max_findings: int = Field(default=15, ge=0, le=500)
    """The most model findings a report shows (the most severe, then the most confident)."""


class BudgetConfig(_Strict):
    diff_tokens: int | None = Field(default=None, ge=1_000)
    """Upper bound for the diff the model is shown; files beyond it are listed as omitted."""
    review_tokens: int | None = Field(default=None, ge=1_000)
    """All tokens the model review may consume: the reviewer, its subagents and verification."""
    max_subagents: int | None = Field(default=None, ge=0, le=32)
    deadline_s: float | None = Field(default=None, gt=0)
    """Wall time of the model review, in seconds."""


class PrscopeConfig(_Strict):
    fail_on: FailOn = "error"
    rules: dict[str, bool] = Field(default_factory=dict)
    severity: dict[str, Severity] = Field(default_factory=dict)
    exclude: list[str] = Field(default_factory=list)
    dismissed: list[str] = Field(default_factory=list)
    python_version: str | None = Field(default=None, pattern=r"^3\.\d{1,2}$")
    """The oldest Python the code must parse under ("3.8"); unset: from the project's requires-python."""
    model: ModelConfig = Field(default_factory=ModelConfig)
    budget: BudgetConfig = Field(default_factory=BudgetConfig)
    source: str = Field(default="", exclude=True)
    """Where the configuration came from (for messages); not a key users set."""

    @field_validator("rules", "severity")
    @classmethod
    def _known_rules(cls, value: dict[str, Any]) -> dict[str, Any]:
        known = known_rules()
        for rule in value:
            if rule not in known:
                raise ValueError(f"unknown rule {rule!r} (known: {', '.join(sorted(known))})")
        return value

    def with_overrides(self, **overrides: Any) -> PrscopeConfig:
        """A copy with the given top-level values (None values are ignored: the flag was not given)."""
        return self.model_copy(update={k: v for k, v in overrides.items() if v is not None})

    def with_model(self, **overrides: Any) -> PrscopeConfig:
        given = {k: v for k, v in overrides.items() if v is not None}
        return self.model_copy(update={"model": self.model.model_copy(update=given)})


ConfigReader = Callable[[str], str | None]
"""Text of a repository-relative file, or None when it does not exist."""


class ConfigOverrides(BaseModel):
    """Command-line values that win over the file; None means the flag was not given."""

    model_config = ConfigDict(frozen=True)

    fail_on: FailOn | None = None
    provider: Provider | None = None
    model: str | None = None
    base_url: str | None = None
    budget: BudgetConfig | None = None
    """Budget values that win over the file's (None fields inside it: the file's value stays)."""

    def apply(self, config: PrscopeConfig) -> PrscopeConfig:
        updated = config.with_overrides(fail_on=self.fail_on).with_model(
            provider=self.provider, model=self.model, base_url=self.base_url
        )
        if self.budget is None:
            return updated
        given = self.budget.model_dump(exclude_none=True)
        return updated.model_copy(update={"budget": updated.budget.model_copy(update=given)})


def find_config_file(repo_root: Path) -> Path | None:
    """`.prscope.toml` wins over pyproject.toml; a pyproject without `[tool.prscope]` does not count."""
    dedicated = repo_root / CONFIG_FILE
    if dedicated.is_file():
        return dedicated
    pyproject = repo_root / "pyproject.toml"
    if pyproject.is_file() and _mentions_table(_read_optional(pyproject) or ""):
        return pyproject
    return None


def _mentions_table(pyproject_text: str) -> bool:
    try:
        data = tomllib.loads(pyproject_text)
    except tomllib.TOMLDecodeError:
        # A broken pyproject.toml only matters when it is meant to configure us: look for our table.
        return "[tool.prscope" in pyproject_text
    tool = data.get("tool")
    return isinstance(tool, dict) and "prscope" in tool


def _read_optional(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as err:
        raise ConfigError(f"cannot read config file {path}: {err}") from None


def load_config(repo_root: Path, explicit: Path | None = None) -> PrscopeConfig:
    """The configuration for the repository at `repo_root` (defaults when there is none)."""
    if explicit is not None:
        text = _read_optional(explicit)
        if text is None:
            raise ConfigError(f"config file {explicit} does not exist")
        return _parse_text(text, explicit.name, explicit.name)
    return config_from_reader(lambda name: _read_optional(repo_root / name))


def config_from_reader(read: ConfigReader, where: str = "") -> PrscopeConfig:
    """The configuration found through `read` (the working tree, or one side of the change);
    `where` qualifies the file names in messages, e.g. " (base side)"."""
    dedicated = read(CONFIG_FILE)
    if dedicated is not None:
        return _parse_text(dedicated, CONFIG_FILE, CONFIG_FILE + where)
    pyproject = read("pyproject.toml")
    if pyproject is not None and _mentions_table(pyproject):
        return _parse_text(pyproject, "pyproject.toml", "pyproject.toml" + where)
    return PrscopeConfig()


def _parse_text(text: str, name: str, shown: str) -> PrscopeConfig:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise ConfigError(f"{shown}: invalid TOML: {err}") from None
    if name != "pyproject.toml":
        return parse_config(data, shown)
    tool = data.get("tool", {})
    table = tool.get("prscope", {}) if isinstance(tool, dict) else {}
    label = f"{shown} [tool.prscope]"
    if not isinstance(table, dict):
        raise ConfigError(f"{label} must be a table")
    return parse_config(table, label)


def parse_config(table: dict[str, Any], label: str = CONFIG_FILE) -> PrscopeConfig:
    _refuse_keys(table, label)
    try:
        config = PrscopeConfig.model_validate(table)
    except ValidationError as err:
        raise ConfigError(_one_line(err, label)) from None
    return config.model_copy(update={"source": label})


def _refuse_keys(table: dict[str, Any], label: str) -> None:
    if "source" in table:
        raise ConfigError(f"{label}: unknown key 'source'")
    model = table.get("model")
    if isinstance(model, dict):
        for key in model:
            if _SECRET_KEY.search(str(key)):
                raise ConfigError(
                    f"{label}: model.{key}: keys are never read from configuration files; "
                    "set ANTHROPIC_API_KEY or OPENAI_API_KEY in the environment"
                )


def _one_line(err: ValidationError, label: str) -> str:
    first = err.errors()[0]
    key = ".".join(str(part) for part in first["loc"]) or "(top level)"
    if first["type"] == "extra_forbidden":
        return f"{label}: unknown key {key!r}"
    message = str(first["msg"]).removeprefix("Value error, ")
    return f"{label}: {key}: {message}"
