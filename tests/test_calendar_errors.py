"""Bad input in the calendar-aware parts names the place, the value and the fix: layout
cells for specific terms and class standings, and a student record whose terms are not of
the catalog's calendar."""

from __future__ import annotations

from pathlib import Path

import pytest

from agents.catalog import StudentRecord, check_student_against_catalog, load_catalog
from agents.catalog.authoring import build_catalog, export_catalog
from agents.errors import LayoutError

REPO = Path(__file__).resolve().parents[1]


def _layout(tmp_path: Path, column: str, value: str) -> list[str]:
    directory = tmp_path / "cat"
    export_catalog(load_catalog(REPO / "demos" / "catalog-layout"), directory)
    csv = directory / "courses.csv"
    lines = csv.read_text("utf-8").splitlines()
    lines[0] += f",{column}"
    lines[1] += f",{value}"
    lines[2:] = [line + "," for line in lines[2:]]
    csv.write_text("\n".join(lines) + "\n", "utf-8")
    with pytest.raises(LayoutError) as info:
        build_catalog(directory)
    return info.value.problems


def test_a_specific_term_not_of_the_calendar_names_the_cell_and_the_codes(
    tmp_path: Path,
) -> None:
    problems = _layout(tmp_path, "offered_only", "F2027;W2028")
    assert problems == [
        "courses.csv:2 column 'offered_only': 'W2028' is not a term of the calendar - write "
        "term codes such as 'S2027', 'F2027' separated by ';'"
    ]


def test_an_unknown_class_standing_names_the_cell_and_the_standings(tmp_path: Path) -> None:
    problems = _layout(tmp_path, "restricted_to", "freshman")
    assert problems == [
        "courses.csv:2 column 'restricted_to': 'freshman' is not a class standing - write "
        "standings from first_year, sophomore, junior, senior separated by ';'"
    ]


def test_a_student_term_of_another_calendar_is_reported_with_its_json_path() -> None:
    catalog = load_catalog(REPO / "demos" / "harrow-bay")
    record = StudentRecord.model_validate(
        {
            "id": "s1",
            "name": "Sam",
            "programs": ["CSCI-BA"],
            "catalog_year": "2026-27",
            "start_term": "F2025",
            "current_term": "T12026",
            "courses": [{"course": "CSCI 120", "term": "S2026", "grade": "B"}],
        }
    )
    problems = check_student_against_catalog(record, catalog)
    assert problems[0].startswith("$.start_term: not a term: 'F2025' in this trimester calendar")
    assert problems[1].startswith("$.courses[0].term: not a term: 'S2026' in this trimester")
    assert len(problems) == 2
