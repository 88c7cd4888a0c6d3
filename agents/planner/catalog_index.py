"""Facts about a catalog that every plan reuses, computed once per catalog object:
anti-requisites in both directions, the minimum grades prerequisites ask of each course,
and the courses matching each course-set requirement."""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.catalog import Catalog, CourseCond, iter_prereq


@dataclass
class CatalogIndex:
    """Facts about a catalog that every plan reuses (computed once per catalog object)."""

    antireqs: dict[str, set[str]]  # both directions
    prereq_grades: dict[str, list[str]]  # course -> minimum grades prerequisites ask of it
    matching: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # leaf -> courses


_INDEX: dict[int, tuple[Catalog, CatalogIndex]] = {}


def catalog_index(catalog: Catalog) -> CatalogIndex:
    """The catalog's index; keyed by identity (the catalog is kept alive with its entry)."""
    hit = _INDEX.get(id(catalog))
    if hit is not None and hit[0] is catalog:
        return hit[1]
    antireqs: dict[str, set[str]] = {c.code: set(c.antirequisites) for c in catalog.courses}
    grades: dict[str, list[str]] = {}
    for c in catalog.courses:
        for other in c.antirequisites:
            antireqs.setdefault(other, set()).add(c.code)
        for tree in (c.prerequisites, c.corequisites):
            for n in iter_prereq(tree):
                if isinstance(n, CourseCond) and n.min_grade:
                    grades.setdefault(n.course, []).append(n.min_grade)
    for code, others in antireqs.items():
        others.discard(code)
    if len(_INDEX) >= 8:
        _INDEX.clear()
    index = CatalogIndex(antireqs, grades)
    _INDEX[id(catalog)] = (catalog, index)
    return index
