"""Deterministic checks: no model, no network. They always run, and are the whole review offline.

`run_checks` never raises: a check that crashes becomes one line in `CheckRun.errors` and the other
checks still run; files that cannot be read are listed in `CheckRun.skipped`.
"""

from __future__ import annotations

import fnmatch
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

from prscope.analysis.changeset import ChangeSet
from prscope.analysis.checks.breaking_call import check_breaking_calls
from prscope.analysis.checks.caps import cap_findings
from prscope.analysis.checks.context import CheckContext
from prscope.analysis.checks.dangling import check_dangling_references
from prscope.analysis.checks.mismatch import (
    check_async_mismatch,
    check_override_mismatch,
    check_property_mismatch,
)
from prscope.analysis.checks.parent_imports import HeadListing, ParentImports
from prscope.analysis.checks.secrets import mask_secrets
from prscope.analysis.checks.sites import RepoView
from prscope.analysis.checks.text_checks import (
    check_conflict_markers,
    check_debug_leftovers,
    check_secrets,
    check_syntax,
)
from prscope.analysis.deadline import OutOfTime, enforced
from prscope.analysis.findings import Finding, Severity
from prscope.analysis.intel.files import MAX_INDEX_BYTES
from prscope.analysis.report import OmittedFile
from pydantic import BaseModel, Field

if TYPE_CHECKING:
    from prscope.analysis.intel import CodeIndex

RULES: dict[str, str] = {
    "breaking-call": "A call site still matches the old signature of a function the PR changed.",
    "dangling-reference": "A name the PR removes or renames is still imported or used elsewhere.",
    "syntax-error": "A changed Python file no longer parses.",
    "conflict-marker": "Unresolved merge conflict markers in the change.",
    "debug-leftover": "A debugger call (breakpoint(), pdb.set_trace()) was left in.",
    "secret": "A credential in a recognisable provider format was committed.",
    "async-mismatch": "A caller still uses a function the PR made async (or no longer async) the old way.",
    "property-mismatch": "A use still calls a method the PR made a property, or reads one made a method.",
    "override-mismatch": "An override no longer accepts the calls its base method accepts after the PR.",
}

DEFAULT_SEVERITY: dict[str, Severity] = {
    "breaking-call": Severity.ERROR,
    "dangling-reference": Severity.ERROR,
    "syntax-error": Severity.ERROR,
    "conflict-marker": Severity.ERROR,
    "debug-leftover": Severity.WARNING,
    "secret": Severity.ERROR,
    "async-mismatch": Severity.ERROR,
    "property-mismatch": Severity.ERROR,
    "override-mismatch": Severity.WARNING,
}

__all__ = ["DEFAULT_SEVERITY", "RULES", "CheckRun", "ChecksConfig", "mask_secrets", "run_checks"]


class ChecksConfig(BaseModel):
    enabled: dict[str, bool] = Field(default_factory=dict)
    """Rule id -> on/off; rules not named are on."""
    severity: dict[str, Severity] = Field(default_factory=dict)
    """Rule id -> severity override."""
    exclude: list[str] = Field(default_factory=list)
    """Glob patterns of repository paths whose findings are dropped (`docs/*`, `tests/fixtures/**`)."""
    time_budget_s: float | None = 15.0
    """Wall time after which the repository-wide checks stop with partial results (None: no limit)."""
    python_version: str | None = None
    """The Python version code must parse under ("3.8"); None: the lowest the project's requires-python
    admits, or the running interpreter's when it declares none."""

    def is_enabled(self, rule: str) -> bool:
        return self.enabled.get(rule, True)

    def excludes(self, path: str) -> bool:
        return any(_glob_match(path, pattern) for pattern in self.exclude)


class CheckRun(BaseModel):
    findings: list[Finding] = Field(default_factory=list)
    errors: list[str] = Field(default_factory=list)
    skipped: list[OmittedFile] = Field(default_factory=list)
    timings: dict[str, float] = Field(default_factory=dict)
    """Seconds per check, for diagnostics."""
    incomplete: list[str] = Field(default_factory=list)
    """Why the checks did not all finish (a check out of time or cancelled, files too large to read);
    empty when every check ran to the end on every file."""


