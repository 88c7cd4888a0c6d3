"""The synthesis stage's artifact: the recommendation and its letter."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agents.artifacts.base import (
    Artifact,
    Intent,
    Outcome,
)
from agents.artifacts.critique import (
    ApprovalUse,
    CitationRef,
    NegotiationRound,
    Risk,
    Violation,
)
from agents.artifacts.intake import (
    OpenQuestion,
)
from agents.artifacts.nearby import CloseReport
from agents.artifacts.schedule import (
    AlternativePlan,
    CounterProposal,
    NextTermSections,
    ScheduledTerm,
)
from agents.catalog.exceptions import ExceptionUse
from agents.planner import TimeLimit


class Recommendation(Artifact):
    """The answer: outcome, plan, risks, citations, open questions, negotiation, letter."""

    request_id: str = Field(description="Request id.")
    student_id: str = Field(description="Student id.")
    student_name: str = Field(description="Student name.")
    intent: Intent = Field(description="What was asked.")
    outcome: Outcome = Field(description="Terminal status.")
    summary: str = Field(description="The answer in one or two sentences.")
    programs: list[str] = Field(default_factory=list, description="Programs planned for.")
    close_programs: CloseReport | None = Field(
        default=None,
        description="When the request asked (PlanRequest.close_programs): the programs the "
        "student could add without delaying graduation, each planned with theirs.",
    )
    catalog_years: dict[str, str] = Field(
        default_factory=dict,
        description="Catalog year each program follows (the version audited and planned), by "
        "program code; programs may follow different years (agents.catalog.years).",
    )
    plan: list[ScheduledTerm] = Field(default_factory=list, description="The final plan.")
    requirement_titles: dict[str, str] = Field(
        default_factory=dict,
        description="Title of each requirement a course of the plan, the counter-proposal or "
        "an alternative counts toward, by id ('IS-BS/is-electives' -> its catalog title): "
        "what the Markdown and HTML show; the ids stay in 'satisfies' for machines.",
    )
    graduation_term: str | None = Field(default=None, description="Planned graduation.")
    infeasible_kind: Literal["proven", "timed_out"] | None = Field(
        default=None,
        description="With outcome 'infeasible': 'proven' (no plan exists, for the cause the "
        "summary gives) or 'timed_out' (no plan was found before a time limit ran out, which "
        "does not prove that none exists; see time_limits).",
    )
    time_limits: list[TimeLimit] = Field(
        default_factory=list,
        description="Steps of the final schedule whose time limit ran out before they "
        "answered, each with its limit in seconds and what it left undecided.",
    )
    next_term: NextTermSections | None = Field(default=None, description="Next-term sections.")
    counter_proposal: CounterProposal | None = Field(
        default=None,
        description="When the target is infeasible: the verified plan for the earliest "
        "feasible term, offered instead.",
    )
    target_blockers: list[str] = Field(
        default_factory=list,
        description="When the target is infeasible: which program (alone) or combination "
        "makes it impossible.",
    )
    alternatives: list[AlternativePlan] = Field(
        default_factory=list,
        description="Distinct plans beside the recommended one, when the request asked for "
        "them (PlanRequest.alternatives), each verified; the recommended plan stays 'plan'.",
    )
    alternatives_note: str = Field(
        default="",
        description="Why fewer alternatives are shown than were asked for (none exist, a "
        "check dropped some, time ran out), or why none were looked for.",
    )
    risks: list[Risk] = Field(default_factory=list, description="Remaining risks.")
    violations: list[Violation] = Field(
        default_factory=list, description="Violations left unresolved (none when approved)."
    )
    citations: list[CitationRef] = Field(default_factory=list, description="Sources.")
    exceptions: list[ExceptionUse] = Field(
        default_factory=list,
        description="The student's advisor exceptions and what each did in the final plan's "
        "audit (used, unused, expired, invalid, conflicting).",
    )
    approvals: list[ApprovalUse] = Field(
        default_factory=list,
        description="Approvals and denials of rules the final plan relies on, with who "
        "decided, when and why.",
    )
    open_questions: list[OpenQuestion] = Field(
        default_factory=list, description="Questions for the student or advisor."
    )
    answer: str | None = Field(
        default=None, description="Direct answer to a policy question or progress check."
    )
    negotiation: list[NegotiationRound] = Field(
        default_factory=list, description="The negotiation rounds in order."
    )
    letter: str = Field(description="Letter to the student.")
    letter_source: Literal["template", "gemini", "template_fallback"] = Field(
        description="What wrote the letter."
    )
    letter_note: str = Field(
        default="", description="Why the template was used instead of the model, if it was."
    )
