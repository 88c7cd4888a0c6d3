"""The multi-term planner: a semester-by-semester plan to graduation, solved with CP-SAT.

``plan(catalog, student, programs, constraints)`` chooses which courses satisfy the open
requirements of every target program (sharing limits included), adds free electives up to
the degree's total units, and places everything in terms so that prerequisites,
corequisites, offerings, unit loads, terms away and anti-requisites all hold. Objectives,
in strict priority order: earliest graduation, fewest extra units, most even load, most
interest points, then earliest placement as the explicit tie-break.

When no plan exists the result says why in words a student understands (a prerequisite
chain that needs more terms than remain, an offering after the target, units that do not
fit under the cap) and, when a target term was the obstacle, the earliest graduation that
would work. See ``planner_prep`` (candidate pool, earliest terms) and ``planner_model`` (the
CP-SAT formulation).
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from typing import Literal

import structlog
from pydantic import BaseModel, ConfigDict, Field

from agents.errors import PlanningError
from agents.tools.catalog import Catalog, Program
from agents.tools.planner_model import PlanModel, Solution, Strategy
from agents.tools.planner_prep import (
    INF,
    Prep,
    default_latest,
    describe_offering,
    horizon,
    parse_term,
)
from agents.tools.student import StudentRecord
from agents.tools.terms import Term

log = structlog.get_logger(__name__)

FREE_ELECTIVE = "free elective"
STRATEGY: Strategy = "sequential"


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


# --------------------------------------------------------------------------- setup


class _Setup:
    """Parsed constraints shared by every solve of one ``plan`` call."""

    def __init__(
        self,
        catalog: Catalog,
        student: StudentRecord,
        programs: Sequence[str],
        c: PlanConstraints,
    ) -> None:
        self.catalog, self.student, self.c = catalog, student, c
        self.programs: list[Program] = [catalog.program(p) for p in dict.fromkeys(programs)]
        if not self.programs:
            raise PlanningError("no target programs; pass at least one program code")
        current = parse_term(student.current_term, "student current_term")
        self.current = current
        self.first = (
            parse_term(c.first_term, "first_term")
            if c.first_term
            else current.next_regular(c.include_summer)
        )
        self.latest = parse_term(c.latest_term, "latest_term") if c.latest_term else None
        self.latest = self.latest or default_latest(self.first)
        self.target = parse_term(c.target_term, "target_term") if c.target_term else None
        if self.latest < self.first:
            raise PlanningError(
                f"latest_term {self.latest.code!r} is before first_term {self.first.code!r}"
            )
        self.away = {parse_term(t, "terms_away").code for t in [*student.terms_away, *c.terms_away]}
        self.fixed = {k: parse_term(v, f"fixed[{k!r}]").code for k, v in c.fixed.items()}
        for what, codes in (("include", c.include), ("avoid", c.avoid), ("fixed", self.fixed)):
            for code in codes:
                if code not in catalog.course_by_code:
                    raise PlanningError(f"{what}: unknown course {code!r}")

    def prep(self, end: Term, full: bool = False) -> Prep:
        terms = horizon(self.first, end, self.c.include_summer)
        caps = [self.c.term_max_units.get(t.code, self.c.max_units_per_term) for t in terms]
        floors = [
            self.c.term_min_units.get(
                t.code, self.c.min_units_per_term if t.season != "summer" else 0.0
            )
            for t in terms
        ]
        interests = {k: v for k, v in self.c.interests.items() if k in self.catalog.course_by_code}
        prep = Prep(
            self.catalog,
            self.student,
            self.programs,
            terms,
            self.away,
            caps,
            floors,
            include=self.c.include,
            avoid=self.c.avoid,
            fixed=self.fixed,
            interests=interests,
        )
        prep.build_pool(full)
        return prep


# --------------------------------------------------------------------------- planning


def plan(
    catalog: Catalog,
    student: StudentRecord,
    programs: Sequence[str],
    constraints: PlanConstraints,
) -> PlanResult:
    """Plan every remaining term to graduation for ``programs`` (declared plus added)."""
    t0 = time.perf_counter()
    setup = _Setup(catalog, student, programs, constraints)
    end = setup.latest
    if setup.target is not None and setup.target < end:
        end = setup.target
    deadline = t0 + constraints.time_limit_s
    reasons: list[str] = []
    sol = Solution("infeasible")
    prep: Prep | None = None
    if end >= setup.first:
        prep = setup.prep(end)
        reasons = _input_reasons(setup, prep)
        if not reasons:
            reasons = _analysis_reasons(setup, prep, end)
        if not reasons:
            sol = _solve(prep, setup, deadline - time.perf_counter(), first_only=False)
            if sol.status == "infeasible" and not prep.full:
                # The pruned candidate pool may have lost the only way; prove it on all courses.
                prep = setup.prep(end, full=True)
                sol = _solve(prep, setup, deadline - time.perf_counter(), first_only=False)
    else:
        reasons = [f"the target {end.code} is before the first plannable term {setup.first.code}"]
    if sol.status in ("optimal", "feasible") and prep is not None:
        result = _result(setup, prep, sol)
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
    earliest: str | None = None
    if setup.target is not None and setup.target < setup.latest:
        wide = setup.prep(setup.latest)
        if not _input_reasons(setup, wide) and not _analysis_reasons(setup, wide, setup.latest):
            alt = _solve(wide, setup, max(0.5, deadline - time.perf_counter()), first_only=True)
            if alt.status == "infeasible" and not wide.full:
                wide = setup.prep(setup.latest, full=True)
                alt = _solve(wide, setup, max(0.5, deadline - time.perf_counter()), first_only=True)
            if alt.status in ("optimal", "feasible"):
                earliest = wide.terms[alt.graduation].code if alt.placement else None
                if earliest:
                    reasons.append(
                        f"graduating by {setup.target.code} is not possible; the earliest "
                        f"feasible graduation is {earliest}"
                    )
    if prep is not None and sol.status == "infeasible" and not reasons:
        reasons = _diagnose(setup, end, deadline)
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


def _solve(prep: Prep, setup: _Setup, seconds: float, *, first_only: bool) -> Solution:
    model = PlanModel(prep, max_courses=setup.c.max_courses_per_term)
    return model.solve(max(0.05, seconds), STRATEGY, first_only=first_only)


def _result(setup: _Setup, prep: Prep, sol: Solution) -> PlanResult:
    by_pos: dict[int, list[str]] = {}
    for code, pos in sol.placement.items():
        by_pos.setdefault(pos, []).append(code)
    terms: list[PlannedTerm] = []
    for i in range(sol.graduation + 1):
        courses = sorted(by_pos.get(i, []))
        units = sum(prep.course(c).units for c in courses)
        terms.append(PlannedTerm(term=prep.terms[i].code, courses=courses, units=units))
    planned = sum(t.units for t in terms)
    requirement_of = {c: sol.counts.get(c) or [FREE_ELECTIVE] for c in sorted(sol.placement)}
    req_units = sum(prep.course(c).units for c in sol.placement if c in sol.counts)
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


def _consent_of(prep: Prep, code: str) -> str:
    from agents.tools.planner_prep import walk_prereq
    from agents.tools.prereq import ConsentCond

    kinds = [
        n.consent
        for n in walk_prereq(prep.course(code).prerequisites)
        if isinstance(n, ConsentCond)
    ]
    return kinds[0] if kinds else "instructor"


# --------------------------------------------------------------------------- reasons


def _input_reasons(setup: _Setup, prep: Prep) -> list[str]:
    """Contradictions in what was asked: include/avoid, fixed terms, avoided requirements."""
    out: list[str] = []
    c = setup.c
    for code in sorted(set(c.include) & set(c.avoid)):
        out.append(f"{code} is both on the include list and on the avoid list")
    term_codes = {t.code for t in prep.terms}
    for code, term in sorted(setup.fixed.items()):
        course = prep.course(code)
        if term not in term_codes:
            out.append(
                f"{code} is fixed in {term}, outside the planned terms "
                f"{prep.terms[0].code}..{prep.terms[-1].code}"
            )
        elif term in setup.away:
            out.append(f"{code} is fixed in {term}, a term the student is away")
        elif not course.offered.offered_in(Term.parse(term)):
            out.append(f"{code} is fixed in {term} but is offered {describe_offering(course)}")
        elif not prep.plannable(code):
            out.append(f"{code} is fixed in {term} but is already complete")
    for leaf in prep.leaves:
        if leaf.mandatory and leaf.kind == "course" and leaf.matching:
            code = leaf.matching[0]
            if code in prep.avoid and not prep.hist_ok(code, leaf.min_grade):
                out.append(f"{code} is required by {leaf.label} but is on the avoid list")
    return out


def _analysis_reasons(setup: _Setup, prep: Prep, end: Term) -> list[str]:
    """Chains, offerings and unit capacity checked without the solver."""
    out: list[str] = []
    end_word = "the target " + end.code if setup.target == end else end.code
    active = [i for i in range(len(prep.terms)) if prep.active[i]]
    missing = sorted(c for c in prep.must if not prep.allowed.get(c))
    if missing:
        ext_end = Term.from_index(end.index + 3 * 8)
        wide = _wide(setup, ext_end)
        analysis = wide.analyse({c.code for c in prep.catalog.courses if wide.plannable(c.code)})
        for code in missing:
            chain = wide.chain(code, analysis)
            chain = [c for c in chain if not wide.hist_ok(c, None) or c == code]
            pos = analysis.est.get(code, INF)
            course = prep.course(code)
            if len(chain) <= 1 or not prep.offered_positions(code):
                nxt = wide.terms[pos].code if pos < INF else None
                when = (
                    f"its next offering is {nxt}, after {end_word}"
                    if nxt
                    else ("it has no offering in the next terms")
                )
                if prep.offered_positions(code):
                    when = f"it cannot be taken by {end_word}"
                out.append(f"{code} is offered {describe_offering(course)}; {when}")
                continue
            if pos < INF:
                need = sum(1 for i in range(pos + 1) if wide.active[i])
                out.append(
                    f"the prerequisite chain {' -> '.join(chain)} needs {need} more terms "
                    f"({code} no earlier than {wide.terms[pos].code}) but only {len(active)} "
                    f"remain through {end_word}"
                )
            else:
                out.append(
                    f"the prerequisite chain {' -> '.join(chain)} cannot be completed: "
                    f"{chain[0]} cannot be taken"
                )
    must_units = sum(prep.course(c).units for c in prep.must)
    need = max(prep.total_needed, must_units)
    capacity = sum(prep.caps[i] for i in active)
    if need > capacity + 1e-9:
        cap = max(prep.caps) if prep.caps else 0.0
        terms_needed = math.ceil(need / cap) if cap else INF
        out.append(
            f"{need:g} remaining units need {terms_needed} terms at {cap:g} units, only "
            f"{len(active)} remain through {end_word}"
        )
    for leaf in prep.leaves:
        if not leaf.mandatory or leaf.kind != "set":
            continue
        count = len(leaf.options)
        units = sum(prep.course(c).units for c in leaf.options)
        if count < leaf.min_courses or units + 1e-9 < leaf.min_units:
            out.append(
                f"{leaf.label} cannot be met: only {count} matching courses can be taken by "
                f"{end_word}"
            )
    return out


def _wide(setup: _Setup, end: Term) -> Prep:
    terms = horizon(setup.first, end, setup.c.include_summer)
    caps = [setup.c.term_max_units.get(t.code, setup.c.max_units_per_term) for t in terms]
    return Prep(
        setup.catalog,
        setup.student,
        setup.programs,
        terms,
        setup.away,
        caps,
        [0.0] * len(terms),
        avoid=setup.c.avoid,
        fixed=setup.fixed,
    )


def _diagnose(setup: _Setup, end: Term, deadline: float) -> list[str]:
    """Relax one constraint at a time; the first relaxation that helps names the culprit."""
    c = setup.c
    probes: list[tuple[str, dict[str, object]]] = []
    if c.max_courses_per_term is not None:
        probes.append(
            (
                f"the limit of {c.max_courses_per_term} courses per term is too tight",
                {"max_courses_per_term": None},
            )
        )
    if c.min_units_per_term or c.term_min_units:
        probes.append(
            (
                "the minimum load per term cannot be met with courses whose "
                "prerequisites and offerings fit",
                {"min_units_per_term": 0.0, "term_min_units": {}},
            )
        )
    if c.fixed:
        probes.append(("the fixed course placements cannot be kept", {"fixed": {}}))
    if c.include:
        probes.append(("the included courses do not fit", {"include": []}))
    probes.append(
        (
            f"the unit cap of {c.max_units_per_term:g} per term is too low for the "
            f"remaining courses by {end.code}",
            {"max_units_per_term": c.max_units_per_term * 1.5, "term_max_units": {}},
        )
    )
    out: list[str] = []
    for text, change in probes:
        if time.perf_counter() >= deadline:
            break
        relaxed = c.model_copy(update=change)
        s2 = _Setup(setup.catalog, setup.student, [p.code for p in setup.programs], relaxed)
        prep = s2.prep(end)
        if _input_reasons(s2, prep) or _analysis_reasons(s2, prep, end):
            continue
        sol = _solve(prep, s2, min(2.0, deadline - time.perf_counter()), first_only=True)
        if sol.status in ("optimal", "feasible"):
            out.append(text)
            break
    return out
