"""The time-indexed CP-SAT model of the planner.

Formulation:

- ``x[c,i]``: course ``c`` is taken in horizon position ``i`` (only offered, non-away
  positions at or after the course's earliest term); ``taken[c] = sum_i x[c,i] <= 1``.
- ``y[i]``: position ``i`` is at or before graduation; ``y`` is non-increasing, every
  ``x[c,i]`` implies ``y[i]``; graduation = the last position with ``y = 1``.
- loads: ``sum_c units*x[c,i] <= cap_i * y[i]`` (the ``y`` factor lets the LP see
  "terms >= units / cap") and ``>= floor_i`` when ``y[i]``; optional course count limit.
- caps by class standing: where a term's cap depends on the standing at its start,
  ``load <= cap(first year) + sum of the steps up to the standing reached``, each step's
  literal equivalent to ``units before i >= threshold``.
- prerequisites: ``x[c,i]`` implies the tree at ``i``: a course condition is the OR of the
  ``x[d,j]`` with ``j < i`` (``j <= i`` for corequisites and ``concurrent(d)``); an AND
  inside an OR gets its own literal; standing/units conditions get ``r[k,i] => units before
  i >= k``; ``restricted_to`` holds where the units before give one of its standings (step
  literals above); a consent condition is the course's literal ``k[c]`` ("someone must
  sign"), free but minimized by the balance stage.
- overload (only with standard loads below the caps): ``e[i] >= load - standard load``
  and ``o[i]`` true when ``e[i] > 0``.
- requirements, sharing, unit total, anti-requisites: ``agents.planner.select.encode_*``.
- interchangeable courses (same units, terms, prerequisites, leaves - and caps, minimums
  and subject where a leaf has them; nobody's prerequisite; both fillers or neither,
  ``agents.planner.fillers``) are ordered, so the solver does not permute identical free
  electives.
- no-good cuts (only for alternatives): an earlier plan's course set or placement is
  not repeated (``agents.planner.cuts``).
- audit order (leaves the audit repair flagged): courses counted there come first.

How the models are searched is in ``agents.planner.search``, the objectives of the later
stages in ``agents.planner.goals``, the staged solve that uses them in ``agents.planner.solve``.
"""

from __future__ import annotations

import itertools

from ortools.sat.python import cp_model

from agents.catalog import (
    AllOf,
    AnyOf,
    ConsentCond,
    CourseCond,
    FactCond,
    PrereqNode,
    StandingCond,
    UnitsCond,
    credit_sub,
)
from agents.planner.cpsat import Model, catalog_steps
from agents.planner.cuts import cut_courses, post_placement_cuts, post_set_cuts
from agents.planner.fillers import filler
from agents.planner.prep import Prep
from agents.planner.select import encode_requirements, encode_total_and_antirequisites
from agents.planner.sessions import encode_sessions


