"""``advise student import``: every demo transcript imports cleanly (exit 0) into a record
that ``load_student`` reads and ``advise audit`` audits; left-out lines exit 1 with the
record written; an unusable file exits 2 and leaves the output untouched."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agents.catalog import load_catalog, load_student
from agents.catalog.transcript_import import StudentFacts, import_transcript
from pipeline.cli import main
from pipeline.logs import configure_logging

ROOT = Path(__file__).resolve().parents[1]
DEMOS = ROOT / "demos" / "transcripts"
HARROW = str(ROOT / "demos" / "harrow-bay")

# (transcript, options, catalog) for every demo transcript
DEMO_IMPORTS = [
    ("cs-junior-ap.xml", [], None),
    ("stat-transfer.xml", [], None),
    ("econ-junior.csv",
     ["--id", "NIT-2024-0733", "--name", "Priya Raman", "--program", "ECON-BA", "--program",
      "PHIL-MIN"], None),
    ("is-sophomore.csv", ["--id", "NIT-2025-0521", "--name", "Diego Morales", "--program",
                          "IS-BS"], None),
    ("hb-major-minor.csv", ["--id", "HB-25-0198", "--name", "Noor Haddad", "--program",
                            "ECON-BA", "--program", "DATA-MIN"], HARROW),
]  # fmt: skip


@pytest.fixture(autouse=True)
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


@pytest.mark.parametrize(("name", "options", "catalog"), DEMO_IMPORTS, ids=lambda v: str(v))
def test_every_demo_transcript_imports_cleanly_and_audits(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    name: str,
    options: list[str],
    catalog: str | None,
) -> None:
    out = tmp_path / "student.json"
    cat = ["--catalog", catalog] if catalog else []
    assert main(["student", "import", str(DEMOS / name), *options, *cat, "-o", str(out)]) == 0
    assert capsys.readouterr().err == ""
    record = load_student(out, calendar=load_catalog(catalog).calendar)
    assert record.courses
    assert sorted(p.name for p in tmp_path.iterdir()) == ["student.json"]  # no temp file left
    assert main(["audit", str(out), *cat]) == 0
    assert capsys.readouterr().out.startswith(f"Degree audit for {record.id} ")


def test_import_reports_what_it_wrote_and_derived(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s.json"
    assert main(["student", "import", str(DEMOS / "stat-transfer.xml"), "-o", str(out)]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"wrote {out}: NIT-2025-1187 (Aisha Nadeem), STAT-BS, ECON-MIN: 24 courses (10 "
        "transfer/AP/exam, 4 in progress), F2025 to F2026",
        "derived: start term F2025: the earliest term of a course taken here",
        "derived: 2 transfer/AP/exam course(s) without a term credited to the start term F2025",
        "derived: current term F2026: the latest term with courses in progress",
        "derived: program STAT-BS from AcademicRecord[1]/AcademicProgram[1]/AcademicProgramName "
        "'Statistics and Data Science'",
        "derived: program ECON-MIN from AcademicRecord[1]/AcademicProgram[2]/AcademicProgramName "
        "'Economics'",
        "derived: catalog year 2025-2026: the academic year of the start term F2025 (the catalog "
        "is 2026-2027; pass --catalog-year to change)",
        "note: 21-120 in S2025: 8 units on the transcript, 10 in the catalog; the record keeps "
        "the transcript's.",
        "not used (5):",
        "  TransmissionData (1 element at line 8, TransmissionData): the document's "
        "transmission header, not about the student",
        "  CourseTitle (24 elements, first at line 38, AcademicRecord[1]/Course[1]/CourseTitle): "
        "titles are the catalog's",
        "  SessionType (4 elements, first at line 53, AcademicRecord[1]/AcademicSession[1]/"
        "AcademicSessionDetail/SessionType): the catalog's calendar says which term a session is",
        "  AcademicProgram (1 element at line 195, AcademicRecord[2]/AcademicProgram[1]): "
        "programs are read from the first record that lists any (the sender's)",
        "  GPA (1 element at line 201, AcademicRecord[2]/AcademicSummary[1]/GPA): only the "
        "cumulative GPA of the sender's record is read",
    ]
    expected = import_transcript(DEMOS / "stat-transfer.xml", load_catalog()).record
    assert load_student(out) == expected


def test_without_output_the_record_goes_to_stdout_and_the_report_to_stderr(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["student", "import", str(DEMOS / "cs-junior-ap.xml"), "--catalog-year", "2026-2027"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    record = json.loads(captured.out)
    assert (record["id"], record["catalog_year"], record["gpa"]) == (
        "NIT-2024-0412", "2026-2027", 2.98
    )  # fmt: skip
    assert captured.err.splitlines()[0] == (
        "NIT-2024-0412 (Jordan Okafor), CS-BS: 25 courses (2 transfer/AP/exam, 4 in progress), "
        "F2024 to F2026"
    )
    assert not any("catalog year" in line for line in captured.err.splitlines())


def test_left_out_lines_exit_1_and_the_record_is_still_written(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "t.csv"
    src.write_text("term,course,grade,credits\nF2024,15-112,A,12\nF2024,15-113,A,12\n")
    out = tmp_path / "s.json"
    argv = ["student", "import", str(src), "--id", "x", "--name", "X", "--program", "cs"]
    assert main([*argv, "-o", str(out)]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "left out (1):",
        "  line 3, column course: unknown course '15-113'; did you mean 15-110, 15-112, "
        "15-131, 15-151, 15-213? find courses with 'advise catalog search TEXT'; 15-113 is "
        "left out",
        "the record holds everything else; fix the transcript (or pass the catalog it was "
        "written for) and import it again",
    ]
    assert [a.course for a in load_student(out).courses] == ["15-112"]


def test_an_unusable_file_exits_2_and_leaves_the_output_alone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "t.xml"
    src.write_text("<catalog/>\n")
    out = tmp_path / "s.json"
    out.write_text("old\n")
    assert main(["student", "import", str(src), "-o", str(out)]) == 2
    assert capsys.readouterr().err == (
        f"error: {src}: 1 problem\n  - line 1: the root element is 'catalog', not a PESC "
        "CollegeTranscript (namespace urn:org:pesc:message:CollegeTranscript:v1.x); pass a PESC "
        "College Transcript XML file, or --format csv for a CSV transcript\n"
    )
    assert out.read_text() == "old\n"


def test_an_output_that_cannot_be_written_exits_5(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "missing" / "s.json"
    assert main(["student", "import", str(DEMOS / "cs-junior-ap.xml"), "-o", str(out)]) == 5
    assert capsys.readouterr().err == (
        f"error: cannot write {str(out.parent)!r}: its directory does not exist - create it, "
        "or choose another path\n"
    )


def test_format_option_reads_a_file_whatever_its_name(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    src = tmp_path / "transcript.dat"
    src.write_bytes((DEMOS / "cs-junior-ap.xml").read_bytes())
    assert main(["student", "import", str(src), "--format", "pesc", "-o", str(tmp_path / "o")]) == 0
    facts = StudentFacts()
    expected = import_transcript(src, load_catalog(), facts, "pesc").record
    assert load_student(tmp_path / "o") == expected
