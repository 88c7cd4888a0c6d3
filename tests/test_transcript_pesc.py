"""Importing PESC College Transcript XML: the demo transcripts become the records they
describe, a value the catalog does not know keeps its course out with a message naming
the element path and line, and a file that is not a usable transcript is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import Catalog, load_catalog
from agents.catalog.transcript_import import ImportResult, StudentFacts, import_transcript
from agents.errors import StudentRecordError

ROOT = Path(__file__).resolve().parents[1]
DEMOS = ROOT / "demos" / "transcripts"
PESC_NS = "urn:org:pesc:message:CollegeTranscript:v1.6.0"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


def course(number: str, grade: str | None = "A", credits: str = "12", **extra: str) -> str:
    subject, _, num = number.partition("-")
    parts = [f"<CourseSubjectAbbreviation>{subject}</CourseSubjectAbbreviation>",
             f"<CourseNumber>{num}</CourseNumber>",
             f"<CourseCreditValue>{credits}</CourseCreditValue>"]  # fmt: skip
    if grade is not None:
        parts.append(f"<CourseAcademicGrade>{grade}</CourseAcademicGrade>")
    parts += [f"<{k}>{v}</{k}>" for k, v in extra.items()]
    return "<Course>" + "".join(parts) + "</Course>"


def session(name: str, *courses: str, designator: str = "") -> str:
    detail = f"<SessionName>{name}</SessionName>" if name else ""
    if designator:
        detail += f"<SessionDesignator>{designator}</SessionDesignator>"
    return (
        f"<AcademicSession><AcademicSessionDetail>{detail}</AcademicSessionDetail>\n"
        + "\n".join(courses)
        + "\n</AcademicSession>"
    )


def transcript(*records: str, person: str = "", root: str = "CollegeTranscript") -> str:
    """A small PESC transcript, one line per course so that lines can be asserted."""
    person = person or (
        "<Person><SchoolAssignedPersonID>S-1</SchoolAssignedPersonID>"
        "<Name><FirstName>Ada</FirstName><LastName>Byron</LastName></Name></Person>"
    )
    program = (
        "<AcademicProgram><AcademicProgramType>Major</AcademicProgramType>"
        "<AcademicProgramName>Computer Science</AcademicProgramName></AcademicProgram>"
    )
    body = "\n".join(f"<AcademicRecord>{program}\n{r}\n</AcademicRecord>" for r in records)
    return f'<{root} xmlns="{PESC_NS}">\n<Student>{person}\n{body}\n</Student>\n</{root}>\n'


def run(tmp_path: Path, catalog: Catalog, text: str, **facts: str) -> ImportResult:
    path = tmp_path / "t.xml"
    path.write_text(text, encoding="utf-8")
    return import_transcript(path, catalog, StudentFacts(**facts))  # type: ignore[arg-type]


def refused(tmp_path: Path, catalog: Catalog, data: bytes) -> list[str]:
    path = tmp_path / "t.xml"
    path.write_bytes(data)
    with pytest.raises(StudentRecordError) as exc:
        import_transcript(path, catalog)
    assert exc.value.source == str(path)
    return exc.value.problems


# ---------------------------------------------------------------- the demo transcripts


def test_prefixed_demo_transcript_becomes_its_record(catalog: Catalog) -> None:
    result = import_transcript(DEMOS / "cs-junior-ap.xml", catalog)
    r = result.record
    assert result.clean and result.notes == ()
    assert (r.id, r.name, r.programs) == ("NIT-2024-0412", "Jordan Okafor", ["CS-BS"])
    assert (r.start_term, r.current_term, r.catalog_year, r.gpa) == (
        "F2024", "F2026", "2024-2025", 2.98
    )  # fmt: skip
    first = [(a.course, a.term, a.grade, a.source, a.pass_fail) for a in r.courses[:3]]
    assert first == [
        ("15-110", "F2024", "TR", "ap", False),
        ("73-102", "F2024", "TR", "ap", False),
        ("15-112", "F2024", "B+", "institution", False),
    ]
    assert next(a for a in r.courses if a.course == "99-101").pass_fail is True
    taking = [a.course for a in r.courses if a.status == "in_progress"]
    assert taking == ["15-451", "15-410", "15-281", "80-130"]
    assert {a.term for a in r.courses if a.status == "in_progress"} == {"F2026"}
    assert result.derived == (
        "start term F2024: the earliest term of a course taken here",
        "2 transfer/AP/exam course(s) without a term credited to the start term F2024",
        "current term F2026: the latest term with courses in progress",
        "program CS-BS from AcademicRecord[1]/AcademicProgram[1]/AcademicProgramName "
        "'Computer Science'",
        "catalog year 2024-2025: the academic year of the start term F2024 (the catalog is "
        "2026-2027; pass --catalog-year to change)",
        "GPA 2.98 from AcademicRecord[1]/AcademicSummary[1]/GPA/GradePointAverage",
    )


def test_default_namespace_demo_has_transfer_exam_credit_a_minor_and_units(
    catalog: Catalog,
) -> None:
    result = import_transcript(DEMOS / "stat-transfer.xml", catalog)
    r = result.record
    assert result.clean
    assert r.programs == ["STAT-BS", "ECON-MIN"]  # 'Economics' typed Minor is the minor
    assert r.gpa is None  # the only summary is the transfer school's
    sources = {a.course: (a.source, a.term) for a in r.courses if a.source != "institution"}
    assert sources["73-103"] == ("ap", "F2025")
    assert sources["79-240"] == ("exam", "F2025")  # InternationalBaccalaureate
    assert sources["36-200"] == ("transfer", "S2025")  # the community college's session
    calc = next(a for a in r.courses if a.course == "21-120")
    assert (calc.units, calc.grade) == (8.0, "TR")
    assert result.notes == (
        "21-120 in S2025: 8 units on the transcript, 10 in the catalog; the record keeps the "
        "transcript's.",
    )
    assert r.start_term == "F2025"  # the transfer session is earlier, but not taken here
    assert r.notes.endswith("10 in the catalog; the record keeps the transcript's.")


def test_options_override_what_the_transcript_says(catalog: Catalog) -> None:
    facts = StudentFacts(
        id="x1", name="J. O.", programs=("cs minor", "MATH-BS"), catalog_year="2026-2027",
        start_term="Fall 2024", current_term="S2027",
    )  # fmt: skip
    r = import_transcript(DEMOS / "cs-junior-ap.xml", catalog, facts).record
    assert (r.id, r.name, r.programs, r.catalog_year) == (
        "x1", "J. O.", ["CS-MIN", "MATH-BS"], "2026-2027"
    )  # fmt: skip
    assert (r.start_term, r.current_term) == ("F2024", "S2027")


# ---------------------------------------------------------------- courses kept out


def test_unknown_code_grade_credits_and_basis_name_the_element_path(
    tmp_path: Path, catalog: Catalog
) -> None:
    text = transcript(
        session(
            "Fall 2024",
            course("15-113"),
            course("15-112", grade="A+"),
            course("21-127", credits="twelve"),
            course("21-120", CourseCreditBasis="Remedial"),
            course("76-101", credits="9"),
        )
    )
    result = run(tmp_path, catalog, text)
    assert [str(p) for p in result.problems] == [
        "line 5, AcademicRecord[1]/AcademicSession[1]/Course[1]/CourseNumber: unknown course "
        "'15 113'; did you mean 15-110, 15-112, 15-131, 15-151, 15-213? find courses with "
        "'advise catalog search TEXT'; 15 113 is left out",
        "line 6, AcademicRecord[1]/AcademicSession[1]/Course[2]/CourseAcademicGrade: unknown "
        "grade 'A+'; the catalog's grades are A, A-, B+, B, B-, C+, C, C-, D+, D, F, R, P, NP, "
        "W, I, TR; 15 112 is left out",
        "line 7, AcademicRecord[1]/AcademicSession[1]/Course[3]/CourseCreditValue: bad credits "
        "'twelve': expected a number of units such as 9 or 0.5; 21 127 is left out",
        "line 8, AcademicRecord[1]/AcademicSession[1]/Course[4]/CourseCreditBasis: unknown "
        "credit source 'Remedial'; expected institution, transfer, ap or exam, or a PESC "
        "CourseCreditBasis: Regular, RegularEnrollment, TransferCredit, AdvancedStanding, "
        "HighSchoolDualCredit, Military, AdvancedPlacement, ByExam, CreditByExam, "
        "InternationalBaccalaureate; 21 120 is left out",
    ]
    assert [a.course for a in result.record.courses] == ["76-101"]
    assert result.record.notes == (
        "Imported from t.xml (PESC College Transcript). 4 problem(s) were reported and what "
        "they concern left out; see the import report."
    )


def test_unreadable_session_term_is_reported_once_naming_its_courses(
    tmp_path: Path, catalog: Catalog
) -> None:
    text = transcript(
        session("Fall 2024", course("76-101", credits="9")),
        session("Michaelmas 2025", course("15-112"), course("21-127")),
    )
    result = run(tmp_path, catalog, text)
    assert [str(p) for p in result.problems] == [
        "line 9, AcademicRecord[2]/AcademicSession[1]/AcademicSessionDetail/SessionName: not a "
        "term: 'Michaelmas 2025' in this semester calendar; write a code such as 'S2027', "
        "'F2027' (kinds: S Spring, U Summer, F Fall), or words such as 'Fall 2026', or a date "
        "such as '2026-09'; its courses 15 112, 21 127 are left out"
    ]


def test_designator_is_read_with_the_calendar_months_and_a_disagreement_is_noted(
    tmp_path: Path, catalog: Catalog
) -> None:
    text = transcript(
        session("", course("15-112"), designator="2024-09"),
        session("Spring 2025", course("15-122"), designator="2025-08"),
    )
    result = run(tmp_path, catalog, text)
    assert result.clean
    assert [(a.course, a.term) for a in result.record.courses] == [
        ("15-112", "F2024"), ("15-122", "S2025")
    ]  # fmt: skip
    assert result.notes == (
        "line 9: AcademicRecord[2]/AcademicSession[1]/AcademicSessionDetail/SessionName "
        "'Spring 2025' is S2025 but AcademicRecord[2]/AcademicSession[1]/AcademicSessionDetail/"
        "SessionDesignator '2025-08' is U2025; used S2025",
    )


def test_in_progress_flags_and_missing_grades(tmp_path: Path, catalog: Catalog) -> None:
    text = transcript(
        session(
            "Fall 2026",
            course("15-112", grade=None, CourseInProgressIndicator="true"),
            course("15-122", grade="IP"),
            course("21-127", grade="B", CourseInProgressIndicator="1"),
            course("21-120", grade=None),
            course("76-101", grade=None, CourseInProgressIndicator="maybe"),
        )
    )
    result = run(tmp_path, catalog, text)
    assert [str(p) for p in result.problems] == [
        "line 7, AcademicRecord[1]/AcademicSession[1]/Course[3]/CourseAcademicGrade: graded "
        "'B' but marked in progress; give a grade or the in-progress mark, not both; 21 127 is "
        "left out",
        "line 8, AcademicRecord[1]/AcademicSession[1]/Course[4]: no grade, and not marked in "
        "progress (CourseInProgressIndicator); 21 120 is left out",
        "line 9, AcademicRecord[1]/AcademicSession[1]/Course[5]/CourseInProgressIndicator: "
        "'maybe' is not true or false; 76 101 is left out",
    ]
    assert [(a.course, a.status, a.grade) for a in result.record.courses] == [
        ("15-112", "in_progress", None), ("15-122", "in_progress", None)
    ]  # fmt: skip


def test_program_and_gpa_that_do_not_fit_are_reported(tmp_path: Path, catalog: Catalog) -> None:
    gpa = "<GPA><GradePointAverage>4.9</GradePointAverage></GPA>"
    summary = f"<AcademicSummary>{gpa}</AcademicSummary>"
    text = transcript(summary + session("Fall 2024", course("15-112")))
    text = text.replace("Computer Science</AcademicProgramName>", "Astrology</AcademicProgramName>")
    with pytest.raises(StudentRecordError) as exc:
        run(tmp_path, catalog, text)
    assert exc.value.problems == [
        "no program: the transcript names none the catalog has; pass --program CODE (repeatable)"
    ]
    result = run(tmp_path, catalog, text, programs=("CS-BS",))  # type: ignore[arg-type]
    assert [str(p) for p in result.problems] == [
        "line 4, AcademicRecord[1]/AcademicSummary[1]/GPA/GradePointAverage: bad GPA '4.9': "
        "expected a number from 0 to 4.3; the record computes the GPA from its grades instead"
    ]


# ---------------------------------------------------------------- files that are refused


def test_empty_file(tmp_path: Path, catalog: Catalog) -> None:
    assert refused(tmp_path, catalog, b" \n") == [
        "the file is empty; pass a PESC College Transcript XML file, or --format csv for a "
        "CSV transcript"
    ]


def test_text_that_is_not_xml(tmp_path: Path, catalog: Catalog) -> None:
    assert refused(tmp_path, catalog, b"term,course,grade,credits\nF2024,15-112,A,12\n") == [
        "line 1: not XML: it starts with 'term,course,grade,credits'; pass a PESC College "
        "Transcript XML file, or --format csv for a CSV transcript"
    ]


def test_xml_that_is_not_well_formed(tmp_path: Path, catalog: Catalog) -> None:
    assert refused(tmp_path, catalog, b"<CollegeTranscript>\n<Student>\n</CollegeTranscript>") == [
        "line 3, column 3: not well-formed XML (mismatched tag); pass a PESC College "
        "Transcript XML file, or --format csv for a CSV transcript"
    ]


def test_xml_of_the_wrong_root_element(tmp_path: Path, catalog: Catalog) -> None:
    assert refused(tmp_path, catalog, b'<?xml version="1.0"?>\n<HighSchoolTranscript/>') == [
        "line 2: the root element is 'HighSchoolTranscript', not a PESC CollegeTranscript "
        "(namespace urn:org:pesc:message:CollegeTranscript:v1.x); pass a PESC College "
        "Transcript XML file, or --format csv for a CSV transcript"
    ]


def test_college_transcript_in_another_namespace(tmp_path: Path, catalog: Catalog) -> None:
    data = b'<t:CollegeTranscript xmlns:t="urn:example:transcript"/>'
    assert refused(tmp_path, catalog, data) == [
        "line 1: the root element is '{urn:example:transcript}CollegeTranscript', not a PESC "
        "CollegeTranscript (namespace urn:org:pesc:message:CollegeTranscript:v1.x); pass a "
        "PESC College Transcript XML file, or --format csv for a CSV transcript"
    ]


def test_transcript_without_a_student(tmp_path: Path, catalog: Catalog) -> None:
    assert refused(tmp_path, catalog, f'<CollegeTranscript xmlns="{PESC_NS}"/>'.encode()) == [
        "line 1: CollegeTranscript has no Student element; a College Transcript holds exactly "
        "one student"
    ]


@pytest.mark.parametrize(
    ("doctype", "named"),
    [
        ('<!DOCTYPE CollegeTranscript [<!ENTITY x SYSTEM "file:///etc/passwd">]>',
         "CollegeTranscript"),
        ('<!DOCTYPE CollegeTranscript [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;&a;">]>',
         "CollegeTranscript"),
        ('<!DOCTYPE CollegeTranscript SYSTEM "http://example.invalid/pesc.dtd">',
         "CollegeTranscript, SYSTEM 'http://example.invalid/pesc.dtd'"),
    ],
    ids=["external-entity", "entity-expansion", "external-dtd"],
)  # fmt: skip
def test_a_doctype_is_refused_before_it_is_read(
    tmp_path: Path, catalog: Catalog, doctype: str, named: str
) -> None:
    data = f'<?xml version="1.0"?>\n{doctype}\n<CollegeTranscript>&x;</CollegeTranscript>'
    assert refused(tmp_path, catalog, data.encode()) == [
        f"line 2: the file has a DOCTYPE ({named}); transcripts with a DTD or entity "
        "declarations are refused (they can read local files or expand without bound) - "
        "export the transcript without a DOCTYPE"
    ]


def test_an_entity_without_a_dtd_is_not_well_formed(tmp_path: Path, catalog: Catalog) -> None:
    data = f'<CollegeTranscript xmlns="{PESC_NS}"><Student>&xxe;</Student></CollegeTranscript>'
    assert refused(tmp_path, catalog, data.encode()) == [
        "line 1, column 83: not well-formed XML (undefined entity); pass a PESC College "
        "Transcript XML file, or --format csv for a CSV transcript"
    ]


def test_missing_student_facts_name_their_options(tmp_path: Path, catalog: Catalog) -> None:
    text = transcript(session("Fall 2024", course("15-112")), person="<Person/>")
    with pytest.raises(StudentRecordError) as exc:
        run(tmp_path, catalog, text)
    assert exc.value.problems == [
        "no student id: the transcript has no Person/SchoolAssignedPersonID; pass --id ID",
        "no student name: the transcript has no Person/Name; pass --name NAME",
    ]
