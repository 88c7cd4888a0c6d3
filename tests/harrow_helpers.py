"""The second sample institution (Harrow Bay College: trimesters, 1.0-credit courses) for
tests that run its labeled requests through the stages: the catalog, a toolbox on it, a
scenario's request, and round 1 (intake, the requirements proposal, its critique)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from agents import critique, requirements, scheduling
from agents.artifacts import Critique, IntakeResult, PlanRequest, RequirementsProposal
from agents.catalog import Catalog, load_catalog, use_catalog
from agents.intake import read_request
from agents.toolbox import Toolbox

REPO = Path(__file__).resolve().parents[1]
SCENARIOS = REPO / "eval" / "scenarios" / "harrow-bay"
HARROW_BAY: Catalog = load_catalog(REPO / "demos" / "harrow-bay")


@pytest.fixture(scope="module")
def hb_tools(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Toolbox]:
    """A toolbox on Harrow Bay, its calendar and credits in use for the module."""
    with use_catalog(HARROW_BAY):
        yield Toolbox(catalog=HARROW_BAY, index_dir=tmp_path_factory.mktemp("hb-index"))


def hb_request(scenario: str) -> PlanRequest:
    """The request of a labeled Harrow Bay scenario."""
    raw = json.loads((SCENARIOS / f"{scenario}.json").read_text("utf-8"))
    return PlanRequest.model_validate(raw["request"])


@dataclass
class RoundOne:
    intake: IntakeResult
    proposal: RequirementsProposal
    critique: Critique

    @property
    def loads(self) -> list[tuple[str, float]]:
        """(term, credits) of every planned term, in order."""
        assert self.proposal.plan is not None
        return [(t.term, t.units) for t in self.proposal.plan.terms]


def round_one(scenario: str, tools: Toolbox) -> RoundOne:
    """Intake, the requirements proposal (round 1's plan) and the critique of its schedule."""
    intake = read_request(hb_request(scenario), tools)
    proposal = requirements.propose(intake, tools)
    schedule = scheduling.place(intake, proposal, None, 1, tools)
    return RoundOne(intake, proposal, critique.review(intake, schedule, tools))
