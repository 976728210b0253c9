"""A loopback GitLab serving the few endpoints prscope uses (the current user, a merge request's notes),
for python-gitlab, keeping notes as state.

No spec-driven mock exists for GitLab that CI can install: GitLab generates an OpenAPI description
(doc/api/openapi/openapi_v3.yaml in its repository, which does describe the notes endpoints), but it is
published in no package registry, and this machine reaches registries only. So each request is checked
here against what GitLab's Notes API documentation states (the PRIVATE-TOKEN header, the parameters and
their types, `body` required and at most 1,000,000 characters), and a request that breaks it is
recorded as a violation, which the tests assert never happens.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qs, urlsplit

from tests.loopback import JsonLoopback

NOTES = re.compile(
    r"^/api/v4/projects/(?P<project>[^/]+)/merge_requests/(?P<iid>\d+)/notes(?:/(?P<note>\d+))?$"
)
LIST_PARAMETERS = {"sort": {"asc", "desc"}, "order_by": {"created_at", "updated_at"}}
MAX_BODY = 1_000_000


@dataclass(frozen=True)
class GitLabUser:
    id: int
    username: str
    can_write: bool = True


BOT = GitLabUser(11, "project_42_bot_prscope")
READER = GitLabUser(12, "reporter-token-user", can_write=False)
OTHER = GitLabUser(13, "someone")


@dataclass
class Note:
    id: int
    author: GitLabUser
    body: str
    system: bool = False


@dataclass
class Recorded:
    method: str
    path: str
    status: int
    violations: list[str] = field(default_factory=list)


class FakeGitLab(JsonLoopback):
    def __init__(self, project: str = "42", iid: int = 5) -> None:
        super().__init__()
        self.project = project
        self.iid = iid
        self.tokens = {"glpat-bot": BOT, "glpat-reader": READER}
        self.notes: dict[int, Note] = {}
        self.recorded: list[Recorded] = []
        self._ids = itertools.count(900)

    def add_note(self, author: GitLabUser, body: str, *, system: bool = False) -> Note:
        note = Note(next(self._ids), author, body, system)
        self.notes[note.id] = note
        return note

    def invalid(self) -> list[Recorded]:
        return [r for r in self.recorded if r.violations]

    def serve(
        self, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, Any, dict[str, str]]:
        split = urlsplit(target)
        query = parse_qs(split.query)
        entry = Recorded(method, target, 0)
        self.recorded.append(entry)
        user = self.tokens.get(headers.get("private-token", ""))
        if "private-token" not in headers:
            entry.violations.append("no PRIVATE-TOKEN header")
        body = _json(raw, entry)
        status, answer, extra = self._route(method, split.path, query, body, user, entry)
        entry.status = status
        return status, answer, extra

    def _route(
        self,
        method: str,
        path: str,
        query: dict[str, list[str]],
        body: Any,
        user: GitLabUser | None,
        entry: Recorded,
    ) -> tuple[int, Any, dict[str, str]]:
        if user is None:
            return 401, {"message": "401 Unauthorized"}, {}
        if path == "/api/v4/user" and method == "GET":
            return 200, _user(user), {}
        match = NOTES.match(path)
        if match is None or match["project"] != self.project or int(match["iid"]) != self.iid:
            return 404, {"message": "404 Not found"}, {}
        if method == "GET" and match["note"] is None:
            return self._list(query, entry)
        if method not in {"POST", "PUT"}:
            return 405, {"message": "405 Method Not Allowed"}, {}
        _check_body(body, entry)
        if entry.violations:
            return 400, {"message": "400 Bad request"}, {}
        if not user.can_write:
            return 403, {"message": "403 Forbidden"}, {}
        if method == "POST" and match["note"] is None:
            return 201, _note(self.add_note(user, body["body"]), self.iid), {}
        note = self.notes.get(int(match["note"] or 0))
        if note is None:
            return 404, {"message": "404 Not found"}, {}
        if note.author != user:  # GitLab: only the author may edit a note
            return 403, {"message": "403 Forbidden"}, {}
        note.body = body["body"]
        return 200, _note(note, self.iid), {}

    def _list(self, query: dict[str, list[str]], entry: Recorded) -> tuple[int, Any, dict[str, str]]:
        for name, values in query.items():
            allowed = LIST_PARAMETERS.get(name)
            if name in {"page", "per_page"}:
                if not values[0].isdigit() or (name == "per_page" and not 1 <= int(values[0]) <= 100):
                    entry.violations.append(f"{name}={values[0]}: a positive integer (per_page at most 100)")
            elif allowed is None:
                entry.violations.append(f"unknown parameter {name}")
            elif values[0] not in allowed:
                entry.violations.append(f"{name}={values[0]}: one of {sorted(allowed)}")
        page, size = int(query.get("page", ["1"])[0]), int(query.get("per_page", ["20"])[0])
        notes = sorted(
            self.notes.values(), key=lambda n: n.id, reverse=query.get("sort", ["desc"])[0] == "desc"
        )
        chunk = notes[(page - 1) * size : page * size]
        headers = {"X-Page": str(page), "X-Per-Page": str(size), "X-Total": str(len(notes))}
        if page * size < len(notes):
            headers["X-Next-Page"] = str(page + 1)
            headers["Link"] = (
                f'<{self.url}{entry.path.split("?")[0]}?page={page + 1}&per_page={size}>; rel="next"'
            )
        return 200, [_note(n, self.iid) for n in chunk], headers


def _json(raw: bytes, entry: Recorded) -> Any:
    if not raw:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        entry.violations.append("the body is not JSON")
        return None


def _check_body(body: Any, entry: Recorded) -> None:
    if not isinstance(body, dict) or not isinstance(body.get("body"), str):
        entry.violations.append("`body` (string) is required")
    elif not 1 <= len(body["body"]) <= MAX_BODY:
        entry.violations.append(f"`body` must have 1 to {MAX_BODY} characters")
    elif set(body) - {"body", "confidential", "internal", "created_at", "merge_request_diff_head_sha"}:
        entry.violations.append(f"unknown attributes {sorted(set(body) - {'body'})}")


def _user(user: GitLabUser) -> dict[str, Any]:
    return {"id": user.id, "username": user.username, "name": user.username, "state": "active", "bot": True}


def _note(note: Note, iid: int) -> dict[str, Any]:
    return {
        "id": note.id,
        "type": None,
        "body": note.body,
        "author": _user(note.author),
        "created_at": "2026-11-26T12:00:00.000Z",
        "updated_at": "2026-11-26T12:00:00.000Z",
        "system": note.system,
        "noteable_id": 77,
        "noteable_type": "MergeRequest",
        "noteable_iid": iid,
        "resolvable": False,
        "confidential": False,
        "internal": False,
    }
