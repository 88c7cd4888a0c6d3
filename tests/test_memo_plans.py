"""Each planning problem of a request is solved once (``agents.planner.memo``): a question
asked again is answered with a copy of the first answer, which is what a fresh solve gives;
any difference in the inputs is another question; a result a time limit cut short is
solved again; a toolbox starts a new memo for each request; and a whole request decides
exactly as it does when every question is solved afresh."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

import agents.advice.nearby as nearby_module
import agents.planning.counter as counter_proposal_module
from agents.advice.nearby import close_programs, default_constraints
from agents.catalog import Catalog, StudentRecord, load_catalog, load_student
from agents.llm import LLMLedger
from agents.planner import PlanConstraints, PlannedTerm, PlanResult, TimeLimit, plan
from agents.planner import memo as plan_memo
from agents.planner.memo import PlanMemo, catalog_digest, problem_key
from agents.planning.counter import target_blockers
from agents.toolbox import Toolbox
from eval.counts import counting
from eval.suite import SCENARIO_DIR, SuiteRunner, load_scenarios
from pipeline.runner import ToolboxFactory

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop

STUDENTS = Path(__file__).resolve().parents[1] / "demos" / "students"
LOADS = PlanConstraints(max_units_per_term=54, horizon_terms=8, target_term="S2028")


@pytest.fixture(scope="module")
def cat() -> Catalog:
    return load_catalog()


@pytest.fixture(scope="module")
def junior() -> StudentRecord:
    return load_student(STUDENTS / "cs-junior.json")


class FakePlanner:
    """Answers every question with ``result`` and records what it was asked."""

    def __init__(self, result: PlanResult) -> None:
        self.result = result
        self.asked: list[list[str]] = []

    def __call__(
        self,
        catalog: Catalog,
        student: StudentRecord,
        programs: Sequence[str],
        constraints: PlanConstraints,
    ) -> PlanResult:
        self.asked.append(list(programs))
        return self.result.model_copy(deep=True)


def answer(**changes: object) -> PlanResult:
    result = PlanResult(
        status="optimal",
        terms=[PlannedTerm(term="S2027", courses=["15-213"], units=12.0)],
        graduation_term="S2027",
        units_planned=12.0,
        extra_units=0.0,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of={"15-213": ["CS-BS/cs-core"]},
        solve_ms=5.0,
    )
    return result.model_copy(update=changes)


def test_a_problem_asked_again_is_solved_once_and_each_caller_gets_a_copy(
    cat: Catalog, junior: StudentRecord
) -> None:
    fake, memo = FakePlanner(answer()), PlanMemo()
    first = memo.plan(fake, cat, junior, ["CS-BS"], LOADS)
    first.terms.clear()  # a caller's changes stay with that caller
    again = memo.plan(fake, cat, junior, ["CS-BS"], LOADS.model_copy())
    assert again == answer() and again is not memo.plan(fake, cat, junior, ["CS-BS"], LOADS)
    assert fake.asked == [["CS-BS"]]
    assert (memo.solved, memo.reused) == (1, 2)


def test_any_difference_in_the_inputs_is_another_problem(
    cat: Catalog, junior: StudentRecord
) -> None:
    key = problem_key(cat, junior, ["CS-BS", "MATH-MIN"], LOADS)
    same = problem_key(
        cat.model_copy(),
        StudentRecord.model_validate_json(junior.model_dump_json()),
        ("CS-BS", "MATH-MIN"),
        PlanConstraints.model_validate_json(LOADS.model_dump_json()),
    )
    assert same == key
    others = [
        problem_key(cat, junior, ["MATH-MIN", "CS-BS"], LOADS),
        problem_key(cat, junior, ["CS-BS"], LOADS),
        problem_key(cat, junior.model_copy(update={"gpa": 2.1}), ["CS-BS", "MATH-MIN"], LOADS),
        problem_key(
            cat, junior, ["CS-BS", "MATH-MIN"], LOADS.model_copy(update={"target_term": None})
        ),
        problem_key(
            cat.model_copy(update={"courses": cat.courses[:-1]}),
            junior,
            ["CS-BS", "MATH-MIN"],
            LOADS,
        ),
    ]
    assert len({key, *others}) == 6


def test_the_catalog_digest_is_computed_once_per_catalog_object(cat: Catalog) -> None:
    digest = catalog_digest(cat)
    assert cat.derived["content.sha256"] == digest == catalog_digest(cat.model_copy())
    assert catalog_digest(cat.model_copy(update={"courses": cat.courses[:-1]})) != digest


def test_a_result_a_time_limit_cut_short_is_solved_again(
    cat: Catalog, junior: StudentRecord
) -> None:
    limit = TimeLimit(stage="earliest_graduation", seconds=0.5, message="ran out")
    fake, memo = FakePlanner(answer(time_limits=[limit])), PlanMemo()
    for _ in range(2):
        memo.plan(fake, cat, junior, ["CS-BS"], LOADS)
    assert fake.asked == [["CS-BS"], ["CS-BS"]]
    nothing_kept = PlanMemo(size=0)
    for _ in range(2):
        nothing_kept.plan(FakePlanner(answer()), cat, junior, ["CS-BS"], LOADS)
    assert (nothing_kept.solved, nothing_kept.reused) == (2, 0)


def test_the_toolbox_starts_a_new_memo_for_each_request(cat: Catalog) -> None:
    tools = Toolbox(catalog=cat)
    memo = tools.plans
    assert tools.plans is memo and memo.owner is tools.ledger
    tools.ledger = LLMLedger()  # the pipeline hands the toolbox the next request's ledger
    assert tools.plans is not memo and tools.plans.owner is tools.ledger


def test_the_memo_answers_what_a_fresh_solve_gives(cat: Catalog, junior: StudentRecord) -> None:
    pc = default_constraints(cat, junior, horizon_terms=8)
    memo = PlanMemo()
    memo.plan(plan, cat, junior, ["CS-BS"], pc)
    kept = memo.plan(plan, cat, junior, ["CS-BS"], pc)
    fresh = plan(cat, junior, ["CS-BS"], pc)
    assert memo.reused == 1
    assert kept.model_copy(update={"solve_ms": 0.0}) == fresh.model_copy(update={"solve_ms": 0.0})


def test_a_single_programs_blocker_check_is_the_requests_own_plan(
    cat: Catalog, junior: StudentRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    memo = PlanMemo()
    memo.plan(FakePlanner(answer()), cat, junior, ["CS-BS"], LOADS)

    def no_solve(*args: object) -> PlanResult:
        raise AssertionError("the request solved this problem already")

    monkeypatch.setattr(counter_proposal_module, "plan", no_solve)
    assert target_blockers(cat, junior, ["CS-BS"], LOADS, plans=memo) == []
    fake = FakePlanner(answer(status="infeasible", earliest_feasible_term="F2028"))
    monkeypatch.setattr(counter_proposal_module, "plan", fake)
    assert target_blockers(cat, junior, ["CS-BS", "MATH-MIN"], LOADS, plans=memo) == [
        "MATH-MIN alone cannot finish by S2028; earliest F2028"
    ]
    assert fake.asked == [["MATH-MIN"]]


def test_the_close_programs_baseline_is_the_requests_own_plan(
    cat: Catalog, junior: StudentRecord, monkeypatch: pytest.MonkeyPatch
) -> None:
    memo = PlanMemo()
    none = answer(status="infeasible", terms=[], graduation_term=None, reasons=["no way"])
    memo.plan(FakePlanner(none), cat, junior, ["CS-BS"], LOADS)
    monkeypatch.setattr(nearby_module, "plan", FakePlanner(answer()))
    report = close_programs(cat, junior, LOADS, programs=["CS-BS"], plans=memo)
    assert (report.baseline_status, report.baseline_reasons) == ("infeasible", ["no way"])


@pytest.mark.parametrize(
    ("scenario_id", "problems", "asked_without_memo"),
    [("probation-target-too-early", 2, 3), ("close-minors-is-junior", 7, 8)],
)
def test_a_request_solves_each_problem_once_and_decides_as_before(
    scenario_id: str,
    problems: int,
    asked_without_memo: int,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    scenario = next(s for s in load_scenarios(SCENARIO_DIR) if s.id == scenario_id)
    factory = ToolboxFactory(index_dir=tmp_path / "index")
    runner = SuiteRunner(tmp_path / "runs", factory=factory)
    with counting() as counts:
        remembered = runner.run(scenario, pass_no=1)
        with_memo = counts.take()
        monkeypatch.setattr(plan_memo, "PLAN_MEMO_SIZE", 0)  # every question solved afresh
        afresh = runner.run(scenario, pass_no=2)
        without = counts.take()
    assert (with_memo["plan"], with_memo["plan_problems"]) == (problems, problems)
    assert (without["plan"], without["plan_problems"]) == (asked_without_memo, problems)
    assert with_memo["solves"] < without["solves"]
    assert remembered.ctx is not None and remembered.ctx.outcome == scenario.expect.outcome
    assert remembered.digest == afresh.digest
