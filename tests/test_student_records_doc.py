"""docs/student-records.md: every field of the student record and of a plan request has its
row there (and says whether it is required), its worked examples load and plan without a
question, and a course taken now written without its status is refused with the fix.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from agents.artifacts import PlanRequest
from agents.artifacts.request import TimePreferences
from agents.catalog import ExamTaken, load_catalog, use_catalog
from agents.catalog.exceptions import Application, Approval, Substitution, Waiver
from agents.catalog.student import (
    CourseAttempt,
    Registration,
    StudentRecord,
    check_student_against_catalog,
    parse_student,
)
from agents.intake import read_request
from agents.toolbox import Toolbox
from pipeline.batch_input import InputItem, RequestValidator
from pipeline.cli import main

DOC = Path(__file__).resolve().parents[1] / "docs" / "student-records.md"

# Each table: the heading that starts its section, and the models whose fields it lists.
TABLES: list[tuple[str, tuple[type[BaseModel], ...]]] = [
    ("### `StudentRecord`", (StudentRecord,)),
    ("### `CourseAttempt`", (CourseAttempt,)),
    ("### `Registration`", (Registration,)),
    ("### `ExamTaken`", (ExamTaken,)),
    ("### Advisor exceptions", (Substitution, Waiver, Application, Approval)),
    ("### `PlanRequest`", (PlanRequest,)),
    ("### `TimePreferences`", (TimePreferences,)),
]


def _section(heading: str) -> str:
    text = DOC.read_text("utf-8")
    start = text.index(heading)
    end = re.compile(r"^#{2,3} ", re.M).search(text, start + len(heading))
    return text[start : end.start() if end else len(text)]


def _rows(heading: str) -> dict[str, list[str]]:
    """Field name -> the other cells of its row, from the section's table."""
    rows: dict[str, list[str]] = {}
    for line in _section(heading).splitlines():
        m = re.match(r"^\| `(\w+)` \|(.*)\|$", line)
        if m:
            rows[m.group(1)] = [cell.strip() for cell in m.group(2).split(" | ")]
    return rows


def _json_blocks() -> list[Any]:
    text = DOC.read_text("utf-8")
    return [json.loads(b) for b in re.findall(r"^```json\n(.*?)^```$", text, re.M | re.S)]


@pytest.mark.parametrize(("heading", "models"), TABLES, ids=[h for h, _ in TABLES])
def test_every_field_has_its_row(heading: str, models: tuple[type[BaseModel], ...]) -> None:
    fields = {name for model in models for name in model.model_fields}
    assert set(_rows(heading)) == fields


@pytest.mark.parametrize(
    ("heading", "model"),
    [(h, m[0]) for h, m in TABLES if len(m) == 1],
    ids=[h for h, m in TABLES if len(m) == 1],
)
def test_the_default_column_says_which_fields_are_required(
    heading: str, model: type[BaseModel]
) -> None:
    said = {name: cells[1] == "required" for name, cells in _rows(heading).items()}
    assert said == {name: f.is_required() for name, f in model.model_fields.items()}


def _example(key: str) -> dict[str, Any]:
    [found] = [b for b in _json_blocks() if key in b]
    assert isinstance(found, dict)
    return found


def test_the_example_record_loads_and_audits_as_shown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cat = load_catalog()
    record = parse_student(_example("current_term"), calendar=cat.calendar)
    assert check_student_against_catalog(record, cat) == []
    path = tmp_path / "ryan.json"
    path.write_text(json.dumps(_example("current_term")), "utf-8")
    assert main(["audit", str(path)]) == 0
    head = capsys.readouterr().out.splitlines()[:2]
    assert "\n".join(head) in _section("## Worked example")


def test_the_example_request_loads_and_asks_nothing() -> None:
    cat = load_catalog()
    text = json.dumps(_example("request_id"))
    request = RequestValidator(calendar=cat.calendar).check(InputItem(source="doc", text=text))
    assert isinstance(request, PlanRequest)
    with use_catalog(cat):
        intake = read_request(request, Toolbox(catalog=cat))
    assert intake.open_questions == []
    assert intake.constraints.pin_courses == {"15-210": "S2027"}


# --------------------------------------------------------------------------- no grade


def _record(*courses: dict[str, Any]) -> dict[str, Any]:
    return {"id": "s1", "name": "Sam", "programs": ["CS-BS"], "catalog_year": "2026-2027",
            "start_term": "F2025", "current_term": "F2026", "courses": list(courses)}  # fmt: skip


@pytest.mark.parametrize(
    ("attempt", "said"),
    [
        ({"course": "15-122", "term": "F2026"},
         "missing for 15-122 in F2026, and its \"status\" is not given, so it is 'completed'"),
        ({"course": "15-122", "term": "F2026", "grade": None, "status": "completed"},
         "null for 15-122 in F2026, and its \"status\" is 'completed'"),
    ],
)  # fmt: skip
def test_a_completed_course_without_a_grade_says_to_write_in_progress(
    attempt: dict[str, Any], said: str
) -> None:
    cat = load_catalog()
    record = parse_student(_record({"course": "15-112", "term": "F2025", "grade": "A"}, attempt))
    assert check_student_against_catalog(record, cat) == [
        f"$.courses[1].grade: {said}: a completed course needs a grade - if it is being "
        'taken now, write "status": "in_progress"; otherwise give the grade it earned'
    ]
    fixed = parse_student(_record({**attempt, "status": "in_progress"}))
    assert check_student_against_catalog(fixed, cat) == []


def test_a_request_s_intake_asks_with_the_fix() -> None:
    cat = load_catalog()
    raw = {"request_id": "r1", "student": _record({"course": "15-122", "term": "F2026"})}
    request = PlanRequest.model_validate(raw)
    with use_catalog(cat):
        intake = read_request(request, Toolbox(catalog=cat))
    [question] = [q.question for q in intake.open_questions if "grade" in q.question]
    assert question.startswith("The record does not match the catalog: $.courses[0].grade: ")
    assert question.endswith('write "status": "in_progress"; otherwise give the grade it earned')
