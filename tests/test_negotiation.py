"""Negotiation helpers: the round record, the terminal status table and the loop guards."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from agents.artifacts import (
    ConstraintChange,
    ConstraintSet,
    Critique,
    IntakeResult,
    NegotiationRound,
    OpenQuestion,
    Refinement,
    Risk,
    Schedule,
    Violation,
)
from agents.negotiation import (
    after_refinement,
    make_round,
    next_step,
    proposal_line,
    terminal_status,
)
from tests.test_policy import PLAN_63, cite, intake, record, schedule

CHANGE = ConstraintChange(
    field="max_units_per_term", before=63, after=54, reason="cap", rule_id="LOAD-MAX"
)
LOAD = Violation(
    rule_id="LOAD-MAX",
    severity="hard",
    term="S2027",
    message="Spring 2027 has 63 units; with a GPA of 2.60 the limit is 54 units",
    citation=cite("LOAD-MAX"),
)
ELIG = Violation(
    rule_id="MINOR-ELIG",
    severity="hard",
    message="CS-MIN is not open to students in CS-BS",
    citation=cite("MINOR-ELIG"),
)
RISK = Risk(kind="target_missed", message="late", term="S2029")


def _critique(
    approval: str, *, violations: Sequence[Violation] = (), risks: Sequence[Risk] = ()
) -> Critique:
    status = "not_needed" if approval == "not_needed" else "done"
    return Critique(
        status=status,  # type: ignore[arg-type]
        round=1,
        approval=approval,  # type: ignore[arg-type]
        violations=list(violations),
        risks=list(risks),
    )


def _refinement(status: str) -> Refinement:
    constraints = ConstraintSet(max_units_per_term=54) if status == "revised" else None
    return Refinement(status=status, round=1, constraints=constraints)  # type: ignore[arg-type]


PLANNED = schedule(PLAN_63, target="F2028")
INFEASIBLE = Schedule(
    status="done", round=1, solver_status="infeasible", reasons=["15-451 cannot fit"]
)
NOT_RUN = Schedule(
    status="not_needed",
    round=1,
    solver_status="not_run",
    not_needed_reason="a policy question needs no plan",
)


def test_make_round_records_proposal_violations_and_revision() -> None:
    got = make_round(
        PLANNED,
        _critique("rejected", violations=[LOAD, ELIG]),
        Refinement(status="revised", round=1, changes=[CHANGE]),
        "revised",
    )
    assert got == NegotiationRound(
        round=1,
        proposal="Graduate F2028 in 4 planned terms, max 63 units/term (optimal)",
        graduation_term="F2028",
        solver_status="optimal",
        approval="rejected",
        violations=[
            "LOAD-MAX (S2027): Spring 2027 has 63 units; with a GPA of 2.60 the limit is 54 units",
            "MINOR-ELIG: CS-MIN is not open to students in CS-BS",
        ],
        revision=[CHANGE],
        resolution="revised",
    )


@pytest.mark.parametrize(
    ("sched", "line"),
    [
        (NOT_RUN, "No plan: a policy question needs no plan"),
        (INFEASIBLE, "No feasible plan (infeasible): 15-451 cannot fit"),
    ],
)
def test_proposal_line_without_a_plan(sched: Schedule, line: str) -> None:
    assert proposal_line(sched) == line


LOW = intake(record(), target="F2028")
ASK_PROGRAM = OpenQuestion(field="add_programs", question="Which minor?", source_text="a minor")
ASK_TARGET = OpenQuestion(field="target_graduation", question="When?", source_text="soonish")


@pytest.mark.parametrize(
    ("case", "intake_result", "sched", "verdict", "refined", "rounds", "outcome"),
    [
        ("policy question", intake(record(), intent="policy_question"), NOT_RUN,
         _critique("not_needed"), None, 1, "answered"),
        ("progress check", intake(record(), intent="check_progress"), NOT_RUN,
         _critique("not_needed"), None, 1, "answered"),
        ("program question blocks", intake(record(), questions=[ASK_PROGRAM]), PLANNED,
         _critique("approved"), None, 1, "needs_input"),
        ("nothing to plan", intake(record(), programs=[]), PLANNED,
         _critique("approved"), None, 1, "needs_input"),
        ("target question does not block", intake(record(), questions=[ASK_TARGET]), PLANNED,
         _critique("approved"), None, 1, "approved"),
        ("solver proved infeasible", LOW, INFEASIBLE,
         _critique("not_needed"), None, 1, "infeasible"),
        ("infeasible with an ineligible minor", LOW, INFEASIBLE,
         _critique("not_needed", violations=[ELIG]), None, 1, "infeasible"),
        ("rejected at the round bound", LOW, PLANNED,
         _critique("rejected", violations=[LOAD]), None, 3, "unresolved_after_max_rounds"),
        ("rejected, refinement changed nothing", LOW, PLANNED,
         _critique("rejected", violations=[LOAD]), _refinement("no_change"), 1,
         "unresolved_after_max_rounds"),
        ("conditional", LOW, PLANNED,
         _critique("conditional", risks=[RISK]), None, 3, "approved_with_risks"),
        ("approved with risks", LOW, PLANNED,
         _critique("approved", risks=[RISK]), None, 2, "approved_with_risks"),
        ("approved clean", LOW, PLANNED, _critique("approved"), None, 1, "approved"),
    ],
)  # fmt: skip
def test_terminal_status(
    case: str,
    intake_result: IntakeResult,
    sched: Schedule,
    verdict: Critique,
    refined: Refinement | None,
    rounds: int,
    outcome: str,
) -> None:
    got = terminal_status(intake_result, sched, verdict, refined, rounds, 3)
    assert got == outcome, case


@pytest.mark.parametrize(
    ("approval", "previous", "rounds", "step"),
    [
        ("rejected", None, 1, "refine"),
        ("conditional", _refinement("revised"), 2, "refine"),
        ("rejected", None, 3, "synthesize"),
        ("rejected", _refinement("no_change"), 2, "synthesize"),
        ("approved", None, 1, "synthesize"),
        ("not_needed", None, 1, "synthesize"),
    ],
)
def test_next_step(approval: str, previous: Refinement | None, rounds: int, step: str) -> None:
    assert next_step(_critique(approval), previous, rounds, 3) == step


@pytest.mark.parametrize(
    ("status", "step"),
    [("revised", "schedule"), ("no_change", "synthesize"), ("not_needed", "synthesize")],
)
def test_after_refinement(status: str, step: str) -> None:
    assert after_refinement(_refinement(status)) == step
