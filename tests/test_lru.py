"""The bounded cache every index and check cache shares."""

from __future__ import annotations

import pytest
from prscope.analysis.intel.lru import Lru


def test_the_least_recently_used_entry_goes_first() -> None:
    cache: Lru[str, int | None] = Lru(2)
    cache.put("a", 1)
    cache.put("b", None)
    assert cache.recall("a") == 1  # `a` is now newer than `b`
    cache.put("c", 3)
    assert ("a" in cache, "b" in cache, "c" in cache, len(cache)) == (True, False, True, 2)
    assert cache.get("b") is None
    with pytest.raises(KeyError):
        cache.recall("b")


def test_replacing_an_entry_keeps_one_and_makes_it_the_newest() -> None:
    cache: Lru[str, int] = Lru(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    cache.put("c", 3)
    assert (cache.get("a"), cache.get("b"), cache.get("c"), len(cache)) == (10, None, 3, 2)
