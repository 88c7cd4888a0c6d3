"""Requirement encoding shared by the planner's CP-SAT models, and the course-set model.

``encode_requirements`` posts, for any map course -> "taken" literal, the constraints that
the taken courses (plus the record) satisfy every target program: ``a[p,l,c]`` says course
``c`` counts toward leaf ``l`` of program ``p``; a course counts toward at most one leaf per
program (two where the program's overlaps allow, ``agents.planner.counting``); set leaves
need ``min_courses`` / ``min_units`` and each minimum from a sub-list, count at most what
each cap allows and, with ``min_subjects``, count courses of that many subjects
(``s[p,l,subject]`` implies a counted course of the subject); all-of and n-of nodes combine
children; a sharing limit ``k`` between two programs bounds the courses counted by both.

``SelectionModel`` is the time-free relaxation of the plan: which courses to take so that
requirements, the unit total, anti-requisites and prerequisite closure (a course's
prerequisite courses are taken or on the record; a consent condition is a per-course
literal, allowed but minimized among the tie-breaks) hold, with the fewest units. Its optimum
is a lower bound on the units of any plan, and its answer seeds the term assignment.
When the fewest units are not proved within ``PLAIN_DTIME``, interchangeable courses are
ordered (``agents.planner.twins``) and CP-SAT's own symmetry search is turned off for the
rest: with many copies of a course - a catalog ten times the sample's - CP-SAT otherwise
spends up to seconds among mirror images (small catalogs are proved at once, as before).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ortools.sat.python import cp_model

from agents.catalog import (
    AllOf,
    AnyOf,
    ConsentCond,
    CourseCond,
    FactCond,
    PrereqNode,
)
from agents.planner.counting import minimum_constraints, post_once, post_sharing
from agents.planner.cpsat import Model, Steps, make_solver, weighted
from agents.planner.cuts import post_set_cuts
from agents.planner.fillers import counted_only, elective_misfit, interest_shortfall
from agents.planner.floor import units_floor
from agents.planner.prep import Prep
from agents.planner.reqtree import ReqTree
from agents.planner.risky import risky_parts
from agents.planner.twins import many_twins, post_twins, twin_groups

Lit = cp_model.IntVar
PLAIN_DTIME = 0.05  # the fewest units without ordering twins first (small pools need no more)


def encode_requirements(
    m: cp_model.CpModel, p: Prep, taken: dict[str, Lit], scale: Steps
) -> dict[tuple[str, str], list[tuple[str, Lit]]]:
    """Post the requirement constraints; returns (program, leaf id) -> [(course, a-literal)]."""
    per_course: dict[tuple[str, str], list[Lit]] = {}
    per_leaf: dict[tuple[str, str], list[tuple[str, Lit]]] = {}  # (program, course)
    out: dict[tuple[str, str], list[tuple[str, Lit]]] = {}
    for leaf in p.leaves:
        opts: list[tuple[str, Lit]] = []
        for c in leaf.options:
            if not p.hist_ok(c, leaf.min_grade) and c not in taken:
                continue
            v = m.new_bool_var(f"a[{leaf.label},{c}]")
            if not p.hist_ok(c, leaf.min_grade):
                m.add_implication(v, taken[c])
            if (leaf.program, leaf.id, c) in p.pins:
                # The degree audit puts this course here whenever it is taken; follow it.
                m.add(v == (taken[c] if c in taken and not p.hist_ok(c, leaf.min_grade) else 1))
            opts.append((c, v))
            per_course.setdefault((leaf.program, c), []).append(v)
            per_leaf.setdefault((leaf.program, c), []).append((leaf.id, v))
        out[(leaf.program, leaf.id)] = opts
    post_once(m, p, per_leaf)
    for prog, leaf_id in sorted(p.orders):
        # The audit takes a planned course that fewer of the program's leaves want before
        # one that more want: if it is taken, it counts here whenever a busier one does.
        in_taken = {c: v for c, v in out.get((prog, leaf_id), []) if c in taken}
        for c1, v1 in in_taken.items():
            for c2, v2 in in_taken.items():
                if p.demand(prog, c2) < p.demand(prog, c1):
                    m.add(v2 == 1).only_enforce_if([v1, taken[c2]])

    def tree(prog: str, node: ReqTree, enf: Lit | None) -> None:
        if node.kind == "all":
            for ch in node.children:
                tree(prog, ch, enf)
            return
        if node.kind == "n_of":
            kids = []
            for ch in node.children:
                v = m.new_bool_var(f"sat[{prog}/{ch.id}]")
                tree(prog, ch, v)
                kids.append(v)
            ct = m.add(sum(kids) >= node.n)
            if enf is not None:
                ct.only_enforce_if(enf)
            return
        leaf = node.leaf
        assert leaf is not None
        opts = out[(prog, leaf.id)]
        cts = []
        if leaf.kind == "course" or leaf.min_courses:
            need = 1 if leaf.kind == "course" else leaf.min_courses
            cts.append(m.add(sum(v for _, v in opts) >= need))
        if leaf.min_units:
            units = scale.ceil(leaf.min_units)
            cts.append(m.add(sum(scale.count(p.course(c).units) * v for c, v in opts) >= units))
        if leaf.min_subjects:
            cts.append(m.add(sum(_subject_lits(m, p, leaf.label, opts)) >= leaf.min_subjects))
        cts += minimum_constraints(m, p, leaf, opts, scale)
        for cap in leaf.caps:  # what may count, whether or not the leaf is needed
            inside = [(c, v) for c, v in opts if c in cap.courses]
            if cap.max_courses is not None and len(inside) > cap.max_courses:
                m.add(sum(v for _, v in inside) <= cap.max_courses)
            if cap.max_units is not None:
                most = scale.floor(cap.max_units)
                m.add(sum(scale.count(p.course(c).units) * v for c, v in inside) <= most)
        if enf is not None:
            for ct in cts:
                ct.only_enforce_if(enf)

    for prog, root in p.trees.items():
        tree(prog, root, None)
    post_sharing(m, p, per_course, p.sharing)
    counted_only(m, p, taken, per_course)
    return out


def _subject_lits(
    m: cp_model.CpModel, p: Prep, label: str, opts: list[tuple[str, Lit]]
) -> list[Lit]:
    """One literal per subject of ``opts``, true only if a course of it counts."""
    by_subject: dict[str, list[Lit]] = {}
    for c, v in opts:
        by_subject.setdefault(p.course(c).subject_code, []).append(v)
    out = []
    for subject, lits in sorted(by_subject.items()):
        s = m.new_bool_var(f"s[{label},{subject}]")
        m.add(s <= sum(lits))
        out.append(s)
    return out


def encode_total_and_antirequisites(
    m: cp_model.CpModel,
    p: Prep,
    taken: dict[str, Lit],
    gain: dict[str, int],
    scale: Steps,
    extra: cp_model.LinearExpr | int = 0,
) -> None:
    """The degree total (``extra``: new units from outside ``taken``) and anti-requisites."""
    if p.total_needed > 0:
        new = sum(gain[c] * t for c, t in taken.items()) + extra
        m.add(new >= scale.ceil(p.total_needed))
    done: set[tuple[str, str]] = set()
    for c in sorted(taken):
        for d in sorted(p.antireqs(c)):
            if d in taken and (d, c) not in done:
                done.add((c, d))
                m.add(taken[c] + taken[d] <= 1)


@dataclass
class Selection:
    """A course set that meets every requirement, with its units (in credit steps) and the bound."""

    courses: list[str]
    units: int
    lower_bound: int
    optimal: bool
    counts: dict[str, list[str]]  # every counted course (record too) -> 'PROG/leaf' labels


class SelectionModel:
    """Which courses to take, ignoring terms (see the module docstring). ``spares``, for
    the whole-catalog bound only (``agents.planner.bound``): groups of courses outside the
    pool, each (new units, units, how many), that may add units toward the degree total."""

    def __init__(
        self,
        p: Prep,
        scale: Steps,
        units: dict[str, int],
        gain: dict[str, int],
        spares: Sequence[tuple[int, int, int]] = (),
    ) -> None:
        self.p = p
        self.m = Model()
        self.units = units
        self.gain = gain
        self.scale = scale
        self.floor = 0
        self.t = {c: self.m.new_bool_var(f"t[{c}]") for c in p.pool if p.allowed.get(c)}
        self.n = [self.m.new_int_var(0, k, f"n[{g},{u}]") for g, u, k in spares]
        self.spares = list(spares)
        for c in sorted(p.must):
            if c in self.t:
                self.m.add(self.t[c] == 1)
        self._and: dict[int, Lit] = {}
        self.k: dict[str, Lit] = {}  # consent used, per course
        self._course = ""
        self.proved_infeasible = False
        self.twinned = False  # interchangeable courses ordered (``twins``)
        self._settled = False  # the fewest units solved (``solve``)
        self._fewest: _Fewest | None = None
        for c, v in self.t.items():
            course = p.course(c)
            self._course = c
            for tree in (course.prerequisites, course.corequisites):
                self._post(v, tree)
        self.a = encode_requirements(self.m, p, self.t, scale)
        more = cp_model.LinearExpr.weighted_sum(self.n, [g for g, _, _ in self.spares])
        encode_total_and_antirequisites(self.m, p, self.t, gain, scale, more)
        post_set_cuts(self.m, p, self.t)  # alternatives only: not an earlier plan's set

    def _post(self, lit: Lit, node: PrereqNode | None) -> None:
        if node is None:
            return
        if isinstance(node, AllOf):
            for ch in node.all:
                self._post(lit, ch)
            return
        lits = self._or(node)
        if lits is None:
            return
        if not lits:
            self.m.add(lit == 0)
        else:
            self.m.add_bool_or([lit.Not(), *lits])

    def _or(self, node: PrereqNode) -> list[Lit] | None:
        if isinstance(node, CourseCond):
            if self.p.hist_ok(node.course, node.min_grade):
                return None
            return [self.t[node.course]] if node.course in self.t else []
        if isinstance(node, AnyOf):
            out: list[Lit] = []
            for ch in node.any:
                sub = self._or(ch)
                if sub is None:
                    return None
                out.extend(sub)
            return out
        if isinstance(node, AllOf):
            if id(node) not in self._and:
                v = self.m.new_bool_var(f"and{len(self._and)}")
                self._and[id(node)] = v
                self._post(v, node)
            return [self._and[id(node)]]
        if isinstance(node, FactCond):
            return None if self.p.fact(node) else []
        if isinstance(node, ConsentCond):
            # Someone must sign unless another branch holds: allowed, but counted.
            if self._course not in self.k:
                self.k[self._course] = self.m.new_bool_var(f"k[{self._course}]")
            return [self.k[self._course]]
        return None  # standing and units conditions do not constrain the set

    def solve(
        self, seconds: float, dtime: float, tie_dtime: float, fit: bool = True
    ) -> Selection | None:
        """Fewest units (proved unless ``dtime`` runs out) - the bound; then, when that set
        has dormant courses or consent with a course route, the fewest of those before the
        fewest units (``agents.planner.risky``); then, within ``tie_dtime``, fewer
        courses taken on someone's consent (an interest never outweighs a signature), more
        interest points, then optional courses that suit the student (``elective_misfit``),
        then earlier-available and lower-level courses (not proved). ``fit=False`` leaves
        the suiting out (a set the term search places more easily, ``agents.planner.solve``).

        The fewest units are solved once per model (with the first call's ``dtime``): asked
        again, only the tie-breaks run, on a copy of the model as it stood before them - the
        very model, so the very answer, a new ``SelectionModel`` would give."""
        if not self._settled:
            self._settled = True
            self._fewest = self._fewest_units(seconds, dtime)
        if self._fewest is None:
            return None
        return self._ties(self._fewest, seconds, tie_dtime, fit)

    def _fewest_units(self, seconds: float, dtime: float) -> _Fewest | None:
        p = self.p
        units = sum(self.units[c] * v for c, v in self.t.items())
        floor = units_floor(p, [c for c in p.pool if p.allowed.get(c)], self.scale)
        if floor is None:
            self.proved_infeasible = True
            return None
        self.m.add(units >= floor)
        self.m.minimize(units)
        groups = twin_groups(p, self.t, self.units)
        if many_twins(groups):
            # Many mirror images (copies of a course): ordered at once - CP-SAT's own
            # symmetry search would spend its budget (and many times its wall time) on them.
            self.twinned = post_twins(self.m, p, self.t, self.units, groups)
        solver = make_solver(seconds, min(dtime, PLAIN_DTIME), symmetry=not self.twinned)
        code = solver.solve(self.m)
        if (
            code not in (cp_model.OPTIMAL, cp_model.INFEASIBLE)
            and dtime > PLAIN_DTIME
            and not self.twinned
        ):
            # Not proved at once: many mirror images (copies of a course, ``twins``) - order
            # them and search on, CP-SAT's own symmetry search off (it only costs time then).
            self.twinned = post_twins(self.m, p, self.t, self.units, groups)
        if code not in (cp_model.OPTIMAL, cp_model.INFEASIBLE) and dtime > PLAIN_DTIME:
            solver = make_solver(seconds, dtime - PLAIN_DTIME, symmetry=not self.twinned)
            code = solver.solve(self.m)
        if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            self.proved_infeasible = code == cp_model.INFEASIBLE
            return None
        value = solver.value(units)
        bound = max(floor, value if code == cp_model.OPTIMAL else int(solver.best_objective_bound))
        optimal = value <= bound
        self.floor = floor
        risky = risky_parts(p, self.t, self.k)
        if any(solver.value(e) for e, _ in risky):
            # Dormant courses and routine consent come before units (``risky``): a set
            # without them at more units, if one exists. ``bound`` stays the units bound of
            # every plan: the graduation bound is drawn from it.
            for v in self.t.values():
                self.m.add_hint(v, solver.boolean_value(v))
            self.m.minimize(weighted([*risky, (units, sum(self.units.values()))]))
            again = make_solver(seconds, dtime, symmetry=not self.twinned)
            code = again.solve(self.m)
            if code in (cp_model.OPTIMAL, cp_model.FEASIBLE):
                solver, value, optimal = again, again.value(units), code == cp_model.OPTIMAL
            for e, _ in risky:
                self.m.add(e <= solver.value(e))
            self.m.clear_hints()
        self.m.add(units <= value)
        for v in self.t.values():
            self.m.add_hint(v, solver.boolean_value(v))
        for v in self.k.values():
            self.m.add_hint(v, 1)  # signing for every consent course always satisfies them
        return _Fewest(value, bound, optimal, solver, self.m.clone())

    def _ties(self, f: _Fewest, seconds: float, tie_dtime: float, fit: bool) -> Selection:
        p, m = self.p, f.base.clone()
        order = sorted(
            self.t,
            key=lambda c: (p.analysis.est.get(c, 0), p.course(c).level, p.course(c).units, c),
        )
        m.minimize(
            weighted(
                [
                    (sum(self.k.values()), len(self.k)),
                    interest_shortfall(p, self.t),
                    elective_misfit(m, p, self.t) if fit else (0, 0),
                    (sum(i * self.t[c] for i, c in enumerate(order)), len(order) ** 2),
                ]
            )
        )
        solver = f.solver
        second = make_solver(seconds, tie_dtime, symmetry=not self.twinned)
        if second.solve(m) in (cp_model.OPTIMAL, cp_model.FEASIBLE):
            solver = second
        chosen = sorted(c for c, v in self.t.items() if solver.boolean_value(v))
        counts: dict[str, list[str]] = {}
        for (prog, leaf_id), opts in self.a.items():
            for c, v in opts:
                if solver.boolean_value(v):
                    counts.setdefault(c, []).append(f"{prog}/{leaf_id}")
        return Selection(chosen, f.value, f.bound, f.optimal, counts)


@dataclass
class _Fewest:
    """The fewest units of a ``SelectionModel`` (``solve``): the units of the set found,
    the bound, whether it is proved, the solver that found it, and the model as the
    tie-breaks start from it (constraints, hints; no objective of theirs yet)."""

    value: int
    bound: int
    optimal: bool
    solver: cp_model.CpSolver
    base: Model
