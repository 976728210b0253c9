"""Paging for list-shaped tool output: a page ends at `max_items` or at the character budget."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from prscope.analysis.tools.base import ToolError

T = TypeVar("T")


@dataclass(frozen=True)
class Page:
    rows: list[str]
    start: int  # index of the first row shown
    end: int  # index after the last row shown
    total: int

    @property
    def complete(self) -> bool:
        return self.start == 0 and self.end >= self.total

    @property
    def more(self) -> bool:
        return self.end < self.total


def take_page(rows: Sequence[str], offset: int, max_items: int, char_budget: int, noun: str) -> Page:
    """Rows from `offset`, at most `max_items` and about `char_budget` characters (always at least one)."""
    if rows and offset >= len(rows):
        raise ToolError(f"offset {offset} is past the last {noun} ({len(rows)} in all)")
    shown: list[str] = []
    used = 0
    for row in rows[offset : offset + max_items]:
        if shown and used + len(row) + 1 > char_budget:
            break
        shown.append(row)
        used += len(row) + 1
    return Page(shown, offset, offset + len(shown), len(rows))


def take_rendered_page(
    items: Sequence[T], render: Callable[[T], str], offset: int, max_items: int, char_budget: int, noun: str
) -> Page:
    """Like take_page, rendering only the items that can be on the page (results can run to thousands)."""
    if items and offset >= len(items):
        raise ToolError(f"offset {offset} is past the last {noun} ({len(items)} in all)")
    rows = [render(item) for item in items[offset : offset + max_items]]
    page = take_page(rows, 0, max_items, char_budget, noun)
    return Page(page.rows, offset, offset + len(page.rows), len(items))


def take_grouped_page(
    items: Sequence[T],
    group_of: Callable[[T], str],
    heading: Callable[[str], str],
    render: Callable[[T], str],
    offset: int,
    max_items: int,
    char_budget: int,
    noun: str,
) -> Page:
    """Like take_rendered_page for items listed under a heading per group (a file's path): headings
    count against the budget, and a page that starts inside a group repeats its heading."""
    current: list[str | None] = [None]

    def render_under_heading(item: T) -> str:
        group = group_of(item)
        if group == current[0]:
            return render(item)
        current[0] = group
        return f"{heading(group)}\n{render(item)}"

    return take_rendered_page(items, render_under_heading, offset, max_items, char_budget, noun)


def page_note(page: Page, tool: str, noun: str, narrower: str) -> str:
    """The line that says a page was cut and how to get the rest; empty when nothing is left."""
    if not page.more:
        return ""
    return (
        f"[showing {noun} {page.start + 1}-{page.end} of {page.total}; call {tool} with offset={page.end} "
        f"for more, or {narrower}]"
    )


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    return f"{count} {singular if count == 1 else plural_form or singular + 's'}"
