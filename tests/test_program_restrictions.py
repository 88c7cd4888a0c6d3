"""Program restrictions (#28 item 7): "majors only" (``open_to_programs``) and "not open to
Computer Science majors" (``closed_to_programs``) on the sample catalog, for the CS
sophomore whose plan, without restrictions, takes the electives 15-322 and 15-388.

- 15-388 closed to CS-BS, 15-322 open only to MATH-BS: the CS plan takes neither and meets
  its electives with others; a MATH-BS student adding CS-BS (a what-if) counts as CS-BS;
- forced by the student, 15-388 is planned and the verifier says why it may not be taken;
- a restriction naming a program the catalog lacks is refused at load with its path."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import Catalog, load_catalog, load_student, use_catalog
from agents.errors import CatalogError
from agents.planner import PlanConstraints, PlanResult, plan
from agents.policy import catalog_load_caps
from agents.verifier import verify_plan

ROOT = Path(__file__).resolve().parents[1]


def _catalog(tmp_path: Path, changes: dict[str, dict[str, list[str]]]) -> Catalog:
    raw: dict[str, Any] = json.loads((ROOT / "agents" / "data" / "catalog.json").read_text())
    for course in raw["courses"]:
        course.update(changes.get(course["code"], {}))
    path = tmp_path / "catalog.json"
    path.write_text(json.dumps(raw))
    return load_catalog(path)


def _plan(cat: Catalog, programs: list[str], **more: Any) -> tuple[PlanResult, list[str]]:
    with use_catalog(cat):
        student = load_student(ROOT / "demos" / "students" / "cs-sophomore.json")
        c = PlanConstraints(max_units_per_term=catalog_load_caps(cat).standard, **more)
        result = plan(cat, student, programs, c)
        defects = verify_plan(cat, student, programs, c, result)
    return result, [d.message for d in defects]


def _planned(result: PlanResult) -> set[str]:
    return {code for t in result.terms for code in t.courses}


RESTRICTED = {
    "15-388": {"closed_to_programs": ["CS-BS"]},
    "15-322": {"open_to_programs": ["MATH-BS"]},
}


def test_the_plan_takes_no_course_its_programs_may_not(tmp_path: Path) -> None:
    before, _ = _plan(load_catalog(), ["CS-BS"])
    assert {"15-388", "15-322"} <= _planned(before)
    after, defects = _plan(_catalog(tmp_path, RESTRICTED), ["CS-BS"])
    assert after.status in ("optimal", "feasible") and defects == []
    assert not {"15-388", "15-322"} & _planned(after)
    assert after.graduation_term == before.graduation_term


def test_a_forced_course_is_planned_and_the_verifier_says_why_not(tmp_path: Path) -> None:
    result, defects = _plan(_catalog(tmp_path, RESTRICTED), ["CS-BS"], forced=["15-388"])
    assert "15-388" in _planned(result)
    assert any("15-388" in d and "is not open to students in CS-BS" in d for d in defects)


def test_a_program_being_added_counts(tmp_path: Path) -> None:
    cat = _catalog(tmp_path, {"15-322": {"open_to_programs": ["DS-MIN"]}})
    result, defects = _plan(cat, ["CS-BS", "DS-MIN"], include=["15-322"])
    assert "15-322" in _planned(result) and defects == []


@pytest.mark.parametrize("field", ["open_to_programs", "closed_to_programs"])
@pytest.mark.slow
def test_an_unknown_program_is_refused_with_its_path(tmp_path: Path, field: str) -> None:
    with pytest.raises(CatalogError) as refused:
        _catalog(tmp_path, {"15-388": {field: ["CS-BZ"]}})
    assert f"(15-388).{field}: unknown program 'CS-BZ'" in str(refused.value)
