"""Advisor exceptions files (``exceptions/<student>.json``): loading and its error messages,
merging a file into its student's record, dropping expired exceptions, and the published
JSON Schema (agents/schemas/exceptions.schema.json)."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from agents.catalog import COURSE_CODE_PATTERN, load_student
from agents.catalog.exceptions import (
    EXCEPTIONS_SCHEMA_FILE,
    Approval,
    ExceptionsFile,
    Substitution,
    Waiver,
    exceptions_schema,
    load_exceptions,
)
from agents.errors import ExceptionsFileError, StudentRecordError

ROOT = Path(__file__).resolve().parents[1]
SCHEMA_PATH = ROOT / "agents" / "schemas" / EXCEPTIONS_SCHEMA_FILE
STUDENTS = ROOT / "demos" / "students"

GRANT: dict[str, Any] = {"by": "Dr. Rivera", "date": "2026-09-01", "reason": "Equivalent content."}
SAMPLE: dict[str, Any] = {
    "student_id": "is-senior",
    "exceptions": [
        {"kind": "substitute", "id": "EX-1", "course": "67-375", "for_course": "67-475", **GRANT},
        {"kind": "waive", "requirement": "bus-min-upper", "expires": "2027-05-31", **GRANT},
        {"kind": "apply", "course": "15-388", "requirement": "is-electives", **GRANT},
        {"kind": "approve", "rule": "LOAD-OVERLOAD", "term": "S2027", "through": "F2027", **GRANT},
    ],
}


def write(tmp_path: Path, data: object, name: str = "is-senior.json") -> Path:
    path = tmp_path / name
    text = data if isinstance(data, str) else json.dumps(data, indent=1)
    path.write_text(text, encoding="utf-8")
    return path


def problems_of(tmp_path: Path, *exceptions: dict[str, Any]) -> list[str]:
    path = write(tmp_path, {"student_id": "is-senior", "exceptions": list(exceptions)})
    with pytest.raises(ExceptionsFileError) as info:
        load_exceptions(path)
    assert info.value.source == str(path)
    return info.value.problems


def waiver(on: str, expires: str | None) -> Waiver:
    return Waiver(
        kind="waive",
        requirement="bus-min-upper",
        by="Dr. Rivera",
        date=dt.date(2026, 9, 1),
        reason=f"until {expires}",
        expires=None if expires is None else dt.date.fromisoformat(expires),
        id=on,
    )


# --------------------------------------------------------------------------- loading


def test_load_exceptions_reads_a_valid_file(tmp_path: Path) -> None:
    loaded = load_exceptions(write(tmp_path, SAMPLE))
    day = dt.date(2026, 9, 1)
    who: dict[str, Any] = {"by": "Dr. Rivera", "date": day, "reason": "Equivalent content."}
    assert loaded.schema_version == 1
    assert loaded.student_id == "is-senior"
    assert [e.label() for e in loaded.exceptions] == [
        "EX-1",
        "waive bus-min-upper",
        "apply 15-388 to is-electives",
        "approve LOAD-OVERLOAD for S2027-F2027",
    ]
    assert loaded.exceptions[0] == Substitution(
        kind="substitute", id="EX-1", course="67-375", for_course="67-475", **who
    )
    assert loaded.exceptions[1] == Waiver(
        kind="waive", requirement="bus-min-upper", expires=dt.date(2027, 5, 31), **who
    )
    assert loaded.exceptions[3] == Approval(
        kind="approve", rule="LOAD-OVERLOAD", term="S2027", through="F2027", **who
    )


def test_load_exceptions_of_a_missing_file_says_so(tmp_path: Path) -> None:
    path = tmp_path / "nobody.json"
    with pytest.raises(ExceptionsFileError) as info:
        load_exceptions(path)
    assert str(info.value) == (
        f"{path}: 1 problem\n  - file not found; pass the path of an exceptions JSON file"
    )


def test_load_exceptions_of_invalid_json_gives_line_and_column(tmp_path: Path) -> None:
    path = write(tmp_path, '{"student_id": "is-senior",\n  "exceptions": [}\n')
    with pytest.raises(ExceptionsFileError) as info:
        load_exceptions(path)
    assert info.value.problems == ["not valid JSON at line 2 column 18: Expecting value"]


def test_load_exceptions_of_a_student_record_says_it_is_one() -> None:
    path = STUDENTS / "is-senior.json"
    with pytest.raises(ExceptionsFileError) as info:
        load_exceptions(path)
    assert info.value.problems == [
        "this is a student record, not an exceptions file; an exceptions file is "
        '{"student_id": ..., "exceptions": [...]} (see exceptions.schema.json)'
    ]


def test_schema_error_names_the_json_path_and_the_value(tmp_path: Path) -> None:
    bad_date = {"kind": "waive", "requirement": "bus-min-upper", **GRANT, "date": "2026-13-01"}
    assert problems_of(tmp_path, bad_date) == [
        "$.exceptions[0].date: Input should be a valid date or datetime, month value is "
        "outside expected range of 1-12 (got '2026-13-01')"
    ]


def test_schema_error_for_a_missing_field_and_a_bad_course_code(tmp_path: Path) -> None:
    fine = {"kind": "waive", "requirement": "bus-min-upper", **GRANT}
    no_by = {"kind": "apply", "course": "15-388", "requirement": "is-electives", **GRANT}
    del no_by["by"]
    bad_code = {"kind": "apply", "course": "15-388 ", "requirement": "is-electives", **GRANT}
    assert problems_of(tmp_path, fine, no_by, bad_code) == [
        "$.exceptions[1].by: Field required (got {'kind': 'apply', 'course': '15-388', "
        "'requirement': 'is-electives', 'date': ...)",
        f"$.exceptions[2].course: String should match pattern '{COURSE_CODE_PATTERN}' "
        "(got '15-388 ')",
    ]


def test_schema_error_for_an_unknown_kind_lists_the_kinds(tmp_path: Path) -> None:
    assert problems_of(tmp_path, {"kind": "exempt", "requirement": "bus-min-upper", **GRANT}) == [
        "$.exceptions[0]: Input tag 'exempt' found using 'kind' does not match any of the "
        "expected tags: 'substitute', 'waive', 'apply', 'approve' (got {'kind': 'exempt', "
        "'requirement': 'bus-min-upper', 'by': 'Dr. Rivera', 'date'...)"
    ]


def test_schema_error_for_expiry_before_the_grant_date(tmp_path: Path) -> None:
    early = {"kind": "waive", "requirement": "bus-min-upper", **GRANT, "expires": "2026-08-31"}
    assert problems_of(tmp_path, early) == [
        "$.exceptions[0]: Value error, expires 2026-08-31 is before the grant date 2026-09-01; "
        "an exception cannot expire before it is granted (got {'kind': 'waive', "
        "'requirement': 'bus-min-upper', 'by': 'Dr. Rivera', 'date':...)"
    ]


def test_substitution_needs_exactly_one_target(tmp_path: Path) -> None:
    both = {
        "kind": "substitute",
        "course": "67-375",
        "for_course": "67-475",
        "requirement": "is-core",
        **GRANT,
    }
    neither = {"kind": "substitute", "course": "67-375", **GRANT}
    itself = {"kind": "substitute", "course": "67-375", "for_course": "67-375", **GRANT}
    why = (
        "Value error, give exactly one of for_course (the course replaced) or requirement "
        "(the node it counts toward)"
    )
    assert problems_of(tmp_path, both, neither, itself) == [
        f"$.exceptions[0]: {why} (got {{'kind': 'substitute', 'course': '67-375', "
        "'for_course': '67-475', 'requireme...)",
        f"$.exceptions[1]: {why} (got {{'kind': 'substitute', 'course': '67-375', 'by': "
        "'Dr. Rivera', 'date': '2026-...)",
        "$.exceptions[2]: Value error, course '67-375' cannot substitute for itself (got "
        "{'kind': 'substitute', 'course': '67-375', 'for_course': '67-375', 'by': 'Dr....)",
    ]


# --------------------------------------------------------------------------- the record


def test_with_exceptions_appends_a_file_s_entries_after_the_record_s() -> None:
    student = load_student(STUDENTS / "is-senior.json")
    first = waiver("EX-0", None)
    own = student.model_copy(update={"exceptions": [first]})
    extra = ExceptionsFile.model_validate(SAMPLE)
    merged = own.with_exceptions(extra)
    assert merged.exceptions == [first, *extra.exceptions]
    assert merged.model_copy(update={"exceptions": []}) == student


def test_with_exceptions_for_another_student_names_both_ids() -> None:
    student = load_student(STUDENTS / "cs-junior.json")
    with pytest.raises(StudentRecordError) as info:
        student.with_exceptions(ExceptionsFile.model_validate(SAMPLE))
    assert str(info.value) == (
        "exceptions for 'is-senior': 1 problem\n"
        "  - $.student_id: the file is for student 'is-senior', not 'cs-junior'; pass the "
        "exceptions file of this student"
    )


def test_split_expired_keeps_the_last_day_and_drops_earlier_ones() -> None:
    on = dt.date(2026, 12, 1)
    yesterday, today, later, never = (
        waiver("A", "2026-11-30"),
        waiver("B", "2026-12-01"),
        waiver("C", "2027-05-31"),
        waiver("D", None),
    )
    student = load_student(STUDENTS / "is-senior.json").model_copy(
        update={"exceptions": [yesterday, today, later, never]}
    )
    active, expired = student.split_expired(on)
    assert [e.label() for e in active.exceptions] == ["B", "C", "D"]
    assert expired == [yesterday]
    assert active.model_copy(update={"exceptions": []}) == student.model_copy(
        update={"exceptions": []}
    )


def test_split_expired_with_nothing_expired_returns_the_record_itself() -> None:
    student = load_student(STUDENTS / "is-senior.json").model_copy(
        update={"exceptions": [waiver("B", "2026-12-01")]}
    )
    assert student.split_expired(dt.date(2026, 12, 1)) == (student, [])
    assert student.split_expired(dt.date(2026, 12, 1))[0] is student


# --------------------------------------------------------------------------- the schema


def published() -> dict[str, Any]:
    return json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))  # type: ignore[no-any-return]


def test_published_schema_file_matches_the_models() -> None:
    assert published() == json.loads(json.dumps(exceptions_schema()))
    assert SCHEMA_PATH.read_text(encoding="utf-8") == (
        json.dumps(exceptions_schema(), indent=2, sort_keys=True) + "\n"
    )


def test_published_schema_accepts_a_sample_file() -> None:
    schema = published()
    validator = jsonschema.Draft202012Validator(
        schema, format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    assert list(validator.iter_errors(SAMPLE)) == []
    assert (
        list(validator.iter_errors(ExceptionsFile.model_validate(SAMPLE).model_dump(mode="json")))
        == []
    )


@pytest.mark.parametrize(
    ("bad", "path", "validator_kind"),
    [
        pytest.param({"exceptions": []}, [], "required", id="no-student-id"),
        pytest.param(
            {"student_id": "s", "exceptions": [{"kind": "exempt", "requirement": "x", **GRANT}]},
            ["exceptions", 0],
            "oneOf",
            id="unknown-kind",
        ),
        pytest.param(
            {
                "student_id": "s",
                "exceptions": [
                    {"kind": "waive", "requirement": "x", **GRANT, "date": "2026-13-01"}
                ],
            },
            ["exceptions", 0],
            "oneOf",
            id="bad-date",
        ),
        pytest.param(
            {
                "student_id": "s",
                "exceptions": [{"kind": "waive", "requirement": "x", "units_owed": 0, **GRANT}],
            },
            ["exceptions", 0],
            "oneOf",
            id="zero-units-owed",
        ),
        pytest.param(
            {"student_id": "s", "exceptions": [], "notes": "x"},
            [],
            "additionalProperties",
            id="unknown-field",
        ),
    ],
)
def test_published_schema_rejects_a_bad_file(
    bad: dict[str, Any], path: list[Any], validator_kind: str
) -> None:
    validator = jsonschema.Draft202012Validator(
        published(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
    )
    errors = list(validator.iter_errors(bad))
    assert [(list(e.absolute_path), e.validator) for e in errors] == [(path, validator_kind)]
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, published(), format_checker=jsonschema.FormatChecker())
