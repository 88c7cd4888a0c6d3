"""The planner's public models: what is asked of a plan and what comes back.

``ConstraintSet`` is what is negotiated (unit loads, terms, courses to include or avoid);
``PlanConstraints`` extends it into one planning call's request (horizon, derived facts);
``PlanResult`` is the answer, one ``PlannedTerm`` per term through graduation, or the
readable reasons why no plan exists.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.catalog import ClassStanding, Term


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


def _cap(
    general: float,
    by_term: dict[str, float],
    by_standing: dict[ClassStanding, float],
    term: str,
    standing: ClassStanding,
) -> float:
    if term in by_term:
        return by_term[term]
    return min(general, by_standing.get(standing, general))


class StandardLoads(_Model):
    """The loads terms carry without an overload, given like the caps of a
    ``ConstraintSet`` (a term's own entry, else the lower of the general one and the one
    for the standing at the start of the term)."""

    max_units_per_term: float = Field(description="Standard load of every term.")
    term_max_units: dict[str, float] = Field(
        default_factory=dict, description="Per-term standard loads overriding the general one."
    )
    standing_max_units: dict[ClassStanding, float] = Field(
        default_factory=dict,
        description="Standard loads by the class standing at the start of a term.",
    )

    def cap(self, term: str, standing: ClassStanding) -> float:
        """The standard load of ``term`` for a student of ``standing`` at its start."""
        return _cap(
            self.max_units_per_term, self.term_max_units, self.standing_max_units, term, standing
        )


class ConstraintSet(_Model):
    """The negotiable constraints of a plan: the student's own wishes plus what refinement
    added. It is what a ``Schedule`` records and what refinement revises; the planner's
    ``PlanConstraints`` extend it with what the pipeline derives for one solve.

    The cap of a term is its entry in ``term_max_units`` when it has one (a decision about
    that very term: the student's wish for it, a kind of term such as summer, a critique's
    cap), otherwise the lower of ``max_units_per_term`` and the entry in
    ``standing_max_units`` for the class standing the student has at the start of the term
    (the units earned before it, the plan's earlier terms included). With ``standard`` loads
    below the caps, a load above the standard one (an overload) is allowed but used only as
    far as needed: the planner plans within the standard loads whenever that meets the
    target term, and otherwise keeps the units above them as few as it can."""

    max_units_per_term: float = Field(description="Units cap for every term.")
    min_units_per_term: float = Field(
        default=0, ge=0, description="Units floor for every regular term up to graduation."
    )
    term_max_units: dict[str, float] = Field(
        default_factory=dict, description="Per-term caps overriding the general cap."
    )
    standing_max_units: dict[ClassStanding, float] = Field(
        default_factory=dict,
        description="Caps by the class standing at the start of a term (units earned before "
        "it, planned terms included): a term without its own cap holds the lower of this and "
        "the general cap.",
    )
    term_min_units: dict[str, float] = Field(
        default_factory=dict, description="Per-term floors overriding the general floor."
    )
    max_courses_per_term: int | None = Field(
        default=None, ge=1, description="Most courses in one term (None: no limit)."
    )
    term_max_courses: dict[str, int] = Field(
        default_factory=dict,
        description="Most courses in a term, by term code (a rule for a kind of term, e.g. one "
        "course in a January interim), below max_courses_per_term where both hold.",
    )
    term_min_courses: dict[str, int] = Field(
        default_factory=dict,
        description="Fewest courses in a term, by term code (e.g. 'five courses next "
        "semester'): the term takes at least that many.",
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
    forced: list[str] = Field(
        default_factory=list,
        description="Courses the student forces into the plan: planned (in their pinned "
        "term, if any) without their prerequisite and offering checks; the verifier still "
        "reports what fails and the critique weighs it.",
    )
    approvals_assumed: list[str] = Field(
        default_factory=list, description="Rule ids whose approval the plan relies on."
    )
    optional_terms: list[str] = Field(
        default_factory=list,
        description="Optional terms (of kinds the calendar does not mark regular: summer, "
        "a January interim) the plan may use, as term codes, e.g. ['U2027']. No other "
        "optional term is planned (see ``optional_kinds``); regular terms are always used.",
    )
    optional_kinds: list[str] = Field(
        default_factory=list,
        description="Kinds of optional term (kind codes, e.g. ['U']) whose every term the "
        "plan may use.",
    )
    standard: StandardLoads | None = Field(
        default=None,
        description="Loads a term carries without an overload (None: the caps). Loads above "
        "them, up to the caps, are used only when the target term needs them, and then as "
        "little as possible.",
    )

    def cap(self, term: str, standing: ClassStanding) -> float:
        """The cap of ``term`` for a student of ``standing`` at its start."""
        return _cap(
            self.max_units_per_term, self.term_max_units, self.standing_max_units, term, standing
        )

    def allows(self, term: Term) -> bool:
        """Whether courses may be planned in ``term``: every regular term, an optional one
        only when named in ``optional_terms`` or of a kind in ``optional_kinds``."""
        return term.regular or term.code in self.optional_terms or term.kind in self.optional_kinds

    def standard_load(self, term: str, standing: ClassStanding) -> float:
        """The standard load of ``term`` (at most its cap) for a student of ``standing``."""
        cap = self.cap(term, standing)
        return cap if self.standard is None else min(cap, self.standard.cap(term, standing))


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
    clash_terms: list[str] = Field(
        default_factory=list,
        description="Terms whose published sections the plan must fit: two courses every "
        "section of which clashes with every section of the other "
        "(``agents.planner.always_clashing``, computed once per catalog and term) do not "
        "share such a term, unless both are fixed there (the student's own choice; the "
        "critique names the clash).",
    )
    not_in_term: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Terms a course must not be placed in: course -> term codes (e.g. to "
        "keep it out of a term whose sections clash).",
    )
    interests: dict[str, float] = Field(
        default_factory=dict, description="Soft preference per course, 0..1 (higher: preferred)."
    )
    include_summer: bool = Field(
        default=False,
        description="Whether every optional term (summer, interim) may be used, beside "
        "``optional_terms`` and ``optional_kinds`` (the name predates calendars).",
    )
    time_limit_s: float = Field(
        default=60.0,
        gt=0,
        description="The planner's wall-clock safety net in seconds (every solve has its own "
        "deterministic budget; when this fires the answer is labelled timed_out).",
    )

    def allows(self, term: Term) -> bool:
        """As ``ConstraintSet.allows``; every optional term too with ``include_summer``."""
        return self.include_summer or super().allows(term)

    @classmethod
    def from_constraint_set(cls, cs: ConstraintSet, **derived: object) -> PlanConstraints:
        """``cs`` with the derived fields added."""
        return cls.model_validate({**cs.model_dump(), **derived})


class PlannedTerm(_Model):
    """One term of the plan."""

    term: str = Field(description="Term code, e.g. 'S2027'.")
    courses: list[str] = Field(description="Courses planned in the term (empty when away).")
    units: float = Field(description="Units planned in the term.")
    sessions: dict[str, str] = Field(
        default_factory=dict,
        description="Course -> the session of the term it is taken in (summer 'I'), for a "
        "term whose kind has sessions; empty otherwise.",
    )


TimeLimitStage = Literal[
    "course_selection",
    "placement",
    "earliest_graduation",
    "diagnosis",
    "section_selection",
    "counter_proposal",
    "clash_replan",
    "wall_clock",
]


class TimeLimit(_Model):
    """A step whose time limit ran out before it answered: what it was to decide is
    unknown, never "no"."""

    stage: TimeLimitStage = Field(
        description="The step: 'course_selection' (which courses), 'placement' (which terms), "
        "'earliest_graduation' (the earliest term when the target cannot be met), "
        "'diagnosis' (which constraint makes a request infeasible), 'section_selection' (the "
        "next term's sections), 'counter_proposal' (the plan for the earliest feasible term), "
        "'clash_replan' (a re-plan around a section clash), 'wall_clock' (the planner's "
        "wall-clock safety net fired: the answer would have depended on the machine's load)."
    )
    seconds: float = Field(
        description="The limit that ran out: a deterministic budget (CP-SAT's deterministic "
        "time, roughly seconds of work) for a step, wall-clock seconds for 'wall_clock'."
    )
    message: str = Field(
        description="What was left undecided, in words, e.g. 'no plan was found within 0.5 s "
        "at course selection; this does not prove that none exists'."
    )


InfeasibleKind = Literal["proven", "timed_out"]
ProofMethod = Literal["bound", "widened", "whole_catalog"]


class CatalogBound(_Model):
    """What is known about every plan the whole catalog allows, beside the plan chosen from
    a pruned candidate pool: lower bounds computed over every usable course (a relaxation
    of the planner's model, ``agents.planner.bound``), and whether the plan meets them."""

    usable: int = Field(
        description="Courses of the whole catalog the student could take within the horizon."
    )
    graduation_term: str = Field(
        description="Earliest graduation any plan over the whole catalog can reach, as far as "
        "proved (a lower bound when the plan graduates later and 'proven' is false)."
    )
    risky: int = Field(
        default=0,
        description="Fewest dormant optional courses and courses on consent that a course "
        "route could open, of any plan graduating in graduation_term (a lower bound).",
    )
    units: float = Field(
        description="Fewest units any plan graduating in graduation_term, with that few "
        "dormant and consent courses, can carry (a lower bound)."
    )
    gap_units: float = Field(
        description="The plan's units minus that bound (0 when the plan graduates then and "
        "meets it)."
    )
    gap_terms: int = Field(
        description="Terms between graduation_term and the plan's graduation (0: the "
        "plan graduates as early as any plan can)."
    )
    proven: bool = Field(
        description="Whether the plan meets the bounds: then no plan over the whole catalog "
        "graduates earlier, or graduates as early with fewer dormant courses and routine "
        "consent, or with those and fewer units."
    )
    method: ProofMethod | None = Field(
        default=None,
        description="How it was proven: 'bound' (the plan met the bounds), 'widened' (the "
        "pool was widened with the courses the bound chose, and the new plan met them), "
        "'whole_catalog' (solved on every usable course). None when not proven.",
    )


class PlanResult(_Model):
    """The planner's answer."""

    status: Literal["optimal", "feasible", "infeasible"] = Field(
        description="'optimal': proved best over the whole catalog for graduation, then "
        "the fewest dormant courses and courses on consent that a course route could open, "
        "then the fewest units (later preferences - interests, fit, even load - are best "
        "effort); 'feasible': a valid plan not proved so (a time limit ran out, or the "
        "plan is the best of a pruned candidate pool and the whole catalog's bound is "
        "lower: see catalog_bound); 'infeasible': no plan (see reasons and "
        "infeasible_kind)."
    )
    infeasible_kind: InfeasibleKind | None = Field(
        default=None,
        description="When infeasible: 'proven' (no plan exists; the reasons say why) or "
        "'timed_out' (a time limit ran out first, see time_limits: no plan was found, which "
        "does not prove that none exists). None when a plan was found.",
    )
    time_limits: list[TimeLimit] = Field(
        default_factory=list,
        description="Steps whose time limit ran out before they answered (the main solve for "
        "'timed_out'; a step after a proof, e.g. the earliest feasible graduation, otherwise).",
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
    pool_size: int | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="Candidate courses the plan was chosen from when the pool was pruned "
        "(fewer than every usable course); None when every usable course was a candidate.",
    )
    catalog_bound: CatalogBound | None = Field(
        default=None,
        exclude_if=lambda v: v is None,
        description="With a pruned pool: the whole catalog's bounds and whether the plan "
        "meets them (status 'optimal' only if it does). None when every usable course was "
        "a candidate (the solver's proof covers the whole catalog) or when no plan exists.",
    )
