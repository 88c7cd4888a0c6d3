"""The multi-term planner: a semester-by-semester plan to graduation, solved with CP-SAT.

``plan(catalog, student, programs, constraints)`` chooses which courses satisfy the open
requirements of every target program (sharing limits included), adds free electives up to
the degree's total units, and places everything in terms so that prerequisites,
corequisites, offerings, unit loads, terms away and anti-requisites all hold. Objectives,
in strict priority order: earliest graduation, fewest units (so fewest extra units), most
even load, then earliest placement as the explicit tie-break; interests break ties between
course sets of equal units. ``status`` is "optimal" when graduation and units are proved
optimal (balance is best effort within a deterministic budget).

Every plan is checked against the degree audit before it is returned; when the audit counts
courses differently from the model, the plan is re-solved with the audit's allocation pinned
(see ``_agree_with_audit``).

When no plan exists the result says why in words a student understands (a prerequisite
chain that needs more terms than remain, an offering after the target, units that do not
fit under the cap, a sharing limit) and, when a target term was the obstacle, the earliest
graduation that would work. Module map: ``planner_reasons`` (setup and reasons),
``planner_prep`` (record, horizon, requirements, earliest terms), ``planner_pool``
(candidate courses), ``planner_select`` (course-set model, requirement encoding),
``planner_model`` (time-indexed model), ``planner_solve`` (the staged solve).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Literal, cast

import structlog
from pydantic import BaseModel, ConfigDict, Field

from agents.catalog import Catalog, StudentRecord
from agents.planner.model import Solution
from agents.planner.prep import Leaf, Prep, ReqTree
from agents.planner.reasons import PlanSetup, analysis_reasons, diagnose, input_reasons
from agents.planner.solve import solve_plan

if TYPE_CHECKING:
    from agents.audit import AuditReport, RequirementAudit

log = structlog.get_logger(__name__)

FREE_ELECTIVE = "free elective"
REPAIR_ROUNDS = 3


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class PlanConstraints(_Model):
    """What the student (or the policy critique) asks of the plan."""

    max_units_per_term: float = Field(default=54, gt=0, description="Unit cap for every term.")
    min_units_per_term: float = Field(
        default=0, ge=0, description="Unit floor for every fall/spring term up to graduation."
    )
    term_max_units: dict[str, float] = Field(
        default_factory=dict, description="Per-term cap overrides: term code -> units."
    )
    term_min_units: dict[str, float] = Field(
        default_factory=dict, description="Per-term floor overrides: term code -> units."
    )
    max_courses_per_term: int | None = Field(
        default=None, ge=1, description="Most courses in one term (None: no limit)."
    )
    terms_away: list[str] = Field(
        default_factory=list, description="Terms with no enrollment, added to the record's."
    )
    min_units_planned: float = Field(
        default=0,
        ge=0,
        description="Plan at least this many new units, beyond what the degree total needs "
        "(e.g. units that must be earned here for residency).",
    )
    first_term: str | None = Field(
        default=None, description="First planned term; default: the term after the current one."
    )
    target_term: str | None = Field(
        default=None, description="Graduate no later than this term (hard)."
    )
    latest_term: str | None = Field(
        default=None,
        description="End of the search horizon; default: first term plus 11 regular terms.",
    )
    include: list[str] = Field(default_factory=list, description="Courses the plan must take.")
    avoid: list[str] = Field(default_factory=list, description="Courses the plan must not take.")
    fixed: dict[str, str] = Field(
        default_factory=dict, description="Courses already placed: course -> term code."
    )
    exclusive_pairs: dict[str, list[tuple[str, str]]] = Field(
        default_factory=dict,
        description="Pairs of courses that may not share a term: term code -> pairs (e.g. "
        "every section of one clashes with every section of the other).",
    )
    not_in_term: dict[str, list[str]] = Field(
        default_factory=dict,
        description="Terms a course must not be placed in: course -> term codes (e.g. to "
        "keep it out of a term whose sections clash).",
    )
    interests: dict[str, float] = Field(
        default_factory=dict, description="Soft preference per course, 0..1 (higher: preferred)."
    )
    include_summer: bool = Field(default=False, description="Whether summers may be used.")
    time_limit_s: float = Field(default=10.0, gt=0, description="Solver time limit in seconds.")


class PlannedTerm(_Model):
    """One term of the plan."""

    term: str = Field(description="Term code, e.g. 'S2027'.")
    courses: list[str] = Field(description="Courses planned in the term (empty when away).")
    units: float = Field(description="Units planned in the term.")


class PlanResult(_Model):
    """The planner's answer."""

    status: Literal["optimal", "feasible", "infeasible"] = Field(
        description="'optimal': proved best for every objective; 'feasible': a valid plan "
        "found within the time limit; 'infeasible': no plan (see reasons)."
    )
    terms: list[PlannedTerm] = Field(
        description="Every term from the first term through graduation, empty ones included."
    )
    graduation_term: str | None = Field(description="Last term of the plan, None if infeasible.")
    units_planned: float = Field(description="Units of all planned courses.")
    extra_units: float = Field(
        description="Planned units beyond what requirements and the degree total need."
    )
    reasons: list[str] = Field(description="Why no plan exists (readable), when infeasible.")
    earliest_feasible_term: str | None = Field(
        description="When a target term cannot be met: the earliest graduation that can."
    )
    requirement_of: dict[str, list[str]] = Field(
        description="Planned course -> requirements it counts toward ('PROGRAM/req-id'), or "
        "['free elective']."
    )
    notes: list[str] = Field(
        default_factory=list,
        description="Things a person must act on in a valid plan, e.g. consent needed.",
    )
    solve_ms: float = Field(description="Wall time of the whole planning call in milliseconds.")


