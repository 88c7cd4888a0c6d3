"""The CP-SAT planner on generated catalogs: every returned plan passes the independent
verifier, and on tiny instances the optimum and infeasibility agree with a brute-force
enumeration (with an exhaustive requirements search)."""

from __future__ import annotations

import itertools
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings

from agents.catalog import AllOf, AnyOf, CourseCond, PrereqNode, Term, UnitsCond
from agents.planner import PlannedTerm, PlanResult, plan
from agents.planner.fillers import behind_record
from agents.planner.setup import PlanSetup
from agents.verifier import verify_plan
from tests.planner_helpers import whole
from tests.planner_strategies import Instance, instances

pytestmark = pytest.mark.slow  # pytest -m 'not slow' leaves it out of the fast loop


def _holds(node: PrereqNode | None, done: set[str], units: float) -> bool:
    if node is None:
        return True
    if isinstance(node, CourseCond):
        return node.course in done
    if isinstance(node, AllOf):
        return all(_holds(c, done, units) for c in node.all)
    if isinstance(node, AnyOf):
        return any(_holds(c, done, units) for c in node.any)
    if isinstance(node, UnitsCond):
        return units >= node.units_completed
    return True


def exact_requirements(inst: Instance, planned: set[str]) -> bool:
    """Whether some allocation of record + planned courses meets every program: a course
    counts toward one leaf per program, sharing limits hold (exhaustive search)."""
    cat, rec = inst.catalog, inst.student
    progs = [cat.program(p) for p in inst.programs]

    def usable(code: str, grade: str | None) -> bool:
        if code in planned:
            return True
        return any(
            a.status == "in_progress"
            or (cat.grade_meets(a.grade, grade) and (grade is None or not a.pass_fail))
            for a in rec.attempts_of(code)
        )

    def limit(a: Any, b: Any) -> int | None:
        found = [
            lim.max_courses
            for x, y in ((a, b), (b, a))
            for lim in x.sharing
            if lim.with_program in (None, y.code) and lim.with_kind in (None, y.kind)
        ]
        return min(found) if found else None

    def options(node: Any, used: frozenset[str]) -> list[frozenset[str]]:
        """Every minimal set of extra courses that meets ``node`` (none: impossible)."""
        kind = node.kind
        if kind == "course":
            ok = usable(node.course, node.min_grade) and node.course not in used
            return [frozenset({node.course})] if ok else []
        if kind == "course_set":
            pool = [
                c.code
                for c in cat.courses
                if node.matches(c) and c.code not in used and usable(c.code, node.min_grade)
            ]
            out = []
            for k in range(len(pool) + 1):
                for combo in itertools.combinations(pool, k):
                    units = sum(cat.course(c).units for c in combo)
                    if k >= (node.min_courses or 0) and units >= (node.min_units or 0):
                        out.append(frozenset(combo))
            return out
        groups = (
            [node.children]
            if kind == "all_of"
            else [list(g) for g in itertools.combinations(node.children, node.n)]
        )
        out = []
        for group in groups:
            partial = [frozenset()]
            for child in group:
                partial = [p | o for p in partial for o in options(child, used | p) if not o & p]
            out.extend(partial)
        return out

    def search(i: int, chosen: list[frozenset[str]]) -> bool:
        if i == len(progs):
            return True
        for alloc in options(progs[i].requirement, frozenset()):
            if all(
                (lim := limit(progs[i], progs[j])) is None or len(alloc & chosen[j]) <= lim
                for j in range(i)
            ) and search(i + 1, [*chosen, alloc]):
                return True
        return False

    total = max((p.total_units or 0.0) for p in progs)
    have = rec.units_earned(cat, include_in_progress=True)
    new = sum(cat.course(c).units for c in planned)
    return have + new >= total - 1e-9 and search(0, [])


