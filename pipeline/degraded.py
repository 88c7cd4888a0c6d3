"""Degraded results: a request that finished, but on the offline path because the LLM
backend failed.

A stage is *degraded* when an LLM call it made got no usable reply - the backend failed
(an HTTP error, a timeout, the call's deadline, a body that is not a reply: the ledger
records such a call with status ``error``) - so the backend answered from its
deterministic offline path (the offline parser, the template letter). A reply that came
and was rejected (status ``invalid``) is not degraded: it is replayed on resume and would
be rejected again. ``note_stage`` records degraded stages in ``WorkflowContext.degraded``
(stage -> what failed) after every stage, and clears a stage that runs again cleanly.

A degraded result is usable, and says so: the batch status ``degraded`` (exit code 6,
``ExitCode.DEGRADED``), ``advise run`` and ``advise show`` name the stages. The next run
of the request under the same fingerprints - so with the same, non-offline, backend -
redoes just those parts (``redo``): a degraded letter re-enters synthesis alone, anything
earlier starts the run again. Either way the ledger is kept, so every call that had a
reply is answered from it and only the failed calls are made again; the previous outputs
and checkpoint are kept as ``.prev``.
"""

from __future__ import annotations

import structlog

from pipeline.context import State, WorkflowContext, new_context

log = structlog.get_logger(__name__)


def note_stage(ctx: WorkflowContext, stage: State, calls_before: int) -> None:
    """After ``stage`` ran: degraded if one of the LLM calls it recorded (those from index
    ``calls_before`` on) failed, else not (any more)."""
    failed = [c for c in ctx.ledger.calls[calls_before:] if c.status == "error"]
    if not failed:
        ctx.degraded.pop(stage, None)
        return
    call = failed[0]
    ctx.degraded[stage] = f"{call.task} call to {call.backend}/{call.model} failed: {call.error}"
    log.warning("stage.degraded", request_id=ctx.request_id, stage=stage.value,
                error=ctx.degraded[stage], note="the offline path answered")  # fmt: skip


def redo(ctx: WorkflowContext) -> WorkflowContext:
    """The context a rerun of the degraded, finished ``ctx`` continues: just before its
    first degraded stage, with every LLM call it made still in the ledger."""
    first = min(ctx.degraded, key=list(State).index)
    stages = [s.value for s in ctx.degraded]
    log.warning("request.degraded", request_id=ctx.request_id, stages=stages,
                action=f"redo from {first.value}, previous outputs kept as .prev")  # fmt: skip
    if first is State.synthesis:
        # The checkpoint as it stood after the negotiation concluded: only the letter and
        # the recommendation built around it are redone.
        ctx.state = State.synthesis
        ctx.recommendation = None
        return ctx
    fresh = new_context(ctx.request, catalog_fingerprint=ctx.catalog_fingerprint,
                        config=ctx.config, catalog_source=ctx.catalog_source)  # fmt: skip
    fresh.ledger = ctx.ledger
    return fresh


def degraded_line(ctx: WorkflowContext) -> str:
    """One line naming what is degraded, for the batch summary and the console."""
    return "; ".join(f"{stage.value}: {why}" for stage, why in ctx.degraded.items())


def degraded_note(ctx: WorkflowContext) -> str:
    """What ``advise run`` says on stderr about a degraded result."""
    return (
        f"degraded: {degraded_line(ctx)}; the offline path answered - rerun with a working "
        "LLM backend to redo it"
    )
