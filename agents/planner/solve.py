"""The planner's staged solve (deterministic: one worker, fixed seed, budgets in
deterministic time wherever a stage is best-effort).

1. course set: ``SelectionModel`` gives the fewest-units set, proved against the larger of
   CP-SAT's bound and a subset-sum floor (the units bound of every plan); when that set
   takes dormant courses or consent with a course route, the fewest of those come before
   units (``agents.planner.risky``); a selection that finds no set within its budget runs
   again with larger ones (``SELECT_RETRIES``) before the step is said to have timed out;
2. terms for that set at the graduation lower bound (longest required chain, unit capacity
   for the unit floor): a depth-first search that fills terms in order, critical courses
   first (CP-SAT fixed search with a decision strategy) - fast on tight packings where the
   default search wanders. Found: graduation and units both meet their bounds, so optimal;
   not found, the same with the set chosen without the suiting tie-break (a time-free choice
   may suit the student with a course no early term offers), then the suiting as in 3;
3. otherwise, for each graduation term from the bound up: the full model (course choice
   and terms together) minimizes dormant courses and routine consent, then units, with
   graduation fixed, through a short portfolio of
   deterministic settings; the first feasible term is the earliest graduation; with that
   graduation and those units held, the optional courses of most interest, then those that
   suit the student best (``fillers.elective_misfit``) are chosen within a short budget;
3a. a placement that takes a course on consent although a course route exists (in the
   term of the course that opens it, say; ``agents.planner.risky``) is placed again, same
   courses and graduation, with the fewest such courses (``RISKY_DTIME``); if one is left,
   the full model by that graduation chooses the fewest of them, then the fewest units
   (``_risk_first``), and the plan is proved optimal only if that is proved; the later
   stages never take more of them (``keep_routine``);
4. only when standard loads lie below the caps (a plan within them has already been looked
   for and failed, ``agents.planner.api``): for the course set found, the fewest terms
   above the standard loads (approvals), then the fewest units above them, then the
   earliest graduation, graduation free up to the end term (``goals.overload``);
5. courses on consent, spread (max - min load over regular terms), then earliness as
   tie-breaks, for the final course set with graduation fixed, within a deterministic
   budget (``goals.balance``).
"""

from __future__ import annotations

import time

import structlog
from ortools.sat.python import cp_model

from agents.planner.cpsat import Steps, catalog_steps, weighted
from agents.planner.fillers import elective_misfit, interest_shortfall
from agents.planner.goals import balance, keep_overload, least_overload, overload
from agents.planner.model import PlanModel
from agents.planner.prep import Prep
from agents.planner.risky import before_units, consent_needed, risky_parts, route_exists
from agents.planner.search import PORTFOLIO_DTIME, fill_strategy, portfolio, run
from agents.planner.select import Selection, SelectionModel
from agents.planner.solution import Solution, SolveStatus

log = structlog.get_logger(__name__)

SELECT_DTIME = 0.15
# A selection that finds no set within its budget runs again with these multiples of it
# (the plan's own selection; a widened pool's looks for a better plan only).
SELECT_RETRIES = (4.0, 16.0)
TIE_DTIME = 0.02
FILL_DTIME = 0.05
SECONDARY_DTIME = 0.015
OVERLOAD_DTIME = 0.1
ELECTIVE_DTIME = 0.05
RISKY_DTIME = 0.05
FILL_PRESOLVE = False


def chain_bound(prep: Prep) -> int:
    """Terms needed at least: every required course sits at or after its earliest term."""
    ests = [prep.analysis.est.get(c, 0) for c in prep.must if prep.allowed.get(c)]
    return 1 + max(ests, default=-1)


