"""The next term's sections for a plan: the sections picked for its first planned term
(``first_term_sections``), re-plans that keep clashing courses out of that term
(``avoid_clash``), the artifact's record of the choice (``next_term_sections``) and the
section search's limit when it ran out (``section_limit``). Used by the scheduling stage and
by the alternative plans.
"""

from __future__ import annotations

from agents.artifacts import ConstraintSet, IntakeResult, NextTermSections, SectionPick
from agents.catalog import Term
from agents.planner import (
    PlanConstraints,
    PlanResult,
    SectionChoice,
    TimeLimit,
    describe,
    plan,
    select_sections,
)
from agents.toolbox import Toolbox

CLASH_REPLANS = 3


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


def avoid_clash(
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
        if again_choice is None or clash_cost(again_choice) >= clash_cost(best_choice):
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


def clash_cost(choice: SectionChoice) -> tuple[int, int]:
    """Clashes first, then broken time wishes."""
    return len(choice.clashes), len(choice.free_time_conflicts)


def next_term_sections(choice: SectionChoice) -> NextTermSections:
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
