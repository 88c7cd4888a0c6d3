"""The state machine: fixed order, the refinement loop and its bound, failed -> resume,
typed errors for refused triggers, and build-time checks that name the bad state."""

from __future__ import annotations

from types import SimpleNamespace
from typing import Any

import pytest

from agents.artifacts import Critique
from agents.case import Case
from agents.toolbox import Settings
from pipeline.context import STAGES, State, WorkflowContext, new_context
from pipeline.errors import MachineDefinitionError, TransitionRefusedError
from pipeline.machine import (
    MACHINE,
    STAGE_TABLE,
    TRANSITIONS,
    Run,
    StageSet,
    build_machine,
    check_table,
    fire,
    load_stages,
    mermaid,
)
from tests.fake_stages import FAKE, Harness, make_request


def test_states_are_an_enum_in_fixed_order() -> None:
    assert [s.value for s in State] == [
        "intake",
        "requirements",
        "scheduling",
        "critique",
        "refinement",
        "synthesis",
        "done",
        "awaiting_approval",
        "failed",
    ]
    assert [s.value for s in STAGES] == [s.value for s in State][:6]


def test_machine_is_one_module_level_instance_without_auto_transitions() -> None:
    assert MACHINE.auto_transitions is False
    assert MACHINE.model_override is True
    assert sorted(MACHINE.events) == ["advance", "decide", "fail", "retry"]


def test_approved_run_visits_every_stage_once_in_order(h: Harness) -> None:
    ctx = h.run(make_request("r1"))
    assert h.stages_run() == [
        "intake/1",
        "requirements/1",
        "scheduling/1",
        "critique/1",
        "synthesis/1",
    ]
    assert (ctx.state, ctx.outcome, ctx.round) == (State.done, "approved", 1)
    assert [n.resolution for n in ctx.negotiation] == ["approved"]
    assert MACHINE.models == []  # the run was removed when it stopped
    assert not hasattr(Run(ctx, 3), "to_intake")


def test_rejected_critique_loops_back_to_scheduling_until_approved(h: Harness) -> None:
    ctx = h.run(make_request("r1", "fake:reject=1"))
    assert h.stages_run() == [
        "intake/1",
        "requirements/1",
        "scheduling/1",
        "critique/1",
        "refinement/1",
        "scheduling/2",
        "critique/2",
        "synthesis/2",
    ]
    assert (ctx.outcome, ctx.round) == ("approved", 2)
    assert [n.resolution for n in ctx.negotiation] == ["revised", "approved"]
    assert [s.round for s in ctx.schedules] == [1, 2]
    assert ctx.schedules[1].constraints == ctx.refinements[0].constraints


def test_loop_is_bounded_by_max_rounds_and_records_terminal_status(h: Harness) -> None:
    ctx = h.run(make_request("r1", "fake:reject=9"))
    assert h.stages_run() == [
        "intake/1",
        "requirements/1",
        "scheduling/1",
        "critique/1",
        "refinement/1",
        "scheduling/2",
        "critique/2",
        "refinement/2",
        "scheduling/3",
        "critique/3",
        "synthesis/3",
    ]
    assert (ctx.state, ctx.outcome, ctx.round) == (State.done, "unresolved_after_max_rounds", 3)
    assert [n.resolution for n in ctx.negotiation] == ["revised", "revised", "max_rounds"]


def test_max_rounds_comes_from_settings(h: Harness) -> None:
    ctx = h.run(make_request("r1", "fake:reject=9"), settings=Settings(max_rounds=1))
    assert h.stages_run() == [
        "intake/1",
        "requirements/1",
        "scheduling/1",
        "critique/1",
        "synthesis/1",
    ]
    assert (ctx.outcome, [n.resolution for n in ctx.negotiation]) == (
        "unresolved_after_max_rounds",
        ["max_rounds"],
    )


def test_refinement_that_changes_nothing_ends_the_loop(h: Harness) -> None:
    ctx = h.run(make_request("r1", "fake:conditional fake:norevise"))
    assert h.stages_run()[-3:] == ["critique/1", "refinement/1", "synthesis/1"]
    assert ctx.outcome == "approved_with_risks"
    assert [n.resolution for n in ctx.negotiation] == ["no_change"]


def test_policy_question_passes_every_stage_as_not_needed(h: Harness) -> None:
    ctx = h.run(make_request("r1", intent="policy_question", question="Can I overload?"))
    assert h.stages_run() == [
        "intake/1",
        "requirements/1",
        "scheduling/1",
        "critique/1",
        "synthesis/1",
    ]
    assert ctx.outcome == "answered"
    assert ctx.proposal is not None and ctx.proposal.status == "not_needed"
    assert ctx.negotiation == []  # nothing was proposed, so nothing was negotiated


def test_failed_run_resumes_by_reentering_the_failed_stage(h: Harness) -> None:
    calls = {"n": 0}

    def flaky_critique(case: Case, tools: Any) -> Critique:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("policy index unavailable")
        return FAKE.agents[State.critique].run(case, tools)

    stages = FAKE.with_agent(State.critique, SimpleNamespace(run=flaky_critique))
    first = h.run(make_request("r1"), stages=stages)
    assert (first.state, first.failed_stage) == (State.failed, State.critique)
    assert [(e.stage, e.type, e.message) for e in first.errors] == [
        (State.critique, "RuntimeError", "policy index unavailable")
    ]
    assert h.store.load("r1") == first

    second = h.run(make_request("r1"), stages=stages)
    assert (second.state, second.failed_stage, second.outcome) == (State.done, None, "approved")
    assert second.attempts == {
        State.intake: 1,
        State.requirements: 1,
        State.scheduling: 1,
        State.critique: 2,
        State.synthesis: 1,
    }
    # Finished stages never ran again: only the fake's own stages log, and critique did not
    # log its failed call (it raised first), so each logged stage appears once.
    assert h.stages_run() == [
        "intake/1",
        "requirements/1",
        "scheduling/1",
        "critique/1",
        "synthesis/1",
    ]


