"""The multi-term planner: a semester-by-semester plan to graduation, solved with CP-SAT.

``plan(catalog, student, programs, constraints)`` chooses which courses satisfy the open
requirements of every target program (sharing limits included), adds free electives up to
the degree's total units, and places everything in terms so that prerequisites,
corequisites, offerings, unit loads (caps by term and by the class standing at its start),
terms away and anti-requisites all hold. Objectives, in strict priority order: earliest
graduation, fewest dormant (possibly discontinued) optional courses and fewest courses on
consent that a prerequisite course could open instead (``agents.planner.risky``), fewest
units (so fewest extra units), fewest courses taken on someone's consent, most even load,
then earliest placement as the explicit tie-break; fewer consent courses,
then interests, then early and low-level courses break ties between course sets of equal
units. ``status`` is "optimal" when graduation, then the dormant and routine-consent
courses, then units are proved optimal over the whole catalog, not only over the candidate
pool the models were given (``agents.planner.proof``: a pruned pool is checked against the
whole catalog's bounds and widened when they disagree; ``PlanResult.catalog_bound`` says
what is known, a note the gap when it remains); later preferences are best effort within
deterministic budgets.

Standard loads below the caps (``ConstraintSet.standard``: the caps allow an overload) come
first: the plan is solved within the standard loads, and only when none meets the target
(or fits the horizon) within the caps, with the fewest terms above the standard loads (each
needs its own approval), then the fewest units above them, then the earliest graduation by
the target.

Every plan is checked against the degree audit before it is returned; when the audit counts
courses differently from the model, the plan is re-solved with the audit's allocation pinned
(``agents.planner.repair``).

When no plan exists the result says why in words a student understands (a prerequisite
chain that needs more terms than remain, an offering after the target, units that do not
fit under the cap, a sharing limit) and, when a target term was the obstacle, the earliest
graduation that would work. Every infeasible result says which it is
(``PlanResult.infeasible_kind``): ``proven``, or ``timed_out`` when a step's time limit ran
out before any plan was found - the step and its limit are in ``time_limits`` and the
reason says that this proves nothing. A step that runs out after a proof (the earliest
graduation, the diagnosis) is listed there too and leaves the proof standing.

Module map (each imports only modules listed after it):

- ``kbest``: ``alternatives``, distinct plans beside a chosen one (k-best), kept
  apart by the no-good cuts of ``cuts``;
- ``api``: ``plan``, the planning call;
- ``proof``: what a plan from a pruned pool may be called, over the whole catalog;
  ``bound``: the whole catalog's lower bounds (a relaxation of the model);
- ``reasons``: readable reasons for an infeasible request, ``diagnose`` by relaxation;
- ``repair``: agreement with the degree audit;
- ``result``: the ``PlanResult`` of a solved plan;
- ``setup``: ``PlanSetup``, the parsed request; builds a ``Prep`` and solves it;
- ``solve``: the staged solve; ``goals``: the objectives of its last stages; ``search``:
  decision strategy and solver runs;
- ``model``: the time-indexed CP-SAT model; ``select``: course-set model, requirement
  encoding; ``twins``: interchangeable courses in it; ``floor``: the units floor;
  ``cuts``: no-good cuts of earlier plans; ``cpsat``: deterministic solver,
  objective helpers and units as whole steps of the catalog's credit system;
- ``pool``: the candidate courses; ``fillers``: which courses may be free electives, and
  their weight by size and kind; ``prep``: ``Prep`` and earliest terms;
- ``reqtree``: compiled requirements; ``catalog_index``: per-catalog facts;
  ``record``: the student's credit; ``terms``: horizon and term parsing;
- ``schema``: ``PlanConstraints``, ``PlannedTerm``, ``PlanResult``; ``solution``: a solve's
  raw answer.

``sections`` (next-term section selection) stands apart: it imports only ``cpsat``;
``clashes`` (courses whose sections always clash, for ``setup``) imports none.
"""

from __future__ import annotations

import time
from collections.abc import Sequence

import structlog

