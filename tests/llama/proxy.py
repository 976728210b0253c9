"""A recording HTTP proxy between prscope and a real model server, on loopback.

It records every exchange as the server saw it (request body, status, response body, timings) and,
above all, whether the client dropped the request before the answer came: that is how the tests show
that Ctrl-C or the editor's Cancel really dropped the HTTP request. Each request goes upstream on a
connection of its own, which the proxy closes at once when its client goes away, so that the server
sees the disconnect too.

Only what the OpenAI SDK sends is supported: HTTP/1.1 with content-length bodies (no chunked requests),
non-streamed answers (the server closes or sends a content-length).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import threading
import time
from dataclasses import dataclass, field
from typing import Any


@dataclass
class Exchange:
    method: str
    path: str
    request: dict[str, Any]
    started: float
    status: int | None = None
    response: dict[str, Any] | None = None
    raw_response: bytes = b""
    ended: float | None = None
    dropped_at: float | None = None
    """When the client closed its connection before the answer was sent (monotonic clock)."""

    @property
    def dropped(self) -> bool:
        return self.dropped_at is not None

    @property
    def seconds(self) -> float | None:
        end = self.ended if self.ended is not None else self.dropped_at
        return None if end is None else end - self.started


@dataclass
class RecordingProxy:
    upstream_host: str
    upstream_port: int
    exchanges: list[Exchange] = field(default_factory=list)
    port: int = 0
    _loop: asyncio.AbstractEventLoop | None = None
    _server: asyncio.Server | None = None
    _thread: threading.Thread | None = None
    _lock: threading.Lock = field(default_factory=threading.Lock)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> RecordingProxy:
        ready = threading.Event()

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            self._server = loop.run_until_complete(asyncio.start_server(self._serve, "127.0.0.1", 0))
            self.port = self._server.sockets[0].getsockname()[1]
            ready.set()
            loop.run_forever()
            loop.close()

        self._thread = threading.Thread(target=run, daemon=True)
        self._thread.start()
        ready.wait(10)
        return self

    def stop(self) -> None:
        if self._loop is None:
            return
        loop = self._loop

        def shutdown() -> None:
            if self._server is not None:
                self._server.close()
            loop.stop()

        loop.call_soon_threadsafe(shutdown)
        if self._thread is not None:
            self._thread.join(10)

    def completions(self) -> list[Exchange]:
        with self._lock:
            return [e for e in self.exchanges if e.path.endswith("/chat/completions")]

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                await self._one(head, reader, writer)
        except (asyncio.IncompleteReadError, ConnectionError, asyncio.LimitOverrunError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    async def _one(self, head: bytes, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        lines = head.decode("latin-1").split("\r\n")
        method, path, _ = lines[0].split(" ", 2)
        headers = [line.split(":", 1) for line in lines[1:] if ":" in line]
        length = next((int(v) for k, v in headers if k.strip().lower() == "content-length"), 0)
        body = await reader.readexactly(length) if length else b""
        try:
            parsed = json.loads(body) if body else {}
        except ValueError:
            parsed = {"_unparsed": body.decode("utf-8", "replace")}
        exchange = Exchange(method, path, parsed, time.monotonic())
        with self._lock:
            self.exchanges.append(exchange)
        kept = [f"{k}:{v}" for k, v in headers if k.strip().lower() not in ("connection", "host")]
        upstream_head = "\r\n".join(
            [lines[0], f"host: {self.upstream_host}:{self.upstream_port}", "connection: close", *kept]
        )
        answer = asyncio.ensure_future(self._forward(upstream_head.encode("latin-1") + b"\r\n\r\n" + body))
        # The client sends nothing more until it has its answer: a readable EOF means it went away.
        gone = asyncio.ensure_future(reader.read(1))
        done, _ = await asyncio.wait({answer, gone}, return_when=asyncio.FIRST_COMPLETED)
        if answer not in done:
            exchange.dropped_at = time.monotonic()
            answer.cancel()  # closes the upstream connection: the server sees the disconnect
            with contextlib.suppress(BaseException):
                await answer
            raise ConnectionError("client went away")
        gone.cancel()
        with contextlib.suppress(BaseException):
            await gone
        raw = answer.result()
        exchange.ended = time.monotonic()
        self._record_answer(exchange, raw)
        status_line, _, rest = raw.partition(b"\r\n")
        resp_head, _, resp_body = rest.partition(b"\r\n\r\n")
        framing = (b"content-length", b"connection", b"transfer-encoding")
        out_headers = [
            h for h in resp_head.split(b"\r\n") if h and h.split(b":", 1)[0].strip().lower() not in framing
        ]
        writer.write(b"\r\n".join([status_line, *out_headers, b"content-length: %d" % len(resp_body)]))
        writer.write(b"\r\n\r\n" + resp_body)
        await writer.drain()

    async def _forward(self, request: bytes) -> bytes:
        reader, writer = await asyncio.open_connection(self.upstream_host, self.upstream_port)
        try:
            writer.write(request)
            await writer.drain()
            return await reader.read()  # the server closes: we asked for connection: close
        finally:
            writer.close()
            with contextlib.suppress(Exception):
                await writer.wait_closed()

    @staticmethod
    def _record_answer(exchange: Exchange, raw: bytes) -> None:
        status_line, _, rest = raw.partition(b"\r\n")
        parts = status_line.split(b" ")
        exchange.status = int(parts[1]) if len(parts) > 1 and parts[1].isdigit() else None
        _, _, body = rest.partition(b"\r\n\r\n")
        exchange.raw_response = body
        with contextlib.suppress(ValueError):
            exchange.response = json.loads(body)
