"""run_subagent: isolation, tool filtering, the generated prompt, argument errors, parsed results."""

from __future__ import annotations

from pathlib import Path

from prscope.analysis.agent.subagents import SubagentLimits
from prscope.analysis.tools.registry import CODE_TOOL_NAMES, DIFF_TOOL_NAMES

from tests.test_subagents_harness import (
    FakeModelServer,
    Router,
    client_for,
    reply,
    run_parent,
    sample_repo,
    task,
    text_turn,
    tool_turn,
)

SECRET_OF_PARENT = "PARENT-ONLY-7731: the reviewer's private notes"
FINDING = {
    "rule": "breaking-change",
    "severity": "error",
    "path": "pkg/app.py",
    "line": 3,
    "title": "load_config called without env",
    "message": "pkg/app.py:3 passes one argument.",
    "confidence": 0.9,
}


async def test_subagent_sees_only_its_prompt_task_and_context(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [
                tool_turn(("read_file", {"path": "pkg/config.py"}), text=f"Thinking: {SECRET_OF_PARENT}"),
                tool_turn(
                    (
                        "run_subagent",
                        {
                            "task": task("iso"),
                            "context": "load_config now takes a third argument env (pkg/config.py:1).",
                            "label": "callers of load_config",
                        },
                    )
                ),
                text_turn("<findings></findings><summary>done</summary>"),
            ],
            "iso": [
                tool_turn(("search_text", {"pattern": "load_config"})),
                text_turn(reply("One caller passes one argument.", "pkg/app.py:3: no", [FINDING])),
            ],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root, user_text=f"Review this. {SECRET_OF_PARENT}")

    assert run.outcome is not None and run.outcome.status == "completed"
    sub_requests = router.requests_of("iso")
    assert len(sub_requests) == 2
    first = sub_requests[0]
    # A fresh conversation: one user message holding the task and the context, nothing else.
    assert [m["role"] for m in first.messages] == ["user"]
    assert "[[iso]]" in first.first_user_text
    assert "load_config now takes a third argument env" in first.first_user_text
    for request in sub_requests:
        body = str(request.body)
        assert "PARENT-ONLY-7731" not in body
        assert "main reviewer of this test" not in body
        assert "pkg/config.py:1).\n" not in request.system_text  # context goes in the conversation only
    # The generated system prompt: the task, the dynamic tool list and the reply format.
    system = first.system_text
    assert "[[iso]]" in system
    for name in first.tool_names:
        assert f"`{name}`" in system
    for block in ("<findings>", "<summary>", "<answer>"):
        assert block in system
    # The parent gets a compact formatting of the parsed result.
    main_requests = router.requests_of("main")
    result = main_requests[2].tool_results[-1]
    assert result["is_error"] is False
    content = result["content"]
    assert 'Subagent sub-1 "callers of load_config": completed' in content
    assert "Answer:\npkg/app.py:3: no" in content
    assert "[error/breaking-change] pkg/app.py:3 load_config called without env" in content
    assert "Summary:\nOne caller passes one argument." in content
    (sub_result,) = run.manager.results()
    assert sub_result.success and sub_result.status == "completed"
    assert sub_result.tool_calls_made == 1
    assert sub_result.findings[0].line == 3
    assert sub_result.usage.requests == 2


