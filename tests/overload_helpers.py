"""A small catalog of 1.0-credit courses with a load rule and an overload rule (4.0 credits a
term, 5.0 with an advisor's approval for sophomores and up with a 3.0 GPA), a sophomore on
it, and round 1 of a request through the stages - for the tests of honest infeasibility and
next-term overloads (issue #17)."""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import critique, requirements, scheduling
from agents.artifacts import Critique, IntakeResult, PlanRequest, RequirementsProposal, Schedule
from agents.catalog import Catalog, StudentRecord, use_catalog
from agents.intake import read_request
from agents.toolbox import Toolbox

REQUIRED = [f"AA {101 + i}" for i in range(8)]
FIVE = REQUIRED[:5]
POLICY_DOC = "pol"


def _course(code: str, hour: int | None) -> dict[str, Any]:
    out: dict[str, Any] = {
        "code": code,
        "title": f"Course {code}",
        "units": 1.0,
        "department": code[:2],
        "level": 100,
        "offered": {"terms": ["fall", "spring"]},
    }
    if hour is not None:  # one section next term (S2027), none clashing
        meeting = {"days": "MWF", "start": f"{hour:02d}:00", "end": f"{hour:02d}:50"}
        out["sections"] = [{"term": "S2027", "id": "A", "meetings": [meeting]}]
    return out


RULES: list[dict[str, Any]] = [
    {
        "id": "LOAD-MAX",
        "title": "Maximum course load",
        "kind": "max_units_per_term",
        "limit": 4.0,
        "citation": {"document": POLICY_DOC, "section": "course-load"},
    },
    {
        "id": "LOAD-OVERLOAD",
        "title": "Overload",
        "kind": "overload",
        "applies_when": {
            "gpa_min": 3.0,
            "standing_in": ["sophomore", "junior", "senior"],
            "status_in": ["good"],
        },
        "limit": 5.0,
        "severity": "soft",
        "requires_approval": "advisor",
        "citation": {"document": POLICY_DOC, "section": "overload"},
    },
]
DOCS: list[dict[str, Any]] = [
    {
        "id": POLICY_DOC,
        "title": "Academic Policies",
        "kind": "policy",
        "sections": [
            {
                "id": "course-load",
                "heading": "Course load",
                "text": "At most 4.0 credits a term without an approved overload.",
            },
            {
                "id": "overload",
                "heading": "Overloads",
                "text": "Sophomores and up in good standing with a GPA of 3.0 or higher may "
                "take up to 5.0 credits with their advisor's approval.",
            },
        ],
    }
]


def one_credit_raw() -> dict[str, Any]:
    """The catalog as JSON data: twelve 1.0-credit AA courses (eight required by MAJ, 16
    credits in all) with a section each in S2027, and eight BB courses the student has
    taken."""
    courses = [_course(f"AA {101 + i}", 8 + i) for i in range(12)]
    courses += [_course(f"BB {101 + i}", None) for i in range(8)]
    major = {
        "code": "MAJ",
        "name": "Major",
        "kind": "major",
        "catalog_year": "2026-2027",
        "department": "AA",
        "total_units": 16.0,
        "requirement": {
            "kind": "all_of",
            "id": "root",
            "children": [
                {"kind": "course", "id": f"r{i}", "course": c} for i, c in enumerate(REQUIRED)
            ],
        },
    }
    return {
        "schema_version": 2,
        "institution": {"name": "One Credit College", "unit_name": "credits"},
        "catalog_year": "2026-2027",
        "standing_thresholds": {"sophomore": 8, "junior": 16, "senior": 24},
        "courses": courses,
        "programs": [major],
        "policies": RULES,
        "documents": DOCS,
    }


def one_credit_catalog() -> Catalog:
    return Catalog.model_validate(one_credit_raw())


CATALOG = one_credit_catalog()


def sophomore(grade: str = "A", registered: list[str] | None = None) -> StudentRecord:
    """A sophomore in MAJ (eight BB credits, all ``grade``), current term F2026."""
    return StudentRecord.model_validate(
        {
            "id": "soph",
            "name": "Sam Soph",
            "programs": ["MAJ"],
            "catalog_year": "2026-2027",
            "start_term": "F2025",
            "current_term": "F2026",
            "academic_status": "good",
            "courses": [
                {"course": f"BB {101 + i}", "term": "F2025" if i < 4 else "S2026", "grade": grade}
                for i in range(8)
            ],
            "registered": [{"course": c, "term": "S2027"} for c in registered or []],
        }
    )


@dataclass
class RoundOne:
    intake: IntakeResult
    proposal: RequirementsProposal
    schedule: Schedule
    critique: Critique

    def courses(self, term: str) -> list[str]:
        return [c.course for t in self.schedule.terms if t.term == term for c in t.courses]


def round_one(student: StudentRecord, **fields: Any) -> RoundOne:
    """Intake, the requirements proposal and its schedule, and the critique, on CATALOG."""
    with use_catalog(CATALOG), tempfile.TemporaryDirectory() as index:
        tools = Toolbox(catalog=CATALOG, index_dir=Path(index))
        request = PlanRequest(request_id="r17", student=student, **fields)
        intake = read_request(request, tools)
        proposal = requirements.propose(intake, tools)
        schedule = scheduling.place(intake, proposal, None, 1, tools)
        return RoundOne(intake, proposal, schedule, critique.review(intake, schedule, tools))
