"""The fake model API the project's tests drive the real SDK clients against.

    with FakeModelServer() as server:
        server.script(tool_turn(("read_file", {"path": "a.py"})), text_turn("<answer>done</answer>"))
        server.inject(Fault("rate_limit", times=2, retry_after=0.01))   # served before the next turns
        client = AnthropicClient(api_key="k", model="m", base_url=server.base_url)
        # OpenAICompatibleClient(..., base_url=server.openai_base_url)
        ...
        server.requests[-1].body / .headers / .tool_results / .has_tools / .system_text

Concurrent callers (subagents) are answered by `server.responder = fn(request) -> FakeTurn | Fault`,
routed on what the request says (its system prompt, its first user message). Requests the real APIs
would refuse (a tool call without its result, empty text blocks...) get a 400 and land in
`server.rejected`.
"""

from tests.fakeapi.server import (
    FakeModelServer,
    FakeTurn,
    Fault,
    RecordedRequest,
    ToolUse,
    text_turn,
    tool_turn,
)

__all__ = ["FakeModelServer", "FakeTurn", "Fault", "RecordedRequest", "ToolUse", "text_turn", "tool_turn"]
