"""Time and memory of a prscope review against a real local model server, side by side with the fake.

    eval "$(scripts/setup-llama)"; export PRSCOPE_LLAMA_PYTHON PRSCOPE_LLAMA_MODEL
    .venv/bin/python bench/bench_local_model.py [--out bench/local-model-run.json]

Measures, on the demo pull request (scripts/demo_pr.py): the llama.cpp server's cold start (process
start until /v1/models answers) and its peak memory; the first token of a streamed answer (a short
prompt, and prscope's own first prompt); the whole `prscope review --provider openai` (wall time,
prscope's peak memory, requests, tokens, status); and the same review against the loopback fake API.
Every exchange with the real server is summarised (finish reasons, tool-call shapes, usage fields) for
bench/README_local_model.md.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "scripts"))

from demo_pr import build_repository  # noqa: E402

from tests.fakeapi import FakeModelServer, FakeTurn, RecordedRequest, text_turn  # noqa: E402
from tests.llama.proxy import Exchange, RecordingProxy  # noqa: E402
from tests.llama.server import CONTEXT_WINDOW, MODEL_ALIAS, LlamaServer  # noqa: E402

DEADLINE_S = 150


def run_review(repo: Path, base_url: str, provider_args: list[str], out: Path) -> dict[str, Any]:
    config = out.with_suffix(".toml")
    config.write_text(
        f'[model]\nprovider = "openai"\ncontext_window = {CONTEXT_WINDOW}\n\n'
        f"[budget]\ndeadline_s = {DEADLINE_S}\n",
        encoding="utf-8",
    )
    prscope = Path(sys.executable).with_name("prscope")
    command = [
        str(prscope), "review", "--base", "main", "--provider", "openai", "--base-url", base_url,
        *provider_args, "--config", str(config), "--format", "json", "--output", str(out),
        "--no-progress", "--no-cache",
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_"))}
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=repo, env=env, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    seconds = time.monotonic() - started
    report = json.loads(out.read_text(encoding="utf-8"))
    return {
        "seconds": round(seconds, 1),
        "prscope_peak_rss_mb": round(usage.ru_maxrss / 1024, 1),
        "exit_code": os.waitstatus_to_exitcode(status),
        "status": report["status"],
        "status_reason": report["status_reason"],
        "usage": report["usage"],
        "model_findings": sum(1 for f in report["findings"] if f["source"] == "model"),
        "errors": report["errors"],
    }


def first_token_s(server: LlamaServer, messages: list[dict[str, Any]]) -> float:
    """Seconds until the first content chunk of a streamed answer (tools left out: this server cannot
    stream a tool call)."""
    body = {"model": MODEL_ALIAS, "messages": messages, "max_tokens": 16, "stream": True}
    request = urllib.request.Request(
        f"{server.base_url}/chat/completions",
        data=json.dumps(body).encode(),
        headers={"content-type": "application/json"},
    )
    started = time.monotonic()
    with urllib.request.urlopen(request, timeout=600) as answer:
        for raw in answer:
            line = raw.decode().strip()
            if not line.startswith("data:") or line == "data: [DONE]":
                continue
            delta = json.loads(line[5:])["choices"][0].get("delta", {})
            if delta.get("content"):
                return time.monotonic() - started
    return time.monotonic() - started


def cancel_in_flight(repo: Path, server: LlamaServer, work: Path) -> dict[str, Any]:
    """Ctrl-C while the server works on prscope's first request: how soon the request is dropped, how soon
    prscope exits, and how long the server then takes to answer a one-token request (it is busy for as
    long as it goes on with the dropped generation)."""
    import signal

    proxy = RecordingProxy("127.0.0.1", server.port).start()
    try:
        config = work / "cancel.toml"
        config.write_text(
            f'[model]\nprovider = "openai"\ncontext_window = {CONTEXT_WINDOW}\n', encoding="utf-8"
        )
        prscope = Path(sys.executable).with_name("prscope")
        command = [
            str(prscope), "review", "--base", "main", "--provider", "openai", "--base-url", proxy.base_url,
            "--model", MODEL_ALIAS, "--config", str(config), "--format", "json",
            "--output", str(work / "cancel.json"), "--no-progress", "--no-cache",
        ]  # fmt: skip
        process = subprocess.Popen(command, cwd=repo, stderr=subprocess.DEVNULL)
        while not proxy.completions():
            time.sleep(0.05)
        time.sleep(3.0)
        pressed = time.monotonic()
        process.send_signal(signal.SIGINT)
        process.wait(60)
        exited = time.monotonic() - pressed
        dropped = proxy.completions()[0]
        probe_started = time.monotonic()
        server.chat({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1})
        probe = time.monotonic() - probe_started
    finally:
        proxy.stop()
    return {
        "request_dropped_after_s": round((dropped.dropped_at or pressed) - pressed, 3),
        "prscope_exited_after_s": round(exited, 2),
        "one_token_request_after_cancel_s": round(probe, 1),
        "status": json.loads((work / "cancel.json").read_text(encoding="utf-8"))["status_reason"],
    }


def peak_rss_mb(pid: int) -> float:
    status = Path(f"/proc/{pid}/status").read_text()
    line = next(x for x in status.splitlines() if x.startswith("VmHWM:"))
    return round(int(line.split()[1]) / 1024, 1)


def shapes(exchanges: list[Exchange]) -> dict[str, Any]:
    """What the server answered, summarised."""
    finish: Counter[str] = Counter()
    content: Counter[str] = Counter()
    tool_call_ids: list[str] = []
    usage_keys: set[str] = set()
    legacy_function_call: list[str] = []
    errors: list[str] = []
    for exchange in exchanges:
        if exchange.response is None:
            continue
        if "choices" not in exchange.response:  # an error answer: {"error": {...}} or FastAPI's {"detail"}
            errors.append(f"HTTP {exchange.status}: {json.dumps(exchange.response)[:300]}")
            continue
        choice = exchange.response["choices"][0]
        finish[str(choice.get("finish_reason"))] += 1
        message = choice["message"]
        value = message.get("content")
        content["null" if value is None else "empty" if value == "" else "text"] += 1
        tool_call_ids += [call["id"] for call in message.get("tool_calls") or []]
        if "function_call" in message:
            legacy_function_call.append(message["function_call"]["name"])
        usage_keys |= set(exchange.response.get("usage", {}))
    return {
        "requests": len(exchanges),
        "error_answers": errors,
        "dropped_by_client": sum(1 for e in exchanges if e.dropped),
        "finish_reasons": dict(finish),
        "content": dict(content),
        "tool_call_ids": tool_call_ids[:5],
        "legacy_function_call_names": legacy_function_call[:5],
        "usage_keys": sorted(usage_keys),
        "tool_choice_sent": sorted({str(e.request.get("tool_choice")) for e in exchanges}),
        "max_tokens_sent": sorted({int(e.request.get("max_tokens", 0)) for e in exchanges}),
        "seconds_per_request": [round(e.seconds or 0, 1) for e in exchanges],
        "answers": [
            json.dumps(e.response["choices"][0]["message"])[:300]
            for e in exchanges
            if e.response and "choices" in e.response
        ],
    }


def fake_answer(request: RecordedRequest) -> FakeTurn:
    if "Verify a suspected" in request.first_user_text:  # the verification subagent
        verdict = "CONFIRMED confidence: 0.9. cart.py:24 calls breakpoint()"
        return text_turn(f"<findings>\n</findings>\n<summary>checked</summary>\n<answer>{verdict}</answer>")
    finding = {
        "rule": "bug",
        "severity": "warning",
        "path": "shopkit/cart.py",
        "line": 24,
        "code": "breakpoint()",
        "title": "breakpoint() left in total()",
        "confidence": 0.9,
    }
    return text_turn(f"<findings>\n{json.dumps(finding)}\n</findings>\n<summary>done</summary>")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--out", type=Path, default=ROOT / "bench" / "local-model-run.json")
    args = parser.parse_args()
    results: dict[str, Any] = {"load_average_at_start": os.getloadavg()}
    with tempfile.TemporaryDirectory(prefix="prscope-bench-llama-") as scratch:
        work = Path(scratch)
        repo = work / "shopkit"
        build_repository(repo)
        with FakeModelServer(responder=fake_answer) as fake:
            results["fake"] = run_review(repo, fake.openai_base_url, ["--model", "fake"], work / "fake.json")
            review_prompt = [m for m in fake.requests[0].messages if m.get("role") in ("system", "user")]
        server = LlamaServer.from_environment(work / "llama.log")
        if server is None:
            print('run `eval "$(scripts/setup-llama)"` first', file=sys.stderr)
            return 2
        with server:
            results["server_cold_start_s"] = round(server.started_s, 2)
            results["server_rss_idle_mb"] = round(server.rss_mb(), 1)
            short = [{"role": "user", "content": "Say hello."}]
            # The first request after start pays for warming up; then a short prompt; then prscope's own
            # first prompt (without the tools: this server streams no tool call), before the review
            # (afterwards llama.cpp's prompt cache would answer it from memory).
            results["first_token_first_request_s"] = round(first_token_s(server, short), 2)
            results["first_token_short_prompt_s"] = round(first_token_s(server, short), 2)
            results["first_token_review_prompt_s"] = round(first_token_s(server, review_prompt), 2)
            proxy = RecordingProxy("127.0.0.1", server.port).start()
            try:
                results["real"] = run_review(
                    repo, proxy.base_url, ["--model", MODEL_ALIAS], work / "real.json"
                )
                exchanges = proxy.completions()
            finally:
                proxy.stop()
            results["real"]["shapes"] = shapes(exchanges)
            results["server_peak_rss_mb"] = peak_rss_mb(server.process.pid if server.process else 0)
            probe = time.monotonic()
            server.chat({"messages": [{"role": "user", "content": "hi"}], "max_tokens": 1})
            results["one_token_request_idle_s"] = round(time.monotonic() - probe, 1)
            results["cancel"] = cancel_in_flight(repo, server, work)
    results["load_average_at_end"] = os.getloadavg()
    args.out.write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in results.items() if k != "real"}, indent=1))
    print(json.dumps({k: v for k, v in results["real"].items() if k != "shapes"}, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
