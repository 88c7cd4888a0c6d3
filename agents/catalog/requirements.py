"""Requirement trees of programs: single courses, ``all_of`` and ``n_of`` groups, course sets.

A program's ``requirement`` is the root of such a tree. Course sets select courses by code,
by code pattern (``'15-3xx'``) and by attribute, restricted by subject and level
(``selects`` is the one reading of a selector, ``pattern_matches`` of a pattern); they may
ask for courses from several subjects (``min_subjects``), cap what counts (``caps``: "at
most 2 of these") and ask for some of the counted courses from sub-lists (``minimums``:
"eleven electives, including two from list B-1"). Requirement ids are unique within a
program (checked in ``agents.catalog.crossref``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Annotated, Any, Literal, Protocol, Union

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from agents.catalog.base import CatalogModel
from agents.catalog.courses import SUBJECT_PATTERN, Course
from agents.catalog.prereq import COURSE_CODE_PATTERN, GRADE_PATTERN


class _Req(CatalogModel):
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


def _subjects_field(what: str) -> list[str]:
    return Field(
        default_factory=list,
        description=f"{what} must be in one of these subjects (Course.subject, by default "
        "the letters or digits that start the code: 'MATH 301' -> 'MATH', '15-112' -> '15').",
    )


def _level_field(bound: str) -> int | None:
    return Field(
        default=None,
        ge=0,
        description=f"{bound} course level, inclusive (Course.level; '300 or above' is "
        "min_level 300).",
    )


class CourseCap(CatalogModel):
    """'At most K of these may count': of the courses counted toward the course set, at
    most ``max_courses`` (and at most ``max_units`` units) may match this selector. The
    selector fields read as in a course set; an empty selector caps every course."""

    title: str = Field(
        default="", description="Readable name of the capped courses, e.g. '100-level courses'."
    )
    courses: list[str] = Field(default_factory=list, description="Capped courses by code.")
    patterns: list[str] = Field(
        default_factory=list, description="Code patterns where 'x' matches any digit."
    )
    attributes: list[str] = Field(
        default_factory=list, description="Courses carrying any of these attributes."
    )
    subjects: list[Annotated[str, Field(pattern=SUBJECT_PATTERN)]] = _subjects_field(
        "The capped course"
    )
    min_level: int | None = _level_field("Lowest")
    max_level: int | None = _level_field("Highest")
    max_courses: int | None = Field(
        default=None, ge=0, description="At most this many matching courses count."
    )
    max_units: float | None = Field(
        default=None, ge=0, description="At most this many units of matching courses count."
    )

    @model_validator(mode="after")
    def _check(self) -> CourseCap:
        if self.max_courses is None and self.max_units is None:
            raise ValueError("a cap needs max_courses or max_units (or both)")
        _check_levels(self.min_level, self.max_level)
        return self

    @property
    def empty(self) -> bool:
        """No selector field given: the cap applies to every course of the set."""
        return not (
            self.courses
            or self.patterns
            or self.attributes
            or self.subjects
            or self.min_level is not None
            or self.max_level is not None
        )

    def matches(self, course: Course) -> bool:
        return self.empty or selects(self, course)


class CourseMinimum(CatalogModel):
    """'Including at least K of these': of the courses counted toward the course set, at
    least ``min_courses`` (and at least ``min_units`` units) must match this selector. The
    selector fields read as in a cap; the courses it picks count toward the set's own count
    too ("eleven electives, including two from list B-1": a B-1 course is one of the eleven).
    A course matching several minimums counts toward each."""

    title: str = Field(default="", description="Readable name of the sub-list, e.g. 'list B-1'.")
    courses: list[str] = Field(default_factory=list, description="Sub-list courses by code.")
    patterns: list[str] = Field(
        default_factory=list, description="Code patterns where 'x' matches any digit."
    )
    attributes: list[str] = Field(
        default_factory=list, description="Courses carrying any of these attributes."
    )
    subjects: list[Annotated[str, Field(pattern=SUBJECT_PATTERN)]] = _subjects_field(
        "The sub-list course"
    )
    min_level: int | None = _level_field("Lowest")
    max_level: int | None = _level_field("Highest")
    min_courses: int | None = Field(
        default=None, ge=1, description="At least this many counted courses must match."
    )
    min_units: float | None = Field(
        default=None, gt=0, description="At least this many units of counted courses must match."
    )

    @model_validator(mode="after")
    def _check(self) -> CourseMinimum:
        if self.min_courses is None and self.min_units is None:
            raise ValueError("a minimum needs min_courses or min_units (or both)")
        if not (
            self.courses
            or self.patterns
            or self.attributes
            or self.subjects
            or self.min_level is not None
            or self.max_level is not None
        ):
            raise ValueError(
                "a minimum needs a selector (courses, patterns, attributes, subjects, "
                "min_level or max_level): the set's own min_courses / min_units count every "
                "course"
            )
        _check_levels(self.min_level, self.max_level)
        return self

    def matches(self, course: Course) -> bool:
        return selects(self, course)


class CourseSetRequirement(_Req):
    """Courses drawn from a set given by list, code pattern and/or attribute, optionally
    restricted to subjects and levels, spread over subjects, capped, and with minimums
    from sub-lists."""

    kind: Literal["course_set"] = Field(description="Node kind.")
    courses: list[str] = Field(
        default_factory=list,
        description="Courses in the set by code; they always match (unless excluded).",
    )
    patterns: list[str] = Field(
        default_factory=list,
        description="Code patterns where 'x' matches any digit, e.g. '15-3xx'.",
    )
    attributes: list[str] = Field(
        default_factory=list, description="Courses carrying any of these attributes."
    )
    subjects: list[Annotated[str, Field(pattern=SUBJECT_PATTERN)]] = _subjects_field(
        "A course matched by pattern or attribute (or by this restriction alone)"
    )
    min_level: int | None = _level_field("Lowest")
    max_level: int | None = _level_field("Highest")
    exclude: list[str] = Field(default_factory=list, description="Courses that never count.")
    min_courses: int | None = Field(default=None, ge=1, description="Courses needed.")
    min_units: float | None = Field(default=None, gt=0, description="Units needed.")
    min_grade: str | None = Field(
        default=None, pattern=GRADE_PATTERN, description="Lowest grade that counts."
    )
    min_gpa: float | None = Field(
        default=None, ge=0, le=4.5, description="Minimum GPA over the courses that count."
    )
    min_subjects: int | None = Field(
        default=None,
        ge=1,
        description="The courses that count must come from at least this many subjects.",
    )
    caps: list[CourseCap] = Field(
        default_factory=list,
        description="Limits on what counts: at most max_courses / max_units of the counted "
        "courses may match each cap's selector.",
    )
    minimums: list[CourseMinimum] = Field(
        default_factory=list,
        description="Minimums from sub-lists: at least min_courses / min_units of the counted "
        "courses must match each minimum's selector (they count toward the set's own count "
        "too). Written only when there is one.",
    )

    @model_validator(mode="after")
    def _check(self) -> CourseSetRequirement:
        _check_levels(self.min_level, self.max_level)
        for i, low in enumerate(self.minimums):
            for field, most in (("min_courses", self.min_courses), ("min_units", self.min_units)):
                wanted = getattr(low, field)
                if wanted is not None and most is not None and wanted > most:
                    raise ValueError(
                        f"minimums[{i}].{field} is {wanted:g}, more than the set's own "
                        f"{field} {most:g}: the courses of a minimum are among the set's - "
                        f"raise the set's {field} or lower the minimum's"
                    )
        return self

    @model_serializer(mode="wrap")
    def _without_empty(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """``minimums`` is written only when there is one: catalogs without the form
        serialize as before."""
        out: dict[str, Any] = handler(self)
        if not self.minimums:
            out.pop("minimums", None)
        return out

    @property
    def distributed(self) -> bool:
        """Whether the set caps what counts, asks for several subjects or has minimums from
        sub-lists: then not every matching course adds to it alike, and which ones count is
        a choice."""
        return bool(self.caps) or self.min_subjects is not None or bool(self.minimums)

    def matches(self, course: Course) -> bool:
        if course.code in self.exclude:
            return False
        return selects(self, course)


RequirementNode = Annotated[
    Union[CourseRequirement, AllOfRequirement, NOfRequirement, CourseSetRequirement],  # noqa: UP007
    Field(discriminator="kind"),
]
AllOfRequirement.model_rebuild()
NOfRequirement.model_rebuild()


class _Selector(Protocol):
    @property
    def courses(self) -> list[str]: ...
    @property
    def patterns(self) -> list[str]: ...
    @property
    def attributes(self) -> list[str]: ...
    @property
    def subjects(self) -> list[str]: ...
    @property
    def min_level(self) -> int | None: ...
    @property
    def max_level(self) -> int | None: ...


def selects(sel: _Selector, course: Course) -> bool:
    """Whether a selector (a course set's or a cap's fields) picks ``course``: a course
    listed by code always does; otherwise it must match a pattern or an attribute when any
    is given, and every restriction given (subjects, min_level, max_level). A selector of
    restrictions alone ("any MATH course numbered 300 or above") picks what they allow;
    one with nothing but codes picks only those."""
    if course.code in sel.courses:
        return True
    restricted = bool(sel.subjects) or sel.min_level is not None or sel.max_level is not None
    if sel.patterns or sel.attributes:
        if not (
            any(pattern_matches(p, course.code) for p in sel.patterns)
            or any(a in course.attributes for a in sel.attributes)
        ):
            return False
    elif not restricted:
        return False
    if sel.subjects and course.subject_code not in sel.subjects:
        return False
    if sel.min_level is not None and course.level < sel.min_level:
        return False
    return sel.max_level is None or course.level <= sel.max_level


def _check_levels(low: int | None, high: int | None) -> None:
    if low is not None and high is not None and low > high:
        raise ValueError(f"min_level {low} is above max_level {high}")


def pattern_matches(pattern: str, code: str) -> bool:
    """'15-3xx' matches '15-312'; 'x' stands for one digit, everything else is literal."""
    return _pattern_regex(pattern).fullmatch(code) is not None


@lru_cache(maxsize=1024)
def _pattern_regex(pattern: str) -> re.Pattern[str]:
    return re.compile("".join("[0-9]" if ch in "xX" else re.escape(ch) for ch in pattern))
