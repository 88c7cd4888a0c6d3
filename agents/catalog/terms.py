"""Academic terms and the calendar they belong to.

A catalog declares its term system (``Calendar``): the kinds of term in calendar-year
order (January first) with a code, a name and aliases, which of them are *regular* (load
rules and full-time status apply; the planner uses them by default) and which optional
(summer, a January interim), and the kind that opens an academic year. A term code is the
kind's code followed by the calendar year: ``F2026``, ``T12027``, ``W2027``.

Everything about terms derives from the calendar: parsing codes and readable names
("Fall 2026", "2027 winter", "J-term 2027"), ordering, the next regular term, labels,
academic years, and when a term runs (``Calendar.span``: the published ``dates``, else the
kind's ``typical_dates``; see ``agents.catalog.term_dates``). ``Term.parse`` reads with
the calendar in use: the catalog's, bound by ``use_calendar`` around a stage, an audit, a
plan or a check; outside any binding it is the semester calendar of catalog format version
1 (spring, summer, fall), so a text in another calendar's codes fails loudly rather than
being misread.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cached_property
from typing import Annotated, Literal

from pydantic import (
    BeforeValidator,
    Field,
    StringConstraints,
    WithJsonSchema,
    model_validator,
)

from agents.catalog.base import CatalogModel
from agents.catalog.sessions import sessions_problem, split_offering
from agents.catalog.term_dates import TERM_CODE_PATTERN as TERM_CODE_PATTERN
from agents.catalog.term_dates import (
    Holiday,
    TermDates,
    TermSpan,
    dates_problem,
    time_zone_problem,
    typical_span,
)
from agents.catalog.term_kinds import KIND_CODE_PATTERN as KIND_CODE_PATTERN
from agents.catalog.term_kinds import TermKind as TermKind
from agents.errors import TermError

Season = Literal["spring", "summer", "fall"]

_CODE_RE = re.compile(r"^([A-Z][A-Z0-9]{0,2}?)([0-9]{4})$")
_WORDS_RE = re.compile(r"^(.*?\D)\s*'?([0-9]{4})$|^([0-9]{4})\s+(.+)$")


class Calendar(CatalogModel):
    """The catalog's term system."""

    system: str = Field(
        default="semester", description="What the school calls it: semester, quarter, 4-1-4 ..."
    )
    term_word: str | None = Field(
        default=None,
        min_length=1,
        max_length=40,
        description="What text calls one term ('semester', 'quarter', 'term'): 'Quarter plan', "
        "'3 quarters'. Default: the system when it is semester, quarter or trimester, else 'term'.",
    )
    terms: list[TermKind] = Field(
        min_length=1, description="The kinds of term in calendar-year order, January first."
    )
    academic_year_starts: str = Field(
        description="Code of the kind that opens an academic year (a '2026-27' year starts "
        "with this kind in 2026)."
    )
    dates: list[TermDates] = Field(
        default_factory=list,
        description="Published first and last days of terms, one entry per term, as the "
        "registrar's academic calendar gives them; they win over a kind's typical_dates.",
    )
    timezone: str | None = Field(
        default=None,
        exclude_if=lambda v: v is None,  # written only when given: catalogs without it as before
        description="The institution's time zone, an IANA name such as 'America/New_York' "
        "(version 3): class times are wall-clock times there, and the calendar export writes "
        "them with it. None: floating local times.",
    )
    holidays: list[Holiday] = Field(
        default_factory=list,
        exclude_if=lambda v: not v,
        description="Days and breaks without classes, each {name, start, end} (version 3; "
        "end only for a break of several days): the calendar export leaves them out of the "
        "weekly class series.",
    )
    sections_published: list[str] = Field(
        default_factory=list,
        description="Terms whose schedule of classes is published in full (codes, e.g. "
        "['S2027']): in these a course runs only if it has a section, whatever its offering "
        "pattern says. Other terms follow the offering patterns (their sections, if any, are "
        "early or partial listings).",
    )

    @model_validator(mode="after")
    def _consistent(self) -> Calendar:
        codes = [k.code for k in self.terms]
        dup = sorted({c for c in codes if codes.count(c) > 1})
        if dup:
            raise ValueError(f"term kind codes must be unique; repeated: {', '.join(dup)}")
        if self.academic_year_starts not in codes:
            raise ValueError(
                f"academic_year_starts {self.academic_year_starts!r} is not a term kind code; "
                f"use one of {', '.join(codes)}"
            )
        if not any(k.regular for k in self.terms):
            raise ValueError("at least one term kind must be regular")
        names: dict[str, str] = {}
        for k in self.terms:
            for word in (k.code, k.name, *k.aliases):
                other = names.setdefault(word.casefold(), k.code)
                if other != k.code:
                    raise ValueError(f"name {word!r} is used by term kinds {other} and {k.code}")
            bad = [m for m in k.months if not 1 <= m <= 12]
            if bad:
                raise ValueError(f"term kind {k.code}: months must be 1-12, not {bad}")
        if self.timezone is not None and (zone := time_zone_problem(self.timezone)):
            raise ValueError(f"timezone: {zone}")
        problem = dates_problem(self.dates, self.terms, self.examples())
        problem = problem or sessions_problem(self.terms)
        if problem:
            raise ValueError(problem)
        return self

    # ------------------------------------------------------------------ derived lookups

    @cached_property
    def position(self) -> dict[str, int]:
        return {k.code: i for i, k in enumerate(self.terms)}

    @cached_property
    def kind_by_code(self) -> dict[str, TermKind]:
        return {k.code: k for k in self.terms}

    @cached_property
    def word_index(self) -> dict[str, str]:
        out: dict[str, str] = {}
        for k in self.terms:
            for word in (k.code, k.name, *k.aliases):
                out[_norm(word)] = k.code
        return out

    @cached_property
    def dates_by_term(self) -> dict[str, TermDates]:
        return {d.term: d for d in self.dates}

    def span(self, term: Term) -> TermSpan | None:
        """The first and last day of ``term``: its entry in ``dates``, else its kind's
        ``typical_dates``; None when the calendar has neither."""
        entry = self.dates_by_term.get(term.code)
        if entry is not None:
            return TermSpan(entry.start, entry.end, "dates")
        typical = self.kind_by_code[term.kind].typical_dates
        return typical_span(typical, term.year) if typical is not None else None

    @cached_property
    def parse_memo(self) -> dict[str, Term]:
        return {}

    @property
    def size(self) -> int:
        return len(self.terms)

    @cached_property
    def regular_per_year(self) -> int:
        return sum(k.regular for k in self.terms)

    @cached_property
    def last_regular_of_year(self) -> str:
        """The regular kind that closes an academic year (where graduation years end)."""
        start = self.position[self.academic_year_starts]
        order = self.terms[start:] + self.terms[:start]
        return next(k.code for k in reversed(order) if k.regular)

    def kind_code(self, word: str) -> str | None:
        """The kind code a code, name or alias stands for (any case; an offering's session,
        'summer:I', aside); None if none."""
        return self.word_index.get(_norm(split_offering(word)[0]))

    def kind_for_month(self, month: int) -> str | None:
        return next((k.code for k in self.terms if month in k.months), None)

    def words(self) -> list[str]:
        """Every name and alias of every kind (for text readers), longest first."""
        return sorted(
            {w for k in self.terms for w in (k.name, *k.aliases)}, key=lambda w: (-len(w), w)
        )

    def examples(self) -> str:
        kinds = [k for k in self.terms if k.regular] or self.terms
        return ", ".join(f"'{k.code}2027'" for k in kinds[:3])

    # ------------------------------------------------------------------ terms

    def term(self, kind: str, year: int) -> Term:
        return Term(kind, year, self)

    def parse(self, text: str) -> Term:
        hit = self.parse_memo.get(text)
        if hit is None:
            hit = self._read(text)
            if len(self.parse_memo) < 8192:
                self.parse_memo[text] = hit
        return hit

    def _read(self, text: str) -> Term:
        raw = text.strip()
        m = _CODE_RE.match(raw.upper())
        if m and m.group(1) in self.position:
            return Term(m.group(1), int(m.group(2)), self)
        w = _WORDS_RE.match(raw)
        if w:
            word, year = (w.group(1), w.group(2)) if w.group(2) else (w.group(4), w.group(3))
            code = self.kind_code(word)
            if code is not None:
                return Term(code, int(year), self)
        raise TermError(
            f"not a term: {text!r} in this {self.system} calendar; write a code such as "
            f"{self.examples()} (kinds: "
            + ", ".join(f"{k.code} {k.name}" for k in self.terms)
            + "), or words such as "
            + f"'{self.terms[-1].name} 2026'"
        )

    def from_index(self, index: int) -> Term:
        year, pos = divmod(index, self.size)
        return Term(self.terms[pos].code, year, self)

    def academic_year_of(self, term: Term) -> int:
        """The calendar year an academic year starts in, for the year ``term`` belongs to."""
        start = self.position[self.academic_year_starts]
        return term.year if self.position[term.kind] >= start else term.year - 1

    def offered(self, words: list[str], term: Term) -> bool:
        """Whether ``term`` is of a kind ``words`` name (an offering's kinds of term); the
        codes each list of words stands for are read once per calendar."""
        key = tuple(words)
        codes = self.codes_memo.get(key)
        if codes is None:
            codes = self.codes_memo[key] = frozenset(
                c for c in map(self.kind_code, words) if c is not None
            )
        return term.kind in codes

    @cached_property
    def codes_memo(self) -> dict[tuple[str, ...], frozenset[str]]:
        return {}


