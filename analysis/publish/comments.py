"""The inline review comment for one finding on a line of the diff.

A deterministic check's fix is certain (it is derived from the code, not guessed), so it becomes a
GitHub ```` ```suggestion ```` block the author can commit with one click, when the comment covers
exactly the lines it replaces and masking a secret did not alter it. A model's fix is shown as code to
read, not to commit: it has not been proven. The finding's id and source go into a hidden marker on the
last line, for the next run.
"""

from __future__ import annotations

from dataclasses import dataclass

from prscope.analysis.findings import Finding
from prscope.analysis.formats.common import origin_note, shown, suggestion_phrase
from prscope.analysis.formats.markdown import (
    SEVERITY_ICON,
    Linker,
    code_block,
    code_language,
    escape_text,
    inline_code,
    place,
)
from prscope.analysis.publish.diffmap import Anchor
from prscope.analysis.publish.markers import finding_marker


@dataclass(frozen=True)
class InlineComment:
    finding: Finding
    finding_id: str
    anchor: Anchor
    body: str
    suggests: bool
    """The body has a suggestion block (a fix the author can commit from the pull request)."""


def committable_fix(finding: Finding, anchor: Anchor) -> str | None:
    """The text of a suggestion block for this finding at this anchor, or None when it has none."""
    suggestion = finding.suggestion
    if suggestion is None or finding.source != "check" or not anchor.covers_suggestion:
        return None
    masked = shown(suggestion.replacement)
    if masked != suggestion.replacement:  # committing it would write the mask into the code
        return None
    return masked.removesuffix("\n")


def inline_comment(finding: Finding, finding_id: str, anchor: Anchor, linker: Linker | None) -> InlineComment:
    body = _body(finding, finding_id, anchor, linker)
    return InlineComment(finding, finding_id, anchor, body, committable_fix(finding, anchor) is not None)


def _body(finding: Finding, finding_id: str, anchor: Anchor, linker: Linker | None) -> str:
    lines = [
        f"{SEVERITY_ICON[finding.severity]} **{finding.severity.value}** {inline_code(finding.rule)}"
        f"{origin_note(finding)}: **{escape_text(shown(finding.title))}**",
        "",
        escape_text(shown(finding.message)),
        "",
    ]
    lines += _fix(finding, anchor)
    for related in finding.related:
        where = place(related.path, related.line, related.line, linker)
        lines += [f"- related: {where} {escape_text(shown(related.message))}"]
    if finding.related:
        lines.append("")
    lines += [
        f"<sub>prscope finding {inline_code(finding_id)}: to accept it, add the id to `dismissed` in the "
        "prscope configuration.</sub>",
        finding_marker(finding_id, finding.source),
    ]
    return "\n".join(lines)


def _fix(finding: Finding, anchor: Anchor) -> list[str]:
    suggestion = finding.suggestion
    if suggestion is None:
        return []
    committable = committable_fix(finding, anchor)
    if committable is not None:
        # An empty block deletes the lines; a block holding one empty line would blank them instead.
        return [code_block(committable, "suggestion") if committable else "```suggestion\n```", ""]
    label = "Possible fix (from the model: check it before applying)" if finding.source == "model" else "Fix"
    out = [f"{label}: {suggestion_phrase(suggestion)}", ""]
    replacement = shown(suggestion.replacement).rstrip("\n")
    if replacement.strip():
        out += [code_block(replacement, code_language(finding.path)), ""]
    return out
