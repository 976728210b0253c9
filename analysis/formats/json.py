"""`--format json`: the Report contract of DESIGN.md. Dismissed findings are not in `findings` (so that
`findings` is what the text report shows and what the exit code gates on); they are listed apart, in
`dismissed_findings` (each marked `"dismissed": true` with its `dismissal_reason`), and their ids in
`dismissed`."""

from __future__ import annotations

import json
from typing import Any

from prscope.analysis.formats.common import RenderContext, finding_id, safe
from prscope.analysis.report import Report


def report_dict(report: Report, context: RenderContext) -> dict[str, Any]:
    data = report.model_dump(mode="json")
    kept: list[dict[str, Any]] = []
    dismissed: list[dict[str, Any]] = []
    for finding, item in zip(report.findings, data["findings"], strict=True):
        _make_safe(item)
        if context.is_dismissed(finding):
            dismissed.append(
                {**item, "dismissed": True, "dismissal_reason": safe(context.dismissal_reason(finding))}
            )
        else:
            kept.append(item)
    data["findings"] = kept
    data["errors"] = [safe(error) for error in data["errors"]]
    data["dismissed"] = sorted({finding_id(f, context) for f in report.findings if context.is_dismissed(f)})
    data["dismissed_findings"] = dismissed
    return data


def _make_safe(finding: dict[str, Any]) -> None:
    finding["title"] = safe(finding["title"])
    finding["message"] = safe(finding["message"])
    if finding.get("suggestion"):
        finding["suggestion"]["replacement"] = safe(finding["suggestion"]["replacement"])
    for related in finding.get("related", []):
        related["message"] = safe(related["message"])


def render_json(report: Report, context: RenderContext) -> str:
    return json.dumps(report_dict(report, context), indent=2, ensure_ascii=False) + "\n"
