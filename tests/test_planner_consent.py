"""Courses on someone's consent only when nothing as good exists: among course sets of equal
units the planner takes the one with fewer courses whose prerequisites need a signature
(an interest does not outweigh it), places a course after the course that meets its
prerequisite rather than on consent when graduation allows, and notes consent only where
the plan relies on it. The tie-break never costs a term or a unit."""

from __future__ import annotations

from agents.planner import PlanConstraints, plan
from agents.toolbox import Toolbox
from tests.harrow_helpers import hb_tools, round_one
from tests.planner_helpers import FS, required
from tests.planner_strategies import catalog, course, program, student

__all__ = ["hb_tools"]  # the module fixture, imported so pytest finds it here

PICK_ONE = {"kind": "course_set", "id": "pick", "courses": ["10-201", "10-202"], "min_courses": 1}
EITHER = catalog(
    [course("10-201", 9, FS, "consent(instructor)"), course("10-202", 9, FS)],
    [program("MAJ", PICK_ONE)],
)


def test_an_interest_does_not_bring_in_a_consent_course_over_an_equal_one() -> None:
    c = PlanConstraints(max_units_per_term=27, interests={"10-201": 1.0})
    result = plan(EITHER, student(["MAJ"]), ["MAJ"], c)
    assert [t.courses for t in result.terms] == [["10-202"]]
    assert result.notes == []


def test_a_consent_course_is_still_planned_when_it_saves_units() -> None:
    cheaper = catalog(
        [course("10-201", 9, FS, "consent(instructor)"), course("10-202", 12, FS)],
        [program("MAJ", PICK_ONE)],
    )
    result = plan(cheaper, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=27))
    assert [t.courses for t in result.terms] == [["10-201"]]
    assert result.notes == ["10-201 needs instructor consent before registration"]


# 10-098 needs 10-101 before it, or the instructor's consent. Two terms are needed anyway
# (36 units at 18 a term), so 10-098 can follow 10-101 at no cost.
AFTER = catalog(
    [
        course("10-101", 9, FS),
        course("10-098", 9, FS, "10-101 or consent(instructor)"),
        course("10-100", 9, FS),
        course("10-099", 9, FS),
    ],
    [program("MAJ", required("10-101", "10-098", "10-100", "10-099"))],
)


def test_a_course_follows_its_prerequisite_rather_than_needing_consent() -> None:
    result = plan(AFTER, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=18))
    first, second = (t.courses for t in result.terms)
    assert "10-101" in first and "10-098" in second
    assert result.notes == []  # the prerequisite is met: nobody needs to sign


def test_consent_is_used_when_graduation_depends_on_it() -> None:
    result = plan(AFTER, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=36))
    assert [t.courses for t in result.terms] == [["10-098", "10-099", "10-100", "10-101"]]
    assert result.notes == ["10-098 needs instructor consent before registration"]


def test_a_transfer_students_plan_relies_on_no_consent(hb_tools: Toolbox) -> None:
    """The fewest-credit plan used to fill a writing-intensive slot with PHYS 490 (senior
    research, department consent) although courses without a signature fit as well."""
    r = round_one("hb-transfer-fractional", hb_tools)
    assert r.proposal.plan is not None and r.proposal.plan.graduation_term == "T22028"
    assert r.proposal.plan.units_planned == 14.75
    assert not [k for k in r.critique.risks if k.kind == "consent_needed"]
    assert r.critique.approval == "approved"


def test_a_first_years_interests_bring_in_no_research_course(hb_tools: Toolbox) -> None:
    r = round_one("hb-first-year-gen-ed", hb_tools)
    assert r.proposal.plan is not None and r.proposal.plan.notes == []
    assert not [k for k in r.critique.risks if k.kind == "consent_needed"]
