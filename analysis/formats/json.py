"""`--format json`: the Report contract of DESIGN.md, plus the ids of dismissed findings."""

from __future__ import annotations

import json
from typing import Any

from prscope.analysis.formats.common import RenderContext, finding_id, safe
from prscope.analysis.report import Report


def report_dict(report: Report, context: RenderContext) -> dict[str, Any]:
    data = report.model_dump(mode="json")
    for finding in data["findings"]:
        finding["title"] = safe(finding["title"])
        finding["message"] = safe(finding["message"])
        if finding.get("suggestion"):
            finding["suggestion"]["replacement"] = safe(finding["suggestion"]["replacement"])
        for related in finding.get("related", []):
            related["message"] = safe(related["message"])
    data["errors"] = [safe(error) for error in data["errors"]]
    data["dismissed"] = sorted({finding_id(f, context) for f in report.findings if context.is_dismissed(f)})
    return data


def render_json(report: Report, context: RenderContext) -> str:
    return json.dumps(report_dict(report, context), indent=2, ensure_ascii=False) + "\n"
