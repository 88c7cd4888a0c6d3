"""Lower bounds over the whole catalog, for the planner's proofs (``agents.planner.proof``).

The staged solve works on a candidate pool (``agents.planner.pool``), so what CP-SAT proves
there holds for that pool only. ``relax`` bounds every plan the full model could make from
every usable course of the catalog (``Prep.full``), through a relaxation of it - a model
whose plans include every real plan, so its minimum is at most any plan's:

- the *relevant* courses - those a requirement leaf may count, the required ones, and
  every course their prerequisite and corequisite trees name, recursively - are kept one by
  one, with requirements, sharing limits, prerequisite closure, consent, anti-requisites
  and the degree total exactly as in ``select.SelectionModel``;
- every other usable course the model may take (a free elective, or a prerequisite of
  another course) is a *spare*: only its units count, grouped by (new units, units, first
  allowed term); its prerequisites, anti-requisites and offerings are dropped, which only
  loosens the model;
- with ``terms`` (graduation within the first ``terms`` terms): a course with no allowed
  term before that is out, and for every term ``j`` the units of the courses that cannot
  be taken before ``j`` fit in the caps of the terms from ``j`` on (the course limit
  likewise); with ``exact`` (graduation in exactly that term, every earlier one proved
  impossible) the unit floors of those terms hold too.

Without ``terms`` the answer's units are a lower bound on the units of every plan; with
them, infeasible means that no plan graduates within ``terms`` terms. When CP-SAT's budget
runs out the bound is its proven objective bound (still a lower bound), never its best
answer.
"""

from __future__ import annotations

import itertools
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Literal

from ortools.sat.python import cp_model

from agents.catalog import CourseCond, iter_prereq
from agents.planner.cpsat import Steps, catalog_steps, make_solver, weighted
from agents.planner.fillers import filler
from agents.planner.floor import units_floor
from agents.planner.prep import Prep
from agents.planner.risky import risky_parts
from agents.planner.select import SelectionModel
from agents.planner.twins import post_twins

RelaxStatus = Literal["bound", "infeasible", "unknown"]
Spare = tuple[int, int, int]  # new units, units (credit steps), first allowed position


@dataclass
class Relaxed:
    """What a relaxation of the whole catalog says (``status`` 'bound': the figures are
    lower bounds; 'infeasible': no plan at all; 'unknown': the budget ran out undecided)."""

    status: RelaxStatus
    units: int = 0  # fewest units (credit steps) of any plan
    risky: int = 0  # fewest risky parts (``agents.planner.risky``), when asked
    exact: bool = False  # the relaxation's own optimum was proved (else CP-SAT's bound)
    # With ``risky``: a lower bound on the units of every plan without a risky part.
    weighted_bound: int = 0
    chosen: list[str] = field(default_factory=list)  # the relaxation's relevant courses
    spares: dict[Spare, int] = field(default_factory=dict)  # spare groups it used


def relevant(p: Prep) -> set[str]:
    """Usable courses a leaf may count, the required ones, and their prerequisite closure
    (computed once per prep)."""
    hit = p.derived.get("bound.relevant")
    if not isinstance(hit, set):
        hit = p.derived["bound.relevant"] = _relevant(p)
    return hit


def _relevant(p: Prep) -> set[str]:
    usable = {c for c in p.pool if p.allowed.get(c)}
    seeds = {c for leaf in p.leaves for c in leaf.matching if c in usable}
    seeds |= (p.must | p.forced | set(p.include) | set(p.fixed)) & usable
    out: set[str] = set()
    work = sorted(seeds)
    while work:
        code = work.pop()
        if code in out:
            continue
        out.add(code)
        course = p.course(code)
        for tree in (course.prerequisites, course.corequisites):
            for n in iter_prereq(tree):
                if isinstance(n, CourseCond) and n.course in usable and n.course not in out:
                    work.append(n.course)
    return out


def spare_groups(p: Prep) -> dict[Spare, list[str]]:
    """The usable courses outside the relevant ones that the full model may take -
    fillers, and courses another course names as a prerequisite (``fillers.counted_only``)
    - grouped by (new units, units, first allowed position), best filler first in each
    group (computed once per prep)."""
    hit = p.derived.get("bound.spares")
    if not isinstance(hit, dict):
        hit = p.derived["bound.spares"] = _spare_groups(p, relevant(p), catalog_steps(p.catalog))
    return hit


def _spare_groups(p: Prep, keep: set[str], scale: Steps) -> dict[Spare, list[str]]:
    named = p.named_in_pool()
    groups: dict[Spare, list[str]] = {}
    for code in p.pool:
        allowed = p.allowed.get(code)
        if code in keep or not allowed or not (filler(p, code) or code in named):
            continue
        gain = scale.count(p.gain(code))
        if gain > 0:
            key = (gain, scale.count(p.course(code).units), allowed[0])
            groups.setdefault(key, []).append(code)
    for members in groups.values():
        members.sort(key=lambda c: (p.course(c).prerequisites is not None, -len(p.allowed[c]), c))
    return groups


