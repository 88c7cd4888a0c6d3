"""Catalog authoring: a yes/no column of courses.csv that only some catalogs have
(``free_elective``) - a bad cell names file, line, column, value and what yes means; rows
without the cell keep the default."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from agents.catalog.authoring import LayoutError, build_catalog

DEMO = Path(__file__).resolve().parents[1] / "demos" / "catalog-layout"


def _edit(path: Path, old: str, new: str) -> None:
    text = path.read_text("utf-8")
    assert old in text, f"{old!r} not in {path}"
    path.write_text(text.replace(old, new, 1), "utf-8")


def _problems(directory: Path) -> list[str]:
    with pytest.raises(LayoutError) as info:
        build_catalog(directory)
    return info.value.problems


def test_a_yes_no_column_names_the_value_and_what_yes_means(tmp_path: Path) -> None:
    # free_elective: only some catalogs have the column; rows without the cell keep the default.
    directory = tmp_path / "catalog"
    shutil.copytree(DEMO, directory)
    _edit(directory / "courses.csv", ",repeatable,grading\n", ",repeatable,grading,free_elective\n")
    _edit(directory / "courses.csv", "no,graded\n", "no,graded,perhaps\n")
    assert _problems(directory) == [
        "courses.csv:2 column 'free_elective': 'perhaps' is not yes or no - write yes if a "
        "planner may add the course to make up units (no for a practicum, internship or "
        "independent study), no or nothing otherwise"
    ]
    _edit(directory / "courses.csv", "no,graded,perhaps\n", "no,graded,no\n")
    built, _ = build_catalog(directory)
    assert [c.code for c in built.courses if not c.free_elective] == ["CS 101"]
