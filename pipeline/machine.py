"""The state machine: states, the transition table, guards, and the stage registry.

One module-level ``transitions.Machine`` serves every run: a run (``Run``, the model) is
added at its saved state with ``MACHINE.add_model(run, initial=saved)`` and removed when it
stops. Resuming never calls ``to_<state>`` (there are none: ``auto_transitions=False``),
so no callback fires twice. The state *is* the next stage to run; ``done`` and ``failed``
are where runs stop, and ``retry`` leaves ``failed`` for the stage recorded in
``failed_stage``.

The refinement loop is decided by guards: after a critique that is neither approved nor
``not_needed`` and with rounds left, go to refinement; a revised refinement goes back to
scheduling (next round); otherwise go to synthesis, recording the terminal status from
the agent set's ``terminal_status`` and the round's ``NegotiationRound``.
"""

from __future__ import annotations

import importlib
import logging
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING, Any

from transitions import EventData, Machine, MachineError

from pipeline.context import STAGE_NAMES, WorkflowContext, put_round
from pipeline.errors import MachineDefinitionError, TransitionRefusedError

if TYPE_CHECKING:
    from agents.toolbox import Toolbox

# model_override=True makes transitions skip every convenience method the model does not
# declare (is_<state>, may_<trigger>), logging a warning for each; that is intended here.
logging.getLogger("transitions.core").setLevel(logging.ERROR)


class State(Enum):
    """Machine states in their fixed order; member names equal values (transitions uses
    the name, the checkpoint the value)."""

    intake = "intake"
    requirements = "requirements"
    scheduling = "scheduling"
    critique = "critique"
    refinement = "refinement"
    synthesis = "synthesis"
    done = "done"
    failed = "failed"


STAGES: tuple[State, ...] = tuple(State(name) for name in STAGE_NAMES)
TERMINAL: frozenset[State] = frozenset({State.done, State.failed})
START = State.intake

