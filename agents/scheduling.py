"""Scheduling: place the plan for this round, pick the next term's sections, and check the
result with the independent verifier. Records what the solver proved and why.

Round 1 places the plan the requirements stage proposed (``RequirementsProposal.plan``),
solved under the round-1 constraint set (``agents.planning.inputs``); no solve happens here unless
the next term's sections clash (a re-plan keeps the clashing courses out of that term). A
later round has the constraint set refinement produced, so it solves that one. Every solve
goes through the request's plan memo (``Toolbox.plans``, ``agents.planner.memo``): a problem
the request has solved already - the counter-proposal's blocker check of its only program,
say - is not solved again.
"""

from __future__ import annotations

import structlog

from agents.artifacts import ConstraintSet, IntakeResult, RequirementsProposal, Schedule
from agents.case import Case
from agents.catalog import credits_text
from agents.planner import PlanResult, TimeLimit, plan
from agents.planning import (
    avoid_clash,
    counter_proposal,
    first_term_sections,
    initial_constraints,
    next_term_sections,
    plannable_programs,
    scheduled_terms,
    section_limit,
    target_blockers,
    to_plan_constraints,
)
from agents.toolbox import Toolbox
from agents.verifier import verify_plan

log = structlog.get_logger(__name__)

NOT_NEEDED = {
    "policy_question": "a policy question needs no plan",
    "check_progress": "a progress check needs no new plan; the audit answers it",
}


def run(case: Case, tools: Toolbox) -> Schedule:
    """The stage: schedule the case's round under the constraints refinement left (the
    student's own wishes in round 1)."""
    return place(case.need_intake(), case.need_proposal(), case.constraints, case.round, tools)


def place(
    intake: IntakeResult,
    proposal: RequirementsProposal,
    constraints: ConstraintSet | None,
    round: int,
    tools: Toolbox,
) -> Schedule:
    if intake.intent in NOT_NEEDED:
        return Schedule(
            status="not_needed",
            not_needed_reason=NOT_NEEDED[intake.intent],
            round=round,
            solver_status="not_run",
        )
    cs = constraints or proposal.constraints or initial_constraints(intake, tools)
    if cs.max_units_per_term <= 0:
        # A zero cap (e.g. no registration while suspended) leaves nothing to solve.
        return Schedule(
            status="done",
            round=round,
            constraints=cs,
            solver_status="infeasible",
            infeasible_kind="proven",
            reasons=[
                f"every term is capped at {credits_text(cs.max_units_per_term)}, so no term can "
                "take a course and the remaining requirements cannot be planned"
            ],
        )
    pc = to_plan_constraints(cs, intake, tools)
    programs = plannable_programs(intake, proposal.audit)
    assert intake.student is not None  # the intake stage always records it
    if proposal.plan is not None and cs == proposal.constraints:
        result = proposal.plan  # the requirements stage solved exactly this
    else:
        result = tools.plans.plan(plan, tools.catalog, intake.student, programs, pc)
    choice = first_term_sections(result, intake, tools)
    moved: list[str] = []
    limits: list[TimeLimit] = []  # the stage's own steps whose time ran out
    clashed = choice is not None and choice.status == "clash"
    if choice is not None and (clashed or choice.free_time_conflicts):
        result, choice, moved = avoid_clash(result, choice, pc, cs, programs, intake, tools, limits)
    schedule = _schedule(result, cs, round, intake, tools)
    if choice is not None and choice.timed_out is not None:
        limits.append(section_limit(choice))
    if moved and clashed:
        schedule.reasons.append(
            f"{', '.join(moved)} moved out of {choice.term if choice else 'the next term'} "
            "because their sections clash with the rest of that term"
        )
    elif moved:
        # An equally good plan that keeps the time wishes is simply the plan: no risk.
        log.info("scheduling.kept_time_wishes", request=intake.request_id, moved=moved)
    if result.status == "infeasible" and result.earliest_feasible_term is not None:
        # Not a bare "no": the plan for the earliest feasible term, and what blocks the target.
        away = set(cs.terms_away) | set(intake.student.terms_away)
        schedule.counter_proposal = counter_proposal(
            tools.catalog, intake.student, programs, pc, result, away, limits, plans=tools.plans
        )
        schedule.target_blockers = target_blockers(
            tools.catalog, intake.student, programs, pc, plans=tools.plans
        )
    if result.status != "infeasible":
        if choice is not None:
            schedule.next_term = next_term_sections(choice)
        defects = verify_plan(
            tools.catalog,
            intake.student,
            programs,
            pc,
            result,
            # A clash or an unmet time wish is reported to the critique as a risk, not
            # counted as a verifier defect; a clean choice is verified.
            sections=choice
            if choice is not None and choice.status == "ok" and not choice.free_time_conflicts
            else None,
            next_term=choice.term if choice is not None else None,
        )
        # A forced course breaks the checks the student chose to override: that is reported
        # to the critique as such, not as a defect of the planner.
        forced = [d for d in defects if d.course in cs.forced and d.kind in FORCIBLE]
        defects = [d for d in defects if d not in forced]
        schedule.forced = [f"{d.kind}: {d.message}" for d in forced]
        schedule.verification = [f"{d.kind}: {d.message}" for d in defects]
        if defects:
            log.error(
                "scheduling.verifier_defects",
                request=intake.request_id,
                defects=schedule.verification,
            )
    schedule.time_limits.extend(limits)
    log.info(
        "scheduling.done",
        request=intake.request_id,
        round=round,
        status=result.status,
        infeasible_kind=result.infeasible_kind,
        graduation=result.graduation_term,
        ms=result.solve_ms,
    )
    return schedule


# Verifier findings a forced course may have: the checks forcing leaves out.
FORCIBLE = frozenset({"prerequisite", "corequisite", "offering"})


def _schedule(
    result: PlanResult, cs: ConstraintSet, round: int, intake: IntakeResult, tools: Toolbox
) -> Schedule:
    assert intake.student is not None  # the intake stage always records it
    away = set(cs.terms_away) | set(intake.student.terms_away)
    return Schedule(
        status="done",
        round=round,
        constraints=cs,
        solver_status=result.status,
        infeasible_kind=result.infeasible_kind,
        time_limits=list(result.time_limits),
        terms=scheduled_terms(result, tools.catalog, away),
        graduation_term=result.graduation_term,
        units_planned=result.units_planned,
        extra_units=result.extra_units,
        reasons=[*result.reasons, *result.notes],
        earliest_feasible_term=result.earliest_feasible_term,
        solve_ms=result.solve_ms,
    )
