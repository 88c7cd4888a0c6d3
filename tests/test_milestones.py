"""Milestones as prerequisites (#28 item 6): "WR 60: Entry Level Writing Requirement met" is
``met(ELWR)``, and the catalog declares ELWR once, met on the record (``milestones_met``) or
by ``WR 39A or score(AP-ENG, 3)``. A first-year (F2026 in progress, 4-unit courses, 4 units
a term) needs WR 60 and BB 100: with the record flag or an AP English 3, WR 60 is plannable
at once (two terms, no extra course); without either, WR 39A comes first (three terms). The
verifier reads the milestone the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agents.catalog import Catalog, MetCond, parse_prereq, use_catalog
from agents.catalog.authoring import LayoutError, build_catalog, export_catalog
from agents.catalog.prereq import format_prereq
from agents.planner import PlanConstraints, plan
from agents.planner.schema import PlannedTerm
from agents.verifier import verify_plan
from tests.planner_strategies import catalog, course, program, student

C = PlanConstraints(max_units_per_term=4)
ELWR = {
    "id": "ELWR",
    "title": "Entry Level Writing Requirement",
    "met_by": "WR 39A or score(AP-ENG, 3)",
}
COURSES = [
    course("WR 39A", 4, ["fall", "spring"]),
    course("WR 60", 4, ["fall", "spring"], "met(ELWR)"),
    course("BB 100", 4, ["fall", "spring"]),
]
PROGRAMS = [program("MAJ", {"kind": "all_of", "id": "root", "children": [
    {"kind": "course", "id": "a", "course": "WR 60"},
    {"kind": "course", "id": "b", "course": "BB 100"},
]})]  # fmt: skip


def _catalog(milestones: list[dict[str, Any]]) -> Catalog:
    base = catalog([COURSES[0], COURSES[2]], PROGRAMS).model_dump(mode="json")
    return Catalog.model_validate({**base, "courses": COURSES, "milestones": milestones})


CAT = _catalog([ELWR])


def _record(**extra: Any) -> Any:
    record = student(["MAJ"])
    return type(record).model_validate({**record.model_dump(), **extra})


def _plan(record: Any) -> tuple[list[tuple[str, list[str]]], list[str]]:
    with use_catalog(CAT):
        result = plan(CAT, record, ["MAJ"], C)
        defects = verify_plan(CAT, record, ["MAJ"], C, result)
    return [(t.term, t.courses) for t in result.terms if t.courses], [d.message for d in defects]


def test_met_on_the_record_opens_the_course_in_the_first_term() -> None:
    terms, defects = _plan(_record(milestones_met=["ELWR"]))
    assert [t for t, _ in terms] == ["S2027", "F2027"]
    assert "WR 39A" not in {c for _, cs in terms for c in cs}
    assert defects == []


def test_without_it_the_course_that_meets_it_comes_first() -> None:
    terms, defects = _plan(_record())
    order = [c for _, cs in terms for c in cs]
    assert [t for t, _ in terms] == ["S2027", "F2027", "S2028"]
    assert order.index("WR 39A") < order.index("WR 60")
    assert defects == []


def test_a_qualifying_score_meets_it_with_no_extra_course() -> None:
    terms, defects = _plan(_record(tests=[{"test": "AP-ENG", "score": 3}]))
    assert [t for t, _ in terms] == ["S2027", "F2027"]
    assert "WR 39A" not in {c for _, cs in terms for c in cs}
    assert defects == []


def test_the_verifier_flags_the_course_before_the_milestone_is_met() -> None:
    record = _record()
    with use_catalog(CAT):
        good = plan(CAT, record, ["MAJ"], C)
        swap = {"WR 39A": "WR 60", "WR 60": "WR 39A"}
        terms = [
            PlannedTerm(term=t.term, courses=[swap.get(c, c) for c in t.courses], units=t.units)
            for t in good.terms
        ]
        bad = good.model_copy(update={"terms": terms})
        defects = verify_plan(CAT, record, ["MAJ"], C, bad)
    assert [d.message for d in defects if "WR 60" in d.message] == [
        "WR 60 in S2027 needs met(ELWR) (met(ELWR): the Entry Level Writing Requirement, on the "
        "record or by WR 39A or score(AP-ENG, 3)) before the term"
    ]


def test_the_expression_reads_and_writes_met() -> None:
    node = parse_prereq("met(ELWR) and BB 100")
    assert format_prereq(node) == "met(ELWR) and BB 100"
    wr60 = next(c for c in CAT.courses if c.code == "WR 60")
    assert isinstance(wr60.prerequisites, MetCond)
    assert format_prereq(wr60.prerequisites) == "met(ELWR)"
    assert wr60.model_dump(mode="json")["prerequisites"] == {"met": "ELWR"}
    again = Catalog.model_validate(CAT.model_dump(mode="json"))
    assert again.courses == CAT.courses


@pytest.mark.parametrize(
    ("milestones", "message"),
    [
        ([], "course WR 60 prerequisites: met(ELWR) names no milestone; milestones: none "
         "declared"),
        ([{**ELWR, "id": "EWR"}], "course WR 60 prerequisites: met(ELWR) names no milestone; "
         "milestones: EWR"),
        ([{**ELWR, "met_by": "WR 39A or met(ELWR)"}], "milestone ELWR met_by asks for itself: "
         "ELWR -> ELWR"),
        ([{**ELWR, "met_by": "met(AWR)"}, {"id": "AWR", "title": "A", "met_by": "met(ELWR)"}],
         "milestone ELWR met_by asks for itself: ELWR -> AWR -> ELWR"),
    ],
)  # fmt: skip
def test_unknown_or_circular_milestones_are_errors(
    milestones: list[dict[str, Any]], message: str
) -> None:
    with pytest.raises(ValueError) as bad:
        _catalog(milestones)
    assert message in str(bad.value)


def test_an_unmeetable_milestone_is_the_reason_named() -> None:
    retired = [{**c, "status": "retired"} if c["code"] == "WR 39A" else c for c in COURSES]
    base = catalog([COURSES[0], COURSES[2]], PROGRAMS).model_dump(mode="json")
    cat = Catalog.model_validate({**base, "courses": retired, "milestones": [ELWR]})
    with use_catalog(cat):
        result = plan(cat, _record(), ["MAJ"], C)
    assert result.status == "infeasible"
    assert result.reasons == [
        "WR 60 needs the Entry Level Writing Requirement met (ELWR): WR 39A or "
        "score(AP-ENG, 3), and the record does not list it as met; WR 39A is retired (no "
        "longer offered)"
    ]


def test_institution_yaml_carries_milestones_through_export_and_build(tmp_path: Path) -> None:
    export_catalog(CAT, tmp_path / "cat")
    assert "milestones:" in (tmp_path / "cat" / "institution.yaml").read_text("utf-8")
    built, _ = build_catalog(tmp_path / "cat")
    assert built == CAT
    yaml_path = tmp_path / "cat" / "institution.yaml"
    yaml_path.write_text(yaml_path.read_text("utf-8").replace("id: ELWR", "id: EWR"), "utf-8")
    with pytest.raises(LayoutError) as bad:
        build_catalog(tmp_path / "cat")
    assert any("met(ELWR) names no milestone; milestones: EWR" in p for p in bad.value.problems)
