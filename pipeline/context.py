"""The workflow context: everything one request's run has produced, checkpointed after
every stage so a run can stop anywhere and resume without redoing finished work.

Artifacts of the negotiation loop are kept per round (``schedules[0]`` is round 1) so the
whole history survives, not just the last proposal.
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from enum import StrEnum
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.artifacts import (
    REQUEST_ID_PATTERN,
    ApprovalItem,
    Critique,
    IntakeResult,
    NegotiationRound,
    Outcome,
    PlanRequest,
    Recommendation,
    Refinement,
    RequirementsProposal,
    Schedule,
)
from agents.case import Case
from agents.llm import LLMLedger
from agents.toolbox import Settings

SCHEMA_VERSION: Final = 1


class State(StrEnum):
    """The machine's states in their fixed order: the six stages, then where runs stop.
    A stage state is the next stage to run; runs stop in ``done`` (finished),
    ``awaiting_approval`` (a person must approve or deny a rule; ``decide`` goes back to the
    critique once every approval is decided) and ``failed`` (``retry`` re-enters the stage).
    Checkpoints store the value; member names equal values (``transitions`` uses names)."""

    intake = "intake"
    requirements = "requirements"
    scheduling = "scheduling"
    critique = "critique"
    refinement = "refinement"
    synthesis = "synthesis"
    done = "done"
    awaiting_approval = "awaiting_approval"
    failed = "failed"

    @property
    def is_stage(self) -> bool:
        return self not in TERMINAL


TERMINAL: Final = frozenset({State.done, State.awaiting_approval, State.failed})
"""Where a run stops (``done`` for good; the others until a person or a retry acts)."""
STAGES: Final = tuple(s for s in State if s not in TERMINAL)


def utc_now() -> datetime:
    return datetime.now(UTC)


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class RunConfig(Settings):
    """The settings that change results plus the backend and stage set: the run's
    configuration, hashed into its fingerprint."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    backend: str = Field(description="LLM backend name, e.g. 'offline' or 'gemini'.")
    model: str = Field(description="LLM model name ('rules' for the offline backend).")
    stages: str = Field(
        default="real", description="Stage set: 'real' agents, or 'module:attr' of a fake set."
    )

    @classmethod
    def of(cls, settings: Settings, *, backend: str, model: str, stages: str) -> RunConfig:
        return cls(**settings.model_dump(), backend=backend, model=model, stages=stages)

    @property
    def settings(self) -> Settings:
        return Settings(**{name: getattr(self, name) for name in Settings.model_fields})

    def fingerprint(self) -> str:
        payload = json.dumps(self.model_dump(mode="json"), sort_keys=True)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class StageTiming(_Model):
    """Wall time of one stage attempt."""

    stage: State = Field(description="Stage that ran.")
    round: int = Field(ge=1, description="Negotiation round it ran in.")
    attempt: int = Field(ge=1, description="Attempt number of this stage (1 = first).")
    ms: float = Field(ge=0, description="Wall time in milliseconds.")
    ok: bool = Field(description="False when the stage raised.")


class StageErrorRecord(_Model):
    """A stage that raised: what, where, and the last frames of the traceback."""

    stage: State = Field(description="Stage that raised.")
    round: int = Field(ge=1, description="Negotiation round.")
    attempt: int = Field(ge=1, description="Attempt number of the stage.")
    type: str = Field(description="Exception class, e.g. 'PlanningError'.")
    message: str = Field(description="The exception's message.")
    traceback: list[str] = Field(
        default_factory=list, description="Innermost frames as 'file:line in function'."
    )
    at: datetime = Field(description="When it happened (UTC).")


