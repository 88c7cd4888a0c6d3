"""When courses run: requirements none of whose courses ever runs, and prerequisite chains
longer than the planning horizon.

**Never offered.** A course runs when ``offered_in`` (its status, offering pattern and the
published schedules) says so for some term of the default planning horizon from the
catalog year's first term (``Reach.runs``): a retired course never does, nor one offered
only in terms before it or after the horizon. A requirement leaf (a ``course`` node or a
course set) none of whose courses runs cannot be met by a plan.

**Prerequisite chains.** A course's earliest term, from a start term, is the first term at
or after the start in which it runs, after the term of each prerequisite course (the same
term or later for a corequisite; of an ``or``, the earliest branch; standing, units,
program and consent conditions as met at once). The regular terms from the start through
that term are what its chain takes; the least over every start in the catalog year's first
two academic years (both parities of alternate-year courses) is compared with the default
planning horizon (``agents.toolbox.HORIZON_YEARS`` academic years of regular terms, 12
semesters). Optional terms (summer) may carry the chain, but only regular terms count. A
course past the horizon from every start cannot be in any plan; only the first course of
a chain that is past it is reported.
"""

from __future__ import annotations

from bisect import bisect_left

from agents.catalog.checks.base import INF, CatalogWarning, Reach
from agents.catalog.checks.units import programs_of
from agents.catalog.courses import Course
from agents.catalog.model import Catalog
from agents.catalog.prereq import AllOf, AnyOf, CourseCond, PrereqNode
from agents.catalog.requirements import (
    AllOfRequirement,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    RequirementNode,
)
from agents.catalog.words import calendar_term_word


def _leaves(node: RequirementNode, at: str) -> list[tuple[RequirementNode, str]]:
    if isinstance(node, AllOfRequirement | NOfRequirement):
        out: list[tuple[RequirementNode, str]] = []
        for i, child in enumerate(node.children):
            out += _leaves(child, f"{at}.children[{i}]")
        return out
    return [(node, at)]


def _names(reach: Reach, courses: list[Course]) -> str:
    shown = [f"{c.code} ({reach.why_not(c)})" for c in courses[:5]]
    return ", ".join(shown) + (f" and {len(courses) - 5} more" if len(courses) > 5 else "")


def never_offered_warnings(catalog: Catalog, reach: Reach) -> list[CatalogWarning]:
    """Requirement leaves none of whose courses runs within the horizon."""
    out: list[CatalogWarning] = []
    span = f"{reach.terms[0].code} to {reach.terms[reach.horizon_end].code}"
    for prog, at, item in programs_of(catalog):
        for node, path in _leaves(prog.requirement, f"{at}.requirement"):
            if isinstance(node, CourseRequirement):
                course = catalog.course_by_code[node.course]
                if reach.runs(course.code):
                    continue
                what = f"it requires {course.code}, which does not run from {span}: "
                what += reach.why_not(course)
                path += ".course"
                value = course.code
                fix = f"offer {course.code} again (status, offered_terms, offered_only) or "
                fix += "require a course that runs"
            else:
                assert isinstance(node, CourseSetRequirement)
                codes = sorted(catalog.courses_matching(node))
                if any(reach.runs(c) for c in codes):
                    continue
                found = [catalog.course_by_code[c] for c in codes]
                what = (
                    f"no course it can count runs from {span}: {_names(reach, found)}"
                    if found
                    else "no course can count toward it (every match is excluded)"
                )
                value = ", ".join(codes[:5]) or "(no course)"
                fix = "offer one of its courses again, or widen the set"
            out.append(
                CatalogWarning(
                    check="never_offered",
                    path=path,
                    item=item,
                    value=value,
                    message=f"requirement {node.id!r}: {what}",
                    fix=fix,
                )
            )
    return out


