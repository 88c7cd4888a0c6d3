"""Optimal means proven over the whole catalog (issue #18).

The staged solve chooses from a candidate pool (``agents.planner.pool``) that keeps the
models small; what CP-SAT proves there holds for the pool only, and a pruned pool can lose
the best plan. ``prove`` decides what a plan from a pruned pool may be called.

**What "optimal" proves.** The planner's objective is lexicographic: (1) the graduation
term, (2) the risky courses - dormant optional courses and courses taken on consent that a
course route could open (``agents.planner.risky``), (3) the units planned; then tie-breaks
(consent, interests, fit, even load, earliness) that are best effort and never proved. A
plan is "optimal" when (1), (2) and (3), in that order, are minimal over *every* plan the
planner's model allows with every usable course of the catalog (plannable, and placeable
within the horizon), under the same request: horizon and target, the loads the plan was
solved under (the standard loads when a plan within them meets the target, else the caps),
terms away, include / avoid / fixed / forced, and the degree audit's allocation as pinned
for this plan (``agents.planner.repair``). With standard loads below the caps, (1) is the
graduation the caps allow: the overload stage may then trade it for fewer terms above the
standard loads, for the chosen courses (``agents.planner.solve``).

**How.** With every usable course in the pool, the solver's own proof is the proof (and
``catalog_bound`` stays None). Otherwise the plan's (1)-(3) are compared with lower
bounds over the whole catalog:

- without a solver (``quick``): the longest required prerequisite chain and the terms the
  fewest units need at the caps bound (1); the fewest units that reach the degree total
  with the required courses bound (3) (``floor.units_floor``). A first-year whose plan is
  the degree total exactly is proved here, in a few milliseconds;
- otherwise by a relaxation of the model over every usable course (``bound.relax``): (1)
  is proved when it meets the bound above or when the relaxation within one term fewer has
  no solution; with (1) proved, (2) and (3) are proved when they equal the relaxation's
  minimum within (1) terms (risky first, then units). When that relaxation's budget runs
  out, a plan with no risky part is compared with its proven bound (the units of every plan
  without one); a plan with risky parts with a second relaxation of the units alone.

Bounds not met: the pool is widened with the courses the relaxation chose (their
prerequisites come with the pool's closure) and the plan solved again, at most
``WIDEN_ROUNDS`` times; a better plan replaces the old one (the bounds do not depend on
the pool). Still not met, on a catalog of at most ``WHOLE_MAX`` usable courses: the plan
is solved on every usable course (within the staged solve's deterministic budgets); that
solve's proof is one over the whole catalog (the sample catalogs stay proved whatever the
pool loses). Still not met: the status is "feasible", ``catalog_bound`` holds the bounds
and the gap, and a note says "best plan within N candidate courses of the M usable ones;
not proved over the whole catalog: its bound is X units by TERM (gap Y)".
"""

from __future__ import annotations

import time
from collections.abc import Collection
from dataclasses import dataclass, field
from typing import Any

import structlog

from agents.catalog import credit_sub
from agents.planner.bound import Relaxed, relax, spare_courses
from agents.planner.cpsat import Steps, catalog_steps, expired
from agents.planner.floor import units_floor
from agents.planner.prep import INF, Prep
from agents.planner.repair import agree_with_audit
from agents.planner.risky import consent_needed, risky_count
from agents.planner.schema import CatalogBound, ProofMethod
from agents.planner.setup import PlanSetup
from agents.planner.solution import Solution
from agents.planner.solve import capacity_bound

log = structlog.get_logger(__name__)

WIDEN_ROUNDS = 2
WIDEN_SELECT_DTIME = 0.05  # course selection budget of a widened pool's solve
RELAX_DTIME = 0.25  # deterministic budget of each relaxation solve
WHOLE_MAX = 300  # usable courses up to which an unproved plan is solved on all of them


@dataclass(frozen=True, order=True)
class Objective:
    """The proved part of a plan's objective, compared lexicographically."""

    terms: int  # positions through graduation (graduation position + 1)
    risky: int
    units: int  # credit steps


@dataclass
class Bounds:
    """Lower bounds over the whole catalog for a plan graduating in ``terms`` terms."""

    terms: int  # no plan graduates in fewer terms (proved)
    risky: int
    units: int
    courses: set[str] = field(default_factory=set)  # what the relaxation chose

    def met_by(self, obj: Objective) -> bool:
        return (self.terms, self.risky, self.units) == (obj.terms, obj.risky, obj.units)


@dataclass
class Proved:
    """What ``prove`` returns: the plan (perhaps from a widened pool) and what is known."""

    prep: Prep
    sol: Solution
    audit_notes: list[str]
    bound: CatalogBound | None = None
    note: str | None = None


