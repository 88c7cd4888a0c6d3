"""Student records: programs, catalog year, course attempts with grades, GPA and status.

A record is JSON (see ``demos/students/``); ``load_student`` validates it and names the file
and field of every problem. Derived facts (units earned, class standing, GPA when not
given, the best attempt of a repeated course) are computed here so every tool agrees.
"""

from __future__ import annotations

import re
from datetime import date
from functools import cached_property
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from agents.catalog.base import CatalogModel
from agents.catalog.credits import credit_sum, grade_average
from agents.catalog.exceptions import AdvisorException, Approval, ExceptionsFile, error_path
from agents.catalog.limits import LIMITS
from agents.catalog.model import Catalog
from agents.catalog.policies import AcademicStatus
from agents.catalog.prereq import COURSE_CODE_PATTERN, ClassStanding
from agents.catalog.terms import (
    Calendar,
    Term,
    TermCode,
    active_calendar,
    use_calendar,
)
from agents.catalog.test_scores import ExamTaken
from agents.catalog.validation import pydantic_problem, read_json
from agents.errors import StudentRecordError, TermError

_CATALOG_YEAR = re.compile(r"^\d{4}")
_MET = "Catalog milestones the record declares met, e.g. ['ELWR']: met(ELWR) holds."

AttemptSource = Literal["institution", "transfer", "ap", "exam"]


class CourseAttempt(BaseModel):
    """One attempt at a course, or credit brought in from elsewhere."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    course: str = Field(pattern=COURSE_CODE_PATTERN, description="Course code in this catalog.")
    term: TermCode = Field(description="Term taken (or credited).")
    grade: str | None = Field(
        default=None, description="Grade; None while the course is in progress."
    )
    status: Literal["completed", "in_progress"] = Field(
        default="completed", description="Completed, or being taken now."
    )
    source: AttemptSource = Field(
        default="institution", description="Taken here, or transfer / AP / exam credit."
    )
    pass_fail: bool = Field(default=False, description="Taken pass/fail.")
    units: float | None = Field(
        default=None, gt=0, description="Units if different from the catalog's."
    )


class Registration(BaseModel):
    """A course the student is registered for (or has planned) in a future term."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    course: str = Field(pattern=COURSE_CODE_PATTERN, description="Course code in this catalog.")
    term: TermCode = Field(description="The future term it is in.")


