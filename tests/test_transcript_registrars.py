"""Transcripts as registrars send them (issue #30, item 4): programs matched by name or
code, sessions placed in terms by their dates, credit units converted, transfer credit
mapped by an equivalency table, every element not used reported.

The transcripts follow the structure of the published PESC College Transcript
(CollegeTranscript v1.6.0): the root in the ``urn:org:pesc:message:CollegeTranscript``
namespace, every other element unqualified; ``TransmissionData``, then ``Student`` with
``Person`` (``SchoolAssignedPersonID``, ``Name``) and ``AcademicRecord`` elements, each with
``School/OrganizationName``, ``AcademicProgram`` (``AcademicProgramType``,
``AcademicProgramCode``, ``AcademicProgramName``), ``AcademicAward``, ``AcademicSummary``,
``NoteMessage`` and ``AcademicSession`` elements (``AcademicSessionDetail`` with
``SessionDesignator``, ``SessionName``, ``SessionBeginDate``, ``SessionEndDate``; then
``Course`` elements with ``CourseCreditBasis``, ``CourseCreditUnits``, ``CourseCreditValue``,
``CourseAcademicGrade``, ``CourseRepeatCode``, ``CourseGPAApplicabilityCode``,
``CourseSubjectAbbreviation``, ``CourseNumber``, ``CourseTitle``). Every document is
validated against tests/data/pesc/college-transcript-subset.xsd - the project's own subset
of that structure, not the official schema (which cannot be downloaded here).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import xmlschema

from agents.catalog import Catalog
from agents.catalog.parse import parse_catalog
from agents.catalog.transcript_import import ImportResult, StudentFacts, import_transcript
from agents.catalog.transcript_transfer import TransferTable, load_transfer_table
from agents.errors import CatalogError, StudentRecordError
from tests.catalog_base import base_catalog

XSD = Path(__file__).parent / "data" / "pesc" / "college-transcript-subset.xsd"
PESC_NS = "urn:org:pesc:message:CollegeTranscript:v1.6.0"
SENDER = "Test College"


def quarter_catalog(**institution: Any) -> Catalog:
    """The base catalog on a quarter calendar whose spring quarter starts in late March."""
    raw = base_catalog()
    raw["schema_version"] = 3
    raw["institution"].update(institution)
    raw["calendar"] = {
        "system": "quarter",
        "academic_year_starts": "F",
        "terms": [
            {"code": "W", "name": "Winter", "months": [1, 2, 3],
             "typical_dates": {"start": "01-04", "weekday": "M", "weeks": 11}},
            {"code": "S", "name": "Spring", "months": [4, 5, 6],
             "typical_dates": {"start": "03-25", "weekday": "M", "weeks": 11}},
            {"code": "U", "name": "Summer", "regular": False, "months": [7, 8]},
            {"code": "F", "name": "Fall", "months": [9, 10, 11, 12],
             "typical_dates": {"start": "09-20", "weekday": "M", "weeks": 11}},
        ],
    }  # fmt: skip
    return parse_catalog(raw, source="quarter.json")


def course(code: str, grade: str = "A", credits: str = "", **extra: str) -> str:
    """A Course element; without credits the catalog's units stand."""
    subject, _, number = code.partition("-")
    fields = {"CourseCreditValue": credits} if credits else {}
    fields |= {"CourseAcademicGrade": grade, **extra}
    body = "".join(f"<{k}>{v}</{k}>" for k, v in fields.items())
    return (
        f"<Course>{body}<CourseSubjectAbbreviation>{subject}</CourseSubjectAbbreviation>"
        f"<CourseNumber>{number}</CourseNumber></Course>"
    )


def session(name: str, begin: str, end: str, *courses: str) -> str:
    detail = f"<SessionName>{name}</SessionName>" if name else ""
    if begin:
        detail += (
            f"<SessionBeginDate>{begin}</SessionBeginDate><SessionEndDate>{end}</SessionEndDate>"
        )
    return (
        f"<AcademicSession><AcademicSessionDetail>{detail}</AcademicSessionDetail>\n"
        + "\n".join(courses)
        + "\n</AcademicSession>"
    )


