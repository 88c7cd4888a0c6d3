"""Poison lines and oversized inputs (issue #25, items 4 and 5).

- One bad line never stops a batch: deep nesting, a lone surrogate, a 5,000-digit integer,
  an oversized line or text, a long name, bytes that are not UTF-8 - each is an invalid
  request with its line number and what is wrong, and every valid request still finishes
  (2 workers, fake stages, the CLI entry point).
- Every input has a limit (``agents.catalog.limits.LIMITS``) and going over it is a clear
  error naming the limit, before the input is parsed or worked on: requests and student
  records here; transcripts, catalogs, YAML and CSV in tests/test_fault_input_files.py.

Files "over the size limit" are sparse (``truncate``): refused by their size before a byte
is read, so no test writes megabytes.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import load_student
from agents.catalog.limits import MiB
from agents.errors import StudentRecordError
from pipeline.batch_input import InputItem, Invalid, RequestValidator
from pipeline.cli import main
from tests.fake_stages import request_dict, write_catalog
from tests.fault_helpers import sparse_file

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

ROOT = Path(__file__).resolve().parents[1]
FAKE = ["--catalog", "catalog.json", "--stages", "tests.fake_stages:FAKE", "--quiet", "--json"]


def _record() -> dict[str, Any]:
    raw: dict[str, Any] = json.loads(
        (ROOT / "demos/students/senior-on-track.json").read_text("utf-8")
    )
    return raw


# ------------------------------------------------------------------ a batch of poison lines


def test_poison_lines_are_invalid_with_their_line_and_the_valid_requests_finish(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_catalog(tmp_path)
    ok = [json.dumps(request_dict(f"ok{i}")).encode() for i in range(1, 5)]
    digits = json.dumps(request_dict("big", alternatives=1)).replace(
        '"alternatives": 1', '"alternatives": ' + "9" * 5000
    )
    long_name = request_dict("name")
    long_name["student"]["name"] = "N" * 201
    lines = [
        ok[0],
        b"[" * 100_000 + b"]" * 100_000,
        json.dumps(request_dict("sur", "plan \ud800 my term")).encode(),
        ok[1],
        digits.encode(),
        json.dumps(request_dict("huge", "x" * (MiB + 10))).encode(),
        json.dumps(request_dict("text", "y" * 20_001)).encode(),
        json.dumps(long_name).encode(),
        b"\xff\xfe not text",
        ok[2],
        ok[3],
    ]
    (tmp_path / "in.jsonl").write_bytes(b"\n".join(lines) + b"\n")

    code = main(["batch", "in.jsonl", *FAKE, "--workers", "2"])
    report = json.loads(capsys.readouterr().out)

    assert code == 1
    assert report["status"] == {"done": 4, "invalid": 7}
    assert report["invalid"] == [
        "? (line 2): JSON nested deeper than the limit of 64 levels; check its brackets",
        "sur (line 3): $.text: '\\ud800' at character 6 is a lone surrogate, not valid "
        "Unicode; remove it or write the whole character",
        "? (line 5): an integer with 5,000 digits, over the limit of 4,300 digits; write it "
        "in fewer digits",
        f"? (line 6): a request (one JSONL line or JSON file): {len(lines[5]):,} bytes, over "
        "the limit of 1,048,576 bytes; split it, or shorten its text",
        "text (line 7): $.text: 20,001 characters, over the limit of 20,000 characters; shorten it",
        "name (line 8): $.student.name: 201 characters, over the limit of 200 characters; "
        "shorten it",
        "? (line 9): not UTF-8 text (byte 0xff at byte 1 of the line); save the file as UTF-8",
    ]
    summary = (tmp_path / "out" / "batch-summary.jsonl").read_text("utf-8").splitlines()
    done = sorted(row["id"] for row in map(json.loads, summary) if row["status"] == "done")
    assert done == ["ok1", "ok2", "ok3", "ok4"]


def test_a_lone_surrogate_anywhere_in_a_request_is_refused_before_it_is_written() -> None:
    raw = request_dict("r1")
    raw["student"]["interests"] = ["music", "chess \udc00"]
    checked = RequestValidator().check(InputItem("line 1", text=json.dumps(raw)))
    assert checked == Invalid(
        "r1",
        "$.student.interests[1]: '\\udc00' at character 7 is a lone surrogate, not valid "
        "Unicode; remove it or write the whole character",
    )
    bad_id = json.dumps(request_dict("r\ud800"))
    assert RequestValidator().check(InputItem("line 1", text=bad_id)) == Invalid(
        None,
        "$.request_id: '\\ud800' at character 2 is a lone surrogate, not valid Unicode; "
        "remove it or write the whole character",
    )


def test_a_surrogate_pair_escape_is_one_character_and_valid() -> None:
    text = json.dumps(request_dict("r1", "plan my term \U0001f600"))  # "\ud83d\ude00"
    checked = RequestValidator().check(InputItem("line 1", text=text))
    assert getattr(checked, "text", None) == "plan my term \U0001f600"


def test_advise_run_refuses_an_oversized_request_file_before_reading_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.chdir(tmp_path)
    write_catalog(tmp_path)
    sparse_file(tmp_path / "request.json", 2 * MiB)
    code = main(["run", "request.json", *FAKE[:4], "--json"])
    assert code == 2
    assert capsys.readouterr().err == (
        "error: request.json: a request (one JSONL line or JSON file): 2,097,152 bytes, over "
        "the limit of 1,048,576 bytes; split it, or shorten its text\n"
    )


# ------------------------------------------------------------------ student records


def test_a_record_over_the_course_limit_is_refused_before_any_audit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    record = _record()
    record["courses"] = (record["courses"] * 2_001)[:2_001]
    path = tmp_path / "s.json"
    path.write_text(json.dumps(record), "utf-8")
    with pytest.raises(StudentRecordError) as err:
        load_student(path)
    assert err.value.problems == [
        "$.courses: 2,001 entries, over the limit of 2,000 entries; shorten the list"
    ]
    assert main(["audit", str(path)]) == 2
    assert "$.courses: 2,001 entries, over the limit of 2,000 entries" in capsys.readouterr().err


def test_a_request_over_the_course_limit_isInvalid() -> None:
    raw = request_dict("r1")
    course = {"course": "15-112", "term": "F2025", "grade": "A"}
    raw["student"]["courses"] = [course] * 2_001
    checked = RequestValidator().check(InputItem("line 1", text=json.dumps(raw)))
    assert checked == Invalid(
        "r1", "$.student.courses: 2,001 entries, over the limit of 2,000 entries; shorten the list"
    )


@pytest.mark.parametrize(
    ("field", "problem"),
    [
        ("name", "$.name: 201 characters, over the limit of 200 characters; shorten it"),
        ("id", "$.id: 201 characters, over the limit of 200 characters; shorten it"),
    ],
)
def test_a_record_s_name_or_id_over_the_limit_is_refused(
    tmp_path: Path, field: str, problem: str
) -> None:
    record = _record() | {field: "N" * 201}
    path = tmp_path / "s.json"
    path.write_text(json.dumps(record), "utf-8")
    with pytest.raises(StudentRecordError) as err:
        load_student(path)
    assert err.value.problems == [problem]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            b'{"id": "s1", "name": "Ada\xff"}',
            "line 1: not UTF-8 text (byte 0xff); is this a student JSON file?",
        ),
        (
            b"[" * 100_000,
            "JSON nested deeper than the limit of 64 levels; check its brackets",
        ),
        (
            b'{"gpa": ' + b"3" * 5_000 + b"}",
            "an integer with 5,000 digits, over the limit of 4,300 digits; write it in "
            "fewer digits",
        ),
        (
            b'{"name": "Ada \\udfff"}',
            "$.name: '\\udfff' at character 5 is a lone surrogate, not valid Unicode; remove "
            "it or write the whole character",
        ),
    ],
    ids=["binary", "deep", "digits", "surrogate"],
)
def test_a_poison_student_file_is_a_record_error_not_a_traceback(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    path = tmp_path / "s.json"
    path.write_bytes(content)
    with pytest.raises(StudentRecordError) as err:
        load_student(path)
    assert err.value.problems == [problem]


def test_a_student_file_over_the_size_limit_is_refused_before_it_is_read(
    tmp_path: Path,
) -> None:
    path = sparse_file(tmp_path / "s.json", 9 * MiB)
    with pytest.raises(StudentRecordError) as err:
        load_student(path)
    assert err.value.problems == [
        "a student record or exceptions file: 9,437,184 bytes, over the limit of 8,388,608 "
        "bytes; is this a student JSON file?"
    ]