async def test_default_tools_are_the_parents_minus_run_subagent(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [tool_turn(("run_subagent", {"task": task("tools")})), text_turn("done")],
            "tools": [text_turn(reply("nothing"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        await run_parent(server, repo.root)
    main_tools = router.requests_of("main")[0].tool_names
    assert "run_subagent" in main_tools and "wait_subagents" in main_tools
    sub_tools = router.requests_of("tools")[0].tool_names
    assert sorted(sub_tools) == sorted([*CODE_TOOL_NAMES, *DIFF_TOOL_NAMES])
    assert "run_subagent" not in sub_tools and "wait_subagents" not in sub_tools
    assert router.requests_of("tools")[0].body["model"] == router.requests_of("main")[0].body["model"]


async def test_allowed_tools_subset_and_unknown_tool_error(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [
                tool_turn(
                    ("run_subagent", {"task": task("narrow"), "allowed_tools": ["read_file", "search_text"]}),
                    ("run_subagent", {"task": task("bad"), "allowed_tools": ["read_file", "run_shell"]}),
                ),
                text_turn("done"),
            ],
            "narrow": [text_turn(reply("narrow done"))],
            "bad": [text_turn(reply("must never run"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root)
    assert router.requests_of("narrow")[0].tool_names == ["read_file", "search_text"]
    assert router.requests_of("bad") == []
    results = router.requests_of("main")[1].tool_results
    assert results[0]["is_error"] is False
    assert results[1]["is_error"] is True
    assert "'run_shell'" in results[1]["content"] and "not one of your tools" in results[1]["content"]
    assert run.manager.spawned == 1  # a refused spawn does not use up the review's allowance


async def test_short_task_is_refused_with_the_what_where_return_pattern(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router({"main": [tool_turn(("run_subagent", {"task": "check config"})), text_turn("done")]})
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root)
    (result,) = router.requests_of("main")[1].tool_results
    assert result["is_error"] is True
    assert "too short" in result["content"]
    for word in ("WHAT", "WHERE", "RETURN"):
        assert word in result["content"]
    assert run.manager.subagents() == []


async def test_invalid_max_tool_calls_is_a_readable_error(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {"main": [tool_turn(("run_subagent", {"task": task("x"), "max_tool_calls": 40})), text_turn("done")]}
    )
    with FakeModelServer(responder=router) as server:
        await run_parent(server, repo.root)
    (result,) = router.requests_of("main")[1].tool_results
    assert result["is_error"] is True
    assert "max_tool_calls" in result["content"]


async def test_tool_call_budget_is_enforced_on_the_subagent(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    reads = [("read_file", {"path": "pkg/app.py"})] * 3
    router = Router(
        {
            "main": [
                tool_turn(("run_subagent", {"task": task("budget"), "max_tool_calls": 2})),
                text_turn("ok"),
            ],
            "budget": [tool_turn(*reads), tool_turn(*reads), text_turn(reply("stopped early"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root)
    (result,) = run.manager.results()
    assert result.tool_calls_made == 2
    refused = [r for r in router.requests_of("budget")[1].tool_results if r["is_error"]]
    assert len(refused) == 1 and "tool-call limit" in refused[0]["content"]


async def test_subagent_model_is_used_when_configured(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [tool_turn(("run_subagent", {"task": task("cheap")})), text_turn("done")],
            "cheap": [text_turn(reply("cheap done"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        cheap = client_for(server, model="claude-cheap")
        await run_parent(server, repo.root, subagent_client=cheap, limits=SubagentLimits())
    assert router.requests_of("main")[0].body["model"] == "claude-test"
    assert router.requests_of("cheap")[0].body["model"] == "claude-cheap"


async def test_parallel_isolated_subagents_over_the_openai_api(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [
                tool_turn(
                    ("run_subagent", {"task": task("oa1")}),
                    ("run_subagent", {"task": task("oa2")}),
                    text=f"private: {SECRET_OF_PARENT}",
                ),
                text_turn("done"),
            ],
            "oa1": [tool_turn(("read_file", {"path": "pkg/app.py"})), text_turn(reply("oa1 summary", "a1"))],
            "oa2": [text_turn(reply("oa2 summary", "a2", [FINDING]))],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root, api="openai")
    for key in ("oa1", "oa2"):
        for request in router.requests_of(key):
            assert request.api == "openai"
            assert "PARENT-ONLY-7731" not in str(request.body)
            assert "run_subagent" not in request.tool_names
        first = router.requests_of(key)[0]
        assert [m["role"] for m in first.messages] == ["system", "user"]
    results = {r.agent_id: r for r in run.manager.results()}
    assert results["sub-1"].answer == "a1" and results["sub-1"].tool_calls_made == 1
    assert results["sub-2"].findings[0].path == "pkg/app.py"
    contents = [r["content"] for r in router.requests_of("main")[1].tool_results]
    assert "a1" in contents[0] and "a2" in contents[1]


async def test_empty_allowed_tools_means_no_tools(tmp_path: Path) -> None:
    repo = sample_repo(tmp_path / "repo")
    router = Router(
        {
            "main": [
                tool_turn(("run_subagent", {"task": task("think"), "allowed_tools": []})),
                text_turn("ok"),
            ],
            "think": [text_turn(reply("reasoned from the context alone"))],
        }
    )
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo.root)
    request = router.requests_of("think")[0]
    assert request.tool_names == []
    assert "(none: answer from the task and context alone)" in request.system_text
    assert run.manager.results()[0].status == "completed"
