"""Facts about a catalog that every plan reuses, computed once per catalog and kept with it
(``Catalog.derived``): anti-requisites in both directions, the minimum grades prerequisites
ask of each course, the courses matching each course-set requirement, and the positions each
course runs in for a horizon."""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.catalog import Catalog, CourseCond, iter_prereq

POSITIONS_KEPT = 64  # horizons whose offered positions are kept per catalog


@dataclass
class CatalogIndex:
    """Facts about a catalog that every plan reuses."""

    antireqs: dict[str, set[str]]  # both directions
    prereq_grades: dict[str, list[str]]  # course -> minimum grades prerequisites ask of it
    matching: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # leaf -> courses
    # (term codes, active flags) -> course -> the active positions it runs in; bounded
    positions: dict[tuple[tuple[str, ...], tuple[bool, ...]], dict[str, tuple[int, ...]]] = field(
        default_factory=dict
    )

    def positions_for(
        self, terms: tuple[str, ...], active: tuple[bool, ...]
    ) -> dict[str, tuple[int, ...]]:
        """The memo of offered positions for one horizon and its terms away (the oldest
        horizon is dropped past ``POSITIONS_KEPT``)."""
        key = (terms, active)
        hit = self.positions.get(key)
        if hit is None:
            while len(self.positions) >= POSITIONS_KEPT:
                self.positions.pop(next(iter(self.positions)))
            hit = self.positions[key] = {}
        return hit


def catalog_index(catalog: Catalog) -> CatalogIndex:
    """The catalog's index, built on first use and kept with the catalog."""
    hit = catalog.derived.get("planner.index")
    if isinstance(hit, CatalogIndex):
        return hit
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
    index = CatalogIndex(antireqs, grades)
    catalog.derived["planner.index"] = index
    return index
