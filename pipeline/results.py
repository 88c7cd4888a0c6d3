"""What a batch reports: one ``JobResult`` per request, streamed to the run's
``<out_dir>/summaries/<run-id>.jsonl`` by ``pipeline.summaries.SummaryWriter`` and
counted into a ``BatchReport``.

A job's status is not a machine state: a request is also ``skipped`` (done on an earlier
run, same fingerprints), ``rerun_stale`` (done on an earlier run under another catalog or
configuration, so run again; the previous outputs are kept as ``.prev``), ``stale`` (the
same, refused by ``--no-rerun-stale``), ``invalid`` (rejected before running), ``locked``
(another runner holds it), ``interrupted`` (stopped at a stage boundary, resumable),
``catalog_missing`` (the catalog its checkpoint was made with is gone; not run against
another) or ``unwritable`` (its files could not be written: disk full, read-only);
``awaiting_approval`` is the machine state of the same name: the request waits for a person
to ``advise approve`` or ``advise deny`` a rule, then ``advise resume``. ``degraded`` is
done, but a stage answered from the offline path because the LLM backend failed
(``pipeline.degraded``; ``error`` says what failed): the next run redoes just that part.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.artifacts import Outcome
from pipeline.checkpoint_summary import CheckpointSummary
from pipeline.context import State, WorkflowContext, approval_next_step
from pipeline.degraded import degraded_line
from pipeline.errors import ExitCode

JobStatus = Literal[
    "done",
    "awaiting_approval",
    "rerun_stale",
    "skipped",
    "stale",
    "failed",
    "invalid",
    "locked",
    "interrupted",
    "catalog_missing",
    "unwritable",
    "degraded",
]
MAX_LISTED = 10  # failures and invalid requests listed in the printed table

# What an advisor calls where a request stands, by attention group, most urgent first: the
# batch index's status column and its sections. The group of a request that finished is
# its outcome's; of one that did not, its status's (``advisor_group``). The CLI prints the
# machine words (statuses and outcomes, which scripts read); people read these.
ADVISOR_WORDS: Final[dict[str, str]] = {
    "awaiting_approval": "Needs approval",
    "needs_input": "Needs information",
    "infeasible": "Cannot be planned as asked",
    "timed_out": "No plan in time",
    "unresolved_after_max_rounds": "Needs an advisor's review",
    "failed": "Failed",
    "invalid": "Invalid request",
    "stale": "Out of date",
    "approved_with_risks": "Ready, with risks",
    "approved": "Ready",
    "answered": "Answered",
}
# What a person reads for each job status (the index's status filter); scripts read the
# statuses themselves.
STATUS_WORDS: Final[dict[str, str]] = {
    "done": "Finished",
    "skipped": "Finished on an earlier run",
    "rerun_stale": "Run again (catalog or settings changed)",
    "degraded": "Finished on the offline fallback",
    "awaiting_approval": "Needs approval",
    "stale": "Out of date",
    "failed": "Failed",
    "invalid": "Invalid request",
    "locked": "Locked by another run",
    "interrupted": "Interrupted",
    "catalog_missing": "Its catalog is missing",
    "unwritable": "Could not be written",
}
# Statuses of a request that did not finish, by the group they show in.
_NOT_FINISHED: Final[dict[str, str]] = {
    "awaiting_approval": "awaiting_approval",
    "invalid": "invalid",
    "stale": "stale",
    "failed": "failed",
    "locked": "failed",
    "interrupted": "failed",
    "catalog_missing": "failed",
    "unwritable": "failed",
}


def advisor_group(status: str, outcome: str | None, timed_out: bool = False) -> str:
    """The ``ADVISOR_WORDS`` key of a request with this status and outcome (``timed_out``:
    its planner ran out of time, which is not a proof of infeasibility)."""
    if status in _NOT_FINISHED or not outcome:
        return _NOT_FINISHED.get(status, "failed")
    if outcome == "infeasible" and timed_out:
        return "timed_out"
    return outcome if outcome in ADVISOR_WORDS else "failed"


class JobResult(BaseModel):
    """One request's result in a batch: the summary line, and the costs the report sums."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str | None = Field(description="Request id; None when the input had no readable id.")
    source: str = Field(description="Where the request came from: 'line 3', 'a.json', ...")
    status: JobStatus = Field(description="What became of the request in this batch.")
    state: State | None = Field(
        default=None, description="Machine state the request reached; None if it never ran."
    )
    outcome: Outcome | None = Field(
        default=None, description="The recommendation's outcome, for a finished request."
    )
    rounds: int | None = Field(default=None, description="Negotiation rounds run.")
    llm_calls: int | None = Field(default=None, description="LLM calls in the request's ledger.")
    tokens: int | None = Field(default=None, description="LLM tokens (input + output) spent.")
    ms: float = Field(default=0.0, description="Wall time of the job in milliseconds.")
    error: str | None = Field(
        default=None,
        description="Why the request failed or was refused; for a degraded one, what failed.",
    )
    stage_ms: dict[str, float] = Field(
        default_factory=dict, description="Milliseconds per stage (all rounds and attempts)."
    )
    checkpoint_bytes: int = Field(default=0, description="Checkpoint bytes written.")
    checkpoint_ms: float = Field(
        default=0.0, description="Milliseconds the job waited for checkpoint writes."
    )
    checkpoint_io_ms: float = Field(
        default=0.0, description="Milliseconds spent writing checkpoints (maybe overlapped)."
    )
    rss_mb: float = Field(default=0.0, description="Peak resident memory of the worker, MB.")

    @classmethod
    def finished(cls, ctx: WorkflowContext, *, source: str) -> JobResult:
        """A run that stopped in ``done``, ``awaiting_approval`` or ``failed``."""
        last = ctx.errors[-1] if ctx.state is State.failed and ctx.errors else None
        error = f"{last.stage.value}: {last.type}: {last.message}" if last else None
        if ctx.state is State.awaiting_approval:
            waiting = [a for a in ctx.approvals if a.decision == "pending"]
            error = "awaiting approval: " + ", ".join(
                f"{a.rule_id} ({', '.join(a.terms)}) by {a.approver}" for a in waiting
            )
        degraded = ctx.state is State.done and bool(ctx.degraded)
        if degraded:
            error = degraded_line(ctx)
        return cls(
            id=ctx.request_id,
            source=source,
            status=(
                "degraded"
                if degraded
                else "done"
                if ctx.state is State.done
                else "awaiting_approval"
                if ctx.state is State.awaiting_approval
                else "failed"
            ),
            state=ctx.state,
            outcome=ctx.outcome if ctx.state is State.done else None,
            rounds=ctx.round,
            llm_calls=len(ctx.ledger.calls),
            tokens=ctx.ledger.tokens,
            error=error,
            stage_ms=ctx.stage_ms(),
        )

    @classmethod
    def skipped(cls, summary: CheckpointSummary, *, source: str) -> JobResult:
        """A request already done, with its outputs present, on an earlier run."""
        return cls(
            id=summary.request_id,
            source=source,
            status="skipped",
            state=summary.state,
            outcome=summary.outcome,
            rounds=summary.round,
            llm_calls=summary.llm_calls,
            tokens=summary.tokens,
        )


