"""Shared builders for the review, CLI and format tests: real pull requests in temp git repos, and a
hand-made report that exercises every corner of the formats."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

from prscope.analysis.findings import Finding, Related, Severity, Suggestion
from prscope.analysis.formats import RenderContext
from prscope.analysis.report import FilesSummary, OmittedFile, Report

from tests.gitrepo import GitRepo

ROOT = Path(__file__).resolve().parents[1]
# Built from pieces so that this file itself never contains a token-shaped string.
GITHUB_TOKEN = "ghp_" + "Zq8vLm3xT0bW5nYc2RkP7sJd9HfA1gUe4iOt"


def demo_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("prscope_demo_pr", ROOT / "scripts" / "demo_pr.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("prscope_demo_pr", module)
    spec.loader.exec_module(module)
    return module


def demo_repo(root: Path) -> GitRepo:
    """The README demo's repository: a stale call in checkout.py and a breakpoint() in cart.py."""
    demo_module().build_repository(root)
    return GitRepo(root, init=False)


def clean_pr_repo(root: Path) -> GitRepo:
    """A pull request with nothing to report."""
    repo = GitRepo(root)
    repo.write("pkg/__init__.py", "")
    repo.write("pkg/util.py", "def double(x):\n    return 2 * x\n")
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("pkg/util.py", "def double(x):\n    return x + x\n\n\ndef triple(x):\n    return 3 * x\n")
    repo.commit("feature")
    return repo


def secret_pr_repo(root: Path) -> GitRepo:
    repo = GitRepo(root)
    repo.write("app/__init__.py", "")
    repo.write("app/settings.py", "DEBUG = False\n")
    repo.commit("base")
    repo.checkout("-b", "feature")
    repo.write("app/settings.py", f'DEBUG = False\nGITHUB_TOKEN = "{GITHUB_TOKEN}"\n')
    repo.commit("add token")
    return repo


NON_ASCII_LINE = '    naïve = café("日本", 🎉x)'


def sample_report(status: str = "offline", reason: str = "no API key: deterministic checks only") -> Report:
    findings = [
        Finding(
            id="f-breaking",
            rule="breaking-call",
            severity=Severity.ERROR,
            path="pkg/a b/ü.py",
            line=3,
            end_line=3,
            column=24,
            end_column=26,
            title="Call to `café` no longer matches its signature",
            message="Missing new required argument `currency`, added in pkg/x.py:1.",
            source="check",
            related=[Related(path="pkg/x.py", line=1, message="`café` is defined here")],
        ),
        Finding(
            id="f-debug",
            rule="debug-leftover",
            severity=Severity.WARNING,
            path="pkg/x.py",
            line=2,
            end_line=2,
            title="Debugger call left in: `breakpoint()`",
            message="Remove it, 100% sure: a,b:c\nsecond line",
            source="check",
            suggestion=Suggestion(start_line=2, end_line=2, replacement=""),
        ),
        Finding(
            id="f-model",
            rule="error-handling",
            severity=Severity.NOTE,
            confidence=0.8,
            path="pkg/x.py",
            line=4,
            end_line=5,
            title="Exception <swallowed> [here](http://evil.example)",
            message="The `except` hides ``a`b`` failures; log them.",
            source="model",
            suggestion=Suggestion(start_line=4, end_line=5, replacement="try:\n    run()\n"),
        ),
        Finding(
            id="f-dismissed",
            rule="debug-leftover",
            severity=Severity.ERROR,
            path="pkg/x.py",
            line=6,
            end_line=6,
            title="Dismissed one",
            message="dismissed",
            source="check",
        ),
    ]
    return Report(
        status=status,  # type: ignore[arg-type]
        status_reason=reason,
        base="a" * 40,
        head="b" * 40,
        mode="branch",
        files=FilesSummary(
            changed=4, reviewed=3, omitted=[OmittedFile(path="img.png", reason="binary file")]
        ),
        findings=findings,
        errors=["check dangling-reference failed: boom"],
    )


def sample_context(**overrides: object) -> RenderContext:
    sources = {
        "pkg/a b/ü.py": ["import pkg", "", NON_ASCII_LINE, ""],
        "pkg/x.py": [
            "def café(a, b, currency):",
            "    breakpoint()",
            "",
            "    try:",
            "        run()",
            "    x = 1",
        ],
    }
    values: dict[str, object] = {
        "sources": sources,
        "change_summary": "base main -> head b [branch]\n  M  pkg/x.py  +3 -1\n",
        "dismissed": frozenset({"f-dismissed"}),
    }
    values.update(overrides)
    return RenderContext(**values)  # type: ignore[arg-type]


def test_demo_repository_has_the_pull_request(tmp_path: Path) -> None:
    repo = demo_repo(tmp_path / "shop")
    assert repo.git("rev-parse", "--abbrev-ref", "HEAD") == "feature/currency-rounding"
    changed = repo.git("diff", "--name-only", "main...HEAD").split()
    assert changed == ["shopkit/cart.py", "shopkit/pricing.py"]
