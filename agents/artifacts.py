"""The artifacts the stages pass along: PlanRequest -> IntakeResult -> RequirementsProposal
-> Schedule -> Critique -> Refinement / NegotiationRound -> Recommendation.

Every model forbids unknown fields and documents every field; the JSON Schemas published in
``agents/schemas/`` are generated from these models (``python -m agents.artifacts``) and a
test keeps them equal. Fixed value sets are ``Literal``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.audit import AuditReport
from agents.catalog import (
    COURSE_CODE_PATTERN,
    TERM_CODE_PATTERN,
    AcademicStatus,
    ClassStanding,
    Severity,
    StudentRecord,
    model_schema,
    write_schema_file,
)

REQUEST_ID_PATTERN = r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$"

Intent = Literal[
    "plan_degree",
    "plan_next_term",
    "add_program",
    "switch_program",
    "check_progress",
    "policy_question",
]
Weekday = Literal["M", "T", "W", "R", "F", "S", "U"]
StageStatus = Literal["done", "not_needed"]
Outcome = Literal[
    "approved",
    "approved_with_risks",
    "unresolved_after_max_rounds",
    "infeasible",
    "needs_input",
    "answered",
]


class Artifact(BaseModel):
    """Base of every artifact: strict, so a typo in a field name is an error."""

    model_config = ConfigDict(extra="forbid")


# --------------------------------------------------------------------------- request


class TimePreferences(Artifact):
    """Days and times the student wants to keep free in the next term."""

    free_days: list[Weekday] = Field(
        default_factory=list, description="Days with no classes, e.g. ['F'] (R is Thursday)."
    )
    not_before: str | None = Field(
        default=None, pattern=r"^[0-2][0-9]:[0-5][0-9]$", description="No class before HH:MM."
    )
    not_after: str | None = Field(
        default=None, pattern=r"^[0-2][0-9]:[0-5][0-9]$", description="No class after HH:MM."
    )


class PlanRequest(Artifact):
    """A student's plan request as received: the record plus what they want."""

    request_id: str = Field(
        pattern=REQUEST_ID_PATTERN,
        description="Unique id; letters, digits, '.', '_' and '-' only (used as a file name).",
    )
    student: StudentRecord = Field(description="The student's academic record.")
    text: str = Field(default="", description="The student's request in their own words.")
    intent: Intent | None = Field(
        default=None, description="What the student wants; read from the text when absent."
    )
    add_programs: list[str] = Field(default_factory=list, description="Programs to add.")
    drop_programs: list[str] = Field(
        default_factory=list, description="Programs to drop (switching programs)."
    )
    target_graduation: str | None = Field(
        default=None, pattern=TERM_CODE_PATTERN, description="Graduate no later than this term."
    )
    max_units_per_term: float | None = Field(
        default=None, gt=0, description="The student's own cap on units per term."
    )
    max_courses_per_term: int | None = Field(
        default=None, ge=1, description="The student's own cap on courses per term."
    )
    terms_away: list[str] = Field(
        default_factory=list, description="Future terms away (abroad, leave), as term codes."
    )
    include_courses: list[str] = Field(default_factory=list, description="Courses wanted.")
    avoid_courses: list[str] = Field(default_factory=list, description="Courses to avoid.")
    interests: list[str] = Field(default_factory=list, description="Topics of interest.")
    time_preferences: TimePreferences = Field(
        default_factory=TimePreferences, description="Free days and times for the next term."
    )
    question: str | None = Field(default=None, description="A policy question, if any.")


# --------------------------------------------------------------------------- intake


class OpenQuestion(Artifact):
    """Something the request left unresolved; never guessed."""

    field: str = Field(description="What is unresolved, e.g. 'add_programs' or 'target'.")
    question: str = Field(description="The question to put to the student or advisor.")
    source_text: str = Field(default="", description="The words of the request it came from.")


class StudentProfile(Artifact):
    """Normalized facts about the student, computed from the record and the catalog."""

    student_id: str = Field(description="Student id.")
    name: str = Field(description="Preferred name.")
    declared_programs: list[str] = Field(description="Declared program codes.")
    class_standing: ClassStanding = Field(description="Class standing from units earned.")
    units_earned: float = Field(description="Units earned (completed, passing).")
    units_in_progress: float = Field(description="Units of courses in progress.")
    gpa: float | None = Field(description="Cumulative GPA (given or computed).")
    academic_status: AcademicStatus = Field(description="Academic status.")
    start_term: str = Field(description="First term enrolled.")
    current_term: str = Field(description="Term in progress.")
    next_term: str = Field(description="First term a plan covers.")
    terms_completed: int = Field(description="Regular terms enrolled before the current one.")


