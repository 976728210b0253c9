"""The server's plain modules on their own: settings, diagnostics, run events, the selection change."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from prscope.analysis.agent.events import AgentStatus, ToolCallFinished, ToolCallStarted, UsageUpdated
from prscope.analysis.errors import ConfigError
from prscope.analysis.findings import Finding, Related, Severity, Suggestion
from prscope.analysis.report import Usage
from prscope.server.diagnostics import filter_kinds, fix_edit, to_diagnostic
from prscope.server.events import RunEventTranslator, progress_message
from prscope.server.quick import quick_analysis, selection_changeset
from prscope.server.settings import parse_review_params, parse_selection, parse_settings
from prscope.server.tracking import Placed, place

from tests.gitrepo import GitRepo


def _finding(**changes: object) -> Finding:
    base = Finding(
        id="abc123",
        rule="debug-leftover",
        severity=Severity.WARNING,
        path="pkg/mod.py",
        line=2,
        end_line=2,
        title="Debugger call left in",
        message="breakpoint() stops the program.",
        source="check",
    )
    return base.model_copy(update=changes)


def _uri(path: str) -> str:
    return f"file:///repo/{path}"


def test_settings_accept_camel_and_snake_case() -> None:
    settings, warnings = parse_settings(
        {"offline": True, "failOn": "warning", "model": {"provider": "openai", "base_url": "http://x/v1"}}
    )
    assert settings.offline and settings.fail_on == "warning"
    assert settings.model.provider == "openai" and settings.model.base_url == "http://x/v1"
    assert warnings == []


def test_settings_ignore_api_keys_and_never_echo_them() -> None:
    settings, warnings = parse_settings({"model": {"apiKey": "sk-secret-value"}, "anthropic_api_key": "sk-2"})
    assert len(warnings) == 2
    assert all("sk-" not in warning for warning in warnings)
    assert "model.apiKey" in warnings[0]
    assert "sk-secret-value" not in settings.model_dump_json()


def test_bad_arguments_are_one_line_errors() -> None:
    with pytest.raises(ConfigError, match="mode"):
        parse_review_params({"mode": "sideways"})
    assert parse_review_params([{"mode": "staged"}]).mode == "staged"
    assert parse_review_params(None).mode is None


def _placed(finding: Finding, lines: list[str]) -> Placed:
    (item,), _ = place([finding], lines, "review", reviewed=lines)
    return item.with_base("file:///repo/")


def test_diagnostic_carries_rule_id_and_suggestion() -> None:
    finding = _finding(
        suggestion=Suggestion(start_line=2, end_line=2, replacement=""),
        related=[Related(path="pkg/other.py", line=7, message="defined here")],
    )
    diagnostic = to_diagnostic(_placed(finding, ["def f():", "    breakpoint()"]), _uri, "utf-16")
    assert diagnostic.code == "debug-leftover" and diagnostic.source == "prscope"
    assert diagnostic.severity == types.DiagnosticSeverity.Warning
    assert diagnostic.data["id"] == "abc123"
    assert diagnostic.data["suggestion"] == {"start_line": 2, "end_line": 2, "replacement": ""}
    assert diagnostic.range == types.Range(
        start=types.Position(line=1, character=0), end=types.Position(line=1, character=16)
    )
    assert diagnostic.related_information is not None
    assert diagnostic.related_information[0].location.uri == _uri("pkg/other.py")
    assert diagnostic.related_information[0].location.range.start.line == 6


def test_columns_count_the_negotiated_encoding() -> None:
    line = "x = '🎉'; y = call()"
    column = line.index("call") + 1
    item = _placed(_finding(column=column, end_column=column + 4), ["", line])
    utf16 = to_diagnostic(item, _uri, "utf-16").range
    assert (utf16.start.character, utf16.end.character) == (column, column + 4)  # 🎉 is two units
    utf8 = to_diagnostic(item, _uri, "utf-8").range
    assert (utf8.start.character, utf8.end.character) == (column + 2, column + 6)  # and four bytes
    utf32 = to_diagnostic(item, _uri, "utf-32").range
    assert (utf32.start.character, utf32.end.character) == (column - 1, column + 3)


def test_note_severity_is_information_and_the_whole_line_is_covered() -> None:
    item = _placed(_finding(severity=Severity.NOTE), ["def f():", "    breakpoint()"])
    diagnostic = to_diagnostic(item, _uri, "utf-16")
    assert diagnostic.severity == types.DiagnosticSeverity.Information
    assert diagnostic.range.start == types.Position(line=1, character=0)
    assert diagnostic.range.end == types.Position(line=1, character=16)


def test_quick_fix_replaces_whole_lines_and_only_while_they_read_the_same() -> None:
    lines = ["def f():", "    breakpoint()", "    return 1"]
    item = _placed(_finding(suggestion=Suggestion(start_line=2, end_line=2, replacement="    pass")), lines)
    edit = fix_edit(item, lines, True, "utf-16")
    assert edit is not None and edit.new_text == "    pass\n"
    assert (edit.range.start.line, edit.range.end.line, edit.range.end.character) == (1, 2, 0)
    changed = ["def f():", "    breakpoint()  # keep", "    return 1"]
    assert fix_edit(item, changed, True, "utf-16") is None
    stale = _finding(suggestion=Suggestion(start_line=9, end_line=9, replacement=""))
    assert _placed(stale, lines).finding.suggestion is None


def test_every_agents_tokens_are_its_context_against_its_window_the_reviewers_too() -> None:
    translator = RunEventTranslator("run-1", "prscope review (branch)")
    translator.start()
    translator.translate(AgentStatus("main", None, "review", 0, "running"))
    usage = UsageUpdated("main", Usage(input_tokens=90_000), 12_000, 200_000)
    live = translator.translate(usage)
    assert live is not None and (live.tokens_used, live.tokens_max) == (12_000, 200_000)
    spent = AgentStatus("main", None, "review", 0, "completed", tokens_used=90_000, tokens_max=400_000)
    done = translator.translate(spent)  # the reviewer's status carries spending against the budget
    assert done is not None and (done.tokens_used, done.tokens_max) == (12_000, 200_000)


def test_translator_fills_in_tool_calls_for_known_agents() -> None:
    translator = RunEventTranslator("run-1", "prscope review (branch)")
    assert translator.start().status == "running"
    status = AgentStatus("sub-1", "main", "check callers", 1, "running", tokens_max=200_000)
    first = translator.translate(status)
    assert first is not None and first.parent_id == "main"
    started = translator.translate(ToolCallStarted("sub-1", "c1", "find_usages", "fetch"))
    assert started is not None and started.tool == "find_usages" and started.label == "check callers"
    finished = translator.translate(ToolCallFinished("sub-1", "c1", "find_usages", 0.1, False))
    assert finished is not None and finished.tool is None and finished.tool_calls == 1
    assert translator.translate(ToolCallStarted("unknown", "c2", "read_file")) is None
    usage = UsageUpdated("sub-1", Usage(input_tokens=10), 10, 200_000)
    updated = translator.translate(usage)
    assert updated is not None and (updated.tokens_used, updated.tokens_max) == (10, 200_000)
    done = translator.finish("cancelled", "cancelled by the client")
    assert done.to_json()["status"] == "cancelled" and done.parent_id is None
    assert progress_message(ToolCallStarted("main", "c3", "read_file", "app.py")) == "main: read_file app.py"


def test_parallel_tool_calls_are_each_in_flight_and_the_run_names_its_request() -> None:
    """Two `run_subagent` calls at once are two calls in flight (the Agents view shows two rows and the
    progress notification reads the same state); the run's own events carry the request's token."""
    translator = RunEventTranslator("run-1", "prscope review (branch)", work_done_token="prscope-abc")
    assert translator.start().to_json()["work_done_token"] == "prscope-abc"
    translator.translate(AgentStatus("main", None, "review", 0, "running"))
    translator.translate(ToolCallStarted("main", "c1", "run_subagent", "callers of fetch"))
    both = translator.translate(ToolCallStarted("main", "c2", "run_subagent", "imports of pkg.util"))
    assert both is not None and both.to_json()["running_tools"] == ["run_subagent", "run_subagent"]
    one = translator.translate(ToolCallFinished("main", "c1", "run_subagent", 1.0, False))
    assert one is not None and (one.running_tools, one.tool, one.tool_calls) == (
        ("run_subagent",),
        "run_subagent",
        1,
    )
    ended = translator.translate(AgentStatus("main", None, "review", 0, "completed", tool_calls=2))
    assert ended is not None and ended.running_tools == () and ended.work_done_token is None
    assert translator.finish("completed").work_done_token == "prscope-abc"


def test_progress_says_an_agent_runs_once_it_runs() -> None:
    assert (
        progress_message(AgentStatus("sub-1", "main", "Check tests", 1, "pending")) == "Check tests: pending"
    )
    assert (
        progress_message(AgentStatus("sub-1", "main", "Check tests", 1, "running")) == "Check tests: running"
    )


def test_selection_change_marks_only_the_selected_lines_added(tmp_path: Path) -> None:
    text = "a = 1\nb = 2\nc = 3\n"
    cs = selection_changeset(tmp_path, "m.py", text, 2, 2)
    (change,) = cs.files
    assert change.added_lines == {2}
    assert cs.read_new("m.py") == text
    assert cs.read_old("m.py") == "a = 1\nc = 3\n"
    assert change.new_to_old(3) == 2


def test_quick_analysis_reports_only_inside_the_selection(tmp_path: Path) -> None:
    repo = GitRepo(tmp_path / "repo")
    repo.write("m.py", "")
    repo.commit("base")
    text = "def f():\n    breakpoint()\n\n\ndef g():\n    breakpoint()\n"
    inside = quick_analysis(repo.root, "m.py", text, 5, 6)
    assert [(f.rule, f.line) for f in inside.findings] == [("debug-leftover", 6)]
    assert quick_analysis(repo.root, "m.py", text, 3, 4).findings == []


def test_selection_ending_at_column_zero_excludes_that_line() -> None:
    def selection(start: int, end: int, end_character: int) -> dict[str, object]:
        return {
            "uri": "file:///r/m.py",
            "range": {
                "start": {"line": start, "character": 0},
                "end": {"line": end, "character": end_character},
            },
        }

    assert parse_selection(selection(0, 3, 0)) == ("file:///r/m.py", 1, 3)
    assert parse_selection(selection(2, 2, 5)) == ("file:///r/m.py", 3, 3)
    with pytest.raises(ConfigError, match="range"):
        parse_selection({"uri": "file:///r/m.py"})
    with pytest.raises(ConfigError, match="before its start"):
        parse_selection(selection(4, 1, 0))


def test_code_action_kinds_filter_by_prefix() -> None:
    fix = types.CodeAction(title="fix", kind=types.CodeActionKind.QuickFix)
    quick = types.CodeAction(title="quick", kind="source.prscope.quickAnalysis")
    assert filter_kinds([fix, quick], None) == [fix, quick]
    assert filter_kinds([fix, quick], [types.CodeActionKind.Source]) == [quick]
    assert filter_kinds([fix, quick], [types.CodeActionKind.QuickFix]) == [fix]
    assert filter_kinds([fix, quick], ["sourc"]) == []