class PlanModel:
    """Terms for ``courses`` (all fixed as taken), or for the whole pool with requirements."""

    def __init__(
        self,
        prep: Prep,
        *,
        max_courses: int | None = None,
        courses: list[str] | None = None,
        counts: dict[str, list[str]] | None = None,
    ) -> None:
        self.prep = prep
        self.m = Model()
        self.n = len(prep.terms)
        self.s = catalog_steps(prep.catalog)  # units as whole steps of the credit system
        self.u = {c: self.s.count(prep.course(c).units) for c in prep.pool}
        self.g = {c: self.s.count(prep.gain(c)) for c in prep.pool}
        self.fixed_set = courses is not None
        self.courses = sorted(courses) if courses is not None else list(prep.pool)
        self.x: dict[str, dict[int, cp_model.IntVar]] = {}
        self.taken: dict[str, cp_model.IntVar] = {}
        self.y = [self.m.new_bool_var(f"y{i}") for i in range(self.n)]
        self._reach: dict[tuple[int, int], cp_model.IntVar] = {}
        self._standing: dict[tuple[int, int], cp_model.IntVar] = {}
        self._before: dict[int, cp_model.LinearExprT] = {}
        self.k: dict[str, cp_model.IntVar] = {}  # consent used, per course
        self._course = ""
        self._and: dict[tuple[int, int, bool], cp_model.IntVar] = {}
        self.a: dict[tuple[str, str], list[tuple[str, cp_model.IntVar]]] = {}
        self.max_courses = max_courses
        self.set_counts = counts or {}
        self.possible = True
        self._build()

    def _build(self) -> None:
        p, m = self.prep, self.m
        for c in self.courses:
            pos = p.allowed.get(c, [])
            if not pos:
                if c in p.must or self.fixed_set:
                    self.possible = False
                continue
            self.x[c] = {i: m.new_bool_var(f"x[{c},{i}]") for i in pos}
            t = m.new_bool_var(f"t[{c}]")
            m.add(t == sum(self.x[c].values()))
            self.taken[c] = t
            if c in p.must or self.fixed_set:
                m.add(t == 1)
            for i, v in self.x[c].items():
                m.add_implication(v, self.y[i])
        for i, term in enumerate(p.terms):
            for a, b in p.exclusive.get(term.code, []):
                if i in self.x.get(a, {}) and i in self.x.get(b, {}):
                    m.add(self.x[a][i] + self.x[b][i] <= 1)
        for i in range(self.n - 1):
            m.add_implication(self.y[i + 1], self.y[i])
        for i in range(min(self.chain_bound(), self.n)):
            m.add(self.y[i] == 1)
        self._loads()
        encode_sessions(m, p, self.x, self.u, self.s)  # caps of sessions within terms
        for c, xs in self.x.items():
            course = p.course(c)
            self._course = c
            if c in p.forced:
                continue  # forced by the student: placed without its prerequisite checks
            for i, v in xs.items():
                self._post(v, course.prerequisites, i, True)
                self._post(v, course.corequisites, i, False)
                if course.restricted_to and not p.open_at(c, i):
                    self._restricted(v, c, i)
        if not self.fixed_set:
            self.a = encode_requirements(m, p, self.taken, self.s)
            encode_total_and_antirequisites(m, p, self.taken, self.g, self.s)
            self._symmetry()
        post_set_cuts(m, p, self.taken)  # alternatives only (``agents.planner.cuts``)
        post_placement_cuts(m, p, self.x)
        self._audit_order()

    def pos(self, code: str) -> cp_model.LinearExprT:
        return sum(i * v for i, v in self.x[code].items())

    def _audit_order(self) -> None:
        """For the leaves in ``prep.orders``: the planned courses counted there come before
        the other planned courses it matches, in the audit's order (term, then code), so
        the audit's greedy fill takes them first and leaves the others to later programs."""
        p, m = self.prep, self.m
        for prog, leaf_id in sorted(p.orders):
            leaf = p.leaf(prog, leaf_id)
            label = f"{prog}/{leaf_id}"
            cands = [c for c in leaf.matching if c in self.x]
            for c1, c2 in itertools.permutations(cands, 2):
                if p.demand(prog, c1) != p.demand(prog, c2):
                    continue
                gap = 0 if c1 < c2 else 1
                if self.fixed_set:
                    if label in self.set_counts.get(c1, []) and label not in self.set_counts.get(
                        c2, []
                    ):
                        m.add(self.pos(c1) + gap <= self.pos(c2))
                    continue
                a = dict(self.a.get((prog, leaf_id), []))
                if c1 in a and c2 in a:
                    m.add(self.pos(c1) + gap <= self.pos(c2)).only_enforce_if(
                        [a[c1], self.taken[c2], a[c2].Not()]
                    )

    def chain_bound(self) -> int:
        """Terms needed at least: every required course sits at or after its earliest term."""
        musts = self.courses if self.fixed_set else sorted(self.prep.must)
        return 1 + max((self.prep.analysis.est.get(c, 0) for c in musts if c in self.x), default=-1)

    def _symmetry(self) -> None:
        """Order interchangeable courses: same units, terms, prerequisites and leaves, and
        nobody's prerequisite. Without this the solver permutes identical free electives."""
        p, m = self.prep, self.m
        referenced = p.named_in_pool()
        leaves_of: dict[str, list[str]] = {}
        for leaf in p.leaves:
            for c in leaf.options:
                # Under a cap, a subject minimum or a minimum, which ones also matter.
                leaves_of.setdefault(c, []).append(leaf.label + leaf.how(p.course(c)))
        groups: dict[tuple[object, ...], list[str]] = {}
        named = cut_courses(p)
        for c in sorted(self.x):
            course = p.course(c)
            if (
                c in p.must
                or c in named
                or c in referenced
                or c in p.history.passed
                or course.antirequisites
                or p.antireqs(c)
                or c in p.interests
            ):
                continue
            key = (
                self.u[c],
                self.g[c],
                tuple(sorted(self.x[c])),
                repr(course.prerequisites),
                repr(course.corequisites),
                tuple(sorted(leaves_of.get(c, []))),
                filler(p, c),  # an internship is not a regular elective's stand-in
            )
            groups.setdefault(key, []).append(c)
        for members in groups.values():
            for a, b in itertools.pairwise(members):
                m.add(self.taken[a] >= self.taken[b])
                pos_a = sum(i * v for i, v in self.x[a].items())
                pos_b = sum(i * v for i, v in self.x[b].items())
                m.add(pos_a <= pos_b).only_enforce_if(self.taken[b])

    def _loads(self) -> None:
        p, m = self.prep, self.m
        self.load: list[cp_model.LinearExprT] = []
        for i in range(self.n):
            terms = [(c, xs[i]) for c, xs in self.x.items() if i in xs]
            load = sum(self.u[c] * v for c, v in terms)
            self.load.append(load)
            fewest = p.min_courses.get(i, 0)
            if fewest and p.active[i]:
                # So many courses wanted in the term (a next-term request's count).
                m.add(sum(v for _, v in terms) >= fewest)
            if not terms:
                continue
            # cap * y (not just cap) gives the LP the bound "terms >= units / cap".
            m.add(load <= self.s.floor(p.caps[i]) * self.y[i])
            row = p.standing_caps[i]
            if row is not None:
                m.add(load <= self.by_standing(row, i))
            floor = self.s.ceil(p.floors[i])
            if floor > 0 and p.active[i]:
                m.add(load >= floor).only_enforce_if(self.y[i])
            most = [n for n in (self.max_courses, p.max_courses.get(i)) if n is not None]
            if most:
                m.add(sum(v for _, v in terms) <= min(most))
        for i in range(self.n):
            floor = self.s.ceil(p.floors[i])
            if floor > 0 and p.active[i] and not any(i in xs for xs in self.x.values()):
                m.add(self.y[i] == 0)

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
            same = not strict or node.concurrent  # "X, which may be taken concurrently"
            return [v for j, v in xs.items() if j < i or (same and j == i)]
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
        if isinstance(node, FactCond):
            return None if p.fact(node) else []
        assert isinstance(node, ConsentCond)
        if self._course not in self.k:
            self.k[self._course] = self.m.new_bool_var(f"k[{self._course}]")
        return [self.k[self._course]]

    def _need(self, thr: float) -> int:
        """Scaled units still to earn for ``thr`` units completed."""
        return self.s.ceil(credit_sub(thr, self.prep.history.units_earned))

    def _units_before(self, i: int) -> cp_model.LinearExprT:
        if i not in self._before:
            self._before[i] = sum(
                self.g[c] * x for c, xs in self.x.items() for j, x in xs.items() if j < i
            )
        return self._before[i]

    def _reach_lit(self, thr: float, i: int) -> cp_model.IntVar:
        need = self._need(thr)
        key = (need, i)
        if key not in self._reach:
            v = self.m.new_bool_var(f"reach{need}@{i}")
            self.m.add(self._units_before(i) >= need).only_enforce_if(v)
            self._reach[key] = v
        return self._reach[key]

    def _standing_lit(self, index: int, i: int) -> cp_model.IntVar:
        """True exactly when the student starts position ``i`` at ``STANDINGS[index]`` or
        above (both directions: a cap may fall as well as rise with the standing)."""
        need = self._need(self.prep.standing_threshold(index))
        key = (need, i)
        if key not in self._standing:
            v = self.m.new_bool_var(f"standing{index}@{i}")
            before = self._units_before(i)
            self.m.add(before >= need).only_enforce_if(v)
            self.m.add(before <= need - 1).only_enforce_if(v.Not())
            self._standing[key] = v
        return self._standing[key]

    def _restricted(self, lit: cp_model.IntVar, code: str, i: int) -> None:
        """``lit`` only at a standing open to ``code``: rules out "reached k, not k + 1"."""
        lo, hi = self.prep.standings[i]
        open_ = set(self.prep.open_standings(code, i))
        for k in range(lo, hi + 1):
            if k in open_:
                continue
            clause = [lit.Not()]
            if k > lo:
                clause.append(self._standing_lit(k, i).Not())
            if k < hi:
                clause.append(self._standing_lit(k + 1, i))
            self.m.add_bool_or(clause)

    def by_standing(self, row: tuple[float, ...], i: int) -> cp_model.LinearExpr:
        """The value of ``row`` (one per standing) for the standing at the start of ``i``,
        scaled: the lowest reachable standing's, plus a step at each higher one."""
        lo, hi = self.prep.standings[i]
        scaled = [self.s.floor(v) for v in row]
        steps = [k for k in range(lo + 1, hi + 1) if scaled[k] != scaled[k - 1]]
        return cp_model.LinearExpr.weighted_sum(
            [self._standing_lit(k, i) for k in steps], [scaled[k] - scaled[k - 1] for k in steps]
        ) + int(scaled[lo])

    # ------------------------------------------------------------------ objectives

    def terms_expr(self) -> cp_model.LinearExpr:
        return cp_model.LinearExpr.sum(self.y)

    def units_expr(self) -> cp_model.LinearExprT:
        return sum(self.u[c] * t for c, t in self.taken.items())

    def units_max(self) -> int:
        return sum(self.u[c] for c in self.taken)

    def fix_terms(self, terms: int) -> None:
        for i, v in enumerate(self.y):
            self.m.add(v == int(i < terms))

    def standing_at(self, placement: dict[str, int], i: int) -> int:
        """Index (into STANDINGS) of the standing at the start of ``i`` under ``placement``,
        counted as the model counts it."""
        before = sum(self.g[c] for c, j in placement.items() if j < i)
        lo, hi = self.prep.standings[i]
        reached = [
            k
            for k in range(lo + 1, hi + 1)
            if before >= self._need(self.prep.standing_threshold(k))
        ]
        return max(reached, default=lo)

    def consent(self) -> cp_model.LinearExpr:
        """Planned courses taken on someone's consent (their prerequisites unmet otherwise)."""
        return cp_model.LinearExpr.sum(list(self.k.values()))

    def hint(self, placement: dict[str, int]) -> None:
        self.m.clear_hints()
        for c, xs in self.x.items():
            for i, v in xs.items():
                self.m.add_hint(v, placement.get(c) == i)
        for v in self.k.values():
            self.m.add_hint(v, 1)  # signing for every consent course always satisfies them

    def extract(self, solver: cp_model.CpSolver) -> dict[str, int]:
        return {c: i for c, xs in self.x.items() for i, v in xs.items() if solver.boolean_value(v)}

    def counts(self, solver: cp_model.CpSolver) -> dict[str, list[str]]:
        """Every counted course (record included) -> 'PROGRAM/leaf' labels."""
        out: dict[str, list[str]] = {}
        for (prog, leaf_id), opts in self.a.items():
            for c, v in opts:
                if solver.boolean_value(v):
                    out.setdefault(c, []).append(f"{prog}/{leaf_id}")
        return {c: sorted(v) for c, v in out.items()}
