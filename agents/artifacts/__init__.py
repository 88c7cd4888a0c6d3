"""The artifacts the stages pass along: PlanRequest -> IntakeResult -> RequirementsProposal
-> Schedule -> Critique -> Refinement / NegotiationRound -> Recommendation.

Every model forbids unknown fields and documents every field; the JSON Schemas published in
``agents/schemas/`` are generated from these models (``python -m agents.artifacts``) and a
test keeps them equal. Fixed value sets are ``Literal``. One module per stage's artifacts;
every name is exported here.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agents.artifacts.base import (
    REQUEST_ID_PATTERN,
    Artifact,
    Intent,
    Outcome,
    StageStatus,
    Weekday,
)
from agents.artifacts.critique import (
    ApprovalItem,
    ApprovalSource,
    ApprovalUse,
    CitationRef,
    ConstraintChange,
    Critique,
    Modification,
    NegotiationRound,
    Refinement,
    Risk,
    RiskKind,
    Violation,
)
from agents.artifacts.intake import (
    Goals,
    IntakeResult,
    OpenQuestion,
    StudentConstraints,
    StudentProfile,
)
from agents.artifacts.nearby import CloseProgram, CloseReport, NeededCourse, SkippedProgram
from agents.artifacts.proposal import ProposedCourse, RequirementsProposal
from agents.artifacts.recommendation import Recommendation
from agents.artifacts.request import PlanRequest, TimePreferences
from agents.artifacts.schedule import (
    AlternativePlan,
    ConstraintSet,
    CounterProposal,
    NextTermSections,
    Schedule,
    ScheduledCourse,
    ScheduledTerm,
    SectionPick,
)
from agents.catalog import model_schema, write_schema_file

ARTIFACT_MODELS: dict[str, type[Artifact]] = {
    "plan_request": PlanRequest,
    "intake_result": IntakeResult,
    "requirements_proposal": RequirementsProposal,
    "schedule": Schedule,
    "critique": Critique,
    "refinement": Refinement,
    "negotiation_round": NegotiationRound,
    "recommendation": Recommendation,
}


def artifact_schema(name: str) -> dict[str, Any]:
    return model_schema(ARTIFACT_MODELS[name])


def schema_dir() -> Path:
    return Path(__file__).resolve().parent.parent / "schemas"


def write_schemas(directory: Path | None = None) -> list[Path]:
    d = directory or schema_dir()
    return [
        write_schema_file(d, f"{name}.schema.json", artifact_schema(name))
        for name in ARTIFACT_MODELS
    ]


__all__ = [
    "ARTIFACT_MODELS",
    "REQUEST_ID_PATTERN",
    "AlternativePlan",
    "ApprovalItem",
    "ApprovalSource",
    "ApprovalUse",
    "Artifact",
    "CitationRef",
    "CloseProgram",
    "CloseReport",
    "ConstraintChange",
    "ConstraintSet",
    "CounterProposal",
    "Critique",
    "Goals",
    "IntakeResult",
    "Intent",
    "Modification",
    "NeededCourse",
    "NegotiationRound",
    "NextTermSections",
    "OpenQuestion",
    "Outcome",
    "PlanRequest",
    "ProposedCourse",
    "Recommendation",
    "Refinement",
    "RequirementsProposal",
    "Risk",
    "RiskKind",
    "Schedule",
    "ScheduledCourse",
    "ScheduledTerm",
    "SectionPick",
    "SkippedProgram",
    "StageStatus",
    "StudentConstraints",
    "StudentProfile",
    "TimePreferences",
    "Violation",
    "Weekday",
    "artifact_schema",
    "schema_dir",
    "write_schemas",
]
