"""Course codes as the institution writes them (issue #28, item 1): subjects of six or more
letters ('COMPSCI 161'), '&' and spaces in a subject ('A&B SCI 6B'), one-digit numbers
('MATH 2B'), honors prefixes ('CHEM H2A') and two-letter suffixes ('PHYS 7LC') - in
courses.csv, in prerequisite expressions, in a student record and a request, in free text
and in the letter; the institution's declared code syntax; lookups that ignore case and
separators ('15150', 'cs101', 'comp sci 161'); two codes that only differ so refused.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import (
    AllOf,
    AnyOf,
    Catalog,
    CourseCond,
    check_student_against_catalog,
    load_catalog,
    parse_catalog,
    parse_prereq,
    use_catalog,
)
from agents.catalog.authoring import build_catalog, export_catalog
from agents.catalog.lookup import find_course, resolve_course, respell_courses
from agents.catalog.student import parse_student
from agents.errors import CatalogError, LayoutError, PrereqSyntaxError, UnknownCourseError
from agents.llm import letter_mentions
from agents.llm.textparse import parse_request_text
from pipeline.cli import main
from pipeline.logs import configure_logging

REPO = Path(__file__).resolve().parents[1]
PATTERN = "[A-Z&]+(?: [A-Z]+)* H?[0-9]+[A-Z]{0,2}"

INSTITUTION = f"""\
schema_version: 3
institution:
  name: Anteater College
catalog_year: 2026-2027
course_code_pattern: '{PATTERN}'
standing_thresholds: {{sophomore: 8, junior: 16, senior: 24}}
"""
COURSES = """\
code,title,units,department,level,offered_terms,prerequisites
MATH 2B,Single-Variable Calculus,4,Mathematics,1,fall;spring,
COMPSCI 161,Design and Analysis of Algorithms,4,Computer Science,100,fall;spring,math 2b
A&B SCI 6B,Applied Biology,4,Biology,1,fall;spring,
CHEM H2A,Honors General Chemistry,4,Chemistry,1,fall;spring,
PHYS 7LC,Classical Physics Laboratory,2,Physics,1,fall;spring,MATH 2B
BIO SCI 199,Biology Capstone,4,Biology,100,fall;spring,A&B SCI 6B and (CHEM H2A or PHYS 7LC)
"""
PROGRAM = """\
code: BIO-BS
name: Biology
kind: major
catalog_year: 2026-2027
department: Biology
total_units: 22
requirement:
  id: core
  kind: all_of
  children:
  - {id: algorithms, kind: course, course: COMPSCI 161}
  - {id: capstone, kind: course, course: BIO SCI 199}
  - {id: lab, kind: course, course: PHYS 7LC}