def brute_force(inst: Instance) -> tuple[int, float] | None:
    """(graduation position, units) of the best plan the verifier accepts, by enumeration
    (course sets that ``exact_requirements`` rejects are skipped: the audit cannot accept
    them either)."""
    cat, rec, progs, c = inst.catalog, inst.student, inst.programs, inst.constraints
    first = Term.parse(rec.current_term).next_regular()
    horizon = [first]
    while horizon[-1] < Term.parse(c.latest_term or ""):
        horizon.append(horizon[-1].next_regular())
    away = set(rec.terms_away)
    codes = [x.code for x in cat.courses]
    subsets = []
    for k in range(len(codes) + 1):
        for combo in itertools.combinations(codes, k):
            if exact_requirements(inst, set(combo)):
                subsets.append((sum(cat.course(x).units for x in combo), combo))
    subsets.sort()
    history = {a.course for a in rec.courses if a.status == "in_progress"} | {
        a.course for a in rec.courses if cat.grade_meets(a.grade, None)
    }
    for grad in range(-1, len(horizon)):
        for units, combo in subsets:
            if grad == -1 and combo:
                continue
            slots = [i for i in range(grad + 1) if horizon[i].code not in away]
            for where in itertools.product(slots, repeat=len(combo)):
                if combo and max(where) != grad:
                    continue
                rows = [
                    [x for x, i in zip(combo, where, strict=True) if i == t]
                    for t in range(grad + 1)
                ]
                if not _quick_ok(inst, horizon, rows, history):
                    continue
                result = PlanResult(
                    status="feasible",
                    terms=[
                        PlannedTerm(
                            term=horizon[t].code,
                            courses=sorted(rows[t]),
                            units=sum(cat.course(x).units for x in rows[t]),
                        )
                        for t in range(grad + 1)
                    ],
                    graduation_term=horizon[grad].code if grad >= 0 else rec.current_term,
                    units_planned=units,
                    extra_units=0.0,
                    reasons=[],
                    earliest_feasible_term=None,
                    requirement_of={},
                    solve_ms=0.0,
                )
                if not verify_plan(cat, rec, progs, c, result):
                    return grad, units
    return None


def _quick_ok(
    inst: Instance, horizon: list[Term], rows: list[list[str]], history: set[str]
) -> bool:
    """Cheap necessary checks before the (slower) verifier: offerings, loads, prerequisites."""
    cat, c = inst.catalog, inst.constraints
    done = set(history)
    units = inst.student.units_earned(cat, include_in_progress=True)
    for t, row in enumerate(rows):
        load = sum(cat.course(x).units for x in row)
        away = horizon[t].code in inst.student.terms_away
        if load > c.max_units_per_term or (load < c.min_units_per_term and not away):
            return False
        if c.max_courses_per_term is not None and len(row) > c.max_courses_per_term:
            return False
        for x in row:
            if not cat.course(x).offered.offered_in(horizon[t]):
                return False
            if not _holds(cat.course(x).prerequisites, done, units):
                return False
        done |= set(row)
        units += load
    return True


def _position(result: PlanResult, inst: Instance) -> int:
    if not result.terms:
        return -1
    first = Term.parse(inst.student.current_term).next_regular()
    return sum(1 for t in result.terms) - 1 if result.terms[0].term == first.code else -2


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(max_courses=6, max_terms=4))
def test_tiny_instances_agree_with_brute_force(inst: Instance) -> None:
    # The enumeration takes any course as a free elective; the planner never adds one the
    # record is past (a prerequisite of a passed course: ``fillers.behind_record``) unless
    # a requirement or another course needs it. Such records are left to the other tests.
    setup = PlanSetup(inst.catalog, inst.student, inst.programs, inst.constraints)
    assume(not behind_record(setup.prep(setup.latest)))
    result = plan(inst.catalog, inst.student, inst.programs, inst.constraints)
    # Where the degree audit's greedy allocation rejects every plan that meets the rules,
    # the planner returns the plan with a note instead; that case is not comparable.
    assume(not any("degree audit" in n for n in result.notes))
    best = brute_force(inst)
    if best is None:
        assert result.status == "infeasible", whole(result)
    else:
        assert result.status == "optimal", whole(result)
        assert (_position(result, inst), result.units_planned) == best, whole(result)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(instances(max_courses=8, max_terms=4))
def test_every_returned_plan_passes_the_verifier(inst: Instance) -> None:
    result = plan(inst.catalog, inst.student, inst.programs, inst.constraints)
    if result.status != "infeasible":
        defects = verify_plan(inst.catalog, inst.student, inst.programs, inst.constraints, result)
        # The audit allocates greedily; where it disagrees with the plan's allocation the
        # planner says so in a note (and the plan is still valid by the catalog's rules).
        flagged = {n.split(" unmet")[0].rsplit(" ", 1)[-1] for n in result.notes}
        left = [
            d for d in defects if d.kind != "requirement" or d.message.split(":")[0] not in flagged
        ]
        assert left == [], (whole(result), defects)
        if defects:
            assert exact_requirements(inst, {c for t in result.terms for c in t.courses})
