"""High-confidence secret patterns, and masking so a detected secret never reaches any output.

Only formats with a distinctive prefix and a fixed shape are matched: a generic "long random string"
rule would flood reviews with hashes and test fixtures. `mask_secrets` is the one place that hides a
secret; every title, message, anchor line and displayed code line of a `secret` finding goes through it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class SecretPattern:
    kind: str
    regex: re.Pattern[str]
    visible_prefix: int
    """How many leading characters are the format's public prefix (kept when masking)."""


def _pattern(kind: str, regex: str, visible_prefix: int) -> SecretPattern:
    return SecretPattern(kind=kind, regex=re.compile(regex), visible_prefix=visible_prefix)


PATTERNS: tuple[SecretPattern, ...] = (
    _pattern(
        "private key",
        r"-----BEGIN (?:RSA |DSA |EC |OPENSSH |ENCRYPTED |PGP |SSH2 ENCRYPTED )?PRIVATE KEY(?: BLOCK)?-----",
        0,
    ),
    _pattern("AWS access key id", r"(?<![A-Z0-9])(?:AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}(?![A-Za-z0-9])", 4),
    _pattern("GitHub token", r"(?<![A-Za-z0-9_])gh[pousr]_[A-Za-z0-9]{36}(?![A-Za-z0-9_])", 4),
    _pattern(
        "GitHub fine-grained token",
        r"(?<![A-Za-z0-9_])github_pat_[A-Za-z0-9]{22}_[A-Za-z0-9]{59}(?![A-Za-z0-9_])",
        11,
    ),
    _pattern("Slack token", r"(?<![A-Za-z0-9])xox[abposre]-[0-9]{6,}-[0-9A-Za-z-]{10,}(?![A-Za-z0-9-])", 5),
    _pattern("Stripe live key", r"(?<![A-Za-z0-9_])[sr]k_live_[0-9A-Za-z]{24,}(?![A-Za-z0-9])", 8),
    _pattern("Google API key", r"(?<![A-Za-z0-9_-])AIza[0-9A-Za-z_-]{35}(?![A-Za-z0-9_-])", 4),
    _pattern(
        "Anthropic API key", r"(?<![A-Za-z0-9_-])sk-ant-[a-z]+[0-9]{2}-[A-Za-z0-9_-]{80,}(?![A-Za-z0-9_-])", 7
    ),
    _pattern(
        "OpenAI API key",
        r"(?<![A-Za-z0-9_-])sk-(?:proj|svcacct|admin)-[A-Za-z0-9_-]{40,}(?![A-Za-z0-9_-])",
        8,
    ),
    _pattern(
        "OpenAI API key",
        r"(?<![A-Za-z0-9_-])sk-[A-Za-z0-9]{20}T3BlbkFJ[A-Za-z0-9]{20}(?![A-Za-z0-9_-])",
        3,
    ),
)

# Documentation placeholders that have the exact shape of a real key (AWS publishes this one).
_KNOWN_EXAMPLES = frozenset({"AKIAIOSFODNN7EXAMPLE"})
_MASK_CHAR = "*"


@dataclass(frozen=True)
class SecretMatch:
    kind: str
    start: int
    end: int
    """Offsets into the scanned line (code points)."""
    masked: str


def _mask(value: str, visible_prefix: int) -> str:
    if visible_prefix == 0:
        return value
    return value[:visible_prefix] + _MASK_CHAR * max(8, len(value) - visible_prefix)


def _looks_like_placeholder(value: str) -> bool:
    if value in _KNOWN_EXAMPLES or value.endswith("EXAMPLE"):
        return True
    body = value[-16:]
    # "xxxxxxxx..." / "0000..." style fillers are docs, not credentials.
    return len(set(body.lower())) <= 2


def find_secrets(line: str) -> list[SecretMatch]:
    """Every high-confidence secret in one line, left to right, without overlaps."""
    matches: list[SecretMatch] = []
    taken: list[tuple[int, int]] = []
    for pattern in PATTERNS:
        for found in pattern.regex.finditer(line):
            start, end = found.span()
            if any(start < t_end and t_start < end for t_start, t_end in taken):
                continue
            value = found.group(0)
            if pattern.visible_prefix and _looks_like_placeholder(value):
                continue
            taken.append((start, end))
            matches.append(SecretMatch(pattern.kind, start, end, _mask(value, pattern.visible_prefix)))
    matches.sort(key=lambda m: m.start)
    return matches


def mask_secrets(text: str) -> str:
    """`text` with every secret it contains masked (line by line; line endings are kept)."""
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        matches = find_secrets(line)
        for match in reversed(matches):
            line = line[: match.start] + match.masked + line[match.end :]
        out.append(line)
    return "".join(out)
