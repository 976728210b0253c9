"""Stoplight Prism (from npm) serving GitHub's REST description, and asking it whether a request is valid.

`prism mock --errors` validates each request against the description (path, method, parameters, body
schema) and answers with the description's example, or with the violations: a `sl-violations` header
on the example of an error response the operation describes, or a problem+json 4xx of its own (also for
an unknown route). Its start takes ~15-25 s (it loads 13 MB of JSON), so one server serves a session.
"""

from __future__ import annotations

import http.client
import json
import os
import socket
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
START_TIMEOUT_S = 180.0


class ToolchainMissing(RuntimeError):
    """The npm tools could not be installed (no npm, no registry)."""


@dataclass(frozen=True)
class Toolchain:
    prism: Path
    openapi: Path
    graphql_schema: Path


def install_toolchain() -> Toolchain:
    """Runs toolchain.sh (cached per machine; ~20 s the first time) and returns where the tools are."""
    try:
        done = subprocess.run(
            ["bash", str(HERE / "toolchain.sh")], capture_output=True, text=True, timeout=900, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as err:
        raise ToolchainMissing(f"toolchain.sh could not run: {err}") from err
    if done.returncode != 0:
        raise ToolchainMissing(f"toolchain.sh failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    found = dict(line.split("=", 1) for line in done.stdout.splitlines() if "=" in line)
    tools = Toolchain(
        Path(found["PRISM"]), Path(found["GITHUB_OPENAPI"]), Path(found["GITHUB_GRAPHQL_SCHEMA"])
    )
    for path in (tools.prism, tools.openapi, tools.graphql_schema):
        if not path.exists():
            raise ToolchainMissing(f"toolchain.sh reported {path}, which does not exist")
    return tools


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class Verdict:
    """What Prism said about one request."""

    status: int
    headers: dict[str, str]
    body: bytes
    violations: list[str] = field(default_factory=list)

    def json(self) -> Any:
        return json.loads(self.body) if self.body else None


class PrismServer:
    def __init__(self, tools: Toolchain, log: Path) -> None:
        self.tools = tools
        self.log = log
        self.port = free_port()
        self.process: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> PrismServer:
        command = [str(self.tools.prism), "mock", "-h", "127.0.0.1", "-p", str(self.port), "--errors"]
        with self.log.open("wb") as out:
            self.process = subprocess.Popen(
                [*command, str(self.tools.openapi)],
                stdout=out,
                stderr=subprocess.STDOUT,
                env={**os.environ, "NO_COLOR": "1"},
            )
        deadline = time.monotonic() + START_TIMEOUT_S
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"prism exited with {self.process.returncode}; see {self.log}")
            try:
                self.ask("GET", "/zen", {}, b"")
                return self
            except OSError:
                time.sleep(0.5)
        self.stop()
        raise RuntimeError(f"prism did not listen within {START_TIMEOUT_S:.0f} s; see {self.log}")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def ask(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Verdict:
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        try:
            connection.request(method, path, body=body or None, headers=headers)
            response = connection.getresponse()
            data = response.read()
            got = {key.lower(): value for key, value in response.getheaders()}
        finally:
            connection.close()
        return Verdict(response.status, got, data, _violations(response.status, got, data))

    def validate(self, method: str, path: str, headers: dict[str, str], body: bytes) -> Verdict:
        """Prism's verdict on a request exactly as a client sent it, except `Accept`: GitHub's
        description lists `application/json` for every answer while clients ask for
        `application/vnd.github+json` (the same JSON); content negotiation is not request validity."""
        sent = {key: value for key, value in headers.items() if key.lower() in _FORWARDED}
        sent["Accept"] = "application/json"
        return self.ask(method, path, sent, body)


_FORWARDED = {"content-type", "authorization", "x-github-api-version", "user-agent"}


def _violations(status: int, headers: dict[str, str], body: bytes) -> list[str]:
    if "sl-violations" in headers:
        found = json.loads(headers["sl-violations"])
        return [f"{'.'.join(map(str, v.get('location', [])))}: {v.get('message')}" for v in found]
    if headers.get("content-type", "").startswith("application/problem+json"):
        problem = json.loads(body or b"{}")
        details = [
            f"{'.'.join(map(str, v.get('location', [])))}: {v.get('message')}"
            for v in problem.get("validation", [])
        ]
        return details or [f"{problem.get('title')}: {problem.get('detail')}"]
    if status >= 400:
        return [f"prism answered {status}"]
    return []


def _violation(found: dict[str, Any]) -> str:
    return f"{'.'.join(map(str, found.get('location', [])))}: {found.get('message')}"
