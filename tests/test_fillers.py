"""Issue #17, item 8: the free electives the planner adds to make up units are ones an
advisor would add - no practicum, internship or independent study (``Course.free_elective``),
no course the student already passed, no dormant or retired course, and full-size courses
rather than a term of quarter-credit registrations - while a course of those kinds is still
planned when a requirement counts it or the student asks for it."""

from __future__ import annotations

from typing import Any

import pytest

from agents.catalog import Catalog
from agents.planner import PlanConstraints, PlanResult, plan
from agents.planner.fillers import filler_misfit
from agents.planner.setup import PlanSetup
from tests.planner_strategies import catalog, course, program, student

FS = ["fall", "spring"]
FREE = ["free elective"]


def _course(code: str, units: float, **more: Any) -> dict[str, Any]:
    return {**course(code, units, FS), **more}


def _catalog(*, total: float = 8.0, extra: list[dict[str, Any]] | None = None) -> Catalog:
    """Two required 1-credit courses and a degree total: the rest are free electives to
    choose from twelve quarter-credit courses of the major's subject (a colloquium), six
    full-size ones of another (all 100-level, all open every term) and one of each kind a
    planner must not add on its own."""
    courses = [
        _course("MAJ 101", 1.0),
        _course("MAJ 201", 1.0, prerequisites="MAJ 101"),
        *(_course(f"MAJ {150 + i}", 0.25) for i in range(12)),
        *(_course(f"GEN {100 + i}", 1.0) for i in range(6)),
        _course("ARR 100", 1.0, free_elective=False, title="Internship"),
        _course("ENS 100", 1.0, repeatable=True, title="Ensemble"),
        _course("OLD 100", 1.0, status="dormant", last_offered="F2019"),
        _course("RET 100", 1.0, status="retired"),
        *(extra or []),
    ]
    children = [{"kind": "course", "id": f"r{i}", "course": c} for i, c in enumerate(
        ("MAJ 101", "MAJ 201"))]  # fmt: skip
    root = {"kind": "all_of", "id": "root", "children": children}
    return catalog(courses, [program("MAJ", root, total=total)])


def _student(*passed: str) -> Any:
    return student(["MAJ"], [{"course": c, "term": "F2025", "grade": "A"} for c in passed])


def _plan(cat: Catalog, **kw: Any) -> PlanResult:
    st = _student("ENS 100")
    return plan(cat, st, ["MAJ"], PlanConstraints(max_units_per_term=4.0, **kw))


def _free(result: PlanResult) -> list[str]:
    return sorted(c for c, labels in result.requirement_of.items() if labels == FREE)


def _quarters(result: PlanResult) -> list[str]:
    return [c for c in _free(result) if c.startswith("MAJ 15")]


def test_fillers_are_full_size_courses_not_quarter_credits() -> None:
    # The passed ensemble counts toward the total: 7 credits to plan, 5 of them electives.
    # (Before issue #17: all twelve quarter-credit courses, eleven courses in one term.)
    result = _plan(_catalog())
    assert (result.status, result.graduation_term, result.units_planned) == (
        "optimal",
        "F2027",
        7.0,
    )
    assert _free(result) == [f"GEN {100 + i}" for i in range(5)]
    assert sorted(len(t.courses) for t in result.terms) == [3, 4]


def test_fillers_an_exact_total_takes_the_fewest_small_courses() -> None:
    result = _plan(_catalog(total=8.25), max_courses_per_term=5)
    assert (result.status, result.units_planned, len(_quarters(result))) == ("optimal", 7.25, 1)


def test_fillers_with_a_course_cap_still_plan_full_size_courses() -> None:
    result = _plan(_catalog(), max_courses_per_term=3)
    assert result.status == "optimal"
    assert max(len(t.courses) for t in result.terms) <= 3
    assert not _quarters(result)


def test_fillers_no_internship_passed_dormant_or_retired_course() -> None:
    result = _plan(_catalog())
    planned = {c for t in result.terms for c in t.courses}
    assert not planned & {"ARR 100", "ENS 100", "OLD 100", "RET 100"}


@pytest.mark.parametrize("code", ["ARR 100", "ENS 100"])
def test_fillers_a_course_the_student_asks_for_is_planned(code: str) -> None:
    # An internship the student arranged, a retake the student wants: the student's call.
    result = _plan(_catalog(), include=[code])
    assert result.status == "optimal"
    assert code in {c for t in result.terms for c in t.courses}


def test_fillers_a_requirement_may_count_an_internship() -> None:
    cat = _catalog()
    experience = {"kind": "course", "id": "exp", "course": "ARR 100"}
    root = cat.programs[0].requirement.model_dump(mode="json")
    root["children"].append(experience)
    data = cat.model_dump(mode="json")
    data["programs"][0]["requirement"] = root
    result = _plan(Catalog.model_validate(data))
    assert result.requirement_of["ARR 100"] == ["MAJ/exp"]


def test_fillers_an_internship_in_an_elective_set_is_not_surplus() -> None:
    # The set may count the internship, but a regular course meets it as well: the regular
    # one is preferred, and the internship is never taken as surplus beside it.
    electives = {"kind": "course_set", "id": "elec", "courses": ["ARR 100", "GEN 100"],
                 "min_courses": 1}  # fmt: skip
    cat = _catalog()
    data = cat.model_dump(mode="json")
    data["programs"][0]["requirement"]["children"].append(electives)
    result = _plan(Catalog.model_validate(data))
    assert result.status == "optimal"
    assert "ARR 100" not in result.requirement_of
    assert result.requirement_of["GEN 100"] == ["MAJ/elec"]


def test_fillers_weigh_size_and_kind_in_the_tie_break() -> None:
    # Forty more full-size electives: the pool is pruned, and offers no internship.
    cat = _catalog(extra=[_course(f"GEN {200 + i}", 1.0) for i in range(40)])
    setup = PlanSetup(cat, _student("ENS 100"), ["MAJ"], PlanConstraints(max_units_per_term=4))
    prep = setup.prep(setup.latest)
    weights = {c: filler_misfit(prep, c) for c in ("GEN 100", "MAJ 150", "ARR 100", "ENS 100")}
    assert weights == {"GEN 100": 0, "MAJ 150": 1, "ARR 100": 3, "ENS 100": 3}
    assert not {"ARR 100", "ENS 100", "OLD 100", "RET 100"} & set(prep.pool)
