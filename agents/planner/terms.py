"""Terms for the planner: the horizon, parsing with readable errors, offerings in words."""

from __future__ import annotations

from collections.abc import Callable

from agents.catalog import Catalog, Course, Term, active_calendar, not_offered
from agents.errors import PlanningError


def horizon(first: Term, last: Term, allows: Callable[[Term], bool]) -> list[Term]:
    """Terms from ``first`` to ``last`` inclusive that ``allows`` admits (every regular
    term; optional ones such as summers only when the constraints name them)."""
    out: list[Term] = []
    t = first
    while t <= last:
        if t.regular or allows(t):
            out.append(t)
        t = t.shift(1)
    return out


def next_allowed(term: Term, allows: Callable[[Term], bool]) -> Term:
    """The first term after ``term`` that is regular or that ``allows`` admits."""
    t = term.shift(1)
    while not (t.regular or allows(t)):
        t = t.shift(1)
    return t


def default_latest(first: Term, horizon_terms: int) -> Term:
    """The last of ``horizon_terms`` regular terms starting at ``first``."""
    t = first
    for _ in range(horizon_terms - 1):
        t = t.next_regular()
    return t


def parse_term(text: str, what: str) -> Term:
    try:
        return Term.parse(text)
    except ValueError as exc:
        raise PlanningError(f"{what}: {exc}") from None


def describe_offering(course: Course) -> str:
    """'only in fall', 'in spring and fall', 'only in fall of odd years' - kinds named as
    the calendar in use names them, in calendar order."""
    cal = active_calendar()
    if course.offered.only_in:
        terms = sorted(cal.parse(t) for t in course.offered.only_in)
        return "only in " + " and ".join(t.label() for t in terms)
    codes = {cal.kind_code(w) for w in course.offered.terms}
    seasons = " and ".join(k.name.lower() for k in cal.terms if k.code in codes)
    if course.offered.years == "every":
        return f"only in {seasons}" if len(codes) == 1 else f"in {seasons}"
    return f"only in {seasons} of {course.offered.years} years"


def not_offered_words(catalog: Catalog, course: Course, term: Term) -> str | None:
    """Why ``course`` does not run in ``term``, after its code ('is offered only in fall',
    'is retired: ...', 'is not offered in S2027: the published ... schedule has none');
    None when it runs (``agents.catalog.offered_in``)."""
    why = not_offered(catalog, course, term)
    if why is None:
        return None
    if course.status != "retired" and not course.offered.offered_in(term):
        return f"is offered {describe_offering(course)}"
    return why.removeprefix(f"{course.code} ")
