"""Hand-built async-mismatch scenarios for bench/handbuilt_rules.py (history had too few cases).

Shapes from the mined commits (anyio 3 turning coroutine methods into plain ones, httpx's
`load_ssl_context`, trio's `bind`) and from everyday asyncio code. Each scenario: a package, its files
before, and the edits of one commit (exact text replacements in the definition and in the callers its
author fixed, including callers the miner cannot type, which it marks neutral).
"""

from __future__ import annotations

from typing import Any

ASYNC: list[dict[str, Any]] = [
    {
        "package": "a01_users",
        "message": "load_member talks to the database asynchronously",
        "before": {
            "repo.py": """
                def load_member(user_id):
                    return {"id": user_id, "name": f"user{user_id}"}
            """,
            "views.py": """
                import asyncio

                from a01_users.repo import load_member


                async def profile(user_id):
                    user = load_member(user_id)
                    return {"name": user["name"]}


                async def team(ids):
                    members = [load_member(i) for i in ids]
                    return [m["name"] for m in members]
            """,
        },
        "edits": {
            "repo.py": [("def load_member(user_id):", "async def load_member(user_id):")],
            "views.py": [
                ("    user = load_member(user_id)", "    user = await load_member(user_id)"),
                (
                    "    members = [load_member(i) for i in ids]",
                    "    members = await asyncio.gather(*[load_member(i) for i in ids])",
                ),
            ],
        },
    },
    {
        "package": "a02_store",
        "message": "KeyStore.load becomes a coroutine; the sync CLI runs it",
        "before": {
            "store.py": """
                class KeyStore:
                    def __init__(self, path):
                        self.path = path

                    def load(self, key):
                        with open(self.path) as handle:
                            return dict(line.split("=", 1) for line in handle).get(key)
            """,
            "cli.py": """
                import sys

                from a02_store.store import KeyStore


                def main(argv=None):
                    argv = argv or sys.argv[1:]
                    store = KeyStore(argv[0])
                    value = store.load(argv[1])
                    print(value if value is not None else "missing")
            """,
        },
        "edits": {
            "store.py": [("    def load(self, key):", "    async def load(self, key):")],
            "cli.py": [
                ("import sys\n", "import asyncio\nimport sys\n"),
                ("    value = store.load(argv[1])", "    value = asyncio.run(store.load(argv[1]))"),
            ],
        },
    },
    {
        "package": "a03_sync",
        "message": "Flag.set no longer needs to be awaited (as anyio 3 did for Event.set)",
        "before": {
            "flag.py": """
                class Flag:
                    def __init__(self):
                        self._set = False
                        self._waiters = []

                    async def set(self):
                        self._set = True
                        for waiter in self._waiters:
                            waiter.set_result(None)

                    def is_set(self):
                        return self._set
            """,
            "worker.py": """
                from a03_sync.flag import Flag


                async def shutdown(done: Flag):
                    await done.set()


                async def run_once(task):
                    finished = Flag()
                    await task()
                    await finished.set()
                    return finished
            """,
        },
        "edits": {
            "flag.py": [("    async def set(self):", "    def set(self):")],
            "worker.py": [
                ("    await done.set()", "    done.set()"),
                ("    await finished.set()", "    finished.set()"),
            ],
        },
    },
    {
        "package": "a04_clock",
        "message": "current_millis is a plain function now (re-exported by the package)",
        "init": """
            from a04_clock.clock import current_millis

            __all__ = ["current_millis"]
        """,
        "before": {
            "clock.py": """
                import time


                async def current_millis():
                    return int(time.monotonic() * 1000)
            """,
            "timeouts.py": """
                from a04_clock import current_millis


                async def deadline_after(ms):
                    now = await current_millis()
                    return now + ms


                async def expired(deadline):
                    return await current_millis() >= deadline
            """,
        },
        "edits": {
            "clock.py": [("async def current_millis():", "def current_millis():")],
            "timeouts.py": [
                ("    now = await current_millis()", "    now = current_millis()"),
                ("    return await current_millis() >= deadline", "    return current_millis() >= deadline"),
            ],
        },
    },
    {
        "package": "a05_client",
        "message": "Client.connect is async; the blocking helper drives the loop",
        "before": {
            "client.py": """
                import socket


                class Client:
                    def __init__(self, host, port):
                        self.address = (host, port)
                        self.sock = None

                    def connect(self):
                        self.sock = socket.create_connection(self.address)
                        return self
            """,
            "blocking.py": """
                import asyncio

                from a05_client.client import Client


                def open_client(host, port, loop=None):
                    loop = loop or asyncio.new_event_loop()
                    client = Client(host, port)
                    client.connect()
                    return client
            """,
        },
        "edits": {
            "client.py": [
                ("import socket\n", "import asyncio\n"),
                (
                    "    def connect(self):\n        self.sock = socket.create_connection(self.address)",
                    "    async def connect(self):\n"
                    "        self.sock = await asyncio.open_connection(*self.address)",
                ),
            ],
            "blocking.py": [("    client.connect()", "    loop.run_until_complete(client.connect())")],
        },
    },
    {
        "package": "a06_conn",
        "message": "Connection.close waits for the peer: async",
        "before": {
            "conn.py": """
                class Connection:
                    def __init__(self, transport):
                        self.transport = transport

                    def close(self):
                        self.transport.close()
            """,
            "handler.py": """
                from a06_conn.conn import Connection


                async def handle(conn: Connection, payload):
                    try:
                        return payload.upper()
                    finally:
                        conn.close()


                async def reject(conn: Connection):
                    conn.close()
                    return False
            """,
        },
        "edits": {
            "conn.py": [
                (
                    "    def close(self):\n        self.transport.close()",
                    "    async def close(self):\n        self.transport.close()\n"
                    "        await self.transport.wait_closed()",
                )
            ],
            "handler.py": [
                ("        conn.close()", "        await conn.close()"),
                ("    conn.close()\n    return False", "    await conn.close()\n    return False"),
            ],
        },
    },
    {
        "package": "a07_cache",
        "message": "RemoteCache.contains is async",
        "before": {
            "cache.py": """
                class RemoteCache:
                    def __init__(self, backend):
                        self.backend = backend

                    def contains(self, key):
                        return key in self.backend
            """,
            "service.py": """
                from a07_cache.cache import RemoteCache


                class Service:
                    def __init__(self, backend):
                        self.cache = RemoteCache(backend)

                    async def lookup(self, key, compute):
                        if self.cache.contains(key):
                            return self.cache.backend[key]
                        return await compute(key)
            """,
        },
        "edits": {
            "cache.py": [("    def contains(self, key):", "    async def contains(self, key):")],
            "service.py": [
                ("        if self.cache.contains(key):", "        if await self.cache.contains(key):")
            ],
        },
    },
    {
        "package": "a08_repo",
        "message": "Repository.all_rows is async",
        "before": {
            "repository.py": """
                class Repository:
                    def __init__(self, rows):
                        self._rows = rows

                    def all_rows(self):
                        return list(self._rows)
            """,
            "reports.py": """
                from a08_repo.repository import Repository


                async def first_row(repo: Repository):
                    return repo.all_rows()[0]


                async def totals(repo: Repository):
                    total = 0
                    for row in repo.all_rows():
                        total += row["amount"]
                    return total
            """,
        },
        "edits": {
            "repository.py": [("    def all_rows(self):", "    async def all_rows(self):")],
            "reports.py": [
                ("    return repo.all_rows()[0]", "    return (await repo.all_rows())[0]"),
                ("    for row in repo.all_rows():", "    for row in await repo.all_rows():"),
            ],
        },
    },
    {
        "package": "a09_logging",
        "message": "configure_logging does not need a loop any more",
        "before": {
            "setup.py": """
                import logging


                async def configure_logging(level="INFO"):
                    logging.basicConfig(level=level)
            """,
            "main.py": """
                import asyncio

                from a09_logging.setup import configure_logging


                def main():
                    asyncio.run(configure_logging("DEBUG"))
                    print("ready")
            """,
        },
        "edits": {
            "setup.py": [("async def configure_logging(", "def configure_logging(")],
            "main.py": [('    asyncio.run(configure_logging("DEBUG"))', '    configure_logging("DEBUG")')],
        },
    },
    {
        "package": "a10_mail",
        "message": "SmtpClient.send_message is async",
        "before": {
            "smtp.py": """
                class SmtpClient:
                    def __init__(self, host):
                        self.host = host
                        self.sent = []

                    def send_message(self, to, body):
                        self.sent.append((to, body))
                        return True
            """,
            "notifier.py": """
                from a10_mail.smtp import SmtpClient


                class Notifier:
                    def __init__(self, host):
                        self.client = SmtpClient(host)

                    async def notify(self, users, text):
                        for user in users:
                            self.client.send_message(user, text)

                    async def notify_admin(self, text):
                        ok = self.client.send_message("admin@example.com", text)
                        if not ok:
                            raise RuntimeError("mail failed")
            """,
        },
        "edits": {
            "smtp.py": [
                ("    def send_message(self, to, body):", "    async def send_message(self, to, body):")
            ],
            "notifier.py": [
                (
                    "            self.client.send_message(user, text)",
                    "            await self.client.send_message(user, text)",
                ),
                (
                    '        ok = self.client.send_message("admin@example.com", text)',
                    '        ok = await self.client.send_message("admin@example.com", text)',
                ),
            ],
        },
    },
    {
        "package": "a11_config",
        "message": "load_settings reads the file asynchronously",
        "before": {
            "settings.py": """
                import json


                def load_settings(path):
                    with open(path) as handle:
                        return json.load(handle)
            """,
            "app.py": """
                from a11_config.settings import load_settings


                def settings_for(env):
                    return load_settings(f"config/{env}.json")


                async def startup(env):
                    settings = load_settings(f"config/{env}.json")
                    return settings.get("debug", False)
            """,
        },
        "edits": {
            "settings.py": [("def load_settings(path):", "async def load_settings(path):")],
            "app.py": [
                (
                    "def settings_for(env):\n    return load_settings(",
                    "async def settings_for(env):\n    return await load_settings(",
                ),
                (
                    "    settings = load_settings(f",
                    "    settings = await load_settings(f",
                ),
            ],
        },
    },
    {
        "package": "a12_http",
        "message": "HttpSession.get is async (module-level default session)",
        "before": {
            "session.py": """
                class HttpSession:
                    def __init__(self, base_url=""):
                        self.base_url = base_url

                    def get(self, path):
                        return {"url": self.base_url + path, "status": 200}


                default_session = HttpSession()
            """,
            "health.py": """
                from a12_http.session import default_session


                async def ping():
                    reply = default_session.get("/health")
                    return reply["status"] == 200
            """,
        },
        "edits": {
            "session.py": [("    def get(self, path):", "    async def get(self, path):")],
            "health.py": [
                (
                    '    reply = default_session.get("/health")',
                    '    reply = await default_session.get("/health")',
                )
            ],
        },
    },
    {
        "package": "a13_buffer",
        "message": "Buffer.flush no longer awaits anything",
        "before": {
            "buffer.py": """
                class Buffer:
                    def __init__(self, sink):
                        self.sink = sink
                        self.items = []

                    async def flush(self):
                        self.sink.extend(self.items)
                        self.items.clear()


                class LineBuffer(Buffer):
                    async def write_line(self, line):
                        self.items.append(line + "\\n")
                        if len(self.items) > 100:
                            await self.flush()
            """,
            "export.py": """
                from a13_buffer.buffer import LineBuffer


                async def export(rows, sink):
                    buffer = LineBuffer(sink)
                    for row in rows:
                        await buffer.write_line(",".join(row))
                    await buffer.flush()
            """,
        },
        "edits": {
            "buffer.py": [
                ("    async def flush(self):", "    def flush(self):"),
                ("            await self.flush()", "            self.flush()"),
            ],
            "export.py": [("    await buffer.flush()", "    buffer.flush()")],
        },
    },
    {
        "package": "a14_ssl",
        "message": "TlsConfig.build_context is a plain function (as httpx did for load_ssl_context)",
        "before": {
            "tls.py": """
                import ssl


                class TlsConfig:
                    def __init__(self, verify=True):
                        self.verify = verify

                    async def build_context(self):
                        context = ssl.create_default_context()
                        if not self.verify:
                            context.check_hostname = False
                            context.verify_mode = ssl.CERT_NONE
                        return context
            """,
            "connect.py": """
                from a14_ssl import tls


                async def secure(verify):
                    config = tls.TlsConfig(verify)
                    context = await config.build_context()
                    return context.verify_mode
            """,
        },
        "edits": {
            "tls.py": [("    async def build_context(self):", "    def build_context(self):")],
            "connect.py": [
                ("    context = await config.build_context()", "    context = config.build_context()")
            ],
        },
    },
    {
        "package": "a15_tasks",
        "message": "schedule_cleanup is async; the sync caller returns the coroutine to its awaiting caller",
        "before": {
            "jobs.py": """
                def schedule_cleanup(queue, older_than):
                    removed = [job for job in queue if job.age > older_than]
                    for job in removed:
                        queue.remove(job)
                    return len(removed)
            """,
            "maintenance.py": """
                from a15_tasks.jobs import schedule_cleanup


                def nightly(queue):
                    count = schedule_cleanup(queue, 86400)
                    return f"removed {count} jobs"


                async def on_demand(queue, seconds):
                    schedule_cleanup(queue, seconds)
            """,
        },
        "edits": {
            "jobs.py": [
                ("def schedule_cleanup(queue, older_than):", "async def schedule_cleanup(queue, older_than):")
            ],
            "maintenance.py": [
                (
                    "def nightly(queue):\n    count = schedule_cleanup(",
                    "async def nightly(queue):\n    count = await schedule_cleanup(",
                ),
                ("    schedule_cleanup(queue, seconds)", "    await schedule_cleanup(queue, seconds)"),
            ],
        },
    },
]
