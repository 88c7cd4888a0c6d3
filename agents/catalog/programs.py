"""Program models: a major, minor or concentration, and its limits on shared courses."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agents.catalog.base import CatalogModel
from agents.catalog.requirements import RequirementNode

ProgramKind = Literal["major", "minor", "concentration"]


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


class Program(CatalogModel):
    """A major, minor or concentration."""

    code: str = Field(pattern=r"^[A-Z0-9][A-Z0-9-]*$", description="Program code, e.g. 'CS-BS'.")
    name: str = Field(min_length=1, description="Official name.")
    kind: ProgramKind = Field(description="Program kind.")
    aliases: list[str] = Field(default_factory=list, description="Other names people use.")
    catalog_year: str = Field(description="Catalog year, e.g. '2026-2027'.")
    department: str = Field(description="Home department.")
    total_units: float | None = Field(
        default=None, gt=0, description="Units needed for the degree (majors)."
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
    document: str | None = Field(default=None, description="Id of the program's description.")