def test_trigger_that_does_not_move_raises_a_typed_error(h: Harness) -> None:
    ctx = new_context(
        make_request("r1"),
        catalog_fingerprint="c" * 64,
        config=h.factory.run_config(Settings(), "fake"),
    )
    ctx.state = State.failed
    run = Run(ctx, 3)
    MACHINE.add_model(run, initial=run.state)
    try:
        with pytest.raises(TransitionRefusedError) as err:
            fire(run, "retry")
        assert str(err.value) == (
            "request 'r1': trigger 'retry' did not move the machine from state 'failed' "
            "(failed_stage is None); this is an engine bug - report it with the checkpoint"
        )
        ctx.state = State.done
        with pytest.raises(TransitionRefusedError) as err:
            fire(run, "advance")
        assert str(err.value).startswith(
            "request 'r1': trigger 'advance' did not move the machine from state 'done' ("
        )
    finally:
        MACHINE.remove_model(run)


def test_table_with_an_unreachable_state_names_it() -> None:
    table = [row for row in TRANSITIONS if row["dest"] is not State.refinement]
    with pytest.raises(MachineDefinitionError) as err:
        check_table(table)
    assert str(err.value) == "pipeline machine: state 'refinement' is not reachable from 'intake'"


def test_table_with_a_dead_end_state_names_it() -> None:
    table = [dict(row) for row in TRANSITIONS if row["source"] is not State.synthesis]
    for row in table:
        if row["trigger"] == "fail":
            row["source"] = [s for s in row["source"] if s is not State.synthesis]
    table.append({"trigger": "advance", "source": State.refinement, "dest": State.done})
    with pytest.raises(MachineDefinitionError) as err:
        check_table(table)
    assert str(err.value) == (
        "pipeline machine: state 'synthesis' has no way out (no transition from it)"
    )


def test_table_naming_an_unknown_state_names_it() -> None:
    table = [*TRANSITIONS, {"trigger": "advance", "source": "review", "dest": State.done}]
    with pytest.raises(MachineDefinitionError) as err:
        check_table(table)
    assert str(err.value) == (
        "pipeline machine: state 'review' is in the transition table but not a State"
    )


def test_stage_set_without_an_agent_names_the_state() -> None:
    agents = {s: a for s, a in FAKE.agents.items() if s is not State.critique}
    with pytest.raises(MachineDefinitionError) as err:
        StageSet(name="partial", agents=agents, render=FAKE.render)
    assert str(err.value) == (
        "pipeline machine: state 'critique' has no agent with run(case, tools) in stage set "
        "'partial'"
    )


def test_stage_set_spec_must_name_a_stage_set() -> None:
    with pytest.raises(MachineDefinitionError) as err:
        load_stages("tests.fake_stages:STUDENT")
    assert str(err.value) == (
        "pipeline machine: state 'tests.fake_stages:STUDENT' does not name a StageSet"
    )
    assert load_stages("tests.fake_stages:FAKE") is FAKE


def test_every_stage_has_one_row_naming_its_agent_module_and_context_field() -> None:
    assert [row.state for row in STAGE_TABLE] == list(STAGES)
    real = load_stages("real")
    for row in STAGE_TABLE:
        assert real.agents[row.state].__name__ == row.module
        assert row.slot in WorkflowContext.model_fields


def test_mermaid_diagram_is_drawn_from_the_table() -> None:
    text = mermaid()
    assert "stateDiagram-v2" in text
    for line in (
        "intake --> requirements: advance",
        "critique --> awaiting_approval: advance [awaits_approval]",
        "critique --> refinement: advance [wants_refinement & !awaits_approval]",
        "critique --> synthesis: advance [!awaits_approval & !wants_refinement]",
        "awaiting_approval --> critique: decide [decided]",
        "refinement --> scheduling: advance [revised]",
        "refinement --> synthesis: advance [!revised]",
        "synthesis --> done: advance",
        "scheduling --> failed: fail",
        "failed --> critique: retry [failed_here]",
    ):
        assert line in text


def test_every_real_agent_has_the_one_stage_signature() -> None:
    import inspect

    for state, agent in load_stages("real").agents.items():
        params = list(inspect.signature(agent.run).parameters)
        assert params == ["case", "tools"], f"{state.value}: run{tuple(params)}"


def test_add_model_skips_state_conveniences_only_for_a_class_declaring_none(h: Harness) -> None:
    ctx = new_context(make_request("r1"), catalog_fingerprint="c" * 64,
                      config=h.factory.run_config(Settings(), "fake"))  # fmt: skip
    entered: list[str] = []

    class Watched(Run):
        def on_enter_requirements(self, event: Any) -> None:
            entered.append(self.ctx.request_id)

    machine = build_machine()  # its own states: the callback must not reach MACHINE's
    plain, watched = Run(ctx, 3), Watched(ctx.model_copy(deep=True), 3)
    for run in (plain, watched):
        machine.add_model(run, initial=State.intake)
        fire(run, "advance")
    assert (plain.state, watched.state, entered) == (State.requirements,) * 2 + (["r1"],)
    assert not hasattr(plain, "is_intake")  # model_override=True: never bound on Run
    assert all(not s.on_enter for s in MACHINE.states.values())
