"""A bounded cache that forgets the least recently used entry first: the index, the checks and the
inference keep scans, trees and answers for a whole review, and memory must stay bounded on huge
repositories."""

from __future__ import annotations

from collections import OrderedDict
from typing import Generic, TypeVar

K = TypeVar("K")
V = TypeVar("V")


class Lru(Generic[K, V]):
    """Not locked: an owner sharing one between threads holds its own lock around each call."""

    def __init__(self, limit: int) -> None:
        self._entries: OrderedDict[K, V] = OrderedDict()
        self._limit = limit

    def __contains__(self, key: object) -> bool:
        return key in self._entries

    def __len__(self) -> int:
        return len(self._entries)

    def recall(self, key: K) -> V:
        """The entry (KeyError when absent), now the most recently used."""
        self._entries.move_to_end(key)
        return self._entries[key]

    def get(self, key: K) -> V | None:
        """The entry, now the most recently used; None when absent (for caches that never hold None)."""
        return self.recall(key) if key in self._entries else None

    def put(self, key: K, value: V) -> None:
        """Insert or replace as the most recently used; the least recently used beyond the limit go."""
        self._entries[key] = value
        self._entries.move_to_end(key)
        while len(self._entries) > self._limit:
            self._entries.popitem(last=False)