# --------------------------------------------------------------------------- planning


def plan(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    constraints: PlanConstraints,
) -> PlanResult:
    """Plan every remaining term to graduation for ``programs`` (declared plus added)."""
    t0 = time.perf_counter()
    setup = PlanSetup(catalog, student, programs, constraints)
    end = setup.latest
    if setup.target is not None and setup.target < end:
        end = setup.target
    deadline = t0 + constraints.time_limit_s
    reasons: list[str] = []
    sol = Solution("infeasible")
    prep: Prep | None = None
    if end >= setup.first:
        prep = setup.prep(end)
        reasons = input_reasons(setup, prep) or analysis_reasons(setup, prep, end)
        if not reasons:
            sol = _solve(prep, setup, deadline - time.perf_counter(), False)
            if sol.status == "infeasible" and not prep.full:
                # The pruned candidate pool may have lost the only way; prove it on all courses.
                prep = setup.prep(end, full=True)
                sol = _solve(prep, setup, deadline - time.perf_counter(), False)
    else:
        reasons = [f"the target {end.code} is before the first plannable term {setup.first.code}"]
    if sol.status in ("optimal", "feasible") and prep is not None:
        sol, audit_notes = _agree_with_audit(setup, prep, sol, deadline)
        result = _result(setup, prep, sol)
        result.notes.extend(audit_notes)
        result.solve_ms = round((time.perf_counter() - t0) * 1000, 3)
        log.info(
            "planner.done",
            student=student.id,
            status=result.status,
            graduation=result.graduation_term,
            ms=result.solve_ms,
        )
        return result
    if sol.status == "unknown":
        reasons.append(
            f"the solver found no plan within {constraints.time_limit_s:g} s; this does not "
            "prove that none exists - raise time_limit_s"
        )
    earliest = _earliest(setup, deadline) if setup.target is not None else None
    if earliest is not None:
        reasons.append(
            f"graduating by {end.code} is not possible; the earliest feasible "
            f"graduation is {earliest}"
        )
    if prep is not None and sol.status == "infeasible" and not reasons:
        reasons = diagnose(setup, end, deadline, _solve)
    if not reasons:
        reasons.append(
            f"no plan satisfies every requirement, prerequisite, offering and unit limit "
            f"between {setup.first.code} and {end.code}"
        )
    result = PlanResult(
        status="infeasible",
        terms=[],
        graduation_term=None,
        units_planned=0.0,
        extra_units=0.0,
        reasons=reasons,
        earliest_feasible_term=earliest,
        requirement_of={},
        solve_ms=round((time.perf_counter() - t0) * 1000, 3),
    )
    log.info("planner.infeasible", student=student.id, reasons=len(reasons), ms=result.solve_ms)
    return result


