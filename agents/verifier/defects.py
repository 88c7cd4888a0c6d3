"""A defect: one thing wrong with a plan, and the callback every check reports through."""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

DefectKind = Literal[
    "prerequisite",
    "corequisite",
    "offering",
    "units_max",
    "units_min",
    "max_courses",
    "term_away",
    "duplicate",
    "antirequisite",
    "target",
    "clash",
    "free_time",
    "requirement",
]


class Defect(BaseModel):
    """One thing wrong with a plan."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: DefectKind = Field(description="What kind of rule the plan breaks.")
    term: str | None = Field(description="Term code where it happens, if any.")
    course: str | None = Field(description="Course involved, if any.")
    message: str = Field(description="Readable statement of the defect.")


# Checks report through one callback so that defects come out in the order checks run.
Add = Callable[[DefectKind, "str | None", "str | None", str], None]
