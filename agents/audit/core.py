"""Degree audit: which requirements of each program a student's record meets, and what is left.

``audit(catalog, student)`` walks every program's requirement tree and counts the student's
courses toward it. A course counts as *completed* (best passing attempt, transfer/AP/exam
credit included), *in_progress* or *planned* (``planned`` maps course -> term; planned and
in-progress courses are assumed passed with a grade meeting any minimum). A node is ``met``
counting all three, and ``met_by_completed`` when completed courses alone meet it.

Which course counts toward which requirement is decided exactly (``audit_alloc`` states the
rules, ``audit_search`` is the search): when some allocation meets every program, the audit
finds one; otherwise it meets a set of requirements that no allocation extends, preferring
completed over in-progress over planned courses and majors over minors, and a node met by the
record stays met when planned courses are added. ``audit_build`` writes the explanations.

Module map: ``audit`` (this file: result models, schema, entry points), ``audit_alloc`` (the
course pool and the allocation state), ``audit_search`` (the exact search and the stage
order), ``audit_build`` (result models from an allocation).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field

from agents.audit.alloc import CountedStatus, build_pool, sharing_limit
from agents.catalog import (
    AttemptSource,
    Catalog,
    ClassStanding,
    Program,
    StudentRecord,
    Term,
    check_student_against_catalog,
    model_schema,
    published_schema,
    write_schema_file,
)

log = structlog.get_logger(__name__)

__all__ = [
    "SCHEMA_FILE",
    "AuditReport",
    "CountedCourse",
    "ProgramAudit",
    "RequirementAudit",
    "SharedCourse",
    "audit",
    "audit_schema",
    "published_audit_schema",
    "sharing_limit",
    "unmet",
    "write_audit_schema",
]

SCHEMA_FILE = "audit.schema.json"

Status = Literal["met", "partly_met", "unmet"]
RequirementKind = Literal["course", "all_of", "n_of", "course_set", "total_units", "program_gpa"]


# --------------------------------------------------------------------------- result models


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class CountedCourse(_Model):
    """A course (or one attempt of a repeatable course) counted toward a requirement."""

    course: str = Field(description="Course code.")
    title: str = Field(description="Course title from the catalog.")
    term: str = Field(description="Term taken, being taken, or planned.")
    grade: str | None = Field(description="Grade earned; None while in progress or planned.")
    units: float = Field(description="Units the attempt carries.")
    status: CountedStatus = Field(
        description="'completed', 'in_progress' (assumed passed) or 'planned' (assumed passed "
        "with a grade meeting any minimum)."
    )
    source: AttemptSource = Field(
        description="Where the credit comes from: taken here, or transfer / AP / exam credit."
    )
    note: str = Field(
        description="Why this attempt is the one that counts when there were several; "
        "empty otherwise."
    )


class RequirementAudit(_Model):
    """The audit of one requirement node (catalog node or synthetic program check)."""

    id: str = Field(
        description="Requirement id from the catalog, or 'total-units' / 'program-gpa'."
    )
    title: str = Field(description="Readable name of the requirement.")
    kind: RequirementKind = Field(description="Node kind.")
    status: Status = Field(
        description="'met' counting completed, in-progress and planned courses; 'partly_met' "
        "with some progress; 'unmet' with none."
    )
    met_by_completed: bool = Field(description="Whether completed courses alone satisfy it.")
    counted: list[CountedCourse] = Field(
        description="Courses counted toward this leaf, by term then code (empty for groups)."
    )
    courses_needed: int = Field(
        description="Courses still needed (for course sets with only a unit minimum: 0)."
    )
    units_needed: float = Field(
        description="Units still needed; for course counts a lower bound from the cheapest options."
    )
    options: list[str] = Field(
        description="Course codes that could still satisfy it, sorted; excludes courses already "
        "counted in this program and courses blocked by a sharing limit."
    )
    children: list[RequirementAudit] = Field(description="Audits of the child nodes, in order.")
    explanation: str = Field(description="One sentence saying why the node has its status.")


class SharedCourse(_Model):
    """A course counted toward this program and another one."""

    course: str = Field(description="Course code.")
    term: str = Field(description="Term of the attempt that counts.")
    with_program: str = Field(description="The other program's code.")
    requirement: str = Field(description="Requirement id it counts toward in this program.")
    other_requirement: str = Field(description="Requirement id it counts toward in the other.")


class ProgramAudit(_Model):
    """The audit of one program."""

    code: str = Field(description="Program code.")
    name: str = Field(description="Official name.")
    kind: Literal["major", "minor", "concentration"] = Field(description="Program kind.")
    what_if: bool = Field(description="True when the student has not declared the program.")
    eligible: bool = Field(description="Whether the student may add or hold the program.")
    eligibility_note: str = Field(description="Why not eligible; empty when eligible.")
    status: Status = Field(description="Combined status of the tree and the program checks.")
    met_by_completed: bool = Field(description="Whether completed courses alone satisfy it.")
    root: RequirementAudit = Field(description="Audit of the program's requirement tree.")
    checks: list[RequirementAudit] = Field(
        description="Program-wide checks outside the tree: 'total-units' when the program has "
        "total_units, 'program-gpa' when it has min_gpa."
    )
    total_units_required: float | None = Field(description="Program.total_units, if any.")
    units_toward_total: float | None = Field(
        description="All units earned, in progress and planned (every course, not only "
        "requirement courses); None when the program has no unit total."
    )
    gpa: float | None = Field(
        description="GPA over the completed graded institution courses counted in the program."
    )
    shared_courses: list[SharedCourse] = Field(
        description="Courses also counted toward another audited program, by code."
    )
    sharing_notes: list[str] = Field(
        description="Sharing limits with the other audited programs, and courses a limit kept out."
    )


class AuditReport(_Model):
    """A degree audit of one student against one or more programs."""

    student_id: str = Field(description="Student id.")
    catalog_year: str = Field(description="Catalog year of the catalog audited against.")
    as_of_term: str = Field(description="The student's current term.")
    class_standing: ClassStanding = Field(description="Class standing from completed units.")
    gpa: float | None = Field(description="Cumulative GPA (given, or computed from grades).")
    units_earned: float = Field(description="Units earned by completed courses.")
    units_in_progress: float = Field(description="Units of courses in progress.")
    units_planned: float = Field(description="New units of planned courses.")
    programs: list[ProgramAudit] = Field(description="One audit per program, in the order given.")
    all_met: bool = Field(
        description="Every program met counting completed, in-progress and planned courses."
    )
    all_met_by_completed: bool = Field(description="Every program met by completed courses.")
    warnings: list[str] = Field(
        description="Problems with the inputs that the audit worked around."
    )


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
            total += course.units
            continue
        best = student.best_attempt(code, catalog)
        assert best is not None
        if best.status == "in_progress":
            warnings.append(f"planned course {code} ({term}) is already in progress in {best.term}")
        else:
            warnings.append(
                f"planned course {code} ({term}) was already passed with {best.grade} in "
                f"{best.term}; a retake earns no new units"
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
    ``add_programs``, counting ``planned`` courses (course -> term) as future enrollments.

    Raises ``UnknownProgramError`` for a program code the catalog does not have and
    ``TermError`` for a planned term that cannot be read.
    """
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
    if student.catalog_year != catalog.catalog_year:
        warnings.append(
            f"the student follows catalog year {student.catalog_year!r} but the audit uses "
            f"the {catalog.catalog_year!r} catalog"
        )
    warnings += [f"student record: {p}" for p in check_student_against_catalog(student, catalog)]
    plan = {code: Term.parse(term).code for code, term in sorted((planned or {}).items())}
    earned = _r(student.units_earned(catalog))
    in_progress = _r(student.units_earned(catalog, include_in_progress=True) - earned)
    units_planned = _planned_units(catalog, student, plan, warnings)
    plan = {c: t for c, t in plan.items() if c in catalog.course_by_code}

    # At call time: the builder produces this module's models, so it imports this module.
    from agents.audit.build import Builder
    from agents.audit.search import allocate

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
            p.code not in student.programs,
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
