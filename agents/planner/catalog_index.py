"""Facts about a catalog that every plan reuses, computed once per catalog and kept with it
(``Catalog.derived``): anti-requisites in both directions, the minimum grades prerequisites
ask of each course, the courses each course's prerequisites and corequisites name, the
courses matching each course-set requirement, and the positions each course runs in for a
horizon."""

from __future__ import annotations

from dataclasses import dataclass, field

from agents.catalog import Catalog, Course, CourseCond, ProgramCond, iter_prereq

POSITIONS_KEPT = 64  # horizons whose offered positions are kept per catalog


@dataclass
class CatalogIndex:
    """Facts about a catalog that every plan reuses."""

    antireqs: dict[str, set[str]]  # both directions
    prereq_grades: dict[str, list[str]]  # course -> minimum grades prerequisites ask of it
    # course -> (course, minimum grade) of every course condition in its prerequisites and
    # corequisites
    named: dict[str, tuple[tuple[str, str | None], ...]] = field(default_factory=dict)
    matching: dict[tuple[str, str], list[str]] = field(default_factory=dict)  # leaf -> courses
    # course -> its prerequisite and corequisite trees written out (``twins``), on first use
    trees: dict[str, tuple[str, str]] = field(default_factory=dict)
    # programs a prerequisite names ("open to majors of ...": ``ProgramCond``)
    programs_named: frozenset[str] = frozenset()
    # (term codes, active flags) -> course -> the active positions it runs in; bounded
    positions: dict[tuple[tuple[str, ...], tuple[bool, ...]], dict[str, tuple[int, ...]]] = field(
        default_factory=dict
    )

    def trees_of(self, course: Course) -> tuple[str, str]:
        """``course``'s prerequisite and corequisite trees as text: equal texts, equal trees."""
        hit = self.trees.get(course.code)
        if hit is None:
            hit = self.trees[course.code] = (repr(course.prerequisites), repr(course.corequisites))
        return hit

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
    named: dict[str, tuple[tuple[str, str | None], ...]] = {}
    programs: set[str] = set()
    for c in catalog.courses:
        for other in c.antirequisites:
            antireqs.setdefault(other, set()).add(c.code)
        conds = [
            n
            for tree in (c.prerequisites, c.corequisites)
            for n in iter_prereq(tree)
            if isinstance(n, CourseCond)
        ]
        named[c.code] = tuple((n.course, n.min_grade) for n in conds)
        programs.update(
            n.program
            for tree in (c.prerequisites, c.corequisites)
            for n in iter_prereq(tree)
            if isinstance(n, ProgramCond)
        )
        for n in conds:
            if n.min_grade:
                grades.setdefault(n.course, []).append(n.min_grade)
    for code, others in antireqs.items():
        others.discard(code)
    index = CatalogIndex(antireqs, grades, named, programs_named=frozenset(programs))
    catalog.derived["planner.index"] = index
    return index
