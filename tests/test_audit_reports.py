"""Degree audit: whole reports for hand-checked records against the mini catalog (see
tests/audit_helpers.py) - a mixed record as it stands, the same record completed by planned
courses, and how planned-input problems are reported."""

from __future__ import annotations

from typing import Any

import pytest

from agents.audit import audit, unmet
from agents.catalog import Catalog, reference_problems
from agents.errors import TermError
from tests.audit_helpers import MIXED, NOT_NEEDED_LA, catalog, cc, find, node, student

__all__ = ["catalog"]  # the module fixture, imported so pytest finds it here


ELECTIVES_WHY = (
    "0 of 2 courses counted (minimum grade C); needs 2 more courses from: 15-312, 15-317, "
    "15-351; 15-312 was taken pass/fail (P), which does not count toward a minimum grade of C; "
    "15-351 earned C-, below the minimum C"
)


def mixed_cs_bs() -> dict[str, Any]:
    core = node(
        "core",
        "Core courses",
        "all_of",
        "partly_met",
        False,
        "2 of 3 parts met; still open: Imperative computation",
        need=1,
        units=12.0,
        options=["15-122"],
        children=[
            node(
                "core-112",
                "Fundamentals",
                "course",
                "met",
                True,
                "15-112 counted from transfer credit (TR, F2025)",
                counted=[cc("15-112", "F2025", "TR", 12.0, source="transfer")],
            ),
            node(
                "core-122",
                "Imperative computation",
                "course",
                "unmet",
                False,
                "15-122 earned C-, below the minimum C",
                need=1,
                units=12.0,
                options=["15-122"],
            ),
            node(
                "core-150",
                "Functional programming",
                "course",
                "met",
                True,
                "15-150 completed with B in S2026",
                counted=[cc("15-150", "S2026", "B", 12.0, note="best attempt; also R in F2025")],
            ),
        ],
    )
    sys_theory = node(
        "sys-theory",
        "Systems or theory",
        "n_of",
        "met",
        True,
        "1 of 2 options met; 1 needed",
        children=[
            node(
                "sys-213",
                "",
                "course",
                "met",
                True,
                "15-213 completed with A in F2026",
                counted=[cc("15-213", "F2026", "A", 12.0)],
            ),
            node(
                "theory-251",
                "",
                "course",
                "unmet",
                False,
                "not needed: Systems or theory needs 1 and has 1 met",
            ),
        ],
    )
    electives = node(
        "cs-electives",
        "CS electives",
        "course_set",
        "unmet",
        False,
        ELECTIVES_WHY,
        need=2,
        units=24.0,
        options=["15-312", "15-317", "15-351"],
    )
    root = node(
        "cs-bs",
        "B.S. in Computer Science",
        "all_of",
        "partly_met",
        False,
        "5 of 7 parts met; still open: Core courses, CS electives",
        need=3,
        units=36.0,
        options=["15-122", "15-312", "15-317", "15-351"],
        children=[
            core,
            sys_theory,
            electives,
            node(
                "math-127",
                "Concepts of mathematics",
                "course",
                "met",
                False,
                "21-127 in progress in S2027, assumed passed",
                counted=[cc("21-127", "S2027", None, 10.0, status="in_progress")],
            ),
            node(
                "linear-algebra",
                "Linear algebra",
                "n_of",
                "met",
                True,
                "1 of 2 options met; 1 needed",
                children=[
                    node(
                        "la-241",
                        "",
                        "course",
                        "met",
                        True,
                        "21-241 completed with B in S2026",
                        counted=[cc("21-241", "S2026", "B", 10.0)],
                    ),
                    node("la-242", "", "course", "unmet", False, NOT_NEEDED_LA),
                ],
            ),
            node(
                "math-elective",
                "Math elective",
                "course_set",
                "met",
                True,
                "1 of 1 course counted",
                counted=[cc("21-242", "F2026", "A", 10.0)],
            ),
            node(
                "humanities",
                "Humanities",
                "course_set",
                "met",
                False,
                "18 of 18 units counted",
                counted=[
                    cc("79-104", "F2025", "P", 9.0),
                    cc("80-100", "S2027", None, 9.0, status="in_progress"),
                ],
            ),
        ],
    )
    return {
        "code": "CS-BS",
        "name": "Computer Science, B.S.",
        "kind": "major",
        "catalog_year": "2026-2027",
        "what_if": False,
        "eligible": True,
        "eligibility_note": "",
        "status": "partly_met",
        "met_by_completed": False,
        "root": root,
        "checks": [
            node(
                "total-units",
                "Total units",
                "total_units",
                "met",
                False,
                "120 units required; 132 counted (113 earned, 19 in progress, 0 planned)",
            ),
        ],
        "total_units_required": 120.0,
        "units_toward_total": 132.0,
        # B 15-150, A 15-213, B 21-241, A 21-242: (36 + 48 + 30 + 40) / 44; TR and P excluded.
        "gpa": 3.5,
        "shared_courses": [],
        "sharing_notes": [],
    }


