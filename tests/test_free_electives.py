"""Issue #12, defect 5: free electives are chosen as an advisor would, not as the
lowest-numbered fillers - no first-year seminar for a senior (``Course.restricted_to``, a hard
rule the planner and the verifier share), courses of the student's level and field, and no
recitation planned years after its lecture."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import Catalog, Course, StudentRecord, load_catalog
from agents.planner import PlanConstraints, PlannedTerm, PlanResult, free_elective_fit, plan
from agents.policy import catalog_load_caps
from agents.verifier import verify_plan

STUDENTS = Path(__file__).resolve().parents[1] / "demos" / "students"
SEMINARS = ("99-120", "99-121", "99-122", "99-123")


@pytest.fixture(scope="module")
def sample() -> Catalog:
    return load_catalog(None)


def student(name: str, *, passed: tuple[str, ...] = ()) -> StudentRecord:
    """A demo student, with ``passed`` added to the record (first term, grade B)."""
    data: dict[str, Any] = json.loads((STUDENTS / f"{name}.json").read_text("utf-8"))
    have = {c["course"] for c in data["courses"]}
    data["courses"] += [
        {"course": c, "term": data["start_term"], "grade": "B"} for c in passed if c not in have
    ]
    return StudentRecord.model_validate(data)


def standard(catalog: Catalog, **kw: Any) -> PlanConstraints:
    return PlanConstraints(max_units_per_term=catalog_load_caps(catalog).standard, **kw)


def planned(result: PlanResult) -> list[str]:
    return [c for t in result.terms for c in t.courses]


def free(result: PlanResult) -> list[str]:
    return sorted(c for c, labels in result.requirement_of.items() if labels == ["free elective"])


def test_free_electives_first_year_seminars_are_restricted_to_first_years(sample: Catalog) -> None:
    for code in SEMINARS:
        assert sample.course(code).restricted_to == ["first_year"]
    assert sample.course("99-101").restricted_to == []  # required of everyone: open
    assert sample.course("99-122").open_to("first_year")
    assert not sample.course("99-122").open_to("senior")
    assert Course.model_fields["restricted_to"].is_required() is False


def test_free_electives_senior_gets_no_first_year_seminar(sample: Catalog) -> None:
    # Even when the senior names the seminars as interests: a restriction is a rule.
    senior = student("econ-senior")
    constraints = standard(sample, interests={"99-122": 1.0, "99-123": 1.0})
    result = plan(sample, senior, senior.programs, constraints)
    assert (result.status, result.graduation_term, result.units_planned) == (
        "optimal",
        "S2027",
        45.0,
    )
    assert not set(planned(result)) & set(SEMINARS)
    assert verify_plan(sample, senior, senior.programs, constraints, result) == []


def test_free_electives_verifier_flags_seminar_for_senior(sample: Catalog) -> None:
    senior = student("econ-senior")
    constraints = standard(sample)
    result = plan(sample, senior, senior.programs, constraints)
    term = result.terms[0]
    swapped = [c for c in term.courses if c != free(result)[0]] + ["99-122"]
    bad = result.model_copy(
        update={"terms": [PlannedTerm(term=term.term, courses=swapped, units=term.units)]}
    )
    defects = verify_plan(sample, senior, senior.programs, constraints, bad)
    assert [(d.kind, d.term, d.course, d.message) for d in defects if d.course == "99-122"] == [
        (
            "prerequisite",
            "S2027",
            "99-122",
            "99-122 in S2027 is restricted to first-year students; the student is senior then",
        )
    ]


def test_free_electives_first_year_may_still_take_a_seminar(sample: Catalog) -> None:
    first = student("econ-first-year")
    constraints = standard(sample, interests={"99-122": 1.0})  # a spring seminar
    result = plan(sample, first, first.programs, constraints)
    assert result.status in ("optimal", "feasible")
    where = {c: t.term for t in result.terms for c in t.courses}
    assert where.get("99-122") == "S2027"  # still a first-year then
    assert verify_plan(sample, first, first.programs, constraints, result) == []


def test_free_electives_economics_student_gets_economics_over_physics(sample: Catalog) -> None:
    junior = student("econ-junior")  # ECON-BA and PHIL-MIN
    result = plan(sample, junior, junior.programs, standard(sample))
    assert (result.status, result.graduation_term, result.units_planned) == (
        "optimal",
        "S2028",
        135.0,
    )
    electives = free(result)
    assert electives
    assert not [c for c in electives if c.startswith("33-")]  # no physics
    assert {sample.course(c).subject_code for c in electives} <= {"70", "73", "80"}
    assert free_elective_fit(sample, junior, junior.programs, result.requirement_of) == (
        len(electives),
        len(electives),
    )


def test_free_electives_finance_interest_is_planned_over_physics(sample: Catalog) -> None:
    junior = student("econ-junior", passed=("70-122",))
    constraints = standard(sample, interests={"70-391": 1.0})  # Finance
    result = plan(sample, junior, junior.programs, constraints)
    assert result.status == "optimal"
    assert "70-391" in planned(result)
    assert not [c for c in free(result) if c.startswith("33-")]


def test_free_electives_recitation_not_planned_without_its_lecture(sample: Catalog) -> None:
    # 33-141 (the lecture) on the record two years ago; 30 units left, which the 3-unit lab
    # 33-142 would help make up: a lab cut off from its lecture is not an elective to plan.
    senior = student("econ-senior", passed=("33-141", "15-131"))
    constraints = standard(sample)
    result = plan(sample, senior, senior.programs, constraints)
    assert (result.status, result.graduation_term, result.units_planned) == (
        "optimal",
        "S2027",
        30.0,
    )
    assert "33-142" not in planned(result)
    assert verify_plan(sample, senior, senior.programs, constraints, result) == []


def test_free_elective_fit_counts_level_and_field(sample: Catalog) -> None:
    senior = student("econ-senior")
    requirement_of = {
        "73-415": ["free elective"],  # 400-level economics: fits
        "73-357": ["free elective"],  # economics, but below a senior's level
        "33-115": ["free elective"],  # physics
        "79-350": ["free elective"],  # history, of interest but below level
        "76-101": ["ECON-BA/gen-ed-writing"],  # counted: not a free elective
    }
    assert free_elective_fit(sample, senior, ["ECON-BA"], requirement_of) == (4, 1)
    assert free_elective_fit(sample, senior, [], {"73-415": ["free elective"]}) == (1, 0)
    assert free_elective_fit(
        sample, senior, [], {"70-415": ["free elective"]}, {"70-415": 1.0}
    ) == (1, 1)
