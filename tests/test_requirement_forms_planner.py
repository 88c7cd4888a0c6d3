"""Requirement forms in the planner and the verifier: plans meet caps and subject minimums
(the CP-SAT model encodes them - a model that ignored them would plan fewer courses and the
audit would disagree), the verifier reports a plan that breaks them, the institution's
requirements are planned for every student, and a catalog of 1-credit courses gets the
same candidate pool and plan as the same catalog in 9-unit courses."""

from __future__ import annotations

from typing import Any

import pytest

from agents.audit import audit
from agents.planner import PlanConstraints, PlannedTerm, PlanResult, plan
from agents.planner.pool import typical_units
from agents.planner.setup import PlanSetup
from agents.verifier import verify_plan
from tests.planner_strategies import catalog, program, student
from tests.requirement_forms_helpers import (
    DIST,
    MAJOR,
    WRITING,
    course,
    courses,
    liberal_arts,
    record,
)

LOAD = PlanConstraints(max_units_per_term=3, min_units_per_term=0)
ONE_INTRO = {**DIST, "caps": [{"max_level": 199, "max_courses": 1}], "min_subjects": 2}
THREE_SUBJECTS = {**DIST, "caps": []}


def _with_dist(dist: dict[str, Any]) -> Any:
    req = {"kind": "all_of", "id": "gen-ed", "children": [dist, WRITING]}
    gen_ed = program("GEN-ED", req, kind="institution", total=8)
    return catalog(courses(), [gen_ed, program("MATH-BA", MAJOR)])


def _planned(result: PlanResult) -> dict[str, str]:
    return {c: t.term for t in result.terms for c in t.courses}


@pytest.mark.parametrize(
    ("dist", "done", "extra"),
    [
        # Without the cap, MATH 102, HIST 101 and the two upper MATH courses the major plans
        # anyway would meet it; with one introductory course allowed, HIST 201 is needed.
        (ONE_INTRO, ["MATH 101", "MATH 102", "HIST 101", "ENGL 101"], "HIST 201"),
        # Without the subject minimum, three MATH courses and HIST 101 would meet it; with
        # three subjects, an ENGL course beyond the writing course is needed.
        (THREE_SUBJECTS, ["MATH 101", "MATH 102", "MATH 103", "HIST 101"], "ENGL 102"),
    ],
)
def test_plans_meet_caps_and_subject_minimums(
    dist: dict[str, Any], done: list[str], extra: str
) -> None:
    cat = _with_dist(dist)
    st = record(done)
    result = plan(cat, st, ["MATH-BA"], LOAD)
    assert result.status == "optimal"
    assert result.notes == []  # the audit agreed with the model at once
    assert extra in _planned(result)
    assert "GEN-ED/dist" in result.requirement_of[extra]
    assert audit(cat, st, planned=_planned(result)).all_met
    assert verify_plan(cat, st, ["MATH-BA"], LOAD, result) == []


def test_the_verifier_reports_a_plan_that_breaks_a_cap_or_the_distribution() -> None:
    cat = liberal_arts()
    st = record(["MATH 101", "ENGL 101"])
    terms = [
        PlannedTerm(term="S2027", courses=["MATH 102", "MATH 103", "ENGL 102"], units=3.0),
        PlannedTerm(term="F2027", courses=["MATH 201", "MATH 301", "STAT 201"], units=3.0),
    ]
    bad = PlanResult(
        status="feasible",
        terms=terms,
        graduation_term="F2027",
        units_planned=6.0,
        extra_units=0.0,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of={},
        solve_ms=0.0,
    )
    defects = verify_plan(cat, st, ["MATH-BA"], LOAD, bad)
    assert [(d.kind, d.message) for d in defects] == [
        (
            "requirement",
            "GEN-ED/dist: 4 of 4 courses counted; from 2 subjects (ENGL, MATH) of the 3 needed; "
            "needs 1 more course in a subject not counted yet (subject distribution unmet), "
            "from: HIST 101, HIST 201; "
            "MATH 101, MATH 103 cannot count (cap reached): of introductory courses, at most 2 "
            "courses may count, and ENGL 102, MATH 102 already do",
        )
    ]


