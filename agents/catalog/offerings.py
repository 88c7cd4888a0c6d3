"""When a course runs: one answer for the planner, the verifier, the critique and intake.

``offered_in(catalog, course, term)`` reads three catalog facts, in this order:

1. ``Course.status``: a retired course runs in no term;
2. the offering pattern (``Course.offered``: kinds of term, alternate years, ``only_in``);
3. the published schedule of classes: in a term listed in ``Calendar.sections_published`` a
   course runs only if it has a section there - the pattern says what usually happens, the
   published schedule what will.

A term counts as published only when the catalog lists it, never because some course has
a section in it: registrars post a few sections of a later term early (demos/harrow-bay
lists 15 sections for T32027 beside a full T22027), and reading such a term as published
would take every other course out of it.

A dormant course (``status: dormant``: not run for several years, possibly discontinued)
still runs as its pattern says; it is a risk, worded by ``dormant_note``, and the planner
uses it only where no other course serves.
"""

from __future__ import annotations

from agents.catalog.courses import Course, Offering
from agents.catalog.model import Catalog
from agents.catalog.terms import Term
from agents.errors import TermError


def is_published(catalog: Catalog, term: Term) -> bool:
    """Whether ``term``'s schedule of classes is published in full."""
    return term.code in _published(catalog)


def _published(catalog: Catalog) -> frozenset[str]:
    """Codes of the calendar's published terms, read once per catalog (one that does not
    parse is kept as written: ``offering_problems`` reports it)."""
    hit: frozenset[str] | None = catalog.derived.get("sections_published")
    if hit is None:
        codes = set()
        for text in catalog.calendar.sections_published:
            try:
                codes.add(catalog.calendar.parse(text).code)
            except TermError:
                codes.add(text)
        hit = catalog.derived["sections_published"] = frozenset(codes)
    return hit


def offered_in(catalog: Catalog, course: Course, term: Term) -> bool:
    """Whether ``course`` runs in ``term`` (see the module docstring)."""
    if course.status == "retired" or not course.offered.offered_in(term):
        return False
    return not is_published(catalog, term) or term.code in course.section_terms


def offered_codes(catalog: Catalog, term: Term) -> frozenset[str]:
    """Codes of the courses that run in ``term`` (``offered_in``), once per catalog and term:
    a planner asks of every course for every term of a horizon. Courses of one offering
    pattern are asked about together (``_by_pattern``): a catalog of thousands of courses
    has a few dozen patterns."""
    memo: dict[str, frozenset[str]] = catalog.derived.setdefault("offered_codes", {})
    hit = memo.get(term.code)
    if hit is None:
        published = is_published(catalog, term)
        codes: list[str] = []
        for offered, courses in _by_pattern(catalog):
            if offered.offered_in(term):
                codes.extend(
                    c.code for c in courses if not published or term.code in c.section_terms
                )
        hit = memo[term.code] = frozenset(codes)
    return hit


def _by_pattern(catalog: Catalog) -> list[tuple[Offering, list[Course]]]:
    """The catalog's courses that are not retired, grouped by what ``Offering.offered_in``
    reads (kinds of term, ``only_in``, years), once per catalog."""
    hit: list[tuple[Offering, list[Course]]] | None = catalog.derived.get("offering_patterns")
    if hit is None:
        groups: dict[tuple[object, ...], tuple[Offering, list[Course]]] = {}
        for c in catalog.courses:
            if c.status == "retired":
                continue
            o = c.offered
            key = (tuple(o.terms), tuple(o.only_in), o.years)
            groups.setdefault(key, (o, []))[1].append(c)
        hit = catalog.derived["offering_patterns"] = list(groups.values())
    return hit


def not_offered(catalog: Catalog, course: Course, term: Term) -> str | None:
    """Why ``course`` does not run in ``term``, as a sentence starting with its code; None
    when it runs."""
    if course.status == "retired":
        return f"{course.code} is retired: it no longer runs"
    if not course.offered.offered_in(term):
        return (
            f"{course.code} is not offered in {term.code} (offered: "
            f"{', '.join(course.offered.terms)}, {course.offered.years} year)"
        )
    if is_published(catalog, term) and term.code not in course.section_terms:
        return (
            f"{course.code} is not offered in {term.code}: the published {term.label()} "
            "schedule has no section of it"
        )
    return None


def next_offered(catalog: Catalog, course: Course, after: Term, within: int) -> Term | None:
    """The first term after ``after``, at most ``within`` terms on, that ``course`` runs in."""
    return next(
        (t for i in range(1, within + 1) if offered_in(catalog, course, t := after.shift(i))),
        None,
    )


def dormant_note(catalog: Catalog, course: Course) -> str | None:
    """For a dormant course: that it may be discontinued and when it last ran; else None."""
    if course.status != "dormant":
        return None
    when = "its last run is not recorded"
    if course.last_offered is not None:
        try:
            when = f"it last ran in {catalog.calendar.parse(course.last_offered).label()}"
        except TermError:
            when = f"it last ran in {course.last_offered}"
    return f"{course.code} may be discontinued: {when}"


def offering_problems(catalog: Catalog) -> list[str]:
    """Published terms and last runs that cannot be read or make no sense, by JSON path."""
    problems: list[str] = []
    cal = catalog.calendar
    with_sections = {t for c in catalog.courses for t in c.section_terms}
    for i, text in enumerate(cal.sections_published):
        at = f"$.calendar.sections_published[{i}]"
        try:
            code = cal.parse(text).code
        except TermError as exc:
            problems.append(f"{at}: {exc}")
            continue
        if code not in with_sections:
            problems.append(
                f"{at}: no course has a section in {code}; list a term once its schedule "
                "of classes is in the catalog (every course without a section would not run)"
            )
    for i, c in enumerate(catalog.courses):
        at = f"$.courses[{i}] ({c.code})"
        if c.last_offered is not None:
            try:
                cal.parse(c.last_offered)
            except TermError as exc:
                problems.append(f"{at}.last_offered: {exc}")
        problems.extend(_history_problems(catalog, c, at))
        if c.status == "retired" and c.sections:
            problems.append(
                f"{at}.sections: a retired course has sections ({c.sections[0].term}); "
                "remove them or set its status to active"
            )
    return problems


def _history_problems(catalog: Catalog, course: Course, at: str) -> list[str]:
    """An offering history (``Offering.last_run``) that cannot be read: a term that does
    not parse, two of one kind, or a kind the pattern does not name."""
    cal, seen, out = catalog.calendar, set[str](), list[str]()
    kinds = {c for c in map(cal.kind_code, course.offered.terms) if c is not None}
    for j, text in enumerate(course.offered.last_run):
        where = f"{at}.offered.last_run[{j}]"
        try:
            term = cal.parse(text)
        except TermError as exc:
            out.append(f"{where}: {exc}")
            continue
        if term.kind in seen:
            out.append(f"{where}: {text!r} is a second last run of {term.kind_info.name} "
                       "terms; keep only the latest of each kind")  # fmt: skip
        elif term.kind not in kinds:
            out.append(f"{where}: {text!r} is a {term.kind_info.name} term, but the course "
                       f"is offered in {', '.join(course.offered.terms)}; record the last run "
                       "of a kind it is offered in, or add the kind to its offerings")  # fmt: skip
        seen.add(term.kind)
    return out
