"""Catalog authoring: a catalog directory built into catalog JSON, and exported back.

The sample catalog and a catalog that uses every field survive export then build exactly;
malformed files give problems that name the file, line (and CSV column), value and fix;
the ``advise catalog build`` and ``export`` commands exit like the other commands.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import (
    Catalog,
    Course,
    Meeting,
    Offering,
    Program,
    Section,
    load_catalog,
    parse_catalog,
)
from agents.catalog.authoring import (
    COURSE_COLUMNS,
    INSTITUTION_FIELDS,
    SECTION_COLUMNS,
    LayoutError,
    build_catalog,
    catalog_json,
    export_catalog,
    layout_files,
)
from agents.catalog.loader import default_catalog_path
from pipeline.cli import main
from tests.catalog_base import base_catalog

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "demos" / "catalog-layout"


def _export(raw: dict[str, Any], tmp_path: Path) -> Path:
    directory = tmp_path / "catalog"
    export_catalog(parse_catalog(raw), directory)
    return directory


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), "utf-8")


def _problems(directory: Path) -> list[str]:
    with pytest.raises(LayoutError) as info:
        build_catalog(directory)
    return info.value.problems


LONG_TEXT = "First paragraph,\nsecond line.\n\n  Indented paragraph.\n\n\n### Not a heading"


def _every_field() -> dict[str, Any]:
    """The base catalog with every optional field of the format set somewhere."""
    raw = base_catalog()
    raw["institution"]["unit_name"] = "credits"
    raw["grade_scale"] = [
        {"grade": "A", "points": 4.0},
        {"grade": "C", "points": 2.0},
        {"grade": "F", "points": 0.0, "earns_credit": False},
        {"grade": "P", "points": 2.0, "in_gpa": False},
    ]
    raw["standing_thresholds"] = {"sophomore": 30, "junior": 60, "senior": 90.5}
    c110, c112, _ = raw["courses"]
    c110.update(
        description='Line one, with "quotes".\nLine two; and a comma, too.',
        attributes=["gen-ed", "quant"],
        offered={"terms": ["fall", "spring"], "years": "odd"},
        antirequisites=["15-112"],
        repeatable=True,
        grading="pass_fail_only",
        units=10.5,
        corequisites="consent(dean) or program(CS-MIN)",
    )
    c110["sections"].append({"term": "F2027", "id": "B", "meetings": []})
    c110["sections"][0]["meetings"].append(
        {"days": "R", "start": "14:00", "end": "15:50", "location": "Lab 2"}
    )
    c110["sections"][0].update(instructor="R. Alvarez", capacity=0)
    c112["prerequisites"] = "15-110[C] and (standing(junior) or units(90.5))"
    c112.update(status="dormant", last_offered="F2019")
    program = raw["programs"][0]
    program.update(
        aliases=["CS minor"],
        total_units=60,
        min_gpa=2.5,
        eligible_majors=["CS-MIN"],
        excluded_majors=["CS-MIN"],
    )
    program["requirement"]["title"] = "Core"
    program["requirement"]["children"].append(
        {
            "kind": "n_of",
            "id": "pick",
            "n": 1,
            "children": [{"kind": "course", "id": "c122", "course": "15-122", "min_grade": "C"}],
        }
    )
    elective = program["requirement"]["children"][1]
    elective.update(
        courses=["15-110"], attributes=["quant"], exclude=["15-122"], min_units=10, min_gpa=2.0
    )
    program["sharing"].append({"with_program": "CS-MIN", "max_courses": 0})
    older = json.loads(json.dumps(program)) | {"catalog_year": "2023-2024", "total_units": 54}
    raw["program_versions"] = [older]
    rule = raw["policies"][0]
    rule.update(
        applies_when={
            "gpa_min": 2.0,
            "gpa_max": 3.5,
            "standing_in": ["junior"],
            "status_in": ["good"],
        },
        severity="soft",
        requires_approval="dean",
        summary="Two at most.",
    )
    raw["documents"][0]["sections"].append(
        {
            "id": "long",
            "heading": "",
            "text": LONG_TEXT,
        }
    )
    return raw


@pytest.mark.slow  # round trips
def test_export_then_build_gives_back_the_sample_catalog(tmp_path: Path) -> None:
    original = load_catalog()
    export_catalog(original, tmp_path / "sample")
    built, data = build_catalog(tmp_path / "sample")
    assert built == original
    # The sample mixes expression and tree prerequisites and spells out some defaults;
    # catalog_json is the one normal form both sides are compared in.
    raw = json.loads(default_catalog_path().read_text("utf-8"))
    assert data == catalog_json(parse_catalog(raw))


def test_export_then_build_keeps_every_field(tmp_path: Path) -> None:
    raw = _every_field()
    original = parse_catalog(raw)
    built, data = build_catalog(_export(raw, tmp_path))
    assert data == catalog_json(original)
    assert built == original
    assert built.document_by_id["academic-policies"].sections[1].text == LONG_TEXT


def test_layout_columns_cover_every_model_field() -> None:
    offering = {"offered_terms", "offered_years", "offered_only", "offered_last"}
    assert len(offering) == len(Offering.model_fields)
    course = set(Course.model_fields) - {"offered", "sections"} | offering
    assert course == set(COURSE_COLUMNS)
    section = set(Section.model_fields) - {"meetings", "id"} | set(Meeting.model_fields)
    assert section | {"course", "section"} == set(SECTION_COLUMNS)
    listed = {"courses", "programs", "program_versions", "policies", "documents"}
    assert set(Catalog.model_fields) - listed == set(INSTITUTION_FIELDS) - {
        "program_order",
        "document_order",
    }


def test_single_member_group_is_written_as_json_in_its_cell(tmp_path: Path) -> None:
    files = layout_files(parse_catalog(base_catalog()))
    row = files["courses.csv"].splitlines()[3]
    assert row.endswith(',"{""all"":[{""course"":""15-112"",""min_grade"":""C""}]}",,,no,graded')


def test_document_sections_keep_paragraphs_verbatim(tmp_path: Path) -> None:
    directory = _export(base_catalog(), tmp_path)
    (directory / "documents" / "academic-policies.md").write_text(
        "---\nid: academic-policies\ntitle: Academic Policies\nkind: policy\n---\n\n"
        "## Minors {#minors}\n\n\nAt most two courses\nmay count.\n\nSecond paragraph.  \n\n\n",
        "utf-8",
    )
    built, _ = build_catalog(directory)
    section = built.document_by_id["academic-policies"].sections[0]
    assert (section.id, section.heading) == ("minors", "Minors")
    assert section.text == "At most two courses\nmay count.\n\nSecond paragraph.  "


def test_the_demo_layout_builds() -> None:
    built, data = build_catalog(DEMO)
    assert [c.code for c in built.courses] == ["CS 101", "CS 201", "CS 290"]
    assert [len(s.meetings) for s in built.course("CS 101").sections] == [2, 1]
    assert built.section_text("academic-policies", "course-load").text == (
        "Students may take at most 18 credits in a fall or spring term.\n\n"
        "A heavier load needs the dean's approval."
    )
    assert data["courses"][2]["prerequisites"] == "standing(sophomore) or consent(instructor)"


def test_export_refuses_text_the_layout_cannot_hold(tmp_path: Path) -> None:
    raw = base_catalog()
    raw["documents"][0]["sections"][0]["text"] = "\nStarts blank.\n## Looks like a heading"
    raw["courses"][0]["attributes"] = ["a;b"]
    with pytest.raises(LayoutError) as info:
        export_catalog(parse_catalog(raw), tmp_path / "out")
    assert info.value.problems == [
        "course '15-110' attributes: 'a;b' cannot be written in a ';'-separated list - it is "
        "empty, contains ';' or starts or ends with a space",
        "document 'academic-policies' section 'minors': the text starts or ends with a blank "
        "line - remove it",
        "document 'academic-policies' section 'minors': a line of the text starts with '##' - "
        "it would start a section",
    ]
    assert not (tmp_path / "out").exists()


# --- problems --------------------------------------------------------------------------

PROGRAM_FIELDS = ", ".join(sorted(Program.model_fields))

CASES = [
    (
        "courses.csv",
        "Programming,12,",
        "Programming,nine,",
        "courses.csv:3 column 'units': 'nine' is not a number - write units as a number such "
        "as 9 or 0.5",
    ),
    (
        "courses.csv",
        "every,15-110,",
        "every,15-110 and (,",
        "courses.csv:3 column 'prerequisites': '15-110 and (' has an error at character 13: "
        "expression ends early; expected a course code, '(' or a condition - write an "
        "expression such as '15-112 and (21-127 or 21-128[C])'",
    ),
    (
        "courses.csv",
        ",fall;spring,every,15-110,",
        ",fall;winter,every,15-110,",
        "courses.csv:3 column 'offered_terms': 'winter' is not a kind of term of the calendar "
        "- write kinds from spring, summer, fall (or their codes) separated by ';', e.g. "
        "'fall;spring'",
    ),
    (
        "programs/CS-MIN.yaml",
        "kind: minor\n",
        "kind: minor\nfoo: 1\n",
        f"programs/CS-MIN.yaml:4 field 'foo': unknown field 'foo'; allowed fields: "
        f"{PROGRAM_FIELDS} - remove it or correct its spelling",
    ),
    (
        "programs/CS-MIN.yaml",
        "course: 15-112",
        "course: 15-199",
        "programs/CS-MIN.yaml:10: unknown course '15-199' - add the course to courses.csv or "
        "correct the code",
    ),
    (
        "policies.yaml",
        "  limit: 2\n",
        "  limit: [2\n",
        "policies.yaml:5 column 11: YAML syntax error: expected ',' or ']', but got ':' (while "
        "parsing a flow sequence that started on line 4 column 10) - check the indentation, "
        "and put quotes around text that contains ': ' or starts with a special character "
        "such as '*', '&', '[' or '{'",
    ),
    (
        "documents/academic-policies.md",
        "## Minors {#minors}",
        "## Minors",
        "documents/academic-policies.md:7: section heading '## Minors' has no id - end the "
        "heading with an id in braces, e.g. '## Minors {#minors}'",
    ),
    (
        "documents/academic-policies.md",
        "---\n\n## Minors",
        "---\nPreamble.\n## Minors",
        "documents/academic-policies.md:6: text before the first '## ' heading belongs to no "
        "section - put it under a heading such as '## Overview {#overview}'",
    ),
    (
        "sections.csv",
        "15-110,S2027,A",
        "15-119,S2027,A",
        "sections.csv:2 column 'course': '15-119' is not a course in courses.csv - add the "
        "course to courses.csv or correct the code",
    ),
    (
        "sections.csv",
        "15-110,S2027,A",
        "15-110,U2027,A",
        "sections.csv:2: section 'A' is in U2027, a term the course is not offered (offered: "
        "fall, spring, every year) - add the season to the course's offered_terms or move "
        "the section",
    ),
    (
        "sections.csv",
        "09:50,,,\n",
        "09:50,,Kim,\n15-110,S2027,A,F,10:00,10:50,,Lee,\n",
        "sections.csv:3 column 'instructor': 'Lee' differs from 'Kim' on line 2 for the same "
        "section - give the same value on every row of a section, or leave it empty after "
        "the first",
    ),
    (
        "institution.yaml",
        "catalog_year: 2026-2027\n",
        "catalog_year: 2026\n",
        "institution.yaml:4 field 'catalog_year': expected a string, got 2026",
    ),
]


@pytest.mark.parametrize(("file", "old", "new", "problem"), CASES)
def test_malformed_layout_names_file_line_value_and_fix(
    tmp_path: Path, file: str, old: str, new: str, problem: str
) -> None:
    directory = _export(base_catalog(), tmp_path)
    _edit(directory / file, old, new)
    assert _problems(directory) == [problem]


def test_a_course_row_with_extra_cells_is_reported_once(tmp_path: Path) -> None:
    directory = _export(base_catalog(), tmp_path)
    _edit(directory / "courses.csv", "Principles of Computing", "Principles, of Computing")
    assert _problems(directory) == [
        "courses.csv:2: 15 cells but the header has 14 columns - put quotes around cells that "
        "contain commas"
    ]


def test_missing_files_and_stray_files_are_reported(tmp_path: Path) -> None:
    directory = _export(base_catalog(), tmp_path)
    (directory / "institution.yaml").unlink()
    (directory / "programs" / "notes.txt").write_text("x", "utf-8")
    assert _problems(directory) == [
        f"institution.yaml: file not found in {directory} - create it with schema_version, "
        "institution and catalog_year",
        "programs/notes.txt: not read - files in programs/ end in .yaml",
    ]


# --- the commands ----------------------------------------------------------------------


def test_cli_export_then_build_round_trips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    source = tmp_path / "in.json"
    source.write_text(json.dumps(base_catalog()), "utf-8")
    assert main(["catalog", "export", str(source), str(tmp_path / "dir")]) == 0
    out = tmp_path / "out.json"
    assert main(["catalog", "build", str(tmp_path / "dir"), "-o", str(out)]) == 0
    assert json.loads(out.read_text("utf-8")) == catalog_json(parse_catalog(base_catalog()))
    assert load_catalog(out) == parse_catalog(base_catalog())
    lines = capsys.readouterr().out.splitlines()
    assert lines == [
        f"{tmp_path / 'dir'}: wrote 7 files from {source}",
        f"{out}: built from {tmp_path / 'dir'} (3 courses, 1 programs, 1 policy rules, "
        "2 documents)",
    ]


def test_cli_build_failure_exits_2_and_keeps_the_old_output(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _export(base_catalog(), tmp_path)
    _edit(directory / "courses.csv", "Programming,12,", "Programming,nine,")
    out = tmp_path / "out.json"
    out.write_text("old", "utf-8")
    assert main(["catalog", "build", str(directory), "-o", str(out)]) == 2
    assert out.read_text("utf-8") == "old"
    assert list(tmp_path.glob(".out.json.*")) == []
    assert capsys.readouterr().err == (
        f"error: {directory}: 1 problem\n  - courses.csv:3 column 'units': 'nine' is not a "
        "number - write units as a number such as 9 or 0.5\n"
    )


@pytest.mark.slow
def test_cli_export_refuses_a_non_empty_directory_unless_forced(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    directory = _export(base_catalog(), tmp_path)
    stale = directory / "programs" / "OLD-MIN.yaml"
    stale.write_text("code: OLD-MIN\n", "utf-8")
    source = str(default_catalog_path())
    assert main(["catalog", "export", source, str(directory)]) == 2
    assert "the directory is not empty - export to a new directory, or pass --force" in (
        capsys.readouterr().err
    )
    assert main(["catalog", "export", source, str(directory), "--force"]) == 0
    assert not stale.exists()
    assert build_catalog(directory)[0] == load_catalog()
