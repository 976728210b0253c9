"""What the code-intelligence engine answers with: definitions, references and usage results."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

DefinitionKind = Literal["function", "method", "class", "variable", "module"]
ReferenceKind = Literal["import", "call", "attribute", "name", "decorator", "annotation", "definition"]
Confidence = Literal["exact", "probable"]


class Definition(BaseModel):
    path: str
    line: int
    end_line: int
    col: int
    kind: DefinitionKind
    qualname: str
    name: str
    signature: str = ""
    doc_head: str = ""


class Reference(BaseModel):
    path: str
    line: int = Field(description="1-based line number")
    col: int = Field(description="1-based column, in code points")
    end_col: int = Field(description="1-based column just past the name, in code points")
    text: str = Field(description="the whole source line, without its line break")
    kind: ReferenceKind
    confidence: Confidence = "exact"
    note: str = ""

    def sort_key(self) -> tuple[str, int, int]:
        return (self.path, self.line, self.col)


class UsageResult(BaseModel):
    target: str
    references: list[Reference] = Field(default_factory=list)
    files_scanned: int = 0
    candidate_files: int = 0
    note: str = ""
    definitions: list[Definition] = Field(default_factory=list)
    skipped_files: list[str] = Field(
        default_factory=list, description="candidate files that could not be parsed (syntax errors)"
    )

    @property
    def exact(self) -> list[Reference]:
        return [r for r in self.references if r.confidence == "exact"]

    @property
    def probable(self) -> list[Reference]:
        return [r for r in self.references if r.confidence == "probable"]

    def by_path(self) -> dict[str, list[Reference]]:
        grouped: dict[str, list[Reference]] = {}
        for reference in self.references:
            grouped.setdefault(reference.path, []).append(reference)
        return grouped
