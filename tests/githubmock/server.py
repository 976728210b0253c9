"""A loopback GitHub that keeps state, for scenarios over several pushes, with every request validated.

Each REST request is first forwarded, as sent, to Prism serving GitHub's OpenAPI description: Prism's
verdict (violations, if any) is recorded with the request, and its answer, the description's example for
that operation, is the template of the fake's own answer (so every answer has the shape the description
gives, and githubkit's generated models parse it). With `answer_from_prism`, the client gets Prism's
example answer itself: the spec-driven mock, unchanged. GraphQL requests are validated against GitHub's
GraphQL schema and executed over the state (tests/githubmock/graphql_api.py).

Faults (a status for a route, `times` times) are served after validation, so a failing request is still
checked. Tokens map to users: a read-only token can read but not write, like a fork's GITHUB_TOKEN.
"""

from __future__ import annotations

import copy
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from graphql import GraphQLSchema

from tests.githubmock import graphql_api
from tests.githubmock.prism import PrismServer, Verdict
from tests.githubmock.state import BOT, READ_ONLY_BOT, PullRequestState, Refused, User
from tests.loopback import Answer, JsonLoopback

REPO = re.compile(r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)/")
FORBIDDEN = {
    "message": "Resource not accessible by integration",
    "documentation_url": "https://docs.github.com/rest",
}


@dataclass
class Recorded:
    kind: str
    """"rest" or "graphql"."""
    method: str
    path: str
    status: int
    violations: list[str]
    body: Any = None


@dataclass
class Fault:
    method: str
    path: str
    """A regular expression matched against the path (without the query)."""
    status: int
    message: str = "fault"
    times: int = 1
    headers: dict[str, str] = field(default_factory=dict)


class FakeGitHub(JsonLoopback):
    def __init__(
        self,
        prism: PrismServer,
        schema: GraphQLSchema,
        state: PullRequestState,
        *,
        answer_from_prism: bool = False,
    ) -> None:
        super().__init__()
        self.prism = prism
        self.schema = schema
        self.state = state
        self.answer_from_prism = answer_from_prism
        self.tokens: dict[str, User] = {"bot-token": BOT, "read-only-token": READ_ONLY_BOT}
        self.recorded: list[Recorded] = []
        self.faults: list[Fault] = []
        self._lock = threading.Lock()

    # --- assertions --------------------------------------------------------------------------------

    def invalid(self) -> list[Recorded]:
        return [r for r in self.recorded if r.violations]

    def writes(self) -> list[Recorded]:
        return [
            r
            for r in self.recorded
            if r.method in {"POST", "PATCH", "PUT", "DELETE"}
            and not (r.kind == "graphql" and "mutation" not in str(r.body))
        ]

    # --- serving -----------------------------------------------------------------------------------

    def serve(self, method: str, target: str, headers: dict[str, str], raw: bytes) -> Answer:
        authorization = headers.get("authorization", "")
        if urlsplit(target).path == "/graphql":
            status, body = _graphql(self, authorization, raw)
            return status, body, {}
        verdict = self.prism.validate(method, target, headers, raw)
        entry = Recorded("rest", method, target, verdict.status, verdict.violations, _json(raw))
        self.record(entry)
        answer = _rest(self, method, target, authorization, raw, verdict)
        entry.status = answer[0]
        return answer

    def record(self, entry: Recorded) -> None:
        with self._lock:
            self.recorded.append(entry)

    def fault_for(self, method: str, path: str) -> Fault | None:
        with self._lock:
            for fault in self.faults:
                if fault.times > 0 and fault.method == method and re.search(fault.path, path):
                    fault.times -= 1
                    return fault
        return None

    def user_for(self, authorization: str) -> User | None:
        token = authorization.split(" ", 1)[-1].strip()
        return self.tokens.get(token)


def _json(raw: bytes) -> Any:
    try:
        return json.loads(raw) if raw else None
    except ValueError:
        return raw.decode("utf-8", "replace")


def _graphql(fake: FakeGitHub, authorization: str, raw: bytes) -> tuple[int, Any]:
    request = _json(raw) if raw else {}
    query = request.get("query", "") if isinstance(request, dict) else ""
    problems = graphql_api.violations(fake.schema, query)
    entry = Recorded("graphql", "POST", "/graphql", 200, problems, request)
    fake.record(entry)
    user = fake.user_for(authorization)
    if user is None:
        entry.status = 401
        return 401, {"message": "Bad credentials"}
    fault = fake.fault_for("POST", "/graphql")
    if fault is not None:
        entry.status = fault.status
        return fault.status, {"message": fault.message}
    if problems:
        return 200, {"errors": [{"message": p} for p in problems]}
    result = graphql_api.execute(fake.schema, fake.state, user, query, request.get("variables"))
    entry.violations += [e["message"] for e in result.get("errors", []) if e["type"] == "INVALID"]
    return 200, result


