"""Catalogs for the tests of loads as the student says them (#27 item 7), and round 1 of a
request on them through the stages.

- ``quarter_raw``: a quarter school counting units: 4-unit courses, and a few of 1 to 3
  units a student could fill a term's course count with; at most 20 units a quarter, up to
  24 with the dean's approval for students with a 3.0 GPA.
- ``counting_raw``: a semester school counting courses: 3-credit courses, at most 18
  credits (so a sixth course is within the credit limit) and five courses a term; more
  than five needs the dean's approval, and no one takes more than six.

Both have a major of required courses and free electives to make up its total, and a
sophomore (``student``) whose record carries the GPA the overload asks for, or not."""

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
from tests.calendar_helpers import QUARTER

DOC = "pol"


def _course(code: str, units: float, kinds: list[str]) -> dict[str, Any]:
    return {
        "code": code,
        "title": f"Course {code}",
        "units": units,
        "department": code[:2],
        "level": int(code.split()[1][0]) * 100,
        "offered": {"terms": kinds},
    }


def _section(section: str, heading: str, text: str) -> dict[str, str]:
    return {"id": section, "heading": heading, "text": text}


def _rule(rule_id: str, kind: str, limit: float, section: str, **more: Any) -> dict[str, Any]:
    return {
        "id": rule_id,
        "title": rule_id.replace("-", " ").title(),
        "kind": kind,
        "limit": limit,
        "citation": {"document": DOC, "section": section},
        **more,
    }


def _raw(
    *,
    name: str,
    unit_name: str,
    courses: list[dict[str, Any]],
    required: list[str],
    total: float,
    rules: list[dict[str, Any]],
    sections: list[dict[str, str]],
    thresholds: dict[str, float],
    calendar: dict[str, Any] | None = None,
) -> dict[str, Any]:
    major = {
        "code": "MAJ",
        "name": "Major",
        "kind": "major",
        "catalog_year": "2026-2027",
        "department": "AA",
        "total_units": total,
        "requirement": {
            "kind": "all_of",
            "id": "root",
            "children": [
                {"kind": "course", "id": f"r{i}", "course": c} for i, c in enumerate(required)
            ],
        },
    }
    out: dict[str, Any] = {
        "schema_version": 2,
        "institution": {"name": name, "unit_name": unit_name},
        "catalog_year": "2026-2027",
        "standing_thresholds": thresholds,
        "courses": courses,
        "programs": [major],
        "policies": rules,
        "documents": [{"id": DOC, "title": "Academic Policies", "kind": "policy",
                       "sections": sections}],
    }  # fmt: skip
    if calendar is not None:
        out["calendar"] = calendar
    return out


QUARTERS = ["fall", "winter", "spring"]
Q_REQUIRED = [f"AA {101 + i}" for i in range(9)]


def quarter_raw(*, overload: bool = True) -> dict[str, Any]:
    """The quarter school: nine required 4-unit AA courses, 4-unit BB electives, small CC
    ones (1 to 3 units), 180 units to graduate; 20 units a quarter, 24 with the dean's
    approval and a 3.0 GPA (without ``overload``: more than 20 with the dean's approval,
    said by the maximum itself); 12 for full time."""
    courses = [_course(c, 4.0, QUARTERS) for c in Q_REQUIRED]
    courses += [_course(f"BB {101 + i}", 4.0, QUARTERS) for i in range(40)]
    courses += [_course(f"CC {101 + i}", float(1 + i % 3), QUARTERS) for i in range(9)]
    rules = [
        _rule("UNIT-MAX", "max_units_per_term", 20, "load"),
        _rule("UNIT-OVERLOAD", "overload", 24, "overload", severity="soft",
              requires_approval="dean", applies_when={"gpa_min": 3.0}),
        _rule("UNIT-MIN", "min_units_per_term", 12, "full-time", severity="soft"),
    ]  # fmt: skip
    if not overload:
        rules = [rules[0] | {"severity": "soft", "requires_approval": "dean"}, rules[2]]
    sections = [
        _section("load", "Unit load", "At most 20 units a quarter without an overload."),
        _section("overload", "Overloads", "Students with a GPA of 3.0 or higher may take up "
                 "to 24 units in a quarter with the approval of the dean."),
        _section("full-time", "Full-time status", "Full time is at least 12 units."),
    ]  # fmt: skip
    return _raw(
        name="Quarter University",
        unit_name="units",
        courses=courses,
        required=Q_REQUIRED,
        total=180.0,
        rules=rules,
        sections=sections,
        thresholds={"sophomore": 45, "junior": 90, "senior": 135},
        calendar=QUARTER.model_dump(mode="json"),
    )


SEMESTERS = ["fall", "spring"]
S_REQUIRED = [f"AA {101 + i}" for i in range(8)]


def counting_raw() -> dict[str, Any]:
    """The semester school counting courses: eight required 3-credit AA courses, 3-credit
    BB electives, 120 credits to graduate; 18 credits a term, five courses, more with the
    dean's approval but never more than six."""
    courses = [_course(c, 3.0, SEMESTERS) for c in S_REQUIRED]
    courses += [_course(f"BB {101 + i}", 3.0, SEMESTERS) for i in range(40)]
    rules = [
        _rule("CREDIT-MAX", "max_units_per_term", 18, "load"),
        _rule("COURSE-MAX", "max_courses_per_term", 5, "courses", severity="soft",
              requires_approval="dean"),
        _rule("COURSE-CEILING", "max_courses_per_term", 6, "courses"),
    ]  # fmt: skip
    sections = [
        _section("load", "Credit load", "At most 18 credits a semester."),
        _section("courses", "Course load", "Students take at most five courses a semester; "
                 "a sixth course needs the dean's approval."),
    ]  # fmt: skip
    return _raw(
        name="Counting College",
        unit_name="credits",
        courses=courses,
        required=S_REQUIRED,
        total=120.0,
        rules=rules,
        sections=sections,
        thresholds={"sophomore": 24, "junior": 60, "senior": 90},
    )


def student(catalog: Catalog, grade: str = "A") -> StudentRecord:
    """A sophomore in MAJ with a year of BB electives (all ``grade``) behind them, in the
    fall of 2026: four a term in the quarters of 2025-26, five a term in its semesters."""
    quarters = catalog.calendar.system == "quarter"
    terms = ["F2025", "W2026", "S2026"] if quarters else ["F2025", "S2026"]
    per = 4 if quarters else 5
    earned = [c.code for c in catalog.courses if c.code.startswith("BB")][: per * len(terms)]
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
                {"course": c, "term": terms[i // per], "grade": grade} for i, c in enumerate(earned)
            ],
        }
    )


@dataclass
class RoundOne:
    intake: IntakeResult
    proposal: RequirementsProposal
    schedule: Schedule
    critique: Critique

    def term(self, code: str) -> tuple[int, float]:
        """(courses, units) planned in ``code``."""
        got = [t for t in self.schedule.terms if t.term == code]
        return (len(got[0].courses), got[0].units) if got else (0, 0.0)


def round_one(catalog: Catalog, who: StudentRecord, **fields: Any) -> RoundOne:
    """Intake, the requirements proposal and its schedule, and the critique."""
    with use_catalog(catalog), tempfile.TemporaryDirectory() as index:
        tools = Toolbox(catalog=catalog, index_dir=Path(index))
        request = PlanRequest(request_id="loads", student=who, **fields)
        intake = read_request(request, tools)
        proposal = requirements.propose(intake, tools)
        schedule = scheduling.place(intake, proposal, None, 1, tools)
        return RoundOne(intake, proposal, schedule, critique.review(intake, schedule, tools))
