"""Issue #17, item 1: every "infeasible" says which it is. A request no plan can meet is
proved infeasible with its cause ("proven"); a step whose time limit ran out is reported as
such - the step, its limit in seconds, and that this proves nothing ("timed_out") - in the
planner's result, the Schedule, the critique and the recommendation. Each defect is
reproduced on a small catalog of 1.0-credit courses (``tests.overload_helpers``)."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

import agents.planner.sections as sections_module
import agents.planner.solve as solve_module
from agents import critique, synthesis
from agents.artifacts import Schedule
from agents.catalog import use_catalog
from agents.negotiation import proposal_line
from agents.planner import PlanConstraints, TimeLimit, plan, select_sections
from agents.planner.api import _main_limit
from agents.planner.solution import Solution
from agents.planning import section_limit
from agents.toolbox import Toolbox
from tests.overload_helpers import CATALOG, FIVE, REQUIRED, round_one, sophomore


@pytest.fixture(autouse=True)
def _one_credit_catalog() -> object:
    with use_catalog(CATALOG):
        yield


def test_next_term_courses_over_the_cap_are_proved_infeasible_without_the_solver() -> None:
    """Five 1.0-credit courses fixed in a 4-credit term: was "the fixed course placements
    cannot be kept" after the solver and a relaxation search; now proved at once, with the
    load and the cap."""
    c = PlanConstraints(max_units_per_term=4, fixed=dict.fromkeys(FIVE, "S2027"))
    t0 = time.perf_counter()
    result = plan(CATALOG, sophomore(), ["MAJ"], c)
    assert (result.status, result.infeasible_kind, result.time_limits) == (
        "infeasible",
        "proven",
        [],
    )
    assert result.reasons == [
        "the courses fixed in S2027 (AA 101, AA 102, AA 103, AA 104, AA 105) carry 5 credits, "
        "above that term's cap of 4 credits; carrying them needs an overload approval "
        "(LOAD-OVERLOAD allows up to 5 credits with advisor approval)"
    ]
    assert time.perf_counter() - t0 < 2.0  # no solve, no diagnosis (about a millisecond)


def test_fixed_courses_over_the_course_limit_are_proved_infeasible() -> None:
    c = PlanConstraints(
        max_units_per_term=6, max_courses_per_term=4, fixed=dict.fromkeys(FIVE, "S2027")
    )
    result = plan(CATALOG, sophomore(), ["MAJ"], c)
    assert result.infeasible_kind == "proven"
    assert result.reasons == [
        "5 courses are fixed in S2027 (AA 101, AA 102, AA 103, AA 104, AA 105), above the "
        "limit of 4 courses per term"
    ]


def test_a_selection_budget_that_runs_out_is_a_timeout_never_a_proof(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The course selection's own budget ran out after a fraction of a second: the request
    used to read "the solver found no plan within 10 s", a proof in all but name."""
    monkeypatch.setattr(solve_module, "SELECT_DTIME", 1e-9)
    monkeypatch.setattr(solve_module, "SELECT_RETRIES", (1.0, 2.0))  # still too small
    result = plan(CATALOG, sophomore(), ["MAJ"], PlanConstraints(max_units_per_term=4))
    assert (result.status, result.infeasible_kind) == ("infeasible", "timed_out")
    message = (
        "no plan was found within 1 ms at course selection; this does not prove that none exists"
    )
    assert result.reasons == [message]
    # The last budget tried: the selection ran again with larger ones before giving up.
    last = solve_module.SELECT_RETRIES[-1] * 1e-9
    limit = TimeLimit(stage="course_selection", seconds=last, message=message)
    assert result.time_limits == [limit]


def test_a_selection_that_runs_out_runs_again_with_a_larger_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A time limit is not an answer while a larger budget is left: the first selection
    budget is far too small, the retry's is enough, and the plan comes out."""
    monkeypatch.setattr(solve_module, "SELECT_DTIME", 1e-9)
    monkeypatch.setattr(solve_module, "SELECT_RETRIES", (1e9,))  # 1e-9 -> 1.0
    result = plan(CATALOG, sophomore(), ["MAJ"], PlanConstraints(max_units_per_term=4))
    assert result.status == "optimal" and result.time_limits == []


