"""The one `Finding` model every output format is fed from.

Lines are 1-based on the new side of the diff. Columns, when known, are 1-based counts of Unicode code
points; `analysis.positions` converts them for formats that count UTF-8 bytes or UTF-16 units.
"""

from __future__ import annotations

import hashlib
import re
from enum import StrEnum
from typing import Literal

from pydantic import BaseModel, Field


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"
    NOTE = "note"

    @property
    def rank(self) -> int:
        return {"error": 3, "warning": 2, "note": 1}[self.value]


class Suggestion(BaseModel):
    """A replacement for lines `start_line..end_line` (inclusive) of the finding's file."""

    start_line: int
    end_line: int
    replacement: str


class Related(BaseModel):
    path: str
    line: int
    message: str


FindingSource = Literal["check", "model"]

_WHITESPACE = re.compile(r"\s+")


def fingerprint(rule: str, path: str, anchor_line: str) -> str:
    """Stable id: survives the finding's line moving, changes when its code changes."""
    normalised = _WHITESPACE.sub(" ", anchor_line).strip()
    digest = hashlib.sha256(f"{rule}\0{path}\0{normalised}".encode()).hexdigest()
    return digest[:20]


class Finding(BaseModel):
    id: str = ""
    rule: str
    severity: Severity
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    path: str
    line: int = Field(ge=1)
    end_line: int = Field(ge=1)
    column: int | None = Field(default=None, ge=1)
    end_column: int | None = Field(default=None, ge=1)
    title: str
    message: str
    source: FindingSource
    suggestion: Suggestion | None = None
    related: list[Related] = Field(default_factory=list)

    def with_id(self, anchor_line: str) -> Finding:
        """Return a copy whose `id` is the fingerprint of `anchor_line` (the code at `line`)."""
        return self.model_copy(update={"id": fingerprint(self.rule, self.path, anchor_line)})
