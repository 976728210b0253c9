"""A loopback HTTP server speaking enough of the Anthropic Messages API and of OpenAI chat completions for
the real `anthropic` and `openai` SDKs: scripted assistant turns, recorded requests, injected faults.

The server runs in a background thread (stdlib ThreadingHTTPServer), so it serves SDK clients running in
any event loop and sees every connection the way a real API would, including one the client drops.
"""

from __future__ import annotations

import itertools
import json
import select
import socket
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, Literal

from tests.fakeapi.validation import anthropic_request_problem, openai_request_problem

Api = Literal["anthropic", "openai"]
Wire = Literal["openai", "llama-cpp-python"]
FaultKind = Literal[
    "rate_limit", "overloaded", "server_error", "drop", "slow", "malformed", "auth", "bad_request"
]

_ids = itertools.count(1)


@dataclass
class ToolUse:
    name: str
    input: dict[str, Any]
    id: str = ""
    raw_arguments: str | None = None
    """Sent as the chat completion's `arguments` string instead of `input` as JSON: broken JSON, a JSON
    array, prose, as small local models write them. The Anthropic API ignores it."""


@dataclass
class FakeTurn:
    """One assistant turn. `stop_reason` defaults to tool_use when there are tool uses, else end_turn."""

    text: str = ""
    tool_uses: list[ToolUse] = field(default_factory=list)
    stop_reason: str | None = None
    input_tokens: int = 100
    output_tokens: int = 20
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    delay_s: float = 0.0
    model: str = "fake-model"
    wire: Wire = "openai"
    """How chat completions look: OpenAI's own, or llama-cpp-python's server (its tool-call ids, the
    legacy `function_call` it adds beside one tool call, "" for an empty reply, no token details); see
    bench/README_local_model.md. The Anthropic API ignores it."""

    @property
    def effective_stop_reason(self) -> str:
        if self.stop_reason is not None:
            return self.stop_reason
        return "tool_use" if self.tool_uses else "end_turn"


def text_turn(text: str, **kwargs: Any) -> FakeTurn:
    return FakeTurn(text=text, **kwargs)


def tool_turn(*calls: tuple[str, dict[str, Any]], text: str = "", **kwargs: Any) -> FakeTurn:
    return FakeTurn(text=text, tool_uses=[ToolUse(name, args) for name, args in calls], **kwargs)


@dataclass
class Fault:
    """A failure served instead of a turn, `times` times in a row.

    `retry_after` (seconds, may be fractional) is sent as the retry-after header of error responses;
    `delay_s` is how long a `slow` fault waits before serving the next turn; `echo_api_key` puts the key
    the client sent into the error message, as a careless proxy might; `message` replaces the error
    message of its kind.
    """

    kind: FaultKind
    times: int = 1
    retry_after: float | None = 0.01
    delay_s: float = 1.0
    echo_api_key: bool = False
    message: str | None = None


@dataclass
class RecordedRequest:
    api: Api
    path: str
    headers: dict[str, str]
    body: dict[str, Any]

    @property
    def messages(self) -> list[dict[str, Any]]:
        return list(self.body.get("messages", []))

    @property
    def has_tools(self) -> bool:
        return bool(self.body.get("tools"))

    @property
    def tools_usable(self) -> bool:
        """Tools were offered and the model may call them (not listed under tool_choice "none")."""
        choice = self.body.get("tool_choice")
        kind = choice.get("type") if isinstance(choice, dict) else choice
        return self.has_tools and kind != "none"

    @property
    def tool_names(self) -> list[str]:
        names = []
        for tool in self.body.get("tools", []) or []:
            names.append(tool["function"]["name"] if "function" in tool else tool["name"])
        return names

    @property
    def system_text(self) -> str:
        if self.api == "anthropic":
            system = self.body.get("system", "")
            return system if isinstance(system, str) else "".join(b.get("text", "") for b in system)
        return "".join(_text_of(m.get("content")) for m in self.messages if m.get("role") == "system")

    @property
    def user_texts(self) -> list[str]:
        return [_text_of(m.get("content")) for m in self.messages if m.get("role") == "user"]

    @property
    def first_user_text(self) -> str:
        texts = self.user_texts
        return texts[0] if texts else ""

    @property
    def last_user_text(self) -> str:
        texts = self.user_texts
        return texts[-1] if texts else ""

    @property
    def tool_results(self) -> list[dict[str, Any]]:
        """Tool results sent back, as {"tool_use_id", "content", "is_error"} whatever the API."""
        results: list[dict[str, Any]] = []
        for message in self.messages:
            if self.api == "openai" and message.get("role") == "tool":
                content = _text_of(message.get("content"))
                results.append(
                    {"tool_use_id": message.get("tool_call_id"), "content": content, "is_error": None}
                )
            elif self.api == "anthropic" and isinstance(message.get("content"), list):
                for block in message["content"]:
                    if block.get("type") == "tool_result":
                        results.append(
                            {
                                "tool_use_id": block["tool_use_id"],
                                "content": _text_of(block.get("content")),
                                "is_error": block.get("is_error", False),
                            }
                        )
        return results

    @property
    def api_key(self) -> str:
        """The key the client sent, whichever header carried it (x-api-key or a bearer token)."""
        if "x-api-key" in self.headers:
            return self.headers["x-api-key"]
        return self.headers.get("authorization", "").removeprefix("Bearer ")


