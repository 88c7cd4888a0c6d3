"""When terms run: the dates a catalog's calendar publishes, and the usual dates of a kind.

A registrar publishes each academic year's calendar ("Fall 2027: August 30 - December
10"); those go in ``Calendar.dates``, one ``TermDates`` per term. Terms further out, which
no published calendar covers yet, take their kind's ``TermKind.typical_dates``: the first
given weekday on or after a month-day ("classes begin the first Monday on or after August
25") and a length in weeks. Explicit dates win; a term with neither has no dates, and what
needs them (the calendar export) says which field to add.

A calendar may also say where its clock is (``Calendar.timezone``, an IANA name such as
'America/New_York': the calendar export writes meeting times in it) and the days without
classes (``Calendar.holidays``: a ``Holiday`` per day or break, which the calendar export
leaves out of the weekly class series).

This module knows nothing of ``Calendar`` (which imports it); the calendar checks its
entries with ``dates_problem`` and resolves terms with ``typical_span``.
"""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from pydantic import Field, field_validator, model_validator

from agents.catalog.base import CatalogModel

Weekday = Literal["M", "T", "W", "R", "F", "S", "U"]
WEEKDAYS: tuple[Weekday, ...] = ("M", "T", "W", "R", "F", "S", "U")
"""Day letters as meetings write them, in ``date.weekday()`` order (Monday is 0)."""

TERM_CODE_PATTERN = r"^[A-Z][A-Z0-9]{0,2}[0-9]{4}$"
MONTH_DAY_PATTERN = r"^(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$"
_ISO_DATE = re.compile(r"^[0-9]{4}-[0-9]{2}-[0-9]{2}$")
_LEAP_YEAR = 2028  # a month-day is checked against a leap year, then refused if Feb 29


class TermDates(CatalogModel):
    """The published first and last day of one term."""

    term: str = Field(
        pattern=TERM_CODE_PATTERN,
        description="Term code of the catalog calendar, e.g. 'F2027'.",
    )
    start: dt.date = Field(description="First day of the term (YYYY-MM-DD), e.g. classes begin.")
    end: dt.date = Field(description="Last day of the term (YYYY-MM-DD), e.g. the last exam.")

    @field_validator("start", "end", mode="before")
    @classmethod
    def _iso(cls, value: Any) -> Any:
        if isinstance(value, str) and not _ISO_DATE.match(value):
            raise ValueError(f"{value!r} is not a date; write YYYY-MM-DD, e.g. '2027-08-30'")
        return value

    @model_validator(mode="after")
    def _ordered(self) -> TermDates:
        if self.end <= self.start:
            raise ValueError(
                f"term {self.term}: end {self.end.isoformat()} is not after start "
                f"{self.start.isoformat()}; the end is the term's last day"
            )
        return self


class Holiday(CatalogModel):
    """A day or a break without classes (a holiday, a reading week, a spring break)."""

    name: str = Field(min_length=1, max_length=80, description="What it is, e.g. 'Labor Day'.")
    start: dt.date = Field(description="First day without classes (YYYY-MM-DD).")
    end: dt.date | None = Field(
        default=None,
        description="Last day without classes (YYYY-MM-DD) of a break; None: the one day.",
    )

    @field_validator("start", "end", mode="before")
    @classmethod
    def _iso(cls, value: Any) -> Any:
        return TermDates._iso(value)

    @model_validator(mode="after")
    def _ordered(self) -> Holiday:
        if self.end is not None and self.end < self.start:
            raise ValueError(
                f"holiday {self.name!r}: end {self.end.isoformat()} is before start "
                f"{self.start.isoformat()}; end is the break's last day"
            )
        return self

    @property
    def last(self) -> dt.date:
        return self.end or self.start

    def days(self) -> list[dt.date]:
        """Every day of it, first to last."""
        count = (self.last - self.start).days + 1
        return [self.start + dt.timedelta(days=i) for i in range(count)]