def _norm(word: str) -> str:
    return " ".join(word.replace("-", " ").casefold().split())


SEMESTER_CALENDAR = Calendar(
    system="semester",
    terms=[
        TermKind(code="S", name="Spring", months=[1, 2, 3, 4, 5]),
        TermKind(code="U", name="Summer", regular=False, months=[6, 7, 8]),
        TermKind(code="F", name="Fall", aliases=["autumn"], months=[9, 10, 11, 12]),
    ],
    academic_year_starts="F",
)
"""The calendar of catalog format version 1 and of catalogs that declare none."""

_ACTIVE: ContextVar[Calendar] = ContextVar("calendar", default=SEMESTER_CALENDAR)


def active_calendar() -> Calendar:
    return _ACTIVE.get()


def readable_term(value: object) -> object:
    """A readable term ('Fall 2026', '2027 winter', 'f2026') as its code in the calendar in
    use, so records and requests take the spellings a request's text does; anything else
    unchanged (the term-code pattern then says what is wrong with it)."""
    if not isinstance(value, str) or re.match(TERM_CODE_PATTERN, value):
        return value
    try:
        return active_calendar().parse(value).code
    except TermError:
        return value


#: A term code field that also reads the readable forms (``readable_term``); its published
#: JSON Schema keeps the code's pattern (``schema_problems`` lets readable forms through).
TermCode = Annotated[
    str,
    BeforeValidator(readable_term),
    StringConstraints(pattern=TERM_CODE_PATTERN),
    WithJsonSchema({"type": "string", "pattern": TERM_CODE_PATTERN}),
]