def record(*parts: str, school: str = SENDER, program: str = "") -> str:
    program = program or (
        "<AcademicProgram><AcademicProgramType>Minor</AcademicProgramType>"
        "<AcademicProgramCode>CS-MIN</AcademicProgramCode></AcademicProgram>"
    )
    return (
        f"<AcademicRecord><School><OrganizationName>{school}</OrganizationName></School>"
        f"{program}\n" + "\n".join(parts) + "\n</AcademicRecord>"
    )


def document(*records: str) -> str:
    person = (
        "<Person><SchoolAssignedPersonID>S-7</SchoolAssignedPersonID>"
        "<Name><CompositeName>Ada Byron</CompositeName></Name></Person>"
    )
    return (
        f'<ColTrn:CollegeTranscript xmlns:ColTrn="{PESC_NS}">\n'
        "<TransmissionData><DocumentID>D-1</DocumentID></TransmissionData>\n"
        f"<Student>{person}\n" + "\n".join(records) + "\n</Student>\n</ColTrn:CollegeTranscript>\n"
    )


@pytest.fixture(scope="module")
def schema() -> xmlschema.XMLSchema:
    return xmlschema.XMLSchema(str(XSD))


def run(
    tmp_path: Path,
    catalog: Catalog,
    text: str,
    schema: xmlschema.XMLSchema,
    transfer: TransferTable | None = None,
) -> ImportResult:
    schema.validate(text)  # the fixture has the published structure
    path = tmp_path / "t.xml"
    path.write_text(text, encoding="utf-8")
    return import_transcript(path, catalog, StudentFacts(), transfer=transfer)


# ---------------------------------------------------------------- programs


