"""The catalog: the root model that holds courses, programs, policy rules and documents.

The JSON form of these models is the catalog file format; its JSON Schema is published as
``agents/schemas/catalog.schema.json`` (generated from these models, checked by a test).
The models live by subject: ``courses`` (courses, offerings, sections), ``requirements``
(program requirement trees), ``programs``, ``policies`` (rules and documents) and
``prereq`` (prerequisite trees); this module adds the grade scale, the standing thresholds
and ``Catalog`` with its lookups. Loading lives in ``agents.catalog.loader``.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from functools import cached_property
from typing import Any, Literal

from pydantic import (
    Field,
    ModelWrapValidatorHandler,
    PositiveFloat,
    ValidationInfo,
    field_validator,
    model_validator,
)

from agents.catalog.base import CatalogModel
from agents.catalog.codes import CodeIndex, declared_pattern_problem, use_codes
from agents.catalog.courses import Course
from agents.catalog.credits import from_hundredths, hundredths, typical_credits
from agents.catalog.main_terms import main_kinds
from agents.catalog.milestones import Milestone, expand, named
from agents.catalog.milestones import check as check_milestones
from agents.catalog.policies import DocSection, Document, PolicyRule
from agents.catalog.prereq import ClassStanding
from agents.catalog.programs import Program
from agents.catalog.requirements import CourseSetRequirement
from agents.catalog.terms import SEMESTER_CALENDAR, Calendar

_TREES = ("prerequisites", "corequisites")


class GradeDef(CatalogModel):
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


YEAR_COURSES = 10
"""Courses in a year of full-time study: where a catalog gives no standing thresholds, a
student is a sophomore after ten typical courses (``credits.typical_credits``), a junior
after twenty, a senior after thirty (90/180/270 units with 9-unit courses, 10/20/30 credits
with 1-credit ones)."""


class StandingThresholds(CatalogModel):
    """Units completed needed for each class standing."""

    sophomore: float = Field(default=90, description="Units for sophomore standing.")
    junior: float = Field(default=180, description="Units for junior standing.")
    senior: float = Field(default=270, description="Units for senior standing.")


class Institution(CatalogModel):
    """Who publishes the catalog."""

    name: str = Field(description="Institution name.")
    unit_name: str = Field(default="units", description="What credits are called.")
    credit_unit: str | None = Field(
        default=None,
        min_length=1,
        exclude_if=lambda v: v is None,  # written only when given: catalogs without it as before
        description="The transcript credit unit the catalog's credits are, as PESC "
        "CourseCreditUnits writes it ('Quarter', 'Semester', 'Units'): transcript credits in "
        "it (or in unit_name) are taken as they are (version 3). None: only unit_name.",
    )
    credit_conversion: dict[str, PositiveFloat] = Field(
        default_factory=dict,
        exclude_if=lambda v: not v,
        description="Catalog credits per one transcript credit of another unit, by PESC "
        "CourseCreditUnits code: {'Semester': 1.5} on a quarter catalog (version 3). "
        "Transcript credits in a unit neither listed nor the catalog's own keep their course "
        "out, reported.",
    )


class Catalog(CatalogModel):
    """A complete catalog."""

    schema_version: Literal[2, 3] = Field(
        description="Catalog format version: 3 (a version 2 catalog is read as it is, "
        "`advise catalog migrate` upgrades it and version 1)."
    )
    institution: Institution = Field(description="Publisher.")
    catalog_year: str = Field(description="Catalog year, e.g. '2026-2027'.")
    course_code_pattern: str | None = Field(
        default=None,
        description="The institution's course code syntax: a (Python) regular expression "
        "every course code must match whole, e.g. '[A-Z&]+(?: [A-Z]+)* H?[0-9]+[A-Z]{0,2}' "
        "(version 3). None: any text without control characters or surrounding spaces.",
    )
    calendar: Calendar = Field(
        default_factory=lambda: SEMESTER_CALENDAR.model_copy(),
        description="The term system: kinds of term, which are regular, where a year starts.",
    )
    grade_scale: list[GradeDef] = Field(
        default_factory=lambda: [GradeDef(**g) for g in DEFAULT_GRADE_SCALE],
        description="Grades and their points.",
    )
    standing_thresholds: StandingThresholds = Field(
        default_factory=StandingThresholds,
        description="Units per class standing. When not given: 10, 20 and 30 times the "
        "catalog's typical course (the size its median unit is taught in), a year being ten "
        "courses - so a catalog of 1-credit courses is not read with thresholds meant for "
        "9-unit ones.",
    )
    courses: list[Course] = Field(description="Every course.")
    programs: list[Program] = Field(description="Majors, minors and concentrations.")
    program_versions: list[Program] = Field(
        default_factory=list,
        description="The same programs as published in other catalog years (each with its "
        "own catalog_year; its code must be in programs): a student who follows another "
        "year's catalog for a program is audited and planned against the version in effect "
        "that year. A version applies from its catalog year until the next one.",
    )
    policies: list[PolicyRule] = Field(description="Machine-checkable policy rules.")
    milestones: list[Milestone] = Field(
        default_factory=list,
        exclude_if=lambda v: not v,  # written only when given: catalogs without it as before
        description="Requirements a prerequisite can ask for with met(ID), e.g. the Entry "
        "Level Writing Requirement: met on the student's record or by their met_by.",
    )
    documents: list[Document] = Field(description="Policy and program documents.")

    @field_validator("course_code_pattern")
    @classmethod
    def _pattern_compiles(cls, value: str | None, info: ValidationInfo) -> str | None:
        problem = None if value is None else declared_pattern_problem(value)
        if problem is not None:
            raise ValueError(problem)
        if value is not None and info.data.get("schema_version") == 2:
            raise ValueError(
                "new in catalog format version 3; set schema_version to 3 (`advise catalog "
                "migrate` does it)"
            )
        return value

    @field_validator("calendar")
    @classmethod
    def _calendar_forms(cls, value: Calendar, info: ValidationInfo) -> Calendar:
        new = [f for f in ("timezone", "holidays") if getattr(value, f)]
        if new and info.data.get("schema_version") == 2:
            raise ValueError(
                f"{' and '.join(new)} {'are' if len(new) > 1 else 'is'} new in catalog format "
                "version 3; set schema_version to 3 (`advise catalog migrate` does it)"
            )
        return value

    @model_validator(mode="after")
    def _v3_credit_units(self) -> Catalog:
        inst = self.institution
        if self.schema_version == 2 and (inst.credit_unit or inst.credit_conversion):
            raise ValueError(
                "institution.credit_unit and credit_conversion are new in catalog format "
                "version 3; set schema_version to 3 (`advise catalog migrate` does it)"
            )
        return self

    @model_validator(mode="wrap")
    @classmethod
    def _read_with_codes(cls, data: Any, handler: ModelWrapValidatorHandler[Catalog]) -> Catalog:
        """Prerequisite expressions are read against the catalog's own course codes
        (``agents.catalog.prereq_parse``): codes with spaces or '&' read as one code."""
        courses = data.get("courses") if isinstance(data, dict) else None
        items = courses if isinstance(courses, list) else []
        codes = [c.get("code") if isinstance(c, dict) else getattr(c, "code", None) for c in items]
        texts = [c for c in codes if isinstance(c, str)]
        with use_codes(CodeIndex(texts) if texts else None):
            return handler(data)

    @model_validator(mode="before")
    @classmethod
    def _typical_thresholds(cls, data: Any) -> Any:
        """Standing thresholds from the catalog's typical course when it gives none
        (``YEAR_COURSES``): no unit size is assumed."""
        if not isinstance(data, dict) or "standing_thresholds" in data:
            return data
        courses = data.get("courses")
        units: list[Any] = [
            c.get("units") if isinstance(c, dict) else getattr(c, "units", None)
            for c in courses or []
        ]
        sizes: list[float] = [u for u in units if type(u) in (int, float) and u > 0]
        if not sizes or len(sizes) < len(units):
            return data  # not a list of courses: the field validators will say so
        typical = hundredths(typical_credits(sizes))
        years = {"sophomore": 1, "junior": 2, "senior": 3}
        thresholds = {k: from_hundredths(typical * YEAR_COURSES * n) for k, n in years.items()}
        return {**data, "standing_thresholds": thresholds}

    @model_validator(mode="after")
    def _fill_milestones(self) -> Catalog:
        """Check every met(X) against the declared milestones, then fill each in with its
        met_by (``agents.catalog.milestones``), so readers of the trees need nothing new."""
        trees = [(f"course {c.code} {f}", getattr(c, f)) for c in self.courses for f in _TREES]
        if not self.milestones and not any(named(t) for _, t in trees):
            return self
        check_milestones(self.milestones, trees)
        filled = []
        for c in self.courses:
            upd = {f: expand(getattr(c, f), self.milestones) for f in _TREES}
            changed = any(upd[f] is not getattr(c, f) for f in _TREES)
            filled.append(c.model_copy(update=upd) if changed else c)
        object.__setattr__(self, "courses", filled)
        return self

    # Indexes built once; the model is frozen so they never go stale.
    @cached_property
    def derived(self) -> dict[str, Any]:
        """Values derived from this catalog that its users compute once and keep here (the
        planner's index, bounded memo tables such as the audit's): they live and die with
        the catalog object, so no module keeps a cache keyed on ``id()``."""
        return {}

    def courses_matching(self, req: CourseSetRequirement) -> frozenset[str]:
        """Codes of this catalog's courses that course-set requirement ``req`` matches,
        computed once per requirement node (the node is kept with the answer, so its
        identity cannot be reused while the answer is)."""
        memo: dict[int, tuple[CourseSetRequirement, frozenset[str]]]
        memo = self.derived.setdefault("courses_matching", {})
        hit = memo.get(id(req))
        if hit is None or hit[0] is not req:
            hit = (req, frozenset(c.code for c in self._can_select(req) if req.matches(c)))
            memo[id(req)] = hit
        return hit[1]

    def _can_select(self, req: CourseSetRequirement) -> list[Course]:
        """The courses ``req``'s selector can pick at all (``requirements.selects``): those
        it lists, and those its patterns (by the code before a pattern's first 'x'), its
        attributes or else its subjects can pick; every course for levels alone. A catalog
        of thousands of courses and hundreds of sets is then not a scan of every course for
        every set."""
        found = [self.course_by_code[c] for c in req.courses if c in self.course_by_code]
        index = self._selector_index()
        if req.patterns or req.attributes:
            for pattern in req.patterns:
                head = re.split("[xX]", pattern, maxsplit=1)[0]
                codes, courses = index["codes"], index["sorted"]
                at = bisect_left(codes, head)
                while at < len(codes) and codes[at].startswith(head):
                    found.append(courses[at])
                    at += 1
            for attribute in req.attributes:
                found.extend(index["attribute"].get(attribute, ()))
        elif req.subjects:
            for subject in req.subjects:
                found.extend(index["subject"].get(subject, ()))
        elif req.min_level is not None or req.max_level is not None:
            return list(self.courses)
        return found

    def _selector_index(self) -> dict[str, Any]:
        """Courses by code order, by subject and by attribute (once per catalog)."""
        hit: dict[str, Any] | None = self.derived.get("selector_index")
        if hit is None:
            ordered = sorted(self.courses, key=lambda c: c.code)
            subject: dict[str, list[Course]] = {}
            attribute: dict[str, list[Course]] = {}
            for c in self.courses:
                subject.setdefault(c.subject_code, []).append(c)
                for a in c.attributes:
                    attribute.setdefault(a, []).append(c)
            hit = self.derived["selector_index"] = {
                "codes": [c.code for c in ordered], "sorted": ordered,
                "subject": subject, "attribute": attribute,
            }  # fmt: skip
        return hit

    @cached_property
    def main_kinds(self) -> frozenset[str]:
        """The calendar's main term kinds: what "next term" means (``main_terms``)."""
        return main_kinds(self)

    @cached_property
    def course_by_code(self) -> dict[str, Course]:
        return {c.code: c for c in self.courses}

    @cached_property
    def code_index(self) -> CodeIndex:
        """The course codes by key, for lookups in any case and spacing and for finding
        them in text (``agents.catalog.codes``), with the declared code syntax."""
        return CodeIndex([c.code for c in self.courses], self.course_code_pattern)

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


def institution_programs(catalog: Catalog) -> list[Program]:
    """The catalog's programs of kind ``institution``, in catalog order."""
    return [p for p in catalog.programs if p.kind == "institution"]


def with_institution(catalog: Catalog, codes: Iterable[str]) -> list[str]:
    """A student's program codes (as given) followed by the institution's requirements
    that are not among them: what every audit, plan and check covers."""
    out = list(codes)
    out += [p.code for p in institution_programs(catalog) if p.code not in out]
    return out
