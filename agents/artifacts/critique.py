"""The critique and refinement stages' artifacts, and the record of each negotiation
round: violations with citations, risks, suggested modifications, the next constraint set."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from agents.artifacts.base import (
    Artifact,
    StageStatus,
)
from agents.artifacts.schedule import (
    ConstraintSet,
)
from agents.catalog import (
    Severity,
)


class CitationRef(Artifact):
    """A quotation of the document section that states a rule or fact."""

    document: str = Field(description="Document id.")
    section: str = Field(description="Section id.")
    heading: str = Field(description="Section heading.")
    quote: str = Field(description="The exact text of the section.")
    rule_id: str | None = Field(default=None, description="The rule it supports, if any.")


class Violation(Artifact):
    """A broken policy rule."""

    rule_id: str = Field(description="Rule id.")
    severity: Severity = Field(description="Hard rules cannot be waived.")
    term: str | None = Field(default=None, description="Term concerned, if one.")
    message: str = Field(description="What is wrong, with the numbers.")
    citation: CitationRef = Field(description="Where the rule is stated.")


RiskKind = Literal[
    "approval_needed",
    "consent_needed",
    "gpa",
    "load",
    "offering",
    "target_missed",
    "sections",
    "repeat",
    "forced",
    "other",
]


class Risk(Artifact):
    """Something that could still go wrong or needs an approval."""

    kind: RiskKind = Field(description="Kind of risk.")
    message: str = Field(description="The risk in one sentence.")
    term: str | None = Field(default=None, description="Term concerned, if one.")
    rule_id: str | None = Field(default=None, description="Related rule, if any.")
    citation: CitationRef | None = Field(default=None, description="Supporting text.")


class Modification(Artifact):
    """A suggested change, as a structured constraint refinement can apply."""

    action: Literal[
        "cap_term_units",
        "cap_all_terms_units",
        "floor_term_units",
        "floor_term_courses",
        "cap_courses_per_term",
        "cap_term_courses",
        "move_course",
        "avoid_course",
        "plan_more_units",
        "relax_target",
        "needs_approval",
    ] = Field(description="What to change.")
    term: str | None = Field(default=None, description="Term concerned.")
    course: str | None = Field(default=None, description="Course concerned.")
    value: float | None = Field(default=None, description="The number (units, courses).")
    rule_id: str = Field(description="Rule that motivates it.")
    reason: str = Field(description="Why, in one sentence.")
    approver: str | None = Field(
        default=None, description="needs_approval only: who may approve (the rule's approver)."
    )


ApprovalSource = Literal["record", "advisor", "no_wait"]


class ApprovalUse(Artifact):
    """A decision on a rule that needs a person's approval, as the critique applied it to a
    planned term: granted (the term may carry the overload) or denied (it may not)."""

    rule_id: str = Field(description="Rule approved or denied, e.g. 'LOAD-OVERLOAD'.")
    term: str = Field(description="Planned term the decision covers.")
    decision: Literal["approved", "denied"] = Field(description="What was decided.")
    by: str = Field(description="Who decided.")
    date: str = Field(description="When (YYYY-MM-DD).")
    reason: str = Field(description="Why, as recorded.")
    source: ApprovalSource = Field(
        description="'record': an approve exception in the student record; 'advisor': "
        "`advise approve` / `advise deny` on this run; 'no_wait': denied because the batch "
        "ran with --no-wait."
    )
    citation: CitationRef = Field(description="Where the rule is stated.")


class ApprovalItem(Artifact):
    """One approval the run stopped for (state ``awaiting_approval``) and its decision."""

    rule_id: str = Field(description="Rule whose approval is needed.")
    terms: list[str] = Field(description="Planned terms that need it.")
    approver: str = Field(description="Who may approve it (the rule's requires_approval).")
    round: int = Field(ge=1, description="Negotiation round that asked for it.")
    message: str = Field(description="Why it is needed, with the numbers.")
    citation: CitationRef = Field(description="Where the rule is stated.")
    decision: Literal["pending", "approved", "denied"] = Field(
        default="pending", description="Pending until someone decides."
    )
    by: str | None = Field(default=None, description="Who decided.")
    reason: str | None = Field(default=None, description="Why, as they recorded it.")
    decided_on: str | None = Field(default=None, description="When (YYYY-MM-DD).")
    source: ApprovalSource | None = Field(
        default=None, description="'advisor' (advise approve/deny) or 'no_wait' (batch dry run)."
    )


class Critique(Artifact):
    """The policy stage's verdict on a schedule."""

    status: StageStatus = Field(description="'done', or 'not_needed' with the reason.")
    not_needed_reason: str = Field(default="", description="Why no critique was needed.")
    round: int = Field(ge=1, description="Negotiation round.")
    approval: Literal["approved", "conditional", "rejected", "not_needed"] = Field(
        description="Approved; conditional (soft issues, approvals needed); rejected (hard)."
    )
    violations: list[Violation] = Field(default_factory=list, description="Broken rules.")
    risks: list[Risk] = Field(default_factory=list, description="Remaining risks.")
    suggestions: list[Modification] = Field(
        default_factory=list, description="Structured changes that would fix the violations."
    )
    rules_checked: list[str] = Field(
        default_factory=list, description="Ids of every rule that applied and was checked."
    )
    approvals: list[ApprovalUse] = Field(
        default_factory=list,
        description="Approvals and denials (from the record or from an advisor during the "
        "run) the critique applied to planned terms.",
    )
    explanation: str = Field(default="", description="The verdict in plain words.")
    explanation_source: Literal["template", "gemini", "template_fallback"] = Field(
        default="template", description="What wrote the explanation."
    )


# --------------------------------------------------------------------------- refinement


class ConstraintChange(Artifact):
    """One change refinement made to the constraint set."""

    field: str = Field(description="ConstraintSet field changed.")
    before: Any = Field(default=None, description="Value before.")
    after: Any = Field(default=None, description="Value after.")
    reason: str = Field(description="Why.")
    rule_id: str | None = Field(default=None, description="Rule that motivated it.")


class Refinement(Artifact):
    """The next constraint set and what changed."""

    status: Literal["revised", "no_change", "not_needed"] = Field(
        description="Revised; no change possible (the loop ends); or not needed."
    )
    round: int = Field(ge=1, description="Round whose critique was refined.")
    changes: list[ConstraintChange] = Field(default_factory=list, description="Changes.")
    constraints: ConstraintSet | None = Field(
        default=None, description="The constraint set for the next round."
    )
    reason: str = Field(default="", description="Summary of the revision or why none.")


class NegotiationRound(Artifact):
    """One round: proposal, critique, revision, resolution."""

    round: int = Field(ge=1, description="Round number.")
    proposal: str = Field(description="The schedule proposed, in one line.")
    graduation_term: str | None = Field(default=None, description="Proposed graduation.")
    solver_status: str = Field(description="Solver status of the proposal.")
    approval: str = Field(description="Critique verdict.")
    violations: list[str] = Field(
        default_factory=list, description="Violations as 'RULE-ID (term): message'."
    )
    revision: list[ConstraintChange] = Field(
        default_factory=list, description="Changes made for the next round."
    )
    approvals: list[str] = Field(
        default_factory=list,
        description="Approvals the round waited for and their decisions, one sentence each.",
    )
    resolution: Literal["approved", "revised", "no_change", "max_rounds", "infeasible"] = Field(
        description="How the round ended."
    )
