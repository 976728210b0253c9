"""A pull request over several pushes, and running `prscope review --post` on it the way CI does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from prscope.analysis.findings import fingerprint

from tests.githubmock.diff import pull_request_lines
from tests.githubmock.state import PullRequestState
from tests.gitrepo import GIT_ENV, GitRepo

BIN = Path(sys.executable).parent
REPOSITORY = "octo/shop"
NUMBER = 7

PRICING = """from decimal import Decimal


def apply_discount(price: Decimal, percent: int) -> Decimal:
    return price * (100 - percent) / 100


def tax(price: Decimal) -> Decimal:
    return price * Decimal("0.2")
"""

PRICING_CHANGED = """import pdb
from decimal import Decimal


def apply_discount(price: Decimal, percent: int, currency: str) -> Decimal:
    return price * (100 - percent) / 100


def tax(price: Decimal) -> Decimal:
    pdb.set_trace()
    return price * Decimal("0.2")
"""

CART = """from decimal import Decimal

from shopkit import pricing


class Cart:
    def __init__(self) -> None:
        self.prices: list[Decimal] = []

    def total(self) -> Decimal:
        return sum(self.prices, Decimal(0))

    def discounted(self) -> Decimal:
        return pricing.apply_discount(self.total(), 5)
"""

CART_PUSH_1 = CART.replace(
    "        return pricing.apply_discount(self.total(), 5)\n",
    '        breakpoint()\n        return pricing.apply_discount(self.total(), 5, "EUR")\n',
)
CART_PUSH_2 = CART.replace(
    "        return pricing.apply_discount(self.total(), 5)\n",
    '        return pricing.apply_discount(self.total(), 5, "EUR")\n',
)

CHECKOUT = """from shopkit import pricing


def checkout(cart):
    return pricing.apply_discount(cart.total(), 10)
"""

REPORT = """def report(cart):
    breakpoint()
    return str(cart.total())
"""

# The finding push 2 adds (its id is the fingerprint of its rule, file and code line).
NEW_IN_PUSH_2 = fingerprint("debug-leftover", "shopkit/report.py", "    breakpoint()")


def shop_repository(root: Path) -> GitRepo:
    """`main` with a small package, and branch `feature` at push 1: a required `currency` parameter,
    one caller updated (with a `breakpoint()` left in) and one not, and a `pdb.set_trace()`."""
    repo = GitRepo(root)
    repo.write("shopkit/__init__.py", "")
    repo.write("shopkit/pricing.py", PRICING)
    repo.write("shopkit/cart.py", CART)
    repo.write("shopkit/checkout.py", CHECKOUT)
    repo.commit("shop")
    repo.checkout("-b", "feature")
    repo.write("shopkit/pricing.py", PRICING_CHANGED)
    repo.write("shopkit/cart.py", CART_PUSH_1)
    repo.commit("push 1: prices have a currency")
    return repo


def push_2(repo: GitRepo) -> None:
    """Fixes the breakpoint() in cart.py; adds a module with a breakpoint() of its own."""
    repo.write("shopkit/cart.py", CART_PUSH_2)
    repo.write("shopkit/report.py", REPORT)
    repo.commit("push 2")


@dataclass
class PullRequestRun:
    """The pull request as GitHub Actions describes it to a job (event payload and variables)."""

    repo: GitRepo
    workdir: Path

    @property
    def base(self) -> str:
        return self.repo.git("rev-parse", "main")

    def state(self) -> PullRequestState:
        head = self.repo.head()
        return PullRequestState(NUMBER, head, pull_request_lines(self.repo.root, self.base, head))

    def sync(self, state: PullRequestState) -> None:
        """A push: GitHub's idea of the head and of the diff moves with it."""
        state.head_sha = self.repo.head()
        state.diff = pull_request_lines(self.repo.root, self.base, state.head_sha)

    def env(self, api_url: str, token: str | None = "bot-token") -> dict[str, str]:
        event = self.workdir / "event.json"
        head = self.repo.head()
        payload = {
            "action": "synchronize",
            "number": NUMBER,
            "pull_request": {
                "number": NUMBER,
                "head": {"sha": head, "ref": "feature", "repo": {"full_name": REPOSITORY}},
                "base": {"sha": self.base, "ref": "main", "repo": {"full_name": REPOSITORY}},
            },
            "repository": {"full_name": REPOSITORY},
        }
        event.write_text(json.dumps(payload), encoding="utf-8")
        dropped = ("ANTHROPIC_", "OPENAI_", "GITHUB_", "GITLAB_", "CI_", "PRSCOPE_")
        env = {k: v for k, v in os.environ.items() if not k.startswith(dropped)}
        env |= {
            **GIT_ENV,
            "PATH": f"{BIN}:{os.environ.get('PATH', '')}",
            "GITHUB_ACTIONS": "true",
            "GITHUB_EVENT_NAME": "pull_request",
            "GITHUB_EVENT_PATH": str(event),
            "GITHUB_REPOSITORY": REPOSITORY,
            "GITHUB_API_URL": api_url,
            "GITHUB_SERVER_URL": "https://github.com",
            "GITHUB_RUN_ID": "42",
        }
        if token is not None:
            env["GITHUB_TOKEN"] = token
        return env

    def review(self, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
        return self.prscope(env, "review", str(self.repo.root), "--base", "main", "--no-progress", *args)

    def prscope(self, env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(BIN / "prscope"), *args],
            cwd=self.repo.root,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
        )
