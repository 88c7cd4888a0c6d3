"""Offering history (issue #28, item 10): when a course last actually ran, by kind of term,
and what that says about the runs its pattern promises.

A registrar's pattern says what usually happens ("fall, odd years"); the records say what
did: "last taught in fall 2019". ``Offering.last_run`` holds the last term of each kind the
course ran in. A kind is **lapsed** when the pattern promised a run of that kind after the
last one and before the catalog year begins, and none is recorded: the course did not run
as its pattern says, so a plan must not count on it there.

- ``missed_runs``: for each lapsed kind, its last run and how many promised runs were
  missed since (more missed, riskier);
- ``routine_in``: whether a term is one the course runs in as routine - offered
  (``offerings.offered_in``) and not of a lapsed kind, unless every kind it runs in has
  lapsed (then none is more routine than another, and the course as a whole is a risk:
  ``all_lapsed``, weighed like a dormant course by the planner);
- ``lapse_note``: the words of the risk a plan that uses a lapsed offering carries.

The verifier is not concerned: the catalog still lists the offering, so a plan that uses it
is valid - only never the routine answer.
"""

from __future__ import annotations

from agents.catalog.courses import Course
from agents.catalog.model import Catalog
from agents.catalog.offerings import offered_codes, offered_in
from agents.catalog.terms import Term
from agents.catalog.years import year_start
from agents.errors import TermError

Lapse = tuple[Term, int]  # the last run of a kind, runs the pattern promised since


def missed_runs(catalog: Catalog, course: Course) -> dict[str, Lapse]:
    """Kind code -> (last run, promised runs missed since) for each kind of term whose
    recorded last run is followed by runs the pattern promised before the catalog year
    (once per catalog and course). Empty without a history or a readable catalog year."""
    memo: dict[str, dict[str, Lapse]] = catalog.derived.setdefault("history.missed", {})
    hit = memo.get(course.code)
    if hit is None:
        hit = memo[course.code] = _missed(catalog, course)
    return hit


def _missed(catalog: Catalog, course: Course) -> dict[str, Lapse]:
    year = year_start(catalog.catalog_year)
    if not course.offered.last_run or year is None:
        return {}
    cal = catalog.calendar
    begins = cal.term(cal.academic_year_starts, year)
    out: dict[str, Lapse] = {}
    for text in course.offered.last_run:
        try:
            last = cal.parse(text)
        except TermError:
            continue  # offering_problems names it
        missed, term = 0, last.shift(1)
        while term < begins:
            if term.kind == last.kind and offered_in(catalog, course, term):
                missed += 1
            term = term.shift(1)
        if missed:
            out[last.kind] = (last, missed)
    return out


def all_lapsed(catalog: Catalog, course: Course) -> bool:
    """Whether every kind of term the course runs in has lapsed (it has a history)."""
    lapsed = missed_runs(catalog, course)
    if not lapsed:
        return False
    cal = catalog.calendar
    kinds = {c for c in map(cal.kind_code, course.offered.terms) if c is not None}
    return kinds <= set(lapsed)


def routine_in(catalog: Catalog, course: Course, term: Term) -> bool:
    """Whether ``course`` runs in ``term`` as routine (see the module docstring)."""
    return offered_in(catalog, course, term) and _routine_kind(catalog, course, term)


def _routine_kind(catalog: Catalog, course: Course, term: Term) -> bool:
    """Whether ``term``'s kind is routine for ``course``, which runs in it: not lapsed,
    unless every kind it runs in has."""
    if not course.offered.last_run:
        return True  # no history: nothing has lapsed (``missed_runs``)
    return term.kind not in missed_runs(catalog, course) or all_lapsed(catalog, course)


def routine_codes(catalog: Catalog, term: Term) -> frozenset[str]:
    """Codes of the courses that run in ``term`` as routine (``routine_in``), once per
    catalog and term: what a planner counts on (``offerings.offered_codes`` less the
    offerings of lapsed kinds)."""
    memo: dict[str, frozenset[str]] = catalog.derived.setdefault("history.routine", {})
    hit = memo.get(term.code)
    if hit is None:
        runs, by_code = offered_codes(catalog, term), catalog.course_by_code
        hit = memo[term.code] = frozenset(
            c for c in runs if _routine_kind(catalog, by_code[c], term)
        )
    return hit


def lapse_note(catalog: Catalog, course: Course, term: Term) -> str | None:
    """'MATH 420 last ran in Fall 2019; its pattern promised 3 fall runs since' for a
    term of a lapsed kind; None otherwise."""
    lapse = missed_runs(catalog, course).get(term.kind)
    if lapse is None:
        return None
    last, missed = lapse
    kind = term.kind_info.name
    runs = "run" if missed == 1 else "runs"
    return (
        f"{course.code} last ran in {last.label()}; its pattern promised {missed} "
        f"{kind.lower()} {runs} since that did not happen"
    )
