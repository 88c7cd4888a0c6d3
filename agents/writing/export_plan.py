"""What every plan export reads of a finished request: the planned courses term by term, and
the weekly meetings of the sections picked for the next term.

The recommendation is the truth about the plan: its terms, courses, units and what each
counts toward (by id and by title: ``Recommendation.requirement_titles``), and the meeting
times of each section picked (``SectionPick.meetings``, e.g. 'MWF 09:00-09:50'). The catalog
adds what the recommendation does not keep: each meeting's location (when the catalog's
section still meets at that time) and when terms run (the calendar's dates, used by the
calendar export). A request whose target was infeasible exports the counter-proposal it was
offered instead.
"""

from __future__ import annotations

import re
from collections.abc import Collection
from dataclasses import dataclass
from typing import Literal

from agents.artifacts import Recommendation, ScheduledTerm
from agents.audit import requirement_names
from agents.catalog import Catalog, Meeting
from agents.errors import ExportError

Status = Literal["registered", "planned"]

_MEETING_RE = re.compile(r"^([MTWRFSU]+) ([0-2][0-9]:[0-5][0-9])-([0-2][0-9]:[0-5][0-9])$")


@dataclass(frozen=True)
class MeetingTime:
    """One weekly meeting of a picked section."""

    days: str
    start: str
    end: str
    location: str | None


@dataclass(frozen=True)
class PlannedCourse:
    """One course of the plan, with its section and meetings when it is in the next term."""

    term: str
    term_name: str
    course: str
    title: str
    units: float
    counts_toward: tuple[str, ...]
    """Requirement ids ('IS-BS/is-electives'), as the recommendation's JSON has them."""
    counts_toward_titles: tuple[str, ...]
    """The same requirements by title, in the same order: what a person reads."""
    status: Status
    section: str | None
    meetings: tuple[MeetingTime, ...]


@dataclass(frozen=True)
class PlanExport:
    """The plan an export writes: the courses in plan order and which plan it is."""

    courses: tuple[PlannedCourse, ...]
    terms: tuple[ScheduledTerm, ...]
    next_term: str | None
    counter_proposal: bool

    def in_term(self, term: str) -> list[PlannedCourse]:
        return [c for c in self.courses if c.term == term]


def plan_terms(rec: Recommendation) -> tuple[list[ScheduledTerm], bool]:
    """The terms to export and whether they are the counter-proposal (the plan offered when
    the requested target is infeasible); raises ``ExportError`` when there is no plan."""
    if any(t.courses for t in rec.plan):
        return list(rec.plan), False
    if rec.counter_proposal is not None and any(t.courses for t in rec.counter_proposal.terms):
        return list(rec.counter_proposal.terms), True
    raise ExportError(
        f"request {rec.request_id!r} has no planned courses to export (intent "
        f"{rec.intent!r}, outcome {rec.outcome!r}); its report has the answer - export it "
        "with --format pdf"
    )


def plan_export(
    rec: Recommendation, catalog: Catalog, registered: Collection[tuple[str, str]] = ()
) -> PlanExport:
    """The plan of ``rec`` as export rows; ``registered`` holds the (course, term) pairs
    the student is already registered for (the request's ``student.registered``)."""
    terms, counter = plan_terms(rec)
    picks = {}
    next_term = None
    if rec.next_term is not None and not counter:
        next_term = rec.next_term.term
        picks = {p.course: p for p in rec.next_term.sections}
    courses = []
    for t in terms:
        for c in t.courses:
            pick = picks.get(c.course) if t.term == next_term else None
            courses.append(
                PlannedCourse(
                    term=t.term,
                    term_name=t.label,
                    course=c.course,
                    title=c.title,
                    units=c.units,
                    counts_toward=tuple(c.satisfies),
                    counts_toward_titles=tuple(
                        requirement_names(c.satisfies, rec.requirement_titles)
                    ),
                    status="registered" if (c.course, t.term) in registered else "planned",
                    section=pick.section if pick else None,
                    meetings=_meetings(catalog, t.term, c.course, pick.section, pick.meetings)
                    if pick
                    else (),
                )
            )
    return PlanExport(tuple(courses), tuple(terms), next_term, counter)


def _meetings(
    catalog: Catalog, term: str, course: str, section: str, texts: list[str]
) -> tuple[MeetingTime, ...]:
    """The picked section's meetings as the recommendation gives them, each with the
    location of the catalog meeting at the same days and times (None when the catalog no
    longer has it: the plan's times are kept, not silently replaced)."""
    known: list[Meeting] = []
    found = catalog.course_by_code.get(course)
    if found is not None:
        known = next((s.meetings for s in found.sections_in(term) if s.id == section), [])
    out = []
    for text in texts:
        for part in text.split(", "):
            m = _MEETING_RE.match(part)
            if m is None:  # 'no meetings': an arranged or online section
                continue
            days, start, end = m.groups()
            where = next(
                (k.location for k in known if (k.days, k.start, k.end) == (days, start, end)),
                None,
            )
            out.append(MeetingTime(days, start, end, where))
    return tuple(out)


def units_text(value: float) -> str:
    """9.0 -> '9', 0.5 -> '0.5': units as the catalog's files write them."""
    return str(int(value)) if value == int(value) else repr(value)
