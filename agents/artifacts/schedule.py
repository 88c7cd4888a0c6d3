"""The scheduling stage's artifact and the constraint set it plans under."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agents.artifacts.base import (
    Artifact,
    StageStatus,
)
from agents.planner import ConstraintSet, PlannedTerm, TimeLimit


class ScheduledCourse(Artifact):
    """A course placed in a term."""

    course: str = Field(description="Course code.")
    title: str = Field(description="Course title.")
    units: float = Field(description="Units.")
    satisfies: list[str] = Field(default_factory=list, description="What it counts toward.")
    session: str | None = Field(
        default=None,
        description="The session of the term it is taken in (summer 'I'), when the term's "
        "kind has sessions.",
    )


class ScheduledTerm(Artifact):
    """One term of the plan."""

    term: str = Field(description="Term code.")
    label: str = Field(description="Readable term, e.g. 'Spring 2027'.")
    courses: list[ScheduledCourse] = Field(default_factory=list, description="Courses.")
    units: float = Field(description="Units in the term.")
    away: bool = Field(default=False, description="A term away (no courses).")

    def planned(self) -> PlannedTerm:
        """This term as the planner writes one (what a plan is compared and checked as)."""
        return PlannedTerm(
            term=self.term,
            courses=[c.course for c in self.courses],
            units=self.units,
            sessions={c.course: c.session for c in self.courses if c.session},
        )


class SectionPick(Artifact):
    """A chosen section for a next-term course."""

    course: str = Field(description="Course code.")
    section: str = Field(description="Section id.")
    meetings: list[str] = Field(description="Meetings, e.g. 'MWF 09:00-09:50'.")


class NextTermSections(Artifact):
    """Section selection for the first planned term."""

    term: str = Field(description="Term code.")
    status: Literal["ok", "clash", "no_sections", "not_needed"] = Field(
        description="Whether a clash-free choice that respects the preferences exists."
    )
    sections: list[SectionPick] = Field(default_factory=list, description="Chosen sections.")
    clashes: list[str] = Field(
        default_factory=list, description="Clashing pairs, named with their times."
    )
    wish_conflicts: list[str] = Field(
        default_factory=list,
        description="Chosen meetings that break the student's day or time wishes, each naming "
        "the course, section, meeting and wish (no plan as good avoided them).",
    )
    unscheduled: list[str] = Field(default_factory=list, description="Courses without sections.")
    alternative: list[str] | None = Field(
        default=None, description="Best alternative course set when the plan's set clashes."
    )
    timed_out: float | None = Field(
        default=None,
        description="The section search's time limit (seconds) when it ran out before the "
        "choice was proved best: the clashes are those of the best choice found, not proved "
        "unavoidable. None: proved.",
    )


class CounterProposal(Artifact):
    """The plan offered instead when the requested target term cannot be met: the same
    programs and wishes, with the target moved to the earliest feasible term."""

    target_term: str = Field(description="The term the student asked to graduate by.")
    graduation_term: str = Field(description="The earliest feasible graduation it plans.")
    terms: list[ScheduledTerm] = Field(default_factory=list, description="The plan.")
    units_planned: float = Field(default=0, description="Units the plan adds.")
    solver_status: Literal["optimal", "feasible"] = Field(
        description="What the solver proved about the counter-proposal."
    )
    verification: list[str] = Field(
        default_factory=list, description="Defects the independent verifier found (none)."
    )


class AlternativePlan(Artifact):
    """A distinct plan beside the recommended one, as good or the next best under the same
    objective (earliest graduation, fewest units, fewest consent courses, balance), checked
    by the independent verifier, the next term's sections and the policy rules."""

    rank: int = Field(ge=1, description="1 for the first alternative found, and so on.")
    kind: Literal["equally_good", "next_best", "better"] = Field(
        description="'equally_good': same graduation, units and consent courses as the "
        "recommended plan; 'next_best': worse on one of them; 'better': better on one, "
        "possible only when the recommended plan was not proved optimal or was held to more "
        "than its constraints (e.g. a section clash)."
    )
    distinct_by: Literal["course_set", "placement"] = Field(
        description="'course_set': other courses; 'placement': the same courses in other "
        "terms (only when no other course set exists)."
    )
    label: str = Field(description="How it compares, e.g. 'Equally good', 'Next best: +9 units'.")
    differences: list[str] = Field(
        default_factory=list,
        description="What differs from the recommended plan, in words, e.g. 'takes 15-445 "
        "instead of 15-440', 'graduates the same term (Spring 2028)'.",
    )
    terms: list[ScheduledTerm] = Field(default_factory=list, description="The plan.")
    graduation_term: str = Field(description="Last term of the plan.")
    units_planned: float = Field(description="Units the plan adds.")
    requirement_of: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Planned course -> requirements it counts toward ('PROGRAM/req-id'), or "
        "['free elective'].",
    )
    consent_courses: list[str] = Field(
        default_factory=list, description="Its courses that need someone's consent."
    )
    solver_status: Literal["optimal", "feasible"] = Field(
        description="What the solver proved about it under the added cuts."
    )
    notes: list[str] = Field(
        default_factory=list, description="Things a person must act on (consent, audit)."
    )


