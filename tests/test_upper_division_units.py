"""A minimum of upper-division units across the degree (#28 item 9): "at least 3 units of
courses numbered 300 or above" is a course set of the institution's requirements with
``min_level: 300`` and ``min_units`` - the institution's program shares courses freely with
every major and minor, so any upper-division course of the degree counts, and one
``overlaps`` pair with a group of the institution's other requirements lets a course count
toward both. A student whose major and writing courses are all lower-division gets
upper-division courses planned; the audit, the planner and the verifier agree."""

from __future__ import annotations

from typing import Any

from agents.audit import audit
from agents.planner import PlanConstraints, PlannedTerm, plan
from agents.verifier import verify_plan
from tests.planner_strategies import catalog, program
from tests.requirement_forms_helpers import course, record

LOAD = PlanConstraints(max_units_per_term=3)
UPPER = {"kind": "course_set", "id": "upper", "title": "Upper-division units", "min_level": 300,
         "min_units": 3}  # fmt: skip
GEN_ED = {"kind": "all_of", "id": "gen-ed", "children": [
    {"kind": "all_of", "id": "core", "children": [
        {"kind": "course_set", "id": "writing", "attributes": ["writing"], "min_courses": 1},
    ]},
    UPPER,
]}  # fmt: skip
MAJOR = {"kind": "all_of", "id": "major", "children": [
    {"kind": "course", "id": "intro", "course": "MATH 101"},
    {"kind": "course_set", "id": "more", "subjects": ["MATH"], "min_level": 200,
     "min_courses": 2},
]}  # fmt: skip
LEVELS = [("MATH 101", 100), ("MATH 102", 100), ("MATH 201", 200), ("MATH 202", 200),
          ("MATH 301", 300), ("MATH 302", 300), ("HIST 101", 100), ("HIST 301", 300),
          ("ENGL 101", 100), ("ENGL 102", 100), ("ENGL 301", 300)]  # fmt: skip


def _catalog() -> Any:
    courses = [course(c, lvl) for c, lvl in LEVELS]
    for c in courses:
        if c["code"] in ("ENGL 101", "ENGL 301"):
            c["attributes"] = ["writing"]
    gen_ed = {
        **program("GEN-ED", GEN_ED, kind="institution", total=6),
        "overlaps": [{"nodes": ["core", "upper"]}],
    }
    return catalog(courses, [gen_ed, program("MATH-BA", MAJOR)])


CAT = _catalog()
DONE = record(["MATH 101", "MATH 201", "MATH 202", "ENGL 101"])


def test_a_student_short_of_upper_division_units_gets_them_planned() -> None:
    result = plan(CAT, DONE, ["MATH-BA"], LOAD)
    planned = {c: t.term for t in result.terms for c in t.courses}
    levels = dict(LEVELS)
    assert result.status == "optimal"
    assert [levels[c] for c in sorted(planned)] == [300, 300, 300]
    assert result.requirement_of == {c: ["GEN-ED/upper"] for c in planned}
    assert verify_plan(CAT, DONE, ["MATH-BA"], LOAD, result) == []
    after = audit(CAT, DONE, ["MATH-BA"], planned=planned)
    assert [p.status for p in after.programs] == ["met", "met"]


def test_before_the_plan_the_audit_counts_only_upper_division_units() -> None:
    report = audit(CAT, DONE, ["MATH-BA"])
    gen_ed = next(p for p in report.programs if p.code == "GEN-ED")
    assert gen_ed.status != "met"
    major = next(p for p in report.programs if p.code == "MATH-BA")
    assert major.status == "met"


def test_the_verifier_flags_a_plan_without_the_upper_division_units() -> None:
    good = plan(CAT, DONE, ["MATH-BA"], LOAD)
    lower = [PlannedTerm(term="S2027", courses=["MATH 102", "HIST 101", "ENGL 102"], units=3)]
    bad = good.model_copy(update={"terms": lower})
    defects = verify_plan(CAT, DONE, ["MATH-BA"], LOAD, bad)
    assert [d.message for d in defects] == [
        "GEN-ED/upper: 0 of 3 units counted; needs 3 more units from: ENGL 301, HIST 301, "
        "MATH 301, MATH 302"
    ]


def test_an_upper_division_writing_course_counts_toward_both() -> None:
    """ENGL 301 is the writing course and one of the three upper-division units: the
    overlap lets it count toward both (without it, GEN-ED/upper would be short a unit)."""
    st = record(["MATH 101", "MATH 201", "MATH 202", "ENGL 301", "MATH 301", "MATH 302"])
    assert [p.status for p in audit(CAT, st, ["MATH-BA"]).programs] == ["met", "met"]
    no_overlap = CAT.model_copy(
        update={"programs": [p.model_copy(update={"overlaps": []}) for p in CAT.programs]}
    )
    assert [p.status for p in audit(no_overlap, st, ["MATH-BA"]).programs] == ["met", "partly_met"]


def test_the_major_upper_division_courses_count_toward_it_too() -> None:
    """MATH 301 and MATH 302 meet the major's 200-level requirement and, with ENGL 301
    (ENGL 101 being the writing course), the three upper-division units."""
    st = record(["MATH 101", "MATH 301", "MATH 302", "ENGL 101", "ENGL 301", "HIST 101"])
    assert [p.status for p in audit(CAT, st, ["MATH-BA"]).programs] == ["met", "met"]
