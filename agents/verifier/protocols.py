"""What the verifier reads of a plan, its constraints and a section choice.

The verifier reads them through these protocols so that it imports neither the planner
nor the solver (``PlanResult``, ``PlanConstraints`` and ``SectionChoice`` satisfy them).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from agents.catalog import ClassStanding


class PlannedTermLike(Protocol):
    """A planned term; it may also carry ``sessions`` (course -> session code, read with
    ``getattr`` by ``agents.verifier.sessions``: a plan without it names no sessions)."""

    term: str
    courses: list[str]
    units: float


class PlanLike(Protocol):
    @property
    def terms(self) -> Sequence[PlannedTermLike]: ...

    graduation_term: str | None


class ConstraintsLike(Protocol):
    max_units_per_term: float
    min_units_per_term: float
    term_max_units: dict[str, float]
    standing_max_units: dict[ClassStanding, float]
    term_min_units: dict[str, float]
    max_courses_per_term: int | None
    terms_away: list[str]
    first_term: str | None
    target_term: str | None
    latest_term: str | None
    include: list[str]
    avoid: list[str]
    fixed: dict[str, str]
    include_summer: bool
    optional_terms: list[str]
    optional_kinds: list[str]


class SectionsLike(Protocol):
    term: str
    sections: dict[str, str]
    free_days: list[str]
    not_before: str | None
    not_after: str | None
