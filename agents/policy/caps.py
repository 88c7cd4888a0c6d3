"""The catalog's load caps before any student is known: the planner's round-1 caps
(``catalog_load_caps``: the standard load and the overload ceiling, by class standing and
kind of term), the course limits for kinds of term (``kind_course_caps``) and for every
term (``plain_course_cap``), and their spread over the terms of a horizon (``kind_terms``).
The limits one planned term may carry, with the student known, are
``agents.policy.rules.term_load_limit``'s."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from agents.catalog import Catalog, ClassStanding, PolicyRule, Term, credit_sum
from agents.catalog.policies import LimitRow


@dataclass(frozen=True)
class LoadCaps:
    """The catalog's load caps before any student is known: ``standard`` is the smallest
    per-term cap a rule (or a row of its limit table) sets for students in any status
    (rules and rows limited to a status or a recent GPA, e.g. probation, do not lower it);
    ``ceiling`` is the highest any rule allows anyone (the largest overload). Without any
    load rule both are ``unbounded``: the units of every course in the catalog, a cap that
    never binds. ``by_kind`` holds (standard, ceiling) for each term kind a rule names
    with ``term_kinds``."""

    standard: float
    ceiling: float
    by_kind: dict[str, tuple[float, float]] = field(default_factory=dict)
    asked: float | None = None
    """The most a student may ask for in a term with someone's approval, when more than
    ``ceiling``: above a maximum that names who may approve more ("more than 20 UOC needs
    the faculty's approval" is its own overload, as ``agents.policy.rules`` reads it), the
    next maximum that names no one, or no limit (``unbounded``). The planner goes up to it
    only when the student asks for that load; a target alone plans up to ``ceiling``."""


def _open(rule: PolicyRule, row: LimitRow | None, standing: ClassStanding | None) -> bool:
    """Whether a cap holds for students in any status and whatever their recent GPA (and,
    given a standing, for students of that standing). An overload counts whatever GPA or
    status it asks for (whether the student has them is the critique's to decide): the
    ceiling is the most anyone of the standing may carry."""
    conds = [rule.applies_when] + ([row.when] if row is not None else [])
    if standing is not None and any(c.standing_in and standing not in c.standing_in for c in conds):
        return False
    if rule.kind == "overload":
        return True
    return not any(c.status_in or c.recent_gpa_min is not None for c in conds)


def _cap_entries(
    rule: PolicyRule, standing: ClassStanding | None
) -> list[tuple[tuple[str, ...], float]]:
    """(term kinds, limit) of the rule and each of its rows that count for the caps."""
    if not _open(rule, None, standing):
        return []
    kinds = tuple(rule.applies_when.term_kinds)
    out = [(kinds, rule.limit)] if rule.limit is not None else []
    out += [
        (tuple(r.when.term_kinds) or kinds, r.limit)
        for r in rule.limit_table
        if _open(rule, r, standing)
    ]
    return out


def catalog_units(catalog: Catalog) -> float:
    """The units of every course in ``catalog`` (a cap that never binds), summed once per
    catalog: every plan asks for the load caps, and a real catalog has thousands of courses."""
    total: float | None = catalog.derived.get("catalog_units")
    if total is None:
        total = catalog.derived["catalog_units"] = credit_sum(c.units for c in catalog.courses)
    return total


def catalog_load_caps(catalog: Catalog, standing: ClassStanding | None = None) -> LoadCaps:
    """The one home of the catalog-wide load caps (the planner's round-1 caps); with
    ``standing``, the caps of students of that class standing (rules and rows for other
    standings left out, overloads included). The planner applies them per term, by the
    standing the student has at its start (``agents.planning``)."""
    plain: dict[str, list[float]] = {"max_units_per_term": [], "overload": []}
    kinds: dict[str, dict[str, list[float]]] = {}
    approvable: list[float] = []  # plain maxima that name who may approve more
    for rule in catalog.policies:
        if rule.kind not in plain:
            continue
        for named, limit in _cap_entries(rule, standing):
            if not named:
                plain[rule.kind].append(limit)
                if rule.kind == "max_units_per_term" and rule.requires_approval is not None:
                    approvable.append(limit)
            for k in named:
                kinds.setdefault(k, {"max_units_per_term": [], "overload": []})
                kinds[k][rule.kind].append(limit)
    unbounded = catalog_units(catalog)
    std = min(plain["max_units_per_term"]) if plain["max_units_per_term"] else unbounded
    ceiling = max([std, *plain["overload"]])
    by_kind: dict[str, tuple[float, float]] = {}
    for k, lists in kinds.items():
        kind = catalog.calendar.kind_by_code.get(k)
        regular = kind is not None and kind.regular
        caps = lists["max_units_per_term"] + ([std] if regular else [])
        k_std = min(caps) if caps else std
        k_over = lists["overload"] + (plain["overload"] if regular else [])
        by_kind[k] = (k_std, max([k_std, *k_over]))
    maxima = plain["max_units_per_term"]
    own = [
        min([m for m in maxima if m > a and m not in approvable] or [unbounded]) for a in approvable
    ]
    asked = max(own) if own and max(own) > ceiling else None
    return LoadCaps(standard=std, ceiling=ceiling, by_kind=by_kind, asked=asked)


def kind_course_caps(catalog: Catalog, standings: Sequence[ClassStanding]) -> dict[str, float]:
    """Most courses per term for each kind of term a ``max_courses_per_term`` rule names
    with ``term_kinds`` (one course in a January interim), for students in any status: per
    standing the lowest limit that applies to the kind, then the highest over ``standings``
    (those the student may have in the terms ahead: never tighter than the rules); per
    term through ``kind_terms``. The key ``""`` is the limit of the rules that name no kind
    (``plain_course_cap``), left out here."""
    per = [_course_lows(catalog, standing) for standing in standings]
    kinds = set.intersection(*(set(p) for p in per)) - {""} if per else set()
    return {k: max(p[k] for p in per) for k in sorted(kinds)}


def plain_course_cap(catalog: Catalog, standings: Sequence[ClassStanding]) -> float | None:
    """Most courses per term under the ``max_courses_per_term`` rules that name no kind of
    term, as ``kind_course_caps`` reads them (None when no such rule holds for everyone):
    the limit a term wished above it stands out from."""
    per = [_course_lows(catalog, standing).get("") for standing in standings]
    return None if not per or None in per else max(x for x in per if x is not None)


def _course_lows(catalog: Catalog, standing: ClassStanding) -> dict[str, float]:
    """The lowest course limit per named kind ('' for none) for students of ``standing``."""
    low: dict[str, float] = {}
    for rule in catalog.policies:
        if rule.kind != "max_courses_per_term":
            continue
        for named, limit in _cap_entries(rule, standing):
            for k in named or ("",):
                low[k] = min(low.get(k, limit), limit)
    return low


def term_kind_caps(
    caps: LoadCaps, first: str, regular_terms: int, *, ceiling: bool
) -> dict[str, float]:
    """Per-term caps for the terms of the kinds ``caps.by_kind`` names, from ``first`` over
    ``regular_terms`` regular terms (optional terms between them included): the kind's
    ceiling when ``ceiling``, else its standard cap."""
    pick = 1 if ceiling else 0
    return kind_terms({k: v[pick] for k, v in caps.by_kind.items()}, first, regular_terms)


def kind_terms(limits: Mapping[str, float], first: str, regular_terms: int) -> dict[str, float]:
    """``limits`` (term kind -> limit) for each term of those kinds from ``first`` over
    ``regular_terms`` regular terms (optional terms between them included)."""
    if not limits:
        return {}
    out: dict[str, float] = {}
    t, seen = Term.parse(first), 0
    while seen < regular_terms:
        if t.kind in limits:
            out[t.code] = limits[t.kind]
        seen += t.regular
        t = t.shift(1)
    return out