class StudentRecord(CatalogModel):
    """A student's academic record."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(min_length=1, max_length=LIMITS["name"].value, description="Student id.")
    name: str = Field(min_length=1, max_length=LIMITS["name"].value, description="Preferred name.")
    programs: list[str] = Field(min_length=1, description="Declared program codes.")
    catalog_year: str = Field(
        description="Catalog year the student follows (the year they entered), e.g. "
        "'2026-2027'; each program follows it unless program_years names another."
    )
    program_years: dict[str, str] = Field(
        default_factory=dict,
        description="Catalog year followed for a program, by program code, when it is not "
        "catalog_year: e.g. {'CS-MIN': '2025-2026'} for a minor added under a later catalog.",
    )
    start_term: TermCode = Field(description="First term enrolled.")
    current_term: TermCode = Field(description="Term in progress now; plans start after it.")
    gpa: float | None = Field(
        default=None, ge=0, le=4.3, description="Cumulative GPA; computed from grades if absent."
    )
    academic_status: AcademicStatus = Field(default="good", description="Academic status.")
    courses: list[CourseAttempt] = Field(
        default_factory=list,
        max_length=LIMITS["record_courses"].value,
        description="Course history.",
    )
    tests: list[ExamTaken] = Field(
        default_factory=list,
        description="Tests taken and placement results (AP, IB, placement exams), which "
        "prerequisites may ask for: score(AP-CALC-BC, 4), placement(MATH-PLACEMENT, MATH 2B).",
    )
    milestones_met: list[str] = Field(  # written only when given: old records digest as before
        default_factory=list, exclude_if=lambda v: not v, description=_MET
    )
    terms_away: list[TermCode] = Field(
        default_factory=list,
        description="Future terms the student will not enroll (abroad, leave): term codes or "
        "readable forms such as 'Fall 2027'.",
    )
    interests: list[str] = Field(default_factory=list, description="Topics the student likes.")
    notes: str = Field(
        default="", max_length=LIMITS["request_text"].value, description="Advisor notes."
    )
    registered: list[Registration] = Field(
        default_factory=list,
        max_length=LIMITS["record_courses"].value,
        description="Courses registered for (or planned) in terms after current_term: the "
        "audit counts them as planned (look-ahead) and a plan keeps each in its term.",
    )
    exceptions: list[AdvisorException] = Field(
        default_factory=list,
        description="Advisor exceptions (substitute, waive, apply, approve), each with who, "
        "when and why; see agents.catalog.exceptions.",
    )

    # ------------------------------------------------------------------ derived facts

    @cached_property
    def _attempts(self) -> dict[str, list[CourseAttempt]]:
        by_code: dict[str, list[CourseAttempt]] = {}
        for a in self.courses:
            by_code.setdefault(a.course, []).append(a)
        return by_code

    def attempts_of(self, code: str) -> list[CourseAttempt]:
        """Every attempt of ``code``, in record order (the record is frozen, so the index
        by course is built once)."""
        return list(self._attempts.get(code, ()))

    def best_attempt(self, code: str, catalog: Catalog) -> CourseAttempt | None:
        """The attempt that counts: best grade among completed attempts, else in progress."""
        done = [a for a in self.attempts_of(code) if a.status == "completed"]
        if done:
            return max(
                done,
                key=lambda a: (
                    catalog.grade_meets(a.grade, None),
                    catalog.grade_by_symbol[a.grade].points
                    if a.grade in catalog.grade_by_symbol
                    else -1.0,
                    Term.parse(a.term).index,
                ),
            )
        prog = [a for a in self.attempts_of(code) if a.status == "in_progress"]
        return prog[-1] if prog else None

    def units_of(self, attempt: CourseAttempt, catalog: Catalog) -> float:
        if attempt.units is not None:
            return attempt.units
        c = catalog.course_by_code.get(attempt.course)
        return c.units if c else 0.0

    def earned_courses(self, catalog: Catalog, include_in_progress: bool = False) -> set[str]:
        """Courses with credit earned (a passing best attempt)."""
        out: set[str] = set()
        for code in {a.course for a in self.courses}:
            best = self.best_attempt(code, catalog)
            if best is None:
                continue
            if best.status == "in_progress":
                if include_in_progress:
                    out.add(code)
            elif catalog.grade_meets(best.grade, None):
                out.add(code)
        return out

    def units_earned(self, catalog: Catalog, include_in_progress: bool = False) -> float:
        """Credits earned (exactly, in hundredths: the order of courses cannot matter)."""
        parts: list[float] = []
        for code in sorted(self.earned_courses(catalog, include_in_progress)):
            best = self.best_attempt(code, catalog)
            assert best is not None
            c = catalog.course_by_code.get(code)
            if c is not None and c.repeatable:
                # Repeatable courses earn credit for every passing attempt.
                parts.extend(
                    self.units_of(a, catalog)
                    for a in self.attempts_of(code)
                    if (a.status == "completed" and catalog.grade_meets(a.grade, None))
                    or (include_in_progress and a.status == "in_progress")
                )
            else:
                parts.append(self.units_of(best, catalog))
        return credit_sum(parts)

    def class_standing(self, catalog: Catalog, include_in_progress: bool = False) -> ClassStanding:
        return catalog.standing_for_units(self.units_earned(catalog, include_in_progress))

    def computed_gpa(self, catalog: Catalog) -> float | None:
        """GPA over institution attempts that count in the GPA (the given GPA wins).

        A repeat replaces the earlier attempt: for a course that is not repeatable only the
        best completed attempt counts; every attempt of a repeatable course counts.
        """
        if self.gpa is not None:
            return self.gpa
        graded: list[tuple[float, float]] = []  # (grade points, credits)
        for a in self.courses:
            if a.status != "completed" or a.source != "institution" or a.grade is None:
                continue
            g = catalog.grade_by_symbol.get(a.grade)
            if g is None or not g.in_gpa:
                continue
            course = catalog.course_by_code.get(a.course)
            if course is not None and not course.repeatable:
                best = self.best_attempt(a.course, catalog)
                if best is not a:
                    continue
            graded.append((g.points, self.units_of(a, catalog)))
        return grade_average(graded)

    def recent_gpa(self, catalog: Catalog, terms: int = 2) -> float | None:
        """GPA over the last ``terms`` completed regular terms (``Term.regular``; summer and
        other optional terms never count): the most recent regular terms with an
        institution grade that counts in the GPA, every such attempt of those terms
        included (a course repeated later still counts in the term it was taken).
        Pass/fail elections do not count. None when the record has no such term."""
        graded = [
            a
            for a in self.courses
            if a.status == "completed"
            and a.source == "institution"
            and not a.pass_fail
            and (g := catalog.grade_by_symbol.get(a.grade or "")) is not None
            and g.in_gpa
            and Term.parse(a.term, catalog.calendar).regular
        ]
        codes = {a.term for a in graded}
        ordered = sorted(codes, key=lambda t: Term.parse(t, catalog.calendar).index)
        window = set(ordered[-terms:]) if terms > 0 else set()
        return grade_average(
            (catalog.grade_by_symbol[a.grade or ""].points, self.units_of(a, catalog))
            for a in graded
            if a.term in window
        )

    def approvals(self) -> list[Approval]:
        """The record's ``approve`` exceptions."""
        return [e for e in self.exceptions if isinstance(e, Approval)]

    def with_exceptions(self, extra: ExceptionsFile) -> StudentRecord:
        """This record with an exceptions file's entries appended (a file for another
        student is a ``StudentRecordError``)."""
        if extra.student_id != self.id:
            raise StudentRecordError(
                f"exceptions for {extra.student_id!r}",
                [f"$.student_id: the file is for student {extra.student_id!r}, not {self.id!r}; "
                 "pass the exceptions file of this student"],
            )  # fmt: skip
        return self.model_copy(update={"exceptions": [*self.exceptions, *extra.exceptions]})

    def split_expired(self, on: date) -> tuple[StudentRecord, list[AdvisorException]]:
        """This record without the exceptions expired ``on`` that day, and those."""
        expired = [e for e in self.exceptions if e.expired(on)]
        if not expired:
            return self, []
        active = [e for e in self.exceptions if not e.expired(on)]
        return self.model_copy(update={"exceptions": active}), expired

    def terms_enrolled(self) -> list[str]:
        """Institution terms with at least one attempt, in order."""
        terms = {a.term for a in self.courses if a.source == "institution"}
        return sorted(terms, key=lambda t: Term.parse(t).index)


