"""Degree audit: which requirements of each program a student's record meets, and what is left.

``audit(catalog, student)`` walks every program's requirement tree and counts the student's
courses toward it. A course counts as *completed* (best passing attempt, transfer/AP/exam
credit included), *in_progress* or *planned* (``planned`` maps course -> term; planned and
in-progress courses are assumed passed with a grade meeting any minimum). A node is ``met``
counting all three, and ``met_by_completed`` when completed courses alone meet it.

Which course counts toward which requirement is decided exactly (``alloc`` states the
rules, ``search`` is the search): when some allocation meets every program, the audit
finds one; otherwise it meets a set of requirements that no allocation extends, preferring
completed over in-progress over planned courses and majors over minors, and a node met by the
record stays met when planned courses are added. ``build`` writes the explanations.

Module map, each importing only the ones listed before it: ``pool`` (the courses a record and
plan offer), ``program`` (a program's flattened tree and allocation state), ``overlap``
(courses counted twice where a program's overlaps allow), ``forms`` (caps, subject minimums
and minimums from sub-lists of course sets), ``alloc`` (the rules and the allocator),
``selections`` and ``search`` (the exact search), ``partial`` (partial credit), ``stages``
(the stage and target order), ``report`` (the result models), ``explain``, ``leaf_notes``,
``leaves`` and ``build`` (result models from an allocation), ``memo`` (answers kept for a repeated
question), ``core`` (this file: schema, entry points), ``render`` (plain text).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import structlog

from agents.audit.build import Builder
from agents.audit.exceptions import account
from agents.audit.memo import audit_key, recall, remember
from agents.audit.pool import build_pool
from agents.audit.report import AuditReport, RequirementAudit
from agents.audit.stages import allocate
from agents.catalog import (
    Catalog,
    Program,
    StudentRecord,
    Term,
    check_student_against_catalog,
    credit_sub,
    credit_sum,
    model_schema,
    published_schema,
    unit_name,
    with_institution,
    write_schema_file,
)
from agents.catalog.overrides import effective_catalog, overrides_of
from agents.catalog.years import mixed_years, program_year, year_notes

log = structlog.get_logger(__name__)

__all__ = [
    "SCHEMA_FILE",
    "audit",
    "audit_schema",
    "published_audit_schema",
    "unmet",
    "write_audit_schema",
]

SCHEMA_FILE = "audit.schema.json"


def audit_schema() -> dict[str, Any]:
    """The audit report's JSON Schema as generated from the models (the published file's source)."""
    return model_schema(AuditReport, SCHEMA_FILE)


def published_audit_schema() -> dict[str, Any]:
    return published_schema(SCHEMA_FILE)


def write_audit_schema(directory: Path) -> Path:
    """Write the published schema file (used when the models change)."""
    return write_schema_file(directory, SCHEMA_FILE, audit_schema())


def _r(x: float) -> float:
    return round(x + 0.0, 2)


# --------------------------------------------------------------------------- entry points


def _eligibility(program: Program, majors: list[str]) -> tuple[bool, str]:
    others = [m for m in majors if m != program.code]
    bad = sorted(set(program.excluded_majors) & set(others))
    if bad:
        return False, f"{program.code} is not open to students in {', '.join(bad)}"
    if program.eligible_majors and not set(program.eligible_majors) & set(others):
        return False, (
            f"{program.code} is open only to students in "
            f"{', '.join(sorted(program.eligible_majors))}; the student's majors: "
            f"{', '.join(others) or 'none'}"
        )
    return True, ""


def _planned_units(
    catalog: Catalog, student: StudentRecord, plan: dict[str, str], warnings: list[str]
) -> float:
    current = Term.parse(student.current_term)
    have = student.earned_courses(catalog, include_in_progress=True)
    total = 0.0
    for code, term in plan.items():
        course = catalog.course_by_code.get(code)
        if course is None:
            warnings.append(f"planned course {code!r} is not in the catalog; ignored")
            continue
        if Term.parse(term) <= current:
            warnings.append(
                f"planned course {code} is in {term}, not after the current term {current.code}"
            )
        if course.repeatable or code not in have:
            total = credit_sum((total, course.units))
            continue
        best = student.best_attempt(code, catalog)
        assert best is not None
        if best.status == "in_progress":
            warnings.append(f"planned course {code} ({term}) is already in progress in {best.term}")
        else:
            warnings.append(
                f"planned course {code} ({term}) was already passed with {best.grade} in "
                f"{best.term}; a retake earns no new {unit_name()}"
            )
    return _r(total)


def audit(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str] | None = None,
    *,
    add_programs: Sequence[str] = (),
    planned: Mapping[str, str] | None = None,
) -> AuditReport:
    """Audit ``student`` against ``programs`` (default: the declared ones) plus what-if
    ``add_programs`` plus the institution's requirements (programs of kind 'institution',
    which apply to every student), counting ``planned`` courses (course -> term) and the
    record's ``registered`` ones as future enrollments.

    The same question asked twice gets the same (frozen) report without a second search,
    whether it is asked of the base catalog or of the student's effective one: a request's
    planner, critique and verifier all audit its final plan (``agents.audit.memo``).

    Raises ``UnknownProgramError`` for a program code the catalog does not have and
    ``TermError`` for a planned term that cannot be read.
    """
    if student.registered:  # registered courses are look-ahead: counted as planned
        planned = {**{r.course: r.term for r in student.registered}, **(planned or {})}
    # Asked of the base catalog or of the student's effective one: the same answer.
    effective = effective_catalog(catalog, student)
    key = audit_key(effective, student, programs, add_programs, planned or {})
    report = recall(effective, key)
    if report is None:
        report = _audit(effective, student, programs, add_programs=add_programs, planned=planned)
        if student.exceptions:
            report = account(effective, student, report, overrides_of(catalog, student))
        remember(effective, key, report)
    return report


def _audit(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str] | None,
    *,
    add_programs: Sequence[str],
    planned: Mapping[str, str] | None,
) -> AuditReport:
    requested = list(student.programs if programs is None else programs)
    for code in [*requested, *add_programs]:
        catalog.program(code)
    warnings: list[str] = []
    order: list[str] = []
    for code in [*requested, *add_programs]:
        if code in order:
            warnings.append(f"program {code} is listed more than once; audited once")
        else:
            order.append(code)
    order = with_institution(catalog, order)  # the institution's requirements: everyone's
    years = {code: program_year(catalog, student, code) for code in order}
    warnings += year_notes(list(years.values()))
    mixed = mixed_years(catalog, list(years.values()))
    if mixed:
        warnings.append(mixed)
    warnings += [f"student record: {p}" for p in check_student_against_catalog(student, catalog)]
    plan = {code: Term.parse(term).code for code, term in sorted((planned or {}).items())}
    earned = _r(student.units_earned(catalog))
    in_progress = _r(credit_sub(student.units_earned(catalog, include_in_progress=True), earned))
    units_planned = _planned_units(catalog, student, plan, warnings)
    plan = {c: t for c, t in plan.items() if c in catalog.course_by_code}

    progs = [catalog.program(c) for c in order]
    allocator = allocate(catalog, build_pool(catalog, student, plan), progs)
    if allocator.gave_up:
        warnings.append(
            "the course allocation search hit its step limit; a requirement reported unmet "
            "may still be satisfiable by moving courses between requirements"
        )
    builder = Builder(catalog, student, allocator)
    majors = sorted(
        {
            c
            for c in student.programs
            if c in catalog.program_by_code and catalog.program_by_code[c].kind == "major"
        }
        | {p.code for p in progs if p.kind == "major"}
    )
    audits = [
        builder.program(
            p,
            order,
            p.code not in student.programs and p.kind != "institution",
            _eligibility(p, majors),
            (earned, in_progress, units_planned),
        )
        for p in progs
    ]
    report = AuditReport(
        student_id=student.id,
        catalog_year=catalog.catalog_year,
        as_of_term=student.current_term,
        class_standing=student.class_standing(catalog),
        gpa=student.computed_gpa(catalog),
        units_earned=earned,
        units_in_progress=in_progress,
        units_planned=units_planned,
        programs=audits,
        all_met=all(p.status == "met" for p in audits),
        all_met_by_completed=all(p.met_by_completed for p in audits),
        warnings=warnings,
    )
    log.debug(
        "audit.done",
        student=student.id,
        programs=order,
        all_met=report.all_met,
        unmet=len(unmet(report)),
    )
    return report


def unmet(report: AuditReport) -> list[tuple[str, str, str]]:
    """(program code, requirement id, explanation) for every unmet or partly met leaf that
    keeps its program from being met (leaves under a met node are skipped), in tree order;
    the program checks ('total-units', 'program-gpa') count as leaves."""
    out: list[tuple[str, str, str]] = []

    def walk(code: str, node: RequirementAudit) -> None:
        if node.status == "met":
            return
        if not node.children:
            out.append((code, node.id, node.explanation))
        for child in node.children:
            walk(code, child)

    for program in report.programs:
        for node in [program.root, *program.checks]:
            walk(program.code, node)
    return out