def test_mini_catalog_fixture_resolves(catalog: Catalog) -> None:
    assert reference_problems(catalog) == []


def test_mixed_record_whole_report(catalog: Catalog) -> None:
    report = audit(catalog, student(MIXED))
    assert report.model_dump(mode="json") == {
        "student_id": "S-100",
        "catalog_year": "2026-2027",
        "as_of_term": "S2027",
        "class_standing": "sophomore",
        # Institution grades in the GPA, R included: 230.08 points / 92 units.
        "gpa": 2.88,
        # C- earns credit; R, and the P grades' GPA, do not matter for units.
        "units_earned": 113.0,
        "units_in_progress": 19.0,
        "units_planned": 0.0,
        "programs": [mixed_cs_bs()],
        "all_met": False,
        "all_met_by_completed": False,
        "warnings": [],
        "exceptions": [],
    }
    assert unmet(report) == [
        ("CS-BS", "core-122", "15-122 earned C-, below the minimum C"),
        ("CS-BS", "cs-electives", ELECTIVES_WHY),
    ]


def test_planned_courses_complete_the_audit(catalog: Catalog) -> None:
    plan = {"15-122": "F2027", "15-317": "Fall 2027", "15-351": "S2028", "15-390": "S2028"}
    report = audit(catalog, student(MIXED), planned=plan)

    expected = mixed_cs_bs()
    root = expected["root"]
    find(root, "core-122").update(
        status="met",
        courses_needed=0,
        units_needed=0.0,
        options=[],
        explanation="15-122 planned for F2027, assumed passed with at least C",
        counted=[
            cc("15-122", "F2027", None, 12.0, status="planned", note="retake; also C- in S2026")
        ],
    )
    find(root, "core").update(
        status="met",
        courses_needed=0,
        units_needed=0.0,
        options=[],
        explanation="all 3 parts met",
    )
    find(root, "cs-electives").update(
        status="met",
        courses_needed=0,
        units_needed=0.0,
        options=[],
        explanation="2 of 2 courses counted (minimum grade C); GPA not known yet "
        "(no completed graded course counted)",
        counted=[
            cc("15-317", "F2027", None, 12.0, status="planned"),
            cc("15-351", "S2028", None, 12.0, status="planned", note="retake; also C- in F2026"),
        ],
    )
    root.update(
        status="met",
        courses_needed=0,
        units_needed=0.0,
        options=[],
        explanation="all 7 parts met",
    )
    expected.update(status="met", units_toward_total=147.0)
    # Retakes of passed courses add no units; the repeatable seminar does: 12 + 3.
    expected["checks"][0]["explanation"] = (
        "120 units required; 147 counted (113 earned, 19 in progress, 15 planned)"
    )
    assert report.model_dump(mode="json") == {
        "student_id": "S-100",
        "catalog_year": "2026-2027",
        "as_of_term": "S2027",
        "class_standing": "sophomore",
        "gpa": 2.88,
        "units_earned": 113.0,
        "units_in_progress": 19.0,
        "units_planned": 15.0,
        "programs": [expected],
        "all_met": True,
        "all_met_by_completed": False,
        "warnings": [
            "planned course 15-122 (F2027) was already passed with C- in S2026; a retake earns "
            "no new units",
            "planned course 15-351 (S2028) was already passed with C- in F2026; a retake earns "
            "no new units",
        ],
        "exceptions": [],
    }
    assert unmet(report) == []


def test_planned_input_problems_are_warnings_and_unreadable_terms_raise(
    catalog: Catalog,
) -> None:
    report = audit(catalog, student([]), planned={"15-112": "S2026", "XX-101": "F2027"})
    assert report.warnings == [
        "planned course 15-112 is in S2026, not after the current term S2027",
        "planned course 'XX-101' is not in the catalog; ignored",
    ]
    assert report.units_planned == 12.0
    with pytest.raises(TermError, match="not a term: 'someday'"):
        audit(catalog, student([]), planned={"15-112": "someday"})
