"""The UNSW converter (eval.unsw): the condition grammar and its lowering to catalog
prerequisites, a whole conversion of a hand-made circles-shaped fixture
(tests/data/unsw_fixture, made-up courses and one program), bad sources, and - when a copy
of the real data is in /tmp/circles - that it reproduces demos/unsw byte for byte."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
import yaml

from agents.catalog.authoring import build_catalog
from eval.unsw import SOURCE_COMMIT
from eval.unsw.conditions import ConditionSyntaxError, parse_condition
from eval.unsw.convert import convert, main, write
from eval.unsw.errors import SourceError
from eval.unsw.lowering import SECTION as LEAVES
from eval.unsw.lowering import Known, lower, to_expression
from eval.unsw.source import read_source

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "data" / "unsw_fixture"
REAL = Path("/tmp/circles")
SHIPPED = REPO / "demos" / "unsw"

KNOWN = Known(
    courses={"COMP1511", "COMP1531", "COMP2521", "DPST1091", "MATH1131", "MATH1141"},
    programs={"3778", "COMPA1", "ACCTB1", "3554"},
)


# ------------------------------------------------------------------ the condition grammar

FORMS = [
    # (circles expression, prerequisites, corequisites, rules counted)
    ("COMP1511", "COMP1511", "", ["course"]),
    ("COMP1511 || DPST1091", "COMP1511 or DPST1091", "", ["course", "course"]),
    (
        "COMP1531 && (COMP2521 || COMP1511)",
        "COMP1531 and (COMP2521 or COMP1511)",
        "",
        ["course", "course", "course"],
    ),
    (
        "COMP1531 && [MATH1131 || MATH1141]",
        "COMP1531",
        "MATH1131 or MATH1141",
        ["course", "corequisite", "corequisite"],
    ),
    ("COMP1531 || [MATH1131]", "COMP1531 or concurrent(MATH1131)", "", ["course", "corequisite"]),
    ("102UOC", "units(102)", "", ["uoc"]),
    ("48UOC in L2 MATH", "units(48)", "", ["uoc_category"]),
    ("78UOC in LAWS courses", "units(78)", "", ["uoc_category"]),
    ("12UOC in F Business", "units(12)", "", ["uoc_category"]),
    ("65GRADE in COMP1511", "COMP1511", "", ["grade_course"]),
    ("65GRADE in L2 MATH", "", "", ["grade_other"]),
    ("70WAM && COMP1511", "COMP1511", "", ["wam", "course"]),
    ("3778 && COMP1511", "program(3778) and COMP1511", "", ["enrolment", "course"]),
    ("9999 || COMP1511", "COMP1511", "", ["program_outside", "course"]),
    ("COMPA1", "program(COMPA1)", "", ["enrolment"]),
    ("COMPZ1", "", "", ["spec_outside"]),
    ("ACCTB13554", "program(ACCTB1) and program(3554)", "", ["enrolment"]),
    ("COMP# && 24UOC", "units(24)", "", ["program_type", "uoc"]),
    ("BABS?H", "", "", ["spec_wildcard"]),
    ("COMP9024 || COMP2521", "COMP2521", "", ["course_outside", "course"]),
    ("COMP2041 || COMP2521", "COMP2521", "", ["course_self", "course"]),
    (
        "COMP1511 || DPST1091 && MATH1131",
        "(COMP1511 or DPST1091) and MATH1131",
        "",
        ["mixed", "course", "course", "course"],
    ),
    (
        "(COMP1511 || COMP1511) && (COMP2521)",
        "COMP1511 and COMP2521",
        "",
        ["course", "course", "course"],
    ),
]


@pytest.mark.parametrize(("text", "pre", "co", "rules"), FORMS, ids=[f[0] for f in FORMS])
def test_each_supported_form_lowers_to_its_catalog_expression(
    text: str, pre: str, co: str, rules: list[str]
) -> None:
    low = lower("COMP2041", parse_condition(text), KNOWN)
    assert (to_expression(low.prerequisites), to_expression(low.corequisites)) == (pre, co)
    assert low.rules == rules


UNSUPPORTED = [
    ("Enrolment in a Music program", "text", "Enrolment"),
    ("48UOC && 6UOC in L2 in one of the following streams", "text", "in"),
    ("MUSC2702 || MUSC2703 (12UOC)", "operator", "("),
    ("(COMP1511 && COMP1531) || COMP2521 && MATH1131", "ambiguous", "&&"),
    ("(COMP1511 && COMP1531", "structure", ""),
    ("[COMP1511 && 12UOC]", "structure", "12UOC"),
]


@pytest.mark.parametrize(("text", "problem", "token"), UNSUPPORTED, ids=[u[0] for u in UNSUPPORTED])
def test_forms_outside_the_grammar_are_reported_with_the_token(
    text: str, problem: str, token: str
) -> None:
    with pytest.raises(ConditionSyntaxError) as info:
        parse_condition(text)
    assert (info.value.problem, info.value.token) == (problem, token)


def test_an_empty_condition_is_none() -> None:
    assert parse_condition("  ") is None
    assert lower("COMP2041", None, KNOWN).rules == []


def test_a_dropped_enrolment_condition_marks_the_course_arranged() -> None:
    assert lower("X", parse_condition("COMP# && COMP1511"), KNOWN).arranged
    assert not lower("X", parse_condition("3778 && COMP1511"), KNOWN).arranged


# ------------------------------------------------------------------ the fixture, converted

EXPECTED_COURSES = """\
code,title,units,department,level,attributes,offered_terms,prerequisites,corequisites,antirequisites,status,free_elective
HUMS1001,Thinking About Things,6,Faculty of Humanities,1,gen-ed,T1;T2,,,,,
HUMS1002,More Thinking,6,Faculty of Humanities,1,gen-ed,T3,,,,,no
WIDG1001,Widget Basics,6,School of Widgets,1,,T1;T2;T3,,,,,
WIDG1002,Widget Assembly,6,School of Widgets,1,,T2,WIDG1001,,,,
WIDG1900,Widget Appreciation,6,School of Widgets,1,gen-ed,T1,,,,,
WIDG2001,Widget Design,6,School of Widgets,2,,T1;T3,WIDG1002 and units(12),,,,
WIDG2002,Widget Testing,6,School of Widgets,2,,T0;T2,WIDG1001,WIDG2001,,,
WIDG3001,Advanced Widgets,6,School of Widgets,3,,T1,WIDG2001,,,,no
WIDG3002,Widget Research,12,School of Widgets,3,,T1;T2;T3,units(48) and program(WIDGA1),,,dormant,
WIDG3003,Widget Practice,6,School of Widgets,3,,T3,,,,,no
WIDG3004,Widget Theory,6,School of Widgets,3,,T1,WIDG3005 or WIDG2001,,,,
WIDG3005,Widget History,6,School of Widgets,3,,T2,,,WIDG1900,,
ZWID1001,Field Widgets,6,School of Field Studies,1,campus-canberra,T1;T3,,,WIDG1001,,no
"""


def _course(code: str, prefix: str) -> dict[str, object]:
    return {"id": f"{prefix}-{code.lower()}", "kind": "course", "course": code}


EXPECTED_PROGRAMS = {
    "9000": {
        "code": "9000", "name": "Widget Studies", "kind": "major",
        "aliases": ["9000 Widget Studies"], "catalog_year": "2022",
        "department": "Faculty of Widgetry", "total_units": 144, "document": "program-9000",
        "concentration_required": True,
        "requirement": {"id": "9000", "title": "Widget Studies", "kind": "all_of", "children": [
            {"id": "9000-gened", "title": "General Education", "kind": "course_set",
             "attributes": ["gen-ed"], "min_units": 12, "exclude": ["WIDG1900"]},
            {"id": "9000-widget-foundations", "title": "Widget Foundations", "kind": "all_of",
             "children": [_course("WIDG1001", "9000-widget-foundations"),
                          _course("WIDG1002", "9000-widget-foundations")]},
        ]},
    },
    "HUMSB2": {
        "code": "HUMSB2", "name": "Humanities minor", "kind": "minor",
        "aliases": ["HUMSB2 Humanities"], "catalog_year": "2022",
        "department": "Faculty of Widgetry", "eligible_majors": ["9000"],
        "document": "program-humsb2",
        "requirement": {"id": "humsb2", "title": "Humanities minor", "kind": "all_of", "children": [
            {"id": "humsb2-minor-courses", "title": "Minor Courses", "kind": "all_of",
             "children": [_course("HUMS1001", "humsb2-minor-courses"),
                          _course("HUMS1002", "humsb2-minor-courses")]},
        ]},
    },
    "WIDGA1": {
        "code": "WIDGA1", "name": "Widgetry major", "kind": "concentration",
        "aliases": ["WIDGA1 Widgetry"], "catalog_year": "2022",
        "department": "Faculty of Widgetry", "eligible_majors": ["9000"],
        "document": "program-widga1",
        "requirement": {"id": "widga1", "title": "Widgetry major", "kind": "all_of", "children": [
            {"id": "widga1-core-courses", "title": "Core Courses", "kind": "all_of", "children": [
                _course("WIDG2001", "widga1-core-courses"),
                {"id": "widga1-core-courses-widg2002-or-widg3004", "kind": "n_of", "n": 1,
                 "children": [_course("WIDG2002", "widga1-core-courses-widg2002"),
                              _course("WIDG3004", "widga1-core-courses-widg2002")]},
            ]},
            {"id": "widga1-widget-electives", "title": "Widget Electives", "kind": "course_set",
             "courses": ["HUMS1001"], "patterns": ["WIDG3xxx"], "min_units": 12},
            {"id": "widga1-breadth", "title": "Breadth", "kind": "course_set", "min_level": 2,
             "max_level": 2, "min_units": 6},
        ]},
    },
}  # fmt: skip

EXPECTED_LEAVES = {
    "course": 6, "corequisite": 1, "enrolment": 1, "uoc": 1, "course_outside": 1, "cycle": 1,
    "grade_course": 1, "mixed": 1, "program_outside": 1, "program_type": 1, "uoc_category": 1,
    "wam": 1,
}  # fmt: skip


@pytest.fixture(scope="module")
def fixture_out(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("unsw-fixture")
    assert main(["--source", str(FIXTURE), "--out", str(out), "--degrees", "9000"]) == 0
    return out


def test_the_fixture_gives_the_expected_courses(fixture_out: Path) -> None:
    assert (fixture_out / "courses.csv").read_text("utf-8") == EXPECTED_COURSES


def test_the_fixture_gives_the_expected_programs(fixture_out: Path) -> None:
    files = sorted(p.name for p in (fixture_out / "programs").iterdir())
    assert files == ["9000.yaml", "HUMSB2.yaml", "WIDGA1.yaml"]
    for code, expected in EXPECTED_PROGRAMS.items():
        data = yaml.safe_load((fixture_out / "programs" / f"{code}.yaml").read_text("utf-8"))
        assert data == expected, code


def test_the_fixture_catalog_builds_with_the_unsw_calendar_and_rules(fixture_out: Path) -> None:
    catalog, _ = build_catalog(fixture_out)
    assert [p.code for p in catalog.programs] == ["9000", "HUMSB2", "WIDGA1"]
    assert [(k.code, k.regular) for k in catalog.calendar.terms] == [
        ("T0", False), ("T1", True), ("T2", True), ("T3", True),
    ]  # fmt: skip
    assert catalog.institution.unit_name == "UOC"
    assert [(g.grade, g.points) for g in catalog.grade_scale[:5]] == [
        ("HD", 4.0), ("DN", 3.0), ("CR", 2.0), ("PS", 1.0), ("FL", 0.0),
    ]  # fmt: skip
    assert [(r.id, r.limit, r.requires_approval) for r in catalog.policies] == [
        ("LOAD-MAX", 20, "department")
    ]
    assert catalog.course("WIDG3002").status == "dormant"
    assert [d.id for d in catalog.documents] == [
        "academic-policies", "academic-calendar", "source",
        "program-9000", "program-humsb2", "program-widga1",
    ]  # fmt: skip


def test_the_report_counts_each_leaf_by_its_rule(fixture_out: Path) -> None:
    conversion = convert(read_source(FIXTURE), ["9000"])
    rows = {r.label: r.count for r in conversion.tally.section(LEAVES)}
    assert rows == EXPECTED_LEAVES
    report = (fixture_out / "CONVERSION.md").read_text("utf-8")
    assert f"commit `{SOURCE_COMMIT}`" in report
    assert "| not converted | expression with free text | 1 |" in report
    assert "| not converted | 0 UOC | 1 |" in report
    assert "| not converted | specialisation missing from the data | 1 |" in report


def test_a_second_run_replaces_generated_files_and_keeps_students(tmp_path: Path) -> None:
    (tmp_path / "programs").mkdir()
    (tmp_path / "programs" / "OLD.yaml").write_text("code: OLD\n")
    (tmp_path / "students").mkdir()
    (tmp_path / "students" / "s.json").write_text("{}")
    conversion = convert(read_source(FIXTURE), ["9000"])
    write(conversion, tmp_path)
    write(conversion, tmp_path)
    assert not (tmp_path / "programs" / "OLD.yaml").exists()
    assert (tmp_path / "students" / "s.json").read_text() == "{}"
    for rel, text in conversion.files.items():
        assert (tmp_path / rel).read_text("utf-8") == text


# ------------------------------------------------------------------ bad sources


def test_a_missing_file_names_it_and_where_it_comes_from(tmp_path: Path) -> None:
    with pytest.raises(SourceError) as info:
        read_source(tmp_path)
    assert str(info.value) == (
        f"{tmp_path / 'coursesProcessed.json'}: $: None - file not found; export it from "
        "circles' backend/data/final_data/coursesProcessed.json"
    )


def test_a_bad_value_names_the_file_the_json_path_and_the_fix(tmp_path: Path) -> None:
    for f in FIXTURE.iterdir():
        shutil.copy(f, tmp_path / f.name)
    data = json.loads((tmp_path / "coursesProcessed.json").read_text("utf-8"))
    data["WIDG1001"]["UOC"] = "six"
    (tmp_path / "coursesProcessed.json").write_text(json.dumps(data), "utf-8")
    with pytest.raises(SourceError) as info:
        read_source(tmp_path)
    assert str(info.value) == (
        f"{tmp_path / 'coursesProcessed.json'}: $['WIDG1001'].UOC: 'six' - expected a whole number"
    )


def test_an_unknown_degree_exits_2_with_the_fix(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--source", str(FIXTURE), "--out", str(tmp_path), "--degrees", "1234"]) == 2
    err = capsys.readouterr().err
    assert err == (
        f"error: degree '1234' is not in {FIXTURE / 'programsProcessed.json'}; pass program "
        "codes it has, e.g. --degrees 3778,3707\n"
    )
    assert list(tmp_path.iterdir()) == []


# ------------------------------------------------------------------ the shipped catalog


@pytest.mark.skipif(
    not (REAL / "coursesProcessed.json").is_file(),
    reason="no copy of circles' data in /tmp/circles (export it as eval/unsw/__init__.py shows)",
)
@pytest.mark.slow
def test_the_real_data_reproduces_demos_unsw_byte_for_byte(tmp_path: Path) -> None:
    assert main(["--source", str(REAL), "--out", str(tmp_path)]) == 0
    made = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*") if p.is_file())
    shipped = sorted(
        p.relative_to(SHIPPED)
        for p in SHIPPED.rglob("*")
        if p.is_file() and p.relative_to(SHIPPED).parts[0] != "students"
    )
    assert made == shipped
    for rel in made:
        assert (tmp_path / rel).read_bytes() == (SHIPPED / rel).read_bytes(), rel


def test_the_shipped_courses_csv_is_the_undergraduate_list() -> None:
    with (SHIPPED / "courses.csv").open(encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert [r["code"] for r in rows] == sorted(r["code"] for r in rows)
    assert len(rows) > 2500
    assert all(int(r["units"]) > 0 for r in rows)
