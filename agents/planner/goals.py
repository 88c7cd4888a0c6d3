"""The objectives of the staged solve's last stages, over a ``PlanModel`` whose course set
is fixed (``agents.planner.solve``):

- ``overload``: the fewest terms above the standard loads (each needs its own approval),
  then the fewest units above them (summed over the terms), then the earliest graduation.
  Used only when standard loads lie below the caps and no plan within them meets the target;
- ``balance`` (graduation fixed too): the fewest courses taken on someone's consent, then
  the most even load (max - min over active regular terms), then the earliest placement.

Both give every auxiliary variable a hint that holds whatever the placement, so a hinted
placement is a complete hint.
"""

from __future__ import annotations

from dataclasses import dataclass

from ortools.sat.python import cp_model

from agents.planner.cpsat import weighted
from agents.planner.model import PlanModel


@dataclass(frozen=True)
class Overload:
    """Scaled units above the standard loads, terms above them, and a bound of the units."""

    units: cp_model.LinearExpr
    terms: cp_model.LinearExpr
    bound: int


def overload(pm: PlanModel, placement: dict[str, int]) -> Overload:
    """Post ``e[i] >= load[i] - standard load[i]`` (``e[i] >= 0``) and ``o[i]``, true when
    ``e[i] > 0``, for every term a course may take (the prep's ``soft`` loads must be set),
    hinted with their values under ``placement``."""
    p, m = pm.prep, pm.m
    assert p.soft is not None
    units: list[cp_model.IntVar] = []
    terms: list[cp_model.IntVar] = []
    bound = 0
    for i in range(pm.n):
        if not any(i in xs for xs in pm.x.values()):
            continue
        top = pm.s.floor(p.caps[i])
        e = m.new_int_var(0, top, f"e{i}")
        o = m.new_bool_var(f"o{i}")
        m.add(e + pm.by_standing(p.soft[i], i) >= pm.load[i])
        m.add(e == 0).only_enforce_if(o.Not())
        load = sum(pm.u[c] for c, j in placement.items() if j == i)
        standard = pm.s.floor(p.soft[i][pm.standing_at(placement, i)])
        m.add_hint(e, max(0, load - standard))
        m.add_hint(o, load > standard)
        units.append(e)
        terms.append(o)
        bound += top
    return Overload(cp_model.LinearExpr.sum(units), cp_model.LinearExpr.sum(terms), bound)


def least_overload(pm: PlanModel, ov: Overload) -> cp_model.LinearExpr | int:
    """Terms above the standard loads (each needs its own approval), then units above them,
    then graduation."""
    return weighted([(ov.terms, pm.n), (ov.units, ov.bound), (pm.terms_expr(), pm.n)])


def keep_overload(pm: PlanModel, placement: dict[str, int], units: int, terms: int) -> None:
    """Hold a later stage to the overload an earlier one found (``placement`` hints it)."""
    ov = overload(pm, placement)
    pm.m.add(ov.units <= units)
    pm.m.add(ov.terms <= terms)


def balance(pm: PlanModel, terms: int, placement: dict[str, int]) -> cp_model.LinearExpr | int:
    """Fewest courses on consent, then spread (max - min load over active regular terms),
    then earliness; the bounds are hinted from ``placement`` so the hint is complete."""
    p, m = pm.prep, pm.m
    cap = pm.s.floor(max(p.caps or [0])) + 1
    hi = m.new_int_var(0, cap, "load_max")
    lo = m.new_int_var(0, cap, "load_min")
    m.add(lo <= hi)
    loads = [sum(pm.u[c] for c, j in placement.items() if j == i) for i in range(terms)]
    counted = []
    for i in range(terms):
        m.add(hi >= pm.load[i])
        if p.active[i] and p.terms[i].regular:
            m.add(lo <= pm.load[i])
            counted.append(loads[i])
    m.add_hint(hi, max(loads, default=0))
    m.add_hint(lo, min(counted, default=0))
    early = [(i, v) for xs in pm.x.values() for i, v in xs.items() if i < terms]
    return weighted(
        [
            (pm.consent(), len(pm.k)),
            (hi - lo, cap),
            (sum(i * v for i, v in early), sum(i for i, _ in early)),
        ]
    )
