"""The multi-term planner: a semester-by-semester plan to graduation, solved with CP-SAT.

``plan(catalog, student, programs, constraints)`` chooses which courses satisfy the open
requirements of every target program (sharing limits included), adds free electives up to
the degree's total units, and places everything in terms so that prerequisites,
corequisites, offerings, unit loads (caps by term and by the class standing at its start),
terms away and anti-requisites all hold. Objectives, in strict priority order: earliest
graduation, fewest units (so fewest extra units), fewest courses taken on someone's consent,
most even load, then earliest placement as the explicit tie-break; fewer consent courses,
then interests, then early and low-level courses break ties between course sets of equal
units. ``status`` is "optimal" when graduation and units are proved optimal (balance is
best effort within a deterministic budget).

Standard loads below the caps (``ConstraintSet.standard``: the caps allow an overload) come
first: the plan is solved within the standard loads, and only when none meets the target
(or fits the horizon) within the caps, with the fewest units above the standard loads, then
the fewest terms above them, then the earliest graduation by the target.

Every plan is checked against the degree audit before it is returned; when the audit counts
courses differently from the model, the plan is re-solved with the audit's allocation pinned
(``agents.planner.repair``).

When no plan exists the result says why in words a student understands (a prerequisite
chain that needs more terms than remain, an offering after the target, units that do not
fit under the cap, a sharing limit) and, when a target term was the obstacle, the earliest
graduation that would work.

Module map (each imports only modules listed after it):

- ``kbest``: ``alternatives``, distinct plans beside a chosen one (k-best), kept
  apart by the no-good cuts of ``cuts``;
- ``api``: ``plan``, the planning call;
- ``reasons``: readable reasons for an infeasible request, ``diagnose`` by relaxation;
- ``repair``: agreement with the degree audit;
- ``result``: the ``PlanResult`` of a solved plan;
- ``setup``: ``PlanSetup``, the parsed request; builds a ``Prep`` and solves it;
- ``solve``: the staged solve; ``goals``: the objectives of its last stages; ``search``:
  decision strategy and solver runs;
- ``model``: the time-indexed CP-SAT model; ``select``: course-set model, requirement
  encoding; ``cuts``: no-good cuts of earlier plans; ``cpsat``: deterministic solver and
  objective helpers;
- ``pool``: the candidate courses; ``prep``: ``Prep`` and earliest terms;
- ``reqtree``: compiled requirements; ``catalog_index``: per-catalog facts;
  ``record``: the student's credit; ``terms``: horizon and term parsing;
- ``schema``: ``PlanConstraints``, ``PlannedTerm``, ``PlanResult``; ``solution``: a solve's
  raw answer.

``sections`` (next-term section selection) stands apart: it imports no other module here.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import structlog

from agents.catalog import Catalog, StudentRecord, Term
from agents.catalog.overrides import effective_catalog
from agents.planner.prep import Prep
from agents.planner.reasons import analysis_reasons, diagnose, input_reasons
from agents.planner.repair import agree_with_audit
from agents.planner.result import build_result
from agents.planner.schema import PlanConstraints, PlanResult
from agents.planner.setup import PlanSetup
from agents.planner.solution import Solution

log = structlog.get_logger(__name__)


def plan(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    constraints: PlanConstraints,
) -> PlanResult:
    """Plan every remaining term to graduation for ``programs`` (declared plus added)."""
    t0 = time.perf_counter()
    catalog = effective_catalog(catalog, student)  # the advisor's exceptions, if any
    setup = PlanSetup(catalog, student, programs, constraints)
    end = end_term(setup)
    deadline = t0 + constraints.time_limit_s
    reasons: list[str] = []
    sol = Solution("infeasible")
    prep: Prep | None = None
    if end >= setup.first:
        prep, reasons, sol = solve_through(setup, end, deadline)
    else:
        reasons = [f"the target {end.code} is before the first plannable term {setup.first.code}"]
    if sol.status in ("optimal", "feasible") and prep is not None:
        sol, audit_notes = agree_with_audit(setup, prep, sol, deadline)
        result = build_result(setup, prep, sol)
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
        reasons = diagnose(setup, end, deadline)
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


def end_term(setup: PlanSetup) -> Term:
    """The last term a plan may use: the horizon's, or the target when it comes first."""
    if setup.target is not None and setup.target < setup.latest:
        return setup.target
    return setup.latest


def solve_through(
    setup: PlanSetup, end: Term, deadline: float
) -> tuple[Prep | None, list[str], Solution]:
    """The staged solve through ``end``: within the standard loads if that meets the
    target, overloads only otherwise; with the readable reasons when the analyses alone
    show there is no plan."""
    prep: Prep | None = None
    reasons: list[str] = []
    sol = Solution("infeasible")
    if setup.has_standard:
        prep, reasons, sol = _solve(setup, end, deadline, standard=True)
    if sol.status not in ("optimal", "feasible"):
        prep, reasons, sol = _solve(setup, end, deadline, standard=False)
    return prep, reasons, sol


def _solve(
    setup: PlanSetup, end: Term, deadline: float, *, standard: bool
) -> tuple[Prep, list[str], Solution]:
    """The staged solve through ``end`` (within the standard loads when ``standard``), with
    the readable reasons when the analyses alone show there is no plan."""
    prep = setup.prep(end, standard=standard)
    reasons = input_reasons(setup, prep) or analysis_reasons(setup, prep, end)
    sol = Solution("infeasible")
    if not reasons:
        sol = setup.solve(prep, deadline - time.perf_counter(), False)
        if sol.status == "infeasible" and not prep.full:
            # The pruned candidate pool may have lost the only way; prove it on all courses.
            prep = setup.prep(end, full=True, standard=standard)
            sol = setup.solve(prep, deadline - time.perf_counter(), False)
    return prep, reasons, sol


def _earliest(setup: PlanSetup, deadline: float) -> str | None:
    """Earliest graduation within the search horizon, ignoring the target term."""
    assert setup.target is not None
    if setup.target >= setup.latest:
        return None
    wide = setup.prep(setup.latest)
    if input_reasons(setup, wide) or analysis_reasons(setup, wide, setup.latest):
        return None
    alt = setup.solve(wide, max(0.5, deadline - time.perf_counter()), True)
    if alt.status == "infeasible" and not wide.full:
        wide = setup.prep(setup.latest, full=True)
        alt = setup.solve(wide, max(0.5, deadline - time.perf_counter()), True)
    if alt.status not in ("optimal", "feasible"):
        return None
    return wide.terms[alt.graduation].code if alt.placement else setup.current.code
