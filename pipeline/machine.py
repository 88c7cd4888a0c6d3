"""The state machine: states, the stage table, the transition table, guards, stage sets.

One module-level ``transitions.Machine`` serves every run: a run (``Run``, the model) is
added at its saved state with ``MACHINE.add_model(run, initial=saved)`` and removed when it
stops. Resuming never calls ``to_<state>`` (there are none: ``auto_transitions=False``),
so no callback fires twice. The state *is* the next stage to run; ``done``,
``awaiting_approval`` and ``failed`` are where runs stop: ``retry`` leaves ``failed`` for
the stage recorded in ``failed_stage``, ``decide`` leaves ``awaiting_approval`` for the
critique once a person has approved or denied every rule it asked for.

Every stage is called the same way (``agents.case``): ``run(case, tools) -> artifact``,
where ``case`` is the context's read-only view; the stage table names each stage's agent
module and the context field its artifact is stored in. A new linear stage is one agent
module and one ``STAGE_TABLE`` row (plus the context field for its artifact).

The refinement loop is decided by guards that ask ``agents.negotiation``: after a critique,
``wants_refinement``; after a refinement, ``revised`` (next round, ``close_round``) or the
loop ends with ``conclude`` recording the terminal status and the last round.
"""

from __future__ import annotations

import importlib
import importlib.util
import logging
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from pydantic import BaseModel
from transitions import EventData, Machine, MachineError

from agents import negotiation
from agents.artifacts import Recommendation
from agents.case import StageAgent
from agents.catalog import use_catalog
from pipeline.context import STAGES, State, WorkflowContext, put_round
from pipeline.errors import MachineDefinitionError, TransitionRefusedError

if TYPE_CHECKING:
    from agents.toolbox import Toolbox

# model_override=True: transitions skips (and logs) each convenience the model lacks.
logging.getLogger("transitions.core").setLevel(logging.ERROR)

START = State.intake


@dataclass(frozen=True)
class StageRow:
    """One stage: its state, the module of its real agent, the ``WorkflowContext`` field
    its artifact goes to (a list field keeps one artifact per round), and the state that
    follows it when that is not decided by the negotiation guards."""

    state: State
    module: str
    slot: str
    then: State | None


STAGE_TABLE: tuple[StageRow, ...] = (
    StageRow(State.intake, "agents.intake", "intake", then=State.requirements),
    StageRow(State.requirements, "agents.requirements", "proposal", then=State.scheduling),
    StageRow(State.scheduling, "agents.scheduling", "schedules", then=State.critique),
    StageRow(State.critique, "agents.critique", "critiques", then=None),
    StageRow(State.refinement, "agents.refinement", "refinements", then=None),
    StageRow(State.synthesis, "agents.synthesis", "recommendation", then=State.done),
)
ROWS: dict[State, StageRow] = {row.state: row for row in STAGE_TABLE}

# The negotiation loop: the only guarded moves. A critique whose only blocking issues need
# a person's approval stops the run (``awaiting_approval``); ``decide`` goes back to the
# critique once every approval is decided, so no earlier stage runs again.
LOOP: list[dict[str, Any]] = [
    {
        "trigger": "advance",
        "source": State.critique,
        "dest": State.awaiting_approval,
        "conditions": "awaits_approval",
        "before": "ask_approval",
    },
    {
        "trigger": "advance",
        "source": State.critique,
        "dest": State.refinement,
        "conditions": "wants_refinement",
        "unless": "awaits_approval",
    },
    {
        "trigger": "advance",
        "source": State.critique,
        "dest": State.synthesis,
        "unless": ["awaits_approval", "wants_refinement"],
        "before": "conclude",
    },
    {
        "trigger": "advance",
        "source": State.refinement,
        "dest": State.scheduling,
        "conditions": "revised",
        "before": "next_round",
    },
    {
        "trigger": "advance",
        "source": State.refinement,
        "dest": State.synthesis,
        "unless": "revised",
        "before": "conclude",
    },
]

# The whole machine, as data. ``advance`` moves a run forward after its stage has run.
TRANSITIONS: list[dict[str, Any]] = [
    *(
        move
        for row in STAGE_TABLE
        for move in (
            [{"trigger": "advance", "source": row.state, "dest": row.then}]
            if row.then is not None
            else [m for m in LOOP if m["source"] is row.state]
        )
    ),
    {
        "trigger": "decide",
        "source": State.awaiting_approval,
        "dest": State.critique,
        "conditions": "decided",
    },
    {"trigger": "fail", "source": list(STAGES), "dest": State.failed},
    *(
        {"trigger": "retry", "source": State.failed, "dest": s, "conditions": "failed_here"}
        for s in STAGES
    ),
]


def _names(value: Any) -> list[str]:
    items = value if isinstance(value, list | tuple) else [value]
    return [i.value if isinstance(i, State) else str(i) for i in items]


