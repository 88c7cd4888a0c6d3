"""A person's decisions on a run that stopped in ``awaiting_approval``.

``decide`` records an approval or a denial of a rule in the request's checkpoint, under the
request's lock and with the checkpoint's atomic write, so a decision is either on disk or
not at all; nothing runs. ``advise resume`` then continues from the critique
(``pipeline.runner``): the machine's ``decide`` trigger fires once every approval the run
asked for is decided. ``deny_pending`` is the batch's ``--no-wait`` dry run.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date
from typing import Literal

import structlog

from agents.artifacts import ApprovalItem
from pipeline.context import State, WorkflowContext
from pipeline.errors import ApprovalError, CheckpointMissingError
from pipeline.store import CheckpointStore, check_request_id

log = structlog.get_logger(__name__)

Verdict = Literal["approved", "denied"]
NO_WAIT_BY = "batch --no-wait"


def pending(ctx: WorkflowContext) -> list[ApprovalItem]:
    return [a for a in ctx.approvals if a.decision == "pending"]


def _describe(items: Sequence[ApprovalItem]) -> str:
    return ", ".join(f"{a.rule_id} ({', '.join(a.terms)})" for a in items) or "none"


def apply_decision(
    ctx: WorkflowContext,
    rule: str,
    verdict: Verdict,
    *,
    by: str,
    reason: str,
    on: date,
    terms: Sequence[str] = (),
    source: Literal["advisor", "no_wait"] = "advisor",
) -> list[ApprovalItem]:
    """Decide the pending approvals of ``rule`` (only ``terms`` when given) in ``ctx``;
    the decided items. A partial decision splits an item: the rest stays pending."""
    rid = ctx.request_id
    if ctx.state is not State.awaiting_approval:
        raise ApprovalError(
            rid,
            f"it is in state {ctx.state.value!r}, not awaiting approval; approvals are "
            "recorded only while a run waits for them (see 'advise status')",
        )
    waiting = pending(ctx)
    mine = [a for a in waiting if a.rule_id == rule]
    if not mine:
        raise ApprovalError(
            rid, f"no pending approval of rule {rule!r}; pending: {_describe(waiting)}"
        )
    asked = {t for a in mine for t in a.terms}
    unknown = [t for t in terms if t not in asked]
    if unknown:
        raise ApprovalError(
            rid,
            f"rule {rule} awaits approval for {', '.join(sorted(asked))}, not "
            f"{', '.join(unknown)}; pass one of those with --term, or no --term for all",
        )
    if not by.strip() or not reason.strip():
        raise ApprovalError(rid, "a decision needs --by (who) and --reason (why), not blank")
    chosen = set(terms) or asked
    decided: list[ApprovalItem] = []
    out: list[ApprovalItem] = []
    for item in ctx.approvals:
        if item not in mine:
            out.append(item)
            continue
        now = [t for t in item.terms if t in chosen]
        later = [t for t in item.terms if t not in chosen]
        if now:
            done = item.model_copy(
                update={
                    "terms": now,
                    "decision": verdict,
                    "by": by.strip(),
                    "reason": reason.strip(),
                    "decided_on": on.isoformat(),
                    "source": source,
                }
            )
            decided.append(done)
            out.append(done)
        if later:
            out.append(item.model_copy(update={"terms": later}))
    ctx.approvals = out
    return decided


def deny_pending(ctx: WorkflowContext, on: date) -> None:
    """``--no-wait``: every pending approval is denied, and says why."""
    for rule in dict.fromkeys(a.rule_id for a in pending(ctx)):
        apply_decision(
            ctx,
            rule,
            "denied",
            by=NO_WAIT_BY,
            reason="dry run: approvals are treated as denied",
            on=on,
            source="no_wait",
        )


def decide(
    store: CheckpointStore,
    request_id: str,
    rule: str,
    verdict: Verdict,
    *,
    by: str,
    reason: str,
    on: date,
    terms: Sequence[str] = (),
) -> WorkflowContext:
    """Record a decision in the request's checkpoint (locked, atomic); the saved context."""
    rid = check_request_id(request_id)
    with store.lock(rid):
        ctx = store.load(rid)
        if ctx is None:
            raise CheckpointMissingError(rid, store.root)
        decided = apply_decision(ctx, rule, verdict, by=by, reason=reason, on=on, terms=terms)
        store.save(ctx)
        store.flush()
    log.info(
        "approval.decided",
        request_id=rid,
        rule=rule,
        decision=verdict,
        terms=[t for a in decided for t in a.terms],
        by=by,
        still_pending=len(pending(ctx)),
    )
    return ctx