def capacity_bound(
    prep: Prep, units: int, scale: Steps, max_courses: int | None = None, largest: int = 0
) -> int:
    """Fewest terms whose caps hold ``units`` (in credit steps: a cap holds whole steps). A
    term that allows at most n courses (``max_courses`` in every term, the term's own
    ``prep.max_courses``) holds at most n of the largest course a plan may take
    (``largest`` steps; 0: not known, the unit caps alone)."""
    total = 0
    for i in range(len(prep.terms)):
        if units <= total:
            return i
        if prep.active[i]:
            room = scale.floor(prep.caps[i])
            most = [n for n in (max_courses, prep.max_courses.get(i)) if n is not None]
            if most and largest > 0:
                room = min(room, min(most) * largest)
            total += room
    return len(prep.terms) + (0 if units <= total else 1)


def solve_plan(
    prep: Prep,
    *,
    max_courses: int | None,
    seconds: float,
    first_only: bool = False,
    select_dtime: float | None = None,
) -> Solution:
    """The staged solve described in the module docstring (``select_dtime``: the course
    selection's budget when not ``SELECT_DTIME``)."""
    select_budget = SELECT_DTIME if select_dtime is None else select_dtime
    start = time.perf_counter()
    deadline = start + seconds

    def left() -> float:
        return max(0.05, deadline - time.perf_counter())

    def ms() -> str:
        return f"@{(time.perf_counter() - start) * 1000:.0f}ms"

    scale = catalog_steps(prep.catalog)
    units = {c: scale.count(prep.course(c).units) for c in prep.pool}
    gain = {c: scale.count(prep.gain(c)) for c in prep.pool}
    selector = SelectionModel(prep, scale, units, gain)
    sel = selector.solve(left(), select_budget, TIE_DTIME)
    retries = SELECT_RETRIES if select_dtime is None else ()
    for factor in retries:
        if sel is not None or selector.proved_infeasible:
            break
        # No set within the budget (a large catalog's selection can need more): again with
        # a larger deterministic budget - a time limit is not an answer while one is left.
        select_budget = factor * SELECT_DTIME  # retries only for the plan's own selection
        selector = SelectionModel(prep, scale, units, gain)
        sel = selector.solve(left(), select_budget, TIE_DTIME)
    if sel is None:
        if selector.proved_infeasible:
            return Solution("infeasible", stages=["selection: infeasible"])
        # Not a proof: the step's budgets ran out first (``api.plan`` says which: the last).
        spent = select_budget
        stages = ["selection: no answer in time"]
        return Solution("unknown", stages=stages, limit=("course_selection", spent))
    low = scale.credits(sel.lower_bound)
    stages = [f"selection: {scale.credits(sel.units):g} units (bound {low:g}) {ms()}"]
    largest = max(units.values(), default=0)
    bound = max(
        chain_bound(prep), capacity_bound(prep, sel.lower_bound, scale, max_courses, largest)
    )
    chosen: Selection = sel  # the set the term search places

    def fill(terms: int | None, dtime: float) -> dict[str, int] | None:
        fm = PlanModel(prep, max_courses=max_courses, courses=chosen.courses, counts=chosen.counts)
        if not fm.possible:
            return None
        fill_strategy(fm)
        if terms is not None:
            fm.fix_terms(terms)
        code, solver = run(fm, None, left(), dtime, fixed_search=True, presolve=FILL_PRESOLVE)
        ok = code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        return fm.extract(solver) if ok else None

    counts = sel.counts
    # `proven`: every graduation before the plan's is impossible and its units meet a bound.
    proven = sel.optimal
    placement = fill(bound, FILL_DTIME)
    stages.append(f"fill at {bound} (bound): {'found' if placement else 'none'} {ms()}")
    if placement is None and not first_only:
        # The suited set may be harder to place: the plain tie-breaks' set, before the
        # slow full model - a preference never costs graduation or units.
        # The fewest units are the selector's own (solved once); only the tie-breaks rerun.
        plain = selector.solve(left(), select_budget, TIE_DTIME, fit=False)
        if plain is not None and plain.courses != chosen.courses:
            chosen, counts, proven = plain, plain.counts, plain.optimal
            placement = fill(bound, FILL_DTIME)
            stages.append(f"plain fill at {bound}: {'found' if placement else 'none'} {ms()}")
            if placement is not None:
                placement, counts = _suit(prep, max_courses, bound, placement, counts, left())
                stages.append(f"electives at {bound} {ms()}")
    if placement is None:
        natural = fill(None, FILL_DTIME)
        top = max(natural.values(), default=-1) + 1 if natural is not None else len(prep.terms)
        stages.append(f"fill: {top if natural is not None else 'none'} {ms()}")
        decided = True  # every graduation tried so far was proved impossible
        ran_out: float | None = None  # the placement budget that ran out undecided
        for terms in range(bound, top if natural is not None else top + 1):
            if terms > bound and (found := fill(terms, FILL_DTIME)) is not None:
                placement = found
                stages.append(f"fill at {terms}: found {ms()}")
                break
            full = PlanModel(prep, max_courses=max_courses)
            if not full.possible:
                return Solution("infeasible", stages=[*stages, "full: a course has no term"])
            full.fix_terms(terms)
            full.m.add(full.units_expr() >= selector.floor)
            # Dormant courses and routine consent before units (``agents.planner.risky``).
            goal = before_units(prep, full.taken, full.k, full.units_expr(), full.units_max())
            given = left()
            code, solver = portfolio(full, goal, given)
            stages.append(f"full at {terms}: {solver.status_name(code)} {ms()}")
            if code == cp_model.INFEASIBLE:
                continue
            decided = False
            if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                ran_out = PORTFOLIO_DTIME
            if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                placement = full.extract(solver)
                counts = full.counts(solver)
                proven = code == cp_model.OPTIMAL
                if not first_only:
                    placement, counts = _suit(prep, max_courses, terms, placement, counts, left())
                    stages.append(f"electives at {terms} {ms()}")
            else:
                proven = False
            break
        if placement is None:
            if natural is None:
                if decided:
                    return Solution("infeasible", stages=stages)
                spent = ran_out if ran_out is not None else round(seconds, 6)
                return Solution("unknown", stages=stages, limit=("placement", spent))
            placement = natural
            proven = proven and decided
    terms = max(placement.values(), default=-1) + 1
    if not first_only and routine(prep, placement):
        # Placed in one term with the course that opens it: consent the order could avoid
        # (it comes before units, ``agents.planner.risky``), for these courses.
        placement, fewest = _fewer_risky(prep, max_courses, terms, placement, counts, left())
        if not fewest and (other := _risk_first(prep, max_courses, terms, placement, left())):
            # Other courses may avoid it: the full model by this graduation, risk first.
            placement, counts, fewest = other
            placement, counts = _suit(prep, max_courses, terms, placement, counts, left())
        proven = proven and fewest
        stages.append(f"consent: {'proved' if fewest else 'kept'} {ms()}")
    at_caps = terms - 1  # the graduation proved (or found) before any overload trade
    held: tuple[int, int] | None = None
    if prep.soft is not None and not first_only and terms > 0:
        om = PlanModel(prep, max_courses=max_courses, courses=sorted(placement), counts=counts)
        keep_routine(om, placement)
        om.hint(placement)
        for i, v in enumerate(om.y):
            om.m.add_hint(v, i < terms)
        ov = overload(om, placement)
        code, solver = run(om, least_overload(om, ov), left(), OVERLOAD_DTIME, presolve=False)
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            placement = om.extract(solver)
            terms = max(placement.values(), default=-1) + 1
            held = (solver.value(ov.units), solver.value(ov.terms))
        proven = proven and code == cp_model.OPTIMAL
        stages.append(f"overload: {solver.status_name(code)} {held} {ms()}")
    status: SolveStatus = "optimal" if proven else "feasible"
    if not first_only and terms > 0:
        sm = PlanModel(prep, max_courses=max_courses, courses=sorted(placement), counts=counts)
        keep_routine(sm, placement)
        sm.fix_terms(terms)
        sm.hint(placement)
        if held is not None:
            keep_overload(sm, placement, *held)
        code, solver = run(
            sm, balance(sm, terms, placement), left(), SECONDARY_DTIME, presolve=False
        )
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            placement = sm.extract(solver)
        stages.append(f"balance: {solver.status_name(code)} {ms()}")
    log.debug("planner.stages", stages=stages)
    sol = Solution(status, placement, counts, terms - 1, stages)
    sol.caps_graduation = at_caps if held is not None else -1
    return sol


