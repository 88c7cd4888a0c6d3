"""The CP-SAT model of the multi-term planner (built from a ``planner_prep.Prep``).

Formulation (time-indexed):

- ``x[c,i]``: course ``c`` is taken in horizon position ``i`` (only offered, non-away
  positions at or after the course's earliest term); ``taken[c] = sum_i x[c,i] <= 1``.
- ``y[i]``: position ``i`` is at or before graduation; ``y`` is non-increasing and every
  ``x[c,i]`` implies ``y[i]``. Graduation = the last position with ``y = 1``.
- loads: ``sum_c units*x[c,i] <= cap_i`` and ``>= floor_i`` when ``y[i]``.
- prerequisites: ``x[c,i]`` implies the tree at ``i``: a course condition is the OR of the
  ``x[d,j]`` with ``j < i`` (``j <= i`` for corequisites); an AND inside an OR gets its own
  literal; standing/units conditions get a literal ``r[k,i] => units before i >= k``.
- requirements: ``a[p,l,c]``: course ``c`` counts toward leaf ``l`` of program ``p``; a
  course counts toward at most one leaf per program; ``a`` needs the course taken (or the
  record to satisfy the leaf's minimum grade); set leaves need ``min_courses`` and
  ``min_units`` of counted courses; all-of / n-of nodes combine child literals.
- sharing: for programs ``p, q`` with a limit ``k``, ``shared[c] >= count_p[c] +
  count_q[c] - 1`` and ``sum shared <= k``.
- total units: ``units earned + sum gain_c*taken[c] >= total``.

Objectives, lexicographic: graduation position, units planned, load spread (max - min over
active regular terms), interests, then earliness (sum of ``i*x[c,i]``) as explicit
tie-break. Solved either by sequential solves (each fixes the previous optimum and is hinted
with the previous solution) or by one weighted objective with dominating weights.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Literal

import structlog
from ortools.sat.python import cp_model

from agents.tools.planner_prep import Prep, ReqTree
from agents.tools.prereq import (
    AllOf,
    AnyOf,
    ConsentCond,
    CourseCond,
    PrereqNode,
    ProgramCond,
    StandingCond,
    UnitsCond,
)

log = structlog.get_logger(__name__)

Strategy = Literal["sequential", "weighted"]
SolveStatus = Literal["optimal", "feasible", "infeasible", "unknown"]
SEED = 20260901
WORKERS = 1
SECONDARY_DTIME = 0.05
_SCALES = (1, 2, 4, 10, 20, 100)


@dataclass
class Solution:
    """A solved plan: positions of planned courses and what each course counts toward."""

    status: SolveStatus
    placement: dict[str, int] = field(default_factory=dict)
    counts: dict[str, list[str]] = field(default_factory=dict)
    graduation: int = -1
    solves: int = 0


def _weighted(parts: list[tuple[cp_model.LinearExprT, int]]) -> cp_model.LinearExprT:
    """``parts`` in priority order, each (expression >= 0, its upper bound): one objective
    whose weights make every part dominate all later ones."""
    weight = 1
    expr: cp_model.LinearExprT = 0
    for e, ub in reversed(parts):
        expr = expr + weight * e
        weight *= ub + 1
    return expr


def _scale(values: list[float]) -> int:
    for s in _SCALES:
        if all(abs(v * s - round(v * s)) < 1e-6 for v in values):
            return s
    return 100


class PlanModel:
    """Build once, then ``solve`` with a strategy."""

    def __init__(self, prep: Prep, *, max_courses: int | None = None) -> None:
        self.prep = prep
        self.m = cp_model.CpModel()
        self.n = len(prep.terms)
        units = [prep.course(c).units for c in prep.pool]
        self.s = _scale(units or [1.0])
        self.u = {c: round(prep.course(c).units * self.s) for c in prep.pool}
        self.g = {c: round(prep.gain(c) * self.s) for c in prep.pool}
        self.x: dict[str, dict[int, cp_model.IntVar]] = {}
        self.taken: dict[str, cp_model.IntVar] = {}
        self.y = [self.m.new_bool_var(f"y{i}") for i in range(self.n)]
        self._reach: dict[tuple[int, int], cp_model.IntVar] = {}
        self._and: dict[tuple[int, int, bool], cp_model.IntVar] = {}
        self.a: dict[tuple[str, str], list[tuple[str, cp_model.IntVar]]] = {}
        self.max_courses = max_courses
        self.feasible_alone = True
        self.solves = 0
        self.graduation_fixed: int | None = None
        self._build()

    # ------------------------------------------------------------------ building

    def _build(self) -> None:
        p, m = self.prep, self.m
        for c in p.pool:
            pos = p.allowed.get(c, [])
            if not pos:
                if c in p.must:
                    self.feasible_alone = False
                continue
            self.x[c] = {i: m.new_bool_var(f"x[{c},{i}]") for i in pos}
            t = m.new_bool_var(f"t[{c}]")
            m.add(t == sum(self.x[c].values()))
            self.taken[c] = t
            if c in p.must:
                m.add(t == 1)
            for i, v in self.x[c].items():
                m.add_implication(v, self.y[i])
        for i in range(self.n - 1):
            m.add_implication(self.y[i + 1], self.y[i])
        # Every required course is at or after its earliest term: graduation cannot be sooner.
        lower = max((p.analysis.est.get(c, 0) for c in p.must if c in self.x), default=-1)
        for i in range(min(lower + 1, self.n)):
            m.add(self.y[i] == 1)
        self._loads()
        self._antirequisites()
        for c, xs in self.x.items():
            course = p.course(c)
            for i, v in xs.items():
                self._post(v, course.prerequisites, i, True)
                self._post(v, course.corequisites, i, False)
        self._requirements()
        if p.total_needed > 0:
            need = round(p.total_needed * self.s + 0.4999)
            m.add(sum(self.g[c] * t for c, t in self.taken.items()) >= need)

    def _loads(self) -> None:
        p, m = self.prep, self.m
        self.load: list[cp_model.LinearExprT] = []
        for i in range(self.n):
            terms = [(c, xs[i]) for c, xs in self.x.items() if i in xs]
            load = sum(self.u[c] * v for c, v in terms)
            self.load.append(load)
            if not terms:
                continue
            # cap * y (not just cap) gives the LP the bound "terms >= units / cap".
            m.add(load <= int(p.caps[i] * self.s + 1e-6) * self.y[i])
            floor = round(p.floors[i] * self.s + 0.4999)
            if floor > 0 and p.active[i]:
                m.add(load >= floor).only_enforce_if(self.y[i])
            if self.max_courses is not None:
                m.add(sum(v for _, v in terms) <= self.max_courses)
        for i in range(self.n):
            floor = round(p.floors[i] * self.s + 0.4999)
            if floor > 0 and p.active[i] and not any(i in xs for xs in self.x.values()):
                m.add(self.y[i] == 0)

    def _antirequisites(self) -> None:
        done: set[tuple[str, str]] = set()
        for c in sorted(self.taken):
            for d in sorted(self.prep.antireqs(c)):
                if d in self.taken and (d, c) not in done:
                    done.add((c, d))
                    self.m.add(self.taken[c] + self.taken[d] <= 1)

    def _post(self, lit: cp_model.IntVar, node: PrereqNode | None, i: int, strict: bool) -> None:
        if node is None:
            return
        if isinstance(node, AllOf):
            for ch in node.all:
                self._post(lit, ch, i, strict)
            return
        lits = self._or(node, i, strict)
        if lits is None:
            return
        if not lits:
            self.m.add(lit == 0)
        else:
            self.m.add_bool_or([lit.Not(), *lits])

    def _or(self, node: PrereqNode, i: int, strict: bool) -> list[cp_model.IntVar] | None:
        """Literals whose OR is the condition at position ``i``; None means always true."""
        p = self.prep
        if isinstance(node, CourseCond):
            if p.hist_ok(node.course, node.min_grade):
                return None
            xs = self.x.get(node.course, {})
            return [v for j, v in xs.items() if j < i or (not strict and j == i)]
        if isinstance(node, AnyOf):
            out: list[cp_model.IntVar] = []
            for ch in node.any:
                sub = self._or(ch, i, strict)
                if sub is None:
                    return None
                out.extend(sub)
            return out
        if isinstance(node, AllOf):
            key = (id(node), i, strict)
            if key not in self._and:
                v = self.m.new_bool_var(f"and{len(self._and)}")
                self._and[key] = v
                self._post(v, node, i, strict)
            return [self._and[key]]
        if isinstance(node, StandingCond | UnitsCond):
            thr = p.threshold(node)
            if p.history.units_earned >= thr:
                return None
            return [self._reach_lit(thr, i)]
        if isinstance(node, ProgramCond):
            return None if node.program in p.program_codes else []
        assert isinstance(node, ConsentCond)
        return None

    def _reach_lit(self, thr: float, i: int) -> cp_model.IntVar:
        need = round((thr - self.prep.history.units_earned) * self.s + 0.4999)
        key = (need, i)
        if key not in self._reach:
            v = self.m.new_bool_var(f"reach{need}@{i}")
            before = sum(self.g[c] * x for c, xs in self.x.items() for j, x in xs.items() if j < i)
            self.m.add(before >= need).only_enforce_if(v)
            self._reach[key] = v
        return self._reach[key]

    def _requirements(self) -> None:
        p, m = self.prep, self.m
        per_course: dict[tuple[str, str], list[cp_model.IntVar]] = {}
        for leaf in p.leaves:
            opts: list[tuple[str, cp_model.IntVar]] = []
            for c in leaf.options:
                v = m.new_bool_var(f"a[{leaf.label},{c}]")
                if not p.hist_ok(c, leaf.min_grade):
                    if c not in self.taken:
                        continue
                    m.add_implication(v, self.taken[c])
                opts.append((c, v))
                per_course.setdefault((leaf.program, c), []).append(v)
            self.a[(leaf.program, leaf.id)] = opts
        for vs in per_course.values():
            if len(vs) > 1:
                m.add_at_most_one(vs)
        for prog, tree in p.trees.items():
            self._tree(prog, tree, None)
        for p1, p2, k in p.sharing:
            shared = []
            for c in sorted({c for (pr, c) in per_course if pr == p1}):
                if (p2, c) not in per_course:
                    continue
                s = m.new_bool_var(f"share[{p1},{p2},{c}]")
                m.add(s >= sum(per_course[(p1, c)]) + sum(per_course[(p2, c)]) - 1)
                shared.append(s)
            if shared:
                m.add(sum(shared) <= k)

    def _tree(self, prog: str, node: ReqTree, enf: cp_model.IntVar | None) -> None:
        m = self.m
        if node.kind == "all":
            for ch in node.children:
                self._tree(prog, ch, enf)
            return
        if node.kind == "n_of":
            kids = []
            for ch in node.children:
                v = m.new_bool_var(f"sat[{prog}/{ch.id}]")
                self._tree(prog, ch, v)
                kids.append(v)
            ct = m.add(sum(kids) >= node.n)
            if enf is not None:
                ct.only_enforce_if(enf)
            return
        leaf = node.leaf
        assert leaf is not None
        opts = self.a[(prog, leaf.id)]
        cts = []
        if leaf.kind == "course" or leaf.min_courses:
            need = 1 if leaf.kind == "course" else leaf.min_courses
            cts.append(m.add(sum(v for _, v in opts) >= need))
        if leaf.min_units:
            units = round(leaf.min_units * self.s + 0.4999)
            cts.append(m.add(sum(self._leaf_units(c) * v for c, v in opts) >= units))
        if enf is not None:
            for ct in cts:
                ct.only_enforce_if(enf)

    def _leaf_units(self, code: str) -> int:
        return round(self.prep.course(code).units * self.s)

    # ------------------------------------------------------------------ objectives

    def _terms(self) -> cp_model.LinearExprT:
        return sum(self.y)

    def _units(self) -> cp_model.LinearExprT:
        return sum(self.u[c] * t for c, t in self.taken.items())

    def _fix_graduation(self, terms: int) -> None:
        for i, v in enumerate(self.y):
            self.m.add(v == int(i < terms))
        self.graduation_fixed = terms

    def _secondary(self, terms: int) -> cp_model.LinearExprT:
        """Spread, then interests, then earliness, as one objective with dominating weights.

        With the graduation term fixed the spread is ``max - min`` load over the active
        fall/spring terms up to graduation; no big-M is needed.
        """
        p, m = self.prep, self.m
        cap = int(max(p.caps or [0]) * self.s) + 1
        hi = m.new_int_var(0, cap, "load_max")
        lo = m.new_int_var(0, cap, "load_min")
        m.add(lo <= hi)
        for i in range(terms):
            m.add(hi >= self.load[i])
            if p.active[i] and p.terms[i].season != "summer":
                m.add(lo <= self.load[i])
        parts: list[tuple[cp_model.LinearExprT, int]] = [(hi - lo, cap)]
        interest = {c: round(100 * p.interests.get(c, 0.0)) for c in self.taken}
        if any(interest.values()):
            pos = sum(v for v in interest.values() if v > 0)
            neg = sum(-v for v in interest.values() if v < 0)
            expr = pos - sum(w * self.taken[c] for c, w in interest.items() if w)
            parts.append((expr, pos + neg))
        early = [(i, v) for xs in self.x.values() for i, v in xs.items() if i < terms]
        parts.append((sum(i * v for i, v in early), sum(i for i, _ in early)))
        return _weighted(parts)

    def _solver(self, seconds: float, dtime: float | None = None) -> cp_model.CpSolver:
        solver = cp_model.CpSolver()
        solver.parameters.num_workers = WORKERS
        solver.parameters.random_seed = SEED
        solver.parameters.linearization_level = 2
        solver.parameters.max_time_in_seconds = max(0.01, seconds)
        if dtime is not None:
            solver.parameters.max_deterministic_time = dtime
        return solver

    def _run(
        self, expr: cp_model.LinearExprT, deadline: float, dtime: float | None = None
    ) -> tuple[int, cp_model.CpSolver]:
        self.m.minimize(expr)
        solver = self._solver(deadline - time.perf_counter(), dtime)
        code = solver.solve(self.m)
        self.solves += 1
        log.debug(
            "planner.solve",
            code=solver.status_name(code),
            value=solver.objective_value if code in (cp_model.OPTIMAL, cp_model.FEASIBLE) else None,
            ms=round(solver.wall_time * 1000, 1),
            conflicts=solver.num_conflicts,
        )
        return code, solver

    def _hint(self, solver: cp_model.CpSolver) -> None:
        self.m.clear_hints()
        for xs in self.x.values():
            for v in xs.values():
                self.m.add_hint(v, solver.boolean_value(v))

    def solve(
        self, time_limit_s: float, strategy: Strategy = "sequential", *, first_only: bool = False
    ) -> Solution:
        """Solve lexicographically.

        Graduation term and planned units are proved optimal (``strategy`` says how: two
        sequential solves, or one with weights ``units_max + 1 : 1``). Spread, interests
        and earliness are then improved within a deterministic budget (``SECONDARY_DTIME``),
        so the answer does not depend on the machine's speed. ``first_only`` stops after
        the graduation term.
        """
        if not self.feasible_alone:
            return Solution("infeasible")
        deadline = time.perf_counter() + time_limit_s
        status: SolveStatus = "optimal"
        terms_e, units_e = self._terms(), self._units()
        if strategy == "weighted" and not first_only:
            code, solver = self._run(
                _weighted([(terms_e, self.n), (units_e, self._umax())]), deadline
            )
        else:
            code, solver = self._run(terms_e, deadline)
        if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            return Solution(
                "infeasible" if code == cp_model.INFEASIBLE else "unknown", solves=self.solves
            )
        status = "optimal" if code == cp_model.OPTIMAL else "feasible"
        terms = sum(int(solver.boolean_value(v)) for v in self.y)
        sol = self._extract(solver)
        if first_only:
            sol.status = status
            return sol
        self._fix_graduation(terms)
        self._hint(solver)
        if strategy == "sequential":
            code, solver = self._run(units_e, deadline)
            if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                sol.status = "feasible"
                return sol
            if code != cp_model.OPTIMAL:
                status = "feasible"
            sol = self._extract(solver)
        self.m.add(units_e <= solver.value(units_e))
        self._hint(solver)
        code, solver = self._run(self._secondary(terms), deadline, SECONDARY_DTIME)
        if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            sol = self._extract(solver)
        sol.status = status
        sol.solves = self.solves
        return sol

    def _umax(self) -> int:
        return sum(self.u.values())

    def _extract(self, solver: cp_model.CpSolver) -> Solution:
        placement = {
            c: i for c, xs in self.x.items() for i, v in xs.items() if solver.boolean_value(v)
        }
        counts: dict[str, list[str]] = {}
        for (prog, leaf_id), opts in self.a.items():
            for c, v in opts:
                if c in placement and solver.boolean_value(v):
                    counts.setdefault(c, []).append(f"{prog}/{leaf_id}")
        grad = max(placement.values(), default=-1)
        return Solution("feasible", placement, {c: sorted(v) for c, v in counts.items()}, grad)
