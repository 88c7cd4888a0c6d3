"""Requirement trees of programs: single courses, ``all_of`` and ``n_of`` groups, course sets.

A program's ``requirement`` is the root of such a tree. Course sets select courses by code,
by code pattern (``'15-3xx'``) and by attribute; ``pattern_matches`` is the one reading of
a pattern. Requirement ids are unique within a program (checked in
``agents.catalog.crossref``).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Annotated, Literal, Union

from pydantic import Field

from agents.catalog.base import CatalogModel
from agents.catalog.courses import Course
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
    return _pattern_regex(pattern).fullmatch(code) is not None


@lru_cache(maxsize=1024)
def _pattern_regex(pattern: str) -> re.Pattern[str]:
    return re.compile("".join("[0-9]" if ch in "xX" else re.escape(ch) for ch in pattern))
