"""The transfer equivalency table (issue #30, item 4): another school's courses become the
catalog courses its rows name, elective credit is noted, a course without a row is reported,
and a table with a bad row is refused naming each line and column. The transcripts are
PESC-shaped (tests/pesc_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import Catalog
from agents.catalog.transcript_transfer import TransferTable, load_transfer_table
from agents.errors import StudentRecordError
from tests.pesc_helpers import course, document, quarter_catalog, record, run, session


def table(tmp_path: Path, catalog: Catalog, text: str) -> TransferTable:
    path = tmp_path / "equivalencies.csv"
    path.write_text(text, encoding="utf-8")
    return load_transfer_table(path, catalog)


def test_transfer_courses_become_their_local_courses(tmp_path: Path) -> None:
    catalog = quarter_catalog()
    rows = table(
        tmp_path, catalog,
        "institution,course,local_course,units\n"
        "Valley Community College,CS 101,15-110,\n"
        "valley community college,cs-102,15-112,8\n"
        "Valley Community College,ART 110,elective,4\n",
    )  # fmt: skip
    other = record(
        session("Fall 2023", "", "", course("CS-101", grade="B", CourseCreditBasis="Regular"),
                course("CS-102", grade="A"), course("ART-110", grade="A"),
                course("CS-250", grade="A")),
        school="Valley  Community College", program=" ",
    )  # fmt: skip
    text = document(record(session("Fall 2024", "", "", course("15-122"))), other)
    result = run(tmp_path, catalog, text, rows)
    got = [(a.course, a.term, a.source, a.units) for a in result.record.courses]
    assert got == [
        ("15-110", "F2023", "transfer", None),
        ("15-112", "F2023", "transfer", 8.0),
        ("15-122", "F2024", "institution", None),
    ]
    assert tuple(n for n in result.notes if "Valley" in n) == (
        "CS 101 from Valley  Community College counts as 15-110 (equivalencies.csv line 2)",
        "CS 102 from Valley  Community College counts as 15-112 (equivalencies.csv line 3)",
        "ART 110 from Valley  Community College: elective credit, 4 units (equivalencies.csv "
        "line 4); no catalog course, so it is not in the record - an advisor exception can "
        "count it toward a requirement",
    )
    assert [str(p) for p in result.problems] == [
        "line 14, AcademicRecord[2]/AcademicSession[1]/Course[4]/CourseNumber: transfer course "
        "'CS 250' from 'Valley  Community College' is not in the equivalency table "
        "equivalencies.csv; add a row (institution, course, local_course, units) for it; "
        "CS 250 is left out"
    ]


def test_a_bad_equivalency_table_is_refused_naming_each_line_and_column(tmp_path: Path) -> None:
    catalog = quarter_catalog()
    with pytest.raises(StudentRecordError) as exc:
        table(
            tmp_path, catalog,
            "institution,course,local_course,units\n"
            "Valley CC,CS 101,15-999,\n"
            "Valley CC,CS 102,15-112,lots\n"
            "Valley CC,ART 110,elective,\n"
            ",CS 103,15-110,\n"
            "Valley CC,cs101,15-110,\n",
        )  # fmt: skip
    assert exc.value.source == str(tmp_path / "equivalencies.csv")
    assert exc.value.problems[1:] == [
        "line 3, column units: 'lots' is not a number of units above 0 with at most two decimals",
        "line 4, column units: elective credit needs its units; give them",
        "line 5, column institution: empty; give a value",
    ]
    assert exc.value.problems[0].startswith(
        "line 2, column local_course: unknown course '15-999'"
    ) and exc.value.problems[0].endswith(", or write 'elective'")
    with pytest.raises(StudentRecordError) as exc:
        table(tmp_path, catalog, "school,course,local_course\n")
    assert exc.value.problems == [
        "line 1: missing column 'institution'; the header names institution, course, "
        "local_course (optional: units)",
        "line 1: unknown column 'school'; rename or remove it",
    ]
