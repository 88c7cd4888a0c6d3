"""Standing is projected (#27 item 3): a course restricted to some class standings
(``restricted_to``) is plannable in every term in which the student *will* have one of
them, from the units planned before it - a first-year's plan through graduation is not
infeasible because the major needs a course for juniors and seniors - and it is never
placed where the units before it leave the student outside those standings (the
independent verifier's check)."""

from __future__ import annotations

import pytest

from agents.catalog import Catalog, ClassStanding, load_catalog, load_student
from agents.planner import PlanConstraints, PlanResult, plan
from agents.verifier import verify_plan

CATALOG = load_catalog()
FIRST_YEAR = load_student("demos/students/econ-first-year.json")
LIMITS = PlanConstraints(max_units_per_term=54)


def restricted(code: str, standings: list[ClassStanding]) -> Catalog:
    """The sample catalog with ``code`` open to ``standings`` only."""
    courses = [
        c.model_copy(update={"restricted_to": standings}) if c.code == code else c
        for c in CATALOG.courses
    ]
    return CATALOG.model_copy(update={"courses": courses})


def units_before(cat: Catalog, result: PlanResult, code: str) -> float:
    total = FIRST_YEAR.units_earned(cat, include_in_progress=True)
    for term in result.terms:
        if code in term.courses:
            return total
        total += sum(cat.course_by_code[c].units for c in term.courses)
    raise AssertionError(f"{code} is not planned")


@pytest.mark.parametrize("code", ["73-230", "73-265"])  # required ECON-BA courses
def test_a_juniors_course_in_the_major_is_planned_once_junior_standing_is_reached(
    code: str,
) -> None:
    cat = restricted(code, ["junior", "senior"])
    result = plan(cat, FIRST_YEAR, FIRST_YEAR.programs, LIMITS)
    assert result.status in ("optimal", "feasible"), result.reasons
    assert verify_plan(cat, FIRST_YEAR, FIRST_YEAR.programs, LIMITS, result) == []
    (term,) = [t.term for t in result.terms if code in t.courses]
    first = next(t.term for t in result.terms if t.courses)
    assert term != first  # a first-year is not a junior at the start of the plan
    assert cat.standing_for_units(units_before(cat, result, code)) in ("junior", "senior")
    # The graduation the unrestricted catalog gives is kept: the restriction costs no term.
    free = plan(CATALOG, FIRST_YEAR, FIRST_YEAR.programs, LIMITS)
    assert result.graduation_term == free.graduation_term


def test_a_first_year_seminar_stays_open_while_the_student_may_still_be_a_first_year() -> None:
    seminars = [c.code for c in CATALOG.courses if c.restricted_to == ["first_year"]]
    assert seminars  # the sample catalog's first-year seminars
    result = plan(CATALOG, FIRST_YEAR, FIRST_YEAR.programs, LIMITS)
    assert verify_plan(CATALOG, FIRST_YEAR, FIRST_YEAR.programs, LIMITS, result) == []


def test_a_course_no_reachable_standing_may_take_is_still_refused() -> None:
    # Seniors only, and the target is the next spring: no senior standing by then.
    cat = restricted("73-230", ["senior"])
    limits = LIMITS.model_copy(update={"target_term": "S2027"})
    result = plan(cat, FIRST_YEAR, FIRST_YEAR.programs, limits)
    assert result.status == "infeasible"
