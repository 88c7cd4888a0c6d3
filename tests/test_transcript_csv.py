"""Importing CSV transcripts: the demo files become the records they describe (in the
shipped catalog and in Harrow Bay's trimesters), every cell the catalog does not accept
keeps its line out with a message naming the line, column and value, and a file without a
usable header is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import Catalog, load_catalog
from agents.catalog.transcript_import import ImportResult, StudentFacts, import_transcript
from agents.errors import StudentRecordError

ROOT = Path(__file__).resolve().parents[1]
DEMOS = ROOT / "demos" / "transcripts"
STUDENT = StudentFacts(id="S-1", name="Ada B.", programs=("CS-BS",))


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="module")
def harrow() -> Catalog:
    return load_catalog(ROOT / "demos" / "harrow-bay")


def run(tmp_path: Path, catalog: Catalog, text: str, facts: StudentFacts = STUDENT) -> ImportResult:
    path = tmp_path / "t.csv"
    path.write_text(text, encoding="utf-8")
    return import_transcript(path, catalog, facts)


def problems(result: ImportResult) -> list[str]:
    return [str(p) for p in result.problems]


def refused(
    tmp_path: Path, catalog: Catalog, data: bytes, facts: StudentFacts = STUDENT
) -> list[str]:
    path = tmp_path / "t.csv"
    path.write_bytes(data)
    with pytest.raises(StudentRecordError) as exc:
        import_transcript(path, catalog, facts)
    assert exc.value.source == str(path)
    return exc.value.problems


HEADER = "term,course,grade,credits\n"


# ---------------------------------------------------------------- the demo transcripts


def test_econ_demo_with_words_terms_ap_credit_and_a_term_in_progress(catalog: Catalog) -> None:
    facts = StudentFacts(id="NIT-2024-0733", name="Priya Raman", programs=("ECON-BA", "phil minor"))
    result = import_transcript(DEMOS / "econ-junior.csv", catalog, facts)
    r = result.record
    assert result.clean and result.notes == ()
    assert (r.programs, r.start_term, r.current_term, r.catalog_year) == (
        ["ECON-BA", "PHIL-MIN"], "F2024", "F2026", "2024-2025"
    )  # fmt: skip
    ap = r.courses[0]
    assert (ap.course, ap.term, ap.grade, ap.source) == ("73-102", "F2024", "TR", "ap")
    pf = next(a for a in r.courses if a.course == "99-101")
    assert (pf.grade, pf.pass_fail, pf.units) == ("P", True, None)
    assert [a.course for a in r.courses if a.status == "in_progress"] == [
        "73-328", "73-352", "73-365", "70-122", "80-230"
    ]  # fmt: skip
    assert len(r.courses) == 27 and r.gpa is None
    assert "1 transfer/AP/exam course(s) without a term credited to the start term F2024" in (
        result.derived
    )


def test_is_demo_with_codes_designators_ip_grades_and_credit_sources(catalog: Catalog) -> None:
    facts = StudentFacts(id="NIT-2025-0521", name="Diego Morales", programs=("IS-BS",))
    r = import_transcript(DEMOS / "is-sophomore.csv", catalog, facts).record
    sources = [(a.course, a.term, a.source) for a in r.courses if a.source != "institution"]
    assert sources == [
        ("85-102", "F2025", "ap"), ("79-104", "F2025", "ap"), ("33-141", "F2025", "exam"),
        ("36-201", "U2026", "transfer"),
    ]  # fmt: skip
    taking = [(a.course, a.term) for a in r.courses if a.status == "in_progress"]
    assert taking[0] == ("67-250", "F2026") and len(taking) == 5  # '2026-09', grade 'IP'
    assert (r.start_term, r.current_term) == ("F2025", "F2026")


def test_harrow_bay_demo_reads_trimester_words_and_fractional_credits(harrow: Catalog) -> None:
    facts = StudentFacts(id="HB-25-0198", name="Noor Haddad", programs=("ECON-BA", "DATA-MIN"))
    result = import_transcript(DEMOS / "hb-major-minor.csv", harrow, facts)
    r = result.record
    assert result.clean and result.notes == ()
    assert (r.start_term, r.current_term, r.catalog_year) == ("T12025", "T12026", "2025-26")
    terms = {a.course: a.term for a in r.courses}
    assert (terms["ECON 110"], terms["ECON 111"], terms["ECON 220"]) == (
        "T12025", "T22026", "T32026"
    )  # fmt: skip
    yoga = next(a for a in r.courses if a.course == "PHED 104")
    assert (yoga.grade, yoga.pass_fail, yoga.units) == ("P", True, None)  # 0.25 as catalogued


def test_codes_match_ignoring_case_spaces_and_hyphens(tmp_path: Path, harrow: Catalog) -> None:
    text = HEADER + "T12025,econ110,A,1\nT12025, math-110 ,B,1\nT12025,Writ  101,B,1\n"
    result = run(tmp_path, harrow, text, StudentFacts(id="x", name="X", programs=("ECON-BA",)))
    assert result.clean
    assert [a.course for a in result.record.courses] == ["ECON 110", "MATH 110", "WRIT 101"]


def test_credits_that_differ_from_the_catalog_are_kept_as_units_with_a_note(
    tmp_path: Path, catalog: Catalog
) -> None:
    text = HEADER + "F2024,15-112,B,10\nF2024,21-127,F,0\nF2024,76-101,A,\n"
    result = run(tmp_path, catalog, text)
    assert result.clean
    units = [(a.course, a.units) for a in result.record.courses]
    assert units == [("15-112", 10.0), ("21-127", None), ("76-101", None)]
    assert result.notes == (
        "15-112 in F2024: 10 units on the transcript, 12 in the catalog; the record keeps the "
        "transcript's.",
    )
    assert result.record.notes == (
        "Imported from t.csv (CSV transcript). 15-112 in F2024: 10 units on the transcript, "
        "12 in the catalog; the record keeps the transcript's."
    )


# ---------------------------------------------------------------- lines kept out


def test_cells_the_catalog_does_not_accept_keep_their_line_out(
    tmp_path: Path, catalog: Catalog
) -> None:
    text = HEADER + (
        "F2024,15-113,A,12\n"
        "F2024,15-112,E,12\n"
        "Fal 2024,21-127,B,12\n"
        "2024-13,21-120,B,10\n"
        "F2024,76-101,B,nine\n"
        "F2024,80-100,B,9.125\n"
        "F2024,80-130,A,0\n"
        ",85-102,A,9\n"
        "F2024,99-101,P\n"
        "F2024,15-110,B,12\n"
        "F2024,15 110,A,12\n"
    )
    result = run(tmp_path, catalog, text)
    assert problems(result) == [
        "line 2, column course: unknown course '15-113'; did you mean 15-110, 15-112, 15-131, "
        "15-151, 15-213? find courses with 'advise catalog search TEXT'; 15-113 is left out",
        "line 3, column grade: unknown grade 'E'; the catalog's grades are A, A-, B+, B, B-, "
        "C+, C, C-, D+, D, F, R, P, NP, W, I, TR; 15-112 is left out",
        "line 4, column term: not a term: 'Fal 2024' in this semester calendar; write a code "
        "such as 'S2027', 'F2027' (kinds: S Spring, U Summer, F Fall), or words such as "
        "'Fall 2026', or a date such as '2026-09'; 21-127 is left out",
        "line 5, column term: not a term: '2024-13': month 13 is in no term of this semester "
        "calendar (months: Spring 1/2/3/4/5, Summer 6/7/8, Fall 9/10/11/12); write a term code "
        "such as 'S2027', 'F2027'; 21-120 is left out",
        "line 6, column credits: bad credits 'nine': expected a number of units such as 9 or "
        "0.5; 76-101 is left out",
        "line 7, column credits: bad credits '9.125': expected a number of units such as 9 or "
        "0.5; 80-100 is left out",
        "line 8, column credits: bad credits '0': 0 for a course that earns credit; give its "
        "credits or leave them blank for the catalog's; 80-130 is left out",
        "line 9: no term given; 85-102 is left out",
        "line 10: 3 cells where the header has 4; the line is left out",
        "line 12: 15-110 in F2024 is listed twice (first at line 11); this one is left out",
    ]
    assert [a.course for a in result.record.courses] == ["15-110"]


def test_unknown_credit_source(tmp_path: Path, catalog: Catalog) -> None:
    text = "term,course,grade,credits,source\nF2024,15-112,A,12,\nF2024,15-110,TR,12,APP\n"
    assert problems(run(tmp_path, catalog, text)) == [
        "line 3, column source: unknown credit source 'APP'; expected institution, transfer, "
        "ap or exam, or a PESC CourseCreditBasis: Regular, RegularEnrollment, TransferCredit, "
        "AdvancedStanding, HighSchoolDualCredit, Military, AdvancedPlacement, ByExam, "
        "CreditByExam, InternationalBaccalaureate; 15-110 is left out"
    ]


# ---------------------------------------------------------------- files that are refused


def test_missing_column(tmp_path: Path, catalog: Catalog) -> None:
    assert refused(tmp_path, catalog, b"term,course,grade\nF2024,15-112,A\n") == [
        "line 1: missing column 'credits'; the header must name term, course, grade, credits "
        "(optional: source, title, institution, student_id, student_name, programs)"
    ]


def test_no_header(tmp_path: Path, catalog: Catalog) -> None:
    assert refused(tmp_path, catalog, b"\nF2024,15-112,A,12\n") == [
        "line 2: no header: the first line must name the columns term, course, grade, "
        "credits (optional: source, title, institution, student_id, student_name, programs); it "
        "reads 'F2024,15-112,A,12'"
    ]


def test_unknown_and_repeated_columns(tmp_path: Path, catalog: Catalog) -> None:
    data = b"Term,Course,Grade,Credits,Instructor,grade\n"
    assert refused(tmp_path, catalog, data) == [
        "line 1: unknown column 'Instructor'; the columns are term, course, grade, credits "
        "(optional: source, title, institution, student_id, student_name, programs) - rename or "
        "remove it",
        "line 1: column 'grade' is named twice; keep one",
    ]


@pytest.mark.parametrize("data", [b"", b"\n  \n"], ids=["no-bytes", "blank-lines"])
def test_empty_file(tmp_path: Path, catalog: Catalog, data: bytes) -> None:
    assert refused(tmp_path, catalog, data) == [
        "the file is empty; a CSV transcript starts with the header term,course,grade,credits"
    ]


def test_not_utf8(tmp_path: Path, catalog: Catalog) -> None:
    data = HEADER.encode() + "F2024,15-112,A,12\nF2024,15-110,\u00e9,12\n".encode("latin-1")
    assert refused(tmp_path, catalog, data) == [
        "line 3: not UTF-8 text (byte 0xe9); save the CSV as UTF-8"
    ]


def test_unclosed_quote(tmp_path: Path, catalog: Catalog) -> None:
    assert refused(tmp_path, catalog, (HEADER + 'F2024,"15-112,A,12\n').encode()) == [
        "line 2: not readable as CSV: unexpected end of data; check its quotes"
    ]


def test_student_facts_a_csv_does_not_carry_are_asked_for(tmp_path: Path, catalog: Catalog) -> None:
    data = (HEADER + "F2024,15-112,A,12\n").encode()
    assert refused(tmp_path, catalog, data, StudentFacts()) == [
        "no student id: the transcript does not carry one; pass --id ID",
        "no student name: the transcript does not carry one; pass --name NAME",
        "no program: the transcript names none the catalog has; pass --program CODE (repeatable)",
    ]


def test_bad_options_are_refused_with_their_names(tmp_path: Path, catalog: Catalog) -> None:
    data = (HEADER + "F2024,15-112,A,12\n").encode()
    facts = StudentFacts(id="x", name="X", programs=("Astrology",), current_term="S2024")
    assert refused(tmp_path, catalog, data, facts) == [
        "--program 'Astrology': unknown program 'Astrology'; the catalog has: BUS-MIN, CS-BS, "
        "CS-MIN, DS-MIN, ECON-BA, ECON-MIN, IS-BS, MATH-BS, MATH-MIN, PHIL-MIN, STAT-BS",
        "the current term S2024 is before the start term F2024; fix --current-term or --start-term",
    ]


def test_no_term_to_start_from(tmp_path: Path, catalog: Catalog) -> None:
    data = b"term,course,grade,credits,source\n,15-110,TR,12,ap\n"
    assert refused(tmp_path, catalog, data) == [
        "no start term: no course has a term to derive it from; pass --start-term TERM"
    ]
    result = run(
        tmp_path, catalog, data.decode(), StudentFacts("x", "X", ("CS-BS",), None, "F2025")
    )
    assert [(a.course, a.term) for a in result.record.courses] == [("15-110", "F2025")]
    assert result.record.current_term == "F2025"


def test_a_file_name_without_a_known_suffix_needs_format(tmp_path: Path, catalog: Catalog) -> None:
    path = tmp_path / "t.txt"
    path.write_text(HEADER, encoding="utf-8")
    with pytest.raises(StudentRecordError) as exc:
        import_transcript(path, catalog, STUDENT)
    assert exc.value.problems == [
        "cannot tell the format from the file name (suffix '.txt'); pass --format pesc for "
        "PESC College Transcript XML or --format csv for CSV"
    ]


@pytest.mark.slow
def test_a_graded_mark_named_like_a_pass_fail_grade_is_graded(tmp_path: Path) -> None:
    # UNSW's CR (Credit, 65-74) is a graded mark with points in the GPA, not pass/fail credit.
    unsw = load_catalog(ROOT / "demos" / "unsw")
    text = HEADER + "T12022,COMP1511,CR,6\nT12022,MATH1131,SY,6\n"
    result = run(tmp_path, unsw, text, StudentFacts(id="x", name="X", programs=("3778",)))
    assert problems(result) == []
    got = [(a.course, a.grade, a.pass_fail) for a in result.record.courses]
    assert got == [("COMP1511", "CR", False), ("MATH1131", "SY", False)]
