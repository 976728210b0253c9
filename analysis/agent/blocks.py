"""Parse an agent's reply into its `<findings>`, `<summary>` and `<answer>` blocks.

The prompts ask for one JSON object per finding, one per line, inside `<findings>`; a JSON array is
accepted too. Models drift from any format, so the parser is lenient: code fences, trailing commas,
unclosed tags, severity synonyms and percentages are tolerated, and an entry that still cannot be read
is reported in `problems` instead of raising. Nothing here ever throws on model text.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass, field
from typing import Any

from prscope.analysis.findings import Finding, Related, Severity, Suggestion
from pydantic import BaseModel, Field, ValidationError, field_validator, model_validator

BLOCK_NAMES = ("findings", "summary", "answer")
NO_SUMMARY = "(no summary)"
_MAX_PROBLEM_SNIPPET = 160

_SEVERITY_SYNONYMS = {
    "error": Severity.ERROR,
    "critical": Severity.ERROR,
    "blocker": Severity.ERROR,
    "high": Severity.ERROR,
    "major": Severity.ERROR,
    "warning": Severity.WARNING,
    "warn": Severity.WARNING,
    "medium": Severity.WARNING,
    "moderate": Severity.WARNING,
    "note": Severity.NOTE,
    "info": Severity.NOTE,
    "information": Severity.NOTE,
    "low": Severity.NOTE,
    "minor": Severity.NOTE,
    "nit": Severity.NOTE,
    "suggestion": Severity.NOTE,
}

_CONFIDENCE_WORDS = {"high": 0.9, "medium": 0.6, "low": 0.3}

_FIELD_ALIASES = {
    "file": "path",
    "filename": "path",
    "file_path": "path",
    "category": "rule",
    "kind": "rule",
    "type": "rule",
    "start_line": "line",
    "line_number": "line",
    "description": "message",
    "detail": "message",
    "details": "message",
    "explanation": "message",
    "summary": "title",
    "quote": "code",
    "code_line": "code",
    "line_text": "code",
    "snippet": "code",
}

_SLUG_JUNK = re.compile(r"[^a-z0-9]+")


class FindingCandidate(BaseModel):
    """A finding as a model reported it: not yet verified, not yet anchored to a fingerprint."""

    rule: str = "bug"
    severity: Severity = Severity.WARNING
    path: str
    line: int = Field(ge=1)
    end_line: int | None = Field(default=None, ge=1)
    title: str
    message: str = ""
    confidence: float = Field(default=0.5, ge=0.0, le=1.0)
    suggestion: Suggestion | None = None
    related: list[Related] = Field(default_factory=list)
    code: str | None = None
    """The code line the finding is about, as the model quoted it (anchors the finding)."""

    @field_validator("code", mode="before")
    @classmethod
    def _code(cls, value: Any) -> str | None:
        if value is None:
            return None
        return str(value)[:2000]

    @field_validator("rule", mode="before")
    @classmethod
    def _slug(cls, value: Any) -> str:
        slug = _SLUG_JUNK.sub("-", str(value or "bug").strip().lower()).strip("-")
        return slug or "bug"

    @field_validator("severity", mode="before")
    @classmethod
    def _severity(cls, value: Any) -> Severity:
        if isinstance(value, Severity):
            return value
        word = str(value or "warning").strip().lower()
        if word not in _SEVERITY_SYNONYMS:
            raise ValueError(f"unknown severity {value!r} (use error, warning or note)")
        return _SEVERITY_SYNONYMS[word]

    @field_validator("confidence", mode="before")
    @classmethod
    def _confidence(cls, value: Any) -> float:
        if value is None:
            return 0.5
        if isinstance(value, str):
            text = value.strip().lower()
            if text in _CONFIDENCE_WORDS:
                return _CONFIDENCE_WORDS[text]
            value = float(text.rstrip("%")) / 100 if text.endswith("%") else float(text)
        number = float(value)
        # "85" almost always means 85 %, not an out-of-range probability.
        if 1.0 < number <= 100.0:
            number /= 100.0
        return min(max(number, 0.0), 1.0)

    @field_validator("path", mode="before")
    @classmethod
    def _path(cls, value: Any) -> str:
        path = str(value or "").strip().replace("\\", "/")
        while path.startswith("./"):
            path = path[2:]
        if path.startswith(("a/", "b/")) and len(path) > 2:
            path = path[2:]  # a diff header prefix the model copied
        if not path:
            raise ValueError("path is empty")
        return path

    @field_validator("title", mode="before")
    @classmethod
    def _title(cls, value: Any) -> str:
        title = " ".join(str(value or "").split())
        if not title:
            raise ValueError("title is empty")
        return title[:200]

    @model_validator(mode="after")
    def _order_lines(self) -> FindingCandidate:
        if self.end_line is not None and self.end_line < self.line:
            self.end_line = self.line
        return self

    def to_finding(self, anchor_line: str | None = None) -> Finding:
        """The report's Finding (source "model"); `anchor_line` is the code at `line`, for the id."""
        finding = Finding(
            rule=self.rule,
            severity=self.severity,
            confidence=self.confidence,
            path=self.path,
            line=self.line,
            end_line=self.end_line or self.line,
            title=self.title,
            message=self.message or self.title,
            source="model",
            suggestion=self.suggestion,
            related=self.related,
        )
        return finding.with_id(anchor_line if anchor_line is not None else self.title)

    def short(self) -> str:
        where = f"{self.path}:{self.line}" + (
            f"-{self.end_line}" if self.end_line and self.end_line != self.line else ""
        )
        return f"[{self.severity.value}/{self.rule}] {where} {self.title} (confidence {self.confidence:.2f})"