class _Earliest:
    """Earliest positions of every course from one start (``Reach`` positions)."""

    def __init__(self, catalog: Catalog, reach: Reach, start: int) -> None:
        self.catalog, self.reach, self.start = catalog, reach, start
        self.at: dict[str, int] = {}
        self.after: dict[str, str | None] = {}  # the prerequisite that binds it
        self._busy: set[str] = set()

    def ready(self, node: PrereqNode | None, strict: bool) -> tuple[int, str | None]:
        if isinstance(node, CourseCond):
            if node.course not in self.catalog.course_by_code:
                return INF, node.course
            e = self.of(node.course)
            return (INF if e >= INF else e + int(strict)), node.course
        if isinstance(node, AllOf):
            return max((self.ready(c, strict) for c in node.all), key=lambda r: r[0])
        if isinstance(node, AnyOf):
            return min((self.ready(c, strict) for c in node.any), key=lambda r: r[0])
        return self.start, None  # none, or a condition taken as met at once: a lower bound

    def of(self, code: str) -> int:
        hit = self.at.get(code)
        if hit is not None:
            return hit
        if code in self._busy:  # a corequisite cycle: as early as may be, still a bound
            return self.start
        self._busy.add(code)
        course = self.catalog.course_by_code[code]
        pre = self.ready(course.prerequisites, True)
        co = self.ready(course.corequisites, False)
        r, why = max(pre, co, (self.start, None), key=lambda x: x[0])
        runs = self.reach.offered[code]
        i = bisect_left(runs, r)
        self._busy.discard(code)
        self.at[code] = runs[i] if r < INF and i < len(runs) else INF
        # A course that does not run is where its chain breaks, whatever comes before it.
        self.after[code] = why if self.reach.runs(code) else None
        return self.at[code]

    def chain(self, code: str) -> list[str]:
        """The course's binding prerequisites, first first, ending with it."""
        out = [code]
        while (prev := self.after.get(out[0])) is not None and prev not in out:
            out.insert(0, prev)
        return out


def chain_warnings(catalog: Catalog, reach: Reach) -> list[CatalogWarning]:
    """Courses whose prerequisite chain takes more regular terms than the horizon."""
    best: dict[str, tuple[int, list[str]]] = {}
    for start in reach.starts:
        e = _Earliest(catalog, reach, start)
        for c in catalog.courses:
            if not reach.runs(c.code):
                continue
            pos = e.of(c.code)
            n = INF if pos >= INF else reach.regular_count(start, pos)
            if c.code not in best or n < best[c.code][0]:
                best[c.code] = (n, e.chain(c.code))
    limit = reach.horizon_terms
    late = {code for code, (n, _) in best.items() if n > limit}
    word = calendar_term_word(catalog.calendar)
    years = limit // catalog.calendar.regular_per_year
    out: list[CatalogWarning] = []
    for i, c in enumerate(catalog.courses):
        if c.code not in late:
            continue
        n, chain = best[c.code]
        if any(p in late for p in chain[:-1]):
            continue  # reported at the first course past the horizon
        text = " -> ".join(chain)
        head = catalog.course_by_code[chain[0]]
        if n >= INF and not reach.runs(head.code):
            what = (
                f"can never be taken: its prerequisite chain {text} starts with {head.code}, "
                f"which does not run ({reach.why_not(head)})"
            )
            fix = f"offer {head.code} again, or give {c.code} a prerequisite route that runs"
        else:
            took = f"more than {2 * limit}" if n >= INF else f"at least {n}"
            what = (
                f"takes {took} regular {word}s from a student's first {word} "
                f"(prerequisite chain {text}, each course in a {word} it runs), more than "
                f"the {limit} a plan may span by default ({years} academic years): no plan "
                "can include it"
            )
            fix = "offer courses of the chain more often (offered_terms, offered_years) or "
            fix += "shorten the chain (prerequisites)"
        out.append(
            CatalogWarning(
                check="prerequisite_chain",
                path=f"$.courses[{i}].prerequisites",
                item=c.code,
                value=text,
                message=f"{c.code} {what}",
                fix=fix,
            )
        )
    return out
