"""Prerequisite or concurrent (#28 item 8): "AA 201: AA 101, which may be taken
concurrently" - ``concurrent(AA 101)`` in an expression, ``{"course": "AA 101",
"concurrent": true}`` in the JSON. A first-year (F2026 in progress, nothing done) needs
AA 101 and AA 201 (4 units each, fall and spring, 8 units a term): with a plain
prerequisite AA 201 waits a term (S2027, then F2027); taken concurrently both fit in
S2027. The verifier accepts the same-term plan only for the concurrent form, and a
corequisite (must be taken together or before) stays distinct."""

from __future__ import annotations

from typing import Any

import pytest

from agents.catalog import parse_prereq, use_catalog
from agents.catalog.prereq import CourseCond, format_prereq
from agents.errors import PrereqSyntaxError
from agents.planner import PlanConstraints, PlanResult, plan
from agents.verifier import verify_plan
from tests.planner_strategies import catalog, course, program, student

C = PlanConstraints(max_units_per_term=8)
MAJ = program(
    "MAJ",
    {"kind": "all_of", "id": "root", "children": [
        {"kind": "course", "id": "a", "course": "AA 101"},
        {"kind": "course", "id": "b", "course": "AA 201"},
    ]},
)  # fmt: skip


def _plan(prereq: Any) -> tuple[PlanResult, list[str]]:
    cat = catalog(
        [course("AA 101", 4, ["fall", "spring"]), course("AA 201", 4, ["fall", "spring"], prereq)],
        [MAJ],
    )
    with use_catalog(cat):
        s = student(["MAJ"])
        result = plan(cat, s, ["MAJ"], C)
        defects = verify_plan(cat, s, ["MAJ"], C, result)
    return result, [d.message for d in defects]


def test_a_plain_prerequisite_waits_a_term() -> None:
    result, defects = _plan({"course": "AA 101"})
    assert [(t.term, t.courses) for t in result.terms if t.courses] == [
        ("S2027", ["AA 101"]),
        ("F2027", ["AA 201"]),
    ]
    assert defects == []


def test_one_that_may_be_taken_concurrently_shares_the_term() -> None:
    result, defects = _plan({"course": "AA 101", "concurrent": True})
    assert result.graduation_term == "S2027"
    assert sorted(c for t in result.terms for c in t.courses if t.term == "S2027") == [
        "AA 101",
        "AA 201",
    ]
    assert defects == []


def test_the_verifier_refuses_the_same_term_for_a_plain_prerequisite() -> None:
    concurrent, _ = _plan({"course": "AA 101", "concurrent": True})
    cat = catalog(
        [course("AA 101", 4, ["fall", "spring"]),
         course("AA 201", 4, ["fall", "spring"], {"course": "AA 101"})],
        [MAJ],
    )  # fmt: skip
    with use_catalog(cat):
        defects = verify_plan(cat, student(["MAJ"]), ["MAJ"], C, concurrent)
    assert [d.message for d in defects] == ["AA 201 in S2027 needs AA 101 before the term"]


def test_the_expression_reads_and_writes_the_form() -> None:
    node = parse_prereq("15-112 and concurrent(21-128[C])")
    assert node.all[1] == CourseCond(course="21-128", min_grade="C", concurrent=True)  # type: ignore[union-attr]
    assert format_prereq(node) == "15-112 and concurrent(21-128[C])"
    with pytest.raises(PrereqSyntaxError) as bad:
        parse_prereq("concurrent(15-112 or 15-110)")
    assert "concurrent needs one course code" in str(bad.value)
