"""Small catalogs with a published schedule of classes, and one planning round through the
real stages (intake, requirements, scheduling, critique) on them, for the offering and
consent tests of issue 17."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agents import critique, requirements, scheduling
from agents.artifacts import Critique, IntakeResult, PlanRequest, Risk, Schedule
from agents.catalog import SEMESTER_CALENDAR, Catalog, use_catalog
from agents.intake import read_request
from agents.synthesis import collect_risks
from agents.toolbox import Toolbox
from tests.planner_strategies import DOCS, POLICY


def section(term: str, section_id: str = "A") -> dict[str, Any]:
    """A section meeting MWF 09:00-09:50 in ``term``."""
    return {
        "term": term,
        "id": section_id,
        "meetings": [{"days": "MWF", "start": "09:00", "end": "09:50"}],
    }


def published_catalog(
    courses: list[dict[str, Any]], programs: list[dict[str, Any]], published: list[str]
) -> Catalog:
    """Like ``tests.planner_strategies.catalog``, on the semester calendar with
    ``published`` as its published schedules of classes."""
    return Catalog.model_validate(
        {
            "schema_version": 2,
            "institution": {"name": "Test Institute"},
            "catalog_year": "2026-2027",
            "calendar": SEMESTER_CALENDAR.model_dump() | {"sections_published": published},
            "courses": courses,
            "programs": programs,
            "policies": [POLICY],
            "documents": DOCS,
        }
    )


@dataclass
class Round:
    """Round 1 of a request: its intake, schedule and critique, and the risks the
    recommendation would show (``synthesis.collect_risks``)."""

    intake: IntakeResult
    schedule: Schedule
    critique: Critique
    risks: list[Risk]

    @property
    def terms(self) -> list[tuple[str, list[str]]]:
        return [(t.term, [c.course for c in t.courses]) for t in self.schedule.terms]


def round_one(cat: Catalog, tmp: Path, programs: list[str], **request: Any) -> Round:
    """Plan a first-year student of ``programs`` (current term F2026, nothing on the record)
    with the request fields given, through the real stages on ``cat``."""
    raw = {
        "request_id": "r-17",
        "student": {
            "id": "s-17",
            "name": "Sam",
            "programs": programs,
            "catalog_year": "2026-2027",
            "start_term": "F2025",
            "current_term": "F2026",
            "courses": [],
        },
        **request,
    }
    with use_catalog(cat):
        tools = Toolbox(catalog=cat, index_dir=tmp / "index")
        intake = read_request(PlanRequest.model_validate(raw), tools)
        proposal = requirements.propose(intake, tools)
        schedule = scheduling.place(intake, proposal, None, 1, tools)
        review = critique.review(intake, schedule, tools)
        return Round(intake, schedule, review, collect_risks(schedule, review))