@contextmanager
def use_calendar(calendar: Calendar) -> Iterator[Calendar]:
    """Read terms with ``calendar`` inside the block (nested bindings restore on exit)."""
    token = _ACTIVE.set(calendar)
    try:
        yield calendar
    finally:
        _ACTIVE.reset(token)


@dataclass(frozen=True, order=False)
class Term:
    """One academic term: a kind of the calendar in a calendar year."""

    kind: str
    year: int
    calendar: Calendar = field(default=SEMESTER_CALENDAR, compare=False, repr=False)

    @classmethod
    def parse(cls, text: str, calendar: Calendar | None = None) -> Term:
        """A term from a code ('F2026') or words ('Fall 2026') in ``calendar`` (default: the
        calendar in use); texts read once are answered from the calendar's memo."""
        return (calendar or _ACTIVE.get()).parse(text)

    @property
    def code(self) -> str:
        return f"{self.kind}{self.year}"

    @property
    def kind_info(self) -> TermKind:
        return self.calendar.kind_by_code[self.kind]

    @property
    def regular(self) -> bool:
        """Whether this is a regular term (load rules and full-time status apply)."""
        return self.kind_info.regular

    @property
    def season(self) -> str:
        """The kind's name in lower case ('fall', 'winter quarter')."""
        return self.kind_info.name.lower()

    @property
    def index(self) -> int:
        """A sortable integer: consecutive terms give consecutive numbers."""
        return self.year * self.calendar.size + self.calendar.position[self.kind]

    @property
    def academic_year(self) -> str:
        """The academic year as '2026-27'."""
        y = self.calendar.academic_year_of(self)
        return f"{y}-{(y + 1) % 100:02d}"

    def shift(self, steps: int) -> Term:
        return self.calendar.from_index(self.index + steps)

    def next_regular(self, include_summer: bool = False) -> Term:
        """The next term a student normally enrolls in; optional terms (summer, interim)
        only when ``include_summer`` is set."""
        t = self.shift(1)
        while not (t.regular or include_summer):
            t = t.shift(1)
        return t

    def label(self) -> str:
        return f"{self.kind_info.name} {self.year}"

    def __str__(self) -> str:
        return self.code

    def __lt__(self, other: Term) -> bool:
        return self.index < other.index

    def __le__(self, other: Term) -> bool:
        return self.index <= other.index

    def __gt__(self, other: Term) -> bool:
        return self.index > other.index

    def __ge__(self, other: Term) -> bool:
        return self.index >= other.index


def first_regular(term: Term) -> Term:
    """``term`` if it is regular, else the next regular term."""
    return term if term.regular else term.next_regular()


def term_label(code: str | None) -> str:
    """'S2027' -> 'Spring 2027'; '' for None; text that is not a term comes back unchanged."""
    if not code:
        return ""
    try:
        return Term.parse(code).label()
    except TermError:
        return code
