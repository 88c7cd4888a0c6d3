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

import pytest

from agents.catalog.parse import parse_catalog
from agents.catalog.transcript_import import StudentFacts, import_transcript
from agents.errors import CatalogError, StudentRecordError
from tests.catalog_base import base_catalog
from tests.pesc_helpers import (
    course,
    document,
    pesc_schema,
    quarter_catalog,
    record,
    run,
    session,
)

# ---------------------------------------------------------------- programs


def test_a_renamed_program_is_matched_by_its_code_and_said_so(tmp_path: Path) -> None:
    program = (
        "<AcademicProgram><AcademicProgramType>Minor</AcademicProgramType>"
        "<AcademicProgramCode>CS-MIN</AcademicProgramCode>"
        "<AcademicProgramName>Computing Minor</AcademicProgramName></AcademicProgram>"
    )
    text = document(record(session("Fall 2024", "", "", course("15-112")), program=program))
    result = run(tmp_path, quarter_catalog(), text)
    assert result.record.programs == ["CS-MIN"]
    assert result.notes == (
        "program CS-MIN: the name 'Computing Minor' at AcademicRecord[1]/AcademicProgram[1]/"
        "AcademicProgramName is not in the catalog; matched by the code 'CS-MIN' at "
        "AcademicRecord[1]/AcademicProgram[1]/AcademicProgramCode",
    )


def test_a_program_that_matches_neither_name_nor_code_is_reported(tmp_path: Path) -> None:
    program = (
        "<AcademicProgram><AcademicProgramType>Major</AcademicProgramType>"
        "<AcademicProgramCode>ASTR-BS</AcademicProgramCode>"
        "<AcademicProgramName>Astrology</AcademicProgramName></AcademicProgram>"
    )
    minor = record(session("Fall 2024", "", "", course("15-112"))).replace(
        "<AcademicProgram>", program + "<AcademicProgram>", 1
    )
    result = run(tmp_path, quarter_catalog(), document(minor))
    assert result.record.programs == ["CS-MIN"]  # the other program is still read
    assert [str(p) for p in result.problems] == [
        "line 4, AcademicRecord[1]/AcademicProgram[1]/AcademicProgramName: program 'Astrology' "
        "or 'ASTR-BS' (Major) is not in the catalog by name or code; known: CS-MIN; pass "
        "--program CODE"
    ]


# ---------------------------------------------------------------- sessions by their dates


def test_dates_place_a_misnamed_session_and_a_passed_retake_is_kept(tmp_path: Path) -> None:
    text = document(
        record(
            session("Winter 2024", "2024-01-08", "2024-03-22", course("15-112", grade="F")),
            session("Winter Quarter 2024", "2024-03-25", "2024-06-07", course("15-112")),
        )
    )
    result = run(tmp_path, quarter_catalog(), text)
    assert result.clean
    attempts = [(a.course, a.term, a.grade) for a in result.record.courses]
    assert attempts == [("15-112", "W2024", "F"), ("15-112", "S2024", "A")]
    assert result.notes == (
        "line 8: session AcademicRecord[1]/AcademicSession[2]/AcademicSessionDetail/SessionName "
        "'Winter Quarter 2024' reads as W2024 but its dates 2024-03-25 to 2024-06-07 fall in "
        "S2024 (typical dates of S2024: 2024-03-25 to 2024-06-09); used S2024, the dates",
    )


def test_a_spring_quarter_named_session_starting_in_march_stays_spring(tmp_path: Path) -> None:
    # The case without dates: the designator's month (March) is a winter month.
    def named(name: str, designator: str, *courses: str) -> str:
        detail = f"<SessionDesignator>{designator}</SessionDesignator>"
        return session(name, "", "", *courses).replace(
            "<AcademicSessionDetail>", "<AcademicSessionDetail>" + detail
        )

    text = document(
        record(
            named("Winter Quarter 2024", "2024-01", course("15-112", grade="F")),
            named("Spring Quarter 2024", "2024-03", course("15-112")),
        )
    )
    result = run(tmp_path, quarter_catalog(), text)
    assert result.clean
    attempts = [(a.course, a.term, a.grade) for a in result.record.courses]
    assert attempts == [("15-112", "W2024", "F"), ("15-112", "S2024", "A")]
    assert result.notes == (
        "line 8: AcademicRecord[1]/AcademicSession[2]/AcademicSessionDetail/SessionName "
        "'Spring Quarter 2024' is S2024 but AcademicRecord[1]/AcademicSession[2]/"
        "AcademicSessionDetail/SessionDesignator '2024-03' is W2024; used S2024",
    )


def test_dates_that_fit_no_one_term_leave_the_name_in_charge(tmp_path: Path) -> None:
    text = document(record(session("Spring 2024", "2024-02-01", "2024-07-31", course("15-112"))))
    result = run(tmp_path, quarter_catalog(), text)
    assert [(a.course, a.term) for a in result.record.courses] == [("15-112", "S2024")]
    assert result.notes == (
        "line 5: session AcademicRecord[1]/AcademicSession[1]/AcademicSessionDetail/SessionName "
        "'Spring 2024': its dates 2024-02-01 to 2024-07-31 place it in no term (no one term "
        "holds most of it (it overlaps S2024, W2024)); used S2024, the name",
    )


def test_a_calendar_without_term_days_reads_dates_by_months_and_says_so(tmp_path: Path) -> None:
    raw = base_catalog()  # the semester calendar: months, no dates
    catalog = parse_catalog(raw, source="semester.json")
    text = document(record(session("", "2024-08-26", "2024-12-13", course("15-112"))))
    result = run(tmp_path, catalog, text)
    assert [(a.course, a.term) for a in result.record.courses] == [("15-112", "F2024")]
    text = document(record(session("Spring 2024", "2024-08-26", "2024-12-13", course("15-112"))))
    result = run(tmp_path, catalog, text)
    assert result.notes[0].endswith(
        "'Spring 2024' reads as S2024 but its dates 2024-08-26 to 2024-12-13 fall in F2024 "
        "(the catalog's calendar gives no term days (dates or typical_dates), so by the month "
        "of the session's middle day (2024-10-19)); used F2024, the dates"
    )


def test_a_bad_session_date_without_a_name_keeps_its_courses_out(tmp_path: Path) -> None:
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


def test_semester_credits_are_converted_on_a_quarter_catalog(tmp_path: Path) -> None:
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
    result = run(tmp_path, catalog, text)
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


def test_a_unit_the_catalog_cannot_check_is_reported_as_not_used(tmp_path: Path) -> None:
    text = document(
        record(
            session(
                "Fall 2024", "", "", course("15-112", credits="12", CourseCreditUnits="Semester")
            )
        )
    )
    result = run(tmp_path, quarter_catalog(), text)
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


def test_every_element_not_used_is_reported_with_why(tmp_path: Path) -> None:
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
    result = run(tmp_path, quarter_catalog(), text)
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


def test_the_prefixed_demo_transcript_has_the_published_structure() -> None:
    demo = Path(__file__).resolve().parents[1] / "demos" / "transcripts" / "cs-junior-ap.xml"
    pesc_schema().validate(str(demo))
