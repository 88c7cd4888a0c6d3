"""A lower bound on graduation computed without the planner, to judge how far a plan is from
the best any plan could do.

Enough terms for the remaining units at the heaviest load the constraints allow, for the
mandatory courses at the course cap, and for the longest chain of prerequisites still to
take (one course per term along a chain), counted over the terms the student can enroll
(terms away skipped, summers only when allowed). Offerings, standing and unit conditions
are ignored, so the bound never exceeds the true optimum; a plan that graduates before it
is a bug somewhere.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from agents.catalog import (
    AllOf,
    AnyOf,
    Catalog,
    CourseCond,
    PrereqNode,
    RequirementNode,
    StudentRecord,
    Term,
)
from agents.planner import PlanConstraints


def lower_bound(
    catalog: Catalog, student: StudentRecord, programs: Sequence[str], pc: PlanConstraints
) -> str | None:
    """The earliest graduation term no plan can beat, computed without the planner: the
    remaining units at the heaviest load allowed, the mandatory courses at the course cap,
    and the longest chain of prerequisites still to take (one course per term along a
    chain), counted over the terms the student can enroll. None when nothing remains."""
    have = _Have(catalog, student)
    progs = [catalog.program(p) for p in programs]
    total = max([p.total_units or 0 for p in progs] + _total_rule(catalog))
    remaining = max(0.0, total - have.units)
    mandatory: dict[str, str | None] = {}
    depth = 0
    memo: dict[tuple[str, str | None], int] = {}
    for p in progs:
        _mandatory(p.requirement, True, have, mandatory)
        depth = max(depth, _req_depth(p.requirement, have, catalog, memo))
    must_units = sum(catalog.course(c).units for c in mandatory)
    cap = max([pc.max_units_per_term, *pc.term_max_units.values()])
    terms = max(math.ceil(max(remaining, must_units) / cap - 1e-9), depth)
    if pc.max_courses_per_term:
        terms = max(terms, math.ceil(len(mandatory) / pc.max_courses_per_term))
    if terms <= 0:
        return None
    enrolled = _enrolled_terms(student, pc, limit=terms)
    return enrolled[terms - 1].code


def enrolled_terms_between(
    bound: str, graduation: str, student: StudentRecord, pc: PlanConstraints
) -> int:
    """Enrollable terms after ``bound`` up to ``graduation`` (negative if before)."""
    lo, hi = Term.parse(bound), Term.parse(graduation)
    if hi < lo:
        return -enrolled_terms_between(graduation, bound, student, pc)
    terms = _enrolled_terms(student, pc, until=hi)
    return sum(1 for t in terms if lo < t <= hi)


def _enrolled_terms(
    student: StudentRecord, pc: PlanConstraints, *, limit: int = 0, until: Term | None = None
) -> list[Term]:
    away = set(student.terms_away) | set(pc.terms_away)
    t = Term.parse(student.current_term).shift(1)
    out: list[Term] = []
    while (limit and len(out) < limit) or (until is not None and t <= until):
        if t.code not in away and pc.allows(t):
            out.append(t)
        t = t.shift(1)
    return out


def _total_rule(catalog: Catalog) -> list[float]:
    return [r.limit for r in catalog.policies if r.kind == "total_units" and r.limit]


class _Have:
    """What the record already gives: passing or in-progress attempts, and their units."""

    def __init__(self, catalog: Catalog, student: StudentRecord) -> None:
        self.catalog = catalog
        self.grades: dict[str, list[str | None]] = {}
        for a in student.courses:
            self.grades.setdefault(a.course, []).append(
                "IN_PROGRESS" if a.status == "in_progress" else a.grade
            )
        in_progress = {a.course: a for a in student.courses if a.status == "in_progress"}
        self.units = student.units_earned(catalog) + sum(
            a.units or catalog.course(a.course).units
            for code, a in in_progress.items()
            if code in catalog.course_by_code
        )

    def ok(self, code: str, min_grade: str | None) -> bool:
        return any(
            g == "IN_PROGRESS" or self.catalog.grade_meets(g, min_grade)
            for g in self.grades.get(code, [])
        )


def _mandatory(
    node: RequirementNode, required: bool, have: _Have, out: dict[str, str | None]
) -> None:
    """Course requirements on an all-of path that the record does not satisfy."""
    if node.kind == "course":
        if required and not have.ok(node.course, node.min_grade):
            out[node.course] = node.min_grade
    elif node.kind in ("all_of", "n_of"):
        every = node.kind == "all_of" or node.n >= len(node.children)
        for child in node.children:
            _mandatory(child, required and every, have, out)


def _req_depth(
    node: RequirementNode, have: _Have, catalog: Catalog, memo: dict[tuple[str, str | None], int]
) -> int:
    """Terms the longest chain below ``node`` needs; an n-of needs its n shallowest."""
    if node.kind == "course":
        return _course_depth(node.course, node.min_grade, have, catalog, memo)
    if node.kind == "course_set":
        return 0  # whether the record already fills a set is the audit's business
    depths = sorted(_req_depth(c, have, catalog, memo) for c in node.children)
    if node.kind == "all_of":
        return max(depths)
    return depths[min(node.n, len(depths)) - 1]


def _course_depth(
    code: str,
    min_grade: str | None,
    have: _Have,
    catalog: Catalog,
    memo: dict[tuple[str, str | None], int],
) -> int:
    if have.ok(code, min_grade) or code not in catalog.course_by_code:
        return 0
    key = (code, min_grade)
    if key not in memo:
        memo[key] = 0  # a cycle cannot occur in a loaded catalog; this only guards recursion
        memo[key] = 1 + _prereq_depth(catalog.course(code).prerequisites, have, catalog, memo)
    return memo[key]


def _prereq_depth(
    node: PrereqNode | None,
    have: _Have,
    catalog: Catalog,
    memo: dict[tuple[str, str | None], int],
) -> int:
    if isinstance(node, CourseCond):
        return _course_depth(node.course, node.min_grade, have, catalog, memo)
    if isinstance(node, AllOf):
        return max(_prereq_depth(c, have, catalog, memo) for c in node.all)
    if isinstance(node, AnyOf):
        return min(_prereq_depth(c, have, catalog, memo) for c in node.any)
    return 0  # standing, units, program and consent conditions add no term of their own