@dataclass
class ParsedReply:
    findings: list[FindingCandidate]
    summary: str
    answer: str
    raw: str
    missing: list[str]
    problems: list[str] = field(default_factory=list)

    @property
    def findings_block_present(self) -> bool:
        return "findings" not in self.missing


def _block_pattern(name: str) -> re.Pattern[str]:
    # An unclosed block (the reply was cut off) runs to the next block tag or the end.
    return re.compile(
        rf"<{name}(?:\s[^>]*)?>(.*?)(?:</{name}\s*>|(?=<(?:{'|'.join(BLOCK_NAMES)})(?:\s[^>]*)?>)|\Z)",
        re.IGNORECASE | re.DOTALL,
    )


_PATTERNS = {name: _block_pattern(name) for name in BLOCK_NAMES}
_ANY_TAG = re.compile(rf"</?(?:{'|'.join(BLOCK_NAMES)})(?:\s[^>]*)?>", re.IGNORECASE)
_FENCE = re.compile(r"^\s*```[a-zA-Z0-9_-]*\s*$", re.MULTILINE)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_EMPTY_MARKERS = {"", "none", "[]", "no findings", "no findings.", "n/a", "(none)", "nothing found"}


def extract_blocks(text: str) -> dict[str, list[str]]:
    """Every occurrence of each block, in order; blocks that never occur are absent from the result."""
    found: dict[str, list[str]] = {}
    for name, pattern in _PATTERNS.items():
        bodies = [m.group(1).strip() for m in pattern.finditer(text)]
        if bodies:
            found[name] = bodies
    return found