from agents.catalog import Catalog, StudentRecord, Term
from agents.catalog.overrides import effective_catalog
from agents.planner.bound import relax
from agents.planner.cpsat import Watch, expired, watch
from agents.planner.prep import Prep
from agents.planner.proof import RELAX_DTIME, prove
from agents.planner.reasons import analysis_reasons, diagnose, input_reasons
from agents.planner.repair import agree_with_audit
from agents.planner.result import build_result
from agents.planner.schema import PlanConstraints, PlanResult, TimeLimit, TimeLimitStage
from agents.planner.setup import PlanSetup
from agents.planner.solution import Solution

log = structlog.get_logger(__name__)


def plan(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    constraints: PlanConstraints,
) -> PlanResult:
    """Plan every remaining term to graduation for ``programs`` (declared plus added).

    Every solve runs within a deterministic budget; ``constraints.time_limit_s`` of
    wall-clock time is only the safety net. When it fires, the answer would depend on the
    machine's load: it is labelled ``timed_out`` (``safety_net``), never given as the
    normal answer."""
    with watch(constraints.time_limit_s) as w:
        result = _plan(catalog, student, programs, constraints)
    if w.fired and result.infeasible_kind != "timed_out":
        result = safety_net(result, w)
    return result


def safety_net(result: PlanResult, w: Watch) -> PlanResult:
    """``result`` reached after the wall-clock safety net fired: no plan, labelled
    ``timed_out``, with where it fired."""
    limit = TimeLimit(
        stage="wall_clock",
        seconds=w.seconds,
        message=f"the planner's safety limit of {w.seconds:g} s of wall-clock time ran out "
        f"({w.fired[0]}) before its work was done - the machine may be overloaded; the "
        "answer would depend on the machine's load, so none is given and nothing is proved: "
        "run the request again, or raise time_limit_s",
    )
    log.warning("planner.timed_out", where=w.fired[0], seconds=w.seconds, was=result.status)
    return PlanResult(
        status="infeasible",
        terms=[],
        graduation_term=None,
        units_planned=0.0,
        extra_units=0.0,
        reasons=[limit.message],
        earliest_feasible_term=None,
        requirement_of={},
        infeasible_kind="timed_out",
        time_limits=[limit, *result.time_limits],
        solve_ms=result.solve_ms,
    )


def _plan(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    constraints: PlanConstraints,
) -> PlanResult:
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
        proved = prove(setup, prep, sol, audit_notes, deadline)
        result = build_result(setup, proved.prep, proved.sol)
        result.notes.extend(proved.audit_notes)
        if proved.bound is not None:
            # A pruned pool: "optimal" only when the whole catalog's bounds are met.
            result.pool_size = len(proved.prep.pool)
            result.catalog_bound = proved.bound
            result.status = "optimal" if proved.bound.proven else "feasible"
        if proved.note:
            result.notes.append(proved.note)
        result.solve_ms = round((time.perf_counter() - t0) * 1000, 3)
        log.info(
            "planner.done",
            student=student.id,
            status=result.status,
            graduation=result.graduation_term,
            ms=result.solve_ms,
        )
        return result
    # A step whose time ran out decided nothing: it is reported as such, never as a proof.
    limits: list[TimeLimit] = []
    if sol.status == "unknown":
        limits.append(_main_limit(sol, prep, deadline, constraints.time_limit_s))
        reasons.append(limits[0].message)
    earliest = _earliest(setup, deadline, limits) if setup.target is not None else None
    if earliest is not None:
        reasons.append(
            f"graduating by {end.code} is not possible; the earliest feasible graduation is "
            f"{earliest}"
            if sol.status == "infeasible"
            else f"no plan graduating by {end.code} was found in time; the earliest graduation "
            f"found is {earliest}"
        )
    if prep is not None and sol.status == "infeasible" and not reasons:
        reasons = diagnose(setup, end, deadline, limits)
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
        infeasible_kind="timed_out" if sol.status == "unknown" else "proven",
        time_limits=limits,
        solve_ms=round((time.perf_counter() - t0) * 1000, 3),
    )
    log.info(
        "planner.infeasible",
        student=student.id,
        kind=result.infeasible_kind,
        reasons=len(reasons),
        ms=result.solve_ms,
    )
    return result


