"""Renders what `prscope review --post github` posts on the demo's pull request (the README demo:
`scripts/demo_pr.py`) and screenshots it in a real browser, for the README: docs/pr-review.png.

The Markdown is exactly what prscope would post (built offline, no request is sent); it is turned into
HTML by markdown-it-py and styled with GitHub's own Markdown stylesheet (the npm package
github-markdown-css, installed into ~/.cache/prscope-docs, never into the repository), inside a plain
frame that stands for GitHub's comment boxes. Headless Chromium (Debian's) takes the picture.

Usage: python scripts/pr_screenshot.py [--output docs/pr-review.png] [--html FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import html
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from markdown_it import MarkdownIt
from prscope.analysis.changeset import DiffSpec
from prscope.analysis.formats.common import RenderContext
from prscope.analysis.publish.publication import build_publication
from prscope.analysis.publish.target import PullRequest
from prscope.analysis.review import ReviewRequest, run_review

ROOT = Path(__file__).resolve().parents[1]
CSS_VERSION = "5.9.0"
CACHE = Path.home() / ".cache" / "prscope-docs"
WIDTH = 900

PAGE = """<!doctype html>
<html><head><meta charset="utf-8"><style>
{css}
body {{ margin: 0; background: #fff; font-family: -apple-system, "Segoe UI", "Noto Sans", Helvetica, Arial,
  sans-serif; }}
.page {{ width: {width}px; padding: 16px 20px; box-sizing: border-box; }}
.box {{ border: 1px solid #d1d9e0; border-radius: 6px; margin: 0 0 16px; overflow: hidden; }}
.head {{ background: #f6f8fa; border-bottom: 1px solid #d1d9e0; padding: 8px 16px; font-size: 14px;
  color: #59636e; }}
.head b {{ color: #1f2328; }} .bot {{ border: 1px solid #d1d9e0; border-radius: 2em; padding: 0 6px;
  font-size: 12px; margin: 0 4px; }}
.markdown-body {{ padding: 16px; font-size: 14px; }}
.file {{ font-family: ui-monospace, monospace; font-size: 12px; padding: 6px 16px; background: #f6f8fa;
  border-bottom: 1px solid #d1d9e0; }}
.code {{ font-family: ui-monospace, monospace; font-size: 12px; white-space: pre; padding: 2px 16px;
  background: #dafbe1; border-bottom: 1px solid #d1d9e0; }}
.suggested {{ font-size: 12px; font-weight: 600; color: #59636e; margin-bottom: 4px; }}
.removed {{ font-family: ui-monospace, monospace; font-size: 12px; white-space: pre; padding: 4px 8px;
  background: #ffebe9; border: 1px solid #d1d9e0; border-radius: 6px; margin-bottom: 16px; }}
.removed::before {{ content: "Suggested change"; display: block; font-family: -apple-system, "Segoe UI",
  sans-serif; font-weight: 600; color: #59636e; margin-bottom: 4px; }}
</style></head>
<body><div class="page">
<div class="box"><div class="head"><b>github-actions</b><span class="bot">bot</span> commented</div>
<article class="markdown-body">{summary}</article></div>
<div class="box"><div class="head"><b>github-actions</b><span class="bot">bot</span> reviewed:
inline comment on {where}</div>
<div class="file">{path}</div><div class="code">+{line}</div>
<article class="markdown-body">{inline}</article></div>
</div>
<script>document.title = String(document.documentElement.scrollHeight);</script>
</body></html>
"""


def _stylesheet() -> str:
    target = CACHE / f"github-markdown-css-{CSS_VERSION}"
    css = target / "node_modules" / "github-markdown-css" / "github-markdown-light.css"
    if not css.exists():
        subprocess.run(
            [
                "npm",
                "install",
                "--prefix",
                str(target),
                "--no-save",
                "--no-package-lock",
                "--loglevel=error",
                f"github-markdown-css@{CSS_VERSION}",
            ],
            check=True,
        )
    return css.read_text(encoding="utf-8")


def _markdown(text: str, removed: str = "") -> str:
    rendered = MarkdownIt("commonmark", {"html": True}).enable(["table", "strikethrough"]).render(text)
    # GitHub shows a suggestion block as the change it proposes: an empty one deletes the line.
    deletion = f'<div class="removed">- {html.escape(removed)}</div>'
    rendered = rendered.replace('<pre><code class="language-suggestion"></code></pre>', deletion)
    return rendered.replace(
        '<pre><code class="language-suggestion">', '<div class="suggested">Suggested change</div><pre><code>'
    )


async def _posted(workdir: Path) -> tuple[str, str, str, str]:
    sys.path.insert(0, str(ROOT / "scripts"))
    from demo_pr import build_repository

    repo = workdir / "shop"
    build_repository(repo)
    # No key in `env`: the offline review a fork's pull request gets, with its reason.
    request = ReviewRequest(repo_path=repo, spec=DiffSpec(base="main"), env={}, record=False)
    result = await run_review(request)
    report = result.report
    pull = PullRequest(
        platform="github",
        api_url="https://api.github.com",
        web_url="https://github.com/prscope/demo",
        repository="prscope/demo",
        number=12,
        head_sha=report.head,
        base_sha=report.base,
        token="not-used",
    )
    context = RenderContext(sources=result.sources)
    publication = build_publication(report, context, pull, repo, run_id="20261126-101500-demo12")
    comment = publication.candidates[0]
    line = (context.line(comment.anchor.path, comment.anchor.line) or "").rstrip()
    return publication.summary, comment.body, comment.anchor.path, f"{comment.anchor.line}  {line}"


def _chromium(*args: str) -> str:
    binary = shutil.which("chromium") or shutil.which("chromium-browser")
    if binary is None:
        raise SystemExit("chromium is not installed (apt-get install chromium)")
    flags = [
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--hide-scrollbars",
        "--force-device-scale-factor=1",
    ]
    done = subprocess.run([binary, *flags, *args], capture_output=True, text=True, timeout=120, check=True)
    return done.stdout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--output", type=Path, default=ROOT / "docs" / "pr-review.png")
    parser.add_argument("--html", type=Path, help="also keep the rendered page here")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as temp:
        workdir = Path(temp)
        summary, inline, path, line = asyncio.run(_posted(workdir))
        page = workdir / "pr.html"
        page.write_text(
            PAGE.format(
                css=_stylesheet(),
                width=WIDTH,
                summary=_markdown(summary),
                inline=_markdown(inline, removed=line.split("  ", 1)[-1]),
                where=html.escape(path),
                path=html.escape(path),
                line=html.escape(line),
            ),
            encoding="utf-8",
        )
        if args.html:
            shutil.copyfile(page, args.html)
        height = re.search(r"<title>(\d+)</title>", _chromium("--dump-dom", page.as_uri()))
        size = f"{WIDTH},{int(height.group(1)) if height else 1600}"
        args.output.parent.mkdir(parents=True, exist_ok=True)
        _chromium(f"--window-size={size}", f"--screenshot={args.output.resolve()}", page.as_uri())
    print(f"wrote {args.output} ({size.replace(',', 'x')})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
