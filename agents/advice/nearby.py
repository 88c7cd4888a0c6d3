"""Programs a student is close to: the minors (then concentrations, then - when asked -
majors) they could add without delaying graduation, ranked by what adding them costs.

Computed, not guessed. ``close_programs`` plans the baseline (the declared programs, or
the ones the caller targets) once, then for each candidate program: the what-if audit
decides eligibility (``Program.eligible_majors`` / ``excluded_majors``; a candidate that
makes a baseline program ineligible is left out too) and what of the record counts toward
it, sharing limits included; the planner plans the baseline programs plus the candidate
under the same constraints. A candidate whose plan graduates later than the baseline
``delays``; one with no plan is ``infeasible``; the rest ``fits``.

Two numbers per candidate: ``remaining_units``, the units of the planned courses that
count toward it (``PlanResult.requirement_of``), and ``extra_units``, the plan's units
minus the baseline's - what adding it really costs, since a minor often fills units the
degree total needs anyway (free electives). Fitting programs rank by kind, then extra
units, then remaining units, then code.

Without a negotiated constraint set (``advise audit --close``) the plans use
``default_constraints``: the catalog's standard load for the student's class standing
and the ones after it, no target term, no optional terms. The pipeline passes its own.

Cost: one plan per eligible candidate plus the baseline (which the pipeline's request has
usually solved already: ``plans``, ``agents.planner.memo``). With ``limit`` a later kind is
not planned once enough programs of earlier kinds fit (every program of a later kind ranks
below them). Within a kind there is no cheap sound bound: the audit's units still needed
are not a lower bound of the plan's remaining units, since the plan may move a completed
course from a major to the candidate and take another one for the major instead.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import structlog

from agents.artifacts.nearby import (
    AddableKind,
    CloseProgram,
    CloseReport,
    CloseStatus,
    NeededCourse,
    SkippedProgram,
)
from agents.audit import AuditReport, ProgramAudit, RequirementAudit, audit
from agents.catalog import (
    STANDINGS,
    Catalog,
    StudentRecord,
    Term,
    credit_sub,
    credit_sum,
)
from agents.errors import PlanningError
from agents.planner import PlanConstraints, PlanResult, plan
from agents.planner.memo import PlanMemo
from agents.policy import catalog_load_caps, term_kind_caps
from agents.toolbox import HORIZON_YEARS, Settings

log = structlog.get_logger(__name__)

__all__ = [
    "DEFAULT_KINDS",
    "KIND_ORDER",
    "CloseProgram",
    "CloseReport",
    "CloseStatus",
    "NeededCourse",
    "SkippedProgram",
    "close_programs",
    "default_constraints",
]

KIND_ORDER: tuple[AddableKind, ...] = ("minor", "concentration", "major")
"""The kinds a student may add, in the order they are listed."""
DEFAULT_KINDS: tuple[AddableKind, ...] = ("minor", "concentration")
"""Majors only when asked: a second major is a different decision, and a costly question
(its plan is the largest; in the sample catalog none fits without delaying graduation)."""


def default_constraints(
    catalog: Catalog,
    student: StudentRecord,
    *,
    horizon_terms: int | None = None,
    time_limit_s: float | None = None,
) -> PlanConstraints:
    """The constraints of a caller with no negotiated set: the rules' standard load for the
    standing the student has now and may reach (applied per term, as
    ``agents.planning.initial_constraints`` does without a target term or a wish of the
    student's), caps rules set for a kind of term, registered courses where they are, no
    optional terms, no target term; the horizon and time limit default to ``Settings``'."""
    now = student.class_standing(catalog)
    ahead = {s: catalog_load_caps(catalog, s) for s in STANDINGS[STANDINGS.index(now) :]}
    standard = max(c.standard for c in ahead.values())
    by_standing = {s: c.standard for s, c in ahead.items() if c.standard < standard}
    first = Term.parse(student.current_term).next_regular().code
    horizon = horizon_terms or HORIZON_YEARS * catalog.calendar.regular_per_year
    kind_caps = term_kind_caps(catalog_load_caps(catalog, now), first, horizon, ceiling=False)
    fixed = {
        r.course: r.term
        for r in student.registered
        if r.course in catalog.course_by_code and Term.parse(r.term) >= Term.parse(first)
    }
    return PlanConstraints(
        max_units_per_term=standard,
        standing_max_units=by_standing,
        term_max_units=kind_caps,
        fixed=fixed,
        horizon_terms=horizon,
        time_limit_s=time_limit_s or Settings().planner_time_limit_s,
    )


def close_programs(
    catalog: Catalog,
    student: StudentRecord,
    constraints: PlanConstraints | None = None,
    *,
    programs: Sequence[str] | None = None,
    limit: int | None = None,
    kinds: Sequence[AddableKind] = DEFAULT_KINDS,
    plans: PlanMemo | None = None,
) -> CloseReport:
    """The programs of ``kinds`` ``student`` could add to ``programs`` (default: the
    declared ones) without delaying graduation, as the module docstring says; ``limit``
    keeps the best ``limit`` of them. ``plans``: the solved plans of the request asking
    (the baseline is often one of them; default: solve afresh)."""
    t0 = time.perf_counter()
    unknown = [k for k in kinds if k not in KIND_ORDER]
    if unknown:
        raise PlanningError(
            f"cannot add programs of kind {unknown[0]!r}; kinds: {', '.join(KIND_ORDER)}"
        )
    order = [k for k in KIND_ORDER if k in kinds]
    base_programs = list(student.programs if programs is None else programs)
    c = constraints or default_constraints(catalog, student)
    memo = plans or PlanMemo()
    base = memo.plan(plan, catalog, student, base_programs, c)
    report = CloseReport(
        student_id=student.id,
        programs=base_programs,
        kinds=order,
        constraints=c,
        baseline_status=base.status,
        baseline_graduation_term=base.graduation_term,
        baseline_units=base.units_planned,
        baseline_reasons=base.reasons,
        close=[],
        delayed=[],
        skipped=[],
        elapsed_ms=0.0,
    )
    if base.status != "infeasible":
        _candidates(catalog, student, base_programs, c, base, order, limit, report, memo)
    report.elapsed_ms = round((time.perf_counter() - t0) * 1000, 3)
    log.info(
        "nearby.done",
        student=student.id,
        close=[p.code for p in report.close],
        delayed=len(report.delayed),
        skipped=len(report.skipped),
        ms=report.elapsed_ms,
    )
    return report


def _candidates(
    catalog: Catalog,
    student: StudentRecord,
    base_programs: list[str],
    c: PlanConstraints,
    base: PlanResult,
    order: list[AddableKind],
    limit: int | None,
    report: CloseReport,
    memo: PlanMemo,
) -> None:
    """Plan every eligible candidate, kind by kind, into ``report``."""
    taken = {*base_programs, *student.programs}
    eligible_before = {p.code: p.eligible for p in audit(catalog, student, base_programs).programs}
    fits: list[CloseProgram] = []
    delayed: list[CloseProgram] = []
    for n, kind in enumerate(order):
        group = [p for p in catalog.programs if p.kind == kind and p.code not in taken]
        if limit is not None and len(fits) >= limit:
            why = (
                f"not planned: the top {limit} are programs of a kind listed first "
                f"({', '.join(order[:n])})"
            )
            report.skipped += [SkippedProgram(code=p.code, kind=p.kind, reason=why) for p in group]
            continue
        for program in group:
            what_if = audit(catalog, student, base_programs, add_programs=[program.code])
            mine = next(p for p in what_if.programs if p.code == program.code)
            why = _blocked(mine, what_if, eligible_before)
            if why:
                report.skipped.append(SkippedProgram(code=program.code, kind=kind, reason=why))
                continue
            found = _plan_one(catalog, student, base_programs, c, base, mine, memo)
            (fits if found.status == "fits" else delayed).append(found)
    fits.sort(key=lambda p: (KIND_ORDER.index(p.kind), p.extra_units, p.remaining_units, p.code))
    report.close = fits[:limit] if limit is not None else fits
    delayed.sort(
        key=lambda p: (
            p.graduation_term is None,
            Term.parse(p.graduation_term).index if p.graduation_term else 0,
            KIND_ORDER.index(p.kind),
            p.extra_units,
            p.remaining_units,
            p.code,
        )
    )
    report.delayed = delayed


def _blocked(mine: ProgramAudit, what_if: AuditReport, eligible_before: dict[str, bool]) -> str:
    """Why the candidate may not be added: its eligibility, or a baseline program it makes
    ineligible (a second major a declared minor excludes); empty when it may."""
    if not mine.eligible:
        return mine.eligibility_note
    for other in what_if.programs:
        if other.code != mine.code and eligible_before.get(other.code) and not other.eligible:
            return f"adding {mine.code} makes {other.code} unavailable: {other.eligibility_note}"
    return ""


def _plan_one(
    catalog: Catalog,
    student: StudentRecord,
    base_programs: list[str],
    c: PlanConstraints,
    base: PlanResult,
    mine: ProgramAudit,
    memo: PlanMemo,
) -> CloseProgram:
    """The candidate ``mine`` planned with the baseline programs, compared with ``base``."""
    result = memo.plan(plan, catalog, student, [*base_programs, mine.code], c)
    counted = {(cc.course, cc.term): cc.units for n in _nodes(mine) for cc in n.counted}
    status: CloseStatus = "infeasible"
    courses: list[NeededCourse] = []
    extra = 0.0
    if result.graduation_term is not None and base.graduation_term is not None:
        later = Term.parse(result.graduation_term) > Term.parse(base.graduation_term)
        status = "delays" if later else "fits"
        courses = _needed(catalog, mine, result)
        extra = credit_sub(result.units_planned, base.units_planned)
    return CloseProgram(
        code=mine.code,
        name=mine.name,
        kind=mine.kind,
        status=status,
        extra_units=extra,
        remaining_units=credit_sum(n.units for n in courses),
        units_counted=credit_sum(counted.values()),
        graduation_term=result.graduation_term,
        plan_status=result.status,
        courses=courses,
        reasons=result.reasons,
        solve_ms=result.solve_ms,
    )


def _nodes(program: ProgramAudit) -> list[RequirementAudit]:
    """Every node of ``program``'s audit: the tree, then the program checks, in pre-order."""
    out: list[RequirementAudit] = []
    stack = [program.root, *program.checks][::-1]
    while stack:
        node = stack.pop()
        out.append(node)
        stack.extend(reversed(node.children))
    return out


def _titles(program: ProgramAudit) -> dict[str, str]:
    """Node id -> readable name: its title, else (an untitled option of an n-of) the
    n-of's name, else its id."""
    out: dict[str, str] = {}

    def walk(node: RequirementAudit, choice: str) -> None:
        out[node.id] = node.title or choice or node.id
        for child in node.children:
            walk(child, out[node.id] if node.kind == "n_of" else "")

    for node in [program.root, *program.checks]:
        walk(node, "")
    return out


def _needed(catalog: Catalog, mine: ProgramAudit, result: PlanResult) -> list[NeededCourse]:
    """The planned courses that count toward ``mine``, by term then code."""
    titles = _titles(mine)
    term_of = {code: t.term for t in result.terms for code in t.courses}
    prefix = f"{mine.code}/"
    out = []
    for code, reqs in result.requirement_of.items():
        fills = [
            titles.get(r[len(prefix) :], r[len(prefix) :]) for r in reqs if r.startswith(prefix)
        ]
        if not fills:
            continue
        course = catalog.course(code)
        out.append(
            NeededCourse(
                course=code,
                title=course.title,
                units=course.units,
                term=term_of[code],
                requirements=list(reqs),
                fills=fills,
            )
        )
    out.sort(key=lambda n: (Term.parse(n.term).index, n.course))
    return out
