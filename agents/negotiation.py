"""Negotiation helpers: one ``NegotiationRound`` per schedule, the machine's loop guards, and
the terminal status a finished run records.

A *round* is one schedule and its critique; ``rounds_used`` is the number of the current
round (``Schedule.round``), so ``max_rounds`` bounds how many schedules are proposed and at
most ``max_rounds - 1`` refinements happen.

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

from typing import Literal

from agents.artifacts import (
    Critique,
    IntakeResult,
    NegotiationRound,
    OpenQuestion,
    Outcome,
    Refinement,
    Schedule,
)
from agents.policy import num

Resolution = Literal["approved", "revised", "no_change", "max_rounds", "infeasible"]

BLOCKING_FIELDS = frozenset({"programs", "add_programs", "drop_programs"})
ANSWER_INTENTS = frozenset({"policy_question", "check_progress"})


def blocking_questions(intake: IntakeResult) -> list[OpenQuestion]:
    """Open questions without whose answer no useful plan can be made."""
    return [q for q in intake.open_questions if q.field in BLOCKING_FIELDS]


def proposal_line(schedule: Schedule) -> str:
    """The schedule in one line: 'Graduate F2028 in 4 planned terms, max 63 units/term
    (optimal)' - the heaviest term's load, and what the solver proved."""
    if schedule.status == "not_needed":
        return f"No plan: {schedule.not_needed_reason or 'none was needed'}"
    if schedule.solver_status == "infeasible" or schedule.graduation_term is None:
        why = "; ".join(schedule.reasons) or "no reason given"
        return f"No feasible plan ({schedule.solver_status}): {why}"
    enrolled = [t for t in schedule.terms if not t.away and t.courses]
    heaviest = max((t.units for t in enrolled), default=0)
    n = len(enrolled)
    return (
        f"Graduate {schedule.graduation_term} in {n} planned term{'s' if n != 1 else ''}, "
        f"max {num(heaviest)} units/term ({schedule.solver_status})"
    )


def make_round(
    schedule: Schedule,
    critique: Critique,
    refinement: Refinement | None,
    resolution: Resolution,
) -> NegotiationRound:
    return NegotiationRound(
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


def terminal_status(
    intake: IntakeResult,
    schedule: Schedule,
    critique: Critique,
    refinement: Refinement | None,
    rounds_used: int,
    max_rounds: int,
) -> Outcome:
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


def next_step(
    critique: Critique, refinement: Refinement | None, rounds_used: int, max_rounds: int
) -> Literal["refine", "synthesize"]:
    """After a critique: refine while it is not approved and rounds are left. ``refinement``
    is the previous round's; a refinement that changed nothing never loops again."""
    if critique.approval in ("approved", "not_needed") or rounds_used >= max_rounds:
        return "synthesize"
    if refinement is not None and refinement.status != "revised":
        return "synthesize"
    return "refine"


def after_refinement(refinement: Refinement) -> Literal["schedule", "synthesize"]:
    """A revised constraint set goes back to scheduling; anything else ends the loop."""
    if refinement.status == "revised" and refinement.constraints is not None:
        return "schedule"
    return "synthesize"
