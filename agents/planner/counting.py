"""How the planner's models count a course toward requirements, beyond one leaf's own count
(``agents.planner.select.encode_requirements`` posts the rest):

- once per program: the literals ``a[p,l,c]`` of one course in one program are at most one
  true - except, for a program with ``overlaps`` (``reqtree.program_overlaps``), for two
  leaves whose nodes an overlap pairs: they may both count it, and an overlap with a limit
  ``k`` has at most ``k`` courses counted on both of its sides (``post_once``);
- minimums from sub-lists: at least ``min_courses`` (and ``min_units``) of a set's counting
  literals over the sub-list's courses are true, so a course counted for a minimum is one of
  the set's own count (``minimum_constraints``);
- sharing limits between programs: a course counted by both of two programs (by any leaf of
  each) uses one of the pair's ``k`` slots (``post_sharing``).

Programs without overlaps get exactly the constraints they always had.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations

from ortools.sat.python import cp_model

from agents.planner.cpsat import Steps
from agents.planner.prep import Prep
from agents.planner.reqtree import Leaf, program_overlaps

Lit = cp_model.IntVar
Sides = list[tuple[frozenset[str], frozenset[str], int | None]]


def overlaps_of(p: Prep) -> dict[str, Sides]:
    """The overlaps of the target programs, kept per prep."""
    hit = p.derived.get("counting.overlaps")
    if isinstance(hit, dict):
        return hit
    out = p.derived["counting.overlaps"] = program_overlaps(p.programs)
    return out


def post_once(
    m: cp_model.CpModel, p: Prep, per_leaf: dict[tuple[str, str], list[tuple[str, Lit]]]
) -> None:
    """A course counts toward one leaf per program, or two an overlap pairs (see the module
    docstring); ``per_leaf``: (program, course) -> [(leaf id, a-literal)]."""
    overlaps = overlaps_of(p)
    shared: dict[tuple[str, int], dict[str, Lit]] = {}  # limited overlap -> course -> both
    for (prog, course), lits in per_leaf.items():
        if len(lits) < 2:
            continue
        sides = overlaps.get(prog)
        if sides is None:
            m.add_at_most_one([v for _, v in lits])
            continue
        for (l1, v1), (l2, v2) in combinations(lits, 2):
            r = _rule(sides, l1, l2)
            if r is None:
                m.add_bool_or([v1.Not(), v2.Not()])
            elif sides[r][2] is not None:
                both = shared.setdefault((prog, r), {})
                if course not in both:
                    both[course] = m.new_bool_var(f"both[{prog},{r},{course}]")
                m.add(both[course] >= v1 + v2 - 1)  # counted on both sides: one of the k
    for (prog, r), both in sorted(shared.items(), key=lambda kv: kv[0]):
        limit = overlaps[prog][r][2]
        assert limit is not None
        m.add(sum(both.values()) <= limit)


def _rule(sides: Sides, l1: str, l2: str) -> int | None:
    for r, (a, b, _) in enumerate(sides):
        if (l1 in a and l2 in b) or (l1 in b and l2 in a):
            return r
    return None


def minimum_constraints(
    m: cp_model.CpModel, p: Prep, leaf: Leaf, opts: list[tuple[str, Lit]], scale: Steps
) -> list[cp_model.Constraint]:
    """At least each minimum's courses and units among the courses counted toward ``leaf``."""
    out = []
    for low in leaf.minimums:
        inside = [(c, v) for c, v in opts if c in low.courses]
        if low.min_courses:
            out.append(m.add(sum(v for _, v in inside) >= low.min_courses))
        if low.min_units:
            units = sum(scale.count(p.course(c).units) * v for c, v in inside)
            out.append(m.add(units >= scale.ceil(low.min_units)))
    return out


def post_sharing(
    m: cp_model.CpModel,
    p: Prep,
    per_course: dict[tuple[str, str], list[Lit]],
    limits: Sequence[tuple[str, str, int]],
) -> None:
    """At most ``k`` courses counted by both programs of each limited pair."""
    overlaps = overlaps_of(p)
    for p1, p2, k in limits:
        shared = []
        for c in sorted({c for (pr, c) in per_course if pr == p1}):
            if (p2, c) not in per_course:
                continue
            s = m.new_bool_var(f"share[{p1},{p2},{c}]")
            if p1 in overlaps or p2 in overlaps:  # a program may count it twice itself
                for v1 in per_course[(p1, c)]:
                    for v2 in per_course[(p2, c)]:
                        m.add(s >= v1 + v2 - 1)
            else:
                m.add(s >= sum(per_course[(p1, c)]) + sum(per_course[(p2, c)]) - 1)
            shared.append(s)
        if shared:
            m.add(sum(shared) <= k)
