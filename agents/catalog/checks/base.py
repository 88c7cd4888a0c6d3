"""What every catalog check shares: the warning it reports and when courses run.

A warning names the JSON path (and the item: a program's code, a course's code), the
offending value, what cannot work and the fix - like a loader problem, but the catalog is
still usable. ``Reach`` answers when each course runs, with the one rule the planner and
the verifier use (``agents.catalog.offerings.offered_in``), over a window of terms that
starts with the catalog year's first term (``first_term``): the terms the default planning
horizon covers from there, and enough more to time prerequisite chains from any start.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.catalog.courses import Course
from agents.catalog.model import Catalog
from agents.catalog.offerings import offered_in
from agents.catalog.terms import Term
from agents.catalog.years import year_start
from agents.errors import TermError

CheckName = Literal["program_units", "standing_total", "never_offered", "prerequisite_chain"]
"""The checks: a requirement or a program total its courses cannot provide; a class
standing that needs more units than the degree; a requirement none of whose courses runs;
a course whose prerequisite chain outlasts the planning horizon."""

INF = 1 << 30
"""A position or count past anything the window holds: 'never', 'unbounded'."""

_TOP = re.compile(r"^\$\.[A-Za-z_]+\[\d+\]")


class CatalogWarning(BaseModel):
    """Something in a catalog that loads but cannot work as written."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    check: CheckName = Field(description="Which check found it.")
    path: str = Field(description="JSON path of the field, e.g. '$.programs[0].total_units'.")
    item: str = Field(default="", description="The program or course the path is in.")
    value: str = Field(description="The offending value, e.g. '5' (of min_courses).")
    message: str = Field(description="What cannot work, with the numbers behind it.")
    fix: str = Field(description="How to fix it.")

    def where(self) -> str:
        """'$.programs[0] (CS-BS).total_units' - the path with its item, as loader
        problems name them."""
        top = _TOP.match(self.path)
        if not self.item or top is None:
            return self.path
        return f"{top.group(0)} ({self.item}){self.path[top.end() :]}"

    def text(self) -> str:
        return f"{self.where()}: {self.message} - {self.fix}"

    def as_json(self, where: str | None = None) -> dict[str, Any]:
        """The warning as ``--json`` prints it; ``where`` is its place in a catalog
        directory's files (default: its JSON path)."""
        return {**self.model_dump(), "where": where or self.where()}


def first_term(catalog: Catalog) -> Term:
    """The first term of the catalog year (its ``academic_year_starts`` kind in the year
    ``catalog_year`` starts with). A year that cannot be read falls back to the earliest
    term a section or ``offered_only`` names - only those tie offerings to a year - or,
    with none, any year: every other pattern repeats every two years."""
    cal = catalog.calendar
    year = year_start(catalog.catalog_year)
    if year is not None:
        return cal.term(cal.academic_year_starts, year)
    named: list[Term] = []
    for c in catalog.courses:
        for text in (*c.section_terms, *c.offered.only_in):
            try:
                named.append(cal.parse(text))
            except TermError:
                continue
    return min(named) if named else cal.term(cal.academic_year_starts, 2000)


@dataclass
class Reach:
    """When each course of ``catalog`` runs, by position in a window of terms from
    ``first_term``: the first two academic years (the starts a prerequisite chain is
    timed from: both parities of alternate-year courses), then twice the horizon."""

    catalog: Catalog
    horizon_terms: int
    terms: list[Term] = field(init=False)
    regular_before: list[int] = field(init=False)  # regular terms among terms[:i]

    def __post_init__(self) -> None:
        cal = self.catalog.calendar
        wanted = 2 * cal.regular_per_year + 2 * self.horizon_terms + 1
        self.terms, self.regular_before = [], [0]
        t = first_term(self.catalog)
        while self.regular_before[-1] < wanted:
            self.terms.append(t)
            self.regular_before.append(self.regular_before[-1] + int(t.regular))
            t = t.shift(1)

    @property
    def starts(self) -> range:
        """Positions a student may start in: any term of the first two academic years."""
        return range(2 * self.catalog.calendar.size)

    @cached_property
    def horizon_end(self) -> int:
        """Position of the last term of the default horizon from the first term."""
        return next(i for i, n in enumerate(self.regular_before) if n >= self.horizon_terms) - 1

    @cached_property
    def offered(self) -> dict[str, list[int]]:
        """Positions each course runs in, ascending."""
        return {
            c.code: [i for i, t in enumerate(self.terms) if offered_in(self.catalog, c, t)]
            for c in self.catalog.courses
        }

    def runs(self, code: str) -> bool:
        """Whether the course runs in some term of the default horizon from the first."""
        at = self.offered.get(code)
        return at is not None and bool(at) and at[0] <= self.horizon_end

    def regular_count(self, start: int, end: int) -> int:
        """Regular terms among positions ``start`` to ``end`` inclusive."""
        return self.regular_before[end + 1] - self.regular_before[start]

    def why_not(self, course: Course) -> str:
        """Why a course does not run in the horizon: 'retired', 'offered only in F2019'."""
        if course.status == "retired":
            return "retired"
        if course.offered.only_in:
            return f"offered only in {', '.join(course.offered.only_in)}"
        last = self.terms[self.horizon_end].code
        return f"no term from {self.terms[0].code} to {last} runs it"
