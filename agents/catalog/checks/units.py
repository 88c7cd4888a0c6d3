"""Units a program asks for that its courses cannot provide, and class standings beyond
the degree.

**What courses can provide.** A course can count toward a requirement when the requirement
names it (a ``course`` node) or its set matches it (``Catalog.courses_matching``), and it
runs within the default planning horizon from the catalog year (``Reach.runs``). Within one
program a course counts toward at most one requirement leaf (``agents.audit.alloc``), so:

- a course set can provide the courses it can count and their units, less what its caps
  cut (each capped course charged to its first cap: never less than the caps allow);
- an ``all_of`` or ``n_of`` node can provide no more than the courses of all its leaves
  together, each counted once, and no more than its children (an ``n_of``: its ``n``
  largest) provide; it needs at least what its children (the ``n`` smallest) need;
- a course set needs ``min_courses`` courses and ``min_units`` units, and at least as many
  courses as reaching ``min_units`` takes with its largest courses, and at least the units
  of its ``min_courses`` smallest courses;
- a repeatable course earns credit each time (``agents.audit.pool``): a set that can count
  one can provide any number of courses and units.

A program's ``total_units`` counts every course; what the planner can reach on its own is
the courses of its requirements and of the institution's requirements (for the
institution's own total: of every program) and the free electives (``free_elective`` not
'no', active, running) - courses a student asks for by name aside.

Requirement leaves none of whose courses runs are left to the ``never_offered`` check.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from agents.catalog.checks.base import INF, CatalogWarning, Reach
from agents.catalog.courses import Course
from agents.catalog.credits import credit_sum, format_credits, hundredths
from agents.catalog.model import Catalog
from agents.catalog.programs import Program
from agents.catalog.requirements import (
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    RequirementNode,
)
from agents.catalog.words import count_text


@dataclass(frozen=True)
class Tally:
    """What a requirement node needs at least, and what its courses provide at most."""

    pool: frozenset[str]  # running courses its leaves can count
    need_courses: int
    need_units: float
    most_courses: float  # INF: unbounded (a repeatable course)
    most_units: float
    reported: bool  # a warning was made at or below this node (or a leaf has no course)


def programs_of(catalog: Catalog) -> Iterator[tuple[Program, str, str]]:
    """Every program and program version, with its JSON path and item label."""
    for i, p in enumerate(catalog.programs):
        yield p, f"$.programs[{i}]", p.code
    for i, p in enumerate(catalog.program_versions):
        yield p, f"$.program_versions[{i}]", f"{p.code} {p.catalog_year}"


def leaf_pool(catalog: Catalog, reach: Reach, node: RequirementNode) -> list[Course]:
    """The running courses a leaf can count (none for a group node)."""
    if isinstance(node, CourseRequirement):
        codes: Iterable[str] = [node.course]
    elif isinstance(node, CourseSetRequirement):
        codes = sorted(catalog.courses_matching(node))
    else:
        return []
    return [catalog.course_by_code[c] for c in codes if reach.runs(c)]


def _supply(courses: Iterable[Course]) -> tuple[float, float]:
    listed = list(courses)
    if any(c.repeatable for c in listed):
        return INF, INF
    return len(listed), credit_sum(c.units for c in listed)


def _set_supply(node: CourseSetRequirement, pool: list[Course]) -> tuple[float, float]:
    if any(c.repeatable for c in pool):
        return INF, INF
    free = [c for c in pool if not any(cap.matches(c) for cap in node.caps)]
    most, units = float(len(free)), [credit_sum(c.units for c in free)]
    for i, cap in enumerate(node.caps):
        charged = [
            c.units
            for c in pool
            if next((j for j, k in enumerate(node.caps) if k.matches(c)), None) == i
        ]
        charged.sort(reverse=True)
        if cap.max_courses is not None:
            charged = charged[: cap.max_courses]
        most += len(charged)
        total = credit_sum(charged)
        units.append(total if cap.max_units is None else min(total, cap.max_units))
    return most, credit_sum(units)


def _set_need(node: CourseSetRequirement, pool: list[Course]) -> tuple[int, float]:
    k, u = node.min_courses or 0, node.min_units or 0.0
    courses = k
    if u and pool:
        biggest = max(hundredths(c.units) for c in pool)
        courses = max(k, math.ceil(hundredths(u) / biggest))
    sizes = sorted(c.units for c in pool if not c.repeatable)
    sizes += [c.units for c in pool if c.repeatable] * k
    smallest = credit_sum(sorted(sizes)[:k]) if len(sizes) >= k else u
    return courses, max(u, smallest)


def tally(
    catalog: Catalog,
    reach: Reach,
    node: RequirementNode,
    at: str,
    item: str,
    out: list[CatalogWarning],
) -> Tally:
    """The node's tally; a warning into ``out`` for the deepest nodes that cannot work."""
    if isinstance(node, CourseRequirement | CourseSetRequirement):
        pool = leaf_pool(catalog, reach, node)
        if not pool:  # the never_offered check's
            return Tally(frozenset(), 1, 0.0, 0, 0.0, True)
        if isinstance(node, CourseRequirement):
            course = pool[0]
            return Tally(frozenset([course.code]), 1, course.units, *_supply(pool), False)
        courses, units = _set_need(node, pool)
        most, most_units = _set_supply(node, pool)
        t = Tally(frozenset(c.code for c in pool), courses, units, most, most_units, False)
    else:
        kids = [
            tally(catalog, reach, child, f"{at}.children[{i}]", item, out)
            for i, child in enumerate(node.children)
        ]
        codes = frozenset().union(*(k.pool for k in kids))
        union_courses, union_units = _supply(catalog.course_by_code[c] for c in codes)
        n = node.n if isinstance(node, NOfRequirement) else len(kids)
        small = sorted(k.need_courses for k in kids)[:n]
        small_units = sorted(k.need_units for k in kids)[:n]
        big = sorted((k.most_courses for k in kids), reverse=True)[:n]
        big_units = sorted((k.most_units for k in kids), reverse=True)[:n]
        most_units = INF if INF in big_units else credit_sum(big_units)
        t = Tally(
            codes,
            sum(small),
            credit_sum(small_units),
            min(union_courses, sum(big)),
            min(union_units, most_units),
            any(k.reported for k in kids),
        )
    if t.reported:
        return t
    warning = _short_of(catalog, node, t, at, item)
    if warning is None:
        return t
    out.append(warning)
    return Tally(t.pool, t.need_courses, t.need_units, t.most_courses, t.most_units, True)