STAGE_WORDS: dict[TimeLimitStage, str] = {
    "course_selection": "course selection",
    "placement": "placing the courses in terms",
    "earliest_graduation": "the search for the earliest feasible graduation",
    "diagnosis": "the search for the constraint that rules every plan out",
}


def _main_limit(
    sol: Solution, prep: Prep | None, deadline: float, time_limit_s: float
) -> TimeLimit:
    """The step of the staged solve whose time ran out, in words that claim no proof."""
    stage, seconds = sol.limit or ("placement", time_limit_s)
    where = STAGE_WORDS[stage]
    if sol.retried:
        where += " on the full candidate pool (the pruned pool has no plan)"
    if expired(deadline, STAGE_WORDS[stage]):
        return TimeLimit(
            stage=stage,
            seconds=time_limit_s,
            message=f"no plan was found within the planner's {time_limit_s:g} s time limit "
            f"(it ran out at {where}); this does not prove that none exists - raise "
            "time_limit_s",
        )
    return TimeLimit(
        stage=stage,
        seconds=seconds,
        message=f"no plan was found within {seconds_words(seconds)} at {where}; this does "
        "not prove that none exists",
    )


def seconds_words(seconds: float) -> str:
    """'10 s', '0.5 s', '20 ms', '1 ms' (at least: a smaller budget is given as 1 ms)."""
    return f"{seconds:.3g} s" if seconds >= 0.1 else f"{max(1, round(seconds * 1000))} ms"


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
            prep, sol = on_every_course(setup, end, deadline, standard=standard)
    return prep, reasons, sol


def on_every_course(
    setup: PlanSetup, end: Term, deadline: float, *, standard: bool = False, first: bool = False
) -> tuple[Prep, Solution]:
    """The pruned pool has no plan through ``end``: solve again on every usable course -
    unless the whole catalog's relaxation has none either (``agents.planner.bound``), a
    proof at once (a large catalog's full model may not answer in time)."""
    prep = setup.prep(end, full=True, standard=standard)
    seconds = max(0.05, deadline - time.perf_counter())
    cap = setup.c.max_courses_per_term
    relaxed = relax(prep, seconds, RELAX_DTIME, terms=len(prep.terms), max_courses=cap)
    if relaxed.status == "infeasible":
        sol = Solution("infeasible", stages=["every course: the relaxation has no plan"])
    else:
        left = deadline - time.perf_counter()
        sol = setup.solve(prep, max(0.5, left) if first else left, first)
    sol.retried = True
    return prep, sol


def _earliest(setup: PlanSetup, deadline: float, limits: list[TimeLimit]) -> str | None:
    """Earliest graduation within the search horizon, ignoring the target term; a search
    whose time runs out is added to ``limits`` (the earliest term is then unknown)."""
    assert setup.target is not None
    if setup.target >= setup.latest:
        return None
    wide = setup.prep(setup.latest)
    if input_reasons(setup, wide) or analysis_reasons(setup, wide, setup.latest):
        return None
    alt = setup.solve(wide, max(0.5, deadline - time.perf_counter()), True)
    if alt.status == "infeasible" and not wide.full:
        wide, alt = on_every_course(setup, setup.latest, deadline, first=True)
    if alt.status == "unknown":
        # The deterministic budget of the step that ran out (never the wall clock's).
        seconds = alt.limit[1] if alt.limit else setup.c.time_limit_s
        limits.append(
            TimeLimit(
                stage="earliest_graduation",
                seconds=round(seconds, 6),
                message=f"the earliest feasible graduation was not found within "
                f"{seconds_words(seconds)}; this does not mean that there is none",
            )
        )
    if alt.status not in ("optimal", "feasible"):
        return None
    return wide.terms[alt.graduation].code if alt.placement else setup.current.code
