"""Degree audit: whole reports for hand-checked records against tests/fixtures/mini_catalog.json.

The mini catalog has one major (CS-BS: core courses with a minimum grade, an n_of, a pattern
course set with a minimum grade and GPA, an n_of whose spare course can move to a pattern
elective, an attribute set counted in units, 120 total units), a minor with a sharing limit
of 1 and a minimum GPA (MATH-MIN), a minor closed to CS-BS students (DS-MIN), a
concentration open only to CS-BS students (AI-CONC) and a repeatable seminar (15-390).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from agents.audit import SCHEMA_FILE, audit, audit_schema, render_audit, unmet
from agents.catalog import Catalog, StudentRecord, load_catalog, load_student, reference_problems
from agents.errors import TermError, UnknownProgramError

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
SCHEMA_PATH = ROOT / "agents" / "schemas" / SCHEMA_FILE


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
    }
    assert unmet(report) == [
        ("CS-BS", "core-122", "15-122 earned C-, below the minimum C"),
        ("CS-BS", "cs-electives", ELECTIVES_WHY),
    ]


def test_c_minus_is_below_a_c_minimum_and_c_meets_it(catalog: Catalog) -> None:
    low = find(
        audit(catalog, student([("15-122", "S2026", "C-")]))
        .programs[0]
        .root.model_dump(mode="json"),
        "core-122",
    )
    assert low == node(
        "core-122",
        "Imperative computation",
        "course",
        "unmet",
        False,
        "15-122 earned C-, below the minimum C",
        need=1,
        units=12.0,
        options=["15-122"],
    )
    ok = audit(catalog, student([("15-122", "S2026", "C")])).programs[0].root
    assert find(ok.model_dump(mode="json"), "core-122")["explanation"] == (
        "15-122 completed with C in S2026"
    )


def test_repeated_course_counts_only_the_best_attempt(catalog: Catalog) -> None:
    report = audit(catalog, student([("15-150", "F2025", "R"), ("15-150", "S2026", "B")]))
    assert find(report.programs[0].root.model_dump(mode="json"), "core-150") == node(
        "core-150",
        "Functional programming",
        "course",
        "met",
        True,
        "15-150 completed with B in S2026",
        counted=[cc("15-150", "S2026", "B", 12.0, note="best attempt; also R in F2025")],
    )
    assert report.units_earned == 12.0


def test_failed_course_earns_nothing_and_says_so(catalog: Catalog) -> None:
    report = audit(catalog, student([("15-150", "F2025", "F")]))
    assert find(report.programs[0].root.model_dump(mode="json"), "core-150") == node(
        "core-150",
        "Functional programming",
        "course",
        "unmet",
        False,
        "15-150 earned F in F2025, which earns no credit",
        need=1,
        units=12.0,
        options=["15-150"],
    )


def test_course_set_gpa_below_minimum_is_partly_met_and_best_grades_are_chosen(
    catalog: Catalog,
) -> None:
    low = audit(catalog, student([("15-312", "F2026", "C"), ("15-317", "F2026", "C")]))
    assert find(low.programs[0].root.model_dump(mode="json"), "cs-electives") == node(
        "cs-electives",
        "CS electives",
        "course_set",
        "partly_met",
        False,
        "2 of 2 courses counted (minimum grade C); GPA 2.00 over the counted courses is below "
        "the minimum 2.50",
        counted=[cc("15-312", "F2026", "C", 12.0), cc("15-317", "F2026", "C", 12.0)],
        options=["15-351"],
    )
    better = audit(
        catalog,
        student([("15-312", "F2026", "C"), ("15-317", "F2026", "C"), ("15-351", "S2026", "A")]),
    )
    assert find(better.programs[0].root.model_dump(mode="json"), "cs-electives") == node(
        "cs-electives",
        "CS electives",
        "course_set",
        "met",
        True,
        "2 of 2 courses counted (minimum grade C); GPA 3.00 meets the minimum 2.50",
        counted=[cc("15-351", "S2026", "A", 12.0), cc("15-312", "F2026", "C", 12.0)],
    )


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
    }
    assert unmet(report) == []


SHARING = [
    ("21-127", "F2025", "B"),
    ("21-241", "S2026", "B"),
    ("21-242", "F2026", "A"),
    ("21-259", "S2026", "A"),
]
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


def test_what_if_minors_are_audited_and_eligibility_is_reported(catalog: Catalog) -> None:
    record = student([("15-112", "F2025", "A"), ("36-200", "S2026", "B")])
    report = audit(catalog, record, add_programs=["DS-MIN", "MATH-MIN"])
    assert [p.code for p in report.programs] == ["CS-BS", "DS-MIN", "MATH-MIN"]
    major, ds, math = (p.model_dump(mode="json") for p in report.programs)
    assert ds == {
        "code": "DS-MIN",
        "name": "Data Science Minor",
        "kind": "minor",
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


def test_same_input_in_any_record_order_gives_the_same_report(catalog: Catalog) -> None:
    forward = audit(catalog, student(MIXED, ("CS-BS", "MATH-MIN")), planned={"15-317": "F2027"})
    backward = audit(
        catalog, student(MIXED[::-1], ("CS-BS", "MATH-MIN")), planned={"15-317": "F2027"}
    )
    assert forward == backward
    assert forward.model_dump_json() == backward.model_dump_json()


def test_published_schema_file_matches_the_models() -> None:
    text = SCHEMA_PATH.read_text(encoding="utf-8")
    assert json.loads(text) == audit_schema(), (
        "agents/schemas/audit.schema.json is stale; regenerate it with "
        "agents.audit.core.write_audit_schema(Path('agents/schemas'))"
    )
    assert text == json.dumps(audit_schema(), indent=2, sort_keys=True) + "\n"


def test_reports_validate_against_the_published_schema(catalog: Catalog) -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    report = audit(catalog, student(MIXED, ("CS-BS", "MATH-MIN")), add_programs=["DS-MIN"])
    jsonschema.validate(report.model_dump(mode="json"), schema)


RENDERED_SHARING = """\
Degree audit for S-100 (catalog 2026-2027, as of S2027)
Standing: first year | GPA: 3.50 | Units: 40 earned, 0 in progress, 0 planned
Result: requirements remain

