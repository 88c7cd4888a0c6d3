"""The plan as an iCalendar file (RFC 5545) a student imports into any calendar.

What it holds:

- for the next term, one weekly event series per meeting of each section picked: the
  first occurrence on the first meeting day on or after the term's first day, repeating
  ``RRULE:FREQ=WEEKLY;BYDAY=...;UNTIL=<the term's last day>``, with the section, units,
  what the course counts toward and the location when the catalog knows it;
- for every other planned term (and the next term when a course of it has no weekly
  series: no section, or a section without meetings), one all-day event spanning the term
  that lists its planned courses, marked free (``TRANSP:TRANSPARENT``) so it does not
  block a day in a calendar.

Term dates come from the catalog calendar (``Calendar.span``: published ``dates``, else the
kind's ``typical_dates``); a term with neither is an ``ExportError`` naming the field to
add. Times are floating local times (no ``TZID``): a class meets at the campus wall-clock
time, which is what a floating time shows to a student on campus, and the catalog records
no time zone to build a ``VTIMEZONE`` from. Holidays are not excluded (the catalog has no
breaks). The file has no ``METHOD``, so each ``DTSTAMP`` is when the plan was last revised:
the caller passes the time the request finished, and the same plan gives the same bytes.
UIDs are built from the request, term, course, section and meeting, so a re-export keeps
them. Lines end in CRLF and are folded at 75 octets; text is escaped.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Collection

from agents.artifacts import Recommendation
from agents.catalog import Calendar, Catalog, Term, TermSpan, credit_sum, singular
from agents.errors import ExportError
from agents.writing.export_plan import PlanExport, PlannedCourse, plan_export, units_text

PRODID = "-//Advising Pipeline//advise export//EN"
BYDAY = {"M": "MO", "T": "TU", "W": "WE", "R": "TH", "F": "FR", "S": "SA", "U": "SU"}
_WEEKDAY = {code: i for i, code in enumerate("MTWRFSU")}  # date.weekday() numbers
FOLD_AT = 75  # octets per line, CRLF not counted (RFC 5545 section 3.1)


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
    host = _slug(catalog.institution.name).lower() or "advise"
    unit = catalog.institution.unit_name
    common = [f"DTSTAMP:{stamp.astimezone(dt.UTC):%Y%m%dT%H%M%SZ}"]
    events: list[list[str]] = []
    for term in plan.terms:
        courses = plan.in_term(term.term)
        if not courses:
            continue
        span = spans[term.term]
        series = [_series(rec.request_id, host, unit, c, span) for c in courses]
        events += [e for s in series for e in s]
        if term.term != plan.next_term or not all(series):
            # Later terms, and a next term with a course no weekly series shows.
            events.append(_term_event(rec.request_id, host, unit, term.label, courses, span))
    lines = [
        "BEGIN:VCALENDAR",
        "VERSION:2.0",
        f"PRODID:{PRODID}",
        "CALSCALE:GREGORIAN",
        f"X-WR-CALNAME:{escape(f'{rec.student_name}: plan ({rec.request_id})')}",
    ]
    for event in events:
        lines += ["BEGIN:VEVENT", event[0], *common, *event[1:], "END:VEVENT"]
    lines.append("END:VCALENDAR")
    return "".join(fold(line) + "\r\n" for line in lines)


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


def _series(rid: str, host: str, unit: str, c: PlannedCourse, span: TermSpan) -> list[list[str]]:
    """One weekly series per meeting of ``c``'s section, within ``span``."""
    out = []
    for i, m in enumerate(c.meetings, start=1):
        first = first_meeting_day(span.start, m.days)
        if first > span.end:
            continue  # a term shorter than a week that misses these days
        day = f"{first:%Y%m%d}"
        lines = [
            f"UID:{_uid(rid, c.term, c.course, c.section or '', str(i))}@{host}",
            f"DTSTART:{day}T{m.start.replace(':', '')}00",
            f"DTEND:{day}T{m.end.replace(':', '')}00",
            f"RRULE:FREQ=WEEKLY;BYDAY={','.join(BYDAY[d] for d in m.days)};"
            f"UNTIL={span.end:%Y%m%d}T235959",
            f"SUMMARY:{escape(f'{c.course} {c.title}')}",
        ]
        if m.location:
            lines.append(f"LOCATION:{escape(m.location)}")
        about = f"{c.term_name}, section {c.section}\n{_about(c, unit)}"
        lines.append(f"DESCRIPTION:{escape(about)}")
        out.append(lines)
    return out


def _term_event(
    rid: str, host: str, unit: str, label: str, courses: list[PlannedCourse], span: TermSpan
) -> list[str]:
    """One all-day event over the term, listing its planned courses."""
    units = _amount(credit_sum(c.units for c in courses), unit)
    noun = "course" if len(courses) == 1 else "courses"
    return [
        f"UID:{_uid(rid, courses[0].term, 'plan')}@{host}",
        f"DTSTART;VALUE=DATE:{span.start:%Y%m%d}",
        f"DTEND;VALUE=DATE:{span.end + dt.timedelta(days=1):%Y%m%d}",  # DTEND is exclusive
        f"SUMMARY:{escape(f'{label}: {len(courses)} planned {noun}, {units}')}",
        f"DESCRIPTION:{escape(chr(10).join(_about(c, unit) for c in courses))}",
        "TRANSP:TRANSPARENT",
    ]


def _about(c: PlannedCourse, unit: str) -> str:
    """'15-213 Introduction to Computer Systems - 12 units - counts toward CS-BS/15-213',
    with ' - registered' for a course the student is registered for."""
    parts = [f"{c.course} {c.title}", _amount(c.units, unit)]
    if c.counts_toward:
        parts.append(f"counts toward {', '.join(c.counts_toward)}")
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


def escape(text: str) -> str:
    """A TEXT value (RFC 5545 section 3.3.11): backslash, ';' and ',' escaped, line breaks
    written as '\\n'."""
    text = text.replace("\\", "\\\\").replace(";", "\\;").replace(",", "\\,")
    return text.replace("\r\n", "\n").replace("\r", "\n").replace("\n", "\\n")


def fold(line: str) -> str:
    """``line`` folded so no physical line exceeds 75 octets (a continuation starts with a
    space, which counts); a UTF-8 character is never split."""
    out: list[str] = []
    current, size = "", 0
    for ch in line:
        n = len(ch.encode("utf-8"))
        if size + n > FOLD_AT:
            out.append(current)
            current, size = " ", 1
        current += ch
        size += n
    out.append(current)
    return "\r\n".join(out)


def _uid(*parts: str) -> str:
    return ".".join(_slug(p) for p in parts if p)


def _slug(text: str) -> str:
    """Letters, digits, '.' and '-' of ``text`` (others become '-'): UIDs and host names
    stay free of the characters iCalendar escapes."""
    return re.sub(r"[^A-Za-z0-9.-]+", "-", text).strip("-")
