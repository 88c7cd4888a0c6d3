"""Program requirements compiled for the planner's models.

``compile_requirements`` turns a program's requirement tree into a ``ReqTree`` whose leaves
(``Leaf``) list every catalog course that may count toward them, with the set's caps (the
matching courses each cap covers), subject minimum and minimums from sub-lists (the matching
courses each covers); a leaf is ``mandatory`` when it lies on an all-of path from the root.
``sharing_limits`` gives the limit on courses shared between each pair of target programs,
``program_overlaps`` the pairs of leaves of one program that may count the same course.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Literal

from agents.catalog import (
    AllOfRequirement,
    Catalog,
    Course,
    CourseRequirement,
    CourseSetRequirement,
    NOfRequirement,
    Program,
    RequirementNode,
    credit_sum,
)
from agents.catalog.programs import overlap_sides
from agents.planner.catalog_index import catalog_index


@dataclass(frozen=True)
class LeafCap:
    """A cap of a course-set leaf: of the courses counted, at most ``max_courses`` (and at
    most ``max_units`` units) may be in ``courses``."""

    courses: frozenset[str]
    max_courses: int | None
    max_units: float | None


@dataclass(frozen=True)
class LeafMinimum:
    """A minimum of a course-set leaf: of the courses counted, at least ``min_courses`` (and
    at least ``min_units`` units) must be in ``courses``."""

    courses: frozenset[str]
    min_courses: int
    min_units: float


@dataclass
class Leaf:
    """A requirement leaf of one program, with the courses that may count toward it."""

    program: str
    id: str
    kind: Literal["course", "set"]
    min_courses: int
    min_units: float
    min_grade: str | None
    mandatory: bool  # on an all-of path from the root
    matching: list[str] = field(default_factory=list)  # every catalog course that matches
    options: list[str] = field(default_factory=list)  # kept after pruning (history + pool)
    caps: list[LeafCap] = field(default_factory=list)
    min_subjects: int = 0  # the counted courses come from at least this many subjects
    minimums: list[LeafMinimum] = field(default_factory=list)
    # Courses the node names (by code or attribute), not merely lets in (a code pattern, a
    # subject or a level): an internship counts toward "any course numbered 300 or above"
    # only as a last resort (``agents.planner.risky``).
    named: frozenset[str] = frozenset()

    @property
    def label(self) -> str:
        return f"{self.program}/{self.id}"

    def how(self, course: Course) -> str:
        """What tells ``course`` apart from other courses of the leaf, for the models'
        symmetry breaking: the caps and minimums it falls under and, with a subject minimum,
        its subject ('' when none of them is used)."""
        if not (self.caps or self.min_subjects or self.minimums):
            return ""
        caps = [i for i, cap in enumerate(self.caps) if course.code in cap.courses]
        subject = course.subject_code if self.min_subjects else ""
        mins = [i for i, low in enumerate(self.minimums) if course.code in low.courses]
        return f"|{caps}|{subject}" + (f"|{mins}" if self.minimums else "")

    def minimums_met(self, codes: Sequence[str], units: Callable[[str], float]) -> bool:
        """Whether ``codes``, counted toward the leaf, meet each of its minimums."""
        for low in self.minimums:
            inside = [c for c in codes if c in low.courses]
            if len(inside) < low.min_courses or credit_sum(map(units, inside)) < low.min_units:
                return False
        return True


@dataclass
class ReqTree:
    """A requirement node compiled for the model."""

    kind: Literal["leaf", "all", "n_of"]
    id: str
    leaf: Leaf | None = None
    n: int = 0
    children: list[ReqTree] = field(default_factory=list)


def compile_requirements(catalog: Catalog, program: Program) -> tuple[ReqTree, list[Leaf]]:
    leaves: list[Leaf] = []

    def walk(node: RequirementNode, mandatory: bool) -> ReqTree:
        if isinstance(node, AllOfRequirement):
            kids = [walk(c, mandatory) for c in node.children]
            return ReqTree("all", node.id, children=kids)
        if isinstance(node, NOfRequirement):
            every = mandatory and node.n >= len(node.children)
            kids = [walk(c, every) for c in node.children]
            return ReqTree("n_of", node.id, n=node.n, children=kids)
        if isinstance(node, CourseRequirement):
            leaf = Leaf(program.code, node.id, "course", 1, 0.0, node.min_grade, mandatory)
            leaf.matching = [node.course] if node.course in catalog.course_by_code else []
            leaf.named = frozenset(leaf.matching)
        else:
            assert isinstance(node, CourseSetRequirement)
            leaf = Leaf(
                program.code,
                node.id,
                "set",
                node.min_courses or 0,
                node.min_units or 0.0,
                node.min_grade,
                mandatory,
            )
            cache = catalog_index(catalog).matching
            key = (program.code, node.id)
            if key not in cache:  # the courses the set's selector can pick, then its rules
                cache[key] = sorted(catalog.courses_matching(node))
            leaf.matching = list(cache[key])
            attrs = set(node.attributes)
            leaf.named = frozenset(
                c
                for c in leaf.matching
                if c in node.courses or attrs.intersection(catalog.course(c).attributes)
            )
            leaf.min_subjects = node.min_subjects or 0
            for cap in node.caps:
                covered = frozenset(c for c in leaf.matching if cap.matches(catalog.course(c)))
                leaf.caps.append(LeafCap(covered, cap.max_courses, cap.max_units))
            for low in node.minimums:
                inside = frozenset(c for c in leaf.matching if low.matches(catalog.course(c)))
                leaf.minimums.append(
                    LeafMinimum(inside, low.min_courses or 0, low.min_units or 0.0)
                )
        leaves.append(leaf)
        return ReqTree("leaf", node.id, leaf=leaf)

    return walk(program.requirement, True), leaves


def sharing_limits(programs: Sequence[Program]) -> list[tuple[str, str, int]]:
    """(program, other, max shared courses) for each pair that has a limit."""
    out: list[tuple[str, str, int]] = []
    for i, p in enumerate(programs):
        for q in programs[i + 1 :]:
            limits = [
                lim.max_courses
                for a, b in ((p, q), (q, p))
                for lim in a.sharing
                if lim.applies(a, b)
            ]
            if limits:
                out.append((p.code, q.code, min(limits)))
    return out


def program_overlaps(
    programs: Sequence[Program],
) -> dict[str, list[tuple[frozenset[str], frozenset[str], int | None]]]:
    """Program -> its overlaps as (leaf ids of one side, of the other, most courses counted
    toward both; None: no limit), for the programs that have any."""
    out: dict[str, list[tuple[frozenset[str], frozenset[str], int | None]]] = {}
    for p in programs:
        sides = overlap_sides(p) if p.overlaps else []
        if sides:
            out[p.code] = [(a, b, o.max_courses) for o, a, b in sides]
    return out


def min_grades_for(catalog: Catalog, leaves: Sequence[Leaf]) -> dict[str, list[str]]:
    """Every minimum grade that any prerequisite or requirement leaf asks of a course (the
    catalog index's lists, copied only for the courses a leaf adds a grade to)."""
    base = catalog_index(catalog).prereq_grades
    out = dict(base)
    for leaf in leaves:
        if leaf.min_grade:
            for code in leaf.matching:
                if out.get(code) is base.get(code):
                    out[code] = list(base.get(code, ()))
                out[code].append(leaf.min_grade)
    return out
