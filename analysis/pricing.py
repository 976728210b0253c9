"""Estimated cost of a model review, from the dated price table in `prices.toml`.

An estimate from list prices: no discounts, no batch pricing. A model the table does not list has no cost
(None): reports then show tokens only, never a guess.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources

from prscope.analysis.report import Usage


@dataclass(frozen=True)
class Price:
    """US dollars per million tokens."""

    input: float
    output: float
    cache_write: float | None = None
    cache_read: float | None = None


@dataclass(frozen=True)
class PriceTable:
    checked: str
    prices: dict[str, Price]

    def price_of(self, model: str | None) -> Price | None:
        if not model:
            return None
        key = model.strip().lower().replace(".", "-")
        matches = [name for name in self.prices if key == name or key.startswith(name + "-")]
        return self.prices[max(matches, key=len)] if matches else None


@cache
def price_table() -> PriceTable:
    data = tomllib.loads(
        resources.files("prscope.analysis").joinpath("prices.toml").read_text(encoding="utf-8")
    )
    prices = {name: Price(**fields) for name, fields in data.get("models", {}).items()}
    return PriceTable(checked=str(data["checked"]), prices=prices)


def cost_usd(usage: Usage, model: str | None) -> float | None:
    """The list-price cost of `usage` on `model`, in US dollars; None for a model the table lacks."""
    price = price_table().price_of(model)
    if price is None:
        return None
    dollars = usage.input_tokens * price.input + usage.output_tokens * price.output
    dollars += usage.cache_creation_input_tokens * (price.cache_write or price.input)
    dollars += usage.cache_read_input_tokens * (price.cache_read or price.input)
    return round(dollars / 1_000_000, 6)
