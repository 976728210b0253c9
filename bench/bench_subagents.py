"""Subagent parallelism: 5 subagents of 4 model turns each, 300 ms per turn, over the real `anthropic` SDK
against the loopback fake API, on a real temporary git repository.

Baselines printed side by side: one subagent alone, and the same 5 subagents run one after another (one
run_subagent call per parent turn). Run: `.venv/bin/python bench/bench_subagents.py`.
"""

from __future__ import annotations

import asyncio
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from prscope.analysis.agent.subagents import SubagentLimits

from tests.fakeapi import FakeModelServer
from tests.test_subagents_harness import (
    ParentRun,
    Router,
    Step,
    reply,
    run_parent,
    sample_repo,
    task,
    text_turn,
    tool_turn,
)

SUBAGENTS = 5
TURNS = 4
TURN_DELAY_S = 0.3


def subagent_script(key: str) -> list[Step]:
    reads: list[Step] = [
        tool_turn(("read_file", {"path": "pkg/app.py"}), delay_s=TURN_DELAY_S) for _ in range(TURNS - 1)
    ]
    return [*reads, text_turn(reply(f"{key} done", f"{key} answer"), delay_s=TURN_DELAY_S)]


def spawn(key: str) -> tuple[str, dict[str, object]]:
    return ("run_subagent", {"task": task(key), "max_tool_calls": TURNS})


def parallel_router(keys: list[str]) -> Router:
    scripts: dict[str, list[Step]] = {"main": [tool_turn(*(spawn(k) for k in keys)), text_turn("done")]}
    scripts.update({k: subagent_script(k) for k in keys})
    return Router(scripts)


def sequential_router(keys: list[str]) -> Router:
    scripts: dict[str, list[Step]] = {"main": [*(tool_turn(spawn(k)) for k in keys), text_turn("done")]}
    scripts.update({k: subagent_script(k) for k in keys})
    return Router(scripts)


def subagent_wall_time(run: ParentRun) -> float:
    """From the first subagent's start to the last one's end (the parent's own turns left out)."""
    starts = [e.at for e in run.events.events if getattr(e, "status", None) == "pending"]
    ends = [
        e.at for e in run.events.events if getattr(e, "status", None) == "completed" and e.agent_id != "main"
    ]
    return max(ends) - min(starts)


async def measure(router: Router, repo_root: Path) -> tuple[float, ParentRun]:
    with FakeModelServer(responder=router) as server:
        run = await run_parent(server, repo_root, limits=SubagentLimits(max_per_review=10))
    assert all(r.status == "completed" for r in run.manager.results()), "a subagent did not complete"
    return subagent_wall_time(run), run


async def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-subagents-") as tmp:
        repo = sample_repo(Path(tmp) / "repo")
        keys = [f"s{i}" for i in range(SUBAGENTS)]
        one, _ = await measure(parallel_router(keys[:1]), repo.root)
        parallel, run = await measure(parallel_router(keys), repo.root)
        sequential, _ = await measure(sequential_router(keys), repo.root)
    ideal = TURNS * TURN_DELAY_S
    print(f"{SUBAGENTS} subagents x {TURNS} turns x {TURN_DELAY_S * 1000:.0f} ms per model turn")
    print(f"{'':30}{'wall time':>12}{'vs one':>10}")
    print(f"{'one subagent (baseline)':30}{one:>10.2f} s{1.0:>9.2f}x")
    print(f"{'5 in parallel (one turn)':30}{parallel:>10.2f} s{parallel / one:>9.2f}x")
    print(f"{'5 sequential (baseline)':30}{sequential:>10.2f} s{sequential / one:>9.2f}x")
    print(
        f"model time of one subagent: {ideal:.2f} s; "
        f"parallel speed-up over sequential: {sequential / parallel:.2f}x"
    )
    tokens = {r.agent_id: r.usage.requests for r in run.manager.results()}
    print(f"requests per subagent (own accounting): {tokens}")


if __name__ == "__main__":
    asyncio.run(main())
