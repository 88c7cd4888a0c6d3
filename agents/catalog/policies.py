"""Policy models: machine-checkable rules, when they apply, and the document text they cite.

A rule's ``citation`` names a ``Document`` section; the reference is checked when the
catalog is loaded (``agents.catalog.crossref``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agents.catalog.base import CatalogModel
from agents.catalog.prereq import ClassStanding

AcademicStatus = Literal["good", "warning", "probation", "suspended"]
Severity = Literal["hard", "soft"]
Approver = Literal["advisor", "department", "dean", "registrar"]


class RuleCondition(CatalogModel):
    """When a rule applies; every field given must hold."""

    gpa_min: float | None = Field(default=None, description="Cumulative GPA at least this.")
    gpa_max: float | None = Field(default=None, description="Cumulative GPA below this.")
    standing_in: list[ClassStanding] = Field(
        default_factory=list, description="Class standings the rule applies to (empty: all)."
    )
    status_in: list[AcademicStatus] = Field(
        default_factory=list, description="Academic statuses the rule applies to (empty: all)."
    )


class Citation(CatalogModel):
    """Where a rule is stated."""

    document: str = Field(description="Document id.")
    section: str = Field(description="Section id within the document.")


RuleKind = Literal[
    "max_units_per_term",
    "min_units_per_term",
    "overload",
    "probation_max_units",
    "max_courses_per_term",
    "repeat_limit",
    "pass_fail_limit",
    "residency",
    "max_terms",
    "program_sharing",
    "min_gpa_graduation",
    "minor_eligibility",
    "total_units",
]


class PolicyRule(CatalogModel):
    """A machine-checkable policy rule linked to the text that states it."""

    id: str = Field(pattern=r"^[A-Z][A-Z0-9-]*$", description="Rule id, e.g. 'LOAD-MAX'.")
    title: str = Field(description="Short name.")
    kind: RuleKind = Field(description="What the rule limits.")
    applies_when: RuleCondition = Field(
        default_factory=RuleCondition, description="Condition on the student."
    )
    limit: float | None = Field(
        default=None,
        description="The number the rule sets: units, courses, terms, repeats or a GPA.",
    )
    severity: Severity = Field(default="hard", description="Hard rules cannot be waived.")
    requires_approval: Approver | None = Field(
        default=None, description="Who may approve an exception (for overload-type rules)."
    )
    citation: Citation = Field(description="Policy document section stating the rule.")
    summary: str = Field(default="", description="One-sentence statement of the rule.")


class DocSection(CatalogModel):
    """A citable section of a document."""

    id: str = Field(min_length=1, description="Section id, unique within the document.")
    heading: str = Field(description="Section heading.")
    text: str = Field(min_length=1, description="Section text, quoted in citations.")


class Document(CatalogModel):
    """A policy or program document split into sections."""

    id: str = Field(min_length=1, description="Document id.")
    title: str = Field(description="Document title.")
    kind: Literal["policy", "program", "general"] = Field(description="Document kind.")
    sections: list[DocSection] = Field(min_length=1, description="Sections in order.")