def time_zone_problem(name: str) -> str | None:
    """Why ``name`` is not an IANA time zone this machine knows (None when it is)."""
    try:
        zoneinfo.ZoneInfo(name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return (
            f"{name!r} is not an IANA time zone name; write one such as 'America/New_York', "
            "'Europe/London' or 'Australia/Sydney' (the tz database's Area/City names)"
        )
    return None


class TypicalDates(CatalogModel):
    """When a kind of term usually runs, for terms the calendar publishes no dates for."""

    start: str = Field(
        pattern=MONTH_DAY_PATTERN,
        description="Month and day ('MM-DD') the term starts on, or on or after which it "
        "starts when weekday is given; in the term code's year.",
    )
    weekday: Weekday | None = Field(
        default=None,
        description="Weekday classes begin on (M T W R F S U): the term starts on the first "
        "such day on or after start, e.g. start '08-25' with weekday 'M' is the last Monday "
        "of August or the first of September. None: on start itself.",
    )
    weeks: int = Field(
        ge=1,
        le=52,
        description="Length in weeks: the term ends the day before the same weekday that "
        "many weeks after it starts (a Monday start with 15 weeks ends on the 15th Sunday).",
    )

    @field_validator("start")
    @classmethod
    def _real_day(cls, value: str) -> str:
        month, day = (int(x) for x in value.split("-"))
        try:
            dt.date(_LEAP_YEAR, month, day)
        except ValueError:
            raise ValueError(f"{value!r} is not a day of the year (MM-DD)") from None
        if (month, day) == (2, 29):
            raise ValueError("'02-29' is not a day every year; use '02-28' or '03-01'")
        return value


@dataclass(frozen=True)
class TermSpan:
    """The first and last day of a term, and where they come from."""

    start: dt.date
    end: dt.date
    source: Literal["dates", "typical_dates"]

    def __contains__(self, day: object) -> bool:
        return isinstance(day, dt.date) and self.start <= day <= self.end


def typical_span(typical: TypicalDates, year: int) -> TermSpan:
    """The span ``typical`` gives a term of calendar year ``year``."""
    month, day = (int(x) for x in typical.start.split("-"))
    start = dt.date(year, month, day)
    if typical.weekday is not None:
        start += dt.timedelta(days=(WEEKDAYS.index(typical.weekday) - start.weekday()) % 7)
    return TermSpan(start, start + dt.timedelta(weeks=typical.weeks, days=-1), "typical_dates")


def span_problem(
    code: str, months: list[int], year: int, start: dt.date, end: dt.date
) -> str | None:
    """Why a span is not plausibly term ``code`` (None when it is): some day of it must fall
    in the term code's year and in one of the kind's months (any month when none are
    given). Classes that begin a few days before the kind's first month (a fall semester
    starting in late August) fit; a wrong year or a swapped kind of term does not."""
    day = start
    while day <= end:
        if day.year == year and (not months or day.month in months):
            return None
        # The first day of the next month is the next day that can change the answer.
        day = (day.replace(day=1) + dt.timedelta(days=32)).replace(day=1)
    where = f"months {', '.join(map(str, months))} of {year}" if months else f"{year}"
    return (
        f"{code} runs {start.isoformat()} to {end.isoformat()}, which has no day in {where}; "
        "check the year and the kind of term"
    )


class _Kind(Protocol):
    """What the checks read of a calendar's ``TermKind``."""

    @property
    def code(self) -> str: ...
    @property
    def months(self) -> list[int]: ...
    @property
    def typical_dates(self) -> TypicalDates | None: ...


def dates_problem(dates: Sequence[TermDates], kinds: Sequence[_Kind], examples: str) -> str | None:
    """The first problem of a calendar's ``dates`` and its kinds' ``typical_dates``, as the
    calendar reports it; None when there is none."""
    by_code = {k.code: k for k in kinds}
    seen: set[str] = set()
    for i, entry in enumerate(dates):
        kind = by_code.get(entry.term[:-4])
        if kind is None:
            return (
                f"dates[{i}].term {entry.term!r} is not a term of this calendar; write a "
                f"code such as {examples} (kinds: {', '.join(by_code)})"
            )
        if entry.term in seen:
            return f"dates[{i}].term {entry.term!r} is listed twice; keep one"
        seen.add(entry.term)
        year = int(entry.term[-4:])
        if problem := span_problem(entry.term, kind.months, year, entry.start, entry.end):
            return f"dates[{i}]: {problem}"
    for k in kinds:
        if k.typical_dates is None:
            continue
        span = typical_span(k.typical_dates, 2027)  # any year shows a misplaced kind
        if span_problem(f"{k.code}2027", k.months, 2027, span.start, span.end):
            return (
                f"term kind {k.code}: typical_dates starting {k.typical_dates.start} for "
                f"{k.typical_dates.weeks} weeks have no day in its months "
                f"({', '.join(map(str, k.months))}); check start and weeks"
            )
    return None