class WorkflowContext(_Model):
    """One request's run: state, request, artifacts, negotiation, bookkeeping, fingerprints."""

    schema_version: Literal[1] = Field(
        default=SCHEMA_VERSION, description="Version of this file format."
    )
    request_id: str = Field(pattern=REQUEST_ID_PATTERN, description="Request id (file name).")
    state: State = Field(
        default=State.intake, description="Machine state: the next stage to run, done or failed."
    )
    failed_stage: State | None = Field(
        default=None, description="Stage that failed; a resumed run re-enters it."
    )
    request: PlanRequest = Field(description="The request as received.")
    intake: IntakeResult | None = Field(default=None, description="Intake stage artifact.")
    proposal: RequirementsProposal | None = Field(
        default=None, description="Requirements stage artifact."
    )
    schedules: list[Schedule] = Field(
        default_factory=list, description="Scheduling artifact per round (index 0 = round 1)."
    )
    critiques: list[Critique] = Field(
        default_factory=list, description="Critique artifact per round."
    )
    refinements: list[Refinement] = Field(
        default_factory=list, description="Refinement artifact per round that was refined."
    )
    recommendation: Recommendation | None = Field(default=None, description="Synthesis artifact.")
    negotiation: list[NegotiationRound] = Field(
        default_factory=list, description="Negotiation history, one entry per round."
    )
    round: int = Field(default=1, ge=1, description="Current negotiation round.")
    attempts: dict[State, int] = Field(
        default_factory=dict, description="Times each stage was started (all rounds)."
    )
    timings: list[StageTiming] = Field(
        default_factory=list, description="Every stage attempt's wall time, in order."
    )
    errors: list[StageErrorRecord] = Field(
        default_factory=list, description="Every stage error, in order."
    )
    ledger: LLMLedger = Field(
        default_factory=LLMLedger, description="Every LLM call, reused on resume."
    )
    degraded: dict[State, str] = Field(
        default_factory=dict,
        description="Stages whose LLM call failed (the backend, not the reply: HTTP error, "
        "timeout, deadline, unreadable body), so the stage used its offline path: stage -> "
        "what failed. A later run with a working backend redoes them (pipeline.degraded).",
    )
    outcome: Outcome | None = Field(
        default=None, description="Terminal status decided when the loop ended."
    )
    approvals: list[ApprovalItem] = Field(
        default_factory=list,
        description="Approvals the run stopped for (awaiting_approval) and their decisions.",
    )
    catalog_fingerprint: str = Field(description="sha256 of the catalog the run uses.")
    catalog_source: str | None = Field(
        default=None,
        description="Where the run's catalog came from: the absolute path of its file or "
        "directory, or '<bundled>' for the sample in the package (pipeline.workspace); "
        "None in checkpoints written before it was recorded.",
    )
    config_fingerprint: str = Field(description="sha256 of the run configuration.")
    config: RunConfig = Field(description="The run configuration itself.")
    created_at: datetime = Field(default_factory=utc_now, description="First checkpoint (UTC).")
    updated_at: datetime = Field(default_factory=utc_now, description="Last checkpoint (UTC).")

    # ------------------------------------------------------------------ helpers

    @property
    def finished(self) -> bool:
        return self.state is State.done

    def current(self, items: list[Any]) -> Any:
        """The artifact of the current round in ``items``, or None."""
        return items[self.round - 1] if len(items) >= self.round else None

    def case(self) -> Case:
        """The read-only view a stage is handed (see ``agents.case``)."""
        return Case(
            request=self.request,
            round=self.round,
            intake=self.intake,
            proposal=self.proposal,
            schedules=tuple(self.schedules),
            critiques=tuple(self.critiques),
            refinements=tuple(self.refinements),
            negotiation=tuple(self.negotiation),
            outcome=self.outcome,
            approvals=tuple(self.approvals),
        )

    def put(self, slot: str, artifact: BaseModel) -> None:
        """Store a stage's artifact in field ``slot``: per round for the loop's lists,
        else the one value."""
        current = getattr(self, slot)
        if isinstance(current, list):
            put_round(current, self.round, artifact)
        else:
            setattr(self, slot, artifact)

    def stage_ms(self) -> dict[str, float]:
        out: dict[str, float] = {}
        for t in self.timings:
            out[t.stage.value] = out.get(t.stage.value, 0.0) + t.ms
        return out

    def total_ms(self) -> float:
        return sum(t.ms for t in self.timings)


def put_round(items: list[Any], round_: int, artifact: Any) -> None:
    """Store ``artifact`` as round ``round_``; a rerun of the same round replaces it."""
    if len(items) >= round_:
        items[round_ - 1] = artifact
        del items[round_:]
    elif len(items) == round_ - 1:
        items.append(artifact)
    else:
        raise ValueError(f"round {round_} stored after only {len(items)} round(s)")


def new_context(
    request: PlanRequest,
    *,
    catalog_fingerprint: str,
    config: RunConfig,
    catalog_source: str | None = None,
) -> WorkflowContext:
    now = utc_now()
    return WorkflowContext(
        request_id=request.request_id,
        request=request,
        catalog_fingerprint=catalog_fingerprint,
        catalog_source=catalog_source,
        config_fingerprint=config.fingerprint(),
        config=config,
        created_at=now,
        updated_at=now,
    )