def _solve(prep: Prep, setup: PlanSetup, seconds: float, first_only: bool) -> Solution:
    return solve_plan(
        prep,
        max_courses=setup.c.max_courses_per_term,
        seconds=max(0.05, seconds),
        first_only=first_only,
    )


def _earliest(setup: PlanSetup, deadline: float) -> str | None:
    """Earliest graduation within the search horizon, ignoring the target term."""
    assert setup.target is not None
    if setup.target >= setup.latest:
        return None
    wide = setup.prep(setup.latest)
    if input_reasons(setup, wide) or analysis_reasons(setup, wide, setup.latest):
        return None
    alt = _solve(wide, setup, max(0.5, deadline - time.perf_counter()), True)
    if alt.status == "infeasible" and not wide.full:
        wide = setup.prep(setup.latest, full=True)
        alt = _solve(wide, setup, max(0.5, deadline - time.perf_counter()), True)
    if alt.status not in ("optimal", "feasible"):
        return None
    return wide.terms[alt.graduation].code if alt.placement else setup.current.code


def _agree_with_audit(
    setup: PlanSetup, prep: Prep, sol: Solution, deadline: float
) -> tuple[Solution, list[str]]:
    """Re-solve until the degree audit agrees that every requirement is met.

    The model assigns courses to requirements its own way; the audit is the office's
    source of truth and may allocate differently (its preferences, its unit counting). Each
    round pins the audit's allocation of the courses the model had counted toward an unmet
    requirement; when another program took a planned course, that program's own courses
    are ordered first instead (the audit fills by term, then code); any unit shortfall is
    added. Returns the last plan that solved, with a note when the audit still disagrees.
    """
    from agents.audit import audit, unmet  # peer tool: imported when first needed

    codes = [p.code for p in setup.programs]
    problems: list[tuple[str, str, str]] = []
    for _ in range(REPAIR_ROUNDS + 1):
        planned = {c: prep.terms[i].code for c, i in sol.placement.items()}
        report = audit(setup.catalog, setup.student, codes, planned=planned)
        problems = [p for p in unmet(report) if p[1] != "program-gpa"]
        if not problems or time.perf_counter() >= deadline:
            break
        pins, orders, short = _pins(report, sol, problems)
        if not pins - prep.pins and not orders - prep.orders and short <= 0:
            break
        prep.pins |= pins
        prep.orders |= orders
        prep.total_needed += short
        again = _solve(prep, setup, deadline - time.perf_counter(), False)
        if again.status not in ("optimal", "feasible"):
            break
        sol = again
    notes = [
        f"the degree audit's own allocation leaves {prog}/{req} unmet ({why}); ask the "
        "registrar to count the courses as planned"
        for prog, req, why in problems
    ]
    return sol, notes


def _pins(
    report: AuditReport, sol: Solution, problems: list[tuple[str, str, str]]
) -> tuple[set[tuple[str, str, str]], set[tuple[str, str]], float]:
    """Where the audit put the courses the plan meant for each unmet requirement."""
    audit_leaf: dict[tuple[str, str], str] = {}
    short = 0.0

    def walk(program: str, node: RequirementAudit) -> None:
        for counted in node.counted:
            audit_leaf[(program, counted.course)] = node.id
        for child in node.children:
            walk(program, child)

    for p in report.programs:
        walk(p.code, p.root)
    pins: set[tuple[str, str, str]] = set()
    orders: set[tuple[str, str]] = set()
    for prog, req, _ in problems:
        if req == "total-units":
            check = next(
                c
                for p in report.programs
                if p.code == prog
                for c in p.checks
                if c.id == "total-units"
            )
            short = max(short, check.units_needed)
            continue
        mine = [c for c, labels in sol.counts.items() if f"{prog}/{req}" in labels]
        for course in mine:
            for (program, code), leaf in audit_leaf.items():
                if (
                    code == course
                    and (program, leaf) != (prog, req)
                    and (f"{program}/{leaf}" not in sol.counts.get(course, []))
                ):
                    if program != prog and course in sol.placement:
                        # Another program's greedy fill took a planned course: plan that
                        # program's own courses earlier instead of giving this one up.
                        orders.add((program, leaf))
                    else:
                        pins.add((program, leaf, course))
    return pins, orders, short


