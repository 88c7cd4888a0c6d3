"""Builders the policy, critique, refinement and negotiation tests share: records, profiles,
intakes and schedules made by hand on the sample catalog - never by the planner - the
expected rule citations, the rules every student gets, and the session ``tools`` fixture."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pytest

from agents.artifacts import (
    CitationRef,
    ConstraintSet,
    Goals,
    IntakeResult,
    OpenQuestion,
    Schedule,
    ScheduledCourse,
    ScheduledTerm,
    StudentProfile,
)
from agents.catalog import CourseAttempt, StudentRecord, Term, load_catalog
from agents.toolbox import Toolbox

CATALOG = load_catalog()


def attempt(course: str, term: str, grade: str | None = None, **kw: object) -> CourseAttempt:
    status = "completed" if grade else "in_progress"
    return CourseAttempt(course=course, term=term, grade=grade, status=status, **kw)  # type: ignore[arg-type]


# A CS sophomore who started in F2025: 104 units earned, 42 in progress in F2026.
SOPHOMORE_COURSES = [
    attempt("15-110", "F2025", "B-"),
    attempt("21-127", "F2025", "C+"),
    attempt("21-120", "F2025", "B"),
    attempt("76-101", "F2025", "B-"),
    attempt("85-102", "F2025", "C"),
    attempt("15-112", "S2026", "C+"),
    attempt("21-122", "S2026", "C"),
    attempt("21-241", "S2026", "B-"),
    attempt("79-104", "S2026", "B"),
    attempt("73-102", "S2026", "C+"),
    attempt("15-122", "F2026"),
    attempt("15-150", "F2026"),
    attempt("80-100", "F2026"),
    attempt("36-200", "F2026"),
]


def record(
    *,
    gpa: float | None = 2.6,
    status: str = "good",
    courses: Sequence[CourseAttempt] = SOPHOMORE_COURSES,
    programs: Sequence[str] = ("CS-BS",),
    start: str = "F2025",
) -> StudentRecord:
    return StudentRecord(
        id="s-1",
        name="Jordan",
        programs=list(programs),
        catalog_year="2026-2027",
        start_term=start,
        current_term="F2026",
        gpa=gpa,
        academic_status=status,  # type: ignore[arg-type]
        courses=list(courses),
    )


def profile(rec: StudentRecord) -> StudentProfile:
    earned = rec.units_earned(CATALOG)
    start, now = Term.parse(rec.start_term), Term.parse(rec.current_term)
    return StudentProfile(
        student_id=rec.id,
        name=rec.name,
        declared_programs=list(rec.programs),
        class_standing=rec.class_standing(CATALOG),
        units_earned=earned,
        units_in_progress=rec.units_earned(CATALOG, include_in_progress=True) - earned,
        gpa=rec.gpa,
        academic_status=rec.academic_status,
        start_term=rec.start_term,
        current_term=rec.current_term,
        next_term="S2027",
        terms_completed=(now.index - start.index) * 2 // 3,
    )


def intake(
    rec: StudentRecord,
    *,
    programs: Sequence[str] | None = None,
    target: str | None = None,
    intent: str = "plan_degree",
    questions: Sequence[OpenQuestion] = (),
    with_record: bool = True,
) -> IntakeResult:
    return IntakeResult(
        request_id="req-1",
        intent=intent,  # type: ignore[arg-type]
        intent_source="structured",
        profile=profile(rec),
        student=rec if with_record else None,
        target_programs=list(rec.programs if programs is None else programs),
        goals=Goals(target_graduation=target),
        open_questions=list(questions),
        parser="structured",
    )


def term(code: str, *courses: str) -> ScheduledTerm:
    picked = [
        ScheduledCourse(course=c, title=CATALOG.course(c).title, units=CATALOG.course(c).units)
        for c in courses
    ]
    return ScheduledTerm(
        term=code,
        label=Term.parse(code).label(),
        courses=picked,
        units=sum(c.units for c in picked),
        away=not picked,
    )


def schedule(
    terms: Sequence[ScheduledTerm],
    *,
    cap: float = 63,
    target: str | None = None,
    approvals: Sequence[str] = (),
    round: int = 1,
    **kw: object,
) -> Schedule:
    enrolled = [t for t in terms if t.courses]
    return Schedule(
        status="done",
        round=round,
        constraints=ConstraintSet(
            max_units_per_term=cap, target_term=target, approvals_assumed=list(approvals)
        ),
        solver_status="optimal",
        terms=list(terms),
        graduation_term=enrolled[-1].term if enrolled else None,
        units_planned=sum(t.units for t in terms),
        **kw,  # type: ignore[arg-type]
    )


# 214 units to reach 360: two 63-unit spring terms around a 54-unit fall.
PLAN_63 = [
    term("S2027", "15-213", "15-251", "15-210", "80-130", "70-100", "73-103"),
    term("F2027", "15-351", "15-312", "15-445", "21-301", "36-225"),
    term("S2028", "15-451", "15-440", "15-418", "15-322", "85-211", "76-270"),
    term("F2028", "15-441", "15-462", "21-259"),
]


def cite(rule_id: str) -> CitationRef:
    """The expected citation: the rule's section, quoted from the catalog."""
    rule = CATALOG.rule_by_id[rule_id]
    sec = CATALOG.section_text(rule.citation.document, rule.citation.section)
    return CitationRef(
        document=rule.citation.document,
        section=sec.id,
        heading=sec.heading,
        quote=sec.text,
        rule_id=rule_id,
    )


@pytest.fixture(scope="session")
def tools(tmp_path_factory: pytest.TempPathFactory) -> Toolbox:
    return Toolbox(catalog=CATALOG, index_dir=Path(tmp_path_factory.getbasetemp()) / "index")


EVERYONE = [
    "LOAD-MAX",
    "LOAD-MIN",
    "MAX-COURSES",
    "REPEAT-LIMIT",
    "PF-LIMIT",
    "MINOR-SHARE",
    "MINOR-ELIG",
    "MAX-TERMS",
    "RESIDENCY",
    "GRAD-GPA",
    "TOTAL-UNITS",
]
