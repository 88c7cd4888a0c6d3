"""The CP-SAT planner, requests it cannot meet: the reasons it gives (prerequisite chains and
units that do not fit before the target, offerings after it) with the earliest feasible
graduation, and unknown programs and courses rejected."""

from __future__ import annotations

import pytest

from agents.errors import PlanningError, UnknownProgramError
from agents.planner import PlanConstraints, plan
from tests.planner_helpers import ALTERNATE, CHAIN, FS, infeasible, required, whole
from tests.planner_strategies import catalog, course, program, student


def test_chain_longer_than_the_target_is_explained_with_the_earliest_graduation() -> None:
    c = PlanConstraints(max_units_per_term=36, target_term="F2027")
    assert whole(plan(CHAIN, student(["MAJ"]), ["MAJ"], c)) == infeasible(
        [
            "the prerequisite chain 10-101 -> 10-201 -> 10-301 needs 3 more terms (10-301 no "
            "earlier than S2028) but only 2 remain through the target F2027",
            "graduating by F2027 is not possible; the earliest feasible graduation is S2028",
        ],
        "S2028",
    )


def test_units_that_do_not_fit_under_the_cap_are_explained() -> None:
    c = PlanConstraints(max_units_per_term=9, target_term="S2027")
    assert whole(plan(CHAIN, student(["MAJ"]), ["MAJ"], c))["reasons"] == [
        "the prerequisite chain 10-101 -> 10-201 -> 10-301 needs 3 more terms (10-301 no "
        "earlier than S2028) but only 1 remains through the target S2027",
        "27 remaining units need 3 terms at 9 units, only 1 remains through the target S2027",
        "graduating by S2027 is not possible; the earliest feasible graduation is S2028",
    ]


def test_alternate_year_offering_after_the_target_is_named() -> None:
    c = PlanConstraints(max_units_per_term=54, target_term="S2028")
    assert whole(plan(ALTERNATE, student(["MAJ"]), ["MAJ"], c)) == infeasible(
        [
            "10-101 is offered only in fall of even years; its next offering is F2028, after "
            "the target S2028",
            "graduating by S2028 is not possible; the earliest feasible graduation is F2028",
        ],
        "F2028",
    )


def test_unknown_program_and_course_are_rejected() -> None:
    with pytest.raises(UnknownProgramError):
        plan(CHAIN, student(["MAJ"]), ["NOPE"], PlanConstraints(max_units_per_term=54))
    with pytest.raises(PlanningError, match="include: unknown course '99-999'"):
        plan(
            CHAIN,
            student(["MAJ"]),
            ["MAJ"],
            PlanConstraints(max_units_per_term=54, include=["99-999"]),
        )


def test_a_course_that_cannot_be_planned_says_why_not_that_it_is_complete() -> None:
    """Issue #17 (repeats): a passed course asked for is a retake and is planned; the only
    courses the planner refuses are avoided ones or ones an earned anti-requisite excludes,
    and the reason says which, never "already complete"."""
    cat = catalog(
        [
            course("10-101", 9, FS),
            course("10-102", 9, FS, anti=["10-101"]),
            course("10-103", 9, FS),
        ],
        [program("MAJ", required("10-103"))],
    )
    record = student(["MAJ"], [{"course": "10-101", "term": "F2025", "grade": "B"}])
    fixed = plan(
        cat, record, ["MAJ"], PlanConstraints(max_units_per_term=27, fixed={"10-102": "S2027"})
    )
    assert fixed.reasons == [
        "10-102 is fixed in S2027 but the record has its anti-requisite 10-101, which excludes "
        "its credit"
    ]
    asked = plan(cat, record, ["MAJ"], PlanConstraints(max_units_per_term=27, include=["10-102"]))
    assert asked.notes == [
        "10-102 was asked for but the record has its anti-requisite 10-101, which excludes its "
        "credit, so it is not planned"
    ]
    retake = plan(cat, record, ["MAJ"], PlanConstraints(max_units_per_term=27, include=["10-101"]))
    assert [t.courses for t in retake.terms] == [["10-101", "10-103"]] and retake.notes == []
