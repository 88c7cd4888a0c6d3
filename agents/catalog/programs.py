"""Program models: a major, minor or concentration, the institution's own requirements, and
limits on shared courses.

A program of kind ``institution`` (general education, writing, the degree's total credits)
applies to every student of the catalog without being declared: ``with_institution`` adds
it wherever a student's programs are gathered (audit, planner, verifier, what-if). It shares
courses freely with every program; only limits that name it (its own, or another program's
limit ``with_program`` its code or ``with_kind: institution``) apply to it
(``SharingLimit.applies``).
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agents.catalog.base import CatalogModel
from agents.catalog.requirements import RequirementNode

ProgramKind = Literal["major", "minor", "concentration", "institution"]


class SharingLimit(CatalogModel):
    """At most ``max_courses`` courses may count toward both this program and another."""

    with_program: str | None = Field(
        default=None, description="The other program's code; None means any program of kind."
    )
    with_kind: ProgramKind | None = Field(
        default=None, description="Applies to every other program of this kind."
    )
    max_courses: int = Field(ge=0, description="Courses that may count toward both.")
    rule: str | None = Field(default=None, description="Policy rule id that states the limit.")

    def applies(self, owner: Program, other: Program) -> bool:
        """Whether this limit of ``owner`` bounds what it shares with ``other``. The
        institution's requirements share freely: a limit of another program applies to
        them only when it names them (``with_program`` or ``with_kind: institution``)."""
        if self.with_program is not None and self.with_program != other.code:
            return False
        if self.with_kind is not None and self.with_kind != other.kind:
            return False
        if other.kind == "institution" and owner.kind != "institution":
            return self.with_program == other.code or self.with_kind == "institution"
        return True


class Program(CatalogModel):
    """A major, minor or concentration, or the institution's own requirements (kind
    ``institution``: they apply to every student)."""

    code: str = Field(pattern=r"^[A-Z0-9][A-Z0-9-]*$", description="Program code, e.g. 'CS-BS'.")
    name: str = Field(min_length=1, description="Official name.")
    kind: ProgramKind = Field(
        description="Program kind; 'institution' requirements (general education, writing, "
        "total credits) apply to every student without being declared."
    )
    aliases: list[str] = Field(default_factory=list, description="Other names people use.")
    catalog_year: str = Field(description="Catalog year, e.g. '2026-2027'.")
    department: str = Field(description="Home department.")
    total_units: float | None = Field(
        default=None,
        gt=0,
        description="Units needed for the degree (majors, or the institution's requirements).",
    )
    min_gpa: float | None = Field(default=None, ge=0, description="Minimum program GPA.")
    requirement: RequirementNode = Field(description="Root of the requirement tree.")
    sharing: list[SharingLimit] = Field(
        default_factory=list, description="Limits on courses shared with other programs."
    )
    eligible_majors: list[str] = Field(
        default_factory=list,
        description="If non-empty, only students in one of these majors may add the program.",
    )
    excluded_majors: list[str] = Field(
        default_factory=list, description="Majors whose students may not add the program."
    )
    concentration_required: bool = Field(
        default=False,
        description="A major only: its students must declare one of its concentrations "
        "(programs of kind 'concentration' whose eligible_majors name it). A student who has "
        "not is planned with the one whose requirements leave the fewest units, said as "
        "such with the others as options (``agents.intake_concentrations``).",
    )
    document: str | None = Field(default=None, description="Id of the program's description.")