def test_institution_requirements_are_planned_for_every_student() -> None:
    cat = liberal_arts()
    st = record(["MATH 101", "MATH 102", "HIST 101"])
    declared = plan(cat, st, ["MATH-BA"], LOAD)
    assert declared.requirement_of["ENGL 101"] == ["GEN-ED/writing"]
    assert verify_plan(cat, st, ["MATH-BA"], LOAD, declared) == []
    alone = plan(cat, st, [], LOAD)  # the institution's requirements only
    assert alone.status == "optimal"
    assert alone.requirement_of["ENGL 101"] == ["GEN-ED/writing"]
    assert audit(cat, st, [], planned=_planned(alone)).programs[0].status == "met"


def test_an_impossible_distribution_is_explained() -> None:
    cat = liberal_arts()
    avoid = PlanConstraints(
        max_units_per_term=3, avoid=["HIST 101", "HIST 201"], latest_term="S2029"
    )
    result = plan(cat, record([]), ["MATH-BA"], avoid)
    assert result.status == "infeasible"
    assert result.reasons == [
        "GEN-ED/dist needs courses from 3 subjects, but the matching courses that can be "
        "taken by S2029 come from only 2 (ENGL, MATH)"
    ]


# --------------------------------------------------------------------------- unit sizes


def _elective_catalog(size: float) -> Any:
    """60 electives and a major that wants 3 of the 200-level ones, in ``size`` units."""
    electives = [
        course(f"ELEC {100 + i}", 200 if i % 3 == 0 else 100, units=size) for i in range(60)
    ]
    upper = {
        "kind": "course_set",
        "id": "upper",
        "subjects": ["ELEC"],
        "min_level": 200,
        "min_courses": 3,
    }
    return catalog(electives, [program("ELEC-BA", upper, total=30 * size)])


def test_one_credit_courses_plan_like_nine_unit_courses() -> None:
    results = {}
    pools = {}
    for size in (1.0, 9.0):
        cat = _elective_catalog(size)
        st = student(["ELEC-BA"])
        c = PlanConstraints(max_units_per_term=5 * size, min_units_per_term=0)
        setup = PlanSetup(cat, st, ["ELEC-BA"], c)
        assert typical_units(setup.prep(setup.latest)) == size
        pools[size] = setup.prep(setup.latest).pool
        results[size] = plan(cat, st, ["ELEC-BA"], c)
    assert pools[1.0] == pools[9.0]
    assert len(pools[1.0]) < 60  # pruned: more than FULL_POOL_MAX usable courses
    one, nine = results[1.0], results[9.0]
    assert one.status == nine.status == "optimal"
    assert [t.courses for t in one.terms] == [t.courses for t in nine.terms]
    assert (one.graduation_term, one.units_planned * 9) == (nine.graduation_term, 270.0)


def test_the_candidate_pool_keeps_the_subjects_and_caps_a_set_needs() -> None:
    electives = [course(f"ELEC {100 + i}", units=1.0) for i in range(60)]
    others = [course("ARTS 300", 300), course("MUSC 300", 300), course("HIST 300", 300)]
    spread = {
        "kind": "course_set",
        "id": "spread",
        "subjects": ["ELEC", "ARTS", "MUSC", "HIST"],
        "min_courses": 4,
        "min_subjects": 3,
        "caps": [{"subjects": ["ELEC"], "max_courses": 1}],
    }
    cat = catalog([*electives, *others], [program("ONE-BA", spread, total=12)])
    st = student(["ONE-BA"])
    c = PlanConstraints(max_units_per_term=4, min_units_per_term=0)
    setup = PlanSetup(cat, st, ["ONE-BA"], c)
    pool = setup.prep(setup.latest).pool
    assert {"ARTS 300", "MUSC 300", "HIST 300"} <= set(pool)
    assert len(pool) < 40
    result = plan(cat, st, ["ONE-BA"], c)
    counted = sorted(
        x for x, labels in result.requirement_of.items() if labels != ["free elective"]
    )
    assert [x for x in counted if not x.startswith("ELEC")] == ["ARTS 300", "HIST 300", "MUSC 300"]
    assert len(counted) == 4  # one ELEC course: the cap lets no more count
