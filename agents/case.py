"""The stage contract: every stage agent is ``run(case, tools) -> artifact``.

A ``Case`` is the read-only view of one request's workflow context that a stage is handed:
the request, the round, and every artifact produced so far (per round for the negotiation
loop). The pipeline builds it before each stage from the checkpointed context and stores
the artifact the stage returns; a stage never sees or changes the context itself.

A stage asks for what it needs with the ``need_*`` accessors and the current-round
properties; asking for an artifact no earlier stage produced is a ``MissingArtifactError``
naming the stage, the artifact and the round, never an ``AttributeError`` on ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, TypeVar

from pydantic import BaseModel

from agents.artifacts import (
    ApprovalItem,
    ConstraintSet,
    Critique,
    IntakeResult,
    NegotiationRound,
    Outcome,
    PlanRequest,
    RequirementsProposal,
    Schedule,
)
from agents.artifacts import Refinement as RefinementArtifact
from agents.errors import MissingArtifactError

if TYPE_CHECKING:
    from agents.toolbox import Toolbox

T = TypeVar("T")


class StageAgent(Protocol):
    """What the machine calls for a stage: a module (or any object) with this ``run``."""

    def run(self, case: Case, tools: Toolbox) -> BaseModel: ...


@dataclass(frozen=True)
class Case:
    """One request as a stage sees it. Tuples and a frozen dataclass: nothing to mutate."""

    request: PlanRequest
    round: int = 1
    intake: IntakeResult | None = None
    proposal: RequirementsProposal | None = None
    schedules: tuple[Schedule, ...] = ()
    critiques: tuple[Critique, ...] = ()
    refinements: tuple[RefinementArtifact, ...] = ()
    negotiation: tuple[NegotiationRound, ...] = ()
    outcome: Outcome | None = None
    approvals: tuple[ApprovalItem, ...] = ()

    @property
    def request_id(self) -> str:
        return self.request.request_id

    def _need(self, value: T | None, what: str, round_: int | None = None) -> T:
        if value is None:
            raise MissingArtifactError(self.request_id, what, round_ or self.round)
        return value

    def _at(self, items: tuple[T, ...], round_: int) -> T | None:
        return items[round_ - 1] if 1 <= round_ <= len(items) else None

    # ------------------------------------------------------------------ accessors

    def need_intake(self) -> IntakeResult:
        return self._need(self.intake, "intake result")

    def need_proposal(self) -> RequirementsProposal:
        return self._need(self.proposal, "requirements proposal")

    def need_outcome(self) -> Outcome:
        return self._need(self.outcome, "outcome")

    @property
    def schedule(self) -> Schedule:
        """The current round's schedule."""
        return self._need(self._at(self.schedules, self.round), "schedule")

    @property
    def critique(self) -> Critique:
        """The current round's critique."""
        return self._need(self._at(self.critiques, self.round), "critique")

    @property
    def refinement(self) -> RefinementArtifact:
        """The current round's refinement."""
        return self._need(self._at(self.refinements, self.round), "refinement")

    def refinement_or_none(self) -> RefinementArtifact | None:
        return self._at(self.refinements, self.round)

    @property
    def constraints(self) -> ConstraintSet | None:
        """The constraint set this round plans under: None in round 1 (the scheduling stage
        starts from the student's own wishes), else what the previous round's refinement
        produced."""
        if self.round == 1:
            return None
        previous = self._need(
            self._at(self.refinements, self.round - 1), "previous refinement", self.round - 1
        )
        return previous.constraints
