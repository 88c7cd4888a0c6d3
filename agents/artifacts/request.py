"""The request as received: who the student is and what they want."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from agents.artifacts.base import (
    REQUEST_ID_PATTERN,
    Artifact,
    Intent,
    Weekday,
)
from agents.catalog import (
    StudentRecord,
)
from agents.catalog.limits import LIMITS
from agents.catalog.terms import TermCode


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
    text: str = Field(
        default="",
        max_length=LIMITS["request_text"].value,
        description="The student's request in their own words.",
    )
    intent: Intent | None = Field(
        default=None, description="What the student wants; read from the text when absent."
    )
    add_programs: list[str] = Field(default_factory=list, description="Programs to add.")
    drop_programs: list[str] = Field(
        default_factory=list, description="Programs to drop (switching programs)."
    )
    program_years: dict[str, str] = Field(
        default_factory=dict,
        description="Catalog year to follow for a program, by code, over the record's "
        "program_years: e.g. {'CS-MIN': '2025-2026'} to add a minor under a later catalog. "
        "A program not named follows the record's (its catalog_year by default).",
    )
    target_graduation: TermCode | None = Field(
        default=None, description="Graduate no later than this term ('S2028' or 'Spring 2028')."
    )
    max_units_per_term: float | None = Field(
        default=None, gt=0, description="The student's own cap on units per term."
    )
    max_courses_per_term: int | None = Field(
        default=None, ge=1, description="The student's own cap on courses per term."
    )
    next_term_courses: int | None = Field(
        default=None,
        ge=1,
        description="How many courses the student wants to take in the next term ('five "
        "courses next semester'): planned as asked, and the critique says whether that load "
        "needs an overload approval the student may get. Not a cap (see max_courses_per_term).",
    )
    next_term_units: float | None = Field(
        default=None,
        gt=0,
        description="How many units the student wants to take in the next term ('six courses "
        "(24 units) next quarter'): planned as asked, at least that many, with "
        "next_term_courses when both are given; the critique says whether that load needs an "
        "approval the student may get. Not a cap (see max_units_per_term).",
    )
    terms_away: list[str] = Field(
        default_factory=list, description="Future terms away (abroad, leave), as term codes."
    )
    optional_terms: list[str] = Field(
        default_factory=list,
        description="Optional terms (summer, a January interim: kinds the catalog's calendar "
        "does not mark regular) the student is willing to take courses in, as term codes or "
        "names, e.g. ['U2027'] or ['Summer 2027']. The plan may use these terms but never has "
        "to, and uses no other optional term. A regular term here is ignored with a note; a "
        "term the calendar cannot read, or one not after the current term, is an open question.",
    )
    optional_kinds: list[str] = Field(
        default_factory=list,
        description="Kinds of optional term the student is willing to use in any year, as the "
        "calendar's kind codes or names, e.g. ['U'] or ['summer'] for 'summer classes are "
        "fine'. A kind that is regular or not in the calendar is ignored with a note.",
    )
    include_courses: list[str] = Field(default_factory=list, description="Courses wanted.")
    avoid_courses: list[str] = Field(default_factory=list, description="Courses to avoid.")
    close_programs: int = Field(
        default=0,
        ge=0,
        le=10,
        description="List up to this many programs (minors first, then concentrations) the "
        "student could add without delaying graduation, each planned with theirs, with the "
        "courses still needed ('which minors am I close to?'); 0: none.",
    )
    pin_courses: dict[str, str] = Field(
        default_factory=dict,
        description="Courses pinned to a term, course -> term code or name, e.g. "
        "{'15-445': 'Fall 2027'} for 'I want 15-445 in Fall 2027': the plan keeps each in its "
        "term. A pin to a term the course is not offered in is asked about, unless the "
        "course is also in force_courses.",
    )
    force_courses: list[str] = Field(
        default_factory=list,
        description="Courses to plan although a prerequisite or offering check fails for "
        "them (e.g. with the instructor's permission), in their pinned term if any: planned "
        "with a warning and a risk instead of being refused. The verifier still reports the "
        "failed check; the critique says whether it can stand.",
    )
    interests: list[str] = Field(default_factory=list, description="Topics of interest.")
    time_preferences: TimePreferences = Field(
        default_factory=TimePreferences, description="Free days and times for the next term."
    )
    question: str | None = Field(default=None, description="A policy question, if any.")
    alternatives: int = Field(
        default=0,
        ge=0,
        le=5,
        description="How many distinct plans to show beside the recommended one (0-5), each "
        "as good or the next best, with what differs. 'advise run/batch --alternatives K' "
        "sets it for requests that do not give it.",
    )
    as_of: date | None = Field(
        default=None,
        description="The day the request is judged on (YYYY-MM-DD): advisor exceptions whose "
        "expires date is before it are ignored. Default: the day the run starts.",
    )
