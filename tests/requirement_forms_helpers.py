"""A small liberal-arts catalog for the requirement-form tests (tests/test_requirement_forms*.py):
1-credit courses in MATH, STAT, HIST and ENGL, a quarter-credit PE course, the institution's
general-education requirements (a distribution over three subjects with two caps, a writing
course, 8 credits in all) and a MATH major.

GEN-ED/dist: 4 courses in MATH, HIST or ENGL, from at least 3 subjects, at most 1 ENGL
course, at most 2 courses at level 199 or below.
"""

from __future__ import annotations

from typing import Any

from agents.catalog import Catalog, StudentRecord
from tests.planner_strategies import catalog, program, student

FS = ["fall", "spring"]

COURSES: list[tuple[str, int]] = [
    ("MATH 101", 100),
    ("MATH 102", 100),
    ("MATH 103", 100),
    ("MATH 201", 200),
    ("MATH 301", 300),
    ("STAT 201", 200),
    ("HIST 101", 100),
    ("HIST 201", 200),
    ("ENGL 101", 100),
    ("ENGL 102", 100),
]


def course(
    code: str,
    level: int = 100,
    *,
    units: float = 1.0,
    subject: str | None = None,
    attributes: list[str] | None = None,
    prereq: str | None = None,
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "code": code,
        "title": f"Course {code}",
        "units": units,
        "department": "Arts and Sciences",
        "level": level,
        "offered": {"terms": FS},
    }
    if subject is not None:
        out["subject"] = subject
    if attributes:
        out["attributes"] = attributes
    if prereq is not None:
        out["prerequisites"] = prereq
    return out


DIST: dict[str, Any] = {
    "kind": "course_set",
    "id": "dist",
    "title": "Distribution",
    "subjects": ["MATH", "HIST", "ENGL"],
    "min_courses": 4,
    "min_subjects": 3,
    "caps": [
        {"subjects": ["ENGL"], "max_courses": 1},
        {"max_level": 199, "max_courses": 2, "title": "introductory courses"},
    ],
}
WRITING: dict[str, Any] = {
    "kind": "course_set",
    "id": "writing",
    "attributes": ["writing"],
    "min_courses": 1,
}
MAJOR: dict[str, Any] = {
    "kind": "all_of",
    "id": "major",
    "children": [
        {"kind": "course", "id": "intro", "course": "MATH 101"},
        {
            "kind": "course_set",
            "id": "upper",
            "subjects": ["MATH"],
            "min_level": 200,
            "min_courses": 2,
        },
    ],
}


def courses() -> list[dict[str, Any]]:
    out = [course(code, level) for code, level in COURSES]
    out[COURSES.index(("ENGL 101", 100))]["attributes"] = ["writing"]
    out.append(course("PE 101", units=0.25))
    return out


def gen_ed(**extra: Any) -> dict[str, Any]:
    req = {"kind": "all_of", "id": "gen-ed", "children": [DIST, WRITING]}
    return {**program("GEN-ED", req, kind="institution", total=8), **extra}


def liberal_arts(*more: dict[str, Any]) -> Catalog:
    """The catalog: its courses, GEN-ED, MATH-BA and ``more`` programs."""
    return catalog(courses(), [gen_ed(), program("MATH-BA", MAJOR), *more])


def record(done: list[str], programs: tuple[str, ...] = ("MATH-BA",)) -> StudentRecord:
    """A student with ``done`` completed (grade A, F2025), current term F2026."""
    rows = [{"course": c, "term": "F2025", "grade": "A"} for c in done]
    return student(list(programs), rows)


def dumped(node: Any) -> dict[str, Any]:
    """A RequirementAudit as a dict, counted courses as (code, status) pairs."""
    out: dict[str, Any] = node.model_dump()
    out["counted"] = [(c["course"], c["status"]) for c in out["counted"]]
    return out
