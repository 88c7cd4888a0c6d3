"""A CSV transcript of several students (issue #30, item 4): one record per student, each
student's problems reported with the student, and one bad student never stops the others;
transfer lines of the CSV go through the equivalency table."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.catalog import load_catalog, load_student
from agents.catalog.transcript_import import (
    ImportResult,
    StudentFacts,
    import_transcript,
    import_transcripts,
)
from agents.catalog.transcript_transfer import load_transfer_table
from agents.errors import StudentRecordError
from pipeline.cli import main
from pipeline.logs import configure_logging

DEMOS = Path(__file__).resolve().parents[1] / "demos" / "transcripts"
HEADER = "student_id,student_name,programs,term,course,grade,credits\n"
THREE = HEADER + (
    "A-1,Ana,CS-BS,F2025,15-112,A,12\n"
    "B-2,Ben,ASTROLOGY-BA,F2025,15-112,B,12\n"
    "A-1,Ana,CS-BS,F2025,21-127,B+,12\n"
    "C-3,Cleo,MATH-BS,F2025,21-127,Q,12\n"
    "C-3,Cleo Jones,MATH-BS,F2025,21-120,A,10\n"
)


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "office.csv"
    path.write_text(text, encoding="utf-8")
    return path


def test_each_student_gets_a_record_or_the_reasons_there_is_none(tmp_path: Path) -> None:
    results = dict(import_transcripts(write(tmp_path, THREE), load_catalog()))
    assert list(results) == ["A-1", "B-2", "C-3"]
    ana, ben, cleo = results["A-1"], results["B-2"], results["C-3"]
    assert isinstance(ana, ImportResult) and ana.clean
    assert [a.course for a in ana.record.courses] == ["15-112", "21-127"]
    assert isinstance(ben, StudentRecordError)
    assert ben.problems == [
        "no program: the transcript names none the catalog has; pass --program CODE (repeatable)"
    ]
    assert isinstance(cleo, ImportResult)
    assert (cleo.record.name, [a.course for a in cleo.record.courses]) == ("Cleo", ["21-120"])
    assert [str(p) for p in cleo.problems] == [
        "line 5, column grade: unknown grade 'Q'; the catalog's grades are A, A-, B+, B, B-, "
        "C+, C, C-, D+, D, F, R, P, NP, W, I, TR; 21-127 is left out",
        "line 6, column student_name: 'Cleo Jones' differs from 'Cleo' at line 5; the first "
        "is used",
    ]


def test_lines_without_a_student_id_are_reported_on_their_own(tmp_path: Path) -> None:
    text = THREE.splitlines()[0] + "\nA-1,Ana,CS-BS,F2025,15-112,A,12\n,,,F2025,15-122,A,12\n"
    results = import_transcripts(write(tmp_path, text), load_catalog())
    assert [label for label, _ in results] == ["A-1", "(no student_id)"]
    orphan = results[1][1]
    assert isinstance(orphan, StudentRecordError)
    assert orphan.problems == [
        "column student_id: blank on line(s) 3: these lines belong to no student; fill it in"
    ]


def test_id_and_name_options_are_refused_for_a_file_of_several_students(tmp_path: Path) -> None:
    path = write(tmp_path, THREE)
    with pytest.raises(StudentRecordError) as exc:
        import_transcripts(path, load_catalog(), StudentFacts(id="X"))
    assert exc.value.problems == [
        "--id and --name name one student, but the file holds 3 (its student_id column names "
        "each); leave them out"
    ]
    with pytest.raises(StudentRecordError) as exc:
        import_transcript(path, load_catalog())
    assert exc.value.problems == [
        "the file holds 3 students (A-1, B-2, C-3); import it with import_transcripts "
        "(`advise student import FILE -o DIR`)"
    ]


def test_cli_writes_one_record_per_student_and_exits_with_the_worst(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "records"
    assert main(["student", "import", str(write(tmp_path, THREE)), "-o", str(out)]) == 2
    assert sorted(p.name for p in out.iterdir()) == ["A-1.json", "C-3.json"]
    assert load_student(out / "A-1.json").name == "Ana"
    err = capsys.readouterr().err.splitlines()
    assert err[:2] == [
        "B-2: no record (1 problem(s)):",
        "  no program: the transcript names none the catalog has; pass --program CODE (repeatable)",
    ]
    assert err[2] == "C-3: left out (2):"


def test_cli_json_gives_one_object_with_an_entry_per_student(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "records"
    args = ["student", "import", str(write(tmp_path, THREE)), "-o", str(out), "--json"]
    assert main(args) == 2
    got = json.loads(capsys.readouterr().out)
    by_student = {e["student"]: e for e in got["students"]}
    assert sorted(by_student) == ["A-1", "B-2", "C-3"]
    assert by_student["A-1"]["clean"] is True
    assert by_student["A-1"]["output"] == str(out / "A-1.json")
    assert load_student(out / "A-1.json").name == "Ana"
    assert by_student["B-2"]["problems"] == [
        "no program: the transcript names none the catalog has; pass --program CODE (repeatable)"
    ]
    assert by_student["C-3"]["clean"] is False and len(by_student["C-3"]["left_out"]) == 2


def test_cli_needs_a_directory_for_several_students(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["student", "import", str(write(tmp_path, THREE))]) == 2
    assert capsys.readouterr().err == (
        f"error: {tmp_path / 'office.csv'} holds 3 students; pass -o DIR to write one record "
        "per student (DIR/<id>.json)\n"
    )


def test_demo_office_file_maps_transfer_lines_through_the_table(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "records"
    argv = ["student", "import", str(DEMOS / "advising-office.csv"), "--transfer-table",
            str(DEMOS / "transfer-equivalencies.csv"), "-o", str(out)]  # fmt: skip
    assert main(argv) == 0
    assert capsys.readouterr().err == ""
    mateo = json.loads((out / "NIT-2025-0610.json").read_text("utf-8"))
    transfer = [(c["course"], c["term"], c.get("units")) for c in mateo["courses"]
                if c.get("source") == "transfer"]  # fmt: skip
    assert transfer == [("21-120", "S2025", None), ("85-102", "S2025", None)]
    assert main(["audit", str(out / "NIT-2025-0644.json")]) == 0


def test_an_unmatched_transfer_line_of_a_csv_is_left_out_and_named(tmp_path: Path) -> None:
    text = (
        "term,course,grade,credits,source,institution\n"
        "F2025,15-112,A,12,,\n"
        "S2025,MATH 999,A,4,transfer,Allegheny Valley Community College\n"
    )
    catalog = load_catalog()
    table = load_transfer_table(DEMOS / "transfer-equivalencies.csv", catalog)
    facts = StudentFacts(id="S", name="S", programs=("CS-BS",))
    result = import_transcript(write(tmp_path, text), catalog, facts, transfer=table)
    assert [str(p) for p in result.problems] == [
        "line 3, column course: transfer course 'MATH 999' from 'Allegheny Valley Community "
        "College' is not in the equivalency table transfer-equivalencies.csv; add a row "
        "(institution, course, local_course, units) for it; MATH 999 is left out"
    ]