def routine(prep: Prep, placement: dict[str, int]) -> list[str]:
    """Planned courses taken on consent although a course route exists."""
    needed = consent_needed(prep, placement)
    return [c for c in needed if route_exists(prep, prep.course(c).prerequisites)]


def keep_routine(pm: PlanModel, placement: dict[str, int]) -> None:
    """A later stage takes no more courses on consent that a course route could open than
    ``placement`` (they come before units; a budgeted stage could otherwise trade them)."""
    p = pm.prep
    lits = [v for c, v in pm.k.items() if route_exists(p, p.course(c).prerequisites)]
    if lits:
        pm.m.add(sum(lits) <= len(routine(p, placement)))


def _fewer_risky(
    prep: Prep,
    max_courses: int | None,
    terms: int,
    placement: dict[str, int],
    counts: dict[str, list[str]],
    seconds: float,
) -> tuple[dict[str, int], bool]:
    """The same courses and graduation with the fewest courses on consent that a course
    route could open (``risky.risky_parts``); whether none is left."""
    pm = PlanModel(prep, max_courses=max_courses, courses=sorted(placement), counts=counts)
    pm.fix_terms(terms)
    pm.hint(placement)
    code, solver = run(pm, weighted(risky_parts(prep, pm.taken, pm.k)), seconds, RISKY_DTIME)
    if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        placement = pm.extract(solver)
    return placement, not routine(prep, placement)


