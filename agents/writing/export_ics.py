"""The plan as an iCalendar file (RFC 5545) a student imports into any calendar, written
with the ``icalendar`` library (properties, text escaping, line folding, time zones).

What it holds:

- for the next term, one weekly event series per meeting of each section picked: the
  first occurrence on the first meeting day on or after the term's first day that is not a
  holiday, repeating ``RRULE:FREQ=WEEKLY;BYDAY=...;UNTIL=<the term's last day>``, with the
  section, units, what the course counts toward and the location when the catalog knows it;
  every day of the catalog's ``calendar.holidays`` on which the series would meet is an
  ``EXDATE`` of it;
- for every other planned term (and the next term when a course of it has no weekly
  series: no section, or a section without meetings), one all-day event spanning the term
  that lists its planned courses, marked free (``TRANSP:TRANSPARENT``) so it does not
  block a day in a calendar.

Term dates come from the catalog calendar (``Calendar.span``: published ``dates``, else the
kind's ``typical_dates``); a term with neither is an ``ExportError`` naming the field to
add. Class times are the campus's wall-clock times: when the catalog names its time zone
(``calendar.timezone``, an IANA name) they are written with ``TZID`` and the file carries
the zone's ``VTIMEZONE`` (built from the tz database for the plan's years), so a student
away from campus sees them at the right hour; without it they are floating local times
(no ``TZID``), which every calendar shows at the written hour wherever it is. The file has
no ``METHOD``, so each ``DTSTAMP`` is when the plan was last revised: the caller passes the
time the request finished, and the same plan gives the same bytes. UIDs are built from the
request, term, course, section and meeting, so a re-export keeps them.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from collections.abc import Collection, Sequence

from icalendar import Calendar as ICalendar
from icalendar import Event, vRecur, vText

from agents.artifacts import Recommendation
from agents.catalog import Calendar, Catalog, Holiday, Term, TermSpan, credit_sum, singular
from agents.errors import ExportError
from agents.writing.export_plan import PlanExport, PlannedCourse, plan_export, units_text

PRODID = "-//Advising Pipeline//advise export//EN"
BYDAY = {"M": "MO", "T": "TU", "W": "WE", "R": "TH", "F": "FR", "S": "SA", "U": "SU"}
_WEEKDAY = {code: i for i, code in enumerate("MTWRFSU")}  # date.weekday() numbers


def plan_ics(
    rec: Recommendation,
    catalog: Catalog,
    *,
    stamp: dt.datetime,
    registered: Collection[tuple[str, str]] = (),
) -> str:
    """The iCalendar text of the plan of ``rec``; ``stamp`` (aware) is when the plan was
    last revised. Raises ``ExportError`` when a planned term has no dates."""
    plan = plan_export(rec, catalog, registered)
    spans = _spans(plan, catalog.calendar)
    zone = zoneinfo.ZoneInfo(catalog.calendar.timezone) if catalog.calendar.timezone else None
    host = _slug(catalog.institution.name).lower() or "advise"
    unit = catalog.institution.unit_name
    cal = ICalendar()
    cal.add("prodid", PRODID)
    cal.add("version", "2.0")
    cal.add("calscale", "GREGORIAN")
    cal.add("x-wr-calname", vText(f"{rec.student_name}: plan ({rec.request_id})"))
    if zone is not None:
        cal.add("x-wr-timezone", zone.key)
    revised = stamp.astimezone(dt.UTC).replace(microsecond=0)
    for term in plan.terms:
        courses = plan.in_term(term.term)
        if not courses:
            continue
        span = spans[term.term]
        series = [
            _series(rec.request_id, host, unit, c, span, zone, catalog.calendar.holidays)
            for c in courses
        ]
        events = [e for s in series for e in s]
        if term.term != plan.next_term or not all(series):
            # Later terms, and a next term with a course no weekly series shows.
            events.append(_term_event(rec.request_id, host, unit, term.label, courses, span))
        for event in events:
            event.add("dtstamp", revised)
            cal.add_component(event)
    if zone is not None:
        years = [s.start.year for s in spans.values()] + [s.end.year for s in spans.values()]
        cal.add_missing_timezones(dt.date(min(years), 1, 1), dt.date(max(years) + 1, 1, 1))
    return cal.to_ical().decode("utf-8")


def _spans(plan: PlanExport, calendar: Calendar) -> dict[str, TermSpan]:
    """Every planned term's dates, or an ``ExportError`` naming each term without any and
    the catalog fields that would give them."""
    spans: dict[str, TermSpan] = {}
    missing: list[Term] = []
    for t in plan.terms:
        if not plan.in_term(t.term):
            continue
        term = calendar.parse(t.term)
        span = calendar.span(term)
        if span is None:
            missing.append(term)
        else:
            spans[t.term] = span
    if missing:
        named = ", ".join(f"{t.code} ({t.label()})" for t in missing)
        kinds = sorted({calendar.position[t.kind] for t in missing})
        fields = ", ".join(f"calendar.terms[{i}].typical_dates" for i in kinds)
        terms = "term" if len(missing) == 1 else "terms"
        raise ExportError(
            f"the catalog calendar has no dates for {terms} {named}, which the plan uses; add "
            f"each to calendar.dates as {{term: {missing[0].code}, start: YYYY-MM-DD, end: "
            f"YYYY-MM-DD}}, or give {fields} as {{start: MM-DD, weekday: M, weeks: 15}} "
            "(see 'calendar' in docs/catalog-guide.md)"
        )
    return spans


def _series(
    rid: str,
    host: str,
    unit: str,
    c: PlannedCourse,
    span: TermSpan,
    zone: zoneinfo.ZoneInfo | None,
    holidays: Sequence[Holiday],
) -> list[Event]:
    """One weekly series per meeting of ``c``'s section, within ``span``, without the
    holidays it would meet on; times in ``zone`` (floating when None)."""
    off = {d for h in holidays for d in h.days() if span.start <= d <= span.end}
    out = []
    for i, m in enumerate(c.meetings, start=1):
        meets = [d for d in _meeting_days(span, m.days) if d not in off]
        if not meets:
            continue  # a term shorter than a week, or all holidays, that misses these days
        begin, finish = _clock(m.start), _clock(m.end)
        event = Event()
        event.add("uid", f"{_uid(rid, c.term, c.course, c.section or '', str(i))}@{host}")
        event.add("dtstart", dt.datetime.combine(meets[0], begin, zone))
        event.add("dtend", dt.datetime.combine(meets[0], finish, zone))
        until = dt.datetime.combine(span.end, dt.time(23, 59, 59), zone)
        # RFC 5545 3.3.10: with a TZID start, UNTIL is in UTC; floating with a floating one.
        rule: dict[str, object] = {"FREQ": "WEEKLY", "BYDAY": [BYDAY[d] for d in m.days]}
        rule["UNTIL"] = until.astimezone(dt.UTC) if zone is not None else until
        event.add("rrule", vRecur(rule))
        skipped = sorted(d for d in off if meets[0] < d and "MTWRFSU"[d.weekday()] in m.days)
        if skipped:
            event.add("exdate", [dt.datetime.combine(d, begin, zone) for d in skipped])
        event.add("summary", f"{c.course} {c.title}")
        if m.location:
            event.add("location", m.location)
        event.add("description", f"{c.term_name}, section {c.section}\n{_about(c, unit)}")
        out.append(event)
    return out


def _meeting_days(span: TermSpan, days: str) -> list[dt.date]:
    """Every day of ``span`` on one of ``days`` ('MWF'), first to last."""
    first = first_meeting_day(span.start, days)
    count = (span.end - first).days + 1
    every = (first + dt.timedelta(days=n) for n in range(max(count, 0)))
    return [d for d in every if "MTWRFSU"[d.weekday()] in days]


def _clock(text: str) -> dt.time:
    hour, minute = text.split(":")
    return dt.time(int(hour), int(minute))


def _term_event(
    rid: str, host: str, unit: str, label: str, courses: list[PlannedCourse], span: TermSpan
) -> Event:
    """One all-day event over the term, listing its planned courses."""
    units = _amount(credit_sum(c.units for c in courses), unit)
    noun = "course" if len(courses) == 1 else "courses"
    event = Event()
    event.add("uid", f"{_uid(rid, courses[0].term, 'plan')}@{host}")
    event.add("dtstart", span.start)
    event.add("dtend", span.end + dt.timedelta(days=1))  # DTEND is exclusive
    event.add("summary", f"{label}: {len(courses)} planned {noun}, {units}")
    event.add("description", "\n".join(_about(c, unit) for c in courses))
    event.add("transp", "TRANSPARENT")
    return event


def _about(c: PlannedCourse, unit: str) -> str:
    """'15-213 Introduction to Computer Systems - 12 units - counts toward CS-BS/15-213',
    with ' - registered' for a course the student is registered for."""
    parts = [f"{c.course} {c.title}", _amount(c.units, unit)]
    if c.counts_toward_titles:
        parts.append(f"counts toward {'; '.join(c.counts_toward_titles)}")
    if c.status == "registered":
        parts.append("registered")
    return " - ".join(parts)


def _amount(value: float, unit: str) -> str:
    """'12 units', '1 credit', '1 course': ``value`` in the catalog's credits (``unit``)."""
    return f"{units_text(value)} {singular(unit) if units_text(value) == '1' else unit}"


def first_meeting_day(start: dt.date, days: str) -> dt.date:
    """The first day on or after ``start`` whose weekday is one of ``days`` ('MWF')."""
    ahead = min((_WEEKDAY[d] - start.weekday()) % 7 for d in days)
    return start + dt.timedelta(days=ahead)


def _uid(*parts: str) -> str:
    return ".".join(_slug(p) for p in parts if p)


def _slug(text: str) -> str:
    """Letters, digits, '.' and '-' of ``text`` (others become '-'): UIDs and host names
    stay free of the characters iCalendar escapes."""
    return re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-")