"""


def write_catalog(root: Path, institution: str = INSTITUTION, courses: str = COURSES) -> Path:
    """The Anteater College catalog directory (authoring layout) under ``root``."""
    (root / "programs").mkdir(parents=True)
    (root / "institution.yaml").write_text(institution, "utf-8")
    (root / "courses.csv").write_text(courses, "utf-8")
    (root / "programs" / "BIO-BS.yaml").write_text(PROGRAM, "utf-8")
    return root


@pytest.fixture(scope="module")
def uci(tmp_path_factory: pytest.TempPathFactory) -> Catalog:
    return build_catalog(write_catalog(tmp_path_factory.mktemp("uci") / "cat"))[0]


def _problems(root: Path) -> list[str]:
    with pytest.raises(LayoutError) as info:
        build_catalog(root)
    return info.value.problems


# --------------------------------------------------------------------------- the catalog


def test_codes_of_every_form_build_with_their_prerequisites(uci: Catalog) -> None:
    assert [c.code for c in uci.courses] == [
        "MATH 2B", "COMPSCI 161", "A&B SCI 6B", "CHEM H2A", "PHYS 7LC", "BIO SCI 199",
    ]  # fmt: skip
    by = uci.course_by_code
    # 'math 2b' in courses.csv is the catalog's MATH 2B: codes in expressions ignore case.
    assert by["COMPSCI 161"].prerequisites == CourseCond(course="MATH 2B")
    assert by["BIO SCI 199"].prerequisites == AllOf(
        all=[
            CourseCond(course="A&B SCI 6B"),
            AnyOf(any=[CourseCond(course="CHEM H2A"), CourseCond(course="PHYS 7LC")]),
        ]
    )
    assert [by[c].subject_code for c in ("A&B SCI 6B", "CHEM H2A", "BIO SCI 199")] == [
        "ABSCI", "CHEM", "BIOSCI",
    ]  # fmt: skip


def test_built_json_writes_the_expression_and_loads_back(uci: Catalog, tmp_path: Path) -> None:
    data = build_catalog(write_catalog(tmp_path / "cat"))[1]
    assert data["course_code_pattern"] == PATTERN
    assert data["courses"][5]["prerequisites"] == "A&B SCI 6B and (CHEM H2A or PHYS 7LC)"
    assert data["courses"][1]["prerequisites"] == "MATH 2B"
    assert parse_catalog(data) == uci
    export_catalog(uci, tmp_path / "again")
    assert build_catalog(tmp_path / "again")[0] == uci
    assert "course_code_pattern: " in (tmp_path / "again" / "institution.yaml").read_text()


def test_a_code_the_declared_pattern_does_not_match_is_refused(tmp_path: Path) -> None:
    root = write_catalog(tmp_path / "cat", courses=COURSES + "CS101,Intro,4,CS,1,fall,\n")
    assert _problems(root) == [
        f"courses.csv:8 column 'code': 'CS101' does not match the catalog's course_code_pattern "
        f"'{PATTERN}' - correct the code, or widen course_code_pattern"
    ]


def test_without_a_declared_pattern_any_code_is_read(tmp_path: Path) -> None:
    plain = INSTITUTION.replace(f"course_code_pattern: '{PATTERN}'\n", "")
    root = write_catalog(tmp_path / "cat", plain, COURSES + "cs/101 (b),Intro,4,CS,1,fall,\n")
    catalog = build_catalog(root)[0]
    assert catalog.course_code_pattern is None
    assert find_course(catalog, "CS 101 (B)") == "cs/101 (b)"


def test_two_codes_that_differ_only_in_case_or_separators_are_refused(tmp_path: Path) -> None:
    root = write_catalog(tmp_path / "cat", courses=COURSES + "COMP SCI 161,Again,4,CS,1,fall,\n")
    assert _problems(root) == [
        "courses.csv:8 column 'code': 'COMP SCI 161' is the same code as 'COMPSCI 161' once "
        "case, spaces and '-', '_', '.', '/' are ignored (line 3); lookups could not tell them "
        "apart - give one of the two courses another code"
    ]
    data = build_catalog(write_catalog(tmp_path / "ok"))[1]
    del data["course_code_pattern"]
    data["courses"].append({**data["courses"][0], "code": "Math-2b", "prerequisites": None})
    with pytest.raises(CatalogError) as info:
        parse_catalog(data, source="uci.json")
    assert info.value.problems == [
        "$.courses[6] (Math-2b).code: 'Math-2b' is the same code as 'MATH 2B' once case, "
        "spaces and '-', '_', '.', '/' are ignored; lookups could not tell them apart - give "
        "one of the two courses another code"
    ]


def test_an_unknown_code_in_an_expression_names_the_codes_meant(tmp_path: Path) -> None:
    courses = COURSES.replace("A&B SCI 6B and (CHEM H2A", "A&B SCI 6B and (CHEM H2B")
    assert _problems(write_catalog(tmp_path / "cat", courses=courses)) == [
        "courses.csv:7 column 'prerequisites': 'A&B SCI 6B and (CHEM H2B or PHYS 7LC)' has an "
        "error at character 17: unknown course 'CHEM H2B'; did you mean CHEM H2A? - add the "
        "course to courses.csv or correct the code"
    ]


def test_expressions_read_the_catalogs_codes_only_when_known(uci: Catalog) -> None:
    text = "A&B SCI 6B and (CHEM H2A or PHYS 7LC)"
    with pytest.raises(PrereqSyntaxError):
        parse_prereq(text)  # without the catalog: the common shapes only, as before
    with use_catalog(uci):
        tree = parse_prereq("a&b sci 6b and (chem h2a or phys 7lc[C])")
        assert parse_prereq("concurrent(compsci161)") == CourseCond(
            course="COMPSCI 161", concurrent=True
        )
    assert tree == parse_prereq(text.replace("7LC", "7LC[C]"), uci.code_index)


def test_a_version_2_catalog_cannot_declare_a_code_pattern(tmp_path: Path) -> None:
    root = write_catalog(tmp_path / "cat", INSTITUTION.replace("version: 3", "version: 2"))
    assert _problems(root) == [
        "institution.yaml:5 field 'course_code_pattern': new in catalog format version 3; set "
        f"schema_version to 3 (`advise catalog migrate` does it) (got '{PATTERN}')"
    ]


# --------------------------------------------------------------------------- lookups


@pytest.mark.parametrize(
    ("catalog", "text", "code"),
    [
        ("sample", "15150", "15-150"),
        ("sample", " 15 150 ", "15-150"),
        ("layout", "cs101", "CS 101"),
        ("layout", "cs 101", "CS 101"),
        ("layout", "Cs-101", "CS 101"),
        ("uci", "comp sci 161", "COMPSCI 161"),
        ("uci", "a&b sci 6b", "A&B SCI 6B"),
        ("uci", "chemh2a", "CHEM H2A"),
        ("uci", "phys 7 lc", "PHYS 7LC"),
    ],
)
def test_lookups_ignore_case_and_separators(
    catalog: str, text: str, code: str, uci: Catalog
) -> None:
    cat = {
        "sample": lambda: load_catalog(),
        "layout": lambda: load_catalog(REPO / "demos" / "catalog-layout"),
        "uci": lambda: uci,
    }[catalog]()
    assert resolve_course(cat, text) == code


def test_an_unknown_code_is_answered_with_the_codes_meant(uci: Catalog) -> None:
    with pytest.raises(UnknownCourseError) as info:
        resolve_course(uci, "CHEM H2B")
    assert info.value.known == ["CHEM H2A"]


def test_catalog_course_command_finds_a_code_written_without_its_hyphen(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ADVISE_INDEX_DIR", str(tmp_path / "index"))
    assert main(["catalog", "course", "15150", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["code"] == "15-150"


# --------------------------------------------------------------------------- records, text


def student(courses: list[dict[str, Any]], **more: Any) -> dict[str, Any]:
    return {
        "id": "s1", "name": "Pat", "programs": ["BIO-BS"], "catalog_year": "2026-2027",
        "start_term": "F2026", "current_term": "F2026", "courses": courses, **more,
    }  # fmt: skip


def test_a_record_names_codes_in_any_spelling(uci: Catalog) -> None:
    record = parse_student(
        student(
            [
                {"course": "math 2b", "term": "F2026", "status": "in_progress"},
                {"course": "A&B SCI 6B", "term": "F2026", "status": "in_progress"},
            ],
            registered=[{"course": "chem-h2a", "term": "S2027"}],
        )
    )
    respelt, notes = respell_courses(record, uci)
    assert [a.course for a in respelt.courses] == ["MATH 2B", "A&B SCI 6B"]
    assert respelt.registered[0].course == "CHEM H2A"
    assert notes == [
        "read the record's 'math 2b' as MATH 2B",
        "read the record's 'chem-h2a' as CHEM H2A",
    ]
    assert check_student_against_catalog(respelt, uci) == []


def test_a_record_code_off_the_declared_syntax_is_a_clear_error(uci: Catalog) -> None:
    record = parse_student(student([{"course": "CompSci 16l", "term": "F2026", "grade": "A"}]))
    assert check_student_against_catalog(record, uci) == [
        "$.courses[0].course: unknown course 'CompSci 16l': it is not written as this catalog "
        f"writes course codes (course_code_pattern '{PATTERN}', e.g. MATH 2B, COMPSCI 161); "
        "did you mean COMPSCI 161?"
    ]


def test_a_look_alike_code_in_a_record_suggests_the_code_meant() -> None:
    record = parse_student(student([{"course": "15-11O", "term": "F2026", "grade": "A"}]))
    problems = check_student_against_catalog(record, load_catalog())
    assert problems[0].startswith(
        "$.courses[0].course: unknown course '15-11O'; did you mean 15-110"
    )


def test_free_text_finds_the_catalogs_codes(uci: Catalog) -> None:
    with use_catalog(uci):
        out = parse_request_text(
            "I want to take comp sci 161 and A&B SCI 6B next year; I'd rather not take Chem H2A.",
            uci,
        )
    assert out.include_courses == ["COMPSCI 161", "A&B SCI 6B"]
    assert out.avoid_courses == ["CHEM H2A"]


def test_the_letter_check_reads_the_catalogs_codes(uci: Catalog) -> None:
    text = "Take COMPSCI 161 and A&B SCI 6B, then phys 7LC and CHEM H2A; LOAD-MAX 54 is a rule."
    with use_catalog(uci):
        assert letter_mentions(text)["courses"] == {
            "COMPSCI 161", "A&B SCI 6B", "PHYS 7LC", "CHEM H2A",
        }  # fmt: skip


# --------------------------------------------------------------------------- end to end


@pytest.fixture
def _reset_logging() -> Iterator[None]:
    yield
    configure_logging("warning", stream=sys.stderr)


@pytest.mark.usefixtures("_reset_logging")
def test_a_request_is_planned_end_to_end(tmp_path: Path) -> None:
    cat = write_catalog(tmp_path / "cat")
    request = {
        "request_id": "anteater-1",
        "student": student([{"course": "math 2b", "term": "F2026", "status": "in_progress"}]),
        "text": "Plan my degree. I want to take chem h2a.",
    }
    (tmp_path / "request.json").write_text(json.dumps(request), "utf-8")
    dirs = ["--state-dir", str(tmp_path / "s"), "--out-dir", str(tmp_path / "o"),
            "--log-dir", str(tmp_path / "l"), "--catalog", str(cat)]  # fmt: skip
    main(["run", str(tmp_path / "request.json"), *dirs])
    rec = json.loads((tmp_path / "o" / "anteater-1.json").read_text("utf-8"))
    terms = {c["course"]: t["term"] for t in rec["plan"] for c in t["courses"]}
    assert rec["outcome"] in ("approved", "approved_with_risks"), rec["summary"]
    assert set(terms) >= {"COMPSCI 161", "A&B SCI 6B", "CHEM H2A", "PHYS 7LC", "BIO SCI 199"}
    order = load_catalog(cat).calendar.parse
    assert order(terms["A&B SCI 6B"]) < order(terms["BIO SCI 199"])
    assert "COMPSCI 161" in rec["letter"] and "BIO SCI 199" in rec["letter"]
