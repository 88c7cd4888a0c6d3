"""Course models: a course, when it is offered, and its scheduled sections and meetings.

Prerequisite and corequisite trees are ``agents.catalog.prereq`` nodes; in a catalog file
they may also be written as expressions, parsed when the course is loaded.
"""

from __future__ import annotations

from collections.abc import Collection
from functools import cached_property
from typing import Any, Literal, Union

from pydantic import Field, field_validator

from agents.catalog.base import CatalogModel
from agents.catalog.credits import is_credit_value
from agents.catalog.prereq import (
    COURSE_CODE_PATTERN,
    ClassStanding,
    ConsentCond,
    PrereqNode,
    iter_prereq,
)
from agents.catalog.prereq_parse import coerce_prereq
from agents.catalog.terms import TERM_CODE_PATTERN, Term

TIME_PATTERN = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"


class Meeting(CatalogModel):
    """One weekly meeting pattern of a section."""

    days: str = Field(
        pattern=r"^[MTWRFSU]+$",
        description="Meeting days: M T W R(Thursday) F S(Saturday) U(Sunday), e.g. 'MWF'.",
    )
    start: str = Field(pattern=TIME_PATTERN, description="Start time, 24-hour 'HH:MM'.")
    end: str = Field(pattern=TIME_PATTERN, description="End time, 24-hour 'HH:MM'.")
    location: str | None = Field(default=None, description="Room or building.")


class Section(CatalogModel):
    """A section of a course in one term."""

    term: str = Field(pattern=TERM_CODE_PATTERN, description="Term code, e.g. 'S2027'.")
    id: str = Field(min_length=1, description="Section identifier, unique per course and term.")
    meetings: list[Meeting] = Field(default_factory=list, description="Weekly meetings.")
    instructor: str | None = Field(default=None, description="Instructor of record.")
    capacity: int | None = Field(default=None, ge=0, description="Seats offered.")


class Offering(CatalogModel):
    """When a course is normally offered."""

    terms: list[str] = Field(
        min_length=1,
        description="Kinds of term the course runs in: codes, names or aliases of the "
        "catalog calendar's term kinds, e.g. ['fall', 'spring'] or ['T1', 'T3'].",
    )
    years: Literal["every", "odd", "even"] = Field(
        default="every",
        description="'every' year, or alternate years: only when the term's calendar year "
        "is 'odd' or 'even'.",
    )

    only_in: list[str] = Field(
        default_factory=list,
        description="Specific terms (codes, e.g. ['F2027', 'T32029']): when given, the course "
        "runs only in these terms - a course offered once, or on an irregular cycle.",
    )
    last_run: list[str] = Field(
        default_factory=list,
        description="Offering history: the last term of each kind the course actually ran, "
        "from the registrar's records (codes, at most one per kind, e.g. ['F2019', "
        "'S2025']). A kind of term whose pattern promised a run since then that did not "
        "happen is not planned as routine (``agents.catalog.history``).",
    )

    def offered_in(self, term: Term) -> bool:
        if not term.calendar.offered(self.terms, term):
            return False
        if self.only_in:
            return any(term.calendar.parse(t) == term for t in self.only_in)
        if self.years == "every":
            return True
        return (term.year % 2 == 1) == (self.years == "odd")


SUBJECT_PATTERN = r"^[A-Z0-9]{1,10}$"
CourseStatus = Literal["active", "dormant", "retired"]
"""Whether a course still runs: see ``Course.status``; ``agents.catalog.offerings`` reads it."""


