"""The independent verifier: a valid plan passes, and each defect kind is caught in a
hand-broken plan, with its exact message."""

from __future__ import annotations

import subprocess
import sys
from typing import Any

import pytest

from agents.planner import PlanConstraints, PlannedTerm, PlanResult, plan, select_sections
from agents.verifier import Defect, verify_plan
from tests.planner_strategies import catalog, course, program, student

FS = ["fall", "spring"]


def sec(section: str, days: str, start: str, end: str) -> dict[str, Any]:
    return {
        "term": "S2027",
        "id": section,
        "meetings": [{"days": days, "start": start, "end": end}],
    }


CAT = catalog(
    [
        course("10-101", 9, FS, sections=[sec("A", "MWF", "09:00", "09:50")]),
        course("10-201", 9, FS, "10-101"),
        course("10-202", 9, FS, coreq="10-201"),
        course("10-301", 9, ["fall"]),
        course("10-401", 9, FS, anti=["10-301"], sections=[sec("A", "MW", "09:30", "10:20")]),
    ],
    [
        program(
            "MAJ",
            {
                "kind": "all_of",
                "id": "root",
                "children": [
                    {"kind": "course", "id": "a", "course": "10-101"},
                    {"kind": "course", "id": "b", "course": "10-201"},
                ],
            },
        )
    ],
)
STUDENT = student(["MAJ"])
DEFAULT = PlanConstraints(max_units_per_term=54)


def make(*rows: tuple[str, list[str]]) -> PlanResult:
    return PlanResult(
        status="optimal",
        terms=[PlannedTerm(term=t, courses=c, units=9.0 * len(c)) for t, c in rows],
        graduation_term=rows[-1][0],
        units_planned=9.0 * sum(len(c) for _, c in rows),
        extra_units=0.0,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of={},
        solve_ms=0.0,
    )


GOOD = make(("S2027", ["10-101"]), ("F2027", ["10-201"]))


def defects(
    result: PlanResult,
    constraints: PlanConstraints = DEFAULT,
    record: Any = STUDENT,
    sections: Any = None,
) -> list[tuple[str, str | None, str | None, str]]:
    found: list[Defect] = verify_plan(CAT, record, ["MAJ"], constraints, result, sections)
    return [(d.kind, d.term, d.course, d.message) for d in found]


def test_valid_plan_has_no_defects() -> None:
    assert defects(GOOD) == []


def test_planner_output_passes() -> None:
    result = plan(CAT, STUDENT, ["MAJ"], DEFAULT)
    assert verify_plan(CAT, STUDENT, ["MAJ"], DEFAULT, result) == []


def test_prerequisite_in_the_same_term_is_a_defect() -> None:
    assert defects(make(("S2027", ["10-101", "10-201"]))) == [
        ("prerequisite", "S2027", "10-201", "10-201 in S2027 needs 10-101 before the term")
    ]


def test_missing_corequisite_is_a_defect() -> None:
    broken = make(("S2027", ["10-101", "10-202"]), ("F2027", ["10-201"]))
    assert defects(broken) == [
        (
            "corequisite",
            "S2027",
            "10-202",
            "10-202 in S2027 needs 10-201 in the same or an earlier term",
        )
    ]


def test_course_outside_its_offering_is_a_defect() -> None:
    broken = make(("S2027", ["10-101", "10-301"]), ("F2027", ["10-201"]))
    assert defects(broken) == [
        (
            "offering",
            "S2027",
            "10-301",
            "10-301 is not offered in S2027 (offered: fall, every year)",
        )
    ]


def test_load_over_the_cap_is_a_defect() -> None:
    broken = make(("S2027", ["10-101"]), ("F2027", ["10-201", "10-202"]))
    assert defects(broken, PlanConstraints(max_units_per_term=9)) == [
        ("units_max", "F2027", None, "18 units in F2027 exceed the cap of 9")
    ]


def test_load_under_the_floor_is_a_defect() -> None:
    assert defects(GOOD, PlanConstraints(max_units_per_term=54, min_units_per_term=18)) == [
        ("units_min", "S2027", None, "9 units in S2027 are below the floor of 18"),
        ("units_min", "F2027", None, "9 units in F2027 are below the floor of 18"),
    ]


def test_too_many_courses_is_a_defect() -> None:
    broken = make(("S2027", ["10-101", "10-401"]), ("F2027", ["10-201"]))
    assert defects(broken, PlanConstraints(max_units_per_term=54, max_courses_per_term=1)) == [
        ("max_courses", "S2027", None, "2 courses in S2027 exceed the limit of 1")
    ]


def test_courses_in_a_term_away_are_a_defect() -> None:
    assert defects(GOOD, record=student(["MAJ"], away=["F2027"])) == [
        ("term_away", "F2027", None, "the student is away in F2027 but has 1 course planned")
    ]


def test_course_planned_twice_is_a_defect() -> None:
    broken = make(("S2027", ["10-101"]), ("F2027", ["10-201", "10-101"]))
    assert defects(broken) == [
        ("duplicate", "F2027", "10-101", "10-101 is planned in S2027 and again in F2027")
    ]


def test_passed_course_planned_again_is_a_defect() -> None:
    record = student(["MAJ"], [{"course": "10-101", "term": "S2026", "grade": "B"}])
    assert defects(make(("S2027", ["10-101"]), ("F2027", ["10-201"])), record=record) == [
        (
            "duplicate",
            "S2027",
            "10-101",
            "10-101 is already passed or in progress and is not repeatable",
        )
    ]


def test_antirequisites_together_are_a_defect() -> None:
    broken = make(("S2027", ["10-101"]), ("F2027", ["10-201", "10-301"]), ("S2028", ["10-401"]))
    assert defects(broken) == [
        ("antirequisite", "F2027", "10-301", "10-301 (F2027) and 10-401 (S2028) exclude each other")
    ]


def test_graduation_after_the_target_is_a_defect() -> None:
    assert defects(GOOD, PlanConstraints(max_units_per_term=54, target_term="S2027")) == [
        ("target", "F2027", None, "graduation in F2027 is after the target S2027")
    ]


def test_unmet_requirement_comes_from_the_audit() -> None:
    assert defects(make(("S2027", ["10-101"]))) == [
        ("requirement", None, None, "MAJ/b: 10-201 not taken yet")
    ]


def test_clashing_sections_are_a_defect() -> None:
    broken = make(("S2027", ["10-101", "10-401"]), ("F2027", ["10-201"]))
    choice = select_sections(CAT, "S2027", ["10-101", "10-401"])
    assert defects(broken, sections=choice) == [
        (
            "clash",
            "S2027",
            "10-101",
            "10-101 A (MWF 09:00-09:50) clashes with 10-401 A (MW 09:30-10:20)",
        )
    ]


def test_meeting_on_a_day_to_keep_free_is_a_defect() -> None:
    choice = select_sections(CAT, "S2027", ["10-101"], free_days=["W"])
    assert defects(GOOD, sections=choice) == [
        ("free_time", "S2027", "10-101", "10-101 A meets on W (09:00-09:50), a day to keep free")
    ]


@pytest.mark.slow
def test_verifier_imports_neither_planner_nor_solver() -> None:
    code = (
        "import sys, agents.verifier.verify; "
        "bad = [m for m in sys.modules if 'ortools' in m or 'planner' in m]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout
