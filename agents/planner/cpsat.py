"""CP-SAT helpers shared by the planner's models: the model class, a deterministic solver,
one objective from parts in priority order, and the integer scale for fractional units."""

from __future__ import annotations

from ortools.sat.python import cp_model

SEED = 20260901
_SCALES = (1, 2, 4, 10, 20, 100)


class Model(cp_model.CpModel):
    """A CP-SAT model without the camelCase aliases ``CpModel`` attaches to every new
    instance (``_add_pre_pep8_methods``: a ``dir()`` walk, about a fifth of a millisecond
    per model and several models per plan); the planner only uses the snake_case API."""

    def _add_pre_pep8_methods(self) -> None:
        return None


def make_solver(seconds: float, dtime: float | None = None) -> cp_model.CpSolver:
    """One worker and a fixed seed: the same model always gives the same answer."""
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 1
    solver.parameters.random_seed = SEED
    solver.parameters.max_time_in_seconds = max(0.01, seconds)
    # Ctrl-C belongs to the pipeline runner (checkpoint, then stop), not to the solver.
    solver.parameters.catch_sigint_signal = False
    if dtime is not None:
        solver.parameters.max_deterministic_time = dtime
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


def unit_scale(values: list[float]) -> int:
    """Smallest factor that makes every unit value an integer (100 at most)."""
    for s in _SCALES:
        if all(abs(v * s - round(v * s)) < 1e-6 for v in values):
            return s
    return 100
