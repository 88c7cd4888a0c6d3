"""Policy models: machine-checkable rules, when they apply, and the document text they cite.

A rule's ``citation`` names a ``Document`` section; the reference is checked when the
catalog is loaded (``agents.catalog.crossref``).
"""

from __future__ import annotations

from collections.abc import Callable
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
    recent_gpa_min: float | None = Field(
        default=None,
        ge=0,
        description="GPA over the student's last `recent_terms` completed regular terms "
        "(terms with grades that count in the GPA) at least this.",
    )
    recent_terms: int = Field(
        default=2, ge=1, description="How many recent regular terms `recent_gpa_min` covers."
    )
    term_kinds: list[str] = Field(
        default_factory=list,
        description="Per-term rules only: the planned terms of these calendar kinds (codes, "
        "e.g. ['U']) the rule or row covers; empty: every regular term.",
    )

    @property
    def is_empty(self) -> bool:
        """Whether no condition is given (the condition always holds)."""
        return self == RuleCondition()


class LimitRow(CatalogModel):
    """One row of a rule's limit table: the limit that applies when ``when`` holds."""

    when: RuleCondition = Field(description="Condition on the student (and the term).")
    limit: float = Field(description="The limit while the condition holds.")


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
    "max_units_per_session",
    "repeat_limit",
    "pass_fail_limit",
    "residency",
    "max_terms",
    "min_terms",
    "program_sharing",
    "min_gpa_graduation",
    "minor_eligibility",
    "total_units",
    "academic_standing",
]
PassFailMeasure = Literal["units", "courses"]
PassFailScope = Literal["term", "overall", "program"]


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
        description="The number the rule sets: units, courses, terms, repeats or a GPA; "
        "the limit when no row of `limit_table` holds.",
    )
    limit_table: list[LimitRow] = Field(
        default_factory=list,
        description="Limits by condition: the first row whose `when` holds gives the limit; "
        "when none holds, `limit` does.",
    )
    grade_ceiling: str | None = Field(
        default=None,
        description="repeat_limit only: a course may be repeated only after a grade at or "
        "below this one (by grade points); `limit` is then the number of repeats allowed.",
    )
    measure: PassFailMeasure | None = Field(
        default=None,
        description="pass_fail_limit only: count units or courses (default: units; courses "
        "when neither `measure` nor `scope` is given).",
    )
    scope: PassFailScope | None = Field(
        default=None,
        description="pass_fail_limit only: per term, overall, or per program (default: "
        "overall; per term when neither `measure` nor `scope` is given).",
    )
    program_kinds: list[str] = Field(
        default_factory=list,
        description="pass_fail_limit with scope 'program': the kinds of program (major, "
        "minor, ...) whose counted courses are limited (empty: every program).",
    )
    of_last: float | None = Field(
        default=None,
        gt=0,
        description="residency only: the rule counts the units earned here among the last "
        "this many units of the degree ('36 of the final 45 units in residence': limit 36, "
        "of_last 45); without it, every unit earned here counts.",
    )
    severity: Severity = Field(default="hard", description="Hard rules cannot be waived.")
    requires_approval: Approver | None = Field(
        default=None, description="Who may approve an exception (for overload-type rules)."
    )
    citation: Citation = Field(description="Policy document section stating the rule.")
    summary: str = Field(default="", description="One-sentence statement of the rule.")

    def effective_limit(self, holds: Callable[[RuleCondition], bool]) -> float | None:
        """The limit of the first ``limit_table`` row whose condition ``holds``, else
        ``limit``."""
        return next((r.limit for r in self.limit_table if holds(r.when)), self.limit)

    @property
    def pass_fail_scope(self) -> PassFailScope:
        """``scope``, defaulted: a rule that names neither scope nor measure is the original
        per-term course limit."""
        if self.scope is not None:
            return self.scope
        return "term" if self.measure is None else "overall"

    @property
    def pass_fail_measure(self) -> PassFailMeasure:
        """``measure``, defaulted the same way as ``pass_fail_scope``."""
        if self.measure is not None:
            return self.measure
        return "courses" if self.scope is None else "units"

    @property
    def term_kinds_named(self) -> frozenset[str]:
        """Every term kind the rule or one of its table rows names."""
        rows = [k for r in self.limit_table for k in r.when.term_kinds]
        return frozenset([*self.applies_when.term_kinds, *rows])


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
