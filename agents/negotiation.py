"""The negotiation rules: when the loop goes on, how each round is recorded, and the
terminal status a run ends with. The machine's guards and callbacks call these; it decides
nothing itself.

A *round* is one schedule and its critique; the case's ``round`` is the number of the
current round (``Schedule.round``), so ``max_rounds`` bounds how many schedules are
proposed and at most ``max_rounds - 1`` refinements happen.

- after a critique: ``awaits_approval`` (what is left needs a person's approval: the run
  stops in ``awaiting_approval`` until ``decided``, then the critique runs again with the
  decisions), else ``wants_refinement`` (not approved, not "not needed", rounds left);
- after a refinement: ``revised`` (a new constraint set goes back to scheduling, and
  ``close_round`` records the round); otherwise the loop ends;
- leaving the loop: ``conclude`` gives the terminal status and the last round's record,
  whose resolution is ``no_change`` (after a refinement that changed nothing),
  ``infeasible``, ``approved`` or ``max_rounds``.

Terminal status, first match wins:

1. ``answered`` - a policy question or progress check: no plan was asked for.
2. ``needs_input`` - the intake left a question that blocks planning: which programs to
   add, drop or plan for (open questions on ``programs``, ``add_programs`` or
   ``drop_programs``: an unknown or ineligible program - a plan for the wrong programs is
   worthless), or no program to plan at all. Questions about the target, terms away,
   courses, times or the record do not block: the plan goes ahead without the unresolved
   wish and the question is passed on.
3. ``infeasible`` - the solver proved no plan exists. Refinement only tightens a
   constraint set or drops the target, so it cannot make an infeasible plan feasible.
4. ``unresolved_after_max_rounds`` - the critique rejected the last schedule and no round
   is left or refinement could change nothing.
5. ``approved`` - approved with no risk at all; ``approved_with_risks`` - approved with
   risks, or conditional (soft violations, approvals to obtain).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from agents.artifacts import (
    ApprovalItem,
    Critique,
    IntakeResult,
    NegotiationRound,
    OpenQuestion,
    Outcome,
    Refinement,
    Schedule,
)
from agents.case import Case
from agents.catalog import Term, credits_text, term_label

Resolution = Literal["approved", "revised", "no_change", "max_rounds", "infeasible"]

BLOCKING_FIELDS = frozenset({"programs", "add_programs", "drop_programs"})
ANSWER_INTENTS = frozenset({"policy_question", "check_progress"})


def blocking_questions(intake: IntakeResult) -> list[OpenQuestion]:
    """Open questions without whose answer no useful plan can be made."""
    return [q for q in intake.open_questions if q.field in BLOCKING_FIELDS]


def proposal_line(schedule: Schedule) -> str:
    """The schedule in one line: 'Graduate in Fall 2028 after 4 planned terms, at most 63
    units in a term (optimal)' - the heaviest term's load, and what the solver proved."""
    if schedule.status == "not_needed":
        return f"No plan: {schedule.not_needed_reason or 'none was needed'}"
    if schedule.solver_status == "infeasible" or schedule.graduation_term is None:
        why = "; ".join(schedule.reasons) or "no reason given"
        if schedule.infeasible_kind == "timed_out":
            return f"No plan found in time (not proved infeasible): {why}"
        return f"No feasible plan ({schedule.solver_status}): {why}"
    enrolled = [t for t in schedule.terms if not t.away and t.courses]
    heaviest = max((t.units for t in enrolled), default=0)
    n = len(enrolled)
    return (
        f"Graduate in {term_label(schedule.graduation_term)} after {n} planned "
        f"term{'s' if n != 1 else ''}, at most {credits_text(heaviest)} in a term "
        f"({schedule.solver_status})"
    )


def make_round(
    schedule: Schedule,
    critique: Critique,
    refinement: Refinement | None,
    resolution: Resolution,
    approvals: tuple[ApprovalItem, ...] = (),
) -> NegotiationRound:
    return NegotiationRound(
        approvals=[approval_line(a) for a in approvals if a.round == schedule.round],
        round=schedule.round,
        proposal=proposal_line(schedule),
        graduation_term=schedule.graduation_term,
        solver_status=schedule.solver_status,
        approval=critique.approval,
        violations=[
            f"{v.rule_id} ({v.term}): {v.message}" if v.term else f"{v.rule_id}: {v.message}"
            for v in critique.violations
        ],
        revision=list(refinement.changes) if refinement is not None else [],
        resolution=resolution,
    )


def terminal_status(intake: IntakeResult, schedule: Schedule, critique: Critique) -> Outcome:
    """How the run ends (see the module docstring for the order of the checks)."""
    if intake.intent in ANSWER_INTENTS:
        return "answered"
    if blocking_questions(intake) or not intake.target_programs:
        return "needs_input"
    if schedule.solver_status == "infeasible":
        return "infeasible"
    if critique.approval == "rejected":
        return "unresolved_after_max_rounds"
    if critique.approval == "conditional" or critique.risks:
        return "approved_with_risks"
    if critique.violations:
        # A not-needed critique that still found a violation (an ineligible minor).
        return "unresolved_after_max_rounds"
    return "approved"


# --------------------------------------------------------------------------- the loop


def wants_refinement(case: Case, max_rounds: int) -> bool:
    """After a critique: refine while it is neither approved nor not needed and rounds are
    left (a refinement that changed nothing never reaches another critique)."""
    return case.critique.approval not in ("approved", "not_needed") and case.round < max_rounds


def revised(case: Case) -> bool:
    """After refinement: a revised constraint set goes back to scheduling."""
    refinement = case.refinement
    return refinement.status == "revised" and refinement.constraints is not None


def close_round(case: Case) -> NegotiationRound:
    """The record of a round that refinement revised (the loop goes on)."""
    return make_round(case.schedule, case.critique, case.refinement, "revised", case.approvals)


# --------------------------------------------------------------------------- approvals


def approval_line(item: ApprovalItem) -> str:
    """'LOAD-OVERLOAD (S2027, F2027): approved by Dr. Lee on 2026-11-20 - strong record'."""
    head = f"{item.rule_id} ({', '.join(item.terms)})"
    if item.decision == "pending":
        return f"{head}: awaiting {item.approver} approval"
    how = " (--no-wait dry run)" if item.source == "no_wait" else ""
    return f"{head}: {item.decision} by {item.by} on {item.decided_on}{how} - {item.reason}"


def pending_approvals(case: Case) -> list[ApprovalItem]:
    """What the current critique needs a person to approve, when that is all that stands
    in the way: the soft violations of rules it suggests approving (``needs_approval``).
    With a hard violation left, refinement goes first (its fix may make the approval moot),
    so nothing is asked yet."""
    critique = case.critique
    if critique.status != "done" or any(v.severity == "hard" for v in critique.violations):
        return []
    asks = {m.rule_id: m for m in critique.suggestions if m.action == "needs_approval"}
    items = []
    for rule_id, mod in asks.items():
        found = [v for v in critique.violations if v.rule_id == rule_id and v.severity == "soft"]
        terms = sorted({v.term for v in found if v.term}, key=lambda t: Term.parse(t).index)
        if not found or not terms:
            continue
        items.append(
            ApprovalItem(
                rule_id=rule_id,
                terms=terms,
                approver=mod.approver or "advisor",
                round=case.round,
                message="; ".join(v.message for v in found),
                citation=found[0].citation,
            )
        )
    return items


def awaits_approval(case: Case) -> bool:
    """After a critique: stop for a person's decision (state ``awaiting_approval``)."""
    return bool(pending_approvals(case))


def decided(case: Case) -> bool:
    """Every approval the run asked for has a decision: the run may go on."""
    return all(a.decision != "pending" for a in case.approvals)


@dataclass(frozen=True)
class Conclusion:
    """How a run leaves the loop: its terminal status and the last round's record (None
    when nothing was proposed, so nothing was negotiated)."""

    outcome: Outcome
    last_round: NegotiationRound | None


def conclude(case: Case, *, after_refinement: bool) -> Conclusion:
    """Leaving the loop, from the critique or from a refinement that changed nothing."""
    schedule, critique = case.schedule, case.critique
    refinement = case.refinement if after_refinement else None
    outcome = terminal_status(case.need_intake(), schedule, critique)
    if schedule.status == "not_needed":
        return Conclusion(outcome, None)
    resolution: Resolution
    if refinement is not None:
        resolution = "no_change"
    elif outcome == "infeasible" or schedule.solver_status == "infeasible":
        resolution = "infeasible"
    elif critique.approval in ("approved", "not_needed"):
        resolution = "approved"
    else:
        resolution = "max_rounds"
    return Conclusion(
        outcome, make_round(schedule, critique, refinement, resolution, case.approvals)
    )