def load_student(path: str | Path, calendar: Calendar | None = None) -> StudentRecord:
    """Read and validate a student record; errors name the file, field and value (a term
    written in words is read with ``calendar``, the catalog's, to suggest its code)."""
    raw = read_json(path, StudentRecordError, "a student JSON file")
    return parse_student(raw, source=str(Path(path)), calendar=calendar)


NOT_A_STUDENT_RECORD = (
    'this is a plan request, not a student record; its student is under "student" - pass a '
    "student record file (demos/students/...), or run the request with 'advise run'"
)


def is_plan_request(raw: object) -> bool:
    """Whether ``raw`` is a plan request ({"request_id": ..., "student": {...}}) rather than
    a student record."""
    return (
        isinstance(raw, dict)
        and isinstance(raw.get("student"), dict)
        and not {"courses", "current_term", "programs"} & raw.keys()
    )


def parse_student(
    raw: object, source: str = "<student>", calendar: Calendar | None = None
) -> StudentRecord:
    """Validate a student record; every problem names the JSON path, what is wrong, the
    value (short) and the fix - a plan request given instead is named as one. Terms
    written in words ('Fall 2026') are read with ``calendar`` (default: the one in use)."""
    if is_plan_request(raw):
        raise StudentRecordError(source, [NOT_A_STUDENT_RECORD])
    with use_calendar(calendar or active_calendar()):  # reads 'Fall 2026' as F2026
        try:
            return StudentRecord.model_validate(raw)
        except ValidationError as exc:
            schema = StudentRecord.model_json_schema()
            problems = [pydantic_problem(e, error_path(e["loc"]), schema) for e in exc.errors()]
    raise StudentRecordError(source, problems) from None