CS-BS Computer Science, B.S. (major) [partly met]
  [partly met] B.S. in Computer Science (cs-bs): 3 of 7 parts met; still open: Core courses, \
Systems or theory, CS electives, Humanities
    [unmet] Core courses (core): 0 of 3 parts met; still open: Fundamentals, Imperative \
computation, Functional programming
      [unmet] Fundamentals (core-112): 15-112 not taken yet
          - needs 1 course, 12 units; options: 15-112
      [unmet] Imperative computation (core-122): 15-122 not taken yet (minimum grade C)
          - needs 1 course, 12 units; options: 15-122
      [unmet] Functional programming (core-150): 15-150 not taken yet
          - needs 1 course, 12 units; options: 15-150
    [unmet] Systems or theory (sys-theory): needs 1 more of: 15-213, 15-251
      [unmet] sys-213: 15-213 not taken yet
          - needs 1 course, 12 units; options: 15-213
      [unmet] theory-251: 15-251 not taken yet
          - needs 1 course, 12 units; options: 15-251
    [unmet] CS electives (cs-electives): 0 of 2 courses counted (minimum grade C); needs 2 \
more courses from: 15-312, 15-317, 15-351
        - needs 2 courses, 24 units; options: 15-312, 15-317, 15-351
    [met] Concepts of mathematics (math-127): 21-127 completed with B in F2025
        + 21-127 Concepts of Mathematics | B | F2025 | 10 units | completed
    [met] Linear algebra (linear-algebra): 1 of 2 options met; 1 needed
      [met] la-241: 21-241 completed with B in S2026
          + 21-241 Matrices and Linear Transformations | B | S2026 | 10 units | completed
      [unmet] la-242: not needed: Linear algebra needs 1 and has 1 met
    [met] Math elective (math-elective): 1 of 1 course counted
        + 21-259 Calculus in Three Dimensions | A | S2026 | 10 units | completed
    [unmet] Humanities (humanities): 0 of 18 units counted; needs 18 more units from: 79-104, \
80-100, 85-102
        - needs 18 units; options: 79-104, 80-100, 85-102
  [partly met] Total units (total-units): 120 units required; 40 counted (40 earned, 0 in \
progress, 0 planned); needs 80 more
      - needs 80 units
  Shared: 21-127 (F2025) counts toward math-127 here and mm-127 in MATH-MIN
  Sharing: At most 1 course may count toward both CS-BS and MATH-MIN (rule SHARE-MINOR); \
shared: 21-127.

MATH-MIN Mathematics Minor (minor) [partly met]
  [partly met] Mathematics minor (math-min): 1 of 2 parts met; still open: Upper-level \
mathematics
    [met] Concepts of mathematics (mm-127): 21-127 completed with B in F2025
        + 21-127 Concepts of Mathematics | B | F2025 | 10 units | completed
    [partly met] Upper-level mathematics (mm-upper): 1 of 2 courses counted; needs 1 more \
course, and no catalog course is left to count; 21-241, 21-259 already count toward CS-BS, and \
at most 1 course may be shared with CS-BS (rule SHARE-MINOR), already used by 21-127
        + 21-242 Matrix Theory | A | F2026 | 10 units | completed
        - needs 1 course, 10 units
  [met] Program GPA (program-gpa): program GPA 3.50 meets the minimum 2.00
  Shared: 21-127 (F2025) counts toward mm-127 here and math-127 in CS-BS
  Sharing: At most 1 course may count toward both MATH-MIN and CS-BS (rule SHARE-MINOR); \
