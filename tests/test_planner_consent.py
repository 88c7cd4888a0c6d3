"""Courses on someone's consent only when nothing as good exists: among course sets of equal
units the planner takes the one with fewer courses whose prerequisites need a signature
(an interest does not outweigh it), places a course after the course that meets its
prerequisite rather than on consent when graduation allows, and notes consent only where
the plan relies on it. Consent never costs a term; "X or consent" is a last resort (issue
17, item 7): X is taken first even at X's units, consent only when X does not fit before
the earliest graduation, and then the critique flags it once."""

from __future__ import annotations

from pathlib import Path

from agents.artifacts import Risk
from agents.catalog import use_catalog
from agents.planner import PlanConstraints, alternatives, plan
from agents.toolbox import Toolbox
from tests import offering_helpers
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


# 10-201 (required) needs 40-101 or the instructor's consent; 40-101 counts toward nothing.
# Forty-five free electives make the candidate pool prune: 40-101 (another subject, level
# 200) is no filler the pool would pick, so only the prerequisite route brings it in.
ROUTE = [
    course("40-101", 9, FS, level=200),
    course("10-201", 9, FS, "40-101 or consent(instructor)"),
    course("10-150", 9, FS),
    course("10-160", 9, FS),
]
FILLERS = [course(f"30-{100 + i}", 9, FS) for i in range(45)]


def test_the_prerequisite_route_is_taken_at_no_cost_in_a_large_pool() -> None:
    """The pool read the consent branch as covering the OR and never brought in 40-101: the
    plan took 10-201 on consent beside two free electives."""
    cat = catalog([*ROUTE, *FILLERS], [program("MAJ", required("10-201", "10-150"), total=36)])
    with use_catalog(cat):  # not the module's Harrow Bay calendar
        result = plan(cat, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=18))
    where = {c: t.term for t in result.terms for c in t.courses}
    assert (where["40-101"], where["10-201"], len(where)) == ("S2027", "F2027", 4)
    assert result.notes == []


NO_ROOM = catalog(ROUTE, [program("MAJ", required("10-201", "10-150", "10-160"))])


def test_the_prerequisite_is_taken_first_even_at_more_units_when_graduation_holds() -> None:
    """Two terms are needed anyway at 18 a term: 40-101 fits before 10-201, so consent is no
    route to plan on although it would save 9 units."""
    with use_catalog(NO_ROOM):
        result = plan(NO_ROOM, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=18))
    assert [(t.term, t.courses) for t in result.terms] == [
        ("S2027", ["10-150", "40-101"]),
        ("F2027", ["10-160", "10-201"]),
    ]
    assert (result.status, result.notes) == ("optimal", [])


def test_consent_is_used_and_flagged_once_when_the_prerequisite_cannot_fit(
    tmp_path: Path,
) -> None:
    """At 27 a term everything fits in S2027 only on consent; 40-101 first would cost a term."""
    r = offering_helpers.round_one(NO_ROOM, tmp_path, ["MAJ"], max_units_per_term=27)
    assert r.terms == [("S2027", ["10-150", "10-160", "10-201"])]
    consent = Risk(
        kind="consent_needed",
        message="10-201 in Spring 2027 needs instructor consent before registration",
        term="S2027",
    )
    assert [k for k in r.critique.risks if k.kind == "consent_needed"] == [consent]
    assert [k for k in r.risks if "consent" in k.message] == [consent]


def test_the_consent_route_is_the_next_best_alternative_though_it_saves_units() -> None:
    me = student(["MAJ"])
    c = PlanConstraints(max_units_per_term=18)
    with use_catalog(NO_ROOM):
        best = plan(NO_ROOM, me, ["MAJ"], c)
        found = alternatives(NO_ROOM, me, ["MAJ"], c, best, 1)
    assert [(a.kind, a.label, a.consent_courses) for a in found] == [
        ("next_best", "Next best: 9 units fewer, 1 more course on consent", ["10-201"])
    ]
