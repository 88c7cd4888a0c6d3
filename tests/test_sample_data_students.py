"""The shipped demo student records: the named ones are there, each validates against the
catalog, each history respects offerings and prerequisites, and the scenario students have
the facts their scenarios need.

Other parts of the pipeline (planner, scheduler, demos, eval) rely on the facts checked
here, so each test pins an exact fact rather than a loose property.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import (
    AllOf,
    AnyOf,
    Catalog,
    ConsentCond,
    CourseCond,
    PrereqNode,
    ProgramCond,
    StandingCond,
    StudentRecord,
    Term,
    UnitsCond,
    check_student_against_catalog,
    load_student,
)
from tests.sample_data_helpers import ROOT, STUDENT_FILES, catalog

__all__ = ["catalog"]  # the module fixture, imported so pytest finds it here


NAMED_STUDENTS = {
    "is-junior-cs-minor",
    "is-sophomore",
    "overload-low-gpa",
    "overload-high-gpa",
    "probation-student",
    "repeat-student",
    "transfer-student",
    "study-abroad",
    "senior-on-track",
    "econ-senior",
    "first-year-undeclared-ish",
    "math-major",
    "stat-major",
    "cs-junior",
    "cs-senior-pf",
    "high-gpa-junior",
    "part-time-risk",
}


def _prereq_met(
    node: PrereqNode, catalog: Catalog, student: StudentRecord, best: dict[str, float], units: float
) -> bool:
    if isinstance(node, CourseCond):
        if node.course not in best:
            return False
        need = catalog.grade_by_symbol[node.min_grade].points if node.min_grade else 0.0
        return best[node.course] >= need
    if isinstance(node, AllOf):
        return all(_prereq_met(c, catalog, student, best, units) for c in node.all)
    if isinstance(node, AnyOf):
        return any(_prereq_met(c, catalog, student, best, units) for c in node.any)
    if isinstance(node, StandingCond):
        order = ["first_year", "sophomore", "junior", "senior"]
        return order.index(catalog.standing_for_units(units)) >= order.index(node.standing)
    if isinstance(node, UnitsCond):
        return units >= node.units_completed
    if isinstance(node, ProgramCond):
        return node.program in student.programs
    assert isinstance(node, ConsentCond)
    return False  # no demo history relies on consent


def test_there_are_35_student_records_including_the_named_ones() -> None:
    ids = {p.stem for p in STUDENT_FILES}
    assert len(ids) == 35
    assert ids >= NAMED_STUDENTS


@pytest.mark.parametrize("path", STUDENT_FILES, ids=lambda p: p.stem)
def test_student_record_validates_against_the_catalog(catalog: Catalog, path: Path) -> None:
    student = load_student(path)
    assert student.id == path.stem
    assert student.current_term == "F2026"
    # One student entered under the 2024-2025 catalog, whose versions the catalog holds.
    assert student.catalog_year == ("2024-2025" if "2024" in student.id else "2026-2027")
    assert student.interests
    assert check_student_against_catalog(student, catalog) == []
    kinds = [catalog.program(code).kind for code in student.programs]
    assert kinds.count("major") == 1


@pytest.mark.parametrize("path", STUDENT_FILES, ids=lambda p: p.stem)
def test_student_history_respects_offerings_and_prerequisites(catalog: Catalog, path: Path) -> None:
    student = load_student(path)
    for a in student.courses:
        if a.source != "institution":
            assert a.term == student.start_term and a.grade == "TR", a.course
            continue
        term = Term.parse(a.term)
        course = catalog.course(a.course)
        assert course.offered.offered_in(term), f"{a.course} not offered in {a.term}"
        assert (a.status == "in_progress") == (a.term == "F2026"), a.course
        earlier = [
            b
            for b in student.courses
            if b.status == "completed"
            and catalog.grade_meets(b.grade, None)
            and (b.source != "institution" or Term.parse(b.term) < term)
        ]
        best: dict[str, float] = {}
        for b in earlier:
            best[b.course] = max(best.get(b.course, 0.0), catalog.grade_by_symbol[b.grade].points)
        units = sum(catalog.course(code).units for code in best)
        if course.prerequisites is not None:
            assert _prereq_met(course.prerequisites, catalog, student, best, units), (
                f"{a.course} in {a.term}: prerequisites not met"
            )
        if course.corequisites is not None:
            taken = {
                b.course
                for b in student.courses
                if b.source != "institution" or Term.parse(b.term) <= term
            }
            same_or_earlier = dict.fromkeys(taken, 4.0)
            assert _prereq_met(course.corequisites, catalog, student, same_or_earlier, units)


def test_scenario_students_have_the_facts_their_scenarios_need(catalog: Catalog) -> None:
    def get(student_id: str) -> StudentRecord:
        return load_student(ROOT / "demos" / "students" / f"{student_id}.json")

    low, high = get("overload-low-gpa"), get("overload-high-gpa")
    assert (low.gpa, high.gpa) == (2.6, 3.8)
    for s in (low, high):
        assert s.programs == ["CS-BS"] and s.start_term == "F2025"
        assert s.class_standing(catalog) == "sophomore"
        left = 360 - s.units_earned(catalog, include_in_progress=True)
        assert left == 229  # four terms to December 2028 need more than 4 x 54 units

    probation = get("probation-student")
    assert (probation.academic_status, probation.gpa) == ("probation", 1.9)
    assert probation.class_standing(catalog) == "sophomore"

    repeat = get("repeat-student")
    assert [(a.term, a.grade) for a in repeat.attempts_of("15-122")] == [
        ("S2025", "R"),
        ("F2025", "B"),
    ]

    transfer = get("transfer-student")
    assert {a.source for a in transfer.courses} == {"transfer", "ap", "institution"}
    assert transfer.class_standing(catalog) == "junior"

    assert get("study-abroad").terms_away == ["F2027"]
    assert get("senior-on-track").class_standing(catalog) == "senior"
    assert get("cs-senior-pf").attempts_of("80-130")[0].pass_fail

    econ = get("econ-senior")
    assert econ.programs == ["ECON-BA"]
    assert {"21-120", "21-256"} <= econ.earned_courses(catalog)
    assert "21-122" not in econ.earned_courses(catalog, include_in_progress=True)

    is_junior = get("is-junior-cs-minor")
    assert is_junior.class_standing(catalog) == "junior"
    assert "15-112" in is_junior.earned_courses(catalog)

    first = get("first-year-undeclared-ish")
    assert all(a.status == "in_progress" for a in first.courses)