shared: 21-127.
  Sharing: Kept out of MATH-MIN by the limit with CS-BS: 21-241, 21-259 (already counted \
toward CS-BS).
"""


def test_render_of_the_sharing_case_is_exact(catalog: Catalog) -> None:
    text = render_audit(audit(catalog, student(SHARING, ("CS-BS", "MATH-MIN"))))
    assert text == RENDERED_SHARING
    assert "\x1b" not in text


def test_render_shows_sources_notes_and_warnings(catalog: Catalog) -> None:
    report = audit(catalog, student(MIXED), planned={"15-122": "F2027"})
    text = render_audit(report)
    assert (
        "          + 15-112 Fundamentals of Programming | TR | F2025 | 12 units | completed, "
        "transfer credit\n" in text
    )
    assert (
        "          + 15-122 Principles of Imperative Computation | - | F2027 | 12 units | planned "
        "(retake; also C- in S2026)\n" in text
    )
    assert text.endswith(
        "\nWarnings:\n  - planned course 15-122 (F2027) was already passed with C- in S2026; a "
        "retake earns no new units\n"
    )


DEMO_CATALOG = ROOT / "agents" / "data" / "catalog.json"
DEMO_STUDENTS = sorted((ROOT / "demos" / "students").glob("*.json"))


@pytest.mark.skipif(
    not DEMO_CATALOG.exists() or not DEMO_STUDENTS,
    reason="the sample catalog and demo students are not there yet",
)
@pytest.mark.parametrize("path", DEMO_STUDENTS, ids=[p.stem for p in DEMO_STUDENTS])
def test_demo_students_audit_against_the_published_schema(path: Path) -> None:
    schema = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    catalog = load_catalog(DEMO_CATALOG)
    record = load_student(path)
    report = audit(catalog, record)
    jsonschema.validate(report.model_dump(mode="json"), schema)
    assert audit(catalog, record) == report


COURSE_POOL = [*sorted(TITLES), "15-251", "15-390", "76-101", "85-102"]
GRADE_POOL = ["A", "B", "C", "C-", "D", "F", "R", "P", "TR"]
TERM_POOL = ["F2025", "S2026", "F2026"]


def _walk(node: Any) -> Any:
    yield node
    for child in node.children:
        yield from _walk(child)


@settings(max_examples=150, deadline=None)
@given(
    taken=st.lists(
        st.tuples(
            st.sampled_from(COURSE_POOL),
            st.sampled_from(TERM_POOL),
            st.sampled_from(GRADE_POOL),
            st.booleans(),
        ),
        max_size=14,
    ),
    current=st.lists(st.sampled_from(COURSE_POOL), max_size=3, unique=True),
    plan=st.dictionaries(st.sampled_from(COURSE_POOL), st.sampled_from(["F2027", "S2028"])),
    minors=st.lists(st.sampled_from(["MATH-MIN", "DS-MIN", "AI-CONC"]), unique=True),
)
def test_audit_invariants_hold_for_any_record(
    catalog: Catalog,
    taken: list[tuple[str, str, str, bool]],
    current: list[str],
    plan: dict[str, str],
    minors: list[str],
) -> None:
    rows: list[tuple[Any, ...]] = [
        (c, t, g, {"source": "transfer"} if g == "TR" else {"pass_fail": pf and g == "P"})
        for c, t, g, pf in taken
    ]
    rows += [(c, "S2027", None, IN_PROGRESS) for c in current]
    record = student(rows, ("CS-BS", *minors))
    report = audit(catalog, record, planned=plan)
    assert audit(catalog, record, planned=plan) == report
    assert report.all_met == all(p.status == "met" for p in report.programs)
    counted_by: dict[str, set[str]] = {}
    for program in report.programs:
        codes = [
            c.course
            for n in _walk(program.root)
            for c in n.counted
            if not catalog.course_by_code[c.course].repeatable
        ]
        assert len(codes) == len(set(codes)), f"{program.code} counts a course twice: {codes}"
        counted_by[program.code] = set(codes)
        for n in _walk(program.root):
            if n.met_by_completed:
                assert n.status == "met", (program.code, n.id)
            if n.status == "met":
                assert n.courses_needed == 0 and n.units_needed == 0.0
    for shared in report.programs[1:]:
        overlap = counted_by["CS-BS"] & counted_by[shared.code]
        if shared.code == "MATH-MIN":
            assert len(overlap) <= 1
        assert sorted(overlap) == sorted(
            s.course for s in shared.shared_courses if s.with_program == "CS-BS"
        )
