"""The model part of a review: run fresh, taken from the result cache, or incremental.

`run_model_phase` decides with the run store (`analysis.store`): the same change reviewed before under
the same model, prompts and settings is answered from the store without a model request; the same pull
request reviewed before at another head sends only the hunks not reviewed yet and carries the earlier
findings on unchanged code over. Only a complete model review is stored for reuse.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from prscope.analysis.changeset import ChangeSet, DiffSpec, FileChange, load_changeset
from prscope.analysis.errors import PrscopeError
from prscope.analysis.findings import Finding
from prscope.analysis.report import AgentNode, OmittedFile, Reuse, ReviewStatus, Usage
from prscope.analysis.store.memory import (
    ReviewKeys,
    StoredModelReview,
    anchored,
    carry_over,
    fresh_part,
    hunk_signatures,
)

if TYPE_CHECKING:
    from prscope.analysis.agent.events import EventSink
    from prscope.analysis.config import PrscopeConfig
    from prscope.analysis.intel import CodeIndex
    from prscope.analysis.review import ModelPlan
    from prscope.analysis.store.recorder import EarlierReview, RunMemory


INCREMENTAL_NOTE = (
    "This pull request was reviewed before. The diff above holds only the hunks that are new or changed "
    "since that review; the rest of the pull request was reviewed already and its findings are kept. "
    "Review these hunks (read the surrounding code with the tools where it matters); do not repeat "
    "findings about code outside them."
)


@dataclass
class ModelOutcome:
    status: ReviewStatus
    reason: str
    findings: list[Finding]
    errors: list[str]
    usage: Usage
    agents: list[AgentNode]
    omitted: list[OmittedFile]
    transcripts: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    reuse: Reuse | None = None
    stored: tuple[ReviewKeys, StoredModelReview] | None = None
    """What the store keeps for the next review (a complete model review only)."""


@dataclass
class ModelPhase:
    """Everything the model part needs besides the change itself."""

    index: CodeIndex
    plan: ModelPlan
    config: PrscopeConfig
    events: EventSink | None
    cancel: asyncio.Event
    memory: RunMemory | None = None
    keys: ReviewKeys | None = None
    use_cache: bool = True
    env: dict[str, str] = field(default_factory=dict)


async def run_model_phase(cs: ChangeSet, phase: ModelPhase) -> ModelOutcome:
    earlier = None
    if phase.memory is not None and phase.keys is not None and phase.use_cache:
        earlier = phase.memory.earlier_review(phase.keys)
    if earlier is not None and earlier.kind == "cache":
        outcome = _from_cache(earlier)
    elif earlier is not None:
        outcome = await _incremental(cs, phase, earlier)
    else:
        outcome = await run_model_review(cs, phase)
        outcome.stored = _to_store(cs, phase, outcome)
    return outcome


def _from_cache(earlier: EarlierReview) -> ModelOutcome:
    stored = earlier.review
    reason = (
        f"model review reused from run {earlier.run_id} ({stored.description}): the same change, model, "
        "prompts and settings; no model request was made (--no-cache reviews again)"
    )
    return ModelOutcome(
        status="complete",
        reason=reason,
        findings=[item.finding for item in stored.findings],
        errors=[],
        usage=Usage(),
        agents=[a.model_copy(update={"status": "completed"}) for a in stored.agents],
        omitted=[],
        reuse=Reuse(kind="cache", previous_run=earlier.run_id, carried_over=len(stored.findings)),
    )


async def _incremental(cs: ChangeSet, phase: ModelPhase, earlier: EarlierReview) -> ModelOutcome:
    previous = earlier.review
    moves = await asyncio.to_thread(_line_moves, cs, previous.head, phase.env)
    if moves is None:
        outcome = await run_model_review(cs, phase)
        gone = f"the head reviewed in run {earlier.run_id} is not in this clone: reviewed in full"
        outcome.reason += f"; {gone}"
        outcome.stored = _to_store(cs, phase, outcome)
        return outcome
    fresh = fresh_part(cs, previous)
    carried = carry_over(previous, cs, moves, fresh)
    if fresh.fresh_hunks:
        outcome = await run_model_review(fresh.changeset, phase, INCREMENTAL_NOTE)
    else:
        outcome = ModelOutcome("complete", "", [], [], Usage(), [], [])
    outcome.findings = [*carried.findings, *outcome.findings]
    outcome.reuse = Reuse(
        kind="incremental",
        previous_run=earlier.run_id,
        carried_over=len(carried.findings),
        dropped=len(carried.dropped),
        fresh_hunks=fresh.fresh_hunks,
        known_hunks=fresh.known_hunks,
    )
    outcome.reason = _incremental_reason(outcome, earlier.run_id)
    outcome.stored = _to_store(cs, phase, outcome)
    return outcome


def _incremental_reason(outcome: ModelOutcome, run_id: str) -> str:
    reuse = outcome.reuse
    assert reuse is not None
    said = (
        f"incremental model review after run {run_id}: {reuse.fresh_hunks} new hunk(s) reviewed, "
        f"{reuse.known_hunks} reviewed before; {reuse.carried_over} earlier finding(s) carried over, "
        f"{reuse.dropped} dropped (code changed, gone or reviewed again)"
    )
    return f"{outcome.reason}; {said}" if outcome.reason else said


def _line_moves(
    cs: ChangeSet, previous_head: str | None, env: dict[str, str]
) -> dict[str, FileChange] | None:
    """How each file's lines moved from the previously reviewed head to this one; None when that head
    cannot be read (garbage-collected, another clone)."""
    if previous_head is None or cs.head_sha is None:
        return None
    spec = DiffSpec(mode="commits", commits=f"{previous_head}..{cs.head_sha}")
    try:
        with load_changeset(cs.repo_root, spec, env) as between:
            return {change.path: change for change in between.files}
    except PrscopeError:
        return None


def _to_store(
    cs: ChangeSet, phase: ModelPhase, outcome: ModelOutcome
) -> tuple[ReviewKeys, StoredModelReview] | None:
    if outcome.status != "complete" or phase.keys is None or phase.memory is None:
        return None
    left_out = {o.path for o in outcome.omitted}
    hunks = {c.path: hunk_signatures(c) for c in cs.files if c.path not in left_out}
    review = StoredModelReview(
        head=cs.head_sha,
        findings=anchored(outcome.findings, cs),
        hunks=hunks,
        agents=outcome.agents,
        usage=outcome.usage,
        description=phase.plan.description,
    )
    return phase.keys, review


async def run_model_review(cs: ChangeSet, phase: ModelPhase, note: str = "") -> ModelOutcome:
    """One fresh model review of `cs` (the whole change, or the part an incremental review sends)."""
    from prscope.analysis.agent.events import discard_events
    from prscope.analysis.agent.review_agent import AgentReviewSettings, run_agent_review
    from prscope.analysis.agent.subagents import SubagentLimits
    from prscope.analysis.tools.registry import default_registry, make_tool_context

    plan, config = phase.plan, phase.config
    assert plan.client is not None
    budget = config.budget
    settings = AgentReviewSettings()
    updates: dict[str, object] = {"verify": config.model.verify, "request_note": note}
    if budget.diff_tokens is not None:
        updates["diff_token_budget"] = budget.diff_tokens
    if budget.review_tokens is not None:
        updates["token_budget"] = budget.review_tokens
    if budget.deadline_s is not None:
        updates["deadline_s"] = budget.deadline_s
    if budget.max_subagents is not None:
        limit = SubagentLimits.model_fields["max_per_review"]
        updates["subagents"] = SubagentLimits(max_per_review=_clamp_subagents(budget.max_subagents, limit))
    settings = settings.model_copy(update=updates)
    context = make_tool_context(cs.repo_root, changeset=cs, code_index=phase.index)
    result = await run_agent_review(
        cs,
        plan.client,
        default_registry(),
        settings,
        phase.events or discard_events,
        phase.cancel,
        subagent_client=plan.subagent_client,
        tool_context=context,
    )
    omitted = [OmittedFile(path=o.path, reason=f"model: {o.reason}") for o in result.omitted]
    if result.status == "complete":
        status: ReviewStatus = "complete"
        reason = f"deterministic checks and model review ({plan.description}) finished"
    else:
        status = "partial"
        reason = _partial_reason(result.status, result.errors)
    return ModelOutcome(
        status,
        reason,
        list(result.findings),
        list(result.errors),
        result.usage,
        list(result.agents),
        omitted,
        transcripts=result.transcripts,
    )


def _clamp_subagents(requested: int, field_info: object) -> int:
    maximum = 32
    for constraint in getattr(field_info, "metadata", []):
        maximum = min(maximum, getattr(constraint, "le", maximum))
    return max(0, min(requested, maximum))


def _partial_reason(status: str, errors: list[str]) -> str:
    if status == "partial" and errors and errors[0].startswith("verification"):
        return f"model review: {errors[0]}; deterministic findings and the other model findings are kept"
    what = {"cancelled": "was cancelled", "failed": "failed"}.get(status, "did not finish")
    detail = f" ({errors[0]})" if errors else ""
    return f"the model review {what}{detail}; deterministic findings and any model findings so far are kept"
