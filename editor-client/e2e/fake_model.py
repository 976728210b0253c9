"""The loopback fake model API (tests/fakeapi) with the script of the end-to-end test's model scenario.

    python editor-client/e2e/fake_model.py CONTROL_DIR

Prints one JSON line {"base_url": ...} when it serves, then runs until stdin closes. The key a request
must carry comes from FAKE_MODEL_KEY (a 401 otherwise, as the real API answers).

The first review: the main reviewer starts two subagents in one turn (they run in parallel); each one's
first request is held until CONTROL_DIR/release exists, so the test sees both running for as long as it
needs, then reads a file and reports; the reviewer reports one model finding, which a verification
subagent confirms. Every later review: the reviewer's first answer takes ten minutes, unless the client
drops the request first (a cancelled review). CONTROL_DIR/state.json tells the test what happened.
"""

from __future__ import annotations

import json
import os
import sys
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.fakeapi import FakeModelServer, FakeTurn, RecordedRequest, text_turn, tool_turn

SUBAGENT_MARK = "You are a focused investigator"
VERIFY_MARK = "Verify a suspected"
# Below the subagents' own 60 s wall time: a held subagent must not time out.
HOLD_LIMIT_S = 45.0
SUBAGENTS = {
    "callers": ("callers of fetch", "find every caller of pkg.util.fetch and check it passes timeout"),
    "imports": ("imports of pkg.util", "find every module importing pkg.util and what it uses from it"),
}
MODEL_FINDING = {
    "rule": "error-handling",
    "severity": "warning",
    "path": "pkg/util.py",
    "line": 1,
    "title": "fetch() has no default timeout",
    "message": "Every caller must now pass timeout; a default (e.g. timeout=10) keeps old callers working.",
    "confidence": 0.9,
}


def reply(summary: str, answer: str, findings: list[dict[str, Any]]) -> str:
    lines = "\n".join(json.dumps(f) for f in findings)
    return f"<findings>\n{lines}\n</findings>\n<summary>{summary}</summary>\n<answer>{answer}</answer>"


class Script:
    """Routes each request by what it says; thread-safe (the fake serves each request in a thread)."""

    def __init__(self, control: Path) -> None:
        self.control = control
        self.lock = threading.Lock()
        self.file_lock = threading.Lock()
        self.state: dict[str, Any] = {
            "reviews": 0,
            "subagents_waiting": 0,
            "max_parallel": 0,
            "requests": 0,
            "disconnects": 0,
            "rejected": 0,
            "unauthorized": 0,
        }
        self.write_state()

    def __call__(self, request: RecordedRequest) -> FakeTurn:
        turn = sum(1 for m in request.messages if m.get("role") == "assistant")
        with self.lock:
            self.state["requests"] += 1
        if SUBAGENT_MARK not in request.system_text:
            return self.main(turn)
        first = request.first_user_text
        if VERIFY_MARK in first:
            verdict = "CONFIRMED confidence: 0.9. app.py:3 omits it"
            return text_turn(reply("checked the call sites", verdict, []))
        key = next((k for k in SUBAGENTS if f"[[{k}]]" in first), None)
        if key is None:
            return text_turn(reply("nothing to add", "no task recognised", []))
        if turn == 0:
            self.hold_until_released()
            return tool_turn(("read_file", {"path": "app.py"}))
        return text_turn(reply(f"{SUBAGENTS[key][0]}: looked at app.py", "app.py:3 calls fetch(url)", []))

    def main(self, turn: int) -> FakeTurn:
        if turn == 0:
            with self.lock:
                self.state["reviews"] += 1
                review = self.state["reviews"]
            self.write_state()
            if review > 1:
                final = reply("stopped", "", [])
                return text_turn(final, delay_s=600.0)
            calls = [
                (
                    "run_subagent",
                    {"task": f"[[{key}]] {task}; return path:line for each.", "label": label},
                )
                for key, (label, task) in SUBAGENTS.items()
            ]
            return tool_turn(*calls, text="Two independent questions: asking both at once.")
        return text_turn(reply("fetch() gained a required timeout.", "", [MODEL_FINDING]))

    def hold_until_released(self) -> None:
        with self.lock:
            self.state["subagents_waiting"] += 1
            self.state["max_parallel"] = max(self.state["max_parallel"], self.state["subagents_waiting"])
        self.write_state()
        release = self.control / "release"
        end = time.monotonic() + HOLD_LIMIT_S
        while not release.exists() and time.monotonic() < end:
            time.sleep(0.05)
        with self.lock:
            self.state["subagents_waiting"] -= 1
        self.write_state()

    def write_state(self, **updates: Any) -> None:
        with self.lock:
            self.state.update(updates)
            snapshot = dict(self.state)
        # Request threads and the reporter thread all write: one writer at a time, or one thread's
        # replace() finds the partial file already moved by another and the responder fails.
        with self.file_lock:
            partial = self.control / "state.json.partial"
            partial.write_text(json.dumps(snapshot), encoding="utf-8")
            partial.replace(self.control / "state.json")


def main() -> int:
    control = Path(sys.argv[1])
    control.mkdir(parents=True, exist_ok=True)
    script = Script(control)
    key = os.environ.get("FAKE_MODEL_KEY") or None
    with FakeModelServer(responder=script) as server:
        server.require_api_key = key
        print(json.dumps({"base_url": server.base_url}), flush=True)

        def report() -> None:
            while True:
                unauthorized = sum(1 for r in server.requests if key is not None and r.api_key != key)
                script.write_state(
                    disconnects=server.disconnects, rejected=len(server.rejected), unauthorized=unauthorized
                )
                time.sleep(0.2)

        threading.Thread(target=report, daemon=True).start()
        sys.stdin.read()
    return 0


if __name__ == "__main__":
    sys.exit(main())