# The whole machine, as data. ``advance`` moves a run forward after its stage has run.
TRANSITIONS: list[dict[str, Any]] = [
    {"trigger": "advance", "source": State.intake, "dest": State.requirements},
    {"trigger": "advance", "source": State.requirements, "dest": State.scheduling},
    {"trigger": "advance", "source": State.scheduling, "dest": State.critique},
    {
        "trigger": "advance",
        "source": State.critique,
        "dest": State.refinement,
        "conditions": "wants_refinement",
    },
    {
        "trigger": "advance",
        "source": State.critique,
        "dest": State.synthesis,
        "unless": "wants_refinement",
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
    {"trigger": "advance", "source": State.synthesis, "dest": State.done},
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


def build_machine(table: Sequence[Mapping[str, Any]] = TRANSITIONS) -> Machine:
    check_table(table)
    return Machine(
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


# --------------------------------------------------------------------------- agents


@dataclass(frozen=True)
class AgentSet:
    """The stage agents and helpers a run calls, by their contract (see agents/)."""

    name: str
    intake: Callable[..., Any]
    requirements: Callable[..., Any]
    scheduling: Callable[..., Any]
    critique: Callable[..., Any]
    refinement: Callable[..., Any]
    synthesis: Callable[..., Any]
    terminal_status: Callable[..., Any]
    make_round: Callable[..., Any]
    to_json: Callable[[Any], str]
    to_markdown: Callable[[Any], str]
    to_html: Callable[[Any], str]


StageFn = Callable[[WorkflowContext, "Toolbox"], None]

_REAL_MODULES = {
    "intake": "intake",
    "requirements": "requirements",
    "scheduling": "scheduling",
    "critique": "critique",
    "refinement": "refinement",
    "synthesis": "synthesis",
    "negotiation": "refinement",
    "render": "synthesis",
}


def real_agents() -> AgentSet:
    """The agents in ``agents/``; a missing module names the state it leaves empty."""
    mods: dict[str, Any] = {}
    for module, state in _REAL_MODULES.items():
        try:
            mods[module] = importlib.import_module(f"agents.{module}")
        except ModuleNotFoundError as exc:
            if exc.name != f"agents.{module}":
                raise
            raise MachineDefinitionError(
                state, f"has no agent: module 'agents.{module}' is missing"
            ) from None
    return AgentSet(
        name="real",
        intake=mods["intake"].run,
        requirements=mods["requirements"].run,
        scheduling=mods["scheduling"].run,
        critique=mods["critique"].run,
        refinement=mods["refinement"].run,
        synthesis=mods["synthesis"].run,
        terminal_status=mods["negotiation"].terminal_status,
        make_round=mods["negotiation"].make_round,
        to_json=mods["render"].to_json,
        to_markdown=mods["render"].to_markdown,
        to_html=mods["render"].to_html,
    )


def load_agents(spec: str = "real") -> AgentSet:
    """``real``, or ``package.module:attribute`` naming an AgentSet (fakes, benchmarks)."""
    if spec == "real":
        return real_agents()
    module, _, attr = spec.partition(":")
    if not module or not attr:
        raise MachineDefinitionError(
            spec, "is not a stage set: use 'real' or 'package.module:attribute'"
        )
    value = getattr(importlib.import_module(module), attr, None)
    if not isinstance(value, AgentSet):
        raise MachineDefinitionError(spec, "does not name an AgentSet")
    return value


def _need(value: Any, what: str, ctx: WorkflowContext) -> Any:
    if value is None:
        raise MachineDefinitionError(
            ctx.state, f"needs the {what} of round {ctx.round}, but no stage stored it"
        )
    return value


def _intake(agents: AgentSet, ctx: WorkflowContext, tools: Toolbox) -> None:
    ctx.intake = agents.intake(ctx.request, tools)


def _requirements(agents: AgentSet, ctx: WorkflowContext, tools: Toolbox) -> None:
    ctx.proposal = agents.requirements(_need(ctx.intake, "intake result", ctx), tools)


def _scheduling(agents: AgentSet, ctx: WorkflowContext, tools: Toolbox) -> None:
    constraints = None
    if ctx.round > 1:
        refinement = _need(ctx.refinements[ctx.round - 2], "previous refinement", ctx)
        constraints = refinement.constraints
    schedule = agents.scheduling(
        _need(ctx.intake, "intake result", ctx),
        _need(ctx.proposal, "requirements proposal", ctx),
        constraints,
        ctx.round,
        tools,
    )
    put_round(ctx.schedules, ctx.round, schedule)


def _critique(agents: AgentSet, ctx: WorkflowContext, tools: Toolbox) -> None:
    critique = agents.critique(
        _need(ctx.intake, "intake result", ctx),
        _need(ctx.proposal, "requirements proposal", ctx),
        _need(ctx.current(ctx.schedules), "schedule", ctx),
        tools,
    )
    put_round(ctx.critiques, ctx.round, critique)


def _refinement(agents: AgentSet, ctx: WorkflowContext, tools: Toolbox) -> None:
    refinement = agents.refinement(
        _need(ctx.intake, "intake result", ctx),
        _need(ctx.current(ctx.schedules), "schedule", ctx),
        _need(ctx.current(ctx.critiques), "critique", ctx),
        tools,
    )
    put_round(ctx.refinements, ctx.round, refinement)


def _synthesis(agents: AgentSet, ctx: WorkflowContext, tools: Toolbox) -> None:
    ctx.recommendation = agents.synthesis(
        _need(ctx.intake, "intake result", ctx),
        _need(ctx.proposal, "requirements proposal", ctx),
        _need(ctx.current(ctx.schedules), "schedule", ctx),
        _need(ctx.current(ctx.critiques), "critique", ctx),
        list(ctx.negotiation),
        _need(ctx.outcome, "outcome", ctx),
        tools,
    )


_ADAPTERS: dict[State, Callable[[AgentSet, WorkflowContext, Toolbox], None]] = {
    State.intake: _intake,
    State.requirements: _requirements,
    State.scheduling: _scheduling,
    State.critique: _critique,
    State.refinement: _refinement,
    State.synthesis: _synthesis,
}


def stage_registry(agents: AgentSet) -> dict[State, StageFn]:
    """Each stage state -> ``(ctx, toolbox) -> None`` that runs its agent and stores the
    artifact in ``ctx``."""

    def bind(adapter: Callable[[AgentSet, WorkflowContext, Toolbox], None]) -> StageFn:
        return lambda ctx, tools: adapter(agents, ctx, tools)

    registry = {state: bind(adapter) for state, adapter in _ADAPTERS.items()}
    check_registry(registry)
    return registry


def check_registry(registry: Mapping[State, StageFn]) -> None:
    for state in STAGES:
        if not callable(registry.get(state)):
            raise MachineDefinitionError(state.value, "has no agent registered")


# --------------------------------------------------------------------------- the model


class Run:
    """One request's run, the machine's model. Its ``state`` is the context's state."""

    def __init__(self, ctx: WorkflowContext, agents: AgentSet, max_rounds: int) -> None:
        self.ctx = ctx
        self.agents = agents
        self.max_rounds = max_rounds

    @property
    def state(self) -> State:
        return State(self.ctx.state)

    @state.setter
    def state(self, value: State) -> None:
        self.ctx.state = value.value

    # Declared so that model_override=True binds them (and type checkers know them).
    def advance(self) -> bool:
        raise RuntimeError("Run.advance used before MACHINE.add_model")

    def fail(self) -> bool:
        raise RuntimeError("Run.fail used before MACHINE.add_model")

    def retry(self) -> bool:
        raise RuntimeError("Run.retry used before MACHINE.add_model")

    # ------------------------------------------------------------------ guards

    def wants_refinement(self, event: EventData) -> bool:
        critique = _need(self.ctx.current(self.ctx.critiques), "critique", self.ctx)
        rounds_left = self.ctx.round < self.max_rounds
        return critique.approval not in ("approved", "not_needed") and rounds_left

    def revised(self, event: EventData) -> bool:
        refinement = _need(self.ctx.current(self.ctx.refinements), "refinement", self.ctx)
        return bool(refinement.status == "revised" and refinement.constraints is not None)

    def failed_here(self, event: EventData) -> bool:
        return bool(event.transition and event.transition.dest == self.ctx.failed_stage)

    # ------------------------------------------------------------------ callbacks

    def conclude(self, event: EventData) -> None:
        """Leaving the loop: record the terminal status and the last round."""
        ctx = self.ctx
        schedule = _need(ctx.current(ctx.schedules), "schedule", ctx)
        critique = _need(ctx.current(ctx.critiques), "critique", ctx)
        from_refinement = event.transition is not None and event.transition.source == "refinement"
        refinement = ctx.current(ctx.refinements) if from_refinement else None
        ctx.outcome = self.agents.terminal_status(
            _need(ctx.intake, "intake result", ctx),
            schedule,
            critique,
            refinement,
            ctx.round,
            self.max_rounds,
        )
        if schedule.status == "not_needed":
            return  # nothing was proposed, so nothing was negotiated
        if refinement is not None:
            resolution = "no_change"
        elif ctx.outcome == "infeasible" or schedule.solver_status == "infeasible":
            resolution = "infeasible"
        elif critique.approval in ("approved", "not_needed"):
            resolution = "approved"
        else:
            resolution = "max_rounds"
        entry = self.agents.make_round(schedule, critique, refinement, resolution)
        put_round(ctx.negotiation, ctx.round, entry)

    def next_round(self, event: EventData) -> None:
        ctx = self.ctx
        entry = self.agents.make_round(
            _need(ctx.current(ctx.schedules), "schedule", ctx),
            _need(ctx.current(ctx.critiques), "critique", ctx),
            _need(ctx.current(ctx.refinements), "refinement", ctx),
            "revised",
        )
        put_round(ctx.negotiation, ctx.round, entry)
        ctx.round += 1


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
            detail = f"failed_stage is {run.ctx.failed_stage!r}"
        raise TransitionRefusedError(run.ctx.request_id, trigger, before.value, detail)
    return run.state