class Goals(Artifact):
    """What the student is aiming for."""

    target_graduation: str | None = Field(
        default=None, description="Graduate no later than this term (code)."
    )
    target_reason: str = Field(
        default="", description="How the target was read, e.g. '3.5 years from F2025'."
    )
    max_units_per_term: float | None = Field(default=None, description="Student's unit cap.")
    max_courses_per_term: int | None = Field(default=None, description="Student's course cap.")


class StudentConstraints(Artifact):
    """Constraints the student asked for."""

    terms_away: list[str] = Field(default_factory=list, description="Terms away (codes).")
    include_courses: list[str] = Field(default_factory=list, description="Courses wanted.")
    avoid_courses: list[str] = Field(default_factory=list, description="Courses to avoid.")
    interests: list[str] = Field(default_factory=list, description="Topics of interest.")
    time_preferences: TimePreferences = Field(
        default_factory=TimePreferences, description="Free days and times."
    )


class IntakeResult(Artifact):
    """The request understood: profile, intent, goals, constraints, open questions."""

    request_id: str = Field(description="Request id.")
    intent: Intent = Field(description="What the student wants.")
    intent_source: Literal["structured", "text", "default"] = Field(
        description="Where the intent came from."
    )
    profile: StudentProfile = Field(description="Normalized student facts.")
    student: StudentRecord | None = Field(
        default=None,
        description="The record as received; policy checks read its attempts (repeats, "
        "pass/fail, residency, sharing).",
    )
    target_programs: list[str] = Field(
        description="Programs to plan for: declared + added - dropped."
    )
    added_programs: list[str] = Field(default_factory=list, description="Programs added.")
    dropped_programs: list[str] = Field(default_factory=list, description="Programs dropped.")
    goals: Goals = Field(default_factory=Goals, description="Goals.")
    constraints: StudentConstraints = Field(
        default_factory=StudentConstraints, description="Student constraints."
    )
    question: str | None = Field(default=None, description="Policy question to answer.")
    open_questions: list[OpenQuestion] = Field(
        default_factory=list, description="What could not be resolved."
    )
    notes: list[str] = Field(
        default_factory=list, description="How the free text was read, one note per finding."
    )
    parser: Literal["structured", "offline", "gemini", "offline_fallback"] = Field(
        description="What read the free text."
    )


# --------------------------------------------------------------------------- requirements


class ProposedCourse(Artifact):
    """A course proposed to satisfy an open requirement."""

    course: str = Field(pattern=COURSE_CODE_PATTERN, description="Course code.")
    title: str = Field(description="Course title.")
    units: float = Field(description="Units.")
    satisfies: list[str] = Field(
        description="Requirements it satisfies as 'PROGRAM/requirement-id', or 'free elective'."
    )
    reason: str = Field(description="Why this course, in one sentence.")


class RequirementsProposal(Artifact):
    """Audit per target program plus the proposed course set."""

    status: StageStatus = Field(description="'done', or 'not_needed' with the reason.")
    not_needed_reason: str = Field(default="", description="Why the stage had nothing to do.")
    audit: AuditReport | None = Field(
        default=None, description="Audit of every target program (what-if for added ones)."
    )
    proposed_courses: list[ProposedCourse] = Field(
        default_factory=list, description="Courses proposed for the remaining requirements."
    )
    remaining_units: float = Field(default=0, description="Units still to earn for the degree.")
    sharing_effects: list[str] = Field(
        default_factory=list, description="How sharing limits between programs shaped the set."
    )
    eligibility_issues: list[str] = Field(
        default_factory=list, description="Programs the student may not add, and why."
    )
    assumptions: list[str] = Field(default_factory=list, description="Assumptions made.")


# --------------------------------------------------------------------------- scheduling


