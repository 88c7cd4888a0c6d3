"""The catalog's main terms (``agents.catalog.next_term``): each regular kind's standard
load under the catalog's load rules - ``max_units_per_term`` and ``max_courses_per_term``,
the lowest limit that applies to the kind for every student, a course count taken in the
catalog's typical course size - decides which kinds are short (a January interim capped at
one course)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, Protocol

from agents.catalog.credits import typical_credits
from agents.catalog.next_term import calendar_main_kinds
from agents.catalog.terms import Calendar


class _Rules(Protocol):
    """What ``main_kinds`` reads of a catalog (``agents.catalog.Catalog``)."""

    @property
    def calendar(self) -> Calendar: ...

    @property
    def policies(self) -> Sequence[Any]: ...

    @property
    def courses(self) -> Iterable[Any]: ...


def main_kinds(catalog: _Rules) -> frozenset[str]:
    """The calendar's main kinds under ``catalog``'s load rules."""
    return calendar_main_kinds(catalog.calendar, kind_loads(catalog))


def kind_loads(catalog: _Rules) -> dict[str, float]:
    """Each regular kind's standard load in credits, where the load rules give one."""
    units: dict[str, list[float]] = {}
    courses: dict[str, list[float]] = {}
    regular = [k.code for k in catalog.calendar.terms if k.regular]
    for rule in catalog.policies:
        into = {"max_units_per_term": units, "max_courses_per_term": courses}.get(rule.kind)
        if into is None:
            continue
        if not _everyone(rule.applies_when):
            continue  # a limit for some students (first-years, probation): not the standard
        kinds = list(rule.applies_when.term_kinds)
        entries = [(kinds, rule.limit)] + [
            (list(r.when.term_kinds) or kinds, r.limit)
            for r in rule.limit_table
            if _everyone(r.when)
        ]
        for named, limit in entries:
            if limit is None:
                continue
            for k in named or regular:
                into.setdefault(k, []).append(limit)
    size = typical_credits(c.units for c in catalog.courses)
    out: dict[str, float] = {}
    for k in regular:
        caps = [min(units[k])] if k in units else []
        if k in courses:
            caps.append(min(courses[k]) * size)
        if caps:
            out[k] = min(caps)
    return out


def _everyone(cond: Any) -> bool:
    """Whether a rule condition holds for every student (term kinds aside)."""
    return bool(cond.model_copy(update={"term_kinds": []}).is_empty)
