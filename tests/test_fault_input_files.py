"""Oversized and malformed input files (issue #25, item 5): transcripts, catalogs and their
authoring files - each refused with a clear error naming the limit (or a problem naming the
file and line), before it is parsed or worked on; never a traceback, never unbounded work.
The limits table in docs/running.md is ``agents.catalog.limits.limits_table()``.

Files "over the size limit" are sparse (``truncate``): refused by their size before a byte
is read, so no test writes megabytes. Requests and student records: tests/test_fault_inputs.py.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

import pytest

from agents.catalog import load_catalog
from agents.catalog.authoring import build_catalog
from agents.catalog.limits import LIMITS, MiB, limits_table
from agents.catalog.transcript_import import import_transcript
from agents.errors import CatalogError, LayoutError, StudentRecordError
from pipeline.cli import main
from tests.fault_helpers import sparse_file

ROOT = Path(__file__).resolve().parents[1]


# ------------------------------------------------------------------ transcripts


def test_a_transcript_over_the_size_limit_is_refused_before_it_is_parsed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def never(*_args: object) -> None:
        raise AssertionError("parsed")

    monkeypatch.setattr("agents.catalog.transcript_import.read_pesc", never)
    path = sparse_file(tmp_path / "big.xml", 60 * MiB)
    with pytest.raises(StudentRecordError) as err:
        import_transcript(path, load_catalog())
    assert err.value.problems == [
        "a transcript file (PESC XML or CSV): 62,914,560 bytes, over the limit of 20,971,520 "
        "bytes; is this a transcript?"
    ]


def _pesc_with(courses: int) -> bytes:
    text = (ROOT / "demos/transcripts/cs-junior-ap.xml").read_text("utf-8")
    start = text.index("      <Course>")
    end = text.index("</Course>", start) + len("</Course>\n")
    return (text[:start] + text[start:end] * courses + text[start:]).encode()


def test_a_transcript_with_more_courses_than_a_record_holds_is_refused_before_the_record(
    tmp_path: Path,
) -> None:
    path = tmp_path / "t.xml"
    path.write_bytes(_pesc_with(2_001))
    with pytest.raises(StudentRecordError) as err:
        import_transcript(path, load_catalog())
    assert err.value.problems == [
        "the courses (or registrations) of a record: 2,026 entries, over the limit of 2,000 "
        "entries; is this one student's transcript?"
    ]


def test_a_csv_transcript_stops_at_the_line_past_the_course_limit(tmp_path: Path) -> None:
    header, row = "term,course,grade,credits", "Fall 2024,21-120,B-,10"
    path = tmp_path / "t.csv"
    path.write_text("\n".join([header, *[row] * 5_000]) + "\n", "utf-8")
    with pytest.raises(StudentRecordError) as err:
        import_transcript(path, load_catalog())
    assert err.value.problems == [
        "line 2002: the courses (or registrations) of a record: more than the limit of 2,000 "
        "entries; is this one student's transcript?"
    ]


def test_a_transcript_over_the_xml_element_or_nesting_limit_stops_at_its_line(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(LIMITS, "xml_elements", replace(LIMITS["xml_elements"], value=500))
    path = tmp_path / "t.xml"
    path.write_bytes(_pesc_with(60))
    with pytest.raises(StudentRecordError) as err:
        import_transcript(path, load_catalog())
    assert err.value.problems == [
        "line 561: the XML elements of a transcript: more than the limit of 500 elements; is "
        "this one student's transcript?"
    ]
    deep = b"<CollegeTranscript>" + b"<a>" * 100 + b"</a>" * 100 + b"</CollegeTranscript>"
    path.write_bytes(deep)
    with pytest.raises(StudentRecordError) as err:
        import_transcript(path, load_catalog())
    assert err.value.problems == [
        "line 1: the nesting of JSON, YAML or a transcript's XML: more than the limit of 64 "
        "levels; is this one student's transcript?"
    ]


def test_an_xml_entity_bomb_is_refused_at_its_doctype(tmp_path: Path) -> None:
    bomb = (
        '<?xml version="1.0"?>\n<!DOCTYPE lolz [\n <!ENTITY lol "lol">\n'
        + "".join(
            f' <!ENTITY lol{i} "{f"&lol{i - 1};" * 10 if i > 1 else "&lol;" * 10}">\n'
            for i in range(1, 10)
        )
        + "]>\n<CollegeTranscript>&lol9;</CollegeTranscript>\n"
    )
    path = tmp_path / "bomb.xml"
    path.write_text(bomb, "utf-8")
    with pytest.raises(StudentRecordError) as err:
        import_transcript(path, load_catalog())
    assert err.value.problems == [
        "line 2: the file has a DOCTYPE (lolz); transcripts with a DTD or entity declarations "
        "are refused (they can read local files or expand without bound) - export the transcript "
        "without a DOCTYPE"
    ]


# ------------------------------------------------------------------ catalogs


def test_a_catalog_file_over_the_size_limit_is_refused_before_it_is_read(tmp_path: Path) -> None:
    path = sparse_file(tmp_path / "catalog.json", 65 * MiB)
    with pytest.raises(CatalogError) as err:
        load_catalog(path)
    assert err.value.problems == [
        "a catalog file (or a file of a catalog directory): 68,157,440 bytes, over the limit "
        "of 67,108,864 bytes; is this a catalog file?"
    ]


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        (
            b'{"version": 2}\n\x89PNG',
            "line 2: not UTF-8 text (byte 0x89); a catalog file is JSON in UTF-8 - is this a "
            "catalog file?",
        ),
        (b"[" * 100_000, "JSON nested deeper than the limit of 64 levels; check its brackets"),
    ],
    ids=["binary", "deep"],
)
def test_a_binary_or_deeply_nested_catalog_is_a_catalog_error(
    tmp_path: Path, content: bytes, problem: str
) -> None:
    path = tmp_path / "catalog.json"
    path.write_bytes(content)
    with pytest.raises(CatalogError) as err:
        load_catalog(path)
    assert err.value.problems == [problem]


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    shutil.copytree(ROOT / "demos/harrow-bay", tmp_path / "hb")
    return tmp_path / "hb"


def _build_problems(layout: Path) -> list[str]:
    with pytest.raises(LayoutError) as err:
        build_catalog(layout)
    return list(err.value.problems)


def _alias_bomb() -> str:
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True):
        lines.append(f"{name}: &{name} [" + ", ".join([f"*{prev}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def test_a_yaml_alias_bomb_is_refused_with_its_line_before_it_expands(layout: Path) -> None:
    program = sorted((layout / "programs").glob("*.yaml"))[0]
    program.write_text(_alias_bomb(), "utf-8")
    assert f"programs/{program.name}:6 column 32: more than 500,000 values once every alias " \
        "(*name) is written out, the limit (aliases of anchors that hold aliases multiply); " \
        "write the values out instead of repeating anchors" in _build_problems(layout)  # fmt: skip


def test_advise_catalog_build_reports_an_alias_bomb_with_exit_2(
    layout: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (layout / "institution.yaml").write_text(_alias_bomb(), "utf-8")
    code = main(["catalog", "build", str(layout), "-o", str(tmp_path / "c.json")])
    err = capsys.readouterr().err
    assert code == 2
    assert "institution.yaml:6 column 32: more than 500,000 values once every alias" in err
    assert "Traceback" not in err


def test_more_yaml_aliases_than_the_limit_are_refused(layout: Path) -> None:
    program = sorted((layout / "programs").glob("*.yaml"))[0]
    aliases = "".join(f"k{i}: *a\n" for i in range(101))
    program.write_text("a: &a 1\n" + aliases, "utf-8")
    assert f"programs/{program.name}:102 column 7: more than 100 aliases (*name) in one file, " \
        "the limit; write the values out instead of repeating anchors" \
        in _build_problems(layout)  # fmt: skip


def test_a_short_courses_csv_row_is_a_problem_with_its_line(layout: Path) -> None:
    courses = layout / "courses.csv"
    line = courses.read_text("utf-8").count("\n") + 1
    with courses.open("a", encoding="utf-8") as f:
        f.write("ZZZ 101,Short\n")
    assert _build_problems(layout) == [
        f"courses.csv:{line}: 2 cells but the header has 15 columns - the row has no 'units', "
        "'department', 'level', 'offered_terms'; give every row a cell for each column (an "
        "empty cell is nothing between two commas)"
    ]


def test_a_binary_sections_csv_is_a_problem_with_its_line(layout: Path) -> None:
    sections = layout / "sections.csv"
    line = sections.read_bytes().count(b"\n") + 1
    with sections.open("ab") as f:
        f.write(b"\xd0\x00\xff binary\n")
    assert _build_problems(layout) == [
        f"sections.csv:{line}: not UTF-8 text (byte 0xd0) - save the file as UTF-8 (in a "
        "spreadsheet: CSV UTF-8)"
    ]


def test_a_csv_cell_over_the_csv_field_limit_is_a_problem_not_a_traceback(layout: Path) -> None:
    courses = layout / "courses.csv"
    line = courses.read_text("utf-8").count("\n") + 1
    with courses.open("a", encoding="utf-8") as f:
        f.write("ZZZ 101," + "x" * 200_000 + "\n")
    assert _build_problems(layout) == [
        f"courses.csv:{line}: not readable as CSV: field larger than field limit (131072) - "
        "check its quotes"
    ]


def test_a_catalog_directory_file_over_the_size_limit_is_a_build_problem(layout: Path) -> None:
    sparse_file(layout / "sections.csv", 65 * MiB)
    assert _build_problems(layout) == [
        "sections.csv: a catalog file (or a file of a catalog directory): 68,157,440 bytes, "
        "over the limit of 67,108,864 bytes; is this the right file?"
    ]


# ------------------------------------------------------------------ the table


def test_the_docs_limits_table_is_the_code_s() -> None:
    page = (ROOT / "docs" / "running.md").read_text("utf-8")
    assert limits_table() in page
