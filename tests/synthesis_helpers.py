"""Shared fixture data for the synthesis tests: a small hand-built catalog (two programs,
five load/graduation rules, the policy text they cite), the student and intake builders, and
the hand-built schedule, critique and negotiation artifacts the synthesis agent consumes."""

from __future__ import annotations

from typing import Any

from agents.artifacts import (
    ConstraintChange,
    ConstraintSet,
    Critique,
    IntakeResult,
    NegotiationRound,
    NextTermSections,
    RequirementsProposal,
    Schedule,
    ScheduledCourse,
    ScheduledTerm,
    SectionPick,
    StudentProfile,
)
from agents.catalog import Catalog


def _course(code: str, title: str, units: int, **extra: Any) -> dict[str, Any]:
    return {
        "code": code,
        "title": title,
        "units": units,
        "department": code[:2],
        "level": int(code[3]) * 100,
        "offered": {"terms": ["fall", "spring"]},
        **extra,
    }


def _rule(rid: str, kind: str, limit: float, section: str, **extra: Any) -> dict[str, Any]:
    return {
        "id": rid,
        "title": extra.pop("title", rid.title()),
        "kind": kind,
        "limit": limit,
        "citation": {"document": "academic-policies", "section": section},
        **extra,
    }


COURSE_LOAD_TEXT = (
    "Students may enroll in at most 54 units in a fall or spring term. Registration above "
    "54 units is an overload."
)
OVERLOAD_TEXT = (
    "Students with a cumulative GPA of at least 3.0, in good standing and past their first "
    "year, may enroll in up to 63 units with the approval of their advisor."
)

RAW_CATALOG: dict[str, Any] = {
    "schema_version": 2,
    "institution": {"name": "Test Institute"},
    "catalog_year": "2026-2027",
    "courses": [
        _course("15-112", "Fundamentals of Programming", 12),
        _course("15-122", "Principles of Imperative Computation", 12),
        _course("15-213", "Introduction to Computer Systems", 12),
        _course("21-127", "Concepts of Mathematics", 12),
        _course("67-250", "The Value of Information", 9),
        _course("67-272", "Application Design and Development", 12),
        _course("70-311", "Organizational Behavior", 9),
    ],
    "programs": [
        {
            "code": "IS-BS",
            "name": "Information Systems, B.S.",
            "kind": "major",
            "catalog_year": "2026-2027",
            "department": "IS",
            "total_units": 360,
            "requirement": {
                "kind": "all_of",
                "id": "is-core",
                "title": "IS core",
                "children": [
                    {"kind": "course", "id": "c-250", "course": "67-250"},
                    {"kind": "course", "id": "c-272", "course": "67-272"},
                    {"kind": "course", "id": "c-311", "course": "70-311"},
                ],
            },
        },
        {
            "code": "CS-MIN",
            "name": "Computer Science minor",
            "kind": "minor",
            "aliases": ["CS minor"],
            "catalog_year": "2026-2027",
            "department": "CS",
            "document": "cs-minor",
            "requirement": {
                "kind": "all_of",
                "id": "cs-core",
                "title": "CS minor core",
                "children": [
                    {"kind": "course", "id": "m-112", "course": "15-112"},
                    {"kind": "course", "id": "m-122", "course": "15-122"},
                    {"kind": "course", "id": "m-213", "course": "15-213"},
                ],
            },
        },
    ],
    "policies": [
        _rule(
            "LOAD-MAX",
            "max_units_per_term",
            54,
            "course-load",
            title="Maximum load",
            summary="At most 54 units per term.",
        ),
        _rule(
            "LOAD-OVERLOAD",
            "overload",
            63,
            "overload",
            title="Overload",
            severity="soft",
            requires_approval="advisor",
            applies_when={
                "gpa_min": 3.0,
                "standing_in": ["sophomore", "junior", "senior"],
                "status_in": ["good"],
            },
            summary="Up to 63 units with advisor approval.",
        ),
        _rule(
            "PROB-MAX",
            "probation_max_units",
            45,
            "probation",
            title="Probation load",
            applies_when={"status_in": ["probation"]},
            summary="At most 45 units per term on probation.",
        ),
        _rule(
            "LOAD-MIN",
            "min_units_per_term",
            36,
            "full-time-status",
            title="Full-time status",
            severity="soft",
            summary="At least 36 units per term.",
        ),
        _rule(
            "GRAD-GPA",
            "min_gpa_graduation",
            2.0,
            "graduation",
            title="Graduation GPA",
            summary="A GPA of at least 2.0 to graduate.",
        ),
    ],
    "documents": [
        {
            "id": "academic-policies",
            "title": "Undergraduate Academic Policies",
            "kind": "policy",
            "sections": [
                {"id": "course-load", "heading": "Course load", "text": COURSE_LOAD_TEXT},
                {"id": "overload", "heading": "Overload", "text": OVERLOAD_TEXT},
                {
                    "id": "probation",
                    "heading": "Academic probation",
                    "text": "Students on probation may enroll in at most 45 units.",
                },
                {
                    "id": "full-time-status",
                    "heading": "Full-time status",
                    "text": "Full-time students enroll in at least 36 units.",
                },
                {
                    "id": "graduation",
                    "heading": "Graduation",
                    "text": "Graduation requires a cumulative GPA of at least 2.0.",
                },
            ],
        },
        {
            "id": "cs-minor",
            "title": "Computer Science minor",
            "kind": "program",
            "sections": [
                {
                    "id": "overview",
                    "heading": "The minor",
                    "text": "The CS minor asks for three core courses.",
                }
            ],
        },
    ],
}