def test_a_renamed_program_is_matched_by_its_code_and_said_so(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
    program = (
        "<AcademicProgram><AcademicProgramType>Minor</AcademicProgramType>"
        "<AcademicProgramCode>CS-MIN</AcademicProgramCode>"
        "<AcademicProgramName>Computing Minor</AcademicProgramName></AcademicProgram>"
    )
    text = document(record(session("Fall 2024", "", "", course("15-112")), program=program))
    result = run(tmp_path, quarter_catalog(), text, schema)
    assert result.record.programs == ["CS-MIN"]
    assert result.notes == (
        "program CS-MIN: the name 'Computing Minor' at AcademicRecord[1]/AcademicProgram[1]/"
        "AcademicProgramName is not in the catalog; matched by the code 'CS-MIN' at "
        "AcademicRecord[1]/AcademicProgram[1]/AcademicProgramCode",
    )


def test_a_program_that_matches_neither_name_nor_code_is_reported(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
    program = (
        "<AcademicProgram><AcademicProgramType>Major</AcademicProgramType>"
        "<AcademicProgramCode>ASTR-BS</AcademicProgramCode>"
        "<AcademicProgramName>Astrology</AcademicProgramName></AcademicProgram>"
    )
    minor = record(session("Fall 2024", "", "", course("15-112"))).replace(
        "<AcademicProgram>", program + "<AcademicProgram>", 1
    )
    result = run(tmp_path, quarter_catalog(), document(minor), schema)
    assert result.record.programs == ["CS-MIN"]  # the other program is still read
    assert [str(p) for p in result.problems] == [
        "line 4, AcademicRecord[1]/AcademicProgram[1]/AcademicProgramName: program 'Astrology' "
        "or 'ASTR-BS' (Major) is not in the catalog by name or code; known: CS-MIN; pass "
        "--program CODE"
    ]


# ---------------------------------------------------------------- sessions by their dates


def test_dates_place_a_misnamed_session_and_a_passed_retake_is_kept(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
    text = document(
        record(
            session("Winter 2024", "2024-01-08", "2024-03-22", course("15-112", grade="F")),
            session("Winter Quarter 2024", "2024-03-25", "2024-06-07", course("15-112")),
        )
    )
    result = run(tmp_path, quarter_catalog(), text, schema)
    assert result.clean
    attempts = [(a.course, a.term, a.grade) for a in result.record.courses]
    assert attempts == [("15-112", "W2024", "F"), ("15-112", "S2024", "A")]
    assert result.notes == (
        "line 8: session AcademicRecord[1]/AcademicSession[2]/AcademicSessionDetail/SessionName "
        "'Winter Quarter 2024' reads as W2024 but its dates 2024-03-25 to 2024-06-07 fall in "
        "S2024 (typical dates of S2024: 2024-03-25 to 2024-06-09); used S2024, the dates",
    )


def test_dates_that_fit_no_one_term_leave_the_name_in_charge(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
    text = document(record(session("Spring 2024", "2024-02-01", "2024-07-31", course("15-112"))))
    result = run(tmp_path, quarter_catalog(), text, schema)
    assert [(a.course, a.term) for a in result.record.courses] == [("15-112", "S2024")]
    assert result.notes == (
        "line 5: session AcademicRecord[1]/AcademicSession[1]/AcademicSessionDetail/SessionName "
        "'Spring 2024': its dates 2024-02-01 to 2024-07-31 place it in no term (no one term "
        "holds most of it (it overlaps S2024, W2024)); used S2024, the name",
    )


def test_a_calendar_without_term_days_reads_dates_by_months_and_says_so(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
    raw = base_catalog()  # the semester calendar: months, no dates
    catalog = parse_catalog(raw, source="semester.json")
    text = document(record(session("", "2024-08-26", "2024-12-13", course("15-112"))))
    result = run(tmp_path, catalog, text, schema)
    assert [(a.course, a.term) for a in result.record.courses] == [("15-112", "F2024")]
    text = document(record(session("Spring 2024", "2024-08-26", "2024-12-13", course("15-112"))))
    result = run(tmp_path, catalog, text, schema)
    assert result.notes[0].endswith(
        "'Spring 2024' reads as S2024 but its dates 2024-08-26 to 2024-12-13 fall in F2024 "
        "(the catalog's calendar gives no term days (dates or typical_dates), so by the month "
        "of the session's middle day (2024-10-19)); used F2024, the dates"
    )


def test_a_bad_session_date_without_a_name_keeps_its_courses_out(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
    text = document(record(session("", "2024-01-08", "2024-03-22", course("15-112"))))
    text = text.replace("2024-01-08", "2024-13-08")
    path = tmp_path / "t.xml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(StudentRecordError) as exc:  # no course left: no start term
        import_transcript(path, quarter_catalog())
    assert exc.value.problems == [
        "no start term: no course has a term to derive it from; pass --start-term TERM"
    ]
    result = import_transcript(path, quarter_catalog(), StudentFacts(start_term="W2024"))
    assert [str(p) for p in result.problems] == [
        "line 5, AcademicRecord[1]/AcademicSession[1]/AcademicSessionDetail/SessionBeginDate: "
        "session dates 2024-13-08: not a date; write YYYY-MM-DD, e.g. '2024-03-25'; 15 112 is "
        "left out"
    ]


# ---------------------------------------------------------------- credit units


def test_semester_credits_are_converted_on_a_quarter_catalog(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
    catalog = quarter_catalog(credit_unit="Quarter", credit_conversion={"Semester": 1.5})
    text = document(
        record(
            session(
                "Fall 2024", "", "",
                course("15-110", credits="10", CourseCreditUnits="Quarter"),
                course("15-112", credits="4", CourseCreditUnits="Semester"),
                course("15-122", credits="30", CourseCreditUnits="ClockHours"),
            )
        )
    )  # fmt: skip
    result = run(tmp_path, catalog, text, schema)
    units = [(a.course, a.units) for a in result.record.courses]
    assert units == [("15-110", None), ("15-112", 6.0)]
    assert result.notes[0] == (
        "15 112: 4 Semester credits at AcademicRecord[1]/AcademicSession[1]/Course[2]/"
        "CourseCreditUnits are 6 units (credit_conversion 'Semester': 1.5)"
    )
    assert [str(p) for p in result.problems] == [
        "line 8, AcademicRecord[1]/AcademicSession[1]/Course[3]/CourseCreditUnits: credit unit "
        "'ClockHours' is not the catalog's ('Quarter', 'Semester' are known); add it to the "
        "catalog's institution.credit_conversion with how many units one is worth; 15 122 is "
        "left out"
    ]


def test_a_unit_the_catalog_cannot_check_is_reported_as_not_used(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
    text = document(
        record(
            session(
                "Fall 2024", "", "", course("15-112", credits="12", CourseCreditUnits="Semester")
            )
        )
    )
    result = run(tmp_path, quarter_catalog(), text, schema)
    assert result.clean and result.record.courses[0].units is None
    assert result.ignored[-1] == (
        "AcademicRecord[1]/AcademicSession[1]/Course[1]/CourseCreditUnits 'Semester' (first at "
        "line 6): not checked - the catalog declares no credit_unit or credit_conversion, so "
        "transcript credits are read as units"
    )


def test_credit_conversion_is_new_in_catalog_version_3() -> None:
    raw = base_catalog()  # schema_version 2
    raw["institution"]["credit_conversion"] = {"Semester": 1.5}
    with pytest.raises(CatalogError) as exc:
        parse_catalog(raw, source="v2.json")
    assert "credit_unit and credit_conversion are new in catalog format version 3" in str(exc.value)


# ---------------------------------------------------------------- elements not used


def test_every_element_not_used_is_reported_with_why(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
    award = "<AcademicAward><AcademicAwardTitle>Dean's List</AcademicAwardTitle></AcademicAward>"
    text = document(
        record(
            award,
            "<NoteMessage>Academic probation lifted</NoteMessage>",
            session(
                "Fall 2024", "", "",
                course("15-112", grade="F", CourseRepeatCode="RepeatNotCounted",
                       CourseGPAApplicabilityCode="NotApplicable", CourseTitle="Programming"),
            ),
        )
    )  # fmt: skip
    result = run(tmp_path, quarter_catalog(), text, schema)
    assert result.clean
    assert result.ignored == (
        "TransmissionData (1 element at line 2, TransmissionData): the document's transmission "
        "header, not about the student",
        "AcademicAward (1 element at line 5, AcademicRecord[1]/AcademicAward): degrees and "
        "honors awarded are not part of a student record",
        "NoteMessage (1 element at line 6, AcademicRecord[1]/NoteMessage): notes are not "
        "imported; copy what matters into the record's notes",
        "CourseRepeatCode (1 element at line 8, AcademicRecord[1]/AcademicSession[1]/Course[1]/"
        "CourseRepeatCode): the record itself counts a repeated course once (its best attempt) "
        "under the catalog's repeat rules",
        "CourseGPAApplicabilityCode (1 element at line 8, AcademicRecord[1]/AcademicSession[1]/"
        "Course[1]/CourseGPAApplicabilityCode): what counts in the GPA follows the catalog's "
        "grade scale",
        "CourseTitle (1 element at line 8, AcademicRecord[1]/AcademicSession[1]/Course[1]/"
        "CourseTitle): titles are the catalog's",
    )


# ---------------------------------------------------------------- transfer equivalencies


def table(tmp_path: Path, catalog: Catalog, text: str) -> TransferTable:
    path = tmp_path / "equivalencies.csv"
    path.write_text(text, encoding="utf-8")
    return load_transfer_table(path, catalog)


def test_transfer_courses_become_their_local_courses(
    tmp_path: Path, schema: xmlschema.XMLSchema
) -> None:
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
    result = run(tmp_path, catalog, text, schema, rows)
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