def _text_of(content: Any) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for block in content:
        if isinstance(block, dict):
            if block.get("type") == "text":
                parts.append(block.get("text", ""))
            elif block.get("type") == "tool_result":
                parts.append(_text_of(block.get("content")))
    return "".join(parts)


Responder = Callable[[RecordedRequest], "FakeTurn | Fault"]


class FakeModelServer:
    """Usage: `with FakeModelServer() as server: server.script(text_turn("hi")); ...server.base_url`.

    Each request is answered by the first injected fault still pending, else the next scripted turn,
    else `responder(request)` (called from the server's threads: it must be thread-safe), else a 500
    that the SDKs do not retry (x-should-retry: false), counted in `unscripted`.
    """

    def __init__(
        self, turns: Iterable[FakeTurn] = (), *, responder: Responder | None = None, validate: bool = True
    ) -> None:
        self.validate = validate
        self.rejected: list[str] = []
        """Requests refused as invalid (what the real API would answer with a 400), by message."""
        self._lock = threading.Lock()
        self._turns: deque[FakeTurn] = deque(turns)
        self._faults: deque[Fault] = deque()
        self.responder = responder
        self._requests: list[RecordedRequest] = []
        self._disconnects = 0
        self._disconnected = threading.Condition(self._lock)
        self.unscripted = 0
        self.responder_errors: list[str] = []
        self.require_api_key: str | None = None
        self._stopping = threading.Event()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None

    def __enter__(self) -> FakeModelServer:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def start(self) -> None:
        handler = type("Handler", (_Handler,), {"fake": self})
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, args=(0.05,), daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def base_url(self) -> str:
        assert self._httpd is not None, "server not started"
        host, port = self._httpd.server_address[:2]
        return f"http://{host!s}:{port}"

    @property
    def openai_base_url(self) -> str:
        return f"{self.base_url}/v1"

    def script(self, *turns: FakeTurn) -> None:
        with self._lock:
            self._turns.extend(turns)

    def inject(self, *faults: Fault) -> None:
        with self._lock:
            self._faults.extend(faults)

    @property
    def requests(self) -> list[RecordedRequest]:
        with self._lock:
            return list(self._requests)

    @property
    def remaining_turns(self) -> int:
        with self._lock:
            return len(self._turns)

    @property
    def disconnects(self) -> int:
        """Requests whose connection the client closed before the response was sent."""
        with self._lock:
            return self._disconnects

    def wait_for_disconnect(self, timeout: float = 5.0) -> bool:
        with self._disconnected:
            return self._disconnected.wait_for(lambda: self._disconnects > 0, timeout=timeout)

    def wait_for_requests(self, count: int, timeout: float = 5.0) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if len(self.requests) >= count:
                return True
            time.sleep(0.005)
        return False

    def _record(self, request: RecordedRequest) -> None:
        with self._lock:
            self._requests.append(request)

    def _next_action(self, request: RecordedRequest) -> FakeTurn | Fault | None:
        with self._lock:
            if self._faults:
                fault = self._faults[0]
                fault.times -= 1
                if fault.times <= 0:
                    self._faults.popleft()
                return fault
            if self._turns:
                return self._turns.popleft()
        if self.responder is not None:
            try:
                return self.responder(request)
            except Exception as err:  # a broken test script must fail its test fast, not look like a retry
                with self._lock:
                    self.responder_errors.append(f"{type(err).__name__}: {err}")
                return None
        with self._lock:
            self.unscripted += 1
        return None

    def _reject(self, problem: str) -> None:
        with self._lock:
            self.rejected.append(problem)

    def _note_disconnect(self) -> None:
        with self._disconnected:
            self._disconnects += 1
            self._disconnected.notify_all()


