"""Prompt templates, stored as Markdown files beside this module.

Each template's first line is `<!-- version: N -->`; the version is part of cache keys so that a changed
prompt never serves a stale cached result.
"""

from __future__ import annotations

import re
import string
from functools import cache
from importlib import resources

_VERSION_LINE = re.compile(r"^<!--\s*version:\s*(\d+)\s*-->\s*\n")


class PromptTemplate:
    def __init__(self, name: str, version: int, body: str) -> None:
        self.name = name
        self.version = version
        self.body = body

    def render(self, **values: str) -> str:
        """Fill `$name` placeholders; a missing value is an error, not a silent blank."""
        return string.Template(self.body).substitute(values)


@cache
def load(name: str) -> PromptTemplate:
    """Load `prompts/<name>.md`."""
    text = resources.files(__package__).joinpath(f"{name}.md").read_text(encoding="utf-8")
    match = _VERSION_LINE.match(text)
    if match is None:
        raise ValueError(f"prompt {name!r} has no '<!-- version: N -->' first line")
    return PromptTemplate(name, int(match.group(1)), text[match.end() :])


def versions() -> dict[str, int]:
    """Every template's version by name: what a cache key must change with."""
    names = sorted(
        entry.name.removesuffix(".md")
        for entry in resources.files(__package__).iterdir()
        if entry.name.endswith(".md")
    )
    return {name: load(name).version for name in names}
