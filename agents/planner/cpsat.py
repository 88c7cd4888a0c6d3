"""CP-SAT helpers shared by the planner's models: the model class, a deterministic solver,
the wall-clock safety net, one objective from parts in priority order, and credits as whole
numbers (``Steps``).

**Deterministic budgets.** Every solve has a budget in CP-SAT's deterministic time
(``max_deterministic_time``: work done, not seconds passed), one search worker and a fixed
seed, so what it returns depends on the model alone - never on the machine's load. Loops
over solves are bounded by counts. Wall-clock time is only a safety net (``watch``: the
request's ``time_limit_s``): when it fires - a solver stopped by it, or a loop that checked
it - the planning call records it (``Watch.fired``), logs ``planner.safety_net`` and its
answer is labelled ``timed_out`` instead of being presented as the normal answer
(``agents.planner.api``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from fractions import Fraction

import structlog
from ortools.sat.python import cp_model

from agents.catalog import Catalog
from agents.catalog.credits import HUNDREDTHS, credit_step, from_hundredths

log = structlog.get_logger(__name__)

SEED = 20260901
# A solver stopped this close to its wall limit, short of its deterministic budget, was
# stopped by the wall clock (CP-SAT checks its limits between steps).
WALL_SHARE = 0.9


@dataclass
class Watch:
    """The wall-clock safety net of one planning call: its limit, and where it fired."""

    seconds: float
    deadline: float
    fired: list[str] = field(default_factory=list)

    def fire(self, where: str) -> None:
        if not self.fired:
            log.warning("planner.safety_net", where=where, seconds=self.seconds)
        self.fired.append(where)


_WATCH: ContextVar[Watch | None] = ContextVar("planner_watch", default=None)


@contextmanager
def watch(seconds: float) -> Iterator[Watch]:
    """The safety net for the planning call inside: ``seconds`` of wall-clock time. A call
    inside another keeps the outer one (it fires for both)."""
    outer = _WATCH.get()
    if outer is not None:
        yield outer
        return
    w = Watch(seconds, time.perf_counter() + seconds)
    token = _WATCH.set(w)
    try:
        yield w
    finally:
        _WATCH.reset(token)


def expired(deadline: float, where: str) -> bool:
    """Whether the wall-clock ``deadline`` has passed - the safety net only: when it has, the
    planning call's answer is labelled ``timed_out`` (``Watch.fired``)."""
    if time.perf_counter() < deadline:
        return False
    w = _WATCH.get()
    if w is not None:
        w.fire(where)
    return True


class Solver(cp_model.CpSolver):
    """A CP-SAT solver that tells the safety net when the wall clock, not its deterministic
    budget, stopped it."""

    def __init__(self, where: str = "solver") -> None:
        super().__init__()
        self.where = where

    def solve(
        self,
        model: cp_model.CpModel,
        solution_callback: cp_model.CpSolverSolutionCallback | None = None,
    ) -> cp_model.CpSolverStatus:
        code = super().solve(model, solution_callback)
        p = self.parameters
        if (
            code not in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
            and self.wall_time >= WALL_SHARE * p.max_time_in_seconds
            and self.deterministic_time < p.max_deterministic_time
        ):
            w = _WATCH.get()
            if w is not None:
                w.fire(self.where)
            else:
                log.warning("planner.safety_net", where=self.where, seconds=p.max_time_in_seconds)
        return code


class Model(cp_model.CpModel):
    """A CP-SAT model without the camelCase aliases ``CpModel`` attaches to every new
    instance (``_add_pre_pep8_methods``: a ``dir()`` walk, about a fifth of a millisecond
    per model and several models per plan); the planner only uses the snake_case API."""

    def _add_pre_pep8_methods(self) -> None:
        return None

    def clone(self) -> Model:
        """A copy of this model (its proto: variables by the same indices, constraints,
        objective, hints), as a ``Model``."""
        twin = Model()
        twin.proto.copy_from(self.proto)
        twin.rebuild_constant_map()
        return twin


def make_solver(
    seconds: float, dtime: float, *, symmetry: bool = True, where: str = "solver"
) -> Solver:
    """One worker, a fixed seed and a deterministic budget (``dtime``): the same model
    always gives the same answer. ``seconds`` of wall-clock time is the safety net only
    (module docstring). Without ``symmetry`` CP-SAT does not look for symmetries (a model
    that orders its interchangeable variables itself, ``agents.planner.twins``, only pays
    for the search)."""
    solver = Solver(where)
    if not symmetry:
        solver.parameters.symmetry_level = 0
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = SEED
    solver.parameters.max_time_in_seconds = max(0.01, seconds)
    solver.parameters.max_deterministic_time = dtime
    # Ctrl-C belongs to the pipeline runner (checkpoint, then stop), not to the solver.
    solver.parameters.catch_sigint_signal = False
    return solver


def weighted(parts: list[tuple[cp_model.LinearExpr | int, int]]) -> cp_model.LinearExpr | int:
    """``parts`` in priority order, each (expression >= 0, its upper bound): one objective
    whose weights make every part dominate all later ones."""
    weight = 1
    expr: cp_model.LinearExpr | int = 0
    for e, ub in reversed(parts):
        expr = expr + weight * e
        weight *= ub + 1
    return expr


@dataclass(frozen=True)
class Steps:
    """Credits as the models count them: whole steps of the catalog's credit system
    (``credit_step``: 9- and 12-unit courses count 9 and 12, 1-, 0.5- and 0.25-credit ones
    4, 2 and 1). A catalog whose every unit value is multiplied by a factor gives the same
    counts, hence the same models and the same plans: nothing assumes a unit size."""

    step: int  # hundredths of a credit per step
    # Unit values seen so far -> steps: a catalog has few unit sizes, and every model
    # counts every candidate's units (a catalog ten times larger, ten times as often).
    _counts: dict[float, int] = field(default_factory=dict, compare=False, repr=False)

    def count(self, value: float) -> int:
        """A course's units (a whole number of steps)."""
        hit = self._counts.get(value)
        if hit is None:
            hit = self._counts[value] = round(self._steps(value))
        return hit

    def floor(self, value: float) -> int:
        """Most steps within ``value`` (a cap: a load of whole courses fits under the cap
        exactly when its steps fit under this)."""
        return math.floor(self._steps(value))

    def ceil(self, value: float) -> int:
        """Fewest steps that reach ``value`` (a floor, a total, a units threshold)."""
        return math.ceil(self._steps(value))

    def credits(self, steps: int) -> float:
        return from_hundredths(steps * self.step)

    def _steps(self, value: float) -> Fraction:
        # Credits are decimals with two places: read the float as the decimal it stands for
        # (36 - 35.75 is 0.25, not 0.2500000000000036); anything else exactly as it is.
        h = value * HUNDREDTHS
        near = round(h)
        return Fraction(near if abs(h - near) < 1e-6 else h) / self.step


def catalog_steps(catalog: Catalog) -> Steps:
    """The credit steps of ``catalog`` (computed once, kept with it)."""
    hit = catalog.derived.get("planner.steps")
    if isinstance(hit, Steps):
        return hit
    steps = Steps(credit_step(c.units for c in catalog.courses))
    catalog.derived["planner.steps"] = steps
    return steps
