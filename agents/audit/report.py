"""The degree audit's result models: the report, one audit per program and per requirement
node, and the courses counted toward each.

The models are the published JSON Schema (``core.audit_schema``), so every field carries a
description; ``build`` fills them in from a finished allocation and ``render`` prints them.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from agents.audit.pool import CountedStatus
from agents.catalog import AttemptSource, ClassStanding, ProgramKind
from agents.catalog.exceptions import ExceptionUse

__all__ = [
    "AuditReport",
    "CountedCourse",
    "ProgramAudit",
    "RequirementAudit",
    "RequirementKind",
    "SharedCourse",
    "Status",
    "iter_nodes",
]

Status = Literal["met", "partly_met", "unmet"]
RequirementKind = Literal["course", "all_of", "n_of", "course_set", "total_units", "program_gpa"]


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
    kind: ProgramKind = Field(
        description="Program kind; 'institution' for the institution's own requirements "
        "(general education, writing, total credits), which apply to every student."
    )
    catalog_year: str | None = Field(
        default=None,
        description="Catalog year of the program version audited (the student's year for "
        "it; see agents.catalog.years).",
    )
    what_if: bool = Field(
        description="True when the student has not declared the program (never for the "
        "institution's requirements)."
    )
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
    programs: list[ProgramAudit] = Field(
        description="One audit per program, in the order given, then the institution's "
        "requirements (kind 'institution') that apply to every student."
    )
    all_met: bool = Field(
        description="Every program met counting completed, in-progress and planned courses."
    )
    all_met_by_completed: bool = Field(description="Every program met by completed courses.")
    warnings: list[str] = Field(
        description="Problems with the inputs that the audit worked around."
    )
    exceptions: list[ExceptionUse] = Field(
        default_factory=list,
        description="The student's advisor exceptions and what each did: used, unused, "
        "expired, invalid or conflicting (approvals of policy rules are listed only when "
        "invalid; the critique applies them to planned terms).",
    )


def iter_nodes(report: AuditReport) -> Iterator[tuple[str, RequirementAudit]]:
    """Every node of every program - the tree, then the program checks - in pre-order,
    with the program's code."""

    def walk(code: str, node: RequirementAudit) -> Iterator[tuple[str, RequirementAudit]]:
        yield code, node
        for child in node.children:
            yield from walk(code, child)

    for program in report.programs:
        for node in [program.root, *program.checks]:
            yield from walk(program.code, node)