class ConstraintSet(Artifact):
    """The constraints the planner is given: the student's plus those added by refinement."""

    max_units_per_term: float = Field(description="Units cap for every term.")
    min_units_per_term: float = Field(default=0, description="Units floor for every term.")
    term_max_units: dict[str, float] = Field(
        default_factory=dict, description="Per-term caps overriding the general cap."
    )
    term_min_units: dict[str, float] = Field(
        default_factory=dict, description="Per-term floors overriding the general floor."
    )
    max_courses_per_term: int | None = Field(default=None, description="Courses cap per term.")
    min_units_planned: float = Field(
        default=0, ge=0, description="Plan at least this many new units (e.g. for residency)."
    )
    terms_away: list[str] = Field(default_factory=list, description="Terms with no courses.")
    target_term: str | None = Field(default=None, description="Graduate no later than this.")
    include: list[str] = Field(default_factory=list, description="Courses that must be planned.")
    avoid: list[str] = Field(default_factory=list, description="Courses that must not be.")
    fixed: dict[str, str] = Field(
        default_factory=dict, description="Courses pinned to a term (course -> term)."
    )
    approvals_assumed: list[str] = Field(
        default_factory=list, description="Rule ids whose approval the plan relies on."
    )


class ScheduledCourse(Artifact):
    """A course placed in a term."""

    course: str = Field(description="Course code.")
    title: str = Field(description="Course title.")
    units: float = Field(description="Units.")
    satisfies: list[str] = Field(default_factory=list, description="What it counts toward.")


