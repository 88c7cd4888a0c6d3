"""The CP-SAT planner keeps the constraints it is given: included, avoided and fixed courses,
per-term course limits, courses kept out of a term or apart, a minimum of planned units, the
sharing limit between a major and a minor, and a note for consent prerequisites."""

from __future__ import annotations

from agents.planner import PlanConstraints, plan
from agents.verifier import verify_plan
from tests.planner_helpers import FS, required
from tests.planner_strategies import catalog, course, program, student


def test_include_avoid_fixed_and_course_limit_are_kept() -> None:
    cat = catalog(
        [course(f"10-10{i}", 9, FS) for i in range(5)],
        [
            program(
                "MAJ",
                {
                    "kind": "course_set",
                    "id": "any",
                    "patterns": ["10-1xx"],
                    "min_courses": 3,
                },
            )
        ],
    )
    c = PlanConstraints(
        max_units_per_term=54,
        include=["10-104"],
        avoid=["10-100"],
        fixed={"10-103": "F2027"},
        max_courses_per_term=1,
    )
    result = plan(cat, student(["MAJ"]), ["MAJ"], c)
    assert [(t.term, t.courses) for t in result.terms] == [
        ("S2027", ["10-101"]),
        ("F2027", ["10-103"]),
        ("S2028", ["10-104"]),
    ]
    assert verify_plan(cat, student(["MAJ"]), ["MAJ"], c, result) == []


def test_not_in_term_and_exclusive_pairs_keep_courses_apart() -> None:
    cat = catalog(
        [course(f"10-10{i}", 9, FS) for i in range(3)],
        [program("MAJ", required("10-100", "10-101", "10-102"))],
    )
    free = plan(cat, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=27))
    assert [(t.term, t.courses) for t in free.terms] == [("S2027", ["10-100", "10-101", "10-102"])]
    c = PlanConstraints(
        max_units_per_term=27,
        not_in_term={"10-100": ["S2027"]},
        exclusive_pairs={"S2027": [("10-101", "10-102")]},
    )
    kept = plan(cat, student(["MAJ"]), ["MAJ"], c)
    assert [(t.term, t.courses) for t in kept.terms] == [
        ("S2027", ["10-101"]),
        ("F2027", ["10-100", "10-102"]),
    ]
    assert verify_plan(cat, student(["MAJ"]), ["MAJ"], c, kept) == []


def test_min_units_planned_adds_free_electives() -> None:
    cat = catalog(
        [course("10-101", 9, FS), course("20-100", 9, FS)],
        [program("MAJ", required("10-101"))],
    )
    result = plan(
        cat, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=54, min_units_planned=18)
    )
    assert [(t.term, t.courses) for t in result.terms] == [("S2027", ["10-101", "20-100"])]
    assert result.requirement_of["20-100"] == ["free elective"]


def test_sharing_limit_between_major_and_minor_adds_a_course() -> None:
    cat = catalog(
        [course("10-101", 9, FS), course("10-102", 9, FS), course("10-103", 9, FS)],
        [
            program("MAJ", required("10-101", "10-102")),
            program(
                "MIN",
                {"kind": "course_set", "id": "two", "patterns": ["10-1xx"], "min_courses": 2},
                kind="minor",
                sharing=1,
            ),
        ],
    )
    result = plan(cat, student(["MAJ"]), ["MAJ", "MIN"], PlanConstraints(max_units_per_term=54))
    assert result.units_planned == 27
    assert sorted(c for t in result.terms for c in t.courses) == ["10-101", "10-102", "10-103"]
    assert (
        verify_plan(
            cat, student(["MAJ"]), ["MAJ", "MIN"], PlanConstraints(max_units_per_term=54), result
        )
        == []
    )


def test_consent_prerequisite_is_planned_with_a_note() -> None:
    cat = catalog(
        [course("10-101", 9, FS, "consent(instructor)")], [program("MAJ", required("10-101"))]
    )
    result = plan(cat, student(["MAJ"]), ["MAJ"], PlanConstraints(max_units_per_term=54))
    assert result.notes == ["10-101 needs instructor consent before registration"]
