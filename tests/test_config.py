from __future__ import annotations

from pathlib import Path

import pytest
from prscope.analysis.config import PrscopeConfig, find_config_file, load_config, parse_config
from prscope.analysis.errors import ConfigError
from prscope.analysis.findings import Severity


def test_defaults_without_a_file(tmp_path: Path) -> None:
    config = load_config(tmp_path)
    assert config == PrscopeConfig()
    assert config.fail_on == "error"


def test_pyproject_table(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        """
[project]
name = "x"

[tool.prscope]
fail_on = "warning"
exclude = ["docs/*"]
dismissed = ["abc"]

[tool.prscope.rules]
debug-leftover = false

[tool.prscope.severity]
secret = "warning"

[tool.prscope.model]
provider = "openai"
model = "llama3.1:8b"
base_url = "http://localhost:11434/v1"

[tool.prscope.budget]
diff_tokens = 20000
max_subagents = 2
""",
        encoding="utf-8",
    )
    config = load_config(tmp_path)
    assert config.fail_on == "warning"
    assert config.exclude == ["docs/*"]
    assert config.dismissed == ["abc"]
    assert config.rules == {"debug-leftover": False}
    assert config.severity == {"secret": Severity.WARNING}
    assert config.model.provider == "openai" and config.model.model == "llama3.1:8b"
    assert config.budget.diff_tokens == 20000 and config.budget.max_subagents == 2
    assert config.source == "pyproject.toml [tool.prscope]"


def test_dedicated_file_wins_and_pyproject_without_table_is_ignored(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n', encoding="utf-8")
    assert find_config_file(tmp_path) is None
    (tmp_path / "pyproject.toml").write_text('[tool.prscope]\nfail_on = "note"\n', encoding="utf-8")
    (tmp_path / ".prscope.toml").write_text('fail_on = "never"\n', encoding="utf-8")
    assert load_config(tmp_path).fail_on == "never"


@pytest.mark.parametrize(
    ("toml", "expected"),
    [
        ('colour = "red"\n', "unknown key 'colour'"),
        ('fail_on = "loud"\n', "fail_on: Input should be 'error', 'warning', 'note' or 'never'"),
        ("[rules]\ndebug-leftovers = false\n", "rules: unknown rule 'debug-leftovers'"),
        ('[severity]\nsecret = "fatal"\n', "severity.secret: Input should be 'error', 'warning' or 'note'"),
        ("[model]\nprovder = 'openai'\n", "unknown key 'model.provder'"),
        ("[budget]\ndiff_tokens = 5\n", "budget.diff_tokens: Input should be greater than or equal to 1000"),
        ('exclude = "docs"\n', "exclude: Input should be a valid list"),
        ('[model]\napi_key = "sk-123"\n', "model.api_key: keys are never read from configuration files"),
        ("fail_on = \n", "invalid TOML"),
    ],
)
def test_bad_config_is_one_line_naming_the_key(tmp_path: Path, toml: str, expected: str) -> None:
    (tmp_path / ".prscope.toml").write_text(toml, encoding="utf-8")
    with pytest.raises(ConfigError) as caught:
        load_config(tmp_path)
    message = str(caught.value)
    assert expected in message
    assert message.startswith(".prscope.toml")
    assert "\n" not in message
    assert "sk-123" not in message


def test_explicit_file(tmp_path: Path) -> None:
    custom = tmp_path / "ci.toml"
    custom.write_text('fail_on = "note"\n', encoding="utf-8")
    assert load_config(tmp_path, custom).fail_on == "note"
    with pytest.raises(ConfigError, match="does not exist"):
        load_config(tmp_path, tmp_path / "missing.toml")


def test_overrides_ignore_flags_not_given() -> None:
    config = parse_config({"fail_on": "warning", "model": {"model": "m1", "provider": "openai"}})
    merged = config.with_overrides(fail_on=None).with_model(model="m2", provider=None, base_url=None)
    assert merged.fail_on == "warning"
    assert merged.model.model == "m2" and merged.model.provider == "openai"
    assert config.with_overrides(fail_on="never").fail_on == "never"


def test_python_version_is_a_python_3_release() -> None:
    assert parse_config({"python_version": "3.9"}).python_version == "3.9"
    assert PrscopeConfig().python_version is None
    with pytest.raises(ConfigError, match="python_version"):
        parse_config({"python_version": "2.7"})