def _short_of(
    catalog: Catalog, node: RequirementNode, t: Tally, at: str, item: str
) -> CatalogWarning | None:
    noun = catalog.institution.unit_name
    needs, most = [], []
    if t.need_courses > t.most_courses:
        needs.append(count_text(t.need_courses, "courses"))
        most.append(count_text(int(t.most_courses), "courses"))
    if hundredths(t.need_units) > hundredths(t.most_units):
        needs.append(count_text(t.need_units, noun))
        most.append(count_text(t.most_units, noun))
    if not needs:
        return None
    short = f"{' and '.join(needs)} but at most {' and '.join(most)} can count toward it"
    if isinstance(node, CourseSetRequirement):
        # The field to change: the count that runs short, or the units that make it short.
        short_courses = t.need_courses > t.most_courses and node.min_courses is not None
        field = "min_courses" if short_courses or node.min_units is None else "min_units"
        value = format_credits(getattr(node, field))
        what = f"it needs {short}"
        fix = f"lower {field}, widen the set, or offer the courses it names"
    else:
        field, value = ("n", str(node.n)) if isinstance(node, NOfRequirement) else ("", "")
        value = value or " and ".join(needs)
        what = f"its parts need {short}"
        fix = "ask for less in its parts, or let more courses count (each counts once in a program)"
    courses = ", ".join(sorted(t.pool)[:8]) + (", ..." if len(t.pool) > 8 else "")
    return CatalogWarning(
        check="program_units",
        path=f"{at}.{field}" if field else at,
        item=item,
        value=value,
        message=f"requirement {node.id!r}: {what} (running courses it can count: {courses})",
        fix=fix,
    )


def program_unit_warnings(catalog: Catalog, reach: Reach) -> list[CatalogWarning]:
    """Requirement nodes and program totals the catalog's courses cannot provide."""
    out: list[CatalogWarning] = []
    pools: dict[str, frozenset[str]] = {}
    for prog, at, item in programs_of(catalog):
        pools[item] = tally(catalog, reach, prog.requirement, f"{at}.requirement", item, out).pool
    institution = {p.code for p in catalog.programs if p.kind == "institution"}
    free = {
        c.code
        for c in catalog.courses
        if c.free_elective and c.status == "active" and reach.runs(c.code)
    }
    for prog, at, item in programs_of(catalog):
        if prog.total_units is None:
            continue
        others = set(pools) if prog.kind == "institution" else institution
        pool = set(free).union(pools[item], *(pools[o] for o in others if o in pools))
        _, most = _supply(catalog.course_by_code[c] for c in pool)
        if hundredths(prog.total_units) <= hundredths(most):
            continue
        noun = catalog.institution.unit_name
        whose = "of every program" if prog.kind == "institution" else "of its requirements"
        if prog.kind != "institution" and institution:
            whose += " and the institution's"
        out.append(
            CatalogWarning(
                check="program_units",
                path=f"{at}.total_units",
                item=item,
                value=format_credits(prog.total_units),
                message=f"{prog.code} needs {count_text(prog.total_units, noun)} to graduate, "
                f"but the running courses {whose} and the free electives give at most "
                f"{count_text(most, noun)} ({len(pool)} courses)",
                fix="lower total_units, add courses, or let more courses be free electives "
                "(free_elective)",
            )
        )
    return out


def standing_warnings(catalog: Catalog) -> list[CatalogWarning]:
    """Class standings that need more units than the degree asks for."""
    floors = [
        (p.total_units, f"{p.code}'s total_units")
        for p in catalog.programs
        if p.kind == "institution" and p.total_units is not None
    ] + [
        (r.limit, f"rule {r.id}")
        for r in catalog.policies
        if r.kind == "total_units" and r.limit is not None
    ]
    floor = max(floors, default=None)
    degrees = [floor] if floor is not None else []
    for p in catalog.programs:
        if p.kind == "institution" or p.total_units is None:
            continue
        # A major's students need the institution's total too: the larger of the two.
        degrees.append(max((p.total_units, f"{p.code}'s total_units"), floor or (0.0, "")))
    if not degrees:
        return []
    lowest, who = min(degrees)
    noun = catalog.institution.unit_name
    out: list[CatalogWarning] = []
    for name in ("sophomore", "junior", "senior"):
        value = getattr(catalog.standing_thresholds, name)
        if hundredths(value) <= hundredths(lowest):
            continue
        out.append(
            CatalogWarning(
                check="standing_total",
                path=f"$.standing_thresholds.{name}",
                value=format_credits(value),
                message=f"{name} standing needs {count_text(value, noun)}, more than the "
                f"{count_text(lowest, noun)} a degree needs ({who}): a student graduates "
                f"before becoming a {name}, so what asks for {name} standing "
                "(restricted_to, standing() prerequisites, rules by class year) never applies",
                fix=f"lower standing_thresholds.{name} below the degree total, or correct the "
                "degree total",
            )
        )
    return out
