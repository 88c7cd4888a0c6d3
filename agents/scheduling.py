"""Scheduling: run the CP-SAT planner with the current constraint set (the student's plus
what refinement added), pick next-term sections, and check the result with the independent
verifier. Records what the solver proved and why.

The first round optimizes the student's goal: with a graduation target and no cap of their
own, the cap is the highest any load rule allows anyone (the overload ceiling), so the
policy critique - not the planner - decides whether this student may carry it.
"""

from __future__ import annotations

import structlog

from agents.artifacts import (
    ConstraintSet,
    IntakeResult,
    NextTermSections,
    RequirementsProposal,
    Schedule,
    ScheduledCourse,
    ScheduledTerm,
    SectionPick,
)
from agents.catalog import Term
from agents.planner import (
    PlanConstraints,
    PlanResult,
    SectionChoice,
    always_clashing,
    describe,
    never_free,
    plan,
    select_sections,
)
from agents.toolbox import Toolbox
from agents.verifier import verify_plan

log = structlog.get_logger(__name__)

NOT_NEEDED = {
    "policy_question": "a policy question needs no plan",
    "check_progress": "a progress check needs no new plan; the audit answers it",
}


def _load_limits(tools: Toolbox) -> tuple[float, float]:
    """(standard cap, highest cap any rule allows) from the catalog's load rules."""
    standard = [
        r.limit
        for r in tools.catalog.policies
        if r.kind == "max_units_per_term" and r.limit and not r.applies_when.status_in
    ]
    overload = [r.limit for r in tools.catalog.policies if r.kind == "overload" and r.limit]
    std = min(standard) if standard else 54.0
    return std, max([std, *overload])


def initial_constraints(intake: IntakeResult, tools: Toolbox) -> ConstraintSet:
    """The round-1 constraint set: the student's own wishes, nothing from policy yet."""
    standard, ceiling = _load_limits(tools)
    goals = intake.goals
    term_caps: dict[str, float] = {}
    if goals.max_units_per_term is not None:
        # A wish above what any rule could allow is planned at the ceiling, not beyond.
        wish = min(goals.max_units_per_term, ceiling)
        if intake.intent == "plan_next_term":
            # "At most 27 units next semester" limits that term, not the rest of the degree.
            term_caps[intake.profile.next_term] = wish
            cap = ceiling if goals.target_graduation is not None else standard
        else:
            cap = wish
    elif goals.target_graduation is not None:
        cap = ceiling
    else:
        cap = standard
    fixed: dict[str, str] = {}
    if intake.intent == "plan_next_term":
        # Courses asked for in a next-term request are wanted in that term; a section clash
        # between them is then reported, not quietly planned away.
        nxt = Term.parse(intake.profile.next_term)
        fixed = {
            code: nxt.code
            for code in intake.constraints.include_courses
            if code in tools.catalog.course_by_code
            and tools.catalog.course(code).offered.offered_in(nxt)
        }
    return ConstraintSet(
        max_units_per_term=cap,
        term_max_units=term_caps,
        fixed=fixed,
        max_courses_per_term=goals.max_courses_per_term,
        terms_away=list(intake.constraints.terms_away),
        target_term=goals.target_graduation,
        include=list(intake.constraints.include_courses),
        avoid=list(intake.constraints.avoid_courses),
    )


def to_plan_constraints(cs: ConstraintSet, intake: IntakeResult, tools: Toolbox) -> PlanConstraints:
    interests: dict[str, float] = {}
    if intake.constraints.interests:
        ranked = tools.retriever.rank_courses(
            intake.constraints.interests, [c.code for c in tools.catalog.courses]
        )
        interests = {c: round(s, 3) for c, s in ranked.items() if s > 0}
    first = intake.profile.next_term
    pinned = {c for c, t in cs.fixed.items() if t == first}
    wanted = pinned | set(cs.include)
    prefs = intake.constraints.time_preferences
    # The next term's sections are known: keep pairs that can never both fit out of it,
    # and courses whose every section breaks the student's free-time wishes.
    pairs = [p for p in _clashing_pairs(tools, first) if not set(p) <= pinned]
    not_in = {
        c: [first]
        for c in never_free(
            tools.catalog, first, prefs.free_days, prefs.not_before, prefs.not_after
        )
        if c not in wanted
    }
    return PlanConstraints(
        max_units_per_term=cs.max_units_per_term,
        min_units_per_term=cs.min_units_per_term,
        term_max_units=dict(cs.term_max_units),
        term_min_units=dict(cs.term_min_units),
        max_courses_per_term=cs.max_courses_per_term,
        min_units_planned=cs.min_units_planned,
        terms_away=list(cs.terms_away),
        target_term=cs.target_term,
        include=list(cs.include),
        avoid=list(cs.avoid),
        fixed=dict(cs.fixed),
        exclusive_pairs={first: pairs} if pairs else {},
        not_in_term=not_in,
        interests=interests,
        time_limit_s=tools.settings.planner_time_limit_s,
    )