def objective(prep: Prep, sol: Solution, scale: Steps) -> Objective:
    """Graduation (the one the caps allow, before an overload trade), risky, units."""
    grad = sol.caps_graduation if sol.caps_graduation >= 0 else sol.graduation
    risky = risky_count(prep, sol.placement, consent_needed(prep, sol.placement))
    units = sum(scale.count(prep.course(c).units) for c in sol.placement)
    return Objective(grad + 1, risky, units)


def like(
    setup: PlanSetup,
    prep: Prep,
    *,
    full: bool = False,
    extra: list[str] | None = None,
    slack: int = 1,
) -> Prep:
    """A new pool (every usable course with ``full``, ``prep``'s plus ``extra`` otherwise,
    with the pool's slacks times ``slack``) under the same request and degree-audit
    allocation as ``prep``."""
    end = prep.terms[-1]
    out = setup.prep(end, full=full, standard=prep.standard, extra=extra or [], slack=slack)
    out.pins, out.orders = set(prep.pins), set(prep.orders)
    out.total_needed = prep.total_needed
    return out


def quick(prep: Prep, usable: list[str], scale: Steps, max_courses: int | None = None) -> Bounds:
    """The bounds no solver is needed for: the units the degree total needs at least
    (``floor.units_floor`` over every usable course) and the graduation the longest
    required chain or those units at the caps allow (``solve.chain_bound``,
    ``solve.capacity_bound``, over every usable course's earliest term)."""
    assert prep.reach is not None
    floor = units_floor(prep, usable, scale)
    est = prep.reach.est
    chain = 1 + max((est[c] for c in prep.must if est.get(c, INF) < INF), default=-1)
    if floor is None:
        return Bounds(chain, 0, 0)
    largest = max((scale.count(prep.course(c).units) for c in usable), default=0)
    return Bounds(max(chain, capacity_bound(prep, floor, scale, max_courses, largest)), 0, floor)


def bounds(
    full: Prep,
    obj: Objective,
    low: Bounds,
    plan: Collection[str],
    max_courses: int | None,
    deadline: float,
) -> Bounds:
    """The whole catalog's bounds for a plan of objective ``obj`` (taking the courses
    ``plan``, a hint), beyond the ones ``low`` needed no solver for (``quick``): see the
    module docstring."""

    def run(**kw: Any) -> Relaxed:
        seconds = max(0.05, deadline - time.perf_counter())
        return relax(full, seconds, RELAX_DTIME, max_courses=max_courses, hint=plan, **kw)

    def chose(r: Relaxed) -> set[str]:
        return set(r.chosen) | set(spare_courses(full, r))

    terms = low.terms
    if obj.terms > terms:
        sooner = run(terms=obj.terms - 1)
        if sooner.status != "infeasible":  # perhaps sooner: widen with what it chose
            what = chose(sooner) if sooner.status == "bound" else set()
            return Bounds(terms, 0, low.units, what)
        terms = obj.terms
    # The fewest risky courses, then units: a lower bound on every plan by ``terms``.
    at = run(terms=terms, exact=True, risky=True) if terms == obj.terms else None
    if at is None or at.status == "infeasible":
        # A plan that beats a lower bound would be a bug in the bound: never claim a proof.
        log.error("planner.bound_above_plan", bound=terms, plan=obj)
        return Bounds(terms, 0, 0)
    if at.status == "bound" and at.exact:
        return Bounds(terms, at.risky, at.units, chose(at))
    if at.status == "bound" and obj.risky == 0:
        # The budget ran out; the plan has no risky part, and neither has a plan that beats
        # it, whose units the weighted search's bound then bounds: one relaxation, not two.
        return Bounds(terms, 0, max(at.weighted_bound, low.units), chose(at))
    units = run(terms=terms, exact=True)  # the budget ran out: units alone, as far as proved
    if units.status != "bound":
        return Bounds(terms, 0, low.units)
    return Bounds(terms, 0, max(units.units, low.units), chose(units))


def prove(
    setup: PlanSetup, prep: Prep, sol: Solution, audit_notes: list[str], deadline: float
) -> Proved:
    """The plan with what is proved about it over the whole catalog (module docstring)."""
    if prep.full:
        return Proved(prep, sol, audit_notes)
    scale = catalog_steps(setup.catalog)
    assert prep.reach is not None  # every pool is built with it
    usable = [c for c, e in prep.reach.est.items() if e < INF]
    out = Proved(prep, sol, audit_notes)
    best = objective(prep, sol, scale)
    low = b = quick(prep, usable, scale, setup.c.max_courses_per_term)
    method: ProofMethod = "bound"
    if not b.met_by(best):
        full = like(setup, prep, full=True)
        b = bounds(full, best, low, sol.placement, setup.c.max_courses_per_term, deadline)
        best, b, method = widen(setup, out, full, best, (low, b), deadline)
        if not b.met_by(best) and len(usable) <= WHOLE_MAX:
            best, b, method = whole(setup, out, full, best, b, deadline)
    proven = b.met_by(best)
    grad = prep.terms[b.terms - 1].code if 0 < b.terms <= len(prep.terms) else setup.current.code
    units = scale.credits(b.units)
    planned = scale.credits(best.units)
    same = (b.terms, b.risky) == (best.terms, best.risky)  # the units gap means something
    out.bound = CatalogBound(
        usable=len(usable),
        graduation_term=grad,
        risky=b.risky,
        units=units,
        gap_units=credit_sub(planned, units) if same else 0.0,
        gap_terms=best.terms - b.terms,
        proven=proven,
        method=method if proven else None,
    )
    if not proven:
        out.note = gap_note(len(out.prep.pool), out.bound, best)
    log.info("planner.proof", proven=proven, pool=len(out.prep.pool), usable=len(usable))
    return out


