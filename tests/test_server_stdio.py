"""Nothing but LSP on the server's stdout: every byte is part of a framed JSON-RPC message, even when
code inside the server prints."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import IO, Any

import pytest

from tests.test_server_support import server_env, stale_call_repo, uri

# The real entry point, plus one extra request whose handler print()s, as careless code might.
PRINTING_SERVER = """
import sys
import prscope.server.app as app
from prscope.server.__main__ import main

build = app.build_server

def build_with_printer():
    ls = build()

    @ls.feature("test/print")
    def printer(ls, params):
        print("stray output from a handler")
        return {"printed": True}

    return ls

app.build_server = build_with_printer
sys.exit(main())
"""


def _frame(message: dict[str, Any]) -> bytes:
    body = json.dumps(message).encode("utf-8")
    return f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body


def initialize_messages(root: Path, options: Any = None) -> list[dict[str, Any]]:
    """`initialize` (id 1) and `initialized`, with no client capabilities."""
    params = {"processId": None, "rootUri": uri(root), "capabilities": {}, "initializationOptions": options}
    return [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
    ]


def _requests(root: Path) -> list[dict[str, Any]]:
    return [
        *initialize_messages(root, {}),
        {"jsonrpc": "2.0", "id": 2, "method": "test/print", "params": {}},
        {"jsonrpc": "2.0", "id": 3, "method": "prscope/review", "params": {"base": "main"}},
    ]


SHUTDOWN = [{"jsonrpc": "2.0", "id": 4, "method": "shutdown"}, {"jsonrpc": "2.0", "method": "exit"}]


def _read_frame(stream: IO[bytes]) -> bytes:
    """One raw frame (headers and body) read from a pipe."""
    header = b""
    while not header.endswith(b"\r\n\r\n"):
        byte = stream.read(1)
        if not byte:
            raise AssertionError(f"stdout closed mid-header: {header!r}")
        header += byte
    length = next(
        int(line.split(b":")[1])
        for line in header.split(b"\r\n")
        if line.lower().startswith(b"content-length")
    )
    return header + stream.read(length)


def parse_frames(stream: bytes) -> list[dict[str, Any]]:
    """Every message in `stream`; fails on any byte outside a well-formed frame."""
    messages: list[dict[str, Any]] = []
    position = 0
    while position < len(stream):
        header_end = stream.index(b"\r\n\r\n", position)
        headers = stream[position:header_end].decode("ascii").split("\r\n")
        fields = dict(line.split(": ", 1) for line in headers)
        assert set(fields) <= {"Content-Length", "Content-Type"}, headers
        length = int(fields["Content-Length"])
        body = stream[header_end + 4 : header_end + 4 + length]
        assert len(body) == length
        message = json.loads(body)
        assert message["jsonrpc"] == "2.0"
        messages.append(message)
        position = header_end + 4 + length
    return messages


def _is_response_to(frame: bytes, msg_id: int) -> bool:
    body = json.loads(frame.split(b"\r\n\r\n", 1)[1])
    return body.get("id") == msg_id and "method" not in body


def _run(command: list[str], root: Path) -> tuple[bytes, bytes, int]:
    """Talk to the server until the review answers, then shut it down; returns every stdout byte."""
    return talk(command, _requests(root), 3)


def talk(command: list[str], messages: list[dict[str, Any]], last_id: int) -> tuple[bytes, bytes, int]:
    """Send `messages`, read until the answer to `last_id`, then shut the server down; returns every
    stdout byte, the stderr bytes and the exit code."""
    env = server_env({"PYTHONUNBUFFERED": "1"})
    process = subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env
    )
    assert process.stdin is not None and process.stdout is not None
    frames: list[bytes] = []
    try:
        process.stdin.write(b"".join(_frame(m) for m in messages))
        process.stdin.flush()
        while not frames or not _is_response_to(frames[-1], last_id):
            frames.append(_read_frame(process.stdout))
        out, err = process.communicate(b"".join(_frame(m) for m in SHUTDOWN), timeout=30)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    return b"".join(frames) + out, err, process.returncode


def test_stdout_holds_only_framed_protocol_messages(tmp_path: Path) -> None:
    repo = stale_call_repo(tmp_path / "repo")
    stdout, stderr, returncode = _run([sys.executable, "-c", PRINTING_SERVER], repo.root)

    messages = parse_frames(stdout)
    assert returncode == 0, stderr.decode()
    by_id = {m["id"]: m for m in messages if "id" in m and "method" not in m}
    assert by_id[1]["result"]["serverInfo"]["name"] == "prscope"
    assert by_id[2]["result"] == {"printed": True}
    assert by_id[3]["result"]["status"] == "offline"
    assert any(m.get("method") == "textDocument/publishDiagnostics" for m in messages)
    assert any(m.get("method") == "prscope/runEvent" for m in messages)
    assert by_id[4]["result"] is None
    assert b"stray output from a handler" in stderr


def test_installed_entry_point_speaks_lsp(tmp_path: Path) -> None:
    entry = shutil.which("prscope-server", path=str(Path(sys.executable).parent))
    if entry is None:
        pytest.skip("prscope-server is not installed in this environment")
    repo = stale_call_repo(tmp_path / "repo")
    stdout, _stderr, returncode = _run([entry], repo.root)
    messages = parse_frames(stdout)
    assert returncode == 0
    assert any(m.get("id") == 3 and m["result"]["status"] == "offline" for m in messages)
