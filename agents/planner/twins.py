"""Interchangeable courses in the course-set model (``select.SelectionModel``).

Two candidates are twins when every part of the model and of its objectives treats them
alike: the same units and new units, the same terms they may take, the same prerequisite
and corequisite trees, the same leaves (with the same caps, minimums and subject where a
leaf has them), the same kind (filler or not, dormant or not, consent), the same misfit as a free
elective, the same earliest term and level; none required, pinned by the audit, named by a
cut, of interest to the student, with anti-requisites, or named in another candidate's
prerequisites. Any answer that takes the later of two twins and not the earlier one has a
mirror image that swaps them, with the same objective values (the earliness tie-break
prefers the earlier one); ``post_twins`` keeps only the mirror that takes the earlier.
Without it a catalog with many copies of a course (cross-listed electives, sections kept
as courses) makes CP-SAT wander among mirror images before it proves the fewest units.

Alternatives (``agents.planner.kbest``) skip it: a plan there must differ from earlier
ones, and a mirror image is such a plan.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from ortools.sat.python import cp_model

from agents.planner.cuts import cut_courses
from agents.planner.fillers import filler, filler_misfit
from agents.planner.prep import Prep


def twin_groups(p: Prep, taken: Mapping[str, object], units: Mapping[str, int]) -> list[list[str]]:
    """Groups of twins among ``taken``'s courses (see the module docstring), each in the
    order the earliness tie-break prefers them."""
    referenced = p.named_in_pool()
    pinned = {course for _, _, course in p.pins}
    named = cut_courses(p)
    leaves_of: dict[str, list[str]] = {}
    for leaf in p.leaves:
        for c in leaf.options:
            leaves_of.setdefault(c, []).append(leaf.label + leaf.how(p.course(c)))
    groups: dict[tuple[object, ...], list[str]] = {}
    for c in taken:
        course = p.course(c)
        if (
            c in p.must
            or c in referenced
            or c in pinned
            or c in named
            or c in p.interests
            or course.antirequisites
            or p.antireqs(c)
        ):
            continue
        key = (
            units[c],
            p.gain(c),
            tuple(p.allowed.get(c, [])),
            p.index.trees_of(course),
            tuple(sorted(leaves_of.get(c, []))),
            filler(p, c),
            course.status,
            course.consent_kinds,
            p.misfit(c) + filler_misfit(p, c),
            p.analysis.est.get(c, 0),
            course.level,
            tuple(course.restricted_to),
        )
        groups.setdefault(key, []).append(c)
    return [sorted(g) for g in groups.values() if len(g) > 1]


def post_twins(
    m: cp_model.CpModel,
    p: Prep,
    taken: Mapping[str, cp_model.IntVar],
    units: Mapping[str, int],
    groups: list[list[str]] | None = None,
) -> bool:
    """Take a later twin only with the earlier one (not for alternatives); whether any
    order was posted. ``groups``: the twin groups, when the caller has them already."""
    if p.other_sets or p.other_placements:
        return False
    if groups is None:
        groups = twin_groups(p, taken, units)
    for group in groups:
        for a, b in itertools.pairwise(group):
            m.add(taken[a] >= taken[b])
    return bool(groups)


MANY_TWINS = 6  # copies of one course from which mirror images are ordered before any search


def many_twins(groups: list[list[str]]) -> bool:
    """Whether some course has ``MANY_TWINS`` or more interchangeable copies (a large
    catalog of repeated sections and special topics): then their order is posted before
    the first search (``select.SelectionModel.solve``)."""
    return any(len(g) >= MANY_TWINS for g in groups)
