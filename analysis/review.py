"""One review, start to end: change set -> code index -> deterministic checks -> (model review) -> Report.

Front ends (the CLI, the language server) are thin adapters over `review`. The deterministic checks always
run; the model review runs when a model is configured, and whatever it fails to do is said in the
report's status and reason, never silently: the checks' findings are kept either way.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from prscope.analysis.changeset import ChangeSet, DiffSpec, files_summary, load_changeset, render_summary
from prscope.analysis.config import (
    CONFIG_FILE,
    ConfigOverrides,
    PrscopeConfig,
    config_from_reader,
    load_config,
)
from prscope.analysis.errors import ConfigError
from prscope.analysis.findings import Finding
from prscope.analysis.report import AgentNode, OmittedFile, Report, ReviewStatus, Usage
from prscope.analysis.review_model import ModelOutcome, ModelPhase, run_model_phase
from prscope.analysis.store.memory import ReviewKeys, StoredModelReview, review_keys
from pydantic import BaseModel, ConfigDict, Field

if TYPE_CHECKING:
    from prscope.analysis.agent.events import EventSink
    from prscope.analysis.checks import CheckRun
    from prscope.analysis.intel import CodeIndex
    from prscope.analysis.models.base import ModelClient
    from prscope.analysis.store.recorder import RunMemory

Progress = Callable[[str], None]

OFFLINE_FLAG_REASON = "--offline: deterministic checks only"
NO_KEY_REASON = (
    "no API key: deterministic checks only (set ANTHROPIC_API_KEY, or use --provider openai --base-url URL, "
    "for a model review)"
)
REQUIRED_NO_KEY_REASON = (
    "a model review was required (--require-model) but no model is configured: set ANTHROPIC_API_KEY, "
    "or use --provider openai --base-url URL; deterministic findings only"
)
MAX_SNIPPET_FILES = 500


class ReviewRequest(BaseModel):
    """What to review and how. `env` is where API keys are read from (None: this process's environment);
    it is never printed or serialised."""

    model_config = ConfigDict(frozen=True)

    repo_path: Path = Path(".")
    spec: DiffSpec = Field(default_factory=DiffSpec)
    config: PrscopeConfig | None = None
    """An explicit configuration; None: read it from the repository (see `resolve_config`)."""
    overrides: ConfigOverrides = Field(default_factory=ConfigOverrides)
    offline: bool = False
    require_model: bool = False
    record: bool = True
    """Record the run in the repository's run store (history, dismissals, reuse of model reviews)."""
    use_cache: bool = True
    """Reuse an earlier model review of the same change or pull request (False: `--no-cache`)."""
    env: dict[str, str] | None = Field(default=None, repr=False, exclude=True)


@dataclass
class ReviewResult:
    """The report plus what the front end shows around it (the change summary, the lines findings point
    at, already masked) and whether a configured model review failed to finish (exit code 3)."""

    report: Report
    config: PrscopeConfig = field(default_factory=PrscopeConfig)
    """The configuration the review ran with (file, then flags): fail_on and dismissals for the caller."""
    change_summary: str = ""
    sources: dict[str, list[str]] = field(default_factory=dict)
    model_configured: bool = False
    model_incomplete: bool = False
    paths: list[str] = field(default_factory=list)
    """Every file of the change (what the review covered), repository-relative."""
    transcripts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    """Each agent's conversation (for the run store; never printed)."""
    stored: tuple[ReviewKeys, StoredModelReview] | None = None
    """What the run store keeps of a complete model review for the next one."""
    run_id: str | None = None
    """This run's id in the run store (None when it was not recorded)."""
    warnings: list[str] = field(default_factory=list)
    """One-line notices for the user that are not part of the report (e.g. the store is unusable)."""
    dismissal_reasons: dict[str, str] = field(default_factory=dict)
    """Finding id -> the reason given when it was dismissed in the run store (`config.dismissed` holds
    these ids too, and those of the configuration's list, which have no reason)."""


@dataclass
class ModelPlan:
    client: ModelClient | None
    subagent_client: ModelClient | None = None
    reason: str = ""
    """Why there is no client (offline), when there is none."""
    description: str = ""


async def review(
    request: ReviewRequest, events: EventSink | None = None, cancel: asyncio.Event | None = None
) -> Report:
    return (await run_review(request, events, cancel)).report


async def run_review(
    request: ReviewRequest,
    events: EventSink | None = None,
    cancel: asyncio.Event | None = None,
    progress: Progress | None = None,
) -> ReviewResult:
    """The whole review. Raises PrscopeError (one line) only for bad input: repository or configuration."""
    say = progress or (lambda _message: None)
    env = dict(os.environ) if request.env is None else request.env
    memory, warning = await asyncio.to_thread(_open_memory, request, env)
    say("reading the change")
    try:
        cs = await asyncio.to_thread(load_changeset, request.repo_path, request.spec, env)
    except BaseException:
        _abandon(memory)
        raise
    try:
        config, config_note = resolve_config(request, cs)
        plan = plan_model(request, config, env)
        context = _ReviewContext(request, config, plan, events, cancel or asyncio.Event(), say, memory, env)
        result = await _review_changeset(context, cs)
    except BaseException:
        _abandon(memory)
        raise
    finally:
        cs.close()
    if config_note:
        result.report.status_reason += f"; {config_note}"
    result.warnings += [warning] if warning else []
    if memory is not None:
        result.run_id = memory.run_id
        result.dismissal_reasons = memory.dismissals()
        result.config = _with_dismissals(result.config, list(result.dismissal_reasons))
        written = await asyncio.to_thread(memory.finish, result.report, result.transcripts, result.stored)
        result.warnings += [written] if written else []
    return result


def _open_memory(request: ReviewRequest, env: dict[str, str]) -> tuple[RunMemory | None, str]:
    """The run is recorded before anything else, so a review killed at any point shows as interrupted."""
    if not request.record:
        return None, ""
    from prscope.analysis.store.recorder import RunMemory

    return RunMemory.open(request.repo_path.resolve(), request.spec.mode, env)


def _abandon(memory: RunMemory | None) -> None:
    """A review that raised (bad input, a bug): its run is dropped from the history, not left running."""
    if memory is not None:
        memory.abandon()


def _with_dismissals(config: PrscopeConfig, ids: list[str]) -> PrscopeConfig:
    if not ids:
        return config
    return config.model_copy(update={"dismissed": sorted({*config.dismissed, *ids})})


def resolve_config(request: ReviewRequest, cs: ChangeSet) -> tuple[PrscopeConfig, str]:
    """The configuration to review with, and a note when the pull request's own version was set aside.

    The reviewed head's file is used (the working tree's, or commit B's for `--commits A..B`, which need
    not be checked out), except when the reviewed change itself modifies the configuration (branch and
    commit-range reviews): then the base side's version applies, so that a pull request cannot switch off
    or relax the review that gates it.
    """
    if request.config is not None:
        return request.overrides.apply(request.config), ""
    changed = {c.path for c in cs.files} | {c.old_path for c in cs.files if c.old_path}
    touched = [name for name in (CONFIG_FILE, "pyproject.toml") if name in changed]
    if cs.mode not in ("branch", "commits") or not touched:
        return request.overrides.apply(_head_config(cs)), ""
    base = config_from_reader(cs.read_old, " (base side)")
    try:
        head = _head_config(cs)
    except ConfigError:
        head = None
    if head is not None and _same_settings(head, base):
        return request.overrides.apply(head), ""
    note = f"the change modifies the prscope configuration ({', '.join(touched)}); its base version was used"
    return request.overrides.apply(base), note


def _head_config(cs: ChangeSet) -> PrscopeConfig:
    if cs.mode == "commits":
        return config_from_reader(cs.read_new, f" (at {(cs.head_sha or '')[:12]})")
    return load_config(cs.repo_root)


def _same_settings(first: PrscopeConfig, second: PrscopeConfig) -> bool:
    return first.model_dump(exclude={"source"}) == second.model_dump(exclude={"source"})


def plan_model(request: ReviewRequest, config: PrscopeConfig, env: Mapping[str, str]) -> ModelPlan:
    if request.offline:
        return ModelPlan(client=None, reason=OFFLINE_FLAG_REASON)
    model = config.model
    if not _may_have_model(model.provider or "anthropic", model.base_url, env):
        # Decided without importing the model SDKs: they take seconds to import, an offline review does not.
        return ModelPlan(
            client=None, reason=REQUIRED_NO_KEY_REASON if request.require_model else NO_KEY_REASON
        )
    from prscope.analysis.models.factory import ModelSettings, client_from_settings

    settings = ModelSettings(
        provider=model.provider or "anthropic",
        model=model.model,
        base_url=model.base_url,
        context_window=model.context_window,
        timeout_s=model.timeout_s or 300.0,
    )
    client = client_from_settings(settings, env)
    if client is None:
        return ModelPlan(
            client=None, reason=REQUIRED_NO_KEY_REASON if request.require_model else NO_KEY_REASON
        )
    subagent_client = None
    if model.subagent_model:
        subagent_client = client_from_settings(
            settings.model_copy(update={"model": model.subagent_model}), env
        )
    # Not settings.describe(): a base URL may carry credentials, and reports must never hold them.
    description = f"{settings.provider} model {client.model}"
    return ModelPlan(client=client, subagent_client=subagent_client, description=description)


def _may_have_model(provider: str, base_url: str | None, env: Mapping[str, str]) -> bool:
    if provider == "anthropic":
        return bool(env.get("ANTHROPIC_API_KEY"))
    return bool(base_url or env.get("OPENAI_API_KEY") or env.get("OPENAI_BASE_URL"))


@dataclass
class _ReviewContext:
    request: ReviewRequest
    config: PrscopeConfig
    plan: ModelPlan
    events: EventSink | None
    cancel: asyncio.Event
    say: Progress
    memory: RunMemory | None
    env: dict[str, str]


async def _review_changeset(context: _ReviewContext, cs: ChangeSet) -> ReviewResult:
    config, plan, events, say = context.config, context.plan, context.events, context.say
    excluded = [c.path for c in cs.files if _excluded(config, c.path)]
    say(f"indexing the repository and running the checks on {len(cs.files)} changed file(s)")
    index = await asyncio.to_thread(_code_index, cs)
    checked = await _checks_until_cancelled(cs, index, config, context.cancel)
    findings, errors, skipped = list(checked.findings), list(checked.errors), list(checked.skipped)
    check_failures = sum(1 for error in errors if _is_check_crash(error))
    _publish_check_findings(events, findings, config)
    status: ReviewStatus = "offline"
    reason = plan.reason
    outcome: ModelOutcome | None = None
    incomplete = context.request.require_model and plan.client is None
    if incomplete:
        status = "partial"
    if plan.client is not None:
        say(f"model review with {plan.description}")
        try:
            outcome = await run_model_phase(cs, await _model_phase(context, cs, index))
        finally:
            await _close_clients(plan)
        findings, model_notes = _merge_model_findings(findings, outcome.findings, config.model.max_findings)
        errors += model_notes + outcome.errors
        status, reason = outcome.status, outcome.reason
        incomplete = status != "complete"
    if check_failures:
        status = "partial"
        reason += f"; {check_failures} deterministic check(s) failed to run (see errors)"
    if checked.incomplete:
        status = "partial"
        reason += "; checks incomplete: " + "; ".join(checked.incomplete)
    findings = _apply_config(findings, config)
    omitted = _merge_omitted(
        [OmittedFile(path=p, reason="excluded by configuration") for p in excluded],
        skipped,
        outcome.omitted if outcome else [],
    )
    not_reviewed = {o.path for o in omitted if not o.reason.startswith("model:")}
    agents = outcome.agents if outcome else []
    report = Report(
        status=status,
        status_reason=reason,
        base=cs.base_sha,
        head=cs.head_sha,
        mode=cs.mode,
        files=files_summary(cs, [c.path for c in cs.files if c.path not in not_reviewed], omitted),
        usage=outcome.usage if outcome else Usage(),
        agents=agents,
        cost_usd=_total_cost(agents),
        reuse=outcome.reuse if outcome else None,
        findings=findings,
        errors=errors,
    )
    return ReviewResult(
        report=report,
        config=config,
        change_summary=render_summary(cs),
        sources=_finding_sources(cs, findings),
        model_configured=plan.client is not None or context.request.require_model,
        model_incomplete=incomplete,
        paths=[c.path for c in cs.files],
        transcripts=outcome.transcripts if outcome else {},
        stored=outcome.stored if outcome else None,
    )


async def _model_phase(context: _ReviewContext, cs: ChangeSet, index: CodeIndex) -> ModelPhase:
    keys = None
    if context.memory is not None and context.plan.client is not None:
        branch = await asyncio.to_thread(_git, cs.repo_root, "symbolic-ref", "-q", "--short", "HEAD")
        model_id = f"{context.plan.description}/{context.config.model.subagent_model or ''}"
        keys = review_keys(cs, context.config, model_id, (branch or "").strip() or None)
    return ModelPhase(
        index=index,
        plan=context.plan,
        config=context.config,
        events=context.events,
        cancel=context.cancel,
        memory=context.memory,
        keys=keys,
        use_cache=context.request.use_cache,
        env=context.env,
    )


def _publish_check_findings(events: EventSink | None, findings: list[Finding], config: PrscopeConfig) -> None:
    """The checks' findings go out at once, so an editor shows them while the model review runs."""
    if events is None:
        return
    from prscope.analysis.agent.events import FindingsPublished

    events(FindingsPublished(phase="checks", findings=tuple(_apply_config(findings, config))))


async def _close_clients(plan: ModelPlan) -> None:
    for client in (plan.client, plan.subagent_client):
        close = getattr(client, "close", None)
        if close is None:
            continue
        try:
            await close()
        except Exception:  # closing a connection pool must not turn a finished review into a failure
            continue


def _excluded(config: PrscopeConfig, path: str) -> bool:
    from prscope.analysis.checks import ChecksConfig

    return ChecksConfig(exclude=config.exclude).excludes(path)


def _git(root: Path, *args: str) -> str | None:
    from prscope.analysis import gitsafe

    try:
        result = gitsafe.run_git(root, args, timeout_s=60)
    except (OSError, gitsafe.TimeoutExpired):
        return None
    return result.stdout.decode("utf-8", "replace") if result.returncode == 0 else None


def _code_index(cs: ChangeSet) -> CodeIndex:
    from prscope.analysis.checks.revision import code_index_for

    return code_index_for(cs)


def _merge_model_findings(
    checks: list[Finding], model: list[Finding], cap: int
) -> tuple[list[Finding], list[str]]:
    from prscope.analysis.agent.noise import cap_model_findings, merge_into_checks

    merged, rest = merge_into_checks(checks, model)
    shown, note = cap_model_findings(rest, cap)
    return [*merged, *shown], [note] if note else []


def _total_cost(agents: list[AgentNode]) -> float | None:
    """The sum of the agents' estimated costs; None when any agent's model has no known price."""
    costs = [agent.cost_usd for agent in agents]
    if not costs or any(cost is None for cost in costs):
        return None
    return round(sum(cost for cost in costs if cost is not None), 6)


def _is_check_crash(error: str) -> bool:
    return error.startswith("the deterministic checks failed") or (
        error.startswith("check ") and " failed: " in error.split("\n", 1)[0][:80]
    )


def _run_checks(cs: ChangeSet, index: CodeIndex, config: PrscopeConfig, stop: threading.Event) -> CheckRun:
    from prscope.analysis.checks import ChecksConfig, run_checks

    checks_config = ChecksConfig(
        enabled=dict(config.rules),
        severity=dict(config.severity),
        exclude=config.exclude,
        python_version=config.python_version,
    )
    return run_checks(cs, index, checks_config, stop)


async def _checks_until_cancelled(
    cs: ChangeSet, index: CodeIndex, config: PrscopeConfig, cancel: asyncio.Event
) -> CheckRun:
    """The checks in a worker thread; a cancel (first Ctrl-C, a cancelled editor request) stops them
    inside the work they are doing, and what they found so far is kept."""
    from prscope.analysis.checks import CheckRun

    stop = threading.Event()

    async def relay() -> None:
        await cancel.wait()
        stop.set()

    watcher = asyncio.create_task(relay())
    try:
        return await asyncio.to_thread(_run_checks, cs, index, config, stop)
    except Exception as err:  # the checks promise not to raise; if they do, say so and go on
        return CheckRun(errors=[f"the deterministic checks failed: {type(err).__name__}: {err}"])
    finally:
        watcher.cancel()


def _apply_config(findings: list[Finding], config: PrscopeConfig) -> list[Finding]:
    """Rules switched off, severities overridden and excluded paths, for model findings as for checks."""
    from prscope.analysis.checks import ChecksConfig

    paths = ChecksConfig(exclude=config.exclude)
    kept: list[Finding] = []
    seen: set[tuple[str, str, int]] = set()
    for finding in findings:
        key = (finding.id or finding.title, finding.path, finding.line)
        if not config.rules.get(finding.rule, True) or paths.excludes(finding.path) or key in seen:
            continue
        seen.add(key)
        severity = config.severity.get(finding.rule)
        if severity is not None:
            finding = finding.model_copy(update={"severity": severity})
        kept.append(finding)
    return sorted(kept, key=lambda f: (f.path, f.line, -f.severity.rank, f.rule))


def _merge_omitted(*groups: list[OmittedFile]) -> list[OmittedFile]:
    merged: dict[str, OmittedFile] = {}
    for group in groups:
        for omitted in group:
            merged.setdefault(omitted.path, omitted)
    return sorted(merged.values(), key=lambda o: o.path)


def _finding_sources(cs: ChangeSet, findings: list[Finding]) -> dict[str, list[str]]:
    """Head-side lines of each file a finding points at, masked, for the formats to show and to convert
    columns with (read now: the change set is closed once the review ends)."""
    from prscope.analysis.checks.secrets import mask_secrets

    sources: dict[str, list[str]] = {}
    for path in sorted({f.path for f in findings})[:MAX_SNIPPET_FILES]:
        try:
            text = cs.read_new(path)
        except (OSError, ValueError):
            text = None
        if text is not None:
            sources[path] = [mask_secrets(line) for line in text.splitlines()]
    return sources