def check_table(table: Sequence[Mapping[str, Any]], states: type[State] = State) -> None:
    """Every state known, reachable from intake, and able to leave unless it is terminal."""
    known = {s.value for s in states}
    edges: dict[str, set[str]] = {name: set() for name in known}
    for row in table:
        for name in [*_names(row["source"]), *_names(row["dest"])]:
            if name not in known:
                raise MachineDefinitionError(name, "is in the transition table but not a State")
        for src in _names(row["source"]):
            edges[src].update(_names(row["dest"]))
    seen = {START.value}
    queue = deque([START.value])
    while queue:
        for nxt in sorted(edges[queue.popleft()] - seen):
            seen.add(nxt)
            queue.append(nxt)
    for s in states:
        if s.value not in seen:
            raise MachineDefinitionError(s.value, f"is not reachable from {START.value!r}")
        if s is not State.done and not edges[s.value]:
            raise MachineDefinitionError(s.value, "has no way out (no transition from it)")


_PLAIN_MODELS: set[type] = set()  # model classes with no per-state method (checked once)


class RunMachine(Machine):
    """``add_model`` (per run) skips per-state conveniences for a class declaring none
    (``Run``): model_override=True binds no ``is_<state>`` it lacks; no enter/exit to add."""

    def _add_model_to_state(self, state: Any, model: object) -> None:
        if (cls := type(model)) not in _PLAIN_MODELS:
            names = [f"{p}_{s.name}" for s in State for p in ("is", "on_enter", "on_exit")]
            if any(hasattr(cls, name) for name in names):
                return super()._add_model_to_state(state, model)
            _PLAIN_MODELS.add(cls)


def build_machine(table: Sequence[Mapping[str, Any]] = TRANSITIONS) -> Machine:
    check_table(table)
    return RunMachine(
        model=None,
        states=State,
        transitions=[dict(row) for row in table],
        initial=None,
        auto_transitions=False,
        model_override=True,
        send_event=True,
        name="advising-pipeline",
    )


MACHINE = build_machine()


def mermaid() -> str:
    """The machine as a mermaid state diagram, drawn by transitions from the same table."""
    from transitions.extensions import GraphMachine

    graph = GraphMachine(  # the machine is its own (only) model here, just to be drawn
        states=State,
        transitions=[dict(row) for row in TRANSITIONS],
        initial=START,
        auto_transitions=False,
        show_conditions=True,
        graph_engine="mermaid",
        title="advising pipeline",
    )
    return str(graph.get_graph().draw(None))


# --------------------------------------------------------------------------- stage sets


class Renderer(Protocol):
    """Renders a finished run's recommendation (``agents.writing.render`` is the real one)."""

    def to_json(self, rec: Recommendation) -> str: ...

    def to_markdown(self, rec: Recommendation) -> str: ...

    def to_html(self, rec: Recommendation) -> str: ...


@dataclass(frozen=True)
class StageSet:
    """The agent of every stage and the renderer a run uses: the real ones in ``agents/``,
    or fakes for engine tests and the cheap benchmark."""

    name: str
    agents: Mapping[State, StageAgent]
    render: Renderer

    def __post_init__(self) -> None:
        for state in STAGES:
            if not callable(getattr(self.agents.get(state), "run", None)):
                raise MachineDefinitionError(
                    state.value, f"has no agent with run(case, tools) in stage set {self.name!r}"
                )

    def with_agent(self, state: State, agent: StageAgent) -> StageSet:
        """A copy with ``state``'s agent replaced (tests: a flaky or a recording stage)."""
        return StageSet(name=self.name, agents={**self.agents, state: agent}, render=self.render)


def _import_agent(row: StageRow) -> Any:
    try:
        return importlib.import_module(row.module)
    except ModuleNotFoundError as exc:
        if exc.name != row.module:
            raise
        raise MachineDefinitionError(
            row.state.value, f"has no agent: module {row.module!r} is missing"
        ) from None


def real_stages() -> StageSet:
    """The agents named in ``STAGE_TABLE``; a missing module names the state it leaves empty."""
    agents = {row.state: _import_agent(row) for row in STAGE_TABLE}
    render = importlib.import_module("agents.writing.render")
    return StageSet(name="real", agents=agents, render=render)


def load_stages(spec: str = "real") -> StageSet:
    """``real``, or ``package.module:attribute`` naming a StageSet (fakes, benchmarks)."""
    if spec == "real":
        return real_stages()
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise MachineDefinitionError(
            spec, "is not a stage set: use 'real' or 'package.module:attribute'"
        )
    value = getattr(importlib.import_module(module), attr, None)
    if not isinstance(value, StageSet):
        raise MachineDefinitionError(spec, "does not name a StageSet")
    return value


