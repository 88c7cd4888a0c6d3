"""The course pool of the degree audit: every credit a student's record and plan offer, and
the ways each can count.

A *key* is one countable credit: a course code, or ``code@term`` for each passing attempt of
a repeatable course. Its *options* are the ways it can count, best first: the best passing
completed attempt (transfer/AP/exam credit included), the attempt in progress, the planned
enrollment. ``alloc`` states the rules for counting them.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Literal

from agents.catalog import AttemptSource, Catalog, Course, CourseAttempt, StudentRecord, Term

CountedStatus = Literal["completed", "in_progress", "planned"]


@dataclass(frozen=True)
class Option:
    """One way a course can count: an attempt or a planned enrollment."""

    key: str  # allocation identity: the course code, or code@term for repeatable courses
    course: str
    term: str
    grade: str | None
    units: float
    status: CountedStatus
    source: AttemptSource
    pass_fail: bool
    note: str


def _note(counted: CourseAttempt | None, attempts: list[CourseAttempt]) -> str:
    """'best attempt; also R in F2025' when other attempts of the course exist."""
    others = [a for a in attempts if a is not counted]
    if not others:
        return ""
    head = "best attempt" if counted is not None and counted.status == "completed" else "retake"
    parts = [f"{a.grade or 'in progress'} in {a.term}" for a in others]
    return f"{head}; also {', '.join(parts)}"


def _passed(catalog: Catalog, attempt: CourseAttempt) -> bool:
    return attempt.grade is not None and catalog.grade_meets(attempt.grade, None)


def _planned(key: str, course: Course, term: str, note: str) -> Option:
    return Option(key, course.code, term, None, course.units, "planned", "institution", False, note)


def build_pool(
    catalog: Catalog, student: StudentRecord, planned: Mapping[str, str]
) -> dict[str, list[Option]]:
    """Options per allocation key, best first (completed, then in progress, then planned)."""
    pool: dict[str, list[Option]] = {}
    for code in sorted({a.course for a in student.courses} | set(planned)):
        course = catalog.course_by_code.get(code)
        if course is None:
            continue  # reported as a warning by the caller
        attempts = sorted(student.attempts_of(code), key=lambda a: Term.parse(a.term).index)

        def taken(key: str, a: CourseAttempt, note: str) -> Option:
            units = student.units_of(a, catalog)
            return Option(
                key, a.course, a.term, a.grade, units, a.status, a.source, a.pass_fail, note
            )

        plan_term = planned.get(code)
        if course.repeatable:  # every passing attempt is its own credit
            for a in attempts:
                if a.status == "in_progress" or _passed(catalog, a):
                    pool.setdefault(f"{code}@{a.term}", []).append(taken(f"{code}@{a.term}", a, ""))
            if plan_term is not None:
                key = f"{code}@{plan_term}" + ("#plan" if f"{code}@{plan_term}" in pool else "")
                pool[key] = [_planned(key, course, plan_term, "")]
            continue
        opts: list[Option] = []
        best = student.best_attempt(code, catalog)
        if (
            best is not None
            and best.status == "completed"
            and catalog.grade_meets(best.grade, None)
        ):
            opts.append(taken(code, best, _note(best, attempts)))
        current = [a for a in attempts if a.status == "in_progress"]
        if current:
            opts.append(taken(code, current[-1], _note(current[-1], attempts)))
        if plan_term is not None:
            opts.append(_planned(code, course, plan_term, _note(None, attempts)))
        if opts:
            pool[code] = opts
    return pool
