"""The GraphQL part of the fake: every query and mutation is validated against GitHub's published
GraphQL schema (@octokit/graphql-schema) and executed by graphql-core over the fake's state.

The schema is loaded from its introspection result with `assume_valid=True`: GitHub's schema breaks two
of graphql-core's own rules for schemas (a field defined twice in the SDL; an implementation deprecated
where its interface is not), which say nothing about whether a query is valid against it.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

from graphql import GraphQLError, GraphQLSchema, build_client_schema, graphql_sync, parse, validate

from tests.githubmock.state import PullRequestState, Refused, Thread, User

PAGE = 100


@cache
def load_schema(path: Path) -> GraphQLSchema:
    data = json.loads(path.read_text(encoding="utf-8"))
    return build_client_schema(data.get("data", data), assume_valid=True)


def violations(schema: GraphQLSchema, query: str) -> list[str]:
    try:
        document = parse(query)
    except GraphQLError as err:
        return [f"syntax: {err.message}"]
    return [error.message for error in validate(schema, document)]


def execute(
    schema: GraphQLSchema, state: PullRequestState, user: User, query: str, variables: dict[str, Any] | None
) -> dict[str, Any]:
    result = graphql_sync(schema, query, root_value=_Root(state, user), variable_values=variables)
    out: dict[str, Any] = {"data": result.data}
    if result.errors:
        out["errors"] = [_error(error) for error in result.errors]
    return out


def _error(error: GraphQLError) -> dict[str, Any]:
    original = error.original_error
    kind = "FORBIDDEN" if isinstance(original, Refused) and original.status == 403 else "INVALID"
    return {"type": kind, "path": error.path, "message": error.message}


class _Root:
    """Query and Mutation root: graphql-core calls a callable attribute with the field's arguments."""

    def __init__(self, state: PullRequestState, user: User) -> None:
        self.state = state
        self.user = user
        self.viewer = {"__typename": user.type, "login": user.login}

    def repository(self, _info: Any, owner: str, name: str, **_: Any) -> dict[str, Any]:
        return {
            "__typename": "Repository",
            "nameWithOwner": f"{owner}/{name}",
            "pullRequest": self._pull_request,
        }

    def _pull_request(self, _info: Any, number: int) -> dict[str, Any] | None:
        if number != self.state.number:
            return None
        return {"__typename": "PullRequest", "number": number, "reviewThreads": self._threads}

    def _threads(
        self, _info: Any, first: int | None = None, after: str | None = None, **_: Any
    ) -> dict[str, Any]:
        with self.state.lock:
            threads = list(self.state.threads.values())
        start = int(after) if after else 0
        size = min(first or PAGE, PAGE)
        page = threads[start : start + size]
        more = start + size < len(threads)
        return {
            "totalCount": len(threads),
            "nodes": [self._thread(t) for t in page],
            "pageInfo": {"hasNextPage": more, "endCursor": str(start + size) if more else None},
        }

    def _thread(self, thread: Thread) -> dict[str, Any]:
        def comments(_info: Any, first: int | None = None, **_: Any) -> dict[str, Any]:
            wanted = thread.comment_ids[: first or PAGE]
            return {"nodes": [self._comment(i) for i in wanted], "totalCount": len(thread.comment_ids)}

        return {
            "__typename": "PullRequestReviewThread",
            "id": thread.node_id,
            "isResolved": thread.resolved,
            "comments": comments,
        }

    def _comment(self, comment_id: int) -> dict[str, Any]:
        comment = self.state.review_comments[comment_id]
        author = {"__typename": comment.user.type, "login": comment.user.graphql_login}
        return {
            "__typename": "PullRequestReviewComment",
            "databaseId": comment.id,
            "body": comment.body,
            "author": author,
        }

    def resolveReviewThread(self, _info: Any, input: dict[str, Any]) -> dict[str, Any]:
        if not self.user.can_write:
            raise Refused(403, "Resource not accessible by integration")
        with self.state.lock:
            thread = self.state.threads.get(str(input.get("threadId")))
            if thread is None:
                raise Refused(
                    404, f"Could not resolve to a node with the global id of '{input.get('threadId')}'"
                )
            thread.resolved = True
        return {"clientMutationId": input.get("clientMutationId"), "thread": self._thread(thread)}
