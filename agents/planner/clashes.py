"""Courses that can never share a term: every section of one clashes with every section of
the other (``always_clashing``), a catalog fact computed once per catalog and term and kept
with it (``Catalog.derived``), also as course -> partners (``clash_partners``) for the
planner, which puts only the pairs of its candidate pool into a model."""

from __future__ import annotations

from agents.catalog import Catalog, Term


def always_clashing(catalog: Catalog, term: str) -> list[tuple[str, str]]:
    """Pairs of courses with sections in ``term`` where every section of one clashes with
    every section of the other: they can never share that term. Computed once per catalog
    and term (``Catalog.derived``) by a sweep over each day's meetings in start order, so
    the work grows with the clashing section pairs, not with the square of the catalog."""
    code = Term.parse(term).code
    memo: dict[str, list[tuple[str, str]]] = catalog.derived.setdefault("always_clashing", {})
    hit = memo.get(code)
    if hit is None:
        hit = memo[code] = _always_clashing(catalog, code)
    return list(hit)


def clash_partners(catalog: Catalog, term: str) -> dict[str, frozenset[str]]:
    """``always_clashing`` as course -> the courses it can never share ``term`` with
    (once per catalog and term)."""
    code = Term.parse(term).code
    memo: dict[str, dict[str, frozenset[str]]] = catalog.derived.setdefault("clash_partners", {})
    hit = memo.get(code)
    if hit is None:
        partners: dict[str, set[str]] = {}
        for a, b in always_clashing(catalog, code):
            partners.setdefault(a, set()).add(b)
            partners.setdefault(b, set()).add(a)
        hit = memo[code] = {k: frozenset(v) for k, v in partners.items()}
    return hit


def _always_clashing(catalog: Catalog, code: str) -> list[tuple[str, str]]:
    offered = {c.code: c.sections_in(code) for c in catalog.courses}
    offered = {k: v for k, v in offered.items() if v}
    owner: list[str] = []  # section number -> its course
    by_day: dict[str, list[tuple[str, str, int]]] = {}  # day -> (start, end, section number)
    for course, sections in offered.items():
        for s in sections:
            n = len(owner)
            owner.append(course)
            for m in s.meetings:
                for day in set(m.days):
                    by_day.setdefault(day, []).append((m.start, m.end, n))
    pairs: set[tuple[int, int]] = set()  # sections of two courses with a clashing meeting
    for meetings in by_day.values():
        meetings.sort()
        active: list[tuple[str, str, int]] = []  # meetings that may overlap later starts
        for start, end, n in meetings:
            active = [a for a in active if a[1] > start]
            for a_start, a_end, k in active:
                # ``meetings_overlap``: a meeting ending at 10:00 does not clash with 10:00.
                if a_start < end and start < a_end and owner[k] != owner[n]:
                    pairs.add((k, n) if k < n else (n, k))
            active.append((start, end, n))
    clashing: dict[tuple[str, str], int] = {}
    for k, n in pairs:
        a, b = sorted((owner[k], owner[n]))
        clashing[(a, b)] = clashing.get((a, b), 0) + 1
    return sorted(
        pair
        for pair, count in clashing.items()
        if count == len(offered[pair[0]]) * len(offered[pair[1]])
    )
