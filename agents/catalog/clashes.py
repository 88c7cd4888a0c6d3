"""Courses that can never share a term: every section of one clashes with every section of
the other (``always_clashing``), a catalog fact computed once per catalog and term and kept
with it (``Catalog.derived``), also as course -> partners (``clash_partners``) for the
planner, which puts only the pairs of its candidate pool into a model. The catalog cache
(``agents.catalog.cache``) stores every term's pairs with the checked catalog, as positions
in its course list (``packed``: two arrays of integers a term, read back in a millisecond),
so a process does not sweep the sections again."""

from __future__ import annotations

from array import array

from agents.catalog.model import Catalog
from agents.catalog.terms import Term

KEY = "always_clashing"
"""The ``Catalog.derived`` entry: term code -> its always-clashing pairs."""
PACKED = "always_clashing.packed"
"""The ``Catalog.derived`` entry a cached catalog comes with: term code -> ``Packed``."""
Packed = tuple[array, array]  # positions in ``Catalog.courses`` of each pair's two courses


def always_clashing(catalog: Catalog, term: str) -> list[tuple[str, str]]:
    """Pairs of courses with sections in ``term`` where every section of one clashes with
    every section of the other: they can never share that term. Computed once per catalog
    and term (``Catalog.derived``) by a sweep over each day's meetings in start order, so
    the work grows with the clashing section pairs, not with the square of the catalog."""
    return list(_pairs(catalog, Term.parse(term).code))


def _pairs(catalog: Catalog, code: str) -> list[tuple[str, str]]:
    memo: dict[str, list[tuple[str, str]]] = catalog.derived.setdefault(KEY, {})
    hit = memo.get(code)
    if hit is None:
        stored: dict[str, Packed] = catalog.derived.get(PACKED, {})
        if code in stored:
            courses = [c.code for c in catalog.courses]
            a, b = stored[code]
            hit = [(courses[i], courses[j]) for i, j in zip(a, b, strict=True)]
        elif stored:  # a cached catalog's table covers every term with sections
            hit = []
        else:
            hit = _always_clashing(catalog, code)
        memo[code] = hit
    return hit


def every_clash(catalog: Catalog) -> dict[str, list[tuple[str, str]]]:
    """``always_clashing`` for every term a section is listed in (term code -> pairs)."""
    terms = sorted({s.term for c in catalog.courses for s in c.sections})
    return {t: _pairs(catalog, t) for t in terms}


def packed(catalog: Catalog) -> dict[str, Packed]:
    """``every_clash`` as positions in the catalog's course list (what its cache entry
    keeps); a term with no clashing pair is kept too, so a table is never empty by
    accident of the catalog."""
    position = {c.code: i for i, c in enumerate(catalog.courses)}
    out: dict[str, Packed] = {}
    for term, pairs in every_clash(catalog).items():
        out[term] = (
            array("I", (position[a] for a, _ in pairs)),
            array("I", (position[b] for _, b in pairs)),
        )
    return out


def clash_partners(catalog: Catalog, term: str) -> dict[str, frozenset[str]]:
    """``always_clashing`` as course -> the courses it can never share ``term`` with
    (once per catalog and term)."""
    code = Term.parse(term).code
    memo: dict[str, dict[str, frozenset[str]]] = catalog.derived.setdefault("clash_partners", {})
    hit = memo.get(code)
    if hit is None:
        partners: dict[str, set[str]] = {}
        for a, b in _pairs(catalog, code):
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
