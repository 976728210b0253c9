"""Benchmark of the ConversationRunner loop.

Prints, side by side with the baseline each figure is compared to:
- the loop's own overhead per turn with a zero-latency scripted model (one trivial tool call per turn);
- the time per turn over HTTP through the real anthropic / openai SDKs against the loopback fake API,
  next to the bare SDK call (client.complete alone) on the same fake: the difference is the loop's share;
- the wall time of 8 tool calls of 200 ms each made in one assistant turn (run concurrently) versus the
  same 8 calls made one per turn (sequential; baseline 8 x 200 ms = 1.6 s).

Run: .venv/bin/python bench/bench_runner.py  (about 15 s)
"""

from __future__ import annotations

import asyncio
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from prscope.analysis.agent.events import EventRecorder, ToolCallFinished, ToolCallStarted
from prscope.analysis.agent.runner import Conversation, ConversationRunner, RunConfig
from prscope.analysis.models.base import Message, ModelClient, ModelRequest
from prscope.analysis.models.scripted import ScriptedClient, text_response, tool_response

from tests.fakeapi import FakeModelServer, text_turn, tool_turn
from tests.fakeapi.support import PROVIDERS, make_client, sample_context, sample_registry

TURNS_SCRIPTED = 300
TURNS_HTTP = 60
PARALLEL_CALLS = 8
CALL_SECONDS = 0.2


def config(max_iterations: int) -> RunConfig:
    return RunConfig(
        system_prompt="bench",
        tools=sample_registry(),
        tool_context=sample_context(),
        max_iterations=max_iterations,
        max_tool_calls=max_iterations * PARALLEL_CALLS,
    )


async def loop_overhead_scripted() -> float:
    """Seconds per turn, the model answering instantly."""
    steps = [tool_response(("echo", {"text": f"turn {i}"})) for i in range(TURNS_SCRIPTED - 1)]
    client = ScriptedClient([*steps, text_response("done")])
    started = time.perf_counter()
    outcome = await ConversationRunner(client).run(
        config(TURNS_SCRIPTED + 1), Conversation.start("go"), EventRecorder(), asyncio.Event()
    )
    elapsed = time.perf_counter() - started
    assert outcome.status == "completed" and outcome.iterations == TURNS_SCRIPTED, outcome
    return elapsed / TURNS_SCRIPTED


async def loop_over_http(provider: str, repeats: int = 3) -> tuple[float, float]:
    """Median (seconds per turn through the runner, seconds per bare client.complete) over HTTP."""
    through_runner: list[float] = []
    bare: list[float] = []
    with FakeModelServer() as server:
        client = make_client(provider, server)  # type: ignore[arg-type]
        try:
            server.script(text_turn("warm-up"))
            await client.complete(ModelRequest("bench", [Message.user("hi")], [], 10))
            for _ in range(repeats):
                server.script(*[tool_turn(("echo", {"text": f"t{i}"})) for i in range(TURNS_HTTP - 1)])
                server.script(text_turn("done"))
                started = time.perf_counter()
                outcome = await ConversationRunner(client).run(
                    config(TURNS_HTTP + 1), Conversation.start("go"), EventRecorder(), asyncio.Event()
                )
                through_runner.append((time.perf_counter() - started) / TURNS_HTTP)
                assert outcome.status == "completed", outcome
                bare.append(await bare_calls(client, server, outcome.conversation.messages))
        finally:
            await client.close()
    return statistics.median(through_runner), statistics.median(bare)


async def bare_calls(client: ModelClient, server: FakeModelServer, messages: list[Message]) -> float:
    """The same requests without the loop: the conversation replayed prefix by prefix."""
    specs = sample_registry().specs()
    server.script(*[text_turn("x") for _ in range(TURNS_HTTP)])
    prefixes = [messages[: i + 1] for i in range(0, len(messages), 2)][:TURNS_HTTP]
    started = time.perf_counter()
    for prefix in prefixes:
        await client.complete(ModelRequest("bench", prefix, specs, 4096))
    return (time.perf_counter() - started) / len(prefixes)


async def parallel_tools(concurrent: bool) -> tuple[float, float]:
    """(wall time of the tool phase, wall time of the whole run) for 8 calls of 200 ms."""
    calls = [("sleep", {"seconds": CALL_SECONDS, "label": str(i)}) for i in range(PARALLEL_CALLS)]
    steps = [tool_response(*calls)] if concurrent else [tool_response(call) for call in calls]
    client = ScriptedClient([*steps, text_response("done")])
    recorder = EventRecorder()
    started = time.perf_counter()
    outcome = await ConversationRunner(client).run(
        config(PARALLEL_CALLS + 2), Conversation.start("go"), recorder, asyncio.Event()
    )
    total = time.perf_counter() - started
    assert outcome.tool_calls == PARALLEL_CALLS, outcome
    starts = recorder.of_type(ToolCallStarted)
    ends = recorder.of_type(ToolCallFinished)
    return max(e.at for e in ends) - min(s.at for s in starts), total


async def main() -> None:
    scripted = statistics.median([await loop_overhead_scripted() for _ in range(3)])
    print("ConversationRunner benchmark")
    print()
    print(f"{'measure':58} {'measured':>12} {'baseline':>12}")
    print(f"{'loop overhead per turn, scripted zero-latency model':58} {scripted * 1e6:>9.0f} us {'-':>12}")
    for provider in PROVIDERS:
        runner_turn, bare_turn = await loop_over_http(provider)
        label = f"per turn over HTTP, {provider} SDK + fake (runner)"
        print(f"{label:58} {runner_turn * 1e3:>9.2f} ms {bare_turn * 1e3:>9.2f} ms  (bare client.complete)")
        share = f"  difference runner - bare, {provider} (noise level)"
        print(f"{share:58} {(runner_turn - bare_turn) * 1e3:>9.2f} ms")
    tools_parallel, run_parallel = await parallel_tools(concurrent=True)
    tools_sequential, run_sequential = await parallel_tools(concurrent=False)
    baseline = PARALLEL_CALLS * CALL_SECONDS
    rows = [
        ("8 x 200 ms tool calls in one turn (concurrent), tools", tools_parallel, baseline),
        ("  whole run incl. 2 model turns", run_parallel, None),
        ("8 x 200 ms tool calls one per turn (sequential), tools", tools_sequential, baseline),
        ("  whole run incl. 9 model turns", run_sequential, None),
    ]
    for label, seconds, base in rows:
        shown_base = f"{base:>10.3f} s" if base is not None else ""
        print(f"{label:58} {seconds:>10.3f} s {shown_base}")
    print(
        f"{'speed-up of the concurrent turn over sequential':58} {tools_sequential / tools_parallel:>11.1f}x"
    )


if __name__ == "__main__":
    asyncio.run(main())
