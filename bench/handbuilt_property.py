"""Hand-built property-mismatch scenarios for bench/handbuilt_rules.py (history had too few cases).

Each scenario: a package, its files before, and the edits of one commit (exact text replacements in the
definition and in the callers its author fixed). Callers whose receiver is untyped are fixed too, as a
real author would; the miner marks them neutral, as it does in public history.
"""

from __future__ import annotations

from typing import Any

PROPERTY: list[dict[str, Any]] = [
    {
        "package": "p01_orders",
        "message": "Order.total becomes a property",
        "before": {
            "models.py": """
                class Order:
                    def __init__(self, lines):
                        self.lines = lines

                    def total(self):
                        return sum(price * qty for price, qty in self.lines)
            """,
            "report.py": """
                from p01_orders.models import Order


                def summary(lines):
                    order = Order(lines)
                    return f"{len(lines)} lines, {order.total()} EUR"


                def is_large(order: Order) -> bool:
                    return order.total() > 1000
            """,
        },
        "edits": {
            "models.py": [
                ("    def total(self):", "    @property\n    def total(self):"),
            ],
            "report.py": [
                (
                    '    return f"{len(lines)} lines, {order.total()} EUR"',
                    '    return f"{len(lines)} lines, {order.total} EUR"',
                ),
                ("    return order.total() > 1000", "    return order.total > 1000"),
            ],
        },
    },
    {
        "package": "p02_customers",
        "message": "Customer.full_name is cached",
        "before": {
            "customer.py": """
                import functools


                class Customer:
                    def __init__(self, first, last):
                        self.first, self.last = first, last

                    def full_name(self):
                        return f"{self.first} {self.last}"


                class VipCustomer(Customer):
                    def greeting(self):
                        return "Dear " + self.full_name()
            """,
            "mail.py": """
                from p02_customers.customer import Customer


                def salutation(customer: Customer, formal: bool) -> str:
                    name = customer.full_name()
                    return f"Dear {name}" if formal else f"Hi {customer.first}"
            """,
        },
        "edits": {
            "customer.py": [
                ("    def full_name(self):", "    @functools.cached_property\n    def full_name(self):"),
                ('        return "Dear " + self.full_name()', '        return "Dear " + self.full_name'),
            ],
            "mail.py": [
                ("    name = customer.full_name()", "    name = customer.full_name"),
            ],
        },
    },
    {
        "package": "p03_billing",
        "message": "Invoice.is_paid takes the clock into account: a method now",
        "before": {
            "invoice.py": """
                class Invoice:
                    def __init__(self, amount, paid_amount=0):
                        self.amount = amount
                        self.paid_amount = paid_amount

                    @property
                    def is_paid(self):
                        return self.paid_amount >= self.amount
            """,
            "reminders.py": """
                from p03_billing.invoice import Invoice


                def needs_reminder(invoice: Invoice) -> bool:
                    if invoice.is_paid:
                        return False
                    return invoice.amount > 0


                def open_invoices(invoices: list[Invoice]):
                    return [i for i in invoices if not i.is_paid]
            """,
        },
        "edits": {
            "invoice.py": [
                ("class Invoice:", "import time\n\n\nclass Invoice:"),
                (
                    "    def __init__(self, amount, paid_amount=0):",
                    "    def __init__(self, amount, paid_amount=0, due=None):",
                ),
                (
                    "        self.paid_amount = paid_amount\n",
                    "        self.paid_amount = paid_amount\n        self.due = due\n",
                ),
                (
                    "    @property\n    def is_paid(self):",
                    "    def is_paid(self, now=None):\n        now = now if now is not None else time.time()",
                ),
            ],
            "reminders.py": [
                ("    if invoice.is_paid:", "    if invoice.is_paid():"),
                (
                    "    return [i for i in invoices if not i.is_paid]",
                    "    return [i for i in invoices if not i.is_paid()]",
                ),
            ],
        },
    },
    {
        "package": "p04_cart",
        "message": "Cart.item_count becomes a property",
        "before": {
            "cart.py": """
                class Cart:
                    def __init__(self):
                        self.items = []

                    def item_count(self):
                        return len(self.items)
            """,
            "session.py": """
                from p04_cart.cart import Cart


                class ShopSession:
                    def __init__(self, user):
                        self.user = user
                        self.cart = Cart()

                    def badge(self):
                        count = self.cart.item_count()
                        return str(count) if count else ""
            """,
        },
        "edits": {
            "cart.py": [
                ("    def item_count(self):", "    @property\n    def item_count(self):"),
            ],
            "session.py": [
                ("        count = self.cart.item_count()", "        count = self.cart.item_count"),
            ],
        },
    },
    {
        "package": "p05_catalog",
        "message": "Product.unit_price becomes a property",
        "before": {
            "product.py": """
                from decimal import Decimal


                class Product:
                    def __init__(self, sku, cents):
                        self.sku = sku
                        self.cents = cents

                    def unit_price(self):
                        return Decimal(self.cents) / 100
            """,
            "pricing.py": """
                from p05_catalog.product import Product


                def quote(sku, cents, qty):
                    return Product(sku, cents).unit_price() * qty


                def cheapest(products):
                    return min(products, key=lambda p: p.unit_price())
            """,
        },
        "edits": {
            "product.py": [
                ("    def unit_price(self):", "    @property\n    def unit_price(self):"),
            ],
            "pricing.py": [
                (
                    "    return Product(sku, cents).unit_price() * qty",
                    "    return Product(sku, cents).unit_price * qty",
                ),
                (
                    "    return min(products, key=lambda p: p.unit_price())",
                    "    return min(products, key=lambda p: p.unit_price)",
                ),
            ],
        },
    },
    {
        "package": "p06_settings",
        "message": "Config.debug_enabled reads the environment each time: a method",
        "before": {
            "config.py": """
                import os


                class Config:
                    def __init__(self, env=None):
                        self.env = env or os.environ

                    @property
                    def debug_enabled(self):
                        return self.env.get("DEBUG") == "1"


                settings = Config()
            """,
            "app.py": """
                from p06_settings.config import settings


                def log_level():
                    return "DEBUG" if settings.debug_enabled else "INFO"
            """,
        },
        "edits": {
            "config.py": [
                ("    @property\n    def debug_enabled(self):", "    def debug_enabled(self):"),
            ],
            "app.py": [
                (
                    '    return "DEBUG" if settings.debug_enabled else "INFO"',
                    '    return "DEBUG" if settings.debug_enabled() else "INFO"',
                ),
            ],
        },
    },
    {
        "package": "p07_geometry",
        "message": "Vector.norm becomes a property",
        "before": {
            "vector.py": """
                import math


                class Vector:
                    def __init__(self, x, y):
                        self.x, self.y = x, y

                    def norm(self):
                        return math.hypot(self.x, self.y)

                    def unit(self):
                        n = self.norm()
                        return Vector(self.x / n, self.y / n)
            """,
            "physics.py": """
                from p07_geometry.vector import Vector


                def speed(velocity: Vector) -> float:
                    return velocity.norm()


                def clamp(v: Vector, limit: float) -> Vector:
                    length: float = v.norm()
                    if length <= limit:
                        return v
                    direction: Vector = v.unit()
                    return Vector(direction.x * limit, direction.y * limit)
            """,
        },
        "edits": {
            "vector.py": [
                ("    def norm(self):", "    @property\n    def norm(self):"),
                ("        n = self.norm()", "        n = self.norm"),
            ],
            "physics.py": [
                ("    return velocity.norm()", "    return velocity.norm"),
                ("    length: float = v.norm()", "    length: float = v.norm"),
            ],
        },
    },
    {
        "package": "p08_tree",
        "message": "Node.child_nodes becomes a property",
        "before": {
            "node.py": """
                class Node:
                    def __init__(self, value, kids=()):
                        self.value = value
                        self._kids = list(kids)

                    def child_nodes(self):
                        return list(self._kids)
            """,
            "walk.py": """
                from p08_tree.node import Node


                def depth(node: Node) -> int:
                    return 1 + max((depth(c) for c in node.child_nodes()), default=0)


                def leaves(node: Node):
                    kids = node.child_nodes()
                    if not kids:
                        yield node
                    for kid in kids:
                        yield from leaves(kid)
            """,
        },
        "edits": {
            "node.py": [
                ("    def child_nodes(self):", "    @property\n    def child_nodes(self):"),
            ],
            "walk.py": [
                (
                    "    return 1 + max((depth(c) for c in node.child_nodes()), default=0)",
                    "    return 1 + max((depth(c) for c in node.child_nodes), default=0)",
                ),
                ("    kids = node.child_nodes()", "    kids = node.child_nodes"),
            ],
        },
    },
    {
        "package": "p09_http",
        "message": "Reply.payload parses lazily: a method, like Response.json()",
        "before": {
            "reply.py": """
                import json


                class Reply:
                    def __init__(self, status, body):
                        self.status = status
                        self.body = body

                    @property
                    def payload(self):
                        return json.loads(self.body)
            """,
            "client.py": """
                from p09_http.reply import Reply


                def fetch_user(transport, user_id):
                    status, body = transport.get(f"/users/{user_id}")
                    reply = Reply(status, body)
                    if reply.status != 200:
                        return None
                    data = reply.payload
                    return data["name"]
            """,
        },
        "edits": {
            "reply.py": [
                ("    @property\n    def payload(self):", "    def payload(self):"),
            ],
            "client.py": [
                ("    data = reply.payload", "    data = reply.payload()"),
            ],
        },
    },
    {
        "package": "p10_pages",
        "message": "Page.heading becomes a property; subclasses use super()",
        "before": {
            "page.py": """
                class Page:
                    def __init__(self, slug):
                        self.slug = slug

                    def heading(self):
                        return self.slug.replace("-", " ").title()
            """,
            "blog.py": """
                from p10_pages.page import Page


                class BlogPost(Page):
                    def headline(self):
                        return "Blog: " + super().heading()

                    def html(self):
                        return f"<h1>{self.heading()}</h1>"
            """,
        },
        "edits": {
            "page.py": [
                ("    def heading(self):", "    @property\n    def heading(self):"),
            ],
            "blog.py": [
                ('        return "Blog: " + super().heading()', '        return "Blog: " + super().heading'),
                ('        return f"<h1>{self.heading()}</h1>"', '        return f"<h1>{self.heading}</h1>"'),
            ],
        },
    },
    {
        "package": "p11_bank",
        "message": "Account.balance becomes a property (used through the package re-export)",
        "init": """
            from p11_bank.account import Account

            __all__ = ["Account"]
        """,
        "before": {
            "account.py": """
                class Account:
                    def __init__(self, owner):
                        self.owner = owner
                        self.entries = []

                    def balance(self):
                        return sum(self.entries)
            """,
            "statements.py": """
                from p11_bank import Account


                def statement(account: Account) -> str:
                    return f"{account.owner}: {account.balance():.2f}"


                def overdrawn(accounts: list) -> list:
                    return [a for a in accounts if a.balance() < 0]
            """,
        },
        "edits": {
            "account.py": [
                ("    def balance(self):", "    @property\n    def balance(self):"),
            ],
            "statements.py": [
                (
                    '    return f"{account.owner}: {account.balance():.2f}"',
                    '    return f"{account.owner}: {account.balance:.2f}"',
                ),
                (
                    "    return [a for a in accounts if a.balance() < 0]",
                    "    return [a for a in accounts if a.balance < 0]",
                ),
            ],
        },
    },
    {
        "package": "p12_graph",
        "message": "Graph.vertex_set is computed on demand: a method",
        "before": {
            "graph.py": """
                class Graph:
                    def __init__(self, edges):
                        self.edges = list(edges)

                    @property
                    def vertex_set(self):
                        return {v for edge in self.edges for v in edge}
            """,
            "stats.py": """
                from p12_graph.graph import Graph


                def density(graph: Graph) -> float:
                    n = len(graph.vertex_set)
                    return 2 * len(graph.edges) / (n * (n - 1)) if n > 1 else 0.0


                def describe(edges):
                    graph = Graph(edges)
                    return f"{len(graph.vertex_set)} vertices, {len(graph.edges)} edges"
            """,
        },
        "edits": {
            "graph.py": [
                ("    @property\n    def vertex_set(self):", "    def vertex_set(self):"),
            ],
            "stats.py": [
                ("    n = len(graph.vertex_set)", "    n = len(graph.vertex_set())"),
                (
                    '    return f"{len(graph.vertex_set)} vertices, {len(graph.edges)} edges"',
                    '    return f"{len(graph.vertex_set())} vertices, {len(graph.edges)} edges"',
                ),
            ],
        },
    },
    {
        "package": "p13_matrix",
        "message": "Matrix.dims becomes a property",
        "before": {
            "matrix.py": """
                class Matrix:
                    def __init__(self, rows):
                        self.rows = rows

                    def dims(self):
                        return len(self.rows), len(self.rows[0]) if self.rows else 0
            """,
            "ops.py": """
                from p13_matrix.matrix import Matrix


                def multiply(a: Matrix, b: Matrix) -> Matrix:
                    if a.dims()[1] != b.dims()[0]:
                        raise ValueError("shapes do not match")
                    cols = list(zip(*b.rows))
                    return Matrix([[sum(x * y for x, y in zip(r, c)) for c in cols] for r in a.rows])
            """,
        },
        "edits": {
            "matrix.py": [
                ("    def dims(self):", "    @property\n    def dims(self):"),
            ],
            "ops.py": [
                ("    if a.dims()[1] != b.dims()[0]:", "    if a.dims[1] != b.dims[0]:"),
            ],
        },
    },
    {
        "package": "p14_jobs",
        "message": "Job.finished polls the worker: a method",
        "before": {
            "job.py": """
                class Job:
                    def __init__(self, worker):
                        self.worker = worker

                    @property
                    def finished(self):
                        return self.worker.poll() is not None
            """,
            "runner.py": """
                import time

                from p14_jobs.job import Job


                def wait(job: Job, interval=0.1):
                    while not job.finished:
                        time.sleep(interval)


                class Batch:
                    def __init__(self, jobs: list[Job]):
                        self.jobs = jobs

                    def all_done(self):
                        return all(job.finished for job in self.jobs)
            """,
        },
        "edits": {
            "job.py": [
                ("    @property\n    def finished(self):", "    def finished(self):"),
            ],
            "runner.py": [
                ("    while not job.finished:", "    while not job.finished():"),
                (
                    "        return all(job.finished for job in self.jobs)",
                    "        return all(job.finished() for job in self.jobs)",
                ),
            ],
        },
    },
    {
        "package": "p15_files",
        "message": "Upload.byte_size stats the file each time: a method",
        "before": {
            "upload.py": """
                import os


                class Upload:
                    def __init__(self, path):
                        self.path = path

                    @property
                    def byte_size(self):
                        return os.path.getsize(self.path)
            """,
            "limits.py": """
                from p15_files.upload import Upload

                MAX_BYTES = 10 * 1024 * 1024


                def too_big(upload: Upload) -> bool:
                    return upload.byte_size > MAX_BYTES


                def check(path):
                    upload = Upload(path)
                    if upload.byte_size == 0:
                        raise ValueError("empty upload")
                    return upload
            """,
        },
        "edits": {
            "upload.py": [
                ("    @property\n    def byte_size(self):", "    def byte_size(self):"),
            ],
            "limits.py": [
                ("    return upload.byte_size > MAX_BYTES", "    return upload.byte_size() > MAX_BYTES"),
                ("    if upload.byte_size == 0:", "    if upload.byte_size() == 0:"),
            ],
        },
    },
    {
        "package": "p16_auth",
        "message": "User.is_authenticated becomes a property (as Django did)",
        "before": {
            "user.py": """
                class User:
                    def __init__(self, name, token=None):
                        self.name = name
                        self.token = token

                    def is_authenticated(self):
                        return self.token is not None


                class AnonymousUser(User):
                    def __init__(self):
                        super().__init__("anonymous")
            """,
            "views.py": """
                from p16_auth.user import AnonymousUser, User


                def profile(user: User):
                    if not user.is_authenticated():
                        return "login required"
                    return f"profile of {user.name}"


                def menu(request):
                    user = request.user if request.user else AnonymousUser()
                    return ["logout"] if user.is_authenticated() else ["login"]
            """,
            "middleware.py": """
                from p16_auth.user import AnonymousUser


                def guest():
                    anonymous = AnonymousUser()
                    assert not anonymous.is_authenticated()
                    return anonymous
            """,
        },
        "edits": {
            "user.py": [
                ("    def is_authenticated(self):", "    @property\n    def is_authenticated(self):"),
            ],
            "views.py": [
                ("    if not user.is_authenticated():", "    if not user.is_authenticated:"),
                (
                    '    return ["logout"] if user.is_authenticated() else ["login"]',
                    '    return ["logout"] if user.is_authenticated else ["login"]',
                ),
            ],
            "middleware.py": [
                ("    assert not anonymous.is_authenticated()", "    assert not anonymous.is_authenticated"),
            ],
        },
    },
    {
        "package": "p17_links",
        "message": "Link.filename becomes a property (as pip did)",
        "before": {
            "link.py": """
                import posixpath
                from urllib.parse import urlsplit


                class Link:
                    def __init__(self, url):
                        self.url = url

                    def filename(self):
                        return posixpath.basename(urlsplit(self.url).path)
            """,
            "download.py": """
                import os

                from p17_links.link import Link


                def target_path(directory, url):
                    link = Link(url)
                    return os.path.join(directory, link.filename())


                class Downloader:
                    def __init__(self, link: Link):
                        self.link = link

                    def describe(self):
                        return "Downloading " + self.link.filename()
            """,
        },
        "edits": {
            "link.py": [
                ("    def filename(self):", "    @property\n    def filename(self):"),
            ],
            "download.py": [
                (
                    "    return os.path.join(directory, link.filename())",
                    "    return os.path.join(directory, link.filename)",
                ),
                (
                    '        return "Downloading " + self.link.filename()',
                    '        return "Downloading " + self.link.filename',
                ),
            ],
        },
    },
    {
        "package": "p18_timing",
        "message": "Stopwatch.elapsed_seconds becomes a property",
        "before": {
            "stopwatch.py": """
                import time


                class Stopwatch:
                    def __init__(self):
                        self.started = time.perf_counter()

                    def elapsed_seconds(self):
                        return time.perf_counter() - self.started
            """,
            "profile.py": """
                from p18_timing.stopwatch import Stopwatch


                def timed(function, *args):
                    watch = Stopwatch()
                    result = function(*args)
                    print(f"{function.__name__}: {watch.elapsed_seconds():.3f}s")
                    return result


                def report(watches: dict):
                    for name, watch in watches.items():
                        print(name, watch.elapsed_seconds())
            """,
        },
        "edits": {
            "stopwatch.py": [
                ("    def elapsed_seconds(self):", "    @property\n    def elapsed_seconds(self):"),
            ],
            "profile.py": [
                (
                    '    print(f"{function.__name__}: {watch.elapsed_seconds():.3f}s")',
                    '    print(f"{function.__name__}: {watch.elapsed_seconds:.3f}s")',
                ),
                (
                    "        print(name, watch.elapsed_seconds())",
                    "        print(name, watch.elapsed_seconds)",
                ),
            ],
        },
    },
    {
        "package": "p19_queue",
        "message": "Inbox.unread_count becomes a property; a subclass inherits it",
        "before": {
            "inbox.py": """
                class Inbox:
                    def __init__(self):
                        self.messages = []

                    def unread_count(self):
                        return sum(1 for m in self.messages if not m.read)


                class SharedInbox(Inbox):
                    def __init__(self, members):
                        super().__init__()
                        self.members = members
            """,
            "notify.py": """
                from p19_queue.inbox import SharedInbox


                def team_badge(members):
                    inbox = SharedInbox(members)
                    return inbox.unread_count() or ""


                def should_alert(inbox: SharedInbox) -> bool:
                    return inbox.unread_count() > 10
            """,
        },
        "edits": {
            "inbox.py": [
                ("    def unread_count(self):", "    @property\n    def unread_count(self):"),
            ],
            "notify.py": [
                ('    return inbox.unread_count() or ""', '    return inbox.unread_count or ""'),
                ("    return inbox.unread_count() > 10", "    return inbox.unread_count > 10"),
            ],
        },
    },
    {
        "package": "p20_render",
        "message": "Template.source_text reads the file lazily: a method",
        "before": {
            "template.py": """
                class Template:
                    def __init__(self, path, text=""):
                        self.path = path
                        self._text = text

                    @property
                    def source_text(self):
                        return self._text
            """,
            "engine.py": """
                from p20_render.template import Template


                class Engine:
                    def __init__(self):
                        self.cache: dict[str, Template] = {}

                    def render(self, template: Template, **context):
                        text = template.source_text
                        for key, value in context.items():
                            text = text.replace("{{ " + key + " }}", str(value))
                        return text

                    def size(self, path):
                        template = Template(path)
                        return len(template.source_text)
            """,
        },
        "edits": {
            "template.py": [
                ("class Template:", "from pathlib import Path\n\n\nclass Template:"),
                ('    def __init__(self, path, text=""):', "    def __init__(self, path, text=None):"),
                ("    @property\n    def source_text(self):", "    def source_text(self):"),
                (
                    "        return self._text",
                    "        if self._text is None:\n"
                    "            self._text = Path(self.path).read_text()\n"
                    "        return self._text",
                ),
            ],
            "engine.py": [
                ("        text = template.source_text", "        text = template.source_text()"),
                ("        return len(template.source_text)", "        return len(template.source_text())"),
            ],
        },
    },
]
