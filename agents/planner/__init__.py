"""The planner: CP-SAT plans to graduation (``plan``) and next-term section selection
(``select_sections``). The independent checker lives in ``agents.verifier``."""

from __future__ import annotations

from agents.planner.api import plan
from agents.planner.schema import ConstraintSet, PlanConstraints, PlannedTerm, PlanResult
from agents.planner.sections import (
    SectionChoice,
    always_clashing,
    describe,
    meetings_overlap,
    never_free,
    normalize_days,
    select_sections,
)

__all__ = [
    "ConstraintSet",
    "PlanConstraints",
    "PlanResult",
    "PlannedTerm",
    "SectionChoice",
    "always_clashing",
    "describe",
    "meetings_overlap",
    "never_free",
    "normalize_days",
    "plan",
    "select_sections",
]
