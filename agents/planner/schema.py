"""The planner's public models: what is asked of a plan and what comes back.

``ConstraintSet`` is what is negotiated (unit loads, terms, courses to include or avoid);
``PlanConstraints`` extends it into one planning call's request (horizon, derived facts);
``PlanResult`` is the answer, one ``PlannedTerm`` per term through graduation, or the
readable reasons why no plan exists.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ConstraintSet(_Model):
    """The negotiable constraints of a plan: the student's own wishes plus what refinement
    added. It is what a ``Schedule`` records and what refinement revises; the planner's
    ``PlanConstraints`` extend it with what the pipeline derives for one solve."""

    max_units_per_term: float = Field(description="Units cap for every term.")
    min_units_per_term: float = Field(
        default=0, ge=0, description="Units floor for every regular term up to graduation."
    )
    term_max_units: dict[str, float] = Field(
        default_factory=dict, description="Per-term caps overriding the general cap."
    )
    term_min_units: dict[str, float] = Field(
        default_factory=dict, description="Per-term floors overriding the general floor."
    )
    max_courses_per_term: int | None = Field(
        default=None, ge=1, description="Most courses in one term (None: no limit)."
    )
    min_units_planned: float = Field(
        default=0,
        ge=0,
        description="Plan at least this many new units, beyond what the degree total needs "
        "(e.g. units that must be earned here for residency).",
    )
    terms_away: list[str] = Field(
        default_factory=list, description="Terms with no courses, added to the record's."
    )
    target_term: str | None = Field(
        default=None, description="Graduate no later than this term (hard)."
    )
    include: list[str] = Field(default_factory=list, description="Courses that must be planned.")
    avoid: list[str] = Field(default_factory=list, description="Courses that must not be.")
    fixed: dict[str, str] = Field(
        default_factory=dict, description="Courses pinned to a term (course -> term)."
    )
    approvals_assumed: list[str] = Field(
        default_factory=list, description="Rule ids whose approval the plan relies on."
    )


class PlanConstraints(ConstraintSet):
    """Everything one planning call is given: a constraint set plus the facts the pipeline
    derives for it (the next term's clashing pairs, courses barred from a term, interest
    scores) and the run's settings (horizon, time limit)."""

    max_units_per_term: float = Field(gt=0, description="Unit cap for every term.")
    first_term: str | None = Field(
        default=None, description="First planned term; default: the term after the current one."
    )
    latest_term: str | None = Field(
        default=None,
        description="End of the search horizon; default: the last of ``horizon_terms`` "
        "regular terms from the first.",
    )
    horizon_terms: int = Field(
        default=12, ge=1, description="Regular terms the plan may use, counting the first."
    )
    exclusive_pairs: dict[str, list[tuple[str, str]]] = Field(
        default_factory=dict,
        description="Pairs of courses that may not share a term: term code -> pairs (e.g. "
        "every section of one clashes with every section of the other).",
    )
    not_in_term: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Terms a course must not be placed in: course -> term codes (e.g. to "
        "keep it out of a term whose sections clash).",
    )
    interests: dict[str, float] = Field(
        default_factory=dict, description="Soft preference per course, 0..1 (higher: preferred)."
    )
    include_summer: bool = Field(default=False, description="Whether summers may be used.")
    time_limit_s: float = Field(default=10.0, gt=0, description="Solver time limit in seconds.")

    @classmethod
    def from_constraint_set(cls, cs: ConstraintSet, **derived: object) -> PlanConstraints:
        """``cs`` with the derived fields added."""
        return cls.model_validate({**cs.model_dump(), **derived})


class PlannedTerm(_Model):
    """One term of the plan."""

    term: str = Field(description="Term code, e.g. 'S2027'.")
    courses: list[str] = Field(description="Courses planned in the term (empty when away).")
    units: float = Field(description="Units planned in the term.")


class PlanResult(_Model):
    """The planner's answer."""

    status: Literal["optimal", "feasible", "infeasible"] = Field(
        description="'optimal': proved best for every objective; 'feasible': a valid plan "
        "found within the time limit; 'infeasible': no plan (see reasons)."
    )
    terms: list[PlannedTerm] = Field(
        description="Every term from the first term through graduation, empty ones included."
    )
    graduation_term: str | None = Field(description="Last term of the plan, None if infeasible.")
    units_planned: float = Field(description="Units of all planned courses.")
    extra_units: float = Field(
        description="Planned units beyond what requirements and the degree total need."
    )
    reasons: list[str] = Field(description="Why no plan exists (readable), when infeasible.")
    earliest_feasible_term: str | None = Field(
        description="When a target term cannot be met: the earliest graduation that can."
    )
    requirement_of: dict[str, list[str]] = Field(
        description="Planned course -> requirements it counts toward ('PROGRAM/req-id'), or "
        "['free elective']."
    )
    notes: list[str] = Field(
        default_factory=list,
        description="Things a person must act on in a valid plan, e.g. consent needed.",
    )
    solve_ms: float = Field(description="Wall time of the whole planning call in milliseconds.")
