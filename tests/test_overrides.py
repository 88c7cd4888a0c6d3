"""Student overrides: courses pinned to a term, kept out, or forced in although a
prerequisite or offering check fails (planned with a warning and a risk, never refused)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import PlanRequest
from agents.catalog import Catalog, StudentRecord, load_catalog
from agents.checking.plan_review import _forced
from agents.intake import read_request
from agents.llm.textparse import parse_request_text
from agents.planner import PlanConstraints, plan
from agents.toolbox import Toolbox
from agents.verifier import verify_plan

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def student(sid: str) -> StudentRecord:
    raw = json.loads((ROOT / "demos" / "students" / f"{sid}.json").read_text())
    return StudentRecord.model_validate(raw)


def intake(catalog: Catalog, sid: str, **fields: Any):  # type: ignore[no-untyped-def]
    request = PlanRequest(request_id="r1", student=student(sid), intent="plan_degree", **fields)
    return read_request(request, Toolbox(catalog=catalog))


def questions(result: Any) -> list[tuple[str, str]]:
    return [(q.field, q.question) for q in result.open_questions]


def test_a_pin_is_read_as_a_term_code_and_a_wanted_course(catalog: Catalog) -> None:
    got = intake(catalog, "cs-sophomore", pin_courses={"15-445": "Fall 2027"})
    assert got.constraints.pin_courses == {"15-445": "F2027"}
    assert "15-445" in got.constraints.include_courses
    assert "15-445 is pinned to Fall 2027" in got.notes
    assert got.open_questions == []


def test_pins_that_cannot_hold_are_asked_about(catalog: Catalog) -> None:
    got = intake(
        catalog,
        "econ-sophomore",
        pin_courses={"73-328": "S2027", "99-999": "F2027", "73-240": "F2025"},
        avoid_courses=["70-371"],
        force_courses=["70-371"],
    )
    assert got.constraints.pin_courses == {}
    assert got.constraints.force_courses == []
    assert questions(got) == [
        ("force_courses", "70-371 is both forced and to be avoided; which is it?"),
        (
            "pin_courses",
            "73-328 is not offered in Spring 2027 (offered in fall); pin it to a term it runs "
            "in, or force it if the department has agreed to run it then",
        ),
        ("pin_courses", "'99-999' is not a course in the catalog"),
        (
            "pin_courses",
            "73-240 is pinned to Fall 2025, which is not after the current term Fall 2026; "
            "which term should it be in?",
        ),
    ]


def test_a_forced_pin_may_name_a_term_the_course_is_not_offered(catalog: Catalog) -> None:
    got = intake(
        catalog, "econ-sophomore", pin_courses={"73-328": "S2027"}, force_courses=["73-328"]
    )
    assert got.constraints.pin_courses == {"73-328": "S2027"}
    assert got.constraints.force_courses == ["73-328"]
    assert (
        "73-328 is forced into the plan in Spring 2027: its prerequisite and offering checks "
        "are reported as risks, not refusals"
    ) in got.notes


def test_the_text_reads_a_course_wanted_in_a_term(catalog: Catalog) -> None:
    ext = parse_request_text("I want 15-445 in Fall 2027 and never 73-328.", catalog)
    assert [(p.course, p.term) for p in ext.pins] == [("15-445", "F2027")]
    assert ext.avoid_courses == ["73-328"]


def test_the_planner_places_a_forced_course_without_its_prerequisite(catalog: Catalog) -> None:
    record = student("cs-first-year-ap")
    base = dict(max_units_per_term=54, fixed={"15-440": "S2027"}, include=["15-440"])
    refused = plan(catalog, record, record.programs, PlanConstraints(**base))
    assert refused.status == "infeasible"
    forced = PlanConstraints(**base, forced=["15-440"])
    result = plan(catalog, record, record.programs, forced)
    assert result.status in ("optimal", "feasible")
    assert "15-440" in next(t for t in result.terms if t.term == "S2027").courses
    defects = verify_plan(catalog, record, record.programs, forced, result)
    assert [(d.kind, d.course) for d in defects] == [("prerequisite", "15-440")]


def test_a_forced_offering_is_placed_in_the_term_asked(catalog: Catalog) -> None:
    record = student("econ-sophomore")
    pc = PlanConstraints(
        max_units_per_term=54, fixed={"73-328": "S2027"}, include=["73-328"], forced=["73-328"]
    )
    result = plan(catalog, record, record.programs, pc)
    assert "73-328" in next(t for t in result.terms if t.term == "S2027").courses
    kinds = {d.kind for d in verify_plan(catalog, record, record.programs, pc, result)}
    assert "offering" in kinds


def test_the_critique_turns_a_forced_check_into_a_risk_saying_what_to_do() -> None:
    risk = _forced("prerequisite: 15-440 in S2027 needs 15-213 before the term")
    assert risk.kind == "forced"
    assert risk.message == (
        "15-440 in S2027 needs 15-213 before the term; you asked to take it anyway, so register "
        "only with the instructor's or the department's permission (a prerequisite override)"
    )
    offering = _forced("offering: 73-328 is not offered in S2027 (offered: fall, every year)")
    assert offering.message.endswith(
        "you asked for it anyway, so it stands only if the department runs it then; confirm "
        "before registration, or the course moves to a term it is offered"
    )
