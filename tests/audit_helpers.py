"""Shared setup for the degree-audit tests (tests/test_audit_*.py): the mini-catalog fixture,
a record builder, builders for the expected report nodes, and the hand-checked records.

The fixture is tests/fixtures/mini_catalog.json. It has one major (CS-BS: core courses with a
minimum grade, an n_of, a pattern course set with a minimum grade and GPA, an n_of whose spare
course can move to a pattern elective, an attribute set counted in units, 120 total units), a
minor with a sharing limit of 1 and a minimum GPA (MATH-MIN), a minor closed to CS-BS students
(DS-MIN), a concentration open only to CS-BS students (AI-CONC) and a repeatable seminar
(15-390).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agents.catalog import Catalog, StudentRecord

FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.fixture(scope="module")
def catalog() -> Catalog:
    return Catalog.model_validate(json.loads((FIXTURES / "mini_catalog.json").read_text()))


def student(
    courses: list[tuple[Any, ...]], programs: tuple[str, ...] = ("CS-BS",)
) -> StudentRecord:
    """A record from (course, term, grade[, extra fields]) tuples; current term S2027."""
    rows = []
    for course, term, grade, *extra in courses:
        rows.append({"course": course, "term": term, "grade": grade, **(extra[0] if extra else {})})
    return StudentRecord.model_validate(
        {
            "id": "S-100",
            "name": "Ada",
            "programs": list(programs),
            "catalog_year": "2026-2027",
            "start_term": "F2025",
            "current_term": "S2027",
            "courses": rows,
        }
    )


TRANSFER = {"source": "transfer"}


PASS_FAIL = {"pass_fail": True}


IN_PROGRESS = {"status": "in_progress"}


TITLES = {
    "15-112": "Fundamentals of Programming",
    "15-122": "Principles of Imperative Computation",
    "15-150": "Functional Programming",
    "15-213": "Computer Systems",
    "15-312": "Programming Languages",
    "15-317": "Constructive Logic",
    "15-351": "Algorithms and Data Structures",
    "21-127": "Concepts of Mathematics",
    "21-241": "Matrices and Linear Transformations",
    "21-242": "Matrix Theory",
    "21-259": "Calculus in Three Dimensions",
    "36-200": "Reasoning with Data",
    "79-104": "Global Histories",
    "80-100": "Introduction to Philosophy",
}


def cc(
    course: str,
    term: str,
    grade: str | None,
    units: float,
    status: str = "completed",
    source: str = "institution",
    note: str = "",
) -> dict[str, Any]:
    return {
        "course": course,
        "title": TITLES[course],
        "term": term,
        "grade": grade,
        "units": units,
        "status": status,
        "source": source,
        "note": note,
    }


def node(
    id_: str,
    title: str,
    kind: str,
    status: str,
    mbc: bool,
    why: str,
    *,
    counted: list[dict[str, Any]] | None = None,
    need: int = 0,
    units: float = 0.0,
    options: list[str] | None = None,
    children: list[dict[str, Any]] | None = None,
) -> dict[str, Any]:
    return {
        "id": id_,
        "title": title,
        "kind": kind,
        "status": status,
        "met_by_completed": mbc,
        "counted": counted or [],
        "courses_needed": need,
        "units_needed": units,
        "options": options or [],
        "children": children or [],
        "explanation": why,
    }


def find(tree: dict[str, Any], id_: str) -> dict[str, Any]:
    if tree["id"] == id_:
        return tree
    for child in tree["children"]:
        try:
            return find(child, id_)
        except KeyError:
            pass
    raise KeyError(id_)


NOT_NEEDED_LA = "not needed: Linear algebra needs 1 and has 1 met"


# A record with transfer credit, a C- under a C minimum, a repeat (R then B), pass/fail
# grades, an n_of with a spare course, and two courses in progress.
MIXED = [
    ("15-112", "F2025", "TR", TRANSFER),
    ("15-122", "S2026", "C-"),
    ("15-150", "F2025", "R"),
    ("15-150", "S2026", "B"),
    ("79-104", "F2025", "P", PASS_FAIL),
    ("15-312", "F2026", "P", PASS_FAIL),
    ("15-351", "F2026", "C-"),
    ("21-241", "S2026", "B"),
    ("21-242", "F2026", "A"),
    ("15-213", "F2026", "A"),
    ("15-251", "F2026", "B"),
    ("21-127", "S2027", None, IN_PROGRESS),
    ("80-100", "S2027", None, IN_PROGRESS),
]


SHARING = [
    ("21-127", "F2025", "B"),
    ("21-241", "S2026", "B"),
    ("21-242", "F2026", "A"),
    ("21-259", "S2026", "A"),
]
