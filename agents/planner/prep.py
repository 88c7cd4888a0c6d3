"""Planner preparation: ``Prep``, everything the CP-SAT models need, and earliest terms -
plain Python (no solver): the terms with their caps and floors, the record's credit
(``agents.planner.record``), the compiled requirement trees (``agents.planner.reqtree``),
the candidate pool (``agents.planner.pool``) with the positions each course may take
(offered, not away, at or after its earliest term), and the earliest-term analysis the
infeasibility reasons reuse (chains, offerings)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Sequence
from dataclasses import dataclass

from agents.catalog import (
    STANDINGS,
    AllOf,
    AnyOf,
    Catalog,
    ConsentCond,
    Course,
    CourseCond,
    FactCond,
    PrereqNode,
    Program,
    StandingCond,
    StudentRecord,
    Term,
    UnitsCond,
    credit_sub,
    credit_sum,
    fact_holds,
    offered_in,
)
from agents.catalog.history import routine_codes
from agents.planner.catalog_index import catalog_index
from agents.planner.fit import declared_subjects, misfit, student_level
from agents.planner.record import read_history
from agents.planner.reqtree import (
    Leaf,
    ReqTree,
    compile_requirements,
    min_grades_for,
    sharing_limits,
)

INF = 10**6


@dataclass
class Analysis:
    """Earliest positions and the reason behind them, for one course universe."""

    est: dict[str, int]
    why: dict[str, str | None]  # course whose completion bound the earliest term


class Prep:
    """Everything the model needs, built once per ``plan`` call and horizon."""

    def __init__(
        self,
        catalog: Catalog,
        student: StudentRecord,
        programs: Sequence[Program],
        terms: list[Term],
        away: set[str],
        caps: list[float],
        floors: list[float],
        *,
        include: Sequence[str] = (),
        avoid: Sequence[str] = (),
        fixed: dict[str, str] | None = None,
        interests: dict[str, float] | None = None,
        by_standing: Sequence[tuple[float, ...]] | None = None,
    ) -> None:
        self.catalog = catalog
        self.student = student
        self.programs = list(programs)
        self.program_codes = {p.code for p in programs} | set(student.programs)
        self.terms = terms
        self.away = away
        self.caps = caps
        self.floors = floors
        self.min_courses: dict[int, int] = {}  # position -> fewest courses there
        self.max_courses: dict[int, int] = {}  # position -> most courses there (a kind's)
        self.include = sorted(set(include))
        self.avoid = set(avoid)
        self.fixed = dict(fixed or {})
        self.not_in: dict[str, set[str]] = {}
        self.exclusive: dict[str, list[tuple[str, str]]] = {}
        self.interests = dict(interests or {})
        self.history = read_history(catalog, student)
        self.trees: dict[str, ReqTree] = {}
        self.leaves: list[Leaf] = []
        for p in self.programs:
            tree, leaves = compile_requirements(catalog, p)
            self.trees[p.code] = tree
            self.leaves.extend(leaves)
        self.sharing = sharing_limits(self.programs)
        totals = [p.total_units for p in self.programs if p.total_units]
        self.total_units = max(totals) if totals else 0.0
        self.total_needed = max(0.0, credit_sub(self.total_units, self.history.units_earned))
        self.min_grades = min_grades_for(catalog, self.leaves)
        self.term_codes = [t.code for t in terms]
        self.active = [c not in away for c in self.term_codes]
        self._offered: dict[str, tuple[int, ...]] = {}  # terms and active never change
        self._allowed_at: dict[str, list[int]] = {}
        # Earliest terms over every plannable course (``pool.build_pool``), once per request.
        self.reach: Analysis | None = None
        self.derived: dict[str, object] = {}  # facts other modules compute once per prep
        self.index = catalog_index(catalog)
        self._blocked = {o for c in self.history.passed for o in self.index.antireqs.get(c, ())}
        self._plannable: dict[str, bool] = {}  # avoid, include, fixed never change
        self._positions = self.index.positions_for(tuple(self.term_codes), tuple(self.active))
        # The courses that run in each term as routine (per catalog and term); none if away.
        runs = [routine_codes(catalog, t) for t in terms]
        self._runs = [r if a else frozenset() for r, a in zip(runs, self.active, strict=True)]
        # What suits the student in a free elective (``agents.planner.fit``).
        self.level = student_level(catalog.standing_for_units(self.history.units_earned))
        self.subjects = declared_subjects(catalog, [p.code for p in self.programs])
        # Caps by the class standing at the start of each term (``by_standing``: one cap per
        # standing, in STANDINGS order): ``standings[i]`` is the range of standings the
        # student can have then, ``caps[i]`` the highest cap of that range (a bound for the
        # analyses) and ``standing_caps[i]`` the row when the cap differs within the range.
        self.standings = self._standing_ranges(by_standing)
        self.standing_caps: list[tuple[float, ...] | None] = [None] * len(terms)
        if by_standing is not None:
            self.caps = []
            for i, row in enumerate(by_standing):
                lo, hi = self.standings[i]
                self.caps.append(max(row[lo : hi + 1]))
                self.standing_caps[i] = None if min(row[lo : hi + 1]) == self.caps[i] else row
        # Standard loads per term and standing, when they are below the caps somewhere: the
        # staged solve then keeps the units above them as few as it can.
        self.soft: list[tuple[float, ...]] | None = None
        # Units full loads complete before each position (caps of active terms before it).
        self._cap_before = [0.0]
        for i, cap in enumerate(self.caps):
            # Exact sums: 2.4 + 0.6 + 0.6 reach 3.6 as 12 + 3 + 3 reach 18 (not 3.5999999).
            step = cap if self.active[i] else 0.0
            self._cap_before.append(credit_sum((self._cap_before[-1], step)))
        self.consent: set[str] = set()
        self.pool: list[str] = []
        self.must: set[str] = set()
        self.allowed: dict[str, list[int]] = {}
        self.analysis = Analysis({}, {})
        self.full = False
        self.standard = False  # planned within the standard loads (``PlanSetup.prep``)
        self.slack = 1  # the pool's slacks are multiplied by this (``agents.planner.pool``)
        self.pins: set[tuple[str, str, str]] = set()  # (program, leaf id, course) from the audit
        # Leaves (program, leaf id) whose planned courses must come first in the audit's order.
        self.orders: set[tuple[str, str]] = set()
        # No-good cuts of earlier plans an alternative must differ from (``cuts``): course
        # sets, and placements as course -> term code.
        # Courses the student forces in: no prerequisite, corequisite, offering or standing
        # check for them (the verifier reports what fails; the critique weighs it).
        self.forced: set[str] = set()
        self.other_sets: list[frozenset[str]] = []
        self.other_placements: list[dict[str, str]] = []

    def demand(self, program: str, code: str) -> int:
        """How many leaves of ``program`` a course matches (the audit fills low first)."""
        return sum(code in leaf.matching for leaf in self.leaves if leaf.program == program)

    def leaf(self, program: str, leaf_id: str) -> Leaf:
        return next(x for x in self.leaves if x.program == program and x.id == leaf_id)

    def fact(self, node: FactCond) -> bool:
        """A condition on the student's programs, or on tests, placements and milestones on
        record."""
        return fact_holds(node, self.program_codes, self.student)

    def _standing_ranges(
        self, by_standing: Sequence[tuple[float, ...]] | None
    ) -> list[tuple[int, int]]:
        """The standings (indexes into STANDINGS) the student can have at the start of each
        term: from the one the record gives up to the one the highest caps before the term
        could reach (a standing never drops)."""
        standing = self.catalog.standing_for_units
        units = self.history.units_earned
        lo = STANDINGS.index(standing(units))
        out: list[tuple[int, int]] = []
        for i, cap in enumerate(self.caps):
            hi = STANDINGS.index(standing(units))
            out.append((lo, hi))
            if by_standing is not None:
                cap = max(by_standing[i][lo : hi + 1])
            if self.active[i]:
                units = credit_sum((units, cap))
        return out

    def standing_threshold(self, index: int) -> float:
        """Units completed that the standing ``STANDINGS[index]`` begins at."""
        t = self.catalog.standing_thresholds
        return (0.0, t.sophomore, t.junior, t.senior)[index]

    # ------------------------------------------------------------------ basic facts

    def course(self, code: str) -> Course:
        return self.catalog.course_by_code[code]

    def hist_ok(self, code: str, min_grade: str | None) -> bool:
        return self.history.ok(code, min_grade, self.catalog)

    def retake_needed(self, code: str) -> bool:
        """Earned, but below a minimum grade some prerequisite or requirement asks for."""
        return any(not self.hist_ok(code, g) for g in self.min_grades.get(code, []))

    def plannable(self, code: str) -> bool:
        hit = self._plannable.get(code)
        if hit is None:
            hit = self._plannable[code] = self._is_plannable(code)
        return hit

    def _is_plannable(self, code: str) -> bool:
        if code in self.avoid or code not in self.catalog.course_by_code:
            return False
        if code in self._blocked:  # an earned anti-requisite (either direction): retakes too
            return False
        if code not in self.forced and self.course(code).closed_by_program(self.program_codes):
            return False  # a program restriction ("majors only"); forcing it is the student's
        return (
            code not in self.history.passed
            or self.course(code).repeatable
            or self.retake_needed(code)
            # A retake the student asks for; the repeat rules (critique) say if it may be.
            or code in self.fixed
            or code in self.include
        )

    def antireqs(self, code: str) -> set[str]:
        return self.index.antireqs.get(code, set())

    def gain(self, code: str) -> float:
        """Units a planned attempt adds toward the degree total (0 for a grade-raising retake)."""
        course = self.course(code)
        if course.repeatable or code not in self.history.have:
            return course.units
        return 0.0

    def offered_positions(self, code: str) -> tuple[int, ...]:
        """Active positions the course runs in as routine (``agents.catalog.history``: its
        pattern, status, published schedules and offering history); every active one for a
        forced course. Kept per catalog for these terms and terms away (a pin may take any
        term the course runs in: ``_allowed_for``)."""
        hit = self._offered.get(code)
        if hit is None:
            if code in self.forced:
                hit = tuple(i for i in range(len(self.terms)) if self.active[i])
            else:
                hit = self._positions.get(code)
                if hit is None:
                    hit = tuple(i for i, codes in enumerate(self._runs) if code in codes)
                    self._positions[code] = hit
            self._offered[code] = hit
        return hit

    def units_reachable(self, threshold: float, position: int) -> bool:
        """Whether ``threshold`` units can be complete before ``position`` at full loads."""
        cap = self._cap_before[min(position, len(self.caps))]
        return credit_sum((self.history.units_earned, cap)) >= threshold

    def threshold(self, node: StandingCond | UnitsCond) -> float:
        """Units completed that a standing or units condition asks for."""
        if isinstance(node, UnitsCond):
            return node.units_completed
        return self.standing_threshold(STANDINGS.index(node.standing))

    # ------------------------------------------------------------------ earliest terms

    def analyse(self, universe: set[str]) -> Analysis:
        """Earliest position of each course in ``universe`` (INF: not within the horizon)."""
        est: dict[str, int] = {}
        why: dict[str, str | None] = {}
        busy: set[str] = set()

        def ready(node: PrereqNode | None, strict: bool) -> tuple[int, str | None]:
            if node is None:
                return 0, None
            if isinstance(node, CourseCond):
                if self.hist_ok(node.course, node.min_grade):
                    return 0, None
                if node.course not in universe:
                    return INF, node.course
                e = earliest(node.course)
                if e >= INF:
                    return INF, node.course
                return (e + 1 if strict and not node.concurrent else e), node.course
            if isinstance(node, AllOf):  # the latest part (the first of equals)
                best: tuple[int, str | None] = (-1, None)
                for child in node.all:
                    part = ready(child, strict)
                    if part[0] > best[0]:
                        best = part
                return best
            if isinstance(node, AnyOf):  # the earliest branch (the first of equals)
                best = (INF + 1, None)
                for child in node.any:
                    part = ready(child, strict)
                    if part[0] < best[0]:
                        best = part
                return best
            if isinstance(node, StandingCond | UnitsCond):
                thr = self.threshold(node)
                for i in range(len(self.terms)):
                    if self.units_reachable(thr, i):
                        return i, None
                return INF, None
            if isinstance(node, FactCond):
                return (0 if self.fact(node) else INF), None
            assert isinstance(node, ConsentCond)
            return 0, None

        def earliest(code: str) -> int:
            if code in est:
                return est[code]
            if code in busy:  # a corequisite cycle: optimistic, still a lower bound
                return 0
            busy.add(code)
            c = self.course(code)
            r1, w1 = ready(c.prerequisites, True)
            r2, w2 = ready(c.corequisites, False)
            r, w = (r1, w1) if r1 >= r2 else (r2, w2)
            if code in self.forced:
                r, w = 0, None
            allowed = self.allowed_for(code)  # ascending
            at = bisect_left(allowed, r)
            busy.discard(code)
            est[code] = allowed[at] if at < len(allowed) and r < INF else INF
            why[code] = w
            return est[code]

        for code in sorted(universe):
            earliest(code)
        return Analysis(est, why)

    def allowed_for(self, code: str) -> list[int]:
        """Positions ``code`` may take (offered, open to the student, not barred or pinned
        elsewhere), computed once per course (callers copy, never change, the list)."""
        hit = self._allowed_at.get(code)
        if hit is None:
            hit = self._allowed_at[code] = self._allowed_for(code)
        return hit

    def share(self, other: Prep) -> None:
        """Take ``other``'s per-course facts (offerings, positions, the earliest terms over
        every plannable course): a prep of the same request, end term and loads."""
        self._offered = other._offered
        self._allowed_at = other._allowed_at
        self.reach = other.reach

    def _allowed_for(self, code: str) -> list[int]:
        codes, pinned, course = self.term_codes, self.fixed.get(code), self.course(code)
        offered = list(self.offered_positions(code))
        if pinned is not None and code not in self.forced:  # routine or not (``history``)
            offered = [i for i, t in enumerate(self.terms) if codes[i] == pinned
                       and self.active[i] and offered_in(self.catalog, course, t)]  # fmt: skip
        if course.restricted_to and code not in self.forced:
            offered = [i for i in offered if self.open_standings(code, i)]
        if pinned is not None:
            return [i for i in offered if codes[i] == pinned]
        barred = self.not_in.get(code)
        return [i for i in offered if codes[i] not in barred] if barred else offered

    def open_standings(self, code: str, i: int) -> list[int]:
        """The standings (indexes into STANDINGS) the student may have at the start of ``i``
        that may take ``code`` (``restricted_to``): projected, so a juniors' course is
        plannable wherever junior standing may be reached; ``PlanModel`` holds it there."""
        course = self.course(code)
        lo, hi = self.standings[i]
        return [k for k in range(lo, hi + 1) if course.open_to(STANDINGS[k])]

    def open_at(self, code: str, i: int) -> bool:
        """Whether every standing the student can have at the start of ``i`` may take
        ``code``: then a placement there needs no standing literal."""
        lo, hi = self.standings[i]
        return len(self.open_standings(code, i)) == hi - lo + 1

    def named_in_pool(self) -> set[str]:
        """Courses some pool course names as a prerequisite or corequisite (so none of them
        is interchangeable with a course nobody names)."""
        named = self.index.named
        return {n for c in self.pool for n, _ in named[c]}

    def misfit(self, code: str) -> int:
        """The penalty for ``code`` as a free elective (``agents.planner.fit``), orphan aside."""
        interested = self.interests.get(code, 0.0) > 0
        return misfit(self.course(code), self.level, interested, self.subjects)

    def chain(self, code: str, analysis: Analysis) -> list[str]:
        """The prerequisite chain ending in ``code`` that bounds its earliest term."""
        out = [code]
        seen = {code}
        while (w := analysis.why.get(out[0])) is not None and w not in seen:
            if self.hist_ok(w, None) and w not in analysis.est:
                break
            out.insert(0, w)
            seen.add(w)
        return out
