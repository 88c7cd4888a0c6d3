"""The intake stage's artifact: the normalized profile, intent, goals, constraints and
open questions."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agents.artifacts.base import (
    Artifact,
    Intent,
)
from agents.artifacts.request import TimePreferences
from agents.catalog import (
    AcademicStatus,
    ClassStanding,
    StudentRecord,
)
from agents.catalog.exceptions import ExceptionUse


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
    next_term_courses: int | None = Field(
        default=None, description="Courses the student wants to take in the next term."
    )
    next_term_units: float | None = Field(
        default=None, description="Units the student wants to take in the next term."
    )
    optional_terms: list[str] = Field(
        default_factory=list,
        description="Optional terms (summer, interim) the plan may use, as term codes, each "
        "checked against the calendar: an optional kind, after the current term.",
    )
    optional_kinds: list[str] = Field(
        default_factory=list,
        description="Optional kinds of term (kind codes, e.g. 'U') whose every term the plan "
        "may use.",
    )
    close_programs: int = Field(
        default=0,
        description="How many programs close by to list (the request's close_programs, or "
        "3 when the text asks which minors the student is close to).",
    )


class StudentConstraints(Artifact):
    """Constraints the student asked for."""

    terms_away: list[str] = Field(default_factory=list, description="Terms away (codes).")
    include_courses: list[str] = Field(default_factory=list, description="Courses wanted.")
    avoid_courses: list[str] = Field(default_factory=list, description="Courses to avoid.")
    pin_courses: dict[str, str] = Field(
        default_factory=dict, description="Courses pinned to a term (course -> term code)."
    )
    force_courses: list[str] = Field(
        default_factory=list,
        description="Courses planned although a prerequisite or offering check fails.",
    )
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
    assumed: list[str] = Field(
        default_factory=list,
        description="What the plan assumes that the student must settle, one sentence each: "
        "a concentration the major requires and the record does not declare, added to the "
        "programs (``agents.reading.concentrations``); the recommendation says each as a risk.",
    )
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
    as_of: str | None = Field(
        default=None,
        description="The day (YYYY-MM-DD) the student's advisor exceptions were judged on: "
        "the request's as_of, else the day the run started; None without exceptions.",
    )
    exceptions_expired: list[ExceptionUse] = Field(
        default_factory=list,
        description="Advisor exceptions past their expires date on as_of: left out of "
        "`student`, so no later stage applies them.",
    )
    parser: Literal["structured", "offline", "gemini", "offline_fallback"] = Field(
        description="What read the free text."
    )