_PAIRS: dict[tuple[int, str], list[tuple[str, str]]] = {}


def _clashing_pairs(tools: Toolbox, term: str) -> list[tuple[str, str]]:
    key = (id(tools.catalog), term)
    if key not in _PAIRS:
        _PAIRS[key] = always_clashing(tools.catalog, term)
    return _PAIRS[key]


def run(
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
    cs = constraints or initial_constraints(intake, tools)
    if cs.max_units_per_term <= 0:
        # A zero cap (e.g. no registration while suspended) leaves nothing to solve.
        return Schedule(
            status="done",
            round=round,
            constraints=cs,
            solver_status="infeasible",
            reasons=[
                f"every term is capped at {cs.max_units_per_term:g} units, so no term can "
                "take a course and the remaining requirements cannot be planned"
            ],
        )
    pc = to_plan_constraints(cs, intake, tools)
    programs = _plannable_programs(intake, proposal)
    assert intake.student is not None  # the intake stage always records it
    result = plan(tools.catalog, intake.student, programs, pc)
    choice = _sections(result, intake, tools)
    moved: list[str] = []
    if choice is not None and choice.status == "clash":
        result, choice, moved = _avoid_clash(result, choice, pc, cs, programs, intake, tools)
    schedule = _schedule(result, cs, round, intake, tools)
    if moved:
        schedule.reasons.append(
            f"{', '.join(moved)} moved out of {choice.term if choice else 'the next term'} "
            "because their sections clash with the rest of that term"
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
        schedule.verification = [f"{d.kind}: {d.message}" for d in defects]
        if defects:
            log.error(
                "scheduling.verifier_defects",
                request=intake.request_id,
                defects=schedule.verification,
            )
    log.info(
        "scheduling.done",
        request=intake.request_id,
        round=round,
        status=result.status,
        graduation=result.graduation_term,
        ms=result.solve_ms,
    )
    return schedule


def _sections(result: PlanResult, intake: IntakeResult, tools: Toolbox) -> SectionChoice | None:
    """Sections for the first term that has courses (None when the plan has none)."""
    first = next((t for t in result.terms if t.courses), None)
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


def _avoid_clash(
    result: PlanResult,
    choice: SectionChoice,
    pc: PlanConstraints,
    cs: ConstraintSet,
    programs: list[str],
    intake: IntakeResult,
    tools: Toolbox,
) -> tuple[PlanResult, SectionChoice, list[str]]:
    """Re-plan with the courses outside the clash-free alternative kept out of the clashing
    term, a few times over. A re-plan is kept only when it graduates no later and has fewer
    clashes; courses the student pinned to the term are never moved (a clash between them
    is reported instead)."""
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
        again = plan(
            tools.catalog,
            intake.student,
            programs,
            pc.model_copy(update={"not_in_term": barred}),
        )
        if again.status == "infeasible" or again.graduation_term is None:
            break
        if Term.parse(again.graduation_term) > grad:
            break
        again_choice = _sections(again, intake, tools)
        if again_choice is None or len(again_choice.clashes) >= len(best_choice.clashes):
            break
        best, best_choice = again, again_choice
        moved += [c for c in movable if c not in moved]
        if again_choice.status != "clash":
            break
    return best, best_choice, moved


def _plannable_programs(intake: IntakeResult, proposal: RequirementsProposal) -> list[str]:
    """Target programs minus what-if programs the student may not add (critique flags those)."""
    if proposal.audit is None:
        return list(intake.target_programs)
    blocked = {p.code for p in proposal.audit.programs if not p.eligible}
    return [p for p in intake.target_programs if p not in blocked]


def _schedule(
    result: PlanResult, cs: ConstraintSet, round: int, intake: IntakeResult, tools: Toolbox
) -> Schedule:
    catalog = tools.catalog
    assert intake.student is not None  # the intake stage always records it
    away = set(cs.terms_away) | set(intake.student.terms_away)
    terms = []
    for t in result.terms:
        courses = [
            ScheduledCourse(
                course=code,
                title=catalog.course(code).title,
                units=catalog.course(code).units,
                satisfies=result.requirement_of.get(code, ["free elective"]),
            )
            for code in t.courses
        ]
        terms.append(
            ScheduledTerm(
                term=t.term,
                label=Term.parse(t.term).label(),
                courses=courses,
                units=t.units,
                away=t.term in away and not t.courses,
            )
        )
    return Schedule(
        status="done",
        round=round,
        constraints=cs,
        solver_status=result.status,
        terms=terms,
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
        clashes=[*choice.clashes, *choice.free_time_conflicts],
        unscheduled=list(choice.unscheduled),
        alternative=choice.alternative,
    )