_ERROR_TYPES: dict[FaultKind, tuple[int, str, str]] = {
    "rate_limit": (429, "rate_limit_error", "Number of request tokens has exceeded your rate limit."),
    "overloaded": (529, "overloaded_error", "Overloaded"),
    "server_error": (500, "api_error", "Internal server error"),
    "auth": (401, "authentication_error", "invalid x-api-key"),
    "bad_request": (400, "invalid_request_error", "messages: field required"),
}


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    fake: FakeModelServer

    def setup(self) -> None:
        super().setup()
        # Headers and body go out in separate writes; without this, Nagle's algorithm and the client's
        # delayed ACK add some 40 ms to every response.
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        """Keep test output clean."""

    def do_POST(self) -> None:
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        api: Api
        route = self.path.split("?", 1)[0].rstrip("/")
        if route == "/v1/messages":
            api = "anthropic"
        elif route == "/v1/chat/completions":
            api = "openai"
        else:
            self._send_json(404, {"error": {"type": "not_found_error", "message": f"no route {self.path}"}})
            return
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        headers = {key.lower(): value for key, value in self.headers.items()}
        request = RecordedRequest(api, self.path, headers, body)
        self.fake._record(request)
        if self.fake.require_api_key is not None and request.api_key != self.fake.require_api_key:
            self._send_error(api, Fault("auth", retry_after=None), request)
            return
        problem = self._request_problem(api, body)
        if problem is not None:
            self.fake._reject(problem)
            self._send_error_body(api, 400, "invalid_request_error", problem, {})
            return
        self._serve(api, request, self.fake._next_action(request))

    def _request_problem(self, api: Api, body: dict[str, Any]) -> str | None:
        if not self.fake.validate:
            return None
        if api == "anthropic":
            return anthropic_request_problem(body)
        return openai_request_problem(body)

    def _serve(self, api: Api, request: RecordedRequest, action: FakeTurn | Fault | None) -> None:
        if action is None:
            self._send_error_body(
                api,
                500,
                "api_error",
                "fake server: no scripted turn left, or the responder failed (see responder_errors)",
                {"x-should-retry": "false"},
            )
        elif isinstance(action, FakeTurn):
            self._send_turn(api, request, action)
        elif action.kind == "drop":
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
        elif action.kind == "slow":
            if self._wait_watching_client(action.delay_s):
                turn = self.fake._next_action(request)
                self._serve(api, request, turn)
        elif action.kind == "malformed":
            self._send_raw(200, b'{"id": "msg_broken", "type": "message", "content": [', {})
        else:
            self._send_error(api, action, request)

    def _send_turn(self, api: Api, request: RecordedRequest, turn: FakeTurn) -> None:
        if turn.delay_s and not self._wait_watching_client(turn.delay_s):
            return
        payload = _anthropic_message(turn) if api == "anthropic" else _openai_completion(turn)
        self._send_json(200, payload)

    def _wait_watching_client(self, seconds: float) -> bool:
        """Sleep `seconds`; False (and the disconnect noted) if the client closed the connection first."""
        end = time.monotonic() + seconds
        while time.monotonic() < end and not self.fake._stopping.is_set():
            readable, _, _ = select.select([self.connection], [], [], 0.01)
            if readable:
                try:
                    peeked = self.connection.recv(1, socket.MSG_PEEK)
                except OSError:
                    peeked = b""
                if not peeked:
                    self.fake._note_disconnect()
                    self.close_connection = True
                    return False
        return not self.fake._stopping.is_set()

    def _send_error(self, api: Api, fault: Fault, request: RecordedRequest) -> None:
        status, kind, message = _ERROR_TYPES[fault.kind]
        message = fault.message or message
        if fault.echo_api_key:
            message = f"{message} (received key {request.api_key})"
        extra = {} if fault.retry_after is None else {"retry-after": f"{fault.retry_after:g}"}
        self._send_error_body(api, status, kind, message, extra)

    def _send_error_body(
        self, api: Api, status: int, kind: str, message: str, headers: dict[str, str]
    ) -> None:
        if api == "anthropic":
            body: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
        else:
            body = {"error": {"message": message, "type": kind, "param": None, "code": None}}
        self._send_json(status, body, headers)

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str] | None = None) -> None:
        self._send_raw(status, json.dumps(payload).encode(), headers or {})

    def _send_raw(self, status: int, data: bytes, headers: dict[str, str]) -> None:
        try:
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.send_header("request-id", f"req_fake_{next(_ids)}")
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(data)
            self.wfile.flush()
        except OSError:
            self.close_connection = True
            self.fake._note_disconnect()


