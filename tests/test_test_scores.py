"""Test scores and placements as prerequisite leaves (#28 item 6): "AA 201: AP Calculus BC
score of 4, or placement into AA 201" is ``score(AP-CALC-BC, 4) or placement(AA-PLACEMENT,
AA 201)``, else AA 101 first. The record's ``tests`` hold what the student took. A first-year
(F2026 in progress, 4-unit courses, 4 units a term) needs AA 201 and BB 100: without a test
AA 101 comes first (three terms: S2027, F2027, S2028); a 4 in AP Calculus BC, or the
placement, opens AA 201 at once (two terms); a 3 does not. The verifier reads the record the
same way."""

from __future__ import annotations

from typing import Any

import pytest

from agents.catalog import ScoreCond, parse_prereq, use_catalog
from agents.catalog.prereq import format_prereq
from agents.errors import PrereqSyntaxError
from agents.planner import PlanConstraints, plan
from agents.verifier import verify_plan
from tests.planner_strategies import catalog, course, program, student

C = PlanConstraints(max_units_per_term=4)
OPEN = "AA 101 or score(AP-CALC-BC, 4) or placement(AA-PLACEMENT, AA 201)"
CAT = catalog(
    [
        course("AA 101", 4, ["fall", "spring"]),
        course("AA 201", 4, ["fall", "spring"], OPEN),
        course("BB 100", 4, ["fall", "spring"]),
    ],
    [program("MAJ", {"kind": "all_of", "id": "root", "children": [
        {"kind": "course", "id": "a", "course": "AA 201"},
        {"kind": "course", "id": "b", "course": "BB 100"},
    ]})],
)  # fmt: skip


def _plan(tests: list[dict[str, Any]]) -> tuple[list[tuple[str, list[str]]], list[str]]:
    record = student(["MAJ"]).model_copy(update={"tests": []})
    record = type(record).model_validate({**record.model_dump(), "tests": tests})
    with use_catalog(CAT):
        result = plan(CAT, record, ["MAJ"], C)
        defects = verify_plan(CAT, record, ["MAJ"], C, result)
    return [(t.term, t.courses) for t in result.terms if t.courses], [d.message for d in defects]


def test_without_a_test_the_course_route_comes_first() -> None:
    terms, defects = _plan([])
    assert [t for t, _ in terms] == ["S2027", "F2027", "S2028"]
    order = [c for _, cs in terms for c in cs]
    assert order.index("AA 101") < order.index("AA 201") and len(terms) == 3
    assert defects == []


@pytest.mark.parametrize(
    "tests",
    [
        [{"test": "AP-CALC-BC", "score": 4}],
        [{"test": "AP-CALC-BC", "score": 5, "date": "2025-07-01"}],
        [{"test": "AA-PLACEMENT", "result": "AA 201"}],
    ],
)
def test_a_score_or_placement_on_record_opens_the_course(tests: list[dict[str, Any]]) -> None:
    terms, defects = _plan(tests)
    assert [t for t, _ in terms] == ["S2027", "F2027"]
    assert "AA 101" not in {c for _, cs in terms for c in cs}
    assert defects == []


@pytest.mark.parametrize(
    "tests",
    [[{"test": "AP-CALC-BC", "score": 3}], [{"test": "AA-PLACEMENT", "result": "AA 101"}]],
)
def test_a_lower_score_or_another_placement_does_not(tests: list[dict[str, Any]]) -> None:
    terms, _ = _plan(tests)
    assert "AA 101" in {c for _, cs in terms for c in cs}


def test_the_expression_reads_and_writes_the_forms() -> None:
    node = parse_prereq(OPEN)
    assert node.any[1:] == [  # type: ignore[union-attr]
        ScoreCond(test="AP-CALC-BC", min_score=4),
        ScoreCond(test="AA-PLACEMENT", result="AA 201"),
    ]
    assert format_prereq(node) == OPEN
    with pytest.raises(PrereqSyntaxError) as bad:
        parse_prereq("score(AP-CALC-BC)")
    assert "score needs a test id and a score" in str(bad.value)