def describe(ctx: WorkflowContext) -> str:
    """A readable account of a run: stages, negotiation rounds, artifacts, errors."""
    req = ctx.request
    out = [
        f"request {ctx.request_id} - {req.student.name} ({req.student.id})",
        f"state {ctx.state.value}"
        + (f" (failed at {ctx.failed_stage.value})" if ctx.failed_stage else "")
        + f", outcome {ctx.outcome or '-'}, round {ctx.round}",
        f"created {ctx.created_at:%Y-%m-%d %H:%M:%S}Z, updated {ctx.updated_at:%Y-%m-%d %H:%M:%S}Z",
        f"catalog {ctx.catalog_source or '(source not recorded)'} "
        f"{ctx.catalog_fingerprint[:12]}, config {ctx.config_fingerprint[:12]} "
        f"({ctx.config.backend}/{ctx.config.model}, max_rounds {ctx.config.max_rounds}, "
        f"stages {ctx.config.stages})",
        "",
        "stages:",
    ]
    for t in ctx.timings:
        status = "ok" if t.ok else "FAILED"
        out.append(
            f"  {t.stage.value:<13} round {t.round}  attempt {t.attempt}  {t.ms:9.1f} ms  {status}"
        )
    if ctx.negotiation:
        out += ["", "negotiation:"]
    for n in ctx.negotiation:
        out.append(
            f"  round {n.round}: {n.proposal}; graduation {n.graduation_term or '-'}; "
            f"solver {n.solver_status}; critique {n.approval} -> {n.resolution}"
        )
        out += [f"    violation {v}" for v in n.violations]
        out += [
            f"    change {c.field}: {c.before!r} -> {c.after!r} ({c.rule_id or '-'}: {c.reason})"
            for c in n.revision
        ]
        out += [f"    approval {line}" for line in n.approvals]
    if ctx.approvals:
        from agents.negotiation import approval_line

        out += ["", "approvals:"]
        out += [f"  round {a.round}: {approval_line(a)}" for a in ctx.approvals]
        pending = sorted({a.rule_id for a in ctx.approvals if a.decision == "pending"})
        if pending:
            out.append("  " + approval_next_step(ctx.request_id, pending[0]))
    out += ["", "artifacts:", *_artifact_lines(ctx)]
    if ctx.errors:
        out += ["", "errors:"]
    for e in ctx.errors:
        out.append(f"  {e.stage.value} round {e.round} attempt {e.attempt}: {e.type}: {e.message}")
        out += [f"    at {frame}" for frame in e.traceback]
    if ctx.degraded:
        out += ["", "degraded (the LLM backend failed; a rerun with a working one redoes it):"]
        out += [f"  {stage.value}: {why}" for stage, why in ctx.degraded.items()]
    ledger = ctx.ledger
    out += [
        "",
        f"llm ledger: {len(ledger.calls)} call(s), {ledger.tokens} token(s), "
        f"{ledger.reused} reused",
    ]
    return "\n".join(out)


def _artifact_lines(ctx: WorkflowContext) -> list[str]:
    out = []
    if ctx.intake:
        i = ctx.intake
        out.append(
            f"  intake: intent {i.intent} ({i.intent_source}), programs "
            f"{', '.join(i.target_programs) or '-'}, {len(i.open_questions)} open question(s)"
        )
    if ctx.proposal:
        p = ctx.proposal
        out.append(
            f"  requirements: {p.status}, {len(p.proposed_courses)} course(s) proposed, "
            f"{p.remaining_units:g} units remaining"
        )
    for s in ctx.schedules:
        out.append(
            f"  schedule round {s.round}: {s.status}, solver {s.solver_status}, "
            f"{len(s.terms)} term(s), graduation {s.graduation_term or '-'}, "
            f"{s.units_planned:g} units"
        )
    for c in ctx.critiques:
        out.append(
            f"  critique round {c.round}: {c.approval}, {len(c.violations)} violation(s), "
            f"{len(c.risks)} risk(s)"
        )
    for r in ctx.refinements:
        out.append(f"  refinement round {r.round}: {r.status}, {len(r.changes)} change(s)")
    if ctx.recommendation:
        rec = ctx.recommendation
        out.append(f"  recommendation: {rec.outcome} - {rec.summary}")
    return out or ["  (none yet)"]


def approval_next_step(request_id: str, rule_id: str) -> str:
    """The ``next:`` line printed for a request that waits for a person to approve
    ``rule_id`` (by ``advise run``, ``advise batch`` and ``advise show``)."""
    return (
        f"next: advise approve {request_id} {rule_id} --by NAME --reason TEXT "
        f"(or advise deny ...), then advise resume {request_id}"
    )