class ScheduledTerm(Artifact):
    """One term of the plan."""

    term: str = Field(description="Term code.")
    label: str = Field(description="Readable term, e.g. 'Spring 2027'.")
    courses: list[ScheduledCourse] = Field(default_factory=list, description="Courses.")
    units: float = Field(description="Units in the term.")
    away: bool = Field(default=False, description="A term away (no courses).")


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
    unscheduled: list[str] = Field(default_factory=list, description="Courses without sections.")
    alternative: list[str] | None = Field(
        default=None, description="Best alternative course set when the plan's set clashes."
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
    verification: list[str] = Field(
        default_factory=list, description="Defects the independent verifier found (none)."
    )
    solve_ms: float = Field(default=0, description="Solver wall time in milliseconds.")


# --------------------------------------------------------------------------- critique


class CitationRef(Artifact):
    """A quotation of the document section that states a rule or fact."""

    document: str = Field(description="Document id.")
    section: str = Field(description="Section id.")
    heading: str = Field(description="Section heading.")
    quote: str = Field(description="The exact text of the section.")
    rule_id: str | None = Field(default=None, description="The rule it supports, if any.")


class Violation(Artifact):
    """A broken policy rule."""

    rule_id: str = Field(description="Rule id.")
    severity: Severity = Field(description="Hard rules cannot be waived.")
    term: str | None = Field(default=None, description="Term concerned, if one.")
    message: str = Field(description="What is wrong, with the numbers.")
    citation: CitationRef = Field(description="Where the rule is stated.")


class Risk(Artifact):
    """Something that could still go wrong or needs an approval."""

    kind: Literal[
        "approval_needed",
        "consent_needed",
        "gpa",
        "load",
        "offering",
        "target_missed",
        "sections",
        "repeat",
        "other",
    ] = Field(description="Kind of risk.")
    message: str = Field(description="The risk in one sentence.")
    term: str | None = Field(default=None, description="Term concerned, if one.")
    rule_id: str | None = Field(default=None, description="Related rule, if any.")
    citation: CitationRef | None = Field(default=None, description="Supporting text.")


class Modification(Artifact):
    """A suggested change, as a structured constraint refinement can apply."""

    action: Literal[
        "cap_term_units",
        "cap_all_terms_units",
        "floor_term_units",
        "cap_courses_per_term",
        "move_course",
        "avoid_course",
        "plan_more_units",
        "relax_target",
        "needs_approval",
    ] = Field(description="What to change.")
    term: str | None = Field(default=None, description="Term concerned.")
    course: str | None = Field(default=None, description="Course concerned.")
    value: float | None = Field(default=None, description="The number (units, courses).")
    rule_id: str = Field(description="Rule that motivates it.")
    reason: str = Field(description="Why, in one sentence.")


class Critique(Artifact):
    """The policy stage's verdict on a schedule."""

    status: StageStatus = Field(description="'done', or 'not_needed' with the reason.")
    not_needed_reason: str = Field(default="", description="Why no critique was needed.")
    round: int = Field(ge=1, description="Negotiation round.")
    approval: Literal["approved", "conditional", "rejected", "not_needed"] = Field(
        description="Approved; conditional (soft issues, approvals needed); rejected (hard)."
    )
    violations: list[Violation] = Field(default_factory=list, description="Broken rules.")
    risks: list[Risk] = Field(default_factory=list, description="Remaining risks.")
    suggestions: list[Modification] = Field(
        default_factory=list, description="Structured changes that would fix the violations."
    )
    rules_checked: list[str] = Field(
        default_factory=list, description="Ids of every rule that applied and was checked."
    )
    explanation: str = Field(default="", description="The verdict in plain words.")
    explanation_source: Literal["template", "gemini", "template_fallback"] = Field(
        default="template", description="What wrote the explanation."
    )


# --------------------------------------------------------------------------- refinement


class ConstraintChange(Artifact):
    """One change refinement made to the constraint set."""

    field: str = Field(description="ConstraintSet field changed.")
    before: Any = Field(default=None, description="Value before.")
    after: Any = Field(default=None, description="Value after.")
    reason: str = Field(description="Why.")
    rule_id: str | None = Field(default=None, description="Rule that motivated it.")


class Refinement(Artifact):
    """The next constraint set and what changed."""

    status: Literal["revised", "no_change", "not_needed"] = Field(
        description="Revised; no change possible (the loop ends); or not needed."
    )
    round: int = Field(ge=1, description="Round whose critique was refined.")
    changes: list[ConstraintChange] = Field(default_factory=list, description="Changes.")
    constraints: ConstraintSet | None = Field(
        default=None, description="The constraint set for the next round."
    )
    reason: str = Field(default="", description="Summary of the revision or why none.")


class NegotiationRound(Artifact):
    """One round: proposal, critique, revision, resolution."""

    round: int = Field(ge=1, description="Round number.")
    proposal: str = Field(description="The schedule proposed, in one line.")
    graduation_term: str | None = Field(default=None, description="Proposed graduation.")
    solver_status: str = Field(description="Solver status of the proposal.")
    approval: str = Field(description="Critique verdict.")
    violations: list[str] = Field(
        default_factory=list, description="Violations as 'RULE-ID (term): message'."
    )
    revision: list[ConstraintChange] = Field(
        default_factory=list, description="Changes made for the next round."
    )
    resolution: Literal["approved", "revised", "no_change", "max_rounds", "infeasible"] = Field(
        description="How the round ended."
    )


# --------------------------------------------------------------------------- synthesis


class Recommendation(Artifact):
    """The answer: outcome, plan, risks, citations, open questions, negotiation, letter."""

    request_id: str = Field(description="Request id.")
    student_id: str = Field(description="Student id.")
    student_name: str = Field(description="Student name.")
    intent: Intent = Field(description="What was asked.")
    outcome: Outcome = Field(description="Terminal status.")
    summary: str = Field(description="The answer in one or two sentences.")
    programs: list[str] = Field(default_factory=list, description="Programs planned for.")
    plan: list[ScheduledTerm] = Field(default_factory=list, description="The final plan.")
    graduation_term: str | None = Field(default=None, description="Planned graduation.")
    next_term: NextTermSections | None = Field(default=None, description="Next-term sections.")
    risks: list[Risk] = Field(default_factory=list, description="Remaining risks.")
    violations: list[Violation] = Field(
        default_factory=list, description="Violations left unresolved (none when approved)."
    )
    citations: list[CitationRef] = Field(default_factory=list, description="Sources.")
    open_questions: list[OpenQuestion] = Field(
        default_factory=list, description="Questions for the student or advisor."
    )
    answer: str | None = Field(
        default=None, description="Direct answer to a policy question or progress check."
    )
    negotiation: list[NegotiationRound] = Field(
        default_factory=list, description="The negotiation rounds in order."
    )
    letter: str = Field(description="Letter to the student.")
    letter_source: Literal["template", "gemini", "template_fallback"] = Field(
        description="What wrote the letter."
    )
    letter_note: str = Field(
        default="", description="Why the template was used instead of the model, if it was."
    )


ARTIFACT_MODELS: dict[str, type[Artifact]] = {
    "plan_request": PlanRequest,
    "intake_result": IntakeResult,
    "requirements_proposal": RequirementsProposal,
    "schedule": Schedule,
    "critique": Critique,
    "refinement": Refinement,
    "negotiation_round": NegotiationRound,
    "recommendation": Recommendation,
}


def artifact_schema(name: str) -> dict[str, Any]:
    return model_schema(ARTIFACT_MODELS[name])


def schema_dir() -> Path:
    return Path(__file__).resolve().parent / "schemas"


def write_schemas(directory: Path | None = None) -> list[Path]:
    d = directory or schema_dir()
    return [
        write_schema_file(d, f"{name}.schema.json", artifact_schema(name))
        for name in ARTIFACT_MODELS
    ]


if __name__ == "__main__":  # pragma: no cover - maintenance entry point
    for path in write_schemas():
        print(path)