def widen(
    setup: PlanSetup,
    out: Proved,
    full: Prep,
    best: Objective,
    known: tuple[Bounds, Bounds],
    deadline: float,
) -> tuple[Objective, Bounds, ProofMethod]:
    """Widen ``out``'s pool, at most ``WIDEN_ROUNDS`` times: with the courses the bound
    chose, and every slack of the pool doubled each round (the first round: as built), so
    that a plan the relaxation cannot see - one that needs other electives to fit the terms
    - can still be found; a better plan replaces ``out``'s. The best objective, the bounds
    and how they were met (``known``: the solver-free bounds and the full ones so far)."""
    low, b = known
    method: ProofMethod = "bound"
    scale = catalog_steps(setup.catalog)
    for i in range(WIDEN_ROUNDS):
        if b.met_by(best) or expired(deadline, "proof: widening the pool"):
            break
        extra = [*out.prep.pool, *sorted(b.courses - set(out.prep.pool))]
        wide = like(setup, out.prep, extra=extra, slack=2**i)
        if set(wide.pool) == set(out.prep.pool):
            continue  # nothing new to choose from
        # Looking for a better plan, not a proof (the bounds prove): the selection's
        # first budget only, not the long search that proves its units.
        again = setup.solve(wide, deadline - time.perf_counter(), False, WIDEN_SELECT_DTIME)
        if again.status not in ("optimal", "feasible"):
            continue
        again, notes = agree_with_audit(setup, wide, again, deadline)
        obj = objective(wide, again, scale)
        log.debug("planner.widened", pool=len(wide.pool), before=best, after=obj)
        if obj > best or (obj == best and not b.met_by(obj)):
            continue  # no better plan among these courses
        out.prep, out.sol, out.audit_notes, method = wide, again, notes, "widened"
        if obj.terms < best.terms:
            cap = setup.c.max_courses_per_term
            b = bounds(full, obj, low, again.placement, cap, deadline)
        best = obj
    return best, b, method


def whole(
    setup: PlanSetup, out: Proved, full: Prep, best: Objective, b: Bounds, deadline: float
) -> tuple[Objective, Bounds, ProofMethod]:
    """A catalog small enough (``WHOLE_MAX`` usable courses): solve on every usable course,
    within the staged solve's deterministic budgets. Its proof of optimality is one over the
    whole catalog: the bounds become its objective, and its plan replaces a worse one in ``out``."""
    if expired(deadline, "proof: the whole catalog"):
        return best, b, "bound"
    sol = setup.solve(full, deadline - time.perf_counter(), False)
    if sol.status != "optimal":
        return best, b, "bound"
    sol, notes = agree_with_audit(setup, full, sol, deadline)
    if sol.status != "optimal":
        return best, b, "bound"
    obj = objective(full, sol, catalog_steps(setup.catalog))
    if obj < best:
        out.prep, out.sol, out.audit_notes, best = full, sol, notes, obj
    if obj > best:
        # The whole catalog's plan may carry pins of its own from the audit
        # (``agents.planner.repair``), so its proof covers other plans: none for this one.
        log.info("planner.whole_catalog_worse", whole=obj, pooled=best)
        return best, b, "bound"
    return best, Bounds(obj.terms, obj.risky, obj.units), "whole_catalog"


def gap_note(pool: int, b: CatalogBound, plan: Objective) -> str:
    """'best plan within 120 candidate courses of the 2114 usable ones; ...': what is not
    proved, in words."""
    head = f"best plan within {pool} candidate courses of the {b.usable} usable ones"
    if b.gap_terms:
        return (
            f"{head}; not proved over the whole catalog: its bound allows graduation in "
            f"{b.graduation_term} ({b.gap_terms} term{'s' if b.gap_terms != 1 else ''} earlier)"
        )
    if plan.risky > b.risky:
        return (
            f"{head}; not proved over the whole catalog: its bound for graduation in "
            f"{b.graduation_term} has {b.risky} dormant or consent courses (this plan "
            f"{plan.risky}) and {b.units:g} units"
        )
    return (
        f"{head}; not proved over the whole catalog: its bound is {b.units:g} units by "
        f"{b.graduation_term} (gap {b.gap_units:g})"
    )