def _rest(
    fake: FakeGitHub, method: str, target: str, authorization: str, raw: bytes, verdict: Verdict
) -> Answer:
    if fake.answer_from_prism:
        return verdict.status, verdict.json(), {}
    user = fake.user_for(authorization)
    if user is None:
        return 401, {"message": "Bad credentials"}, {}
    split = urlsplit(target)
    fault = fake.fault_for(method, split.path)
    if fault is not None:
        return fault.status, {"message": fault.message}, fault.headers
    if method != "GET" and not user.can_write:
        return 403, FORBIDDEN, {}
    if verdict.violations:
        return 422, {"message": "Validation Failed", "errors": verdict.violations}, {}
    try:
        return _route(
            fake.state, user, method, split.path, parse_qs(split.query), _json(raw) or {}, verdict.json()
        )
    except Refused as refused:
        return refused.status, {"message": refused.message}, {}


def _route(
    state: PullRequestState,
    user: User,
    method: str,
    path: str,
    query: dict[str, list[str]],
    body: Any,
    example: Any,
) -> tuple[int, Any, dict[str, str]]:
    rest = REPO.sub("", path)
    number = str(state.number)
    page, size = int(query.get("page", ["1"])[0]), int(query.get("per_page", ["30"])[0])
    if rest == f"issues/{number}/comments" and method == "GET":
        items = sorted(state.issue_comments.values(), key=lambda c: c.id)
        return 200, [_issue_comment(example[0], c) for c in items[(page - 1) * size : page * size]], {}
    if rest == f"issues/{number}/comments" and method == "POST":
        return 201, _issue_comment(example, state.add_issue_comment(user, body["body"])), {}
    if (match := re.fullmatch(r"issues/comments/(\d+)", rest)) and method == "PATCH":
        comment = state.issue_comments.get(int(match.group(1)))
        if comment is None:
            raise Refused(404, "Not Found")
        comment.body = body["body"]  # GitHub lets a writer edit anyone's comment: the client must not
        return 200, _issue_comment(example, comment), {}
    if rest == f"pulls/{number}/reviews" and method == "POST":
        review = state.add_review(
            user,
            body.get("body", ""),
            body.get("event", "COMMENT"),
            body.get("commit_id", ""),
            body.get("comments", []),
        )
        return 200, _review(example, review), {}
    if rest == f"pulls/{number}/reviews" and method == "GET":
        items = sorted(state.reviews.values(), key=lambda r: r.id)
        return 200, [_review(example[0], r) for r in items[(page - 1) * size : page * size]], {}
    if (match := re.fullmatch(rf"pulls/{number}/reviews/(\d+)/dismissals", rest)) and method == "PUT":
        review = state.reviews.get(int(match.group(1)))
        if review is None:
            raise Refused(404, "Not Found")
        review.state = "DISMISSED"
        return 200, _review(example, review), {}
    if (match := re.fullmatch(rf"pulls/{number}/comments/(\d+)/replies", rest)) and method == "POST":
        reply = state.add_reply(user, int(match.group(1)), body["body"])
        out = copy.deepcopy(example)
        out.update(
            id=reply.id, body=reply.body, user=_user(example["user"], user), in_reply_to_id=reply.in_reply_to
        )
        return 201, out, {}
    raise Refused(404, f"the fake does not serve {method} {path}")


def _user(template: dict[str, Any], user: User) -> dict[str, Any]:
    out = copy.deepcopy(template)
    out.update(login=user.login, id=user.id, type=user.type, node_id=f"U_{user.id}")
    return out


def _issue_comment(template: dict[str, Any], comment: Any) -> dict[str, Any]:
    out = copy.deepcopy(template)
    out.update(
        id=comment.id,
        node_id=f"IC_{comment.id}",
        body=comment.body,
        user=_user(template["user"], comment.user),
        html_url=f"https://github.com/o/r/pull/1#issuecomment-{comment.id}",
    )
    return out


def _review(template: dict[str, Any], review: Any) -> dict[str, Any]:
    out = copy.deepcopy(template)
    out.update(
        id=review.id,
        node_id=f"PRR_{review.id}",
        body=review.body,
        state=review.state,
        commit_id=review.commit_id,
        user=_user(template["user"], review.user),
    )
    return out
