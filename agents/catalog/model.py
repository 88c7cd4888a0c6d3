"""The catalog: typed models of courses, programs, policy rules and documents.

The JSON form of these models is the catalog file format; its JSON Schema is published as
``agents/schemas/catalog.schema.json`` (generated from these models, checked by a test).
Loading, validation and cross-reference checks live in ``agents.catalog.loader``.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Annotated, Any, Literal, Union

from pydantic import BaseModel, ConfigDict, Field, field_validator

from agents.catalog.prereq import (
    COURSE_CODE_PATTERN,
    GRADE_PATTERN,
    ClassStanding,
    PrereqNode,
    coerce_prereq,
)
from agents.catalog.terms import TERM_CODE_PATTERN, Season, Term

AcademicStatus = Literal["good", "warning", "probation", "suspended"]
ProgramKind = Literal["major", "minor", "concentration"]
Severity = Literal["hard", "soft"]
Approver = Literal["advisor", "department", "dean", "registrar"]
TIME_PATTERN = r"^([01][0-9]|2[0-3]):[0-5][0-9]$"


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


# --------------------------------------------------------------------------- courses


class Meeting(_Model):
    """One weekly meeting pattern of a section."""

    days: str = Field(
        pattern=r"^[MTWRFSU]+$",
        description="Meeting days: M T W R(Thursday) F S(Saturday) U(Sunday), e.g. 'MWF'.",
    )
    start: str = Field(pattern=TIME_PATTERN, description="Start time, 24-hour 'HH:MM'.")
    end: str = Field(pattern=TIME_PATTERN, description="End time, 24-hour 'HH:MM'.")
    location: str | None = Field(default=None, description="Room or building.")


class Section(_Model):
    """A section of a course in one term."""

    term: str = Field(pattern=TERM_CODE_PATTERN, description="Term code, e.g. 'S2027'.")
    id: str = Field(min_length=1, description="Section identifier, unique per course and term.")
    meetings: list[Meeting] = Field(default_factory=list, description="Weekly meetings.")
    instructor: str | None = Field(default=None, description="Instructor of record.")
    capacity: int | None = Field(default=None, ge=0, description="Seats offered.")


class Offering(_Model):
    """When a course is normally offered."""

    terms: list[Season] = Field(min_length=1, description="Seasons the course runs in.")
    years: Literal["every", "odd", "even"] = Field(
        default="every",
        description="'every' year, or alternate years: only when the term's calendar year "
        "is 'odd' or 'even'.",
    )

    def offered_in(self, term: Term) -> bool:
        if term.season not in self.terms:
            return False
        if self.years == "every":
            return True
        return (term.year % 2 == 1) == (self.years == "odd")


class Course(_Model):
    """A course in the catalog."""

    code: str = Field(pattern=COURSE_CODE_PATTERN, description="Course code, e.g. '15-112'.")
    title: str = Field(min_length=1, description="Course title.")
    units: float = Field(gt=0, description="Units (credits) earned; integers or decimals.")
    description: str = Field(default="", description="Catalog description.")
    department: str = Field(min_length=1, description="Offering department.")
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
    grading: Literal["graded", "pass_fail_allowed", "pass_fail_only"] = Field(
        default="graded", description="Grading options."
    )
    sections: list[Section] = Field(default_factory=list, description="Scheduled sections.")

    @field_validator(
        "prerequisites",
        "corequisites",
        mode="before",
        json_schema_input_type=Union[str, PrereqNode, None],  # noqa: UP007
    )
    @classmethod
    def _parse_expression(cls, value: Any) -> Any:
        return coerce_prereq(value)

    def sections_in(self, term: Term | str) -> list[Section]:
        code = term.code if isinstance(term, Term) else term
        return [s for s in self.sections if s.term == code]


# --------------------------------------------------------------------------- programs


class _Req(_Model):
    id: str = Field(min_length=1, description="Identifier, unique within the program.")
    title: str = Field(default="", description="Readable name of the requirement.")


class CourseRequirement(_Req):
    """One specific course."""

    kind: Literal["course"] = Field(description="Node kind.")
    course: str = Field(pattern=COURSE_CODE_PATTERN, description="The required course.")
    min_grade: str | None = Field(
        default=None, pattern=GRADE_PATTERN, description="Lowest grade that counts."
    )


class AllOfRequirement(_Req):
    """Every child must be met."""

    kind: Literal["all_of"] = Field(description="Node kind.")
    children: list[RequirementNode] = Field(min_length=1, description="Child requirements.")


class NOfRequirement(_Req):
    """At least ``n`` children must be met."""

    kind: Literal["n_of"] = Field(description="Node kind.")
    n: int = Field(ge=1, description="How many children must be met.")
    children: list[RequirementNode] = Field(min_length=1, description="Child requirements.")


class CourseSetRequirement(_Req):
    """Courses drawn from a set given by list, code pattern and/or attribute."""

    kind: Literal["course_set"] = Field(description="Node kind.")
    courses: list[str] = Field(default_factory=list, description="Courses in the set by code.")
    patterns: list[str] = Field(
        default_factory=list,
        description="Code patterns where 'x' matches any digit, e.g. '15-3xx'.",
    )
    attributes: list[str] = Field(
        default_factory=list, description="Courses carrying any of these attributes."
    )
    exclude: list[str] = Field(default_factory=list, description="Courses that never count.")
    min_courses: int | None = Field(default=None, ge=1, description="Courses needed.")
    min_units: float | None = Field(default=None, gt=0, description="Units needed.")
    min_grade: str | None = Field(
        default=None, pattern=GRADE_PATTERN, description="Lowest grade that counts."
    )
    min_gpa: float | None = Field(
        default=None, ge=0, le=4.5, description="Minimum GPA over the courses that count."
    )

    def matches(self, course: Course) -> bool:
        if course.code in self.exclude:
            return False
        if course.code in self.courses:
            return True
        if any(pattern_matches(p, course.code) for p in self.patterns):
            return True
        return any(a in course.attributes for a in self.attributes)


RequirementNode = Annotated[
    Union[CourseRequirement, AllOfRequirement, NOfRequirement, CourseSetRequirement],  # noqa: UP007
    Field(discriminator="kind"),
]
AllOfRequirement.model_rebuild()
NOfRequirement.model_rebuild()


def pattern_matches(pattern: str, code: str) -> bool:
    """'15-3xx' matches '15-312'; 'x' stands for one digit, everything else is literal."""
    rx = "".join("[0-9]" if ch in "xX" else re.escape(ch) for ch in pattern)
    return re.fullmatch(rx, code) is not None


class SharingLimit(_Model):
    """At most ``max_courses`` courses may count toward both this program and another."""

    with_program: str | None = Field(
        default=None, description="The other program's code; None means any program of kind."
    )
    with_kind: ProgramKind | None = Field(
        default=None, description="Applies to every other program of this kind."
    )
    max_courses: int = Field(ge=0, description="Courses that may count toward both.")
    rule: str | None = Field(default=None, description="Policy rule id that states the limit.")


class Program(_Model):
    """A major, minor or concentration."""

    code: str = Field(pattern=r"^[A-Z0-9][A-Z0-9-]*$", description="Program code, e.g. 'CS-BS'.")
    name: str = Field(min_length=1, description="Official name.")
    kind: ProgramKind = Field(description="Program kind.")
    aliases: list[str] = Field(default_factory=list, description="Other names people use.")
    catalog_year: str = Field(description="Catalog year, e.g. '2026-2027'.")
    department: str = Field(description="Home department.")
    total_units: float | None = Field(
        default=None, gt=0, description="Units needed for the degree (majors)."
    )
    min_gpa: float | None = Field(default=None, ge=0, description="Minimum program GPA.")
    requirement: RequirementNode = Field(description="Root of the requirement tree.")
    sharing: list[SharingLimit] = Field(
        default_factory=list, description="Limits on courses shared with other programs."
    )
    eligible_majors: list[str] = Field(
        default_factory=list,
        description="If non-empty, only students in one of these majors may add the program.",
    )
    excluded_majors: list[str] = Field(
        default_factory=list, description="Majors whose students may not add the program."
    )
    document: str | None = Field(default=None, description="Id of the program's description.")


# --------------------------------------------------------------------------- policies


class RuleCondition(_Model):
    """When a rule applies; every field given must hold."""

    gpa_min: float | None = Field(default=None, description="Cumulative GPA at least this.")
    gpa_max: float | None = Field(default=None, description="Cumulative GPA below this.")
    standing_in: list[ClassStanding] = Field(
        default_factory=list, description="Class standings the rule applies to (empty: all)."
    )
    status_in: list[AcademicStatus] = Field(
        default_factory=list, description="Academic statuses the rule applies to (empty: all)."
    )


class Citation(_Model):
    """Where a rule is stated."""

    document: str = Field(description="Document id.")
    section: str = Field(description="Section id within the document.")


RuleKind = Literal[
    "max_units_per_term",
    "min_units_per_term",
    "overload",
    "probation_max_units",
    "max_courses_per_term",
    "repeat_limit",
    "pass_fail_limit",
    "residency",
    "max_terms",
    "program_sharing",
    "min_gpa_graduation",
    "minor_eligibility",
    "total_units",
]


class PolicyRule(_Model):
    """A machine-checkable policy rule linked to the text that states it."""

    id: str = Field(pattern=r"^[A-Z][A-Z0-9-]*$", description="Rule id, e.g. 'LOAD-MAX'.")
    title: str = Field(description="Short name.")
    kind: RuleKind = Field(description="What the rule limits.")
    applies_when: RuleCondition = Field(
        default_factory=RuleCondition, description="Condition on the student."
    )
    limit: float | None = Field(
        default=None,
        description="The number the rule sets: units, courses, terms, repeats or a GPA.",
    )
    severity: Severity = Field(default="hard", description="Hard rules cannot be waived.")
    requires_approval: Approver | None = Field(
        default=None, description="Who may approve an exception (for overload-type rules)."
    )
    citation: Citation = Field(description="Policy document section stating the rule.")
    summary: str = Field(default="", description="One-sentence statement of the rule.")


# --------------------------------------------------------------------------- documents


class DocSection(_Model):
    """A citable section of a document."""

    id: str = Field(min_length=1, description="Section id, unique within the document.")
    heading: str = Field(description="Section heading.")
    text: str = Field(min_length=1, description="Section text, quoted in citations.")


class Document(_Model):
    """A policy or program document split into sections."""

    id: str = Field(min_length=1, description="Document id.")
    title: str = Field(description="Document title.")
    kind: Literal["policy", "program", "general"] = Field(description="Document kind.")
    sections: list[DocSection] = Field(min_length=1, description="Sections in order.")


# --------------------------------------------------------------------------- catalog


class GradeDef(_Model):
    """One grade of the grade scale."""

    grade: str = Field(pattern=r"^[A-Z]{1,2}[+-]?$", description="Grade symbol.")
    points: float = Field(ge=0, description="Quality points; compared against minimum grades.")
    earns_credit: bool = Field(default=True, description="Whether the course's units count.")
    in_gpa: bool = Field(default=True, description="Whether the grade counts in the GPA.")


DEFAULT_GRADE_SCALE: list[dict[str, Any]] = [
    {"grade": "A", "points": 4.0},
    {"grade": "A-", "points": 3.67},
    {"grade": "B+", "points": 3.33},
    {"grade": "B", "points": 3.0},
    {"grade": "B-", "points": 2.67},
    {"grade": "C+", "points": 2.33},
    {"grade": "C", "points": 2.0},
    {"grade": "C-", "points": 1.67},
    {"grade": "D+", "points": 1.33},
    {"grade": "D", "points": 1.0},
    {"grade": "F", "points": 0.0, "earns_credit": False},
    {"grade": "R", "points": 0.0, "earns_credit": False},
    {"grade": "P", "points": 2.0, "in_gpa": False},
    {"grade": "NP", "points": 0.0, "earns_credit": False, "in_gpa": False},
    {"grade": "W", "points": 0.0, "earns_credit": False, "in_gpa": False},
    {"grade": "I", "points": 0.0, "earns_credit": False, "in_gpa": False},
    {"grade": "TR", "points": 2.0, "in_gpa": False},
]


class StandingThresholds(_Model):
    """Units completed needed for each class standing."""

    sophomore: float = Field(default=90, description="Units for sophomore standing.")
    junior: float = Field(default=180, description="Units for junior standing.")
    senior: float = Field(default=270, description="Units for senior standing.")


class Institution(_Model):
    """Who publishes the catalog."""

    name: str = Field(description="Institution name.")
    unit_name: str = Field(default="units", description="What credits are called.")


class Catalog(_Model):
    """A complete catalog."""

    schema_version: Literal[1] = Field(description="Catalog format version.")
    institution: Institution = Field(description="Publisher.")
    catalog_year: str = Field(description="Catalog year, e.g. '2026-2027'.")
    grade_scale: list[GradeDef] = Field(
        default_factory=lambda: [GradeDef(**g) for g in DEFAULT_GRADE_SCALE],
        description="Grades and their points.",
    )
    standing_thresholds: StandingThresholds = Field(
        default_factory=StandingThresholds, description="Units per class standing."
    )
    courses: list[Course] = Field(description="Every course.")
    programs: list[Program] = Field(description="Majors, minors and concentrations.")
    policies: list[PolicyRule] = Field(description="Machine-checkable policy rules.")
    documents: list[Document] = Field(description="Policy and program documents.")

    # Indexes built once; the model is frozen so they never go stale.
    @cached_property
    def course_by_code(self) -> dict[str, Course]:
        return {c.code: c for c in self.courses}

    @cached_property
    def program_by_code(self) -> dict[str, Program]:
        return {p.code: p for p in self.programs}

    @cached_property
    def grade_by_symbol(self) -> dict[str, GradeDef]:
        return {g.grade: g for g in self.grade_scale}

    @cached_property
    def rule_by_id(self) -> dict[str, PolicyRule]:
        return {r.id: r for r in self.policies}

    @cached_property
    def document_by_id(self) -> dict[str, Document]:
        return {d.id: d for d in self.documents}

    def course(self, code: str) -> Course:
        return self.course_by_code[code]

    def program(self, code: str) -> Program:
        from agents.errors import UnknownProgramError

        try:
            return self.program_by_code[code]
        except KeyError:
            raise UnknownProgramError(code, sorted(self.program_by_code)) from None

    def section_text(self, document: str, section: str) -> DocSection:
        doc = self.document_by_id[document]
        return next(s for s in doc.sections if s.id == section)

    def grade_meets(self, grade: str | None, minimum: str | None) -> bool:
        """Whether ``grade`` earns credit and is at least ``minimum`` (None: any passing)."""
        if grade is None:
            return minimum is None
        g = self.grade_by_symbol.get(grade)
        if g is None or not g.earns_credit:
            return False
        if minimum is None:
            return True
        return g.points >= self.grade_by_symbol[minimum].points

    def standing_for_units(self, units: float) -> ClassStanding:
        t = self.standing_thresholds
        if units >= t.senior:
            return "senior"
        if units >= t.junior:
            return "junior"
        if units >= t.sophomore:
            return "sophomore"
        return "first_year"
