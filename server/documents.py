"""The findings shown on each document: one set per document, merged by finding id.

A review's findings and quick analyses' findings are kept apart (a new review replaces the quick results
of the files it covers), but a document shows each finding once: where a quick analysis found what the
review found on the same line, the review's finding is shown.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from prscope.server.tracking import Placed

Update = Callable[[list["Placed"]], list["Placed"]]
Follow = Callable[[list["Placed"]], tuple[list["Placed"], list["Placed"]]]
"""Findings -> (those still on their text, those whose text is gone, where it was)."""


@dataclass
class DocumentFindings:
    review: dict[str, list[Placed]] = field(default_factory=dict)
    """URI -> the placed findings of the latest review of its folder."""
    quick: dict[str, list[Placed]] = field(default_factory=dict)
    """URI -> the placed findings of the latest quick analysis of that document."""
    lost: dict[str, list[Placed]] = field(default_factory=dict)
    """URI -> findings of either kind that an edit of the open document dropped (their anchor text
    changed), still followed so that they come back when their text does (an undo); forgotten when the
    document closes or its findings are replaced."""

    def shown(self, uri: str) -> list[Placed]:
        reviewed = self.review.get(uri, [])
        keys = {item.key for item in reviewed}
        return [*reviewed, *(item for item in self.quick.get(uri, []) if item.key not in keys)]

    def holds(self, uri: str) -> bool:
        return uri in self.review or uri in self.quick or uri in self.lost

    def replace_review(self, root_uri: str, by_uri: dict[str, list[Placed]]) -> list[str]:
        """The review findings of the folder at `root_uri` become `by_uri`; returns every URI whose
        findings may have changed, including those left with none (their diagnostics must be cleared)."""
        stale = [uri for uri in self.review if uri.startswith(root_uri)]
        for uri in stale:
            del self.review[uri]
        for uri in [uri for uri in self.lost if uri.startswith(root_uri)]:
            self._forget_lost(uri, "review")
        self.review.update({uri: items for uri, items in by_uri.items() if items})
        return sorted(set(stale) | set(by_uri))

    def add_review(self, uri: str, items: Iterable[Placed]) -> bool:
        """Adds findings to a review in progress (model findings as they are verified); True when any
        was new."""
        current = self.review.setdefault(uri, [])
        keys = {item.key for item in current}
        new = [item for item in items if item.key not in keys]
        current.extend(new)
        return bool(new)

    def replace_quick(self, uri: str, items: list[Placed]) -> None:
        self._forget_lost(uri, "quick")
        if items:
            self.quick[uri] = items
        else:
            self.quick.pop(uri, None)

    def drop_quick(self, uris: Iterable[str]) -> list[str]:
        """Forget the quick results of `uris` (a review now covers them); returns those that had any."""
        uris = list(uris)
        for uri in uris:
            self._forget_lost(uri, "quick")
        return [uri for uri in uris if self.quick.pop(uri, None) is not None]

    def update(self, uri: str, change: Update) -> bool:
        """Apply `change` to every finding of `uri`; True when what the document shows changed."""
        before = self.shown(uri)
        for table in (self.review, self.quick):
            if uri in table:
                items = change(table[uri])
                if items:
                    table[uri] = items
                else:
                    del table[uri]
        return self.shown(uri) != before

    def follow(self, uri: str, step: Follow) -> bool:
        """Apply `step` (an edit) to the findings of `uri`, shown and lost alike: those it drops are kept
        as lost, lost ones whose text is back are shown again. True when what the document shows changed."""
        before = self.shown(uri)
        lost = self.lost.pop(uri, [])
        still_lost: list[Placed] = []
        for origin, table in (("review", self.review), ("quick", self.quick)):
            items = [*table.get(uri, []), *(item for item in lost if item.origin == origin)]
            if not items:
                continue
            kept, gone = step(items)
            unique = list({item.key: item for item in reversed(kept)}.values())[::-1]
            if unique:
                table[uri] = unique
            else:
                table.pop(uri, None)
            still_lost += gone
        if still_lost:
            self.lost[uri] = still_lost
        return self.shown(uri) != before

    def forget_lost(self, uri: str) -> None:
        """The document closed: its lost findings are not followed any more."""
        self.lost.pop(uri, None)

    def _forget_lost(self, uri: str, origin: str) -> None:
        kept = [item for item in self.lost.get(uri, []) if item.origin != origin]
        if kept:
            self.lost[uri] = kept
        else:
            self.lost.pop(uri, None)

    def hide(self, finding_id: str) -> list[str]:
        """Remove every finding with this id (it was dismissed); returns the URIs that showed it."""
        for uri in list(self.lost):
            self.lost[uri] = [item for item in self.lost[uri] if item.finding.id != finding_id]
            if not self.lost[uri]:
                del self.lost[uri]
        touched: list[str] = []
        for table in (self.review, self.quick):
            for uri in list(table):
                kept = [item for item in table[uri] if item.finding.id != finding_id]
                if len(kept) != len(table[uri]):
                    touched.append(uri)
                    if kept:
                        table[uri] = kept
                    else:
                        del table[uri]
        return sorted(set(touched))
