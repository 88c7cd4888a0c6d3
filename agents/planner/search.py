"""How the planner's time-indexed models are searched.

``fill_strategy`` installs the depth-first decision order used with CP-SAT's fixed search
(term by term, critical courses first); ``run`` solves a ``PlanModel`` once with the
planner's settings; ``portfolio`` tries a few deterministic settings in turn. Every solver
comes from ``make_solver``: one worker, a fixed seed and a deterministic budget, so the same
model always gives the same answer (wall-clock time is only the safety net,
``agents.planner.cpsat``).
"""

from __future__ import annotations

import time

import structlog
from ortools.sat.python import cp_model

from agents.catalog import CourseCond, iter_prereq
from agents.planner.cpsat import expired, make_solver
from agents.planner.model import PlanModel

log = structlog.get_logger(__name__)

PORTFOLIO: list[tuple[dict[str, object], float]] = [
    ({}, 0.05),
    ({"linearization_level": 0}, 0.05),
    ({"search_branching": cp_model.PORTFOLIO_WITH_QUICK_RESTART_SEARCH}, 0.05),
    ({"linearization_level": 2}, 0.1),
]
# No answer at all from the portfolio: longer runs (default settings) before the step is
# said to have timed out - a time limit is not an answer while a larger budget is left.
PORTFOLIO_RETRIES = (0.4, 1.6)
PORTFOLIO_DTIME = sum(d for _, d in PORTFOLIO) + sum(PORTFOLIO_RETRIES)  # the whole budget


def fill_strategy(pm: PlanModel) -> None:
    """Depth-first: term by term, courses with the longest chain of dependents first, then
    those that become available late, then those offered in few terms."""
    tail = _tails(pm)
    est = pm.prep.analysis.est
    order = sorted(
        (
            (i, -tail.get(c, 0), -est.get(c, 0), len(xs), c, v)
            for c, xs in pm.x.items()
            for i, v in xs.items()
        ),
        key=lambda t: t[:5],
    )
    pm.m.add_decision_strategy(
        [t[5] for t in order], cp_model.CHOOSE_FIRST, cp_model.SELECT_MAX_VALUE
    )


def _tails(pm: PlanModel) -> dict[str, int]:
    """Length of the longest chain of dependents of each course in the model."""
    deps: dict[str, list[str]] = {}
    for c in pm.x:
        course = pm.prep.course(c)
        for tree in (course.prerequisites, course.corequisites):
            for node in iter_prereq(tree):
                if isinstance(node, CourseCond) and node.course in pm.x:
                    deps.setdefault(node.course, []).append(c)
    memo: dict[str, int] = {}

    def tail(c: str, seen: frozenset[str]) -> int:
        if c not in memo:
            memo[c] = 1 + max(
                (tail(d, seen | {c}) for d in deps.get(c, []) if d not in seen), default=0
            )
        return memo[c]

    return {c: tail(c, frozenset()) for c in pm.x}


def run(
    pm: PlanModel,
    expr: cp_model.LinearExprT | None,
    seconds: float,
    dtime: float,
    *,
    fixed_search: bool = False,
    presolve: bool = True,
) -> tuple[cp_model.CpSolverStatus, cp_model.CpSolver]:
    """Solve ``pm`` once, minimizing ``expr`` when given."""
    if expr is not None:
        pm.m.minimize(expr)
    solver = make_solver(seconds, dtime)
    solver.parameters.linearization_level = 2
    # Small hinted models: presolve costs more than it saves and, for the balance
    # stage, measurably worsens the answer found within the budget.
    solver.parameters.cp_model_presolve = presolve
    if fixed_search:
        solver.parameters.search_branching = cp_model.FIXED_SEARCH
    code = solver.solve(pm.m)
    log.debug(
        "planner.solve",
        code=solver.status_name(code),
        fixed_set=pm.fixed_set,
        ms=round(solver.wall_time * 1000, 1),
        conflicts=solver.num_conflicts,
    )
    return code, solver


def portfolio(
    pm: PlanModel, expr: cp_model.LinearExprT, seconds: float
) -> tuple[cp_model.CpSolverStatus, cp_model.CpSolver]:
    """Short deterministic runs with different settings, then a long one: on tight
    packings each setting is sometimes fast and sometimes very slow (heavy tails); with no
    answer at all, longer runs (``PORTFOLIO_RETRIES``). Each run has a deterministic
    budget; ``seconds`` is the safety net."""
    pm.m.minimize(expr)
    deadline = time.perf_counter() + seconds
    best: tuple[cp_model.CpSolverStatus, cp_model.CpSolver] | None = None
    for params, dtime in PORTFOLIO:
        left = max(0.01, deadline - time.perf_counter())
        solver = make_solver(left, dtime, where="placement portfolio")
        for key, value in params.items():
            setattr(solver.parameters, key, value)
        code = solver.solve(pm.m)
        log.debug(
            "planner.portfolio",
            params=params,
            code=solver.status_name(code),
            ms=round(solver.wall_time * 1000, 1),
        )
        if code in (cp_model.OPTIMAL, cp_model.INFEASIBLE):
            return code, solver
        if code == cp_model.FEASIBLE and best is None:
            best = (code, solver)
        if expired(deadline, "placement portfolio"):
            return best if best is not None else (code, solver)
    for dtime in PORTFOLIO_RETRIES if best is None else ():
        if expired(deadline, "placement portfolio"):
            break
        solver = make_solver(max(0.01, deadline - time.perf_counter()), dtime, where="placement")
        code = solver.solve(pm.m)
        log.debug("planner.portfolio_retry", dtime=dtime, code=solver.status_name(code))
        if code in (cp_model.OPTIMAL, cp_model.INFEASIBLE, cp_model.FEASIBLE):
            return code, solver
    return best if best is not None else (code, solver)
