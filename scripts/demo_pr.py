"""The README's first command: build a small real package in a temporary git repository, open a pull request
on it that changes a function's signature but leaves one caller stale (and forgets a breakpoint()), then
review it with `prscope review --base main`, offline, exactly as a user would.

Usage: python scripts/demo_pr.py [--keep] [--format FMT]
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "Demo Author",
    "GIT_AUTHOR_EMAIL": "demo@example.com",
    "GIT_COMMITTER_NAME": "Demo Author",
    "GIT_COMMITTER_EMAIL": "demo@example.com",
    "GIT_CONFIG_NOSYSTEM": "1",
}
MODEL_VARIABLES = ("ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY", "OPENAI_BASE_URL")

BASE_FILES = {
    "pyproject.toml": """
        [project]
        name = "shopkit"
        version = "0.3.0"
        requires-python = ">=3.11"
    """,
    "shopkit/__init__.py": """
        \"\"\"A tiny shop: prices, carts and checkout.\"\"\"

        from shopkit.pricing import apply_discount, format_price

        __all__ = ["apply_discount", "format_price"]
    """,
    "shopkit/pricing.py": """
        from decimal import ROUND_HALF_UP, Decimal


        def apply_discount(price: Decimal, percent: int) -> Decimal:
            \"\"\"The price after a percentage discount, rounded to cents.\"\"\"
            factor = Decimal(100 - percent) / Decimal(100)
            return (price * factor).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)


        def format_price(amount: Decimal) -> str:
            return f"${amount:,.2f}"
    """,
    "shopkit/cart.py": """
        from dataclasses import dataclass, field
        from decimal import Decimal

        from shopkit.pricing import apply_discount


        @dataclass
        class Item:
            name: str
            price: Decimal
            quantity: int = 1


        @dataclass
        class Cart:
            items: list[Item] = field(default_factory=list)

            def add(self, item: Item) -> None:
                self.items.append(item)

            def total(self, percent_off: int = 0) -> Decimal:
                subtotal = sum((item.price * item.quantity for item in self.items), Decimal(0))
                return apply_discount(subtotal, percent_off)
    """,
    "shopkit/checkout.py": """
        from decimal import Decimal

        from shopkit import pricing
        from shopkit.cart import Cart


        def member_price(cart: Cart) -> Decimal:
            \"\"\"Members get 10% off everything.\"\"\"
            return pricing.apply_discount(cart.total(), 10)


        def receipt(cart: Cart) -> str:
            lines = [f"{item.name} x{item.quantity}" for item in cart.items]
            lines.append(f"total: {pricing.format_price(cart.total())}")
            return "\\n".join(lines)
    """,
    "tests/test_cart.py": """
        from decimal import Decimal

        from shopkit.cart import Cart, Item


        def test_total() -> None:
            cart = Cart()
            cart.add(Item("pen", Decimal("2.50"), 2))
            assert cart.total() == Decimal("5.00")
    """,
}

PR_FILES = {
    # The PR: discounts now carry the currency they are rounded in (a new required parameter).
    "shopkit/pricing.py": """
        from decimal import ROUND_HALF_UP, Decimal

        CENTS = {"USD": Decimal("0.01"), "EUR": Decimal("0.01"), "JPY": Decimal("1")}


        def apply_discount(price: Decimal, percent: int, currency: str) -> Decimal:
            \"\"\"The price after a percentage discount, rounded to the currency's smallest unit.\"\"\"
            factor = Decimal(100 - percent) / Decimal(100)
            return (price * factor).quantize(CENTS[currency], rounding=ROUND_HALF_UP)


        def format_price(amount: Decimal) -> str:
            return f"${amount:,.2f}"
    """,
    # The caller in the same area was updated... and a debugging session left a trace.
    "shopkit/cart.py": """
        from dataclasses import dataclass, field
        from decimal import Decimal

        from shopkit.pricing import apply_discount


        @dataclass
        class Item:
            name: str
            price: Decimal
            quantity: int = 1


        @dataclass
        class Cart:
            items: list[Item] = field(default_factory=list)
            currency: str = "USD"

            def add(self, item: Item) -> None:
                self.items.append(item)

            def total(self, percent_off: int = 0) -> Decimal:
                subtotal = sum((item.price * item.quantity for item in self.items), Decimal(0))
                breakpoint()
                return apply_discount(subtotal, percent_off, self.currency)
    """,
}


def _write(root: Path, files: dict[str, str]) -> None:
    for path, content in files.items():
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(content).lstrip("\n"), encoding="utf-8")


def _git(root: Path, *args: str) -> None:
    env = {**os.environ, **GIT_IDENTITY}
    subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True, text=True)


def build_repository(root: Path) -> None:
    """`main` with the package, and `feature/currency-rounding` with the pull request checked out."""
    root.mkdir(parents=True, exist_ok=True)
    _git(root, "init", "-q", "-b", "main")
    _git(root, "config", "commit.gpgsign", "false")
    _write(root, BASE_FILES)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "shopkit 0.3.0")
    _git(root, "checkout", "-q", "-b", "feature/currency-rounding")
    _write(root, PR_FILES)
    _git(root, "add", "-A")
    _git(root, "commit", "-q", "-m", "Round discounts in the cart's currency")


def prscope_command() -> list[str]:
    installed = Path(sys.executable).with_name("prscope")
    return [str(installed)] if installed.exists() else [sys.executable, "-m", "prscope"]


def review(root: Path, fmt: str) -> int:
    env = {k: v for k, v in os.environ.items() if k not in MODEL_VARIABLES}
    command = [*prscope_command(), "review", "--base", "main", "--format", fmt]
    print(f"$ cd {root}\n$ prscope review --base main --format {fmt}\n", flush=True)
    return subprocess.run(command, cwd=root, env=env, check=False).returncode


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--keep", action="store_true", help="keep the temporary repository")
    parser.add_argument("--format", default="text", help="output format to show (default: text)")
    args = parser.parse_args(argv)
    workdir = Path(tempfile.mkdtemp(prefix="prscope-demo-"))
    root = workdir / "shopkit"
    try:
        build_repository(root)
        print(
            "Built a small package in a temporary git repository. The pull request on branch\n"
            "feature/currency-rounding adds a required `currency` parameter to apply_discount() and updates\n"
            "the caller in cart.py, but not the one in checkout.py (and a breakpoint() slipped in).\n",
            flush=True,
        )
        code = review(root, args.format)
        print(f"\nprscope exited with {code}", end="")
        if code == 1:
            print(" (findings at or above --fail-on=error: a CI job would fail here, as it should).")
            return 0
        print(" — expected 1: the review should have found the stale call.")
        return 1
    finally:
        if args.keep:
            print(f"(repository kept at {root})")
        else:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