class Course(CatalogModel):
    """A course in the catalog."""

    code: str = Field(pattern=COURSE_CODE_PATTERN, description="Course code, e.g. '15-112'.")
    title: str = Field(min_length=1, description="Course title.")
    units: float = Field(
        gt=0,
        description="Units (credits) earned: a whole number or a decimal with at most two "
        "places, e.g. 9, 4, 1, 0.5, 0.25.",
    )
    description: str = Field(default="", description="Catalog description.")
    department: str = Field(min_length=1, description="Offering department.")
    subject: str | None = Field(
        default=None,
        pattern=SUBJECT_PATTERN,
        description="Subject code that requirements select by (subjects, min_subjects); "
        "default: the letters before the number ('MATH 301' -> 'MATH') or the digits before "
        "'-' ('15-112' -> '15').",
    )
    level: int = Field(ge=0, description="Course level, e.g. 100, 200, 300, 400.")
    attributes: list[str] = Field(
        default_factory=list, description="Tags such as gen-ed areas or elective groups."
    )
    offered: Offering = Field(description="Offering pattern.")
    prerequisites: PrereqNode | None = Field(
        default=None,
        description="Prerequisite tree, or an expression such as "
        "'15-112 and (21-127 or 21-128[C])'.",
    )
    corequisites: PrereqNode | None = Field(
        default=None, description="Courses to take in the same or an earlier term."
    )
    antirequisites: list[str] = Field(
        default_factory=list, description="Courses that exclude credit for this one."
    )
    repeatable: bool = Field(
        default=False, description="Whether the course may be taken again for new credit."
    )
    restricted_to: list[ClassStanding] = Field(
        default_factory=list,
        description="Class standings that may take the course (the standing at the start of "
        "the term it is taken), e.g. ['first_year'] for a first-year seminar; empty: anyone.",
    )
    open_to_programs: list[str] = Field(
        default_factory=list,
        description="Program restriction: only students in (or adding) one of these programs "
        "may take the course - 'majors only', 'open to students of the School of X' (its "
        "programs listed); empty: anyone.",
    )
    closed_to_programs: list[str] = Field(
        default_factory=list,
        description="Program restriction: students in (or adding) one of these programs may "
        "not take the course - 'not open to Computer Science majors'.",
    )
    grading: Literal["graded", "pass_fail_allowed", "pass_fail_only"] = Field(
        default="graded", description="Grading options."
    )
    free_elective: bool = Field(
        default=True,
        description="Whether a planner may add the course on its own to make up units (a "
        "free elective). False for a course a student arranges or applies for rather than "
        "fills a schedule with: a practicum, internship, student teaching, independent "
        "study, research, a thesis or recital. Such a course is still planned when a "
        "requirement counts it or the student asks for it.",
    )
    sections: list[Section] = Field(default_factory=list, description="Scheduled sections.")
    status: CourseStatus = Field(
        default="active",
        description="'active': runs as its offering pattern says; 'dormant': still listed "
        "but not run for several years, possibly discontinued - planned only where no other "
        "course serves, and then with a risk naming when it last ran; 'retired': withdrawn, "
        "runs in no term (kept for records, equivalences and exceptions).",
    )
    last_offered: str | None = Field(
        default=None,
        pattern=TERM_CODE_PATTERN,
        description="The last term the course actually ran, from the registrar's records, "
        "e.g. 'F2019'; quoted in the risk for a dormant course. None: not recorded.",
    )

    @field_validator("units")
    @classmethod
    def _two_places(cls, value: float) -> float:
        if not is_credit_value(value):
            raise ValueError(
                f"units {value!r} has more than two decimal places; write credits such as "
                "1, 0.5 or 0.25 (they are added exactly in hundredths)"
            )
        return value

    @field_validator(
        "prerequisites",
        "corequisites",
        mode="before",
        json_schema_input_type=Union[str, PrereqNode, None],  # noqa: UP007
    )
    @classmethod
    def _parse_expression(cls, value: Any) -> Any:
        return coerce_prereq(value)

    @cached_property
    def consent_kinds(self) -> tuple[str, ...]:
        """Whose consent the prerequisites name ('instructor', 'department'...), in order;
        empty when no one's signature can satisfy them."""
        return tuple(
            n.consent for n in iter_prereq(self.prerequisites) if isinstance(n, ConsentCond)
        )

    def open_to(self, standing: ClassStanding) -> bool:
        """Whether a student of ``standing`` may take the course."""
        return not self.restricted_to or standing in self.restricted_to

    def closed_by_program(self, programs: Collection[str]) -> str | None:
        """Why a student in ``programs`` (declared and being added) may not take the course
        under its program restrictions, as words after the code; None when they may."""
        barred = sorted(set(self.closed_to_programs) & set(programs))
        if barred:
            return f"is not open to students in {', '.join(barred)}"
        if self.open_to_programs and not set(self.open_to_programs) & set(programs):
            return f"is open only to students in {', '.join(self.open_to_programs)}"
        return None

    @cached_property
    def section_terms(self) -> frozenset[str]:
        """Codes of the terms the course has a section in."""
        return frozenset(s.term for s in self.sections)

    def sections_in(self, term: Term | str) -> list[Section]:
        code = term.code if isinstance(term, Term) else term
        return [s for s in self.sections if s.term == code]

    @cached_property
    def subject_code(self) -> str:
        """The course's subject: ``subject`` when given, else derived from the code."""
        return self.subject if self.subject is not None else code_subject(self.code)


def code_subject(code: str) -> str:
    """The subject a course code starts with: 'MATH 301' and 'MATH301' -> 'MATH',
    '15-112' -> '15'; of a code whose subject has several words or signs, the letters and
    digits before its number (the last word, when it holds a digit): 'COMPSCI 161' ->
    'COMPSCI', 'A&B SCI 6B' -> 'ABSCI', 'CHEM H2A' -> 'CHEM'."""
    if code[:1].isdigit():
        return code.split("-", 1)[0]
    words = code.replace("-", " ").split()
    if len(words) > 1 and any(ch.isdigit() for ch in words[-1]):
        head = "".join(ch for ch in "".join(words[:-1]) if ch.isalnum()).upper()
        if head:
            return head
    end = 0
    while end < len(code) and code[end].isalpha():
        end += 1
    return code[:end].upper() or code
