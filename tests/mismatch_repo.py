"""A small repository whose PR branch trips each of the three mismatch rules once (app.py)."""

from __future__ import annotations

from pathlib import Path

from tests.gitrepo import GitRepo

SERVICE = """\
class Client:
    def fetch(self, key):
        return key

    def name(self):
        return "client"

    def handle(self, request):
        return request
"""
SERVICE_CHANGED = """\
class Client:
    async def fetch(self, key):
        return key

    @property
    def name(self):
        return "client"

    def handle(self, request, context):
        return request
"""
APP = """\
from pkg.service import Client


class Local(Client):
    def handle(self, request):
        return request


async def main(client: Client):
    client.fetch(1)
    return client.name()
"""


def mismatch_repo(root: Path) -> GitRepo:
    repo = GitRepo(root)
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/service.py", SERVICE)
    repo.write("app.py", APP)
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("pkg/service.py", SERVICE_CHANGED)
    repo.commit("fetch becomes async, name a property, handle takes a context")
    return repo
