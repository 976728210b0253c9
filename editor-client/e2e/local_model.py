"""The real local model server for the editor's local-model scenario: llama-cpp-python with SmolLM2
(tests/llama/server.py) behind the recording proxy (tests/llama/proxy.py).

    python editor-client/e2e/local_model.py CONTROL_DIR

Prints one JSON line {"base_url": ...} once the server answers, then runs until stdin closes, writing
CONTROL_DIR/state.json: requests sent, answered, dropped by the client, and in flight.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.llama.proxy import RecordingProxy
from tests.llama.server import LlamaServer


def write_state(control: Path, proxy: RecordingProxy, server: LlamaServer) -> None:
    exchanges = proxy.completions()
    state = {
        "requests": len(exchanges),
        "answered": sum(1 for e in exchanges if e.status is not None),
        "dropped": sum(1 for e in exchanges if e.dropped),
        "in_flight": sum(1 for e in exchanges if e.status is None and not e.dropped),
        "refused": sum(1 for e in exchanges if e.status is not None and e.status >= 400),
        "server_started_s": round(server.started_s, 2),
    }
    partial = control / "state.json.partial"
    partial.write_text(json.dumps(state), encoding="utf-8")
    partial.replace(control / "state.json")


def _exit_on_term(signum: int, frame: object) -> None:
    raise SystemExit(0)


def main() -> int:
    # The harness stops this launcher's process group with SIGTERM; the llama server runs in a session
    # of its own, so the launcher must live long enough to stop it (the `with` below) or it is orphaned.
    signal.signal(signal.SIGTERM, _exit_on_term)
    control = Path(sys.argv[1])
    control.mkdir(parents=True, exist_ok=True)
    server = LlamaServer.from_environment(control / "llama-server.log")
    if server is None:
        print(json.dumps({"error": "PRSCOPE_LLAMA_PYTHON / PRSCOPE_LLAMA_MODEL not set"}), flush=True)
        return 2
    with server:
        proxy = RecordingProxy("127.0.0.1", server.port).start()
        stop = threading.Event()

        def report() -> None:
            while not stop.is_set():
                write_state(control, proxy, server)
                time.sleep(0.2)

        write_state(control, proxy, server)
        threading.Thread(target=report, daemon=True).start()
        print(json.dumps({"base_url": proxy.base_url}), flush=True)
        sys.stdin.read()
        stop.set()
        proxy.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
