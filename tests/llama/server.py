"""Starts llama-cpp-python's OpenAI-compatible server on loopback with the model scripts/setup-llama
installed, the way a user would run it for prscope.

    with LlamaServer.from_environment() as server:   # None when scripts/setup-llama was not run
        server.base_url  # http://127.0.0.1:PORT/v1

Tool calling goes through chat_format `chatml-function-calling`: SmolLM2 speaks ChatML natively, and it
is the only format of llama-cpp-python 0.3.36 that turns a model's output into `tool_calls` without a
model trained for it (`functionary` wants a Functionary model and its Hugging Face tokenizer). The
model's own template (the default) ignores the tools altogether. See bench/README_local_model.md.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

MODEL_ALIAS = "smollm2-135m-instruct"
CHAT_FORMAT = "chatml-function-calling"
CONTEXT_WINDOW = 8192
"""SmolLM2's trained context; prscope must be told it (`context_window`), or it plans for 32k."""
THREADS = 2
SKIP_REASON = (
    'real llama.cpp server not installed: run `eval "$(scripts/setup-llama)"` (scripts/test does; '
    "PRSCOPE_LLAMA=0 skips it)"
)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@dataclass
class LlamaServer:
    python: Path
    model: Path
    log_path: Path
    port: int = 0
    started_s: float = 0.0
    """Seconds from the process start until /v1/models answered."""
    process: subprocess.Popen[bytes] | None = None
    _log: IO[bytes] | None = field(default=None, repr=False)

    @classmethod
    def from_environment(cls, log_path: Path) -> LlamaServer | None:
        python = os.environ.get("PRSCOPE_LLAMA_PYTHON", "")
        model = os.environ.get("PRSCOPE_LLAMA_MODEL", "")
        if not python or not model or not Path(python).exists() or not Path(model).exists():
            return None
        return cls(Path(python), Path(model), log_path)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def command(self) -> list[str]:
        return [
            str(self.python), "-m", "llama_cpp.server",
            "--model", str(self.model), "--model_alias", MODEL_ALIAS,
            "--chat_format", CHAT_FORMAT, "--n_ctx", str(CONTEXT_WINDOW),
            "--n_threads", str(THREADS), "--n_threads_batch", str(THREADS),
            "--host", "127.0.0.1", "--port", str(self.port), "--verbose", "false",
        ]  # fmt: skip

    def start(self, timeout_s: float = 120.0) -> LlamaServer:
        self.port = free_port()
        self._log = self.log_path.open("ab")
        began = time.monotonic()
        # Its own process group: stop() ends the server and anything it started, nothing else.
        self.process = subprocess.Popen(
            self.command(), stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )
        while time.monotonic() - began < timeout_s:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama server exited with {self.process.returncode}; see {self.log_path}")
            if self.get("/models") is not None:
                self.started_s = time.monotonic() - began
                return self
            time.sleep(0.1)
        self.stop()
        raise RuntimeError(f"llama server did not answer within {timeout_s:g} s; see {self.log_path}")

    def get(self, path: str) -> Any:
        try:
            with urllib.request.urlopen(f"{self.base_url}{path}", timeout=2) as answer:
                return json.load(answer)
        except OSError:
            return None

    def chat(self, body: dict[str, Any], timeout_s: float = 300.0) -> dict[str, Any]:
        request = urllib.request.Request(
            f"{self.base_url}/chat/completions",
            data=json.dumps({"model": MODEL_ALIAS, **body}).encode(),
            headers={"content-type": "application/json"},
        )
        with urllib.request.urlopen(request, timeout=timeout_s) as answer:
            result: dict[str, Any] = json.load(answer)
            return result

    def rss_mb(self) -> float:
        """Resident memory of the server process now, from /proc."""
        if self.process is None:
            return 0.0
        status = Path(f"/proc/{self.process.pid}/status").read_text()
        line = next(x for x in status.splitlines() if x.startswith("VmRSS:"))
        return int(line.split()[1]) / 1024

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGTERM)
            try:
                # uvicorn waits for a generation in progress; nothing here needs it finished.
                self.process.wait(3)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait(10)
        if self._log is not None:
            self._log.close()
            self._log = None

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
