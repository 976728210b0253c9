"""How long the language server takes to answer `initialize` after launch, and to answer a first review.

The client's clock starts just before the server process is spawned and stops when the `initialize`
response is read from its stdout (what an editor waits for before it shows anything). Each start is a
fresh process; the page cache is warm after the first, as it is for an editor started twice.

Baselines side by side: the same server at another git ref (default `main`, unpacked from `git
archive` into a temporary directory), a bare `python -c pass`, and importing pygls with lsprotocol's
types (the floors no Python, and no pygls server, can beat).

    .venv/bin/python bench/bench_server_start.py [--repeat 10] [--baseline-ref main]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import IO, Any

HERE = Path(__file__).resolve().parent.parent
PYGLS_IMPORT = "import lsprotocol.types, pygls.lsp.server"


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body


def read_message(stream: IO[bytes]) -> dict[str, Any]:
    length = 0
    while True:
        line = stream.readline()
        if not line:
            raise RuntimeError("the server closed its stdout")
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    message: dict[str, Any] = json.loads(stream.read(length))
    return message


def wait_for_response(stream: IO[bytes], msg_id: int) -> dict[str, Any]:
    while True:
        message = read_message(stream)
        if message.get("id") == msg_id and "method" not in message:
            return message


def one_start(source: Path, repo: Path, review: bool) -> tuple[float, float | None]:
    """Seconds to the `initialize` answer, and to the first review's answer when `review`."""
    initialize = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "processId": None,
            "rootUri": repo.as_uri(),
            "capabilities": {"general": {"positionEncodings": ["utf-8", "utf-16"]}},
            "initializationOptions": {"offline": True},
        },
    }
    env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
    env["PYTHONPATH"] = str(source)
    started = time.perf_counter()
    process = subprocess.Popen(
        [sys.executable, "-m", "prscope.server"],
        cwd=source,
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdin is not None and process.stdout is not None
    try:
        process.stdin.write(frame(initialize))
        process.stdin.flush()
        wait_for_response(process.stdout, 1)
        initialized = time.perf_counter() - started
        reviewed: float | None = None
        process.stdin.write(frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
        if review:
            request = {"jsonrpc": "2.0", "id": 2, "method": "prscope/review", "params": {"base": "main"}}
            process.stdin.write(frame(request))
            process.stdin.flush()
            wait_for_response(process.stdout, 2)
            reviewed = time.perf_counter() - started
        process.stdin.write(frame({"jsonrpc": "2.0", "id": 3, "method": "shutdown"}))
        process.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
        process.stdin.flush()
        process.wait(timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return initialized, reviewed


def python_floor(code: str = "pass") -> float:
    started = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - started


def small_repo(root: Path) -> Path:
    def git(*args: str) -> None:
        subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)

    root.mkdir(parents=True)
    git("init", "-q", "-b", "main")
    git("config", "user.email", "bench@example.com")
    git("config", "user.name", "Bench")
    (root / "util.py").write_text("def fetch(url, timeout=10):\n    return url\n")
    (root / "app.py").write_text("from util import fetch\n\nresult = fetch('a')\n")
    git("add", "-A")
    git("commit", "-q", "-m", "base")
    git("checkout", "-q", "-b", "feature")
    (root / "util.py").write_text("def fetch(url, method, timeout=10):\n    return url\n")
    git("commit", "-q", "-a", "-m", "change")
    return root


def export(ref: str, where: Path) -> Path:
    """The tree of `ref` unpacked at `where` (git archive: no worktree is registered anywhere)."""
    where.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(HERE), "archive", ref], check=True, capture_output=True)
    subprocess.run(["tar", "-x", "-C", str(where)], input=archive.stdout, check=True)
    return where


def measure(label: str, source: Path, repo: Path, repeat: int) -> list[str]:
    one_start(source, repo, review=False)  # warm the page cache and the bytecode cache
    starts = [one_start(source, repo, review=True) for _ in range(repeat)]
    init = [s[0] for s in starts]
    first = [s[1] for s in starts if s[1] is not None]
    return [
        f"{label:<34} initialize: median {statistics.median(init):.3f}s  min {min(init):.3f}s  "
        f"max {max(init):.3f}s   first review answered: median {statistics.median(first):.3f}s"
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--baseline-ref", default="main", help="git ref to compare with ('' to skip)")
    args = parser.parse_args()
    rows: list[str] = []
    with tempfile.TemporaryDirectory(prefix="prscope-bench-start-") as tmp:
        repo = small_repo(Path(tmp) / "repo")
        floor = statistics.median(python_floor() for _ in range(args.repeat))
        pygls = statistics.median(python_floor(PYGLS_IMPORT) for _ in range(args.repeat))
        if args.baseline_ref:
            baseline = export(args.baseline_ref, Path(tmp) / "baseline")
            rows += measure(f"baseline ({args.baseline_ref})", baseline, repo, args.repeat)
        rows += measure("this tree", HERE, repo, args.repeat)
    load1, _, _ = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} cpus, load average {load1:.2f} while measuring; {args.repeat} starts each"
    )
    print(f"{'floor: python -c pass':<34} median {floor:.3f}s")
    print(f"{'floor: import pygls + lsprotocol':<34} median {pygls:.3f}s (what any pygls server pays)")
    for row in rows:
        print(row)
    return 0


if __name__ == "__main__":
    sys.exit(main())
