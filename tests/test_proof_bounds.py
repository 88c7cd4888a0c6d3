"""How many whole-catalog relaxations a proof runs (``agents.planner.proof.bounds``): a plan
with no risky part takes the risky-first relaxation's weighted bound when its budget runs
out; a plan with risky parts still asks the units-only relaxation."""

from __future__ import annotations

from typing import Any

import pytest

import agents.planner.proof as proof
from agents.planner.bound import Relaxed
from agents.planner.proof import Bounds, Objective


class Calls:
    """A stand-in for ``bound.relax`` that answers from a script and records each call."""

    def __init__(self, *answers: Relaxed) -> None:
        self.answers = list(answers)
        self.kw: list[dict[str, Any]] = []

    def __call__(self, *args: Any, **kw: Any) -> Relaxed:
        self.kw.append(kw)
        return self.answers.pop(0)


def run_bounds(monkeypatch: pytest.MonkeyPatch, calls: Calls, obj: Objective) -> Bounds:
    monkeypatch.setattr(proof, "relax", calls)
    monkeypatch.setattr(proof, "spare_courses", lambda full, r: [])
    low = Bounds(obj.terms, 0, 200)
    return proof.bounds(object(), obj, low, ["A"], None, 1e12)  # type: ignore[arg-type]


def test_a_plan_without_risky_parts_takes_the_weighted_bound_when_the_budget_runs_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = Calls(Relaxed("bound", exact=False, weighted_bound=224, chosen=["B"]))
    b = run_bounds(monkeypatch, calls, Objective(5, 0, 225))
    assert [k.get("risky") for k in calls.kw] == [True]  # one relaxation, not two
    assert (b.terms, b.risky, b.units, b.courses) == (5, 0, 224, {"B"})
    assert not b.met_by(Objective(5, 0, 225))


def test_the_weighted_bound_never_falls_below_the_solver_free_floor(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    calls = Calls(Relaxed("bound", exact=False, weighted_bound=150))
    b = run_bounds(monkeypatch, calls, Objective(5, 0, 200))
    assert b.units == 200 and b.met_by(Objective(5, 0, 200))


def test_a_plan_with_a_risky_part_asks_the_units_only_relaxation(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The weighted bound bounds risk-free plans only: a plan with a dormant course needs the
    # units of every plan.
    calls = Calls(
        Relaxed("bound", exact=False, weighted_bound=224),
        Relaxed("bound", exact=True, units=221),
    )
    b = run_bounds(monkeypatch, calls, Objective(5, 1, 225))
    assert [k.get("risky") for k in calls.kw] == [True, None]
    assert (b.risky, b.units) == (0, 221)


def test_an_exact_risky_first_answer_is_the_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = Calls(Relaxed("bound", exact=True, risky=0, units=225, weighted_bound=225))
    b = run_bounds(monkeypatch, calls, Objective(5, 0, 225))
    assert len(calls.kw) == 1 and b.met_by(Objective(5, 0, 225))