def _index(cal: Calendar, code: str) -> int | None:
    try:
        return cal.parse(code).index
    except TermError:
        return None


def _no_grade(a: CourseAttempt, at: str) -> str:
    """A completed attempt without a grade: most often a course being taken now that does
    not say so (``status`` defaults to 'completed')."""
    grade = "null" if "grade" in a.model_fields_set else "missing"
    status = (
        "is 'completed'" if "status" in a.model_fields_set else "is not given, so it is 'completed'"
    )
    return (
        f'{at}.grade: {grade} for {a.course} in {a.term}, and its "status" {status}: a '
        'completed course needs a grade - if it is being taken now, write "status": '
        '"in_progress"; otherwise give the grade it earned'
    )


def check_student_against_catalog(student: StudentRecord, catalog: Catalog) -> list[str]:
    """Problems that make a record unusable with this catalog (unknown courses, programs)."""
    problems: list[str] = []
    cal = catalog.calendar

    def term_ok(code: str, where: str) -> None:
        try:
            cal.parse(code)
        except TermError as exc:
            problems.append(f"{where}: {exc}")

    term_ok(student.start_term, "$.start_term")
    term_ok(student.current_term, "$.current_term")
    for i, code in enumerate(student.terms_away):
        term_ok(code, f"$.terms_away[{i}]")
    for i, a in enumerate(student.courses):
        term_ok(a.term, f"$.courses[{i}].term")
        if a.course not in catalog.course_by_code:
            problems.append(f"$.courses[{i}].course: {catalog.code_index.unknown(a.course)}")
        if a.grade is not None and a.grade not in catalog.grade_by_symbol:
            problems.append(
                f"$.courses[{i}].grade: unknown grade {a.grade!r}; expected one of "
                f"{', '.join(g.grade for g in catalog.grade_scale)}"
            )
        if a.status == "completed" and a.grade is None:
            problems.append(_no_grade(a, f"$.courses[{i}]"))
    for code, year in student.program_years.items():
        if code not in catalog.program_by_code:
            problems.append(
                f"$.program_years.{code}: unknown program {code!r}; expected one of "
                f"{', '.join(sorted(catalog.program_by_code))}"
            )
        if not _CATALOG_YEAR.match(year):
            problems.append(
                f"$.program_years.{code}: catalog year {year!r} cannot be read; write it like "
                f"{catalog.catalog_year!r}"
            )
    current = _index(cal, student.current_term)
    seen: set[str] = set()
    for i, r in enumerate(student.registered):
        term_ok(r.term, f"$.registered[{i}].term")
        if r.course not in catalog.course_by_code:
            problems.append(f"$.registered[{i}].course: {catalog.code_index.unknown(r.course)}")
        index = _index(cal, r.term)
        if current is not None and index is not None and index <= current:
            problems.append(
                f"$.registered[{i}].term: {r.term!r} is not after the current term "
                f"{student.current_term}; record a course taken now under courses (in_progress)"
            )
        if r.course in seen:
            problems.append(f"$.registered[{i}].course: {r.course} is registered twice")
        seen.add(r.course)
    for i, code in enumerate(student.programs):
        if code not in catalog.program_by_code:
            problems.append(
                f"$.programs[{i}]: unknown program {code!r}; known: "
                f"{', '.join(sorted(catalog.program_by_code))}"
            )
    return problems
