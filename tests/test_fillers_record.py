"""Fillers are courses a student fills a schedule with (#27 item 6):

- a course a student arranges (internship, independent study: ``free_elective`` false)
  does not fill an open requirement ("any course numbered 100 or above in these subjects")
  that lets it in only by subject or level, unless the student asks for it or nothing else
  fits - and then a risk says so;
- no filler is behind the record: nothing a passed course builds on (introductory calculus
  after multivariable calculus), and no introductory course of a subject the record is
  past."""

from __future__ import annotations

from typing import Any

from agents.artifacts import Schedule, ScheduledCourse, ScheduledTerm
from agents.catalog import Catalog, Term
from agents.checking.risks import arranged_risks
from agents.planner import PlanConstraints, PlanResult, plan
from agents.planner.fillers import behind_record, filler
from agents.planner.schema import ConstraintSet
from agents.planner.setup import PlanSetup
from tests.policy_data_helpers import plan_check
from tests.test_fillers import _catalog, _course, _student

LIMITS = PlanConstraints(max_units_per_term=4.0)


def _with(cat: Catalog, node: dict[str, Any]) -> Catalog:
    data = cat.model_dump(mode="json")
    data["programs"][0]["requirement"]["children"].append(node)
    return Catalog.model_validate(data)


def _open_set(subjects: list[str], **more: Any) -> dict[str, Any]:
    """An open requirement: a course by subject and level, no course named."""
    return {"kind": "course_set", "id": "open", "subjects": subjects, "min_level": 100,
            "min_courses": 1, **more}  # fmt: skip


def _short_internship() -> Catalog:
    # The internship carries half the units of a regular course: fewest units alone takes it.
    intern = _course("GEN 190", 0.5, free_elective=False, title="Internship")
    return _with(_catalog(total=2.0, extra=[intern]), _open_set(["GEN"]))


def _planned(result: PlanResult) -> set[str]:
    return {c for t in result.terms for c in t.courses}


def test_an_internship_does_not_fill_an_open_requirement_a_regular_course_meets() -> None:
    result = plan(_short_internship(), _student("ENS 100"), ["MAJ"], LIMITS)
    assert result.status == "optimal"
    assert "GEN 190" not in _planned(result)
    assert next(c for c, r in result.requirement_of.items() if r == ["MAJ/open"]).startswith("GEN")


def test_an_internship_the_student_asks_for_fills_it() -> None:
    limits = LIMITS.model_copy(update={"include": ["GEN 190"]})
    result = plan(_short_internship(), _student("ENS 100"), ["MAJ"], limits)
    assert result.requirement_of["GEN 190"] == ["MAJ/open"]


def test_an_internship_fills_an_open_requirement_when_nothing_else_fits_and_a_risk_says_so() -> (
    None
):
    cat = _with(_catalog(total=2.0), _open_set(["ARR"]))  # the internship is all there is
    result = plan(cat, _student("ENS 100"), ["MAJ"], LIMITS)
    assert result.status == "optimal"
    assert result.requirement_of["ARR 100"] == ["MAJ/open"]
    when = next(t.term for t in result.terms if "ARR 100" in t.courses)
    risks = arranged_risks(plan_check(cat, _student("ENS 100"), _schedule(cat, when, "MAJ/open")))
    assert [(r.kind, r.term) for r in risks] == [("other", when)]
    assert "ARR 100 (Internship) is arranged" in risks[0].message
    assert "no regular course fits" in risks[0].message
    # Named by the requirement (or asked for), it is no stand-in: no risk.
    named = _with(_catalog(total=2.0), _open_set(["ARR"], courses=["ARR 100"]))
    assert (
        arranged_risks(plan_check(named, _student("ENS 100"), _schedule(named, when, "MAJ/open")))
        == []
    )
    asked = _schedule(cat, when, "MAJ/open", include=["ARR 100"])
    assert arranged_risks(plan_check(cat, _student("ENS 100"), asked)) == []


def _schedule(cat: Catalog, when: str, satisfies: str, **constraints: Any) -> Schedule:
    course = cat.course("ARR 100")
    picked = [ScheduledCourse(course="ARR 100", title=course.title, units=course.units,
                              satisfies=[satisfies])]  # fmt: skip
    term = ScheduledTerm(term=when, label=Term.parse(when).label(), courses=picked, units=1.0)
    return Schedule(status="done", round=1, solver_status="optimal", terms=[term],
                    graduation_term=when, units_planned=1.0,
                    constraints=ConstraintSet(max_units_per_term=4.0, **constraints))  # fmt: skip


def _ladder() -> Catalog:
    """A calculus ladder and an introductory course of the subject nobody builds on."""
    calculus = [
        _course("CAL 101", 1.0, level=100, title="Calculus I"),
        _course("CAL 102", 1.0, level=100, prerequisites="CAL 101", title="Calculus II"),
        _course("CAL 201", 1.0, level=200, prerequisites="CAL 102", title="Multivariable Calculus"),
        _course("CAL 202", 1.0, level=200, prerequisites="CAL 102", title="Linear Algebra"),
        _course("CAL 105", 1.0, level=100, title="Quantitative Reasoning"),
        _course("CAL 230", 1.0, level=200, prerequisites="CAL 102", title="Differential Equations"),
        _course("CAL 310", 1.0, level=300, prerequisites="CAL 201", title="Real Analysis"),
    ]
    return _catalog(total=12.0, extra=calculus)


def test_no_filler_behind_the_record() -> None:
    cat = _ladder()
    st = _student("ENS 100", "CAL 101", "CAL 102", "CAL 201", "CAL 202")
    setup = PlanSetup(cat, st, ["MAJ"], LIMITS)
    prep = setup.prep(setup.latest)
    assert {"CAL 101", "CAL 102", "CAL 105"} <= behind_record(prep)
    assert not filler(prep, "CAL 105")  # introductory, and the record is past it
    assert filler(prep, "CAL 230") and filler(prep, "CAL 310")  # further on: fine
    assert filler(prep, "GEN 100")  # another subject's introductory course
    result = plan(cat, st, ["MAJ"], LIMITS)
    assert result.status == "optimal"
    assert not _planned(result) & {"CAL 101", "CAL 102", "CAL 105"}


def test_a_first_year_may_still_fill_with_introductory_courses() -> None:
    prep_setup = PlanSetup(_ladder(), _student("ENS 100"), ["MAJ"], LIMITS)
    prep = prep_setup.prep(prep_setup.latest)
    assert filler(prep, "CAL 101") and filler(prep, "CAL 105")
