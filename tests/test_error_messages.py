"""Error messages a new user meets first, one row per message with its exact text: each
names the JSON path (or the column), the offending value (short) and the fix."""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest

from agents.artifacts import PlanRequest
from agents.catalog import parse_prereq
from agents.catalog.student import NOT_A_STUDENT_RECORD, load_student, parse_student
from agents.catalog.terms import Calendar, TermKind
from agents.errors import PrereqSyntaxError, StudentRecordError
from pipeline.batch import run_batch
from pipeline.batch_input import (
    NOT_A_PLAN_REQUEST,
    InputItem,
    Invalid,
    RequestValidator,
    iter_input,
)
from pipeline.jobs import RunOptions
from pipeline.logs import configure_logging
from pipeline.runner import GracefulStop
from tests.fake_stages import STUDENT, Harness, request_dict

DROP = object()


def _edit(raw: dict[str, Any], *changes: tuple[str, Any]) -> dict[str, Any]:
    """``raw`` with each ``("a/b/0/c", value)`` set (``DROP`` deletes the key)."""
    out = copy.deepcopy(raw)
    for path, value in changes:
        *parents, last = [int(p) if p.isdigit() else p for p in path.split("/")]
        node: Any = out
        for key in parents:
            node = node[key]
        if value is DROP:
            del node[last]
        else:
            node[last] = value
    return out


LATE_EXPIRY = {
    "kind": "approve",
    "rule": "LOAD-OVERLOAD",
    "term": "S2027",
    "by": "Dr. Rivera",
    "reason": "strong record",
    "date": "2026-09-01",
    "expires": "2026-01-01",
}

NO_TERM = (
    "is not a term code; write a kind and a 4-digit year such as 'S2027', 'F2027' "
    "(semester kinds: S Spring, U Summer, F Fall)"
)

REQUEST_CASES = [
    (
        "missing field names its own path, not the parent's value",
        _edit(request_dict("r1"), ("student/name", DROP)),
        "$.student.name: required field missing; add 'name' (preferred name)",
    ),
    (
        "missing top-level field",
        _edit(request_dict("r1"), ("student", DROP)),
        "$.student: required field missing; add 'student' (the student's academic record)",
    ),
    (
        "term in words with a two-digit year",  # 'Fall 2024' is read as F2024 (#30)
        _edit(request_dict("r1"), ("student/current_term", "Fall 24")),
        f"$.student.current_term: 'Fall 24' {NO_TERM}",
    ),
    (
        "text that is no term",
        _edit(request_dict("r1"), ("student/start_term", "2025")),
        "$.student.start_term: '2025' is not a term code; write a kind and a 4-digit year such "
        "as 'S2027', 'F2027' (semester kinds: S Spring, U Summer, F Fall)",
    ),
    (
        # A code the catalog does not have ('15-11O') is the catalog check's (it suggests
        # 15-110); without the catalog only what no code can be is refused.
        "course code with a space at its end",
        _edit(request_dict("r1"), ("student/courses", [{"course": "15-110 ", "term": "F2025"}])),
        "$.student.courses[0].course: '15-110 ' is not a course code: it starts or ends with a "
        "space - write '15-110'",
    ),
    (
        "every problem of the request, joined",
        _edit(
            request_dict("r1"),
            ("student/name", DROP),
            ("student/current_term", "Fall 26"),
            ("student/gpa", 5),
        ),
        "3 problems: $.student.name: required field missing; add 'name' (preferred name) | "
        f"$.student.current_term: 'Fall 26' {NO_TERM} | "
        "$.student.gpa: expected a number <= 4.3, got 5",
    ),
    (
        "a number of courses wanted next term below one",
        _edit(request_dict("r1"), ("next_term_courses", 0)),
        "$.next_term_courses: expected a number >= 1, got 0",
    ),
    (
        "a number of courses wanted next term in words",
        _edit(request_dict("r1"), ("next_term_courses", "five")),
        "$.next_term_courses: expected an integer or null, got 'five'",
    ),
    (
        "a long value is cut short",
        _edit(request_dict("r1"), ("student", "x" * 300)),
        "$.student: expected an object, got '" + "x" * 76 + "...",
    ),
    (
        "a student record given as a request",
        dict(STUDENT),
        'this is a student record, not a plan request; wrap it as {"request_id": ..., '
        '"student": {...}}',
    ),
    (
        "model check quotes the value",
        _edit(request_dict("r1"), ("as_of", "yesterday")),
        "$.as_of: Input should be a valid date or datetime, input is too short (got 'yesterday')",
    ),
    (
        "model check on a nested item quotes it short",
        _edit(request_dict("r1"), ("student/exceptions", [LATE_EXPIRY])),
        "$.student.exceptions[0]: expires 2026-01-01 is before the grant date 2026-09-01; an "
        "exception cannot expire before it is granted (got {'kind': 'approve', 'rule': "
        "'LOAD-OVERLOAD', 'term': 'S2027', 'by': 'Dr. Rive...)",
    ),
]


@pytest.mark.parametrize(
    ("raw", "message"), [c[1:] for c in REQUEST_CASES], ids=[c[0] for c in REQUEST_CASES]
)
def test_request_validator_message(raw: dict[str, Any], message: str) -> None:
    checked = RequestValidator().check(InputItem(source="line 1", text=json.dumps(raw)))
    assert isinstance(checked, Invalid)
    assert checked.message == message


