"""A made-up small catalog with summer sessions: session I (weeks 1-5, at most 4 credits),
session II (weeks 6-10) and a 10-week session (weeks 1-10); a summer term capped at 12
credits across its sessions (SUMMER-MAX) and each session at 8 (SESSION-MAX, 4 on
probation); courses offered in one session, in some, or in every session."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from agents import critique, requirements, scheduling
from agents.artifacts import Critique, IntakeResult, PlanRequest, Schedule
from agents.catalog import Catalog, parse_catalog, use_catalog
from agents.intake import read_request
from agents.toolbox import Toolbox

SESSIONS = [
    {"code": "I", "name": "Session I", "first_week": 1, "last_week": 5, "max_units": 4},
    {"code": "II", "name": "Session II", "first_week": 6, "last_week": 10},
    {"code": "10W", "name": "10-week session", "first_week": 1, "last_week": 10},
]
CALENDAR = {
    "system": "semester",
    "academic_year_starts": "F",
    "terms": [
        {"code": "S", "name": "Spring", "months": [1, 2, 3, 4, 5]},
        {
            "code": "U",
            "name": "Summer",
            "regular": False,
            "months": [6, 7, 8],
            "typical_dates": {"start": "05-20", "weekday": "M", "weeks": 10},
            "sessions": SESSIONS,
        },
        {"code": "F", "name": "Fall", "months": [9, 10, 11, 12]},
    ],
}


def _course(code: str, terms: list[str], units: float = 4) -> dict[str, Any]:
    return {
        "code": code,
        "title": f"Course {code}",
        "units": units,
        "department": "Summer Studies",
        "level": 100,
        "offered": {"terms": terms},
    }


COURSES = [
    _course("SUM 101", ["summer:I"]),
    _course("SUM 102", ["summer:II"]),
    _course("SUM 103", ["summer"]),
    _course("SUM 104", ["summer:I"]),
    _course("SUM 201", ["summer:10W", "summer:II"]),
    _course("REG 101", ["fall", "spring"]),
]
POLICIES = [
    {
        "id": "SUMMER-MAX",
        "title": "Summer load",
        "kind": "max_units_per_term",
        "applies_when": {"term_kinds": ["U"]},
        "limit": 12,
        "citation": {"document": "pol", "section": "summer"},
        "summary": "At most 12 credits in a summer, across its sessions.",
    },
    {
        "id": "SESSION-MAX",
        "title": "Summer session load",
        "kind": "max_units_per_session",
        "applies_when": {"term_kinds": ["U"]},
        "limit": 8,
        "limit_table": [{"when": {"status_in": ["probation"]}, "limit": 4}],
        "citation": {"document": "pol", "section": "sessions"},
        "summary": "At most 8 credits in one summer session; 4 on probation.",
    },
]
DOCS = [
    {
        "id": "pol",
        "title": "Academic Policies",
        "kind": "policy",
        "sections": [
            {"id": "summer", "heading": "Summer", "text": "At most 12 credits in a summer."},
            {
                "id": "sessions",
                "heading": "Summer sessions",
                "text": "At most 8 credits in one summer session; 4 on probation.",
            },
        ],
    }
]


def program(*codes: str) -> dict[str, Any]:
    return {
        "code": "SUM-BA",
        "name": "Summer Studies",
        "kind": "major",
        "catalog_year": "2026-2027",
        "department": "Summer Studies",
        "requirement": {
            "kind": "all_of",
            "id": "core",
            "children": [{"kind": "course", "id": c.replace(" ", "-"), "course": c} for c in codes],
        },
    }


def session_raw(*required: str) -> dict[str, Any]:
    """The catalog as JSON, its program requiring ``required``."""
    return copy.deepcopy(
        {
            "schema_version": 3,
            "institution": {"name": "Session College", "unit_name": "credits"},
            "catalog_year": "2026-2027",
            "calendar": CALENDAR,
            "courses": COURSES,
            "programs": [program(*required)],
            "policies": POLICIES,
            "documents": DOCS,
        }
    )


def session_catalog(*required: str) -> Catalog:
    return parse_catalog(session_raw(*required))


def request(**update: Any) -> PlanRequest:
    raw: dict[str, Any] = {
        "request_id": "r-sessions",
        "student": {
            "id": "s-1",
            "name": "Sam",
            "programs": ["SUM-BA"],
            "catalog_year": "2026-2027",
            "start_term": "F2026",
            "current_term": "F2026",
            "courses": [],
        },
        "optional_kinds": ["U"],
    }
    return PlanRequest.model_validate(raw | update)


def round_one(cat: Catalog, tmp: Path, req: PlanRequest) -> tuple[IntakeResult, Schedule, Critique]:
    """Intake, requirements, scheduling and critique of round 1 on ``cat``."""
    with use_catalog(cat):
        tools = Toolbox(catalog=cat, index_dir=tmp / "index")
        intake = read_request(req, tools)
        proposal = requirements.propose(intake, tools)
        schedule = scheduling.place(intake, proposal, None, 1, tools)
        return intake, schedule, critique.review(intake, schedule, tools)