def _result(setup: PlanSetup, prep: Prep, sol: Solution) -> PlanResult:
    by_pos: dict[int, list[str]] = {}
    for code, pos in sol.placement.items():
        by_pos.setdefault(pos, []).append(code)
    terms: list[PlannedTerm] = []
    for i in range(sol.graduation + 1):
        courses = sorted(by_pos.get(i, []))
        units = sum(prep.course(c).units for c in courses)
        terms.append(PlannedTerm(term=prep.terms[i].code, courses=courses, units=units))
    planned = sum(t.units for t in terms)
    counts = _trim(prep, sol)
    requirement_of = {c: counts.get(c) or [FREE_ELECTIVE] for c in sorted(sol.placement)}
    req_units = sum(prep.course(c).units for c in sol.placement if counts.get(c))
    extra = max(0.0, planned - max(prep.total_needed, req_units))
    notes = [
        f"{c} needs {_consent_of(prep, c)} consent before registration"
        for c in sorted(sol.placement)
        if c in prep.consent
    ]
    for code in setup.c.include:
        if code not in sol.placement:
            notes.append(f"{code} was asked for but is already complete, so it is not planned")
    grad = terms[-1].term if terms else setup.current.code
    return PlanResult(
        status="optimal" if sol.status == "optimal" else "feasible",
        terms=terms,
        graduation_term=grad,
        units_planned=planned,
        extra_units=extra,
        reasons=[],
        earliest_feasible_term=None,
        requirement_of=requirement_of,
        notes=notes,
        solve_ms=0.0,
    )


def _trim(prep: Prep, sol: Solution) -> dict[str, list[str]]:
    """What each course counts toward, without surplus: a planned course is dropped from a
    requirement that stays met without it (latest terms first), and from an n-of child
    beyond the n needed, so extra courses show as free electives."""
    counts = {c: list(labels) for c, labels in sol.counts.items()}

    def members(label: str) -> list[str]:
        return [c for c, labels in counts.items() if label in labels]

    def drop(label: str, course: str) -> None:
        counts[course] = [x for x in counts[course] if x != label]

    def later_first(codes: list[str]) -> list[str]:
        planned = [c for c in codes if c in sol.placement]
        return sorted(planned, key=lambda c: (sol.placement[c], c), reverse=True)

    def satisfied(leaf: Leaf, codes: list[str]) -> bool:
        units = sum(prep.course(c).units for c in codes)
        need = 1 if leaf.kind == "course" else leaf.min_courses
        return len(codes) >= need and units >= leaf.min_units - 1e-9

    def walk(node: ReqTree) -> None:
        if node.kind == "leaf" and node.leaf is not None and node.leaf.kind == "set":
            leaf = node.leaf
            for course in later_first(members(leaf.label)):
                rest = [c for c in members(leaf.label) if c != course]
                if satisfied(leaf, rest):
                    drop(leaf.label, course)
        for child in node.children:
            walk(child)
        if node.kind == "n_of":
            done = [
                ch
                for ch in node.children
                if ch.leaf is not None and satisfied(ch.leaf, members(ch.leaf.label))
            ]
            spare = len(done) - node.n
            for ch in sorted(
                done,
                key=lambda ch: (
                    # `done` only holds children with a leaf
                    -max(
                        (sol.placement.get(c, -1) for c in members(cast(Leaf, ch.leaf).label)),
                        default=-1,
                    )
                ),
            ):
                if spare <= 0:
                    break
                assert ch.leaf is not None
                codes = members(ch.leaf.label)
                if codes and all(c in sol.placement for c in codes):
                    for c in codes:
                        drop(ch.leaf.label, c)
                    spare -= 1

    for tree in prep.trees.values():
        walk(tree)
    return {c: labels for c, labels in counts.items() if labels}


def _consent_of(prep: Prep, code: str) -> str:
    from agents.catalog import ConsentCond
    from agents.planner.prep import walk_prereq

    kinds = [
        n.consent
        for n in walk_prereq(prep.course(code).prerequisites)
        if isinstance(n, ConsentCond)
    ]
    return kinds[0] if kinds else "instructor"
