"""Degree audit: allocating courses between requirements and programs on the mini catalog (see
tests/audit_helpers.py) - the sharing limit between the major and a minor, and a met n_of's
spare course moving to another requirement."""

from __future__ import annotations

from agents.audit import audit, unmet
from agents.catalog import Catalog
from tests.audit_helpers import NOT_NEEDED_LA, SHARING, catalog, cc, find, node, student

__all__ = ["catalog"]  # the module fixture, imported so pytest finds it here


MM_UPPER_WHY = (
    "1 of 2 courses counted; needs 1 more course, and no catalog course is left to count; "
    "21-241, 21-259 already count toward CS-BS, and at most 1 course may be shared with CS-BS "
    "(rule SHARE-MINOR), already used by 21-127"
)


def test_sharing_limit_keeps_a_second_shared_course_out_of_the_minor(catalog: Catalog) -> None:
    # The major takes 21-127, 21-241 (linear algebra) and 21-259 (its elective); 21-242 is
    # spare in the major's n_of, so the minor gets it unshared. Its second upper course could
    # only be shared, and the one shared course (21-127) is already used.
    report = audit(catalog, student(SHARING, ("CS-BS", "MATH-MIN")))
    major, minor = report.programs
    assert minor.model_dump(mode="json") == {
        "code": "MATH-MIN",
        "name": "Mathematics Minor",
        "kind": "minor",
        "catalog_year": "2026-2027",
        "what_if": False,
        "eligible": True,
        "eligibility_note": "",
        "status": "partly_met",
        "met_by_completed": False,
        "root": node(
            "math-min",
            "Mathematics minor",
            "all_of",
            "partly_met",
            False,
            "1 of 2 parts met; still open: Upper-level mathematics",
            need=1,
            units=10.0,
            children=[
                node(
                    "mm-127",
                    "Concepts of mathematics",
                    "course",
                    "met",
                    True,
                    "21-127 completed with B in F2025",
                    counted=[cc("21-127", "F2025", "B", 10.0)],
                ),
                node(
                    "mm-upper",
                    "Upper-level mathematics",
                    "course_set",
                    "partly_met",
                    False,
                    MM_UPPER_WHY,
                    counted=[cc("21-242", "F2026", "A", 10.0)],
                    need=1,
                    units=10.0,
                ),
            ],
        ),
        "checks": [
            node(
                "program-gpa",
                "Program GPA",
                "program_gpa",
                "met",
                True,
                "program GPA 3.50 meets the minimum 2.00",
            ),
        ],
        "total_units_required": None,
        "units_toward_total": None,
        "gpa": 3.5,
        "shared_courses": [
            {
                "course": "21-127",
                "term": "F2025",
                "with_program": "CS-BS",
                "requirement": "mm-127",
                "other_requirement": "math-127",
            }
        ],
        "sharing_notes": [
            "At most 1 course may count toward both MATH-MIN and CS-BS (rule SHARE-MINOR); "
            "shared: 21-127.",
            "Kept out of MATH-MIN by the limit with CS-BS: 21-241, 21-259 (already counted "
            "toward CS-BS).",
        ],
    }
    assert [s.course for s in major.shared_courses] == ["21-127"]
    assert find(major.root.model_dump(mode="json"), "math-elective")["counted"] == [
        cc("21-259", "S2026", "A", 10.0)
    ]
    assert ("MATH-MIN", "mm-upper", MM_UPPER_WHY) in unmet(report)


def test_spare_course_of_a_met_n_of_moves_to_another_requirement(catalog: Catalog) -> None:
    report = audit(catalog, student([("21-241", "S2026", "B"), ("21-242", "F2026", "A")]))
    root = report.programs[0].root.model_dump(mode="json")
    assert find(root, "linear-algebra") == node(
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
    )
    assert find(root, "math-elective") == node(
        "math-elective",
        "Math elective",
        "course_set",
        "met",
        True,
        "1 of 1 course counted",
        counted=[cc("21-242", "F2026", "A", 10.0)],
    )