def relax(
    p: Prep,
    seconds: float,
    dtime: float,
    *,
    terms: int | None = None,
    exact: bool = False,
    risky: bool = False,
    max_courses: int | None = None,
    hint: Collection[str] = (),
) -> Relaxed:
    """The whole-catalog relaxation of ``p`` (a prep with ``full`` set): the fewest units
    (with ``risky``: the fewest risky parts, then units) - see the module docstring."""
    assert p.full, "the whole-catalog bound needs every usable course (Prep.full)"
    scale = catalog_steps(p.catalog)
    keep = relevant(p)
    groups = spare_groups(p)
    pool, p.pool = p.pool, sorted(keep)  # the selection model takes the relevant courses
    try:
        spares = sorted(groups)
        units = {c: scale.count(p.course(c).units) for c in keep}
        gain = {c: scale.count(p.gain(c)) for c in keep}
        sizes = [(g, u, len(groups[(g, u, f)])) for g, u, f in spares]
        sm = SelectionModel(p, scale, units, gain, sizes)
    finally:
        p.pool = pool
    m = sm.m
    first = {c: p.allowed[c][0] for c in sm.t}
    items: list[tuple[cp_model.IntVar, int, int]] = [
        (t, units[c], first[c]) for c, t in sm.t.items()
    ]
    items += [(n, u, f) for (_, u, f), n in zip(spares, sm.n, strict=True)]
    total = cp_model.LinearExpr.weighted_sum([v for v, _, _ in items], [u for _, u, _ in items])
    if terms is not None:
        _within(m, p, scale, items, terms, exact, max_courses)
    parts = risky_parts(p, sm.t, sm.k) if risky else []
    most = sum(units.values()) + sum(u * k for _, u, k in sizes)
    floor = units_floor(p, [*sm.t, *(c for members in groups.values() for c in members)], scale)
    if floor is None:
        return Relaxed("infeasible", exact=True)
    m.add(total >= floor)
    if hint:  # a plan's courses: a solution of the relaxation, so an upper bound at once
        for c, t in sm.t.items():
            m.add_hint(t, c in hint)
    m.minimize(weighted([*parts, (total, most)]) if parts else total)
    twinned = post_twins(m, p, sm.t, units)  # copies of a course: mirror images (``twins``)
    solver = make_solver(seconds, dtime, symmetry=not twinned)
    code = solver.solve(m)
    if code == cp_model.INFEASIBLE:
        return Relaxed("infeasible", exact=True)
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return Relaxed("unknown")
    optimal = code == cp_model.OPTIMAL
    value = solver.value(total)
    out = Relaxed("bound", exact=optimal)
    if parts:
        out.risky = sum(solver.value(e) for e, _ in parts) if optimal else 0
        # A weighted bound says little about units alone - except for the plans with no
        # risky part, whose weighted objective is their units (``weighted_bound``).
        out.units = value if optimal else 0
        out.weighted_bound = value if optimal else int(-(-solver.best_objective_bound // 1))
    else:
        out.units = value if optimal else max(0, int(-(-solver.best_objective_bound // 1)))
    out.chosen = sorted(c for c, t in sm.t.items() if solver.boolean_value(t))
    out.spares = {k: solver.value(n) for k, n in zip(spares, sm.n, strict=True)}
    out.spares = {k: v for k, v in out.spares.items() if v}
    return out


def spare_courses(p: Prep, r: Relaxed) -> list[str]:
    """Courses standing for the spare groups a relaxation used (best fillers first)."""
    groups = spare_groups(p)
    return sorted(c for key, n in r.spares.items() for c in groups.get(key, [])[:n])


def _within(
    m: cp_model.CpModel,
    p: Prep,
    scale: Steps,
    items: list[tuple[cp_model.IntVar, int, int]],
    terms: int,
    exact: bool,
    max_courses: int | None,
) -> None:
    """Graduation within ``terms`` terms: see the module docstring."""
    active = [i for i in range(min(terms, len(p.terms))) if p.active[i]]
    for v, _, f in items:
        if f >= terms:
            m.add(v == 0)
    for j in itertools.chain([0], (i for i in range(1, terms) if i in active)):
        late = [(v, u) for v, u, f in items if j <= f < terms]
        room = sum(scale.floor(p.caps[i]) for i in active if i >= j)
        m.add(sum(u * v for v, u in late) <= room)
        seats = [_most(max_courses, p.max_courses.get(i)) for i in active if i >= j]
        if seats and None not in seats:
            m.add(sum(v for v, _ in late) <= sum(n for n in seats if n is not None))
    if exact:
        placeable = {i for c in p.pool for i in p.allowed.get(c, [])}
        floors = sum(scale.ceil(p.floors[i]) for i in active if i in placeable)
        m.add(sum(u * v for v, u, _ in items) >= floors)


def _most(general: int | None, term: int | None) -> int | None:
    """The most courses a term may take: the lower of the two limits that are set."""
    given = [n for n in (general, term) if n is not None]
    return min(given) if given else None