def _risk_first(
    prep: Prep, max_courses: int | None, terms: int, placement: dict[str, int], seconds: float
) -> tuple[dict[str, int], dict[str, list[str]], bool] | None:
    """The full model by graduation ``terms``: the fewest dormant courses and routine
    consent, then units (``RISKY_DTIME`` four times over); the plan, what it counts, and
    whether that is proved. None when nothing better than ``placement`` is found."""
    pm = PlanModel(prep, max_courses=max_courses)
    pm.fix_terms(terms)
    pm.hint(placement)
    goal = before_units(prep, pm.taken, pm.k, pm.units_expr(), pm.units_max())
    code, solver = run(pm, goal, seconds, 4 * RISKY_DTIME)
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return None
    found = pm.extract(solver)
    if code != cp_model.OPTIMAL and len(routine(prep, found)) >= len(routine(prep, placement)):
        return None
    return found, pm.counts(solver), code == cp_model.OPTIMAL


def _suit(
    prep: Prep,
    max_courses: int | None,
    terms: int,
    placement: dict[str, int],
    counts: dict[str, list[str]],
    seconds: float,
) -> tuple[dict[str, int], dict[str, list[str]]]:
    """The full model chose the courses by units alone: with graduation and units held,
    choose the fewest on consent, then the optional ones of most interest, then those that
    suit the student (``fillers.interest_shortfall``, ``fillers.elective_misfit``), within a
    deterministic budget; the given plan when none better is found."""
    em = PlanModel(prep, max_courses=max_courses)
    em.fix_terms(terms)
    em.m.add(em.units_expr() <= sum(em.u[c] for c in placement))
    em.hint(placement)
    misfit = elective_misfit(em.m, prep, em.taken)
    consent = (em.consent(), len(em.k))  # a signature outweighs any preference
    # No more dormant courses or routine consent than the plan found (they come before units).
    risky = risky_parts(prep, em.taken, em.k)
    goal = weighted([*risky, consent, interest_shortfall(prep, em.taken), misfit])
    code, solver = run(em, goal, seconds, ELECTIVE_DTIME, presolve=False)
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return placement, counts
    return em.extract(solver), em.counts(solver)
