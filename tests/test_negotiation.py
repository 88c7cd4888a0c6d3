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
from agents.case import Case
from agents.errors import MissingArtifactError
from agents.negotiation import (
    close_round,
    conclude,
    make_round,
    proposal_line,
    revised,
    terminal_status,
    wants_refinement,
)
from tests.fake_stages import make_request
from tests.policy_helpers import PLAN_63, cite, intake, record, schedule

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
        proposal="Graduate in Fall 2028 after 4 planned terms, at most 63 units in a term "
        "(optimal)",
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
    assert terminal_status(intake_result, sched, verdict) == outcome, case


def _case(round_: int, verdict: Critique, refined: Refinement | None = None) -> Case:
    """A case in round ``round_`` whose current round has ``verdict`` (and ``refined``)."""
    earlier = [_critique("rejected")] * (round_ - 1)
    return Case(
        request=make_request("r1"),
        round=round_,
        intake=LOW,
        schedules=tuple([PLANNED] * round_),
        critiques=(*earlier, verdict),
        refinements=tuple([_refinement("revised")] * (round_ - 1))
        + ((refined,) if refined is not None else ()),
    )


@pytest.mark.parametrize(
    ("approval", "rounds", "refine"),
    [
        ("rejected", 1, True),
        ("conditional", 2, True),
        ("rejected", 3, False),
        ("approved", 1, False),
        ("not_needed", 1, False),
    ],
)
def test_wants_refinement(approval: str, rounds: int, refine: bool) -> None:
    assert wants_refinement(_case(rounds, _critique(approval)), max_rounds=3) is refine


@pytest.mark.parametrize(
    ("status", "again"), [("revised", True), ("no_change", False), ("not_needed", False)]
)
def test_revised(status: str, again: bool) -> None:
    assert revised(_case(1, _critique("rejected"), _refinement(status))) is again


@pytest.mark.parametrize(
    ("verdict", "refined", "after", "outcome", "resolution"),
    [
        (_critique("approved"), None, False, "approved", "approved"),
        (_critique("rejected", violations=[LOAD]), None, False,
         "unresolved_after_max_rounds", "max_rounds"),
        (_critique("rejected", violations=[LOAD]), _refinement("no_change"), True,
         "unresolved_after_max_rounds", "no_change"),
    ],
)  # fmt: skip
def test_conclude_records_the_outcome_and_the_last_round(
    verdict: Critique, refined: Refinement | None, after: bool, outcome: str, resolution: str
) -> None:
    got = conclude(_case(1, verdict, refined), after_refinement=after)
    assert got.outcome == outcome
    assert got.last_round == make_round(PLANNED, verdict, refined, resolution)  # type: ignore[arg-type]


def test_conclude_without_a_plan_records_no_round() -> None:
    case = Case(
        request=make_request("r1"),
        intake=intake(record(), intent="policy_question"),
        schedules=(NOT_RUN,),
        critiques=(_critique("not_needed"),),
    )
    got = conclude(case, after_refinement=False)
    assert (got.outcome, got.last_round) == ("answered", None)


def test_close_round_records_the_revision() -> None:
    refined = _refinement("revised")
    got = close_round(_case(1, _critique("rejected", violations=[LOAD]), refined))
    assert got == make_round(PLANNED, _critique("rejected", violations=[LOAD]), refined, "revised")


def test_case_names_a_missing_artifact() -> None:
    with pytest.raises(MissingArtifactError) as err:
        _ = Case(request=make_request("r1"), round=2).critique
    assert str(err.value) == (
        "request 'r1': no critique for round 2; the stage that makes it has not run - this is "
        "an engine bug, report it with the checkpoint"
    )
