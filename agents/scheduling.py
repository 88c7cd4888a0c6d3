"""Scheduling: place the plan for this round, pick the next term's sections, and check the
result with the independent verifier. Records what the solver proved and why.

Round 1 places the plan the requirements stage proposed (``RequirementsProposal.plan``),
solved under the round-1 constraint set (``agents.planning``); no solve happens here unless
the next term's sections clash (a re-plan keeps the clashing courses out of that term). A
later round has the constraint set refinement produced, so it solves that one. Every solve
goes through the request's plan memo (``Toolbox.plans``, ``agents.plan_memo``): a problem
the request has solved already - the counter-proposal's blocker check of its only program,
say - is not solved again.
"""

from __future__ import annotations

import structlog

from agents.artifacts import (
    ConstraintSet,
    IntakeResult,
    NextTermSections,
    RequirementsProposal,
    Schedule,
    SectionPick,
)
from agents.case import Case
from agents.catalog import Term, credits_text
from agents.counter_proposal import counter_proposal, scheduled_terms, target_blockers
from agents.planner import (
    PlanConstraints,
    PlanResult,
    SectionChoice,
    TimeLimit,
    describe,
    plan,
    select_sections,
)
from agents.planning import initial_constraints, plannable_programs, to_plan_constraints
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
        result, choice, moved = _avoid_clash(
            result, choice, pc, cs, programs, intake, tools, limits
        )
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
            schedule.next_term = _next_term(choice)
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


def first_term_sections(
    result: PlanResult, intake: IntakeResult, tools: Toolbox
) -> SectionChoice | None:
    """Sections for the student's next term - the next main term, or the short term the
    student named (``intake.profile.next_term``) - or, when the plan has no courses then,
    the first term after it that has some (None when the plan has none), as the student's
    time wishes and wanted courses ask."""
    nxt = Term.parse(intake.profile.next_term).index if intake.profile.next_term else -1
    planned = [t for t in result.terms if t.courses]
    first = next((t for t in planned if Term.parse(t.term).index >= nxt), None)
    first = first or next(iter(planned), None)
    if result.status == "infeasible" or first is None:
        return None
    prefs = intake.constraints.time_preferences
    return select_sections(
        tools.catalog,
        first.term,
        first.courses,
        free_days=prefs.free_days,
        not_before=prefs.not_before,
        not_after=prefs.not_after,
        required=[c for c in first.courses if c in intake.constraints.include_courses] or None,
    )


CLASH_REPLANS = 3
# Verifier findings a forced course may have: the checks forcing leaves out.
FORCIBLE = frozenset({"prerequisite", "corequisite", "offering"})


def _avoid_clash(
    result: PlanResult,
    choice: SectionChoice,
    pc: PlanConstraints,
    cs: ConstraintSet,
    programs: list[str],
    intake: IntakeResult,
    tools: Toolbox,
    limits: list[TimeLimit],
) -> tuple[PlanResult, SectionChoice, list[str]]:
    """Re-plan with the courses outside the clash-free alternative kept out of the clashing
    term, a few times over. A re-plan is kept only when it graduates no later and has fewer
    clashes, or as many clashes and fewer broken time wishes at no more units (a free
    elective swapped for one that keeps the wish); courses the student pinned to the term
    are never moved (a clash between them is reported instead). A re-plan whose time ran
    out is added to ``limits``: the clash was then not proved unavoidable."""
    assert intake.student is not None  # the intake stage always records it
    term = choice.term
    grad = Term.parse(result.graduation_term or term)
    barred: dict[str, list[str]] = dict(pc.not_in_term)
    moved: list[str] = []
    best, best_choice = result, choice
    for _ in range(CLASH_REPLANS):
        first = next(t for t in best.terms if t.courses)
        keep = set(best_choice.alternative or [])
        movable = [c for c in first.courses if c not in keep and c not in cs.fixed]
        if not keep or not movable:
            break
        for code in movable:
            barred[code] = sorted({*barred.get(code, []), term})
        again = tools.plans.plan(
            plan,
            tools.catalog,
            intake.student,
            programs,
            pc.model_copy(update={"not_in_term": barred}),
        )
        if again.infeasible_kind == "timed_out":
            limits.append(
                TimeLimit(
                    stage="clash_replan",
                    seconds=pc.time_limit_s,
                    message=f"the re-plan keeping {', '.join(movable)} out of {term} found no "
                    f"plan within its {pc.time_limit_s:g} s limit; the clash may be avoidable",
                )
            )
        if again.status == "infeasible" or again.graduation_term is None:
            break
        if Term.parse(again.graduation_term) > grad:
            break
        again_choice = first_term_sections(again, intake, tools)
        if again_choice is None or _cost(again_choice) >= _cost(best_choice):
            break
        if len(again_choice.clashes) == len(best_choice.clashes) and (
            again.units_planned > best.units_planned
        ):
            break  # a kept wish is not worth extra units
        best, best_choice = again, again_choice
        moved += [c for c in movable if c not in moved]
        if again_choice.status != "clash" and not again_choice.free_time_conflicts:
            break
    return best, best_choice, moved


def _cost(choice: SectionChoice) -> tuple[int, int]:
    """Clashes first, then broken time wishes."""
    return len(choice.clashes), len(choice.free_time_conflicts)


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


def _next_term(choice: SectionChoice) -> NextTermSections:
    picks = [
        SectionPick(
            course=course,
            section=section,
            meetings=[describe([m]) for m in choice.meetings.get(course, [])],
        )
        for course, section in sorted(choice.sections.items())
    ]
    return NextTermSections(
        term=choice.term,
        status=choice.status,
        sections=picks,
        clashes=list(choice.clashes),
        wish_conflicts=list(choice.free_time_conflicts),
        unscheduled=list(choice.unscheduled),
        alternative=choice.alternative,
        timed_out=choice.timed_out,
    )


def section_limit(choice: SectionChoice) -> TimeLimit:
    """The section search's limit that ran out, and what that leaves unproved."""
    seconds = choice.timed_out or 0.0
    what = (
        "the clashes listed are those of the best choice found; a clash-free one may exist"
        if choice.status == "clash"
        else "the choice is valid but not proved the best for the time wishes"
    )
    return TimeLimit(
        stage="section_selection",
        seconds=seconds,
        message=f"the {choice.term} section search ran out of its {seconds:g} s limit: {what}",
    )
