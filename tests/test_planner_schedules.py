"""The CP-SAT planner, hand-checked plans asserted whole or term by term: prerequisite chains,
single-season and alternate-year offerings, terms away, free electives filling the degree
total, retakes below a minimum grade, in-progress courses, and nothing left to plan."""

from __future__ import annotations

from agents.planner import PlanConstraints, plan
from agents.verifier import verify_plan
from tests.planner_helpers import (
    ALTERNATE,
    CHAIN,
    CHAIN_REQ,
    FS,
    ok,
    required,
    terms,
    whole,
)
from tests.planner_strategies import catalog, course, program, student


def test_prerequisite_chain_forces_one_course_per_term() -> None:
    result = plan(CHAIN, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=36))
    assert whole(result) == ok(
        terms(("S2027", ["10-101"], 9), ("F2027", ["10-201"], 9), ("S2028", ["10-301"], 9)),
        CHAIN_REQ,
        27,
    )


def test_fall_only_course_forces_the_fall_term() -> None:
    cat = catalog(
        [course("10-101", 9, ["fall"]), course("10-102", 9, FS)],
        [program("MAJ", required("10-101", "10-102"))],
    )
    result = plan(cat, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=54))
    assert whole(result) == ok(
        terms(("S2027", ["10-102"], 9), ("F2027", ["10-101"], 9)),
        {"10-101": ["MAJ/r0"], "10-102": ["MAJ/r1"]},
        18,
    )


def test_alternate_year_offering_waits_for_the_even_fall() -> None:
    result = plan(ALTERNATE, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=54))
    assert whole(result) == ok(
        terms(
            ("S2027", ["10-102"], 9),
            ("F2027", [], 0),
            ("S2028", [], 0),
            ("F2028", ["10-101"], 9),
        ),
        {"10-101": ["MAJ/r0"], "10-102": ["MAJ/r1"]},
        18,
    )


def test_study_abroad_term_stays_empty() -> None:
    result = plan(
        CHAIN, student(["MAJ"], away=["F2027"]), ["MAJ"], PlanConstraints(max_units_per_term=54)
    )
    assert whole(result) == ok(
        terms(
            ("S2027", ["10-101"], 9),
            ("F2027", [], 0),
            ("S2028", ["10-201"], 9),
            ("F2028", ["10-301"], 9),
        ),
        CHAIN_REQ,
        27,
    )


def test_free_electives_fill_the_degree_total_with_the_fewest_units() -> None:
    cat = catalog(
        [course("10-101", 12, FS), course("20-100", 9, FS), course("20-110", 6, FS)],
        [program("MAJ", required("10-101"), total=27)],
    )
    result = plan(cat, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=18))
    assert whole(result) == ok(
        terms(("S2027", ["20-100", "20-110"], 15), ("F2027", ["10-101"], 12)),
        {"10-101": ["MAJ/r0"], "20-100": ["free elective"], "20-110": ["free elective"]},
        27,
    )


def test_course_passed_below_the_minimum_grade_is_retaken() -> None:
    cat = catalog(
        [course("10-101", 9, FS), course("10-201", 9, FS, "10-101[C]")],
        [program("MAJ", required("10-101", "10-201"))],
    )
    record = student(["MAJ"], [{"course": "10-101", "term": "S2026", "grade": "D"}])
    result = plan(cat, record, ["MAJ"], PlanConstraints(max_units_per_term=54))
    assert [t.courses for t in result.terms] == [["10-101"], ["10-201"]]
    assert verify_plan(cat, record, ["MAJ"], PlanConstraints(max_units_per_term=54), result) == []


def test_in_progress_course_counts_as_passed_at_the_current_term() -> None:
    record = student(["MAJ"], [{"course": "10-101", "term": "F2026", "status": "in_progress"}])
    result = plan(CHAIN, record, ["MAJ"], PlanConstraints(max_units_per_term=54))
    assert [(t.term, t.courses) for t in result.terms] == [
        ("S2027", ["10-201"]),
        ("F2027", ["10-301"]),
    ]


def test_nothing_left_graduates_at_the_current_term() -> None:
    record = student(["MAJ"], [{"course": c, "term": "S2026", "grade": "A"} for c in CHAIN_REQ])
    result = plan(CHAIN, record, ["MAJ"], PlanConstraints(max_units_per_term=54))
    assert (result.status, result.terms, result.graduation_term) == ("optimal", [], "F2026")
