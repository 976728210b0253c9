from __future__ import annotations

import io
import json

from prscope.analysis.agent.events import AgentStatus, ToolCallFinished, ToolCallStarted, UsageUpdated
from prscope.analysis.formats import render
from prscope.analysis.formats.progress import ProgressDisplay
from prscope.analysis.report import Usage
from rich.cells import cell_len
from rich.console import Console

from tests.test_review_helpers import sample_context, sample_report


def test_grouped_by_file_with_code_and_summary() -> None:
    text = render(sample_report(), "text", sample_context())
    lines = text.splitlines()
    assert lines[0] == "base main -> head b [branch]"
    assert "pkg/a b/ü.py" in lines and "pkg/x.py" in lines
    assert lines.index("pkg/a b/ü.py") < lines.index("pkg/x.py")
    assert any("error" in line and "3:24" in line and "breaking-call" in line for line in lines)
    code = next(i for i, line in enumerate(lines) if "naïve = café" in line)
    assert lines[code].lstrip().startswith("3 │")
    caret = lines[code + 1]
    # Carets sit under the emoji and the x, in terminal cells: the CJK characters and the emoji are wide.
    prefix = lines[code][: lines[code].index("🎉")]
    assert caret.index("^") == cell_len(prefix) and caret.count("^") == 3
    assert "related: pkg/x.py:1 `café` is defined here" in text
    assert "suggestion: delete line 2" in text
    assert "not reviewed (1 file):" in text and "img.png: binary file" in text
    assert "Dismissed one" not in text
    assert lines[-1] == (
        "review offline: no API key: deterministic checks only — 1 error, 1 warning, 1 note in 2 files; "
        "4 files changed, 3 reviewed, 1 omitted; 1 dismissed"
    )
    assert "\x1b[" not in text


def test_colour_only_when_asked() -> None:
    coloured = render(sample_report(), "text", sample_context(color=True))
    assert "\x1b[" in coloured
    assert "\x1b[1;31merror" in coloured


def test_json_is_the_report_contract() -> None:
    data = json.loads(render(sample_report(), "json", sample_context()))
    for key in (
        "schema_version",
        "tool",
        "status",
        "status_reason",
        "base",
        "head",
        "mode",
        "files",
        "usage",
        "agents",
        "findings",
        "errors",
    ):
        assert key in data
    assert data["status"] == "offline" and data["status_reason"].startswith("no API key")
    assert data["files"]["omitted"] == [{"path": "img.png", "reason": "binary file"}]
    assert data["dismissed"] == ["f-dismissed"]
    finding = data["findings"][0]
    for key in (
        "id",
        "rule",
        "severity",
        "confidence",
        "path",
        "line",
        "end_line",
        "title",
        "message",
        "source",
        "suggestion",
        "related",
    ):
        assert key in finding


def test_progress_plain_lines_for_agents() -> None:
    stream = io.StringIO()
    with ProgressDisplay(stream, live=False) as display:
        display.stage("reading the change")
        display.stage("model review with anthropic model x")
        display.on_event(AgentStatus("main", None, "review", 0, "pending", detail="a long task text"))
        display.on_event(AgentStatus("main", None, "review", 0, "running"))
        display.on_event(ToolCallStarted("main", "c1", "find_usages"))
        display.on_event(
            AgentStatus("s1", "main", "callers", 1, "error", tool_calls=1, detail="HTTP 500\nretry")
        )
        display.on_event(UsageUpdated("main", Usage(input_tokens=2000), 1500, 200_000))
        display.on_event(AgentStatus("main", None, "review", 0, "completed", tool_calls=3, tokens_used=2000))
    lines = stream.getvalue().splitlines()
    assert len(lines) == 4
    assert "model review with anthropic model x" in lines[0]
    assert lines[1].endswith("reviewer (review): running")
    assert lines[2].endswith("subagent s1 (callers): error after 1 tool call(s), 0 tokens — HTTP 500 retry")
    assert lines[3].endswith("reviewer (review): completed after 3 tool call(s), 1.5k/200.0k tokens")


def test_progress_live_display_draws_agents() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with ProgressDisplay(out, live=True, console=console) as display:
        display.on_event(AgentStatus("main", None, "review", 0, "running", tokens_max=10000))
        display.on_event(AgentStatus("sub-1", "main", "check callers", 1, "running"))
        rendered = io.StringIO()
        Console(file=rendered, width=100).print(display._render())
    assert "check callers" in rendered.getvalue() and "0/10.0k tokens of the budget" in rendered.getvalue()


def test_progress_shows_every_agents_context_in_one_unit_and_the_budget_once() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=120)
    with ProgressDisplay(out, live=True, console=console) as display:
        # The main reviewer's status carries its consumption against the budget, a subagent's its context
        # against its window: the rows must not mix the two.
        display.on_event(
            AgentStatus("main", None, "review", 0, "running", tokens_used=9000, tokens_max=50_000)
        )
        display.on_event(UsageUpdated("main", Usage(input_tokens=9000), 4000, 200_000))
        display.on_event(
            AgentStatus("sub-1", "main", "callers", 1, "running", tokens_used=0, tokens_max=100_000)
        )
        display.on_event(UsageUpdated("sub-1", Usage(input_tokens=3000, output_tokens=500), 2500, 100_000))
        rendered = io.StringIO()
        Console(file=rendered, width=120).print(display._render())
    text = rendered.getvalue()
    assert "4.0k/200.0k tokens" in text and "2.5k/100.0k tokens" in text
    assert "9.0k" not in text.split("tokens of the budget")[1]  # consumption is not a row's figure
    assert text.count("of the budget") == 1 and "12.5k/50.0k tokens of the budget" in text


def test_progress_disabled_writes_nothing() -> None:
    stream = io.StringIO()
    with ProgressDisplay(stream, live=False, enabled=False) as display:
        display.stage("model review with x")
        display.on_event(AgentStatus("main", None, "review", 0, "running"))
    assert stream.getvalue() == ""


def test_model_usage_is_shown_for_a_model_review() -> None:
    from prscope.analysis.report import AgentNode, Usage

    report = sample_report("complete", "done").model_copy(
        update={
            "usage": Usage(requests=3, input_tokens=12000, output_tokens=800, cache_read_input_tokens=5000),
            "agents": [
                AgentNode(id="main", label="review", status="completed"),
                AgentNode(id="s1", parent_id="main", label="callers", status="completed"),
            ],
        }
    )
    expected = "model: 3 requests, 12,000 input, 5,000 cached and 800 output tokens, 1 subagent"
    assert expected in render(report, "text", sample_context())
    assert "12,000 input" in render(report, "markdown", sample_context())
    assert "model:" not in render(sample_report(), "text", sample_context())


def test_progress_counts_tool_calls_live_and_keeps_one_spinner_turning() -> None:
    out = io.StringIO()
    console = Console(file=out, force_terminal=True, width=100)
    with ProgressDisplay(out, live=True, console=console) as display:
        display.on_event(AgentStatus("main", None, "review", 0, "running"))
        for number in range(3):
            display.on_event(ToolCallStarted("main", f"c{number}", "read_file"))
            display.on_event(ToolCallFinished("main", f"c{number}", "read_file", 0.01, False))
        first, second = display._render(), display._render()
        rendered = io.StringIO()
        Console(file=rendered, width=100).print(second)
    assert "3 tools" in rendered.getvalue()
    assert first.renderables[0] is second.renderables[0]  # the same spinner, so its frames advance
