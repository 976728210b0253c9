"""Every output format, each rendered from the one Report (and the few source lines findings point at).

`render(report, fmt, context)` returns the text to write; it never decides exit codes or prints.
"""

from __future__ import annotations

from prscope.analysis.formats.common import FORMATS, Format, RenderContext, status_line
from prscope.analysis.report import Report


def render(report: Report, fmt: Format, context: RenderContext | None = None) -> str:
    context = context or RenderContext()
    if fmt == "text":
        from prscope.analysis.formats.text import render_text

        return render_text(report, context)
    if fmt == "json":
        from prscope.analysis.formats.json import render_json

        return render_json(report, context)
    if fmt == "sarif":
        from prscope.analysis.formats.sarif import render_sarif

        return render_sarif(report, context)
    if fmt == "rdjsonl":
        from prscope.analysis.formats.rdjsonl import render_rdjsonl

        return render_rdjsonl(report, context)
    if fmt == "markdown":
        from prscope.analysis.formats.markdown import render_markdown

        return render_markdown(report, context)
    if fmt == "github":
        from prscope.analysis.formats.github import render_github

        return render_github(report, context)
    if fmt == "codequality":
        from prscope.analysis.formats.codequality import render_codequality

        return render_codequality(report, context)
    raise ValueError(f"unknown format {fmt!r}")


__all__ = ["FORMATS", "Format", "RenderContext", "render", "status_line"]
