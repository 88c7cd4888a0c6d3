"""Degree audit: what-if programs on the mini catalog (see tests/audit_helpers.py) - added
minors and concentrations are audited with their eligibility, and unknown programs are
rejected."""

from __future__ import annotations

import pytest

from agents.audit import audit
from agents.catalog import Catalog
from agents.errors import UnknownProgramError
from tests.audit_helpers import catalog, cc, node, student

__all__ = ["catalog"]  # the module fixture, imported so pytest finds it here


def test_what_if_minors_are_audited_and_eligibility_is_reported(catalog: Catalog) -> None:
    record = student([("15-112", "F2025", "A"), ("36-200", "S2026", "B")])
    report = audit(catalog, record, add_programs=["DS-MIN", "MATH-MIN"])
    assert [p.code for p in report.programs] == ["CS-BS", "DS-MIN", "MATH-MIN"]
    major, ds, math = (p.model_dump(mode="json") for p in report.programs)
    assert ds == {
        "code": "DS-MIN",
        "name": "Data Science Minor",
        "kind": "minor",
        "catalog_year": "2026-2027",
        "what_if": True,
        "eligible": False,
        "eligibility_note": "DS-MIN is not open to students in CS-BS",
        "status": "met",
        "met_by_completed": True,
        "root": node(
            "ds-min",
            "Data science minor",
            "all_of",
            "met",
            True,
            "all 2 parts met",
            children=[
                node(
                    "ds-200",
                    "Reasoning with data",
                    "course",
                    "met",
                    True,
                    "36-200 completed with B in S2026",
                    counted=[cc("36-200", "S2026", "B", 9.0)],
                ),
                node(
                    "ds-112",
                    "Programming",
                    "course",
                    "met",
                    True,
                    "15-112 completed with A in F2025",
                    counted=[cc("15-112", "F2025", "A", 12.0)],
                ),
            ],
        ),
        "checks": [],
        "total_units_required": None,
        "units_toward_total": None,
        "gpa": 3.57,  # (27 + 48) / 21
        "shared_courses": [
            {
                "course": "15-112",
                "term": "F2025",
                "with_program": "CS-BS",
                "requirement": "ds-112",
                "other_requirement": "core-112",
            }
        ],
        "sharing_notes": ["Shared with CS-BS (no sharing limit): 15-112."],
    }
    assert math == {
        "code": "MATH-MIN",
        "name": "Mathematics Minor",
        "kind": "minor",
        "catalog_year": "2026-2027",
        "what_if": True,
        "eligible": True,
        "eligibility_note": "",
        "status": "unmet",
        "met_by_completed": False,
        "root": node(
            "math-min",
            "Mathematics minor",
            "all_of",
            "unmet",
            False,
            "0 of 2 parts met; still open: Concepts of mathematics, Upper-level mathematics",
            need=3,
            units=30.0,
            options=["21-127", "21-241", "21-242", "21-259"],
            children=[
                node(
                    "mm-127",
                    "Concepts of mathematics",
                    "course",
                    "unmet",
                    False,
                    "21-127 not taken yet",
                    need=1,
                    units=10.0,
                    options=["21-127"],
                ),
                node(
                    "mm-upper",
                    "Upper-level mathematics",
                    "course_set",
                    "unmet",
                    False,
                    "0 of 2 courses counted; needs 2 more courses from: 21-241, 21-242, 21-259",
                    need=2,
                    units=20.0,
                    options=["21-241", "21-242", "21-259"],
                ),
            ],
        ),
        "checks": [
            node(
                "program-gpa",
                "Program GPA",
                "program_gpa",
                "unmet",
                False,
                "no completed graded course counted yet; minimum program GPA 2.00",
            ),
        ],
        "total_units_required": None,
        "units_toward_total": None,
        "gpa": None,
        "shared_courses": [],
        "sharing_notes": [
            "At most 1 course may count toward both MATH-MIN and CS-BS (rule SHARE-MINOR); "
            "shared: none."
        ],
    }
    assert major["what_if"] is False
    assert major["sharing_notes"] == [
        "Shared with DS-MIN (no sharing limit): 15-112.",
        "At most 1 course may count toward both CS-BS and MATH-MIN (rule SHARE-MINOR); "
        "shared: none.",
    ]


def test_concentration_open_only_to_listed_majors(catalog: Catalog) -> None:
    report = audit(catalog, student([], ("MATH-MIN",)), add_programs=["AI-CONC"])
    conc = report.programs[1]
    assert (conc.what_if, conc.eligible, conc.eligibility_note) == (
        True,
        False,
        "AI-CONC is open only to students in CS-BS; the student's majors: none",
    )
    with_major = audit(catalog, student([]), add_programs=["AI-CONC"]).programs[1]
    assert (with_major.eligible, with_major.eligibility_note) == (True, "")


def test_unknown_program_raises_with_the_known_codes(catalog: Catalog) -> None:
    with pytest.raises(UnknownProgramError) as info:
        audit(catalog, student([]), add_programs=["ROBO-MIN"])
    assert str(info.value) == (
        "unknown program 'ROBO-MIN'; the catalog has: AI-CONC, CS-BS, DS-MIN, MATH-MIN"
    )