def _glob_match(path: str, pattern: str) -> bool:
    pattern = pattern.strip().lstrip("/")
    if not pattern:
        return False
    if pattern.endswith("/"):
        return path.startswith(pattern)
    if fnmatch.fnmatchcase(path, pattern) or path.startswith(pattern.rstrip("/") + "/"):
        return True
    if pattern.startswith("**/"):
        return _glob_match(path, pattern[3:]) or any(
            _glob_match("/".join(path.split("/")[i:]), pattern[3:]) for i in range(1, path.count("/") + 1)
        )
    return False


CheckFn = Callable[[CheckContext, RepoView], list[Finding]]


def _text_check(check: Callable[[CheckContext], list[Finding]]) -> CheckFn:
    return lambda ctx, _view: check(ctx)


CHECKS: list[tuple[str, CheckFn]] = [
    ("syntax-error", _text_check(check_syntax)),
    ("conflict-marker", _text_check(check_conflict_markers)),
    ("debug-leftover", _text_check(check_debug_leftovers)),
    ("secret", _text_check(check_secrets)),
    ("breaking-call", check_breaking_calls),
    ("dangling-reference", check_dangling_references),
    ("async-mismatch", check_async_mismatch),
    ("property-mismatch", check_property_mismatch),
    ("override-mismatch", check_override_mismatch),
]


def run_checks(
    cs: ChangeSet, index: CodeIndex, config: ChecksConfig | None = None, stop: threading.Event | None = None
) -> CheckRun:
    """Every enabled check; the time budget and `stop` are honoured inside each one (partial results)."""
    config = config or ChecksConfig()
    deadline = time.monotonic() + config.time_budget_s if config.time_budget_s is not None else None
    ctx = CheckContext(cs, index, deadline=deadline, stop=stop, python_version=config.python_version)
    view = RepoView(index, cs.read_new)
    view.added_lines = {change.path: change.added_lines for change in cs.files}
    listing = HeadListing(partial(_head_paths, cs))
    view.parent = ParentImports(cs.files, view.files, cs.read_new, cs.read_old, view.module, listing)
    run = CheckRun()
    findings: list[Finding] = []
    with enforced(ctx.limit):
        for rule, check in CHECKS:
            if config.is_enabled(rule):
                findings.extend(_run_one(rule, check, ctx, view, run))
    _list_too_large(ctx, index)
    run.errors.extend(ctx.notes)
    run.incomplete = list(ctx.incomplete)
    run.findings, capped = cap_findings(_finalise(findings, config))
    run.errors.extend(capped)
    run.skipped = [OmittedFile(path=path, reason=reason) for path, reason in sorted(ctx.skipped.items())]
    return run


def _head_paths(cs: ChangeSet) -> list[str] | None:
    listed = cs.list_files("new")
    return None if listed is None else [f.path for f in listed]


def _run_one(rule: str, check: CheckFn, ctx: CheckContext, view: RepoView, run: CheckRun) -> list[Finding]:
    started = time.perf_counter()
    try:
        if ctx.out_of_time(rule, "every change"):
            return []
        return check(ctx, view)
    except OutOfTime as stop:
        ctx.stopped(rule, str(stop))
    except Exception as error:  # a crash in one check must not take the others down
        run.errors.append(f"check {rule} failed: {type(error).__name__}: {mask_secrets(str(error))}")
    finally:
        run.timings[rule] = round(time.perf_counter() - started, 3)
    return []


def _list_too_large(ctx: CheckContext, index: CodeIndex) -> None:
    sizes = index.files_too_large()
    for path, size in sorted(sizes.items()):
        ctx.skip(path, f"too large to check ({size / 1e6:.1f} MB, limit {MAX_INDEX_BYTES / 1e6:.1f} MB)")
    if sizes:
        noun = "file" if len(sizes) == 1 else "files"
        ctx.incomplete.append(f"{len(sizes)} {noun} too large to check (see files not reviewed)")


def _finalise(findings: list[Finding], config: ChecksConfig) -> list[Finding]:
    seen: set[tuple[str, str, int]] = set()
    result: list[Finding] = []
    for finding in sorted(findings, key=lambda f: (f.path, f.line, f.rule, -f.confidence)):
        key = (finding.rule, finding.path, finding.line)
        if key in seen or config.excludes(finding.path):
            continue
        seen.add(key)
        severity = config.severity.get(finding.rule)
        if severity is not None and severity != finding.severity:
            finding = finding.model_copy(update={"severity": severity})
        result.append(finding)
    return result