def test_a_timed_out_earliest_graduation_leaves_the_proof_standing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Eight required courses cannot finish by S2027 (proved by counting units); the search
    for the earliest feasible term then runs out of time: the request is still proved
    infeasible, and the unknown earliest term is said to be unknown."""
    monkeypatch.setattr(solve_module, "SELECT_DTIME", 1e-9)
    monkeypatch.setattr(solve_module, "SELECT_RETRIES", ())
    c = PlanConstraints(max_units_per_term=4, target_term="S2027")
    result = plan(CATALOG, sophomore(), ["MAJ"], c)
    assert (result.infeasible_kind, result.earliest_feasible_term) == ("proven", None)
    assert result.reasons == [
        "8 remaining credits need 2 terms at 5 credits (the most LOAD-OVERLOAD allows, with "
        "advisor approval), only 1 remains through the target S2027"
    ]
    assert [(x.stage, x.message[:48]) for x in result.time_limits] == [
        ("earliest_graduation", "the earliest feasible graduation was not found w")
    ]


def test_a_placement_limit_on_the_full_pool_says_where_it_ran_out() -> None:
    far = time.perf_counter() + 3600
    sol = Solution("unknown", limit=("placement", 2.5), retried=True)
    assert _main_limit(sol, None, far, 10.0) == TimeLimit(
        stage="placement",
        seconds=2.5,
        message="no plan was found within 2.5 s at placing the courses in terms on the full "
        "candidate pool (the pruned pool has no plan); this does not prove that none exists",
    )
    # The planner's own limit spent: that is the limit named, and raising it the fix.
    spent = _main_limit(Solution("unknown", limit=("course_selection", 0.05)), None, 0.0, 10.0)
    assert spent.seconds == 10.0
    assert spent.message == (
        "no plan was found within the planner's 10 s time limit (it ran out at course "
        "selection); this does not prove that none exists - raise time_limit_s"
    )


def test_a_section_search_that_runs_out_says_its_choice_is_not_proved(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sections_module, "SECTION_DTIME", 1e-9)
    choice = select_sections(CATALOG, "S2027", REQUIRED[:3])
    assert (choice.status, choice.timed_out) == ("ok", 1e-9)
    assert section_limit(choice) == TimeLimit(
        stage="section_selection",
        seconds=1e-9,
        message="the S2027 section search ran out of its 1e-09 s limit: the choice is valid "
        "but not proved the best for the time wishes",
    )


def test_the_students_own_cap_under_the_courses_they_want_is_a_proved_cause() -> None:
    """A next-term request for five courses with a 4-credit cap of the student's own: no plan
    exists, and the schedule, the critique and the summary say so with the cause."""
    r = round_one(sophomore(), intent="plan_next_term", include_courses=FIVE, max_units_per_term=4)
    s = r.schedule
    assert (s.solver_status, s.infeasible_kind, s.time_limits) == ("infeasible", "proven", [])
    cause = (
        "the courses fixed in S2027 (AA 101, AA 102, AA 103, AA 104, AA 105) carry 5 credits, "
        "above that term's cap of 4 credits; carrying them needs an overload approval "
        "(LOAD-OVERLOAD allows up to 5 credits with advisor approval)"
    )
    assert s.reasons == [cause]
    assert r.critique.explanation == (
        f"Nothing to approve: no plan to check: the planner proved that no plan exists ({cause})."
    )


def _timed_out() -> Schedule:
    limit = TimeLimit(
        stage="course_selection",
        seconds=0.5,
        message="no plan was found within 0.5 s at course selection; this does not prove that "
        "none exists",
    )
    return Schedule(
        status="done",
        round=1,
        solver_status="infeasible",
        infeasible_kind="timed_out",
        time_limits=[limit],
        reasons=[limit.message],
    )


def test_a_timed_out_schedule_is_never_called_a_proof_downstream(tmp_path: Path) -> None:
    r = round_one(sophomore(), intent="plan_degree")
    schedule = _timed_out()
    got = critique.review(r.intake, schedule, Toolbox(catalog=CATALOG, index_dir=tmp_path))
    assert got.approval == "not_needed"
    assert got.explanation == (
        "Nothing to approve: no plan to check: the planner found none in time (no plan was "
        "found within 0.5 s at course selection; this does not prove that none exists)."
    )
    summary = synthesis.summarize(r.intake, r.proposal, schedule, got, "infeasible", [], CATALOG)
    assert summary == (
        "No plan found in time: no plan was found within 0.5 s at course selection; this does "
        "not prove that none exists."
    )
    assert proposal_line(schedule) == (
        "No plan found in time (not proved infeasible): no plan was found within 0.5 s at "
        "course selection; this does not prove that none exists"
    )


def test_an_older_checkpoints_schedule_loads_without_the_new_fields() -> None:
    old = {"status": "done", "round": 1, "solver_status": "infeasible", "reasons": ["x"]}
    s = Schedule.model_validate(old)
    assert (s.infeasible_kind, s.time_limits) == (None, [])


@pytest.mark.parametrize(
    ("constraints", "reason"),
    [
        (
            PlanConstraints(max_units_per_term=4, term_min_courses={"S2027": 5}),
            "5 courses wanted in S2027 carry at least 5 credits, above that term's cap of 4 "
            "credits; carrying them needs an overload approval (LOAD-OVERLOAD allows up to 5 "
            "credits with advisor approval)",
        ),
        (
            PlanConstraints(
                max_units_per_term=6, max_courses_per_term=4, term_min_courses={"S2027": 5}
            ),
            "5 courses are wanted in S2027, above the limit of 4 courses per term",
        ),
        (
            PlanConstraints(max_units_per_term=20, term_min_courses={"S2027": 13}),
            "13 courses are wanted in S2027, but only 12 can be taken then",
        ),
    ],
)
def test_a_number_of_courses_a_term_cannot_hold_is_proved_at_once(
    constraints: PlanConstraints, reason: str
) -> None:
    result = plan(CATALOG, sophomore(), ["MAJ"], constraints)
    assert (result.infeasible_kind, result.reasons) == ("proven", [reason])


def test_a_number_of_courses_wanted_is_planned_in_its_term() -> None:
    c = PlanConstraints(
        max_units_per_term=4, term_max_units={"S2027": 5}, term_min_courses={"S2027": 5}
    )
    result = plan(CATALOG, sophomore(), ["MAJ"], c)
    assert [(t.term, len(t.courses)) for t in result.terms] == [("S2027", 5), ("F2027", 3)]


class _Knapsack:
    """What ``portfolio`` reads of a plan model: its CP-SAT model (a 40-item knapsack)."""

    def __init__(self) -> None:
        from ortools.sat.python import cp_model

        self.m = cp_model.CpModel()
        xs = [self.m.new_bool_var(f"x{i}") for i in range(40)]
        weights = [(i * 37) % 23 + 5 for i in range(40)]
        self.m.add(sum(w * x for w, x in zip(weights, xs, strict=True)) <= 200)
        self.goal = -sum(((i * 53) % 31 + 1) * x for i, x in enumerate(xs))


def test_a_placement_portfolio_with_no_answer_runs_longer_before_it_times_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ortools.sat.python import cp_model

    from agents.planner import search

    monkeypatch.setattr(search, "PORTFOLIO", [({}, 1e-9)])
    k = _Knapsack()
    monkeypatch.setattr(search, "PORTFOLIO_RETRIES", ())
    code, _ = search.portfolio(k, k.goal, 60.0)  # type: ignore[arg-type]
    assert code == cp_model.UNKNOWN  # the short run alone: no answer
    monkeypatch.setattr(search, "PORTFOLIO_RETRIES", (1e-9, 1.0))
    k = _Knapsack()
    code, solver = search.portfolio(k, k.goal, 60.0)  # type: ignore[arg-type]
    assert code in (cp_model.OPTIMAL, cp_model.FEASIBLE) and solver.objective_value < 0
