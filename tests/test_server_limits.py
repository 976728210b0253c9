"""The editor's `limits` settings reach the review's budget, over the repository's configuration."""

from __future__ import annotations

import pytest
from prscope.analysis.config import BudgetConfig, PrscopeConfig
from prscope.server.settings import parse_settings


def test_limits_override_the_budget_of_the_file_and_keep_the_rest() -> None:
    settings, warnings = parse_settings({"limits": {"reviewTokens": 50_000, "maxSubagents": 0}})
    from_file = PrscopeConfig(budget=BudgetConfig(review_tokens=9_000, diff_tokens=4_000, deadline_s=60))
    applied = settings.overrides().apply(from_file)
    assert warnings == []
    assert applied.budget == BudgetConfig(
        review_tokens=50_000, max_subagents=0, diff_tokens=4_000, deadline_s=60
    )


def test_no_limits_leave_the_budget_alone() -> None:
    settings, _ = parse_settings({"offline": True})
    from_file = PrscopeConfig(budget=BudgetConfig(max_subagents=3))
    assert settings.overrides().apply(from_file).budget == BudgetConfig(max_subagents=3)


def test_deadline_in_seconds() -> None:
    settings, _ = parse_settings({"limits": {"deadlineSeconds": 120}})
    assert settings.overrides().apply(PrscopeConfig()).budget.deadline_s == 120


@pytest.mark.parametrize(
    "limits", [{"reviewTokens": 10}, {"maxSubagents": 99}, {"deadlineSeconds": 0}, {"maxSubagents": "many"}]
)
def test_out_of_range_limits_are_one_message_and_fall_back(limits: dict[str, object]) -> None:
    settings, warnings = parse_settings({"limits": limits, "offline": True})
    assert len(warnings) == 1
    assert f"'limits.{next(iter(limits))}'" in warnings[0] and "\n" not in warnings[0]
    assert settings.offline, "a bad limit must not undo the other options"
    assert settings.overrides().apply(PrscopeConfig()).budget == BudgetConfig()


def test_token_counts_are_not_mistaken_for_credentials() -> None:
    _, warnings = parse_settings({"limits": {"reviewTokens": 2_000}, "authToken": "x"})
    assert warnings == [
        "prscope: ignored option 'authToken': API keys are read from the server's environment only"
    ]
