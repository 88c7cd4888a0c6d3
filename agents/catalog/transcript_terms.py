"""Placing a transcript session in a term of the catalog's calendar by its dates.

A session's name can mislead: a school whose "Spring Quarter" runs from late March is
named for spring but starts in a winter month, so a session read by its first month
becomes the wrong term - and a passed retake in the real winter term then looks like the
same course listed twice. A session's first and last day (PESC ``SessionBeginDate`` and
``SessionEndDate``) are compared with when the calendar's terms run (``Calendar.span``:
the published ``dates``, else the kind's ``typical_dates``): the term that holds more than
half of the session's days is its term. A catalog whose calendar gives no days for its
terms is read by months instead (the month the session's middle day falls in), and
``DatesReading.how`` says so.

``read_by_dates`` gives the reading or why there is none; the caller compares it with the
session's name and says which it used.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from agents.catalog.terms import Calendar, Term
from agents.catalog.transcript import Cell, SessionDates

DATE_FORMAT_HELP = "write YYYY-MM-DD, e.g. '2024-03-25'"


@dataclass(frozen=True)
class DatesReading:
    """The term a session's dates fall in, or why none (``term`` None)."""

    term: Term | None
    shown: str  # '2024-03-25 to 2024-06-07'
    how: str  # how the term was found, or why it was not
    bad: Cell | None = None  # a date that could not be read


def read_by_dates(dates: SessionDates, calendar: Calendar) -> DatesReading:
    """The term of the calendar that the session ``dates`` fall in."""
    days: list[dt.date] = []
    for cell in (dates.begin, dates.end):
        if cell is None:
            continue
        try:
            days.append(dt.date.fromisoformat(cell.value[:10]))
        except ValueError:
            return DatesReading(None, cell.value, f"not a date; {DATE_FORMAT_HELP}", cell)
    begin, end = min(days), max(days)
    shown = begin.isoformat() if begin == end else f"{begin.isoformat()} to {end.isoformat()}"
    length = (end - begin).days + 1
    overlaps: list[tuple[int, Term, str]] = []
    for year in range(begin.year - 1, end.year + 2):
        for kind in calendar.terms:
            term = calendar.term(kind.code, year)
            span = calendar.span(term)
            if span is None:
                continue
            days_in = (min(end, span.end) - max(begin, span.start)).days + 1
            if days_in > 0:
                where = "published dates" if span.source == "dates" else "typical dates"
                runs = f"{span.start.isoformat()} to {span.end.isoformat()}"
                overlaps.append((days_in, term, f"{where} of {term.code}: {runs}"))
    if not any(calendar.span(calendar.term(k.code, begin.year)) for k in calendar.terms):
        middle = begin + (end - begin) / 2
        code = calendar.kind_for_month(middle.month)
        if code is None:
            return DatesReading(None, shown, "the catalog's calendar gives no term days and "
                                f"month {middle.month} is in no term's months")  # fmt: skip
        how = (
            f"the catalog's calendar gives no term days (dates or typical_dates), so by the "
            f"month of the session's middle day ({middle.isoformat()})"
        )
        return DatesReading(calendar.term(code, middle.year), shown, how)
    overlaps.sort(key=lambda o: (-o[0], o[1].index))
    if not overlaps:
        return DatesReading(None, shown, "no term of the catalog's calendar runs then")
    days_in, term, how = overlaps[0]
    if 2 * days_in <= length:
        terms = ", ".join(o[1].code for o in overlaps[:3])
        return DatesReading(None, shown, f"no one term holds most of it (it overlaps {terms})")
    return DatesReading(term, shown, how)