STUDENT_CASES = [
    (
        "missing field",
        _edit(STUDENT, ("name", DROP)),
        ["$.name: required field missing; add 'name' (preferred name)"],
    ),
    (
        "no term in the course history",
        _edit(STUDENT, ("courses", [{"course": "15-112", "term": "Spring 26", "grade": "A"}])),
        [f"$.courses[0].term: 'Spring 26' {NO_TERM}"],
    ),
    (
        "missing field of an exception (no union tag in the path)",
        _edit(STUDENT, ("exceptions", [_edit(LATE_EXPIRY, ("date", DROP))])),
        [
            "$.exceptions[0].date: required field missing; add 'date' (when it was granted "
            "(YYYY-MM-DD))"
        ],
    ),
    (
        "unknown field",
        _edit(STUDENT, ("standing", "junior")),
        ["$.standing: unknown field - remove it or correct its spelling (got 'junior')"],
    ),
    (
        "a plan request given as a student record",
        request_dict("r1"),
        [
            'this is a plan request, not a student record; its student is under "student" - '
            "pass a student record file (demos/students/...), or run the request with "
            "'advise run'"
        ],
    ),
]


@pytest.mark.parametrize(
    ("raw", "problems"), [c[1:] for c in STUDENT_CASES], ids=[c[0] for c in STUDENT_CASES]
)
def test_student_record_problems(raw: dict[str, Any], problems: list[str]) -> None:
    with pytest.raises(StudentRecordError) as info:
        parse_student(raw, source="s.json")
    assert info.value.problems == problems


TRIMESTER = Calendar(
    system="trimester",
    terms=[
        TermKind(code="T2", name="Winter Trimester", aliases=["winter"]),
        TermKind(code="T3", name="Spring Trimester", aliases=["spring"]),
        TermKind(code="U", name="Summer", regular=False),
        TermKind(code="T1", name="Fall Trimester", aliases=["fall", "autumn"]),
    ],
    academic_year_starts="T1",
)


def test_terms_in_words_are_read_with_the_catalogs_calendar_when_given() -> None:
    raw = _edit(request_dict("r1"), ("student/current_term", "Fall 2024"))
    checked = RequestValidator(calendar=TRIMESTER).check(InputItem("line 1", json.dumps(raw)))
    assert isinstance(checked, PlanRequest)
    assert checked.student.current_term == "T12024"
    student = parse_student(_edit(STUDENT, ("start_term", "winter 2026")), calendar=TRIMESTER)
    assert student.start_term == "T22026"


def test_audit_of_a_request_file_names_the_file_once(tmp_path: Path) -> None:
    path = tmp_path / "request.json"
    path.write_text(json.dumps(request_dict("r1")), encoding="utf-8")
    with pytest.raises(StudentRecordError) as info:
        load_student(path)
    assert str(info.value) == f"{path}: 1 problem\n  - {NOT_A_STUDENT_RECORD}"
    assert NOT_A_PLAN_REQUEST.startswith("this is a student record, not a plan request")


PREREQ_CASES = [
    (
        "21-120 and 21-12O",
        17,
        "'21-12O' is not a course code: the letter 'O' looks like the digit 0; write '21-120'",
    ),
    (
        "15-l12 or 15-112",
        4,
        "'15-l12' is not a course code: the letter 'l' looks like the digit 1; write '15-112'",
    ),
    (
        "(CS lO1)",
        5,
        "'CS lO1' is not a course code: the letters 'l', 'O' look like the digits 1, 0; write "
        "'CS 101'",
    ),
    (
        "21-120 and 21-1200",
        12,
        "'21-1200' is not a course code, 'and', 'or' or a condition; course codes look like "
        "15-112, CS 101 or MATH221",
    ),
    (
        "15-112 with 15-122",
        8,
        "'with' is not a course code, 'and', 'or' or a condition; course codes look like "
        "15-112, CS 101 or MATH221",
    ),
]


@pytest.mark.parametrize(("text", "column", "reason"), PREREQ_CASES)
def test_prereq_error_points_at_the_bad_token(text: str, column: int, reason: str) -> None:
    with pytest.raises(PrereqSyntaxError) as info:
        parse_prereq(text)
    assert (info.value.column, info.value.reason) == (column, reason)


def test_prereq_error_caret_under_the_letter() -> None:
    with pytest.raises(PrereqSyntaxError) as info:
        parse_prereq("21-120 and 21-12O")
    assert str(info.value).splitlines()[1:] == ["  21-120 and 21-12O", "                  ^"]


def test_invalid_batch_line_has_every_problem_in_summary_and_log(h: Harness) -> None:
    bad = _edit(request_dict("r1"), ("student/name", DROP), ("student/current_term", "Fall 26"))
    path = h.root / "in.jsonl"
    path.write_text(json.dumps(bad) + "\n", encoding="utf-8")
    opts = RunOptions(
        state_dir=h.store.root,
        out_dir=h.out,
        catalog=str(h.catalog),
        stages="tests.fake_stages:FAKE",
    )
    log_path = h.root / "batch.jsonl"
    configure_logging("warning", stream=io.StringIO(), json_path=log_path)
    report = run_batch(iter_input(str(path)), opts, stop=GracefulStop())
    error = (
        "2 problems: $.student.name: required field missing; add 'name' (preferred name) | "
        f"$.student.current_term: 'Fall 26' {NO_TERM}"
    )
    summary = json.loads((h.out / "batch-summary.jsonl").read_text("utf-8"))
    assert (summary["status"], summary["error"]) == ("invalid", error)
    events = [json.loads(line) for line in log_path.read_text("utf-8").splitlines()]
    invalid = [e for e in events if e["event"] == "batch.invalid"]
    assert [(e["request_id"], e["source"], e["error"]) for e in invalid] == [
        ("r1", "line 1", error)
    ]
    assert report.invalid == [f"r1 (line 1): {error}"]
