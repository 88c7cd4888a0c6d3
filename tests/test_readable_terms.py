"""Issue #30 item 6: a student record and a request take the readable term spellings
('Fall 2026', '2027 winter', 'f2026') wherever a term code goes, read with the calendar in
use, and still name the field and the fix for text that is no term at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import PlanRequest
from agents.catalog import StudentRecord, load_student, use_calendar
from agents.errors import StudentRecordError
from pipeline.batch_input import InputItem, Invalid, RequestValidator
from tests.harrow_helpers import HARROW_BAY


def _record(**changes: Any) -> dict[str, Any]:
    raw: dict[str, Any] = {
        "id": "s1",
        "name": "Sam",
        "catalog_year": "2026-2027",
        "programs": ["CS-BS"],
        "start_term": "Fall 2024",
        "current_term": "fall 2026",
        "courses": [{"course": "15-112", "term": "2025 Spring", "grade": "A"}],
        "terms_away": ["Spring 2028"],
    }
    return raw | changes


def test_a_student_record_reads_readable_terms_as_codes() -> None:
    student = StudentRecord.model_validate(_record())
    assert (student.start_term, student.current_term) == ("F2024", "F2026")
    assert student.courses[0].term == "S2025"
    assert student.terms_away == ["S2028"]


def test_a_request_reads_readable_terms_as_codes() -> None:
    """Through the batch's checks too: its JSON Schema pass lets readable terms through."""
    raw = {"request_id": "r1", "student": _record(), "target_graduation": "Spring 2028"}
    checked = RequestValidator().check(InputItem(source="line 1", text=json.dumps(raw)))
    assert isinstance(checked, PlanRequest)
    assert checked.target_graduation == "S2028"
    assert (checked.student.start_term, checked.student.courses[0].term) == ("F2024", "S2025")
    bad = RequestValidator().check(
        InputItem(source="line 1", text=json.dumps(raw | {"target_graduation": "Spring 28"}))
    )
    assert isinstance(bad, Invalid)
    assert bad.message.startswith("$.target_graduation: 'Spring 28' is not a term code; write a")


def test_readable_terms_follow_the_calendar_in_use() -> None:
    calendar = HARROW_BAY.calendar
    code = calendar.terms[0].code
    name = calendar.terms[0].name
    with use_calendar(calendar):
        student = StudentRecord.model_validate(
            _record(start_term=f"{name} 2024", current_term=f"{name} 2026", courses=[])
        )
    assert (student.start_term, student.current_term) == (f"{code}2024", f"{code}2026")


def test_text_that_is_no_term_names_the_file_field_and_fix(tmp_path: Path) -> None:
    path = tmp_path / "student.json"
    path.write_text(json.dumps(_record(current_term="Fall 20x")), "utf-8")
    with pytest.raises(StudentRecordError) as err:
        load_student(path)
    message = str(err.value)
    assert "student.json" in message
    assert "$.current_term: 'Fall 20x' is not a term code; write a kind and a 4-digit year" in (
        message
    )