# The fields of a summary line, in this order (JobResult's first fields, dumped in order).
SUMMARY_FIELDS: Final = ("id", "source", "status", "state", "outcome", "rounds", "llm_calls",
                         "tokens", "ms", "error")  # fmt: skip


@dataclass
class BatchReport:
    """Counters and timings of one batch run (no per-request objects are kept)."""

    status: dict[JobStatus, int] = field(default_factory=dict)
    outcomes: dict[str, int] = field(default_factory=dict)
    failures: list[str] = field(default_factory=list)
    invalid: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)  # refused stale requests
    awaiting: list[str] = field(default_factory=list)  # requests waiting for approval
    awaiting_next: list[str] = field(default_factory=list)  # the next: line of each ('' if none)
    degraded: list[str] = field(default_factory=list)  # done on the offline fallback
    llm_calls: int = 0
    tokens: int = 0
    durations_ms: list[float] = field(default_factory=list)
    stage_ms: dict[str, list[float]] = field(default_factory=dict)
    checkpoint_bytes: int = 0
    checkpoint_ms: float = 0.0  # on the request's critical path
    checkpoint_io_ms: float = 0.0  # writing files (overlapping stages when in the background)
    wall_s: float = 0.0
    peak_rss_mb_parent: float = 0.0
    peak_rss_mb_worker: float = 0.0
    workers: int = 1
    stopped: bool = False  # a stop was requested: requests after it were not started
    storage_error: str | None = None  # a file could not be written: the batch stopped
    run_summary: Path | None = None  # this run's summary file (out/summaries/<run-id>.jsonl)

    @property
    def requests(self) -> int:
        return sum(self.status.values())

    def count(self, status: JobStatus) -> int:
        return self.status.get(status, 0)

    @property
    def exit_code(self) -> ExitCode:
        if self.storage_error is not None or self.count("unwritable"):
            return ExitCode.STORAGE
        if self.stopped or self.count("interrupted"):
            return ExitCode.INTERRUPTED
        if any(self.count(s) for s in ("failed", "invalid", "locked", "stale", "catalog_missing")):
            return ExitCode.FAILED
        if self.count("awaiting_approval"):
            return ExitCode.AWAITING_APPROVAL
        if self.count("degraded"):
            return ExitCode.DEGRADED
        return ExitCode.OK

    def add(self, result: JobResult) -> None:
        status = result.status
        self.status[status] = self.status.get(status, 0) + 1
        if result.outcome:
            self.outcomes[result.outcome] = self.outcomes.get(result.outcome, 0) + 1
        where = f"{result.id or '?'} ({result.source}): {result.error}"
        if status == "invalid" and len(self.invalid) < MAX_LISTED:
            self.invalid.append(where)
        elif status == "awaiting_approval" and len(self.awaiting) < MAX_LISTED:
            # Listed under "awaiting approval": the rules, without saying so twice.
            pending = (result.error or "").removeprefix("awaiting approval: ")
            self.awaiting.append(f"{result.id or '?'} ({result.source}): {pending}")
            # 'RULE (terms) by approver, ...', as finished() writes it: the first rule is next
            rule = pending.split(" ")[0]
            self.awaiting_next.append(approval_next_step(result.id, rule) if result.id else "")
        elif status == "stale" and len(self.stale) < MAX_LISTED:
            self.stale.append(where)
        elif status == "degraded" and len(self.degraded) < MAX_LISTED:
            self.degraded.append(where)
        elif (
            status in ("failed", "locked", "catalog_missing", "unwritable")
            and len(self.failures) < MAX_LISTED
        ):
            self.failures.append(where)
        self.llm_calls += result.llm_calls or 0
        self.tokens += result.tokens or 0
        if status not in ("skipped", "invalid"):
            self.durations_ms.append(result.ms)
        for stage, ms in result.stage_ms.items():
            self.stage_ms.setdefault(stage, []).append(ms)
        self.checkpoint_bytes += result.checkpoint_bytes
        self.checkpoint_ms += result.checkpoint_ms
        self.checkpoint_io_ms += result.checkpoint_io_ms
        self.peak_rss_mb_worker = max(self.peak_rss_mb_worker, result.rss_mb)

    def as_json(self) -> dict[str, Any]:
        return {
            "requests": self.requests,
            "status": dict(sorted(self.status.items())),
            "outcomes": dict(sorted(self.outcomes.items())),
            "llm_calls": self.llm_calls,
            "tokens": self.tokens,
            "p50_ms": round(percentile(self.durations_ms, 50), 2),
            "p95_ms": round(percentile(self.durations_ms, 95), 2),
            "wall_s": round(self.wall_s, 3),
            "workers": self.workers,
            "checkpoint_bytes": self.checkpoint_bytes,
            "checkpoint_ms": round(self.checkpoint_ms, 1),
            "peak_rss_mb_parent": round(self.peak_rss_mb_parent, 1),
            "peak_rss_mb_worker": round(self.peak_rss_mb_worker, 1),
            "exit_code": int(self.exit_code),
            "failures": self.failures,
            "invalid": self.invalid,
            "stale": self.stale,
            "degraded": self.degraded,
            "storage_error": self.storage_error,
        }


def percentile(values: list[float], pct: float) -> float:
    """Nearest-rank percentile; 0 for no values."""
    if not values:
        return 0.0
    ordered = sorted(values)
    rank = max(1, -(-len(ordered) * pct // 100))
    return float(ordered[int(rank) - 1])
