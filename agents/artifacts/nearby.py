"""What ``agents.advice.nearby.close_programs`` returns: the programs a student could add without
delaying graduation, each planned with the baseline programs, and the ones that would
delay it or were not planned (see that module for how they are found and ranked)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from agents.artifacts.base import Artifact
from agents.catalog import ProgramKind
from agents.planner import PlanConstraints

CloseStatus = Literal["fits", "delays", "infeasible"]
AddableKind = Literal["minor", "concentration", "major"]


class NeededCourse(Artifact):
    """A course the plan adds toward the candidate program."""

    course: str = Field(description="Course code.")
    title: str = Field(description="Course title from the catalog.")
    units: float = Field(description="Units the course carries.")
    term: str = Field(description="Term the plan places it in.")
    requirements: list[str] = Field(
        description="Every requirement it counts toward in the plan ('PROGRAM/req-id'), the "
        "candidate's and any baseline program's it is shared with."
    )
    fills: list[str] = Field(
        description="Readable names of the candidate's requirements it counts toward."
    )


class CloseProgram(Artifact):
    """One candidate program, planned together with the baseline programs."""

    code: str = Field(description="Program code.")
    name: str = Field(description="Official name.")
    kind: ProgramKind = Field(description="Program kind: 'minor', 'concentration' or 'major'.")
    status: CloseStatus = Field(
        description="'fits': graduates no later than the baseline; 'delays': graduates later "
        "(see graduation_term); 'infeasible': no plan within the horizon (see reasons)."
    )
    extra_units: float = Field(
        description="Units the plan with it needs beyond the baseline plan's (0 when it fits "
        "in units the degree needs anyway); 0 when infeasible."
    )
    remaining_units: float = Field(
        description="Units of the planned courses that count toward it (the courses below)."
    )
    units_counted: float = Field(
        description="Units of the record's courses (completed, in progress, registered) the "
        "what-if audit counts toward it, sharing limits respected."
    )
    graduation_term: str | None = Field(
        description="Graduation term of the plan with it; None when infeasible."
    )
    plan_status: Literal["optimal", "feasible", "infeasible"] = Field(
        description="The planner's status: 'feasible' means not proved best within the time "
        "limit, so a 'delays' may be the time limit's doing."
    )
    courses: list[NeededCourse] = Field(
        description="The planned courses that count toward it, by term then code."
    )
    reasons: list[str] = Field(description="Why no plan exists, when infeasible.")
    solve_ms: float | None = Field(
        description="Wall time of its planning call in milliseconds; None in a "
        "recommendation, whose outputs do not depend on the clock."
    )


class SkippedProgram(Artifact):
    """A candidate that was not planned, and why."""

    code: str = Field(description="Program code.")
    kind: ProgramKind = Field(description="Program kind.")
    reason: str = Field(description="Why it was not planned (e.g. the eligibility rule).")


class CloseReport(Artifact):
    """The programs a student could add, against the plan of the baseline programs."""

    student_id: str = Field(description="Student id.")
    programs: list[str] = Field(description="The baseline programs (declared, or targeted).")
    kinds: list[AddableKind] = Field(description="Kinds of program considered, in order.")
    constraints: PlanConstraints = Field(description="The constraints of every plan.")
    baseline_status: Literal["optimal", "feasible", "infeasible"] = Field(
        description="The baseline plan's status; when infeasible no candidate is planned."
    )
    baseline_graduation_term: str | None = Field(description="Graduation term of the baseline.")
    baseline_units: float = Field(description="Units the baseline plan takes.")
    baseline_reasons: list[str] = Field(description="Why the baseline has no plan, if so.")
    close: list[CloseProgram] = Field(
        description="Programs that fit without delaying graduation, ranked: kind, extra "
        "units, remaining units, code (at most ``limit``)."
    )
    delayed: list[CloseProgram] = Field(
        description="Programs planned that delay graduation (earliest first) or have no "
        "plan (last)."
    )
    skipped: list[SkippedProgram] = Field(
        description="Candidates not planned: not eligible, making a baseline program "
        "ineligible, or ranked below enough closer programs (with ``limit``)."
    )
    elapsed_ms: float | None = Field(
        description="Wall time of the whole call in milliseconds; None in a recommendation, "
        "whose outputs do not depend on the clock."
    )