def stage_set_name(spec: str = "real") -> str:
    """The name of the stage set ``spec`` names, checked as ``load_stages`` would but
    without importing the real agents (and OR-Tools with them): the batch parent fails
    fast on a missing agent module and leaves loading the agents to its workers."""
    if spec != "real":
        return load_stages(spec).name
    for row in STAGE_TABLE:
        if importlib.util.find_spec(row.module) is None:
            raise MachineDefinitionError(
                row.state.value, f"has no agent: module {row.module!r} is missing"
            )
    return "real"


def run_stage(stages: StageSet, ctx: WorkflowContext, tools: Toolbox) -> None:
    """Run the stage ``ctx`` is in and store its artifact; the machine has not moved yet."""
    row = ROWS[ctx.state]
    with use_catalog(tools.catalog):
        artifact = stages.agents[row.state].run(ctx.case(), tools)
    if not isinstance(artifact, BaseModel):
        raise MachineDefinitionError(
            row.state.value, f"agent returned {type(artifact).__name__}, not an artifact"
        )
    ctx.put(row.slot, artifact)


# --------------------------------------------------------------------------- the model


class Run:
    """One request's run, the machine's model. Its ``state`` is the context's state."""

    def __init__(self, ctx: WorkflowContext, max_rounds: int) -> None:
        self.ctx = ctx
        self.max_rounds = max_rounds

    @property
    def state(self) -> State:
        return self.ctx.state

    @state.setter
    def state(self, value: State) -> None:
        self.ctx.state = value

    # Declared so that model_override=True binds them (and type checkers know them).
    def advance(self) -> bool:
        raise RuntimeError("Run.advance used before MACHINE.add_model")

    def fail(self) -> bool:
        raise RuntimeError("Run.fail used before MACHINE.add_model")

    def retry(self) -> bool:
        raise RuntimeError("Run.retry used before MACHINE.add_model")

    def decide(self) -> bool:
        raise RuntimeError("Run.decide used before MACHINE.add_model")

    # ------------------------------------------------------------------ guards

    def wants_refinement(self, event: EventData) -> bool:
        return negotiation.wants_refinement(self.ctx.case(), self.max_rounds)

    def revised(self, event: EventData) -> bool:
        return negotiation.revised(self.ctx.case())

    def awaits_approval(self, event: EventData) -> bool:
        return negotiation.awaits_approval(self.ctx.case())

    def decided(self, event: EventData) -> bool:
        return negotiation.decided(self.ctx.case())

    def failed_here(self, event: EventData) -> bool:
        failed = self.ctx.failed_stage
        return bool(event.transition and failed and event.transition.dest == failed.value)

    # ------------------------------------------------------------------ callbacks

    def conclude(self, event: EventData) -> None:
        """Leaving the loop: record the terminal status and the last round."""
        from_refinement = event.transition is not None and event.transition.source == "refinement"
        conclusion = negotiation.conclude(self.ctx.case(), after_refinement=from_refinement)
        self.ctx.outcome = conclusion.outcome
        if conclusion.last_round is not None:
            put_round(self.ctx.negotiation, self.ctx.round, conclusion.last_round)

    def ask_approval(self, event: EventData) -> None:
        """Stopping for approval: record what is asked (a rule and term already asked for
        and still pending is not asked twice)."""
        asked = {(a.rule_id, t) for a in self.ctx.approvals if a.decision == "pending"
                 for t in a.terms}  # fmt: skip
        for item in negotiation.pending_approvals(self.ctx.case()):
            terms = [t for t in item.terms if (item.rule_id, t) not in asked]
            if terms:
                self.ctx.approvals.append(item.model_copy(update={"terms": terms}))

    def next_round(self, event: EventData) -> None:
        put_round(self.ctx.negotiation, self.ctx.round, negotiation.close_round(self.ctx.case()))
        self.ctx.round += 1


def fire(run: Run, trigger: str) -> State:
    """Fire ``trigger`` on ``run``; a trigger that does not move it is a typed error."""
    before = run.state
    try:
        moved = getattr(run, trigger)()
    except MachineError as exc:
        raise TransitionRefusedError(
            run.ctx.request_id, trigger, before.value, str(exc.value)
        ) from None
    if not moved:
        detail = "no transition's guard passed"
        if trigger == "retry":
            failed = run.ctx.failed_stage
            detail = f"failed_stage is {failed.value if failed else None!r}"
        elif trigger == "decide":
            waiting = [a for a in run.ctx.approvals if a.decision == "pending"]
            detail = "still pending: " + ", ".join(f"{a.rule_id} ({', '.join(a.terms)})"
                                                   for a in waiting)  # fmt: skip
        raise TransitionRefusedError(run.ctx.request_id, trigger, before.value, detail)
    return run.state