def _profile(**over: Any) -> StudentProfile:
    base: dict[str, Any] = {
        "student_id": "overload-low-gpa",
        "name": "Dana Okafor",
        "declared_programs": ["IS-BS"],
        "class_standing": "sophomore",
        "units_earned": 120,
        "units_in_progress": 48,
        "gpa": 2.6,
        "academic_status": "good",
        "start_term": "F2025",
        "current_term": "F2026",
        "next_term": "S2027",
        "terms_completed": 2,
    }
    return StudentProfile(**{**base, **over})


def _intake(**over: Any) -> IntakeResult:
    base: dict[str, Any] = {
        "request_id": "add-cs-minor",
        "intent": "add_program",
        "intent_source": "structured",
        "profile": _profile(),
        "target_programs": ["IS-BS", "CS-MIN"],
        "added_programs": ["CS-MIN"],
        "parser": "structured",
    }
    return IntakeResult(**{**base, **over})


def _sc(catalog: Catalog, code: str, satisfies: str) -> ScheduledCourse:
    c = catalog.course(code)
    return ScheduledCourse(course=code, title=c.title, units=c.units, satisfies=[satisfies])


def _final_terms(catalog: Catalog) -> list[ScheduledTerm]:
    spring = [
        _sc(catalog, "15-122", "CS-MIN/m-122"),
        _sc(catalog, "21-127", "free elective"),
        _sc(catalog, "67-250", "IS-BS/c-250"),
        _sc(catalog, "67-272", "IS-BS/c-272"),
    ]
    fall = [_sc(catalog, "15-213", "CS-MIN/m-213"), _sc(catalog, "70-311", "IS-BS/c-311")]
    return [
        ScheduledTerm(term="S2027", label="Spring 2027", courses=spring, units=45),
        ScheduledTerm(term="F2027", label="Fall 2027", courses=fall, units=21),
    ]


NEXT_TERM = NextTermSections(
    term="S2027",
    status="ok",
    sections=[
        SectionPick(course="15-122", section="A", meetings=["MWF 10:00-10:50"]),
        SectionPick(course="21-127", section="B", meetings=["TR 09:30-10:50"]),
        SectionPick(course="67-250", section="A", meetings=["MW 12:00-13:20"]),
        SectionPick(course="67-272", section="A", meetings=["TR 13:30-14:50"]),
    ],
)

ROUND_1_CONSTRAINTS = ConstraintSet(max_units_per_term=66, target_term="S2027")
ROUND_2_CONSTRAINTS = ConstraintSet(max_units_per_term=54)
CHANGES = [
    ConstraintChange(
        field="max_units_per_term",
        before=66,
        after=54,
        reason="Cap every term at 54 units, the most LOAD-MAX allows with a GPA of 2.60.",
        rule_id="LOAD-MAX",
    ),
    ConstraintChange(
        field="target_term",
        before="S2027",
        after=None,
        reason="Drop the Spring 2027 target: it needs a 66-unit term.",
        rule_id="LOAD-MAX",
    ),
]
ROUNDS = [
    NegotiationRound(
        round=1,
        proposal="Graduate S2027 in 1 term, max 66 units/term (optimal)",
        graduation_term="S2027",
        solver_status="optimal",
        approval="rejected",
        violations=["LOAD-MAX (S2027): Spring 2027 has 66 units; the limit is 54 units."],
        revision=CHANGES,
        resolution="revised",
    ),
    NegotiationRound(
        round=2,
        proposal="Graduate F2027 in 2 terms, max 54 units/term (optimal)",
        graduation_term="F2027",
        solver_status="optimal",
        approval="approved",
        resolution="approved",
    ),
]


def _schedule(catalog: Catalog, **over: Any) -> Schedule:
    base: dict[str, Any] = {
        "status": "done",
        "round": 2,
        "constraints": ROUND_2_CONSTRAINTS,
        "solver_status": "optimal",
        "terms": _final_terms(catalog),
        "graduation_term": "F2027",
        "units_planned": 66,
        "next_term": NEXT_TERM,
    }
    return Schedule(**{**base, **over})


def _critique(**over: Any) -> Critique:
    base: dict[str, Any] = {
        "status": "done",
        "round": 2,
        "approval": "approved",
        "rules_checked": ["GRAD-GPA", "LOAD-MAX", "LOAD-MIN"],
        "explanation": "Approved.",
    }
    return Critique(**{**base, **over})


PROPOSAL = RequirementsProposal(status="done", remaining_units=66)
