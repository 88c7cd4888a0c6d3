"""The requirements stage's artifact: the audit of every target program and the proposed
plan (course set and its placement) for round 1."""

from __future__ import annotations

from pydantic import Field

from agents.artifacts.base import Artifact, StageStatus
from agents.artifacts.schedule import ConstraintSet
from agents.audit import AuditReport
from agents.catalog import COURSE_CODE_PATTERN
from agents.planner import PlanResult


class ProposedCourse(Artifact):
    """A course proposed to satisfy an open requirement."""

    course: str = Field(pattern=COURSE_CODE_PATTERN, description="Course code.")
    title: str = Field(description="Course title.")
    units: float = Field(description="Units.")
    satisfies: list[str] = Field(
        description="Requirements it satisfies as 'PROGRAM/requirement-id', or 'free elective'."
    )
    reason: str = Field(description="Why this course, in one sentence.")


class RequirementsProposal(Artifact):
    """Audit per target program plus the proposed course set."""

    status: StageStatus = Field(description="'done', or 'not_needed' with the reason.")
    not_needed_reason: str = Field(default="", description="Why the stage had nothing to do.")
    audit: AuditReport | None = Field(
        default=None, description="Audit of every target program (what-if for added ones)."
    )
    proposed_courses: list[ProposedCourse] = Field(
        default_factory=list, description="Courses proposed for the remaining requirements."
    )
    remaining_units: float = Field(default=0, description="Units still to earn for the degree.")
    sharing_effects: list[str] = Field(
        default_factory=list, description="How sharing limits between programs shaped the set."
    )
    eligibility_issues: list[str] = Field(
        default_factory=list, description="Programs the student may not add, and why."
    )
    assumptions: list[str] = Field(default_factory=list, description="Assumptions made.")
    constraints: ConstraintSet | None = Field(
        default=None,
        description="The round-1 constraint set the proposal was planned under (the "
        "student's own wishes); None when nothing was planned.",
    )
    plan: PlanResult | None = Field(
        default=None,
        description="The planner's round-1 answer: the proposed courses placed in terms. "
        "Scheduling places exactly this plan in round 1 and re-solves only when refinement "
        "changes the constraints or the next term's sections clash.",
    )
