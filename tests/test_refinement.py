"""Refinement: a critique's suggestions become the next constraint set, every change recorded;
nothing new to change ends the loop with ``no_change``."""

from __future__ import annotations

import pytest

from agents import critique, refinement
from agents.artifacts import (
    ConstraintChange,
    ConstraintSet,
    Critique,
    Modification,
    Refinement,
    RequirementsProposal,
)
from agents.toolbox import Toolbox
from tests.policy_helpers import PLAN_63, intake, record, schedule, tools

__all__ = ["tools"]  # the session fixture, imported so pytest finds it here

PROPOSAL = RequirementsProposal(status="done")


def _rejected(*mods: Modification) -> Critique:
    return Critique(status="done", round=1, approval="rejected", suggestions=list(mods))


def test_low_gpa_plan_is_capped_at_54_and_the_target_relaxed(tools: Toolbox) -> None:
    low = intake(record(gpa=2.6), target="F2028")
    sched = schedule(PLAN_63, target="F2028")
    got = refinement.revise(low, sched, critique.review(low, sched, tools), tools)
    assert got == Refinement(
        status="revised",
        round=1,
        changes=[
            ConstraintChange(
                field="max_units_per_term",
                before=63.0,
                after=54.0,
                reason="Spring 2027 and Spring 2028 are over the 54-unit limit; cap every term "
                "at it",
                rule_id="LOAD-MAX",
            ),
            ConstraintChange(
                field="target_term",
                before="F2028",
                after=None,
                reason="graduating by Fall 2028 needed terms above the limit; find the earliest "
                "graduation within it",
                rule_id="LOAD-MAX",
            ),
        ],
        constraints=ConstraintSet(max_units_per_term=54),
        reason="max_units_per_term 63 -> 54; target Fall 2028 dropped",
    )


def test_an_approval_is_never_assumed_by_refinement(tools: Toolbox) -> None:
    # The critique asks for LOAD-OVERLOAD approval; only a person grants it (the run stops
    # in awaiting_approval), so refinement has nothing to change.
    high = intake(record(gpa=3.8), target="F2028")
    sched = schedule(PLAN_63, target="F2028")
    got = refinement.revise(high, sched, critique.review(high, sched, tools), tools)
    assert (got.status, got.changes) == ("no_change", [])
    assert got.constraints is not None and got.constraints.approvals_assumed == []


def test_suggestions_already_in_the_constraint_set_change_nothing(tools: Toolbox) -> None:
    sched = schedule(PLAN_63, cap=54)
    cap = Modification(action="cap_all_terms_units", value=54, rule_id="LOAD-MAX", reason="cap")
    got = refinement.revise(intake(record()), sched, _rejected(cap), tools)
    assert got == Refinement(
        status="no_change",
        round=1,
        constraints=sched.constraints,
        reason="the suggested changes (cap every term at 54 units) are already in the "
        "constraint set",
    )


def test_a_critique_without_suggestions_changes_nothing(tools: Toolbox) -> None:
    sched = schedule(PLAN_63, cap=54)
    got = refinement.revise(intake(record()), sched, _rejected(), tools)
    assert got == Refinement(
        status="no_change",
        round=1,
        constraints=sched.constraints,
        reason="the critique suggested no change the constraints can express",
    )


@pytest.mark.parametrize("approval", ["approved", "not_needed"])
def test_an_approved_or_not_needed_critique_needs_no_refinement(
    approval: str, tools: Toolbox
) -> None:
    verdict = Critique(status="done", round=2, approval=approval)  # type: ignore[arg-type]
    got = refinement.revise(intake(record()), schedule(PLAN_63), verdict, tools)
    assert got == Refinement(
        status="not_needed",
        round=2,
        reason=f"the critique's verdict is {approval!r}; nothing to refine",
    )


BASE = ConstraintSet(
    max_units_per_term=63,
    term_max_units={"S2027": 60, "F2027": 45},
    include=["15-213", "15-251"],
    fixed={"15-213": "S2027"},
    max_courses_per_term=7,
)


@pytest.mark.parametrize(
    ("mod", "changes", "reason"),
    [
        (
            Modification(action="cap_all_terms_units", value=54, rule_id="LOAD-MAX", reason="r"),
            [
                ("max_units_per_term", 63.0, 54.0),
                ("term_max_units", {"S2027": 60.0, "F2027": 45.0}, {"S2027": 54.0, "F2027": 45.0}),
            ],
            "max_units_per_term 63 -> 54; term_max_units S2027 60 -> 54",
        ),
        (
            Modification(
                action="cap_term_units", term="S2028", value=54, rule_id="LOAD-MAX", reason="r"
            ),
            [
                (
                    "term_max_units",
                    {"S2027": 60.0, "F2027": 45.0},
                    {"S2027": 60.0, "F2027": 45.0, "S2028": 54.0},
                )
            ],
            "term_max_units S2028 none -> 54",
        ),
        (
            Modification(
                action="floor_term_units", term="F2027", value=36, rule_id="LOAD-MIN", reason="r"
            ),
            [("term_min_units", {}, {"F2027": 36.0})],
            "term_min_units F2027 none -> 36",
        ),
        (
            Modification(action="cap_courses_per_term", value=6, rule_id="MAX-COURSES", reason="r"),
            [("max_courses_per_term", 7, 6)],
            "max_courses_per_term 7 -> 6",
        ),
        (
            Modification(
                action="avoid_course", course="15-213", rule_id="REPEAT-LIMIT", reason="r"
            ),
            [
                ("avoid", [], ["15-213"]),
                ("include", ["15-213", "15-251"], ["15-251"]),
                ("fixed", {"15-213": "S2027"}, {}),
            ],
            "avoid +15-213; include -15-213; fixed 15-213 S2027 -> none",
        ),
        (
            Modification(
                action="move_course", course="15-251", term="F2027", rule_id="X", reason="r"
            ),
            [("fixed", {"15-213": "S2027"}, {"15-213": "S2027", "15-251": "F2027"})],
            "fixed 15-251 none -> F2027",
        ),
    ],
)
def test_each_suggestion_kind_changes_its_field(
    mod: Modification, changes: list[tuple[str, object, object]], reason: str
) -> None:
    got = refinement.refine(BASE, [mod], round=1)
    assert [(c.field, c.before, c.after) for c in got.changes] == changes
    assert (got.status, got.reason) == ("revised", reason)
    assert all((c.reason, c.rule_id) == ("r", mod.rule_id) for c in got.changes)