def _normalise_keys(entry: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in entry.items():
        name = _FIELD_ALIASES.get(str(key).strip().lower(), str(key).strip().lower())
        out.setdefault(name, value)
    if isinstance(out.get("line"), str):
        out["line"] = _leading_int(out["line"])
    if isinstance(out.get("end_line"), str):
        out["end_line"] = _leading_int(out["end_line"])
    suggestion = out.get("suggestion")
    if isinstance(suggestion, str):
        out["suggestion"] = None  # prose advice, not a replacement: fold it into the message
        out["message"] = f"{out.get('message', '')}\nSuggestion: {suggestion}".strip()
    return out


def _leading_int(text: str) -> int | str:
    match = re.match(r"\s*L?(\d+)", text)
    return int(match.group(1)) if match else text


def _json_values(body: str) -> tuple[list[Any], list[str]]:
    """All JSON values in `body`, in order, whether one per line, an array, or pretty-printed."""
    text = _FENCE.sub("", body)
    text = _TRAILING_COMMA.sub(r"\1", text)
    decoder = json.JSONDecoder()
    values: list[Any] = []
    problems: list[str] = []
    pos = 0
    while pos < len(text):
        start = _next_json_start(text, pos)
        if start < 0:
            leftover = text[pos:].strip(" \t\r\n,")
            if leftover:
                problems.append(f"ignored text in <findings>: {_snippet(leftover)}")
            break
        skipped = text[pos:start].strip(" \t\r\n,")
        if skipped:
            problems.append(f"ignored text in <findings>: {_snippet(skipped)}")
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as err:
            line_end = text.find("\n", start)
            line_end = len(text) if line_end < 0 else line_end
            problems.append(f"unreadable finding ({err.msg}): {_snippet(text[start:line_end])}")
            pos = line_end + 1
            continue
        values.append(value)
        pos = end
    return values, problems


def _next_json_start(text: str, pos: int) -> int:
    starts = [i for i in (text.find("{", pos), text.find("[", pos)) if i >= 0]
    return min(starts) if starts else -1


def _snippet(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= _MAX_PROBLEM_SNIPPET else flat[: _MAX_PROBLEM_SNIPPET - 1] + "…"


def _describe(err: ValidationError) -> str:
    return "; ".join(
        f"{'.'.join(str(p) for p in problem['loc']) or 'entry'}: {problem['msg']}" for problem in err.errors()
    )


def parse_findings(body: str) -> tuple[list[FindingCandidate], list[str]]:
    """Findings from the body of one `<findings>` block, plus a line per entry that could not be used."""
    if body.strip().strip("`").strip().lower() in _EMPTY_MARKERS:
        return [], []
    values, problems = _json_values(body)
    entries: list[Any] = []
    for value in values:
        if isinstance(value, list):
            entries.extend(value)
        elif isinstance(value, dict) and isinstance(value.get("findings"), list):
            entries.extend(value["findings"])
        else:
            entries.append(value)
    findings: list[FindingCandidate] = []
    for entry in entries:
        if not isinstance(entry, dict):
            problems.append(f"finding is not a JSON object: {_snippet(json.dumps(entry))}")
            continue
        try:
            findings.append(FindingCandidate.model_validate(_normalise_keys(entry)))
        except ValidationError as err:
            problems.append(f"invalid finding ({_describe(err)}): {_snippet(json.dumps(entry))}")
    return findings, problems


def _strip_blocks(text: str) -> str:
    without = text
    for pattern in _PATTERNS.values():
        without = pattern.sub("", without)
    return _ANY_TAG.sub("", without).strip()


def unescape_if_escaped(text: str) -> str:
    """`text` with HTML entities decoded when its block tags only appear escaped (`&lt;findings&gt;`).

    llama-cpp-python's chatml-function-calling renders every message through an autoescaping Jinja
    template, so the model reads our `<findings>` as `&lt;findings&gt;` and may answer in kind."""
    if "&lt;" not in text or extract_blocks(text):
        return text
    unescaped = html.unescape(text)
    return unescaped if extract_blocks(unescaped) else text


def parse_blocks(text: str | None) -> ParsedReply:
    """Split a reply into its blocks. Missing blocks fall back to the raw text; never raises."""
    raw = unescape_if_escaped(text or "")
    blocks = extract_blocks(raw)
    missing = [name for name in BLOCK_NAMES if name not in blocks]
    findings: list[FindingCandidate] = []
    problems: list[str] = []
    for body in blocks.get("findings", []):
        parsed, issues = parse_findings(body)
        findings.extend(parsed)
        problems.extend(issues)
    summary = "\n\n".join(b for b in blocks.get("summary", []) if b)
    answer = "\n\n".join(b for b in blocks.get("answer", []) if b)
    if not summary:
        # The prose around the blocks (or all of it, when the model ignored the format) is the summary.
        summary = _strip_blocks(raw) or answer or NO_SUMMARY
    return ParsedReply(findings, summary, answer, raw, missing, problems)
