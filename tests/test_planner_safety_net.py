"""Issue #26: every solver budget is deterministic; wall-clock time is only a safety net,
and an answer reached after it fired is labelled ``timed_out``, never given as the normal
answer. A solver stopped by the wall clock is told apart from one whose deterministic
budget ran out; the same model within the same budget gives the same answer whatever wall
limit it has; a planning call whose safety net fired returns no plan, says where it fired,
and logs it."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import structlog
from ortools.sat.python import cp_model

import agents.planner.api as api
import agents.planner.kbest as kbest
from agents.catalog import use_catalog
from agents.planner import PlanConstraints, alternatives, plan
from agents.planner.cpsat import Model, Watch, expired, make_solver, watch
from tests.overload_helpers import CATALOG, sophomore


def knapsack(n: int = 400, seed: int = 1) -> Model:
    """A model CP-SAT cannot prove optimal in a few milliseconds (its variables: ``x0``...)."""
    rng = random.Random(seed)
    m = Model()
    xs = [m.new_bool_var(f"x{i}") for i in range(n)]
    w = [rng.randint(10**5, 10**6) for _ in xs]
    v = [rng.randint(10**5, 10**6) for _ in xs]
    m.add(sum(a * x for a, x in zip(w, xs, strict=True)) <= sum(w) // 2)
    m.maximize(sum(a * x for a, x in zip(v, xs, strict=True)))
    return m


def test_a_solver_stopped_by_the_wall_clock_fires_the_safety_net() -> None:
    with watch(60.0) as w:
        solver = make_solver(0.01, 100.0, where="knapsack")
        code = solver.solve(knapsack())
    assert code not in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
    assert w.fired == ["knapsack"]


def test_a_solver_stopped_by_its_deterministic_budget_is_the_normal_answer() -> None:
    with watch(60.0) as w:
        solver = make_solver(60.0, 0.05)
        code = solver.solve(knapsack())
    assert code not in (cp_model.OPTIMAL, cp_model.INFEASIBLE)  # not proved within 0.05
    assert solver.deterministic_time >= 0.05
    assert w.fired == []


def test_the_same_budget_gives_the_same_answer_whatever_the_wall_limit() -> None:
    found = set()
    for seconds in (5.0, 50.0, 500.0):
        model = knapsack(120)
        solver = make_solver(seconds, 0.2)
        code = solver.solve(model)
        assert code in (cp_model.OPTIMAL, cp_model.FEASIBLE)
        chosen = tuple(solver.response_proto.solution)
        found.add((code, solver.objective_value, solver.deterministic_time, chosen))
    assert len(found) == 1


def test_a_deadline_checked_after_it_passed_fires_once_and_is_remembered() -> None:
    with watch(1.0) as w:
        assert not expired(time.perf_counter() + 60, "early")
        assert expired(time.perf_counter() - 1, "late")
        assert expired(time.perf_counter() - 1, "later")
    assert w.fired == ["late", "later"]


def test_an_inner_watch_belongs_to_the_outer_call() -> None:
    with watch(5.0) as outer, watch(1.0) as inner:
        assert inner is outer


@contextmanager
def fired(seconds: float) -> Iterator[Watch]:
    """The safety net of a call on an overloaded machine: it has already fired."""
    with watch(seconds) as w:
        w.deadline = time.perf_counter() - 1
        w.fire("course selection")
        yield w


def test_a_plan_reached_after_the_safety_net_fired_is_labelled_timed_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with use_catalog(CATALOG):
        normal = plan(CATALOG, sophomore(), ["MAJ"], PlanConstraints(max_units_per_term=4))
        assert normal.status == "optimal"
        monkeypatch.setattr(api, "watch", fired)
        with structlog.testing.capture_logs() as logs:
            result = plan(CATALOG, sophomore(), ["MAJ"], PlanConstraints(max_units_per_term=4))
    assert (result.status, result.infeasible_kind, result.terms) == ("infeasible", "timed_out", [])
    (limit,) = result.time_limits
    assert (limit.stage, limit.seconds) == ("wall_clock", 60.0)
    assert result.reasons == [limit.message]
    assert limit.message.startswith(
        "the planner's safety limit of 60 s of wall-clock time ran out (course selection)"
    )
    assert "run the request again, or raise time_limit_s" in limit.message
    warnings = [e["event"] for e in logs if e["log_level"] == "warning"]
    assert warnings == ["planner.safety_net", "planner.timed_out"]


def test_alternatives_found_after_the_safety_net_fired_are_not_shown(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    c = PlanConstraints(max_units_per_term=4, max_courses_per_term=4)
    with use_catalog(CATALOG):
        best = plan(CATALOG, sophomore(), ["MAJ"], c)
        assert alternatives(CATALOG, sophomore(), ["MAJ"], c, best, 2) != []
        monkeypatch.setattr(kbest, "watch", fired)
        with structlog.testing.capture_logs() as logs:
            found = alternatives(CATALOG, sophomore(), ["MAJ"], c, best, 2)
    assert found == []
    assert "planner.alternatives.timed_out" in [e["event"] for e in logs]
