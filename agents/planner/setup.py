"""Planner setup: the constraints of one ``plan`` call, parsed once.

``PlanSetup`` checks the request (terms, programs, course codes) and, for any end term,
builds a ``Prep`` with its candidate pool (``prep``) and runs the staged solve on it
(``solve``). The planning call, its reasons and its audit repair all go through it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence

from agents.catalog import STANDINGS, Catalog, Program, StudentRecord, Term, with_institution
from agents.catalog.clashes import clash_partners
from agents.errors import PlanningError
from agents.planner.pool import build_pool
from agents.planner.prep import Prep
from agents.planner.schema import PlanConstraints
from agents.planner.solution import Solution
from agents.planner.solve import solve_plan
from agents.planner.terms import default_latest, horizon, next_allowed, parse_term


class PlanSetup:
    """Parsed constraints shared by every solve of one ``plan`` call."""

    def __init__(
        self,
        catalog: Catalog,
        student: StudentRecord,
        programs: Sequence[str],
        c: PlanConstraints,
    ) -> None:
        self.catalog, self.student, self.c = catalog, student, c
        # The institution's requirements apply to every student, declared or not.
        targets = with_institution(catalog, dict.fromkeys(programs))
        self.programs: list[Program] = [catalog.program(p) for p in targets]
        if not self.programs:
            raise PlanningError("no target programs; pass at least one program code")
        current = parse_term(student.current_term, "student current_term")
        self.current = current
        self.first = (
            parse_term(c.first_term, "first_term")
            if c.first_term
            else next_allowed(current, c.allows)
        )
        latest = parse_term(c.latest_term, "latest_term") if c.latest_term else None
        self.latest: Term = latest or default_latest(self.first, c.horizon_terms)
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
        # Courses kept apart in a term: term code -> (course -> partners, courses fixed
        # there whose pairs are the student's choice), the request's own pairs and those
        # the catalog's sections rule out in its clash terms (``clash_partners``).
        self.apart: list[tuple[str, dict[str, frozenset[str]], set[str]]] = []
        for code, pairs in c.exclusive_pairs.items():
            given: dict[str, set[str]] = {}
            for a, b in pairs:
                given.setdefault(a, set()).add(b)
                given.setdefault(b, set()).add(a)
            self.apart.append((code, {k: frozenset(v) for k, v in given.items()}, set()))
        for term in c.clash_terms:
            code = parse_term(term, "clash_terms").code
            pinned = {k for k, t in self.fixed.items() if t == code}
            self.apart.append((code, clash_partners(catalog, code), pinned))

        # Earlier plans an alternative must differ from (``agents.planner.cuts``).
        self.other_sets: list[frozenset[str]] = []
        self.other_placements: list[dict[str, str]] = []
        self._shared: dict[tuple[str, bool], Prep] = {}

    @property
    def has_standard(self) -> bool:
        """Whether standard loads lie below the caps in some term (an overload exists)."""
        c = self.c
        return c.standard is not None and any(
            c.standard_load(t.code, s) < c.cap(t.code, s)
            for t in horizon(self.first, self.latest, c.allows)
            for s in STANDINGS
        )

    def prep(
        self,
        end: Term,
        full: bool = False,
        standard: bool = False,
        extra: Collection[str] = (),
        slack: int = 1,
    ) -> Prep:
        """The candidate pool and facts for plans through ``end``: within the caps, and
        within the standard loads when ``standard`` (otherwise, when standard loads lie
        below the caps, the staged solve keeps the units above them as few as it can)."""
        cs = self.c
        terms = horizon(self.first, end, cs.allows)
        hard = [tuple(cs.cap(t.code, s) for s in STANDINGS) for t in terms]
        soft = [tuple(cs.standard_load(t.code, s) for s in STANDINGS) for t in terms]
        by_standing = soft if standard else hard
        caps = [max(row) for row in by_standing]
        floors = [
            self.c.term_min_units.get(t.code, self.c.min_units_per_term if t.regular else 0.0)
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
            by_standing=by_standing,
        )
        if not standard and soft != hard:
            prep.soft = soft
        prep.total_needed = max(prep.total_needed, self.c.min_units_planned)
        prep.forced = set(self.c.forced) & set(self.catalog.course_by_code)
        prep.other_sets = list(self.other_sets)
        prep.other_placements = [dict(p) for p in self.other_placements]
        prep.not_in = {c: set(ts) for c, ts in self.c.not_in_term.items()}
        wanted = self.c.term_min_courses
        prep.min_courses = {i: wanted[t.code] for i, t in enumerate(terms) if t.code in wanted}
        most = self.c.term_max_courses
        prep.max_courses = {i: most[t.code] for i, t in enumerate(terms) if t.code in most}
        prep.standard, prep.slack = standard, slack
        # Preps of one end term and loads share their per-course facts (the pruned pool,
        # the full one after it, a widened one for a proof).
        source = self._shared.get((end.code, standard))
        if source is not None:
            prep.share(source)
        build_pool(prep, full, extra)
        prep.exclusive = self.exclusive_in(prep.pool)
        self._shared.setdefault((end.code, standard), prep)
        return prep

    def exclusive_in(self, pool: Collection[str]) -> dict[str, list[tuple[str, str]]]:
        """The pairs of ``pool`` courses kept apart, by term (in code order): only these
        can reach a model, whatever the size of the catalog's list."""
        inside = set(pool)
        out: dict[str, set[tuple[str, str]]] = {}
        for code, partners, pinned in self.apart:
            found = out.setdefault(code, set())
            for a in inside:
                for b in partners.get(a, ()):
                    if a < b and b in inside and not (a in pinned and b in pinned):
                        found.add((a, b))
        return {code: sorted(pairs) for code, pairs in out.items() if pairs}

    def solve(
        self, prep: Prep, seconds: float, first_only: bool, select_dtime: float | None = None
    ) -> Solution:
        """The staged solve of ``prep`` under these constraints (``seconds``: the safety
        net, at least 50 ms; ``select_dtime``: the course selection's budget, default
        ``solve.SELECT_DTIME``)."""
        return solve_plan(
            prep,
            max_courses=self.c.max_courses_per_term,
            seconds=max(0.05, seconds),
            first_only=first_only,
            select_dtime=select_dtime,
        )