class Schedule(Artifact):
    """A semester-by-semester plan and what the solver proved about it."""

    status: StageStatus = Field(description="'done', or 'not_needed' with the reason.")
    not_needed_reason: str = Field(default="", description="Why no plan was needed.")
    round: int = Field(ge=1, description="Negotiation round that produced this schedule.")
    constraints: ConstraintSet | None = Field(default=None, description="Constraints used.")
    solver_status: Literal["optimal", "feasible", "infeasible", "not_run"] = Field(
        description="Optimal, feasible (time limit), infeasible, or not run."
    )
    infeasible_kind: Literal["proven", "timed_out"] | None = Field(
        default=None,
        description="When infeasible: 'proven' (no plan exists; the reasons give the cause) "
        "or 'timed_out' (a time limit ran out before any plan was found - see time_limits; "
        "this does not prove that none exists). None when a plan was found or none was needed.",
    )
    time_limits: list[TimeLimit] = Field(
        default_factory=list,
        description="Steps whose time limit ran out before they answered: the planner's "
        "(course selection, placement, earliest graduation, diagnosis) and the stage's own "
        "(next-term sections, the counter-proposal, re-plans around a clash), each with the "
        "limit in seconds and what it left undecided.",
    )
    terms: list[ScheduledTerm] = Field(default_factory=list, description="The plan.")
    graduation_term: str | None = Field(default=None, description="Last term of the plan.")
    units_planned: float = Field(default=0, description="Units the plan adds.")
    extra_units: float = Field(default=0, description="Units beyond what is needed.")
    reasons: list[str] = Field(
        default_factory=list, description="Binding reasons (infeasibility, consent needed)."
    )
    earliest_feasible_term: str | None = Field(
        default=None, description="Earliest feasible graduation when the target is not."
    )
    next_term: NextTermSections | None = Field(
        default=None, description="Sections for the first planned term."
    )
    counter_proposal: CounterProposal | None = Field(
        default=None,
        description="When the target is infeasible: the verified plan for the earliest "
        "feasible term.",
    )
    target_blockers: list[str] = Field(
        default_factory=list,
        description="When the target is infeasible: each program that cannot finish by it "
        "even alone (with its own earliest term), or that only the combination cannot.",
    )
    verification: list[str] = Field(
        default_factory=list, description="Defects the independent verifier found (none)."
    )
    forced: list[str] = Field(
        default_factory=list,
        description="What the verifier found wrong with courses the student forced into the "
        "plan (a prerequisite or offering check that fails): expected, and weighed by the "
        "critique as risks rather than counted as defects.",
    )
    solve_ms: float = Field(default=0, description="Solver wall time in milliseconds.")