def _anthropic_message(turn: FakeTurn) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if turn.text:
        content.append({"type": "text", "text": turn.text})
    for use in turn.tool_uses:
        content.append(
            {
                "type": "tool_use",
                "id": use.id or f"toolu_fake{next(_ids)}",
                "name": use.name,
                "input": use.input,
            }
        )
    return {
        "id": f"msg_fake{next(_ids)}",
        "type": "message",
        "role": "assistant",
        "model": turn.model,
        "content": content,
        "stop_reason": turn.effective_stop_reason,
        "stop_sequence": None,
        "usage": {
            "input_tokens": turn.input_tokens,
            "output_tokens": turn.output_tokens,
            "cache_creation_input_tokens": turn.cache_creation_input_tokens,
            "cache_read_input_tokens": turn.cache_read_input_tokens,
        },
    }


_FINISH_REASONS = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_calls",
    "max_tokens": "length",
    "refusal": "content_filter",
}


def _openai_completion(turn: FakeTurn) -> dict[str, Any]:
    if turn.wire == "llama-cpp-python":
        return _llama_cpp_completion(turn)
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or None}
    if turn.tool_uses:
        message["tool_calls"] = [
            {
                "id": use.id or f"call_fake{next(_ids)}",
                "type": "function",
                "function": {"name": use.name, "arguments": _arguments(use)},
            }
            for use in turn.tool_uses
        ]
    prompt_tokens = turn.input_tokens + turn.cache_read_input_tokens
    return {
        "id": f"chatcmpl-fake{next(_ids)}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": turn.model,
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": _FINISH_REASONS.get(turn.effective_stop_reason, "stop"),
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": turn.output_tokens,
            "total_tokens": prompt_tokens + turn.output_tokens,
            "prompt_tokens_details": {"cached_tokens": turn.cache_read_input_tokens},
        },
    }


def _arguments(use: ToolUse) -> str:
    return use.raw_arguments if use.raw_arguments is not None else json.dumps(use.input)


def _llama_cpp_completion(turn: FakeTurn) -> dict[str, Any]:
    """What llama-cpp-python 0.3.36's server answers with chat_format chatml-function-calling, as recorded
    against the real server (bench/README_local_model.md)."""
    completion_id = f"cmpl-{uuid.uuid4()}"
    message: dict[str, Any] = {"role": "assistant"}
    if turn.tool_uses:
        message["content"] = None
        message["tool_calls"] = [
            {
                # The id names the tool and the completion; no "call_" + random suffix.
                "id": use.id or f"call__{index}_{use.name}_{completion_id}",
                "type": "function",
                "function": {"name": use.name, "arguments": _arguments(use)},
            }
            for index, use in enumerate(turn.tool_uses)
        ]
        # The deprecated single function_call rides along, named after the grammar's next pick with its
        # trailing colon ("read_file:"): a client reading it would call a tool that does not exist.
        first = turn.tool_uses[0]
        message["function_call"] = {"name": f"{first.name}:", "arguments": json.dumps(first.input)}
    else:
        message["content"] = turn.text  # "" when the grammar chose a message and then ended it
    finish = _FINISH_REASONS.get(turn.effective_stop_reason, "stop")
    return {
        "id": f"chat{completion_id}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": turn.model,
        "choices": [{"index": 0, "message": message, "logprobs": None, "finish_reason": finish}],
        "usage": {
            "prompt_tokens": turn.input_tokens,
            "completion_tokens": turn.output_tokens,
            "total_tokens": turn.input_tokens + turn.output_tokens,
        },
    }
